"""Input diagnostics on a small hand-checked input."""

from __future__ import annotations

import auditeval as ae
from auditeval.auditing.core import _run_facts
from auditeval.auditing.input_diagnostics import qrels_facts
from auditeval.auditing.native import Native
from auditeval.vocab.conventions import resolve

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 0\n3 0 y 1\n"
# topic 1: c, then d (unjudged, and twice), then a and b whose scores collapse as C floats;
# topic 2: x judged non-relevant, w unjudged; topic 4 is only in the run
RUN = ("1 Q0 c 1 5.0 t\n1 Q0 d 2 2.0 t\n1 Q0 a 3 0.30000001 t\n1 Q0 b 4 0.3 t\n1 Q0 d 5 0.1 t\n"
       "2 Q0 x 1 1.0 t\n2 Q0 w 2 0.5 t\n4 Q0 z 1 1.0 t\n")


def test_diagnostics(tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    q, r = ae.read_qrels(tmp_path / "q"), ae.read_run(tmp_path / "r")
    base = resolve("trec_eval-9.0.8")
    qf = qrels_facts(q, 1)
    assert qf["grades"] == {0: 2, 1: 2, 2: 1}
    assert qf["topics_without_relevant"] == ["2"]
    f = _run_facts(Native(q, [r], base), 0, q, base)
    # dups=error refuses the duplicate d: the facts are computed under dups=first, and say so
    assert f["computed_under"].startswith("dups=first, topics=both (")
    assert f["duplicate_lines"] == 1
    assert f["duplicate_examples"] == ["topic 1 doc d (2 lines, first at line 2)"]
    assert (f["only_in_run"], f["only_in_qrels"]) == (["4"], ["3"])
    assert f["float32_collapses"] == 1
    assert f["float32_examples"] == ["topic 1: scores 0.30000001 and 0.3 (ranks 3-4)"]
    # under float32, a and b tie: one block of 2 in topic 1's top 10
    # (score: the first row of the block, b, as written; docno-desc puts b before a)
    assert f["largest_block"] == {"topic": "1", "size": 2, "score": 0.3, "first_rank": 3}
    assert (f["topics_tied_in_top10"], f["mixed_blocks"]) == (1, 1)
    # top 10 of the evaluated topics 1 and 2: c d a b | x w -> 2 unjudged of 6
    assert f["unjudged_top10_share"] == 2 / 6
    assert f["depth"]["min"] == 1 and f["depth"]["max"] == 5
