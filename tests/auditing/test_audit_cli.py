"""``auditeval audit``: exit 0 when explained, 1 when not (a tool printing a wrong number),
2 on bad input; -o FILE; every format."""

from __future__ import annotations

import io
import stat

from paths import EXAMPLES

from auditeval.cli.main import main

QRELS = "1 0 a 1\n1 0 b 0\n2 0 c 1\n"
RUN = "1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 x 1 3.0 t\n2 Q0 c 2 1.0 t\n"


def _files(tmp_path):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(QRELS)
    r.write_text(RUN)
    return str(q), str(r)


def _run(argv):
    out, err = io.StringIO(), io.StringIO()
    return main(argv, out, err), out.getvalue(), err.getvalue()


def test_bad_input_is_exit_2_with_path_and_line(tmp_path):
    q, r = _files(tmp_path)
    bad = tmp_path / "bad"
    bad.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0\n")  # five fields: no run tag
    code, _, err = _run(["audit", q, str(bad), "--against", "pytrec_eval"])
    assert code == 2
    assert err.startswith(f"auditeval: error: {bad}:2: ")
    code, _, err = _run(["audit", q, r, "--against", "nosuchtool"])
    assert code == 2 and "unknown reference 'nosuchtool'" in err


def test_explained_audit_is_exit_0_and_writes_each_format(tmp_path):
    q, r = _files(tmp_path)
    for fmt, marker in [("json", '"exit_status": 0')]:  # the other formats: test_audit_report.py
        out_file = tmp_path / f"report.{fmt}"
        code, out, err = _run(["audit", q, r, "-m", "AP", "-m", "P@1", "--against", "pytrec_eval", "--format", fmt,
                               "-o", str(out_file)])
        assert code == 0, err
        assert out == "" and f"wrote {out_file} ({fmt}); exit status 0" in err
        assert marker in out_file.read_text()


def test_a_tool_printing_a_wrong_number_is_exit_1(tmp_path):
    q, r = _files(tmp_path)
    fake = tmp_path / "trec_eval"
    # behaves like tag v9.0.8 on the probe (RR 1 on the float32 topic, 11pt 0.4295), then prints map 0.9999
    fake.write_text("#!/bin/sh\nprintf 'recip_rank\\tf\\t1.0000\\n11pt_avg\\ti\\t0.4295\\n"
                    "map\\t1\\t0.9999\\nmap\\t2\\t0.5000\\nmap\\tall\\t0.7500\\n'\n")
    fake.chmod(fake.stat().st_mode | stat.S_IEXEC)
    code, out, err = _run(["audit", q, r, "-m", "AP", "--against", "trec_eval", "--trec-eval", str(fake)])
    assert code == 1
    assert "UNEXPLAINED" in out and "MISMATCH" in out
    assert "auditeval: UNEXPLAINED: t AP trec_eval-9.0.8: 1 topic(s) differ as printed (e.g. topic 1: 0.9999 vs 1.0000)" in err


def test_a_binary_refusing_one_run_stays_ok_as_an_engine(tmp_path, trec_eval_bins):
    """trec_eval 10.0 (topics=strict) exits 4 on the run lacking qrels topic 2; the native
    engine refuses it alike under that profile. The binary still computed the other run,
    so it is an engine that works ("ok", with the refusal in its message), not a failed one."""
    import json

    q, r = _files(tmp_path)
    short = tmp_path / "short"
    short.write_text("1 Q0 a 1 2.0 s\n1 Q0 b 2 1.0 s\n")
    out_file = tmp_path / "a.json"
    code, _, err = _run(["audit", q, r, str(short), "-m", "AP", "--against", "trec_eval",
                         "--trec-eval", str(trec_eval_bins["10.0"]), "--format", "json", "-o", str(out_file)])
    assert code == 4, err  # incomplete: run s was refused (by both), so it was not checked
    doc = json.loads(out_file.read_text())
    eng = next(e for e in doc["engines"] if e["name"] == "trec_eval-10.0")
    assert eng["status"] == "ok" and eng["message"].startswith("1 of 2 invocation(s) exited non-zero; first: exit status 4")
    rows = {a["run"]: a for a in doc["agreement"] if a["engine"] == "trec_eval-10.0"}
    assert rows["t"]["status"] == "match" and "both refuse" in rows["s"]["status"] + rows["s"]["detail"]


def test_trec_eval_counts_compare_as_integers_and_num_q_by_its_summary(tmp_path, trec_eval_bins):
    """trec_eval prints num_rel_ret per topic as an integer (``1``, not ``1.0000``) and num_q
    only in its summary line: both agree with the native engine (they were reported as
    unexplained mismatches before). Topic 1: a relevant at rank 1; topic 2: c at rank 2."""
    import json

    q, r = _files(tmp_path)
    out_file = tmp_path / "a.json"
    code, _, err = _run(["audit", q, r, "-m", "NumRelRet", "-m", "NumQ", "-m", "NumRet", "--against", "trec_eval",
                         "--trec-eval", str(trec_eval_bins["10.0"]), "--format", "json", "-o", str(out_file)])
    assert code == 0, err
    rows = {a["measure"]: (a["status"], a["detail"], a["value"]) for a in json.loads(out_file.read_text())["agreement"]}
    assert rows["NumRelRet"][:2] == ("match", "2 topics, as printed (integers)")
    assert rows["NumQ"][:2] == ("match", "aggregate only, as printed (2; the tool prints no per-topic value)")
    assert rows["NumRet"][:2] == ("match", "2 topics, as printed (integers)")


def test_audit_set_applies_the_settings_as_eval_does(tmp_path):
    import json

    ex = EXAMPLES
    files = [str(ex / "qrels.txt"), str(ex / "bm25.txt"), str(ex / "rerank.txt")]
    code, out, err = _run(["audit", *files, "-m", "AP", "--set", "topics=qrels", "--against", "pytrec_eval",
                           "--format", "json"])
    assert code == 0, err
    rep = json.loads(out)
    assert rep["profile"] == "trec_eval-9.0.8 with topics=qrels" and rep["profile_axes"]["topics"] == "qrels"
    assert rep["engines"][0]["profile"] == rep["profile"]
    base = {r["run"]: (r["aggregate"], r["variant"]) for r in rep["sensitivity"] if r["is_base"] and r["measure"] == "AP"}
    ties = {r["run"]: (r["value"], r["variant"]) for r in rep["ties"] if r["topic"] == "all"}
    ev_out = io.StringIO()
    assert main(["eval", *files, "-m", "AP", "--set", "topics=qrels", "--format", "tsv"], ev_out, io.StringIO()) == 0
    rows = [ln.split("\t") for ln in ev_out.getvalue().splitlines()[1:] if not ln.startswith("#")]
    ev = {r[0]: (float(r[3]), r[4]) for r in rows if r[2] == "all"}
    assert base == ev and ties == ev
    # rerank lacks topic 105, scored 0 under topics=qrels (per-topic AP from trec_eval 9.0.8 -q)
    hand = (0.7880952380952381 + 0.7971428571428572 + 0.7666012350222876 + 0.7659902597402597) / 5
    assert abs(base["rerank"][0] - hand) < 1e-12 and abs(hand - 0.6235659180) < 1e-10
