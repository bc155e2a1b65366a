"""Files handed to the reference tools: a file with lines only some tools skip is copied clean."""

from __future__ import annotations

import auditeval as ae
from auditeval.auditing.inputs import has_skippable_lines


def test_skippable_lines_detected(tmp_path):
    cases = {
        "clean": "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n",
        "comment": "# header\n1 Q0 a 1 2.0 r\n",
        "inner_comment": "1 Q0 a 1 2.0 r\n# note\n1 Q0 b 2 1.0 r\n",
        "blank": "1 Q0 a 1 2.0 r\n\n1 Q0 b 2 1.0 r\n",
        "bom": "\ufeff1 Q0 a 1 2.0 r\n",
        "crlf": "1 Q0 a 1 2.0 r\r\n",
    }
    found = {}
    for name, text in cases.items():
        p = tmp_path / name
        p.write_text(text, encoding="utf-8")
        found[name] = has_skippable_lines(p)
    assert found == {"clean": False, "comment": True, "inner_comment": True, "blank": True, "bom": True, "crlf": True}


def test_pytrec_eval_reads_a_clean_copy_of_a_run_with_a_comment(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n")
    r = tmp_path / "run"
    # relevant at ranks 1 and 3 of 3: AP = (1/1 + 2/3) / 2 = 0.8333...
    r.write_text("# produced by bm25\n1 Q0 a 1 3.0 r\n1 Q0 b 2 2.0 r\n1 Q0 c 3 1.0 r\n")
    rep = ae.audit(str(q), [str(r)], measures=["AP"], against=["pytrec_eval"])
    rows = [a for a in rep.agreement if a.engine == "pytrec_eval"]
    assert [(a.status, round(float(a.value), 6)) for a in rows] == [("match", 0.833333)]
    assert any("clean copy of the 3 parsed line(s)" in n for n in rep.notes)
    assert rep.exit_status == 0
