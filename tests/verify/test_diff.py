"""auditeval diff: tool-output readers, alignment at printed precision, attribution by axis."""

from __future__ import annotations

import gzip
import io
import json
import math
import subprocess
from pathlib import Path

import pytest

from auditeval.cli.main import main
from auditeval.io import qrels_from, run_from
from auditeval.verify.diff import diff_outputs, explain
from auditeval.verify.tool_output import read_output

# iprec_at_recall_r differs between the builds where (long)(r*R + 0.9) != lround(r*R) for some
# topic's R: never at r = 0, 0.5 (R odd: k + 1.4 -> k + 1 = lround(k + 0.5)) or 1; 11pt_avg
# averages them. trec_eval 10.0 adds rbp, rbp_resid and unj_5/10/20.
IPREC_DIFFER = ["IPrec@0.1", "IPrec@0.2", "IPrec@0.3", "IPrec@0.4", "IPrec@0.6", "IPrec@0.7", "IPrec@0.8", "IPrec@0.9"]
ONLY_10 = ["RBP", "RBPResid", "Unj@10", "Unj@20", "Unj@5"]


@pytest.fixture(scope="module")
def builds(robust03, trec_eval_bins, tmp_path_factory) -> dict[str, Path]:
    """trec_eval 9.0.8's and 10.0's ``-q -m all_trec`` output on robust03 humR03dc, made here."""
    d = tmp_path_factory.mktemp("builds")
    out = {}
    run = d / "humR03dc.run"
    run.write_bytes(gzip.decompress((robust03.run("humR03dc")).read_bytes()))
    for v in ("9.0.8", "10.0"):
        out[v] = d / f"humR03dc.{v}.txt"
        out[v].write_bytes(subprocess.run([trec_eval_bins[v], "-q", "-m", "all_trec", robust03.qrels, run],
                                          capture_output=True, check=True).stdout)
    out["run"] = run
    out["qrels"] = robust03.qrels
    return out


def test_trec_eval_builds_differ_exactly_on_iprec_and_their_new_measures(builds):
    a, b = read_output(builds["9.0.8"]), read_output(builds["10.0"])
    assert (a.format, b.format, a.runs) == ("trec_eval", "trec_eval", ["humR03dc"])
    res = diff_outputs(a, b)
    assert res.differing_measures == ["11pt"] + IPREC_DIFFER
    assert res.only_a == [] and res.only_b == ONLY_10
    assert res.compared == len(a.entries) - 1  # every value but runid
    d = next(x for x in res.differences if x.measure == "IPrec@0.4" and x.topic == "all")
    assert (d.a.value, d.b.value, d.a.raw) == (0.1167, 0.1215, "iprec_at_recall_0.40")
    explain(qrels_from(builds["qrels"]), run_from(builds["run"]), res)
    for m in ["11pt"] + IPREC_DIFFER:
        ex = res.explanations[m]
        assert ex.axes == {"iprec": ("trunc09", "lround")}, m
        assert ex.profiles == ("trec_eval-9.0.8", "trec_eval-10.0")
        # the builds' profiles also differ on sim (float32 vs double) and the topic rule:
        # neither moves a printed value of this run, and the explanation says so
        assert {"sim", "topics"} <= set(ex.profile_axes) and "sim" in ex.immaterial
        assert ex.flips == [["iprec"]]  # the audit's minimal flips between the two profiles
        assert "no effect on these values" in ex.summary()
    frame = res.to_frame()  # tidy: one row per differing value, with the axis that explains it
    row = frame[(frame.measure == "IPrec@0.4") & (frame.topic == "all")].iloc[0]
    assert (row.kind, row.value_a, row.value_b, row.printed_a) == ("value", 0.1167, 0.1215, "iprec_at_recall_0.40")
    assert row.explained_by.startswith("iprec: trunc09 -> lround.")
    assert len(frame) == len(res.differences) and set(frame.measure) == {"11pt", *IPREC_DIFFER}


def test_cli_exit_status_and_every_difference_listed(builds):
    out = io.StringIO()
    assert main(["diff", str(builds["9.0.8"]), str(builds["9.0.8"])], out, io.StringIO()) == 0
    assert "0 differ" in out.getvalue()
    out = io.StringIO()
    assert main(["diff", str(builds["9.0.8"]), str(builds["10.0"]), "--json"], out, io.StringIO()) == 1
    doc = json.loads(out.getvalue())
    assert doc["differing_measures"] == ["11pt"] + IPREC_DIFFER and not doc["equal"]
    # humR03dc: 9.0.8 and 10.0 disagree on 38 11pt_avg and 63 iprec lines (counted in the files)
    assert len(doc["differences"]) == 38 + 10 + 12 + 9 + 7 + 6 + 8 + 6 + 5
    out = io.StringIO()
    assert main(["diff", str(builds["9.0.8"]), str(builds["10.0"])], out, io.StringIO()) == 1
    text = out.getvalue()
    assert "only in B: RBP, RBPResid, Unj@10, Unj@20, Unj@5" in text
    assert max(len(x) for x in text.splitlines()) <= 120


# --------------------------------------------------------------------------- tools' own outputs
QRELS = {"q1": {"d1": 2, "d2": 0, "d3": 1, "d4": 1}, "q2": {"d5": 1, "d6": 2}}
RUN = {"q1": {"d1": 3.0, "d2": 2.0, "d3": 2.0, "d4": 1.0}, "q2": {"d7": 5.0, "d6": 4.0, "d5": 1.0}}


def _lg(i: int) -> float:
    return math.log2(i + 1)  # discount of rank i


# q1 ranked d1 d3 d2 d4 under trec_eval's docno-desc ties, d1 d2 d3 d4 in file order (ranx)
NDCG_LINEAR = {"q1": (2 + 1 / _lg(2) + 1 / _lg(4)) / (2 + 1 / _lg(2) + 1 / _lg(3)),
               "q2": (2 / _lg(2) + 1 / _lg(3)) / (2 + 1 / _lg(2))}
NDCG_EXP_FILE_ORDER = {"q1": (3 + 1 / _lg(3) + 1 / _lg(4)) / (3 + 1 / _lg(2) + 1 / _lg(3)),
                       "q2": (3 / _lg(2) + 1 / _lg(3)) / (3 + 1 / _lg(2))}


@pytest.fixture(scope="module")
def tool_files(tmp_path_factory) -> dict[str, Path]:
    import ir_measures
    import pytrec_eval

    d = tmp_path_factory.mktemp("tools")
    ev = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "ndcg_cut_10", "P_10", "recip_rank"})
    (d / "pytrec.json").write_text(json.dumps(ev.evaluate(RUN)))
    ms = [ir_measures.parse_measure(x) for x in ("AP", "nDCG@10", "P@10", "RR")]
    lines = [f"{r.query_id}\t{r.measure}\t{r.value:.4f}\n" for r in ir_measures.iter_calc(ms, QRELS, RUN)]
    (d / "irm.tsv").write_text("".join(lines))  # the ir_measures CLI's -q format, 4 places
    jl = [json.dumps({"query_id": r.query_id, "measure": str(r.measure), "value": r.value}) + "\n"
          for r in ir_measures.iter_calc(ms, QRELS, RUN)]
    (d / "irm.jsonl").write_text("".join(jl))
    # a ranx run's per-query scores (json.dump(run.scores)), Burges nDCG and MRR, hand-computed
    (d / "ranx.json").write_text(json.dumps({"ndcg_burges@10": NDCG_EXP_FILE_ORDER, "mrr": {"q1": 1.0, "q2": 0.5}}))
    qr = d / "qrels.txt"
    qr.write_text("".join(f"{t} 0 {doc} {g}\n" for t, docs in QRELS.items() for doc, g in docs.items()))
    rn = d / "run.txt"
    rn.write_text("".join(f"{t} Q0 {doc} {i + 1} {s} r\n" for t, docs in RUN.items()
                          for i, (doc, s) in enumerate(docs.items())))
    return {"pytrec": d / "pytrec.json", "irm": d / "irm.tsv", "irm_jsonl": d / "irm.jsonl",
            "ranx": d / "ranx.json", "qrels": qr, "run": rn, "dir": d}


@pytest.mark.slow
def test_hand_computed_inputs_are_what_the_tools_print(tool_files):
    pt = json.loads(tool_files["pytrec"].read_text())
    for t in ("q1", "q2"):
        assert pt[t]["ndcg_cut_10"] == pytest.approx(NDCG_LINEAR[t], abs=1e-6)  # float32 inside trec_eval
    import ranx  # in the test extra

    r = ranx.Run(RUN)
    ranx.evaluate(ranx.Qrels(QRELS), r, ["ndcg_burges@10"])
    for t in ("q1", "q2"):
        assert r.scores["ndcg_burges@10"][t] == pytest.approx(NDCG_EXP_FILE_ORDER[t], abs=1e-12)


def test_pytrec_eval_and_ir_measures_align(tool_files):
    a, b = read_output(tool_files["pytrec"]), read_output(tool_files["irm"])
    assert (a.format, b.format) == ("pytrec_eval", "ir_measures")
    res = diff_outputs(a, b)
    # map = AP, ndcg_cut_10 = nDCG@10, P_10 = P@10, recip_rank = RR; 2 topics each; equal at 4 places
    assert res.compared == 8 and res.differences == [] and not res.only_a and not res.only_b
    c = read_output(tool_files["irm_jsonl"])
    assert c.format == "ir_measures-jsonl"
    assert diff_outputs(a, c).compared == 8 and diff_outputs(a, c).differences == []


def test_pytrec_eval_and_ranx_differ_on_gain_and_ties(tool_files):
    a, b = read_output(tool_files["pytrec"]), read_output(tool_files["ranx"])
    assert b.format == "ranx-scores"
    res = diff_outputs(a, b)
    assert res.differing_measures == ["nDCG@10"]  # mrr = recip_rank agrees
    assert [d.topic for d in res.differences] == ["q1", "q2"]
    assert any("'ndcg_burges@10' read as nDCG@10 under gain=exp2" in n for n in res.notes)
    explain(qrels_from(tool_files["qrels"]), run_from(tool_files["run"]), res)
    ex = res.explanations["nDCG@10"]
    # ranx's name fixes gain=exp2; its numbers need d2 before d3 in q1 (file order or docno-asc),
    # pytrec_eval's need trec_eval's docno-desc and linear gain
    assert set(ex.axes) == {"gain", "ties"}
    assert ex.axes["gain"] == ("linear", "exp2") and ex.axes["ties"][0] == "docno-desc"
    assert ex.axes["ties"][1] in ("file-order", "docno-asc")
    assert ex.a[0].label == "trec_eval-9.0.8"
    # the same from the command line, the run given as ranx Run.save JSON (topic -> doc -> score)
    run_json = tool_files["dir"] / "run.json"
    run_json.write_text(json.dumps(RUN))
    out = io.StringIO()
    assert main(["diff", str(tool_files["pytrec"]), str(tool_files["ranx"]), "--qrels", str(tool_files["qrels"]),
                 "--run", str(run_json), "--json"], out, io.StringIO()) == 1
    doc = json.loads(out.getvalue())
    assert set(doc["explanations"]["nDCG@10"]["axes"]) == {"gain", "ties"}


def test_csv_auditeval_json_and_ranx_report(tool_files, tmp_path):
    d = tool_files["dir"]
    out = io.StringIO()
    assert main(["eval", str(tool_files["qrels"]), str(tool_files["run"]), "-m", "AP", "-m", "P@2",
                 "--profile", "ranx-0.3", "--format", "json"], out, io.StringIO()) == 0
    (d / "ae.json").write_text(out.getvalue())
    recs = json.loads(out.getvalue())["values"]
    ap = next(r["value"] for r in recs if r["measure"] == "AP")
    report = {"stat_test": "student", "metrics": ["map", "precision@2"], "model_names": ["r"],
              "r": {"scores": {"map": ap, "precision@2": 0.5}, "comparisons": {}, "win_tie_loss": {}}}
    (d / "report.json").write_text(json.dumps(report))
    res = diff_outputs(read_output(d / "ae.json"), read_output(d / "report.json"))
    # P@2: q1 d1 d2 (file order) -> 1/2, q2 d7 d6 -> 1/2: mean 0.5; AP equal at full precision
    assert res.compared == 2 and res.differences == []
    (d / "report2.json").write_text(json.dumps({**report, "r": {**report["r"], "scores": {"map": ap, "precision@2": 0.75}}}))
    res = diff_outputs(read_output(d / "ae.json"), read_output(d / "report2.json"))
    assert [(x.measure, x.topic, x.b.value) for x in res.differences] == [("P@2", "all", 0.75)]
    (d / "t.csv").write_text("topic,measure,value\nq1,P_10,0.3000\nq2,P_10,0.2000\n")
    res = diff_outputs(read_output(d / "t.csv"), read_output(tool_files["pytrec"]))
    assert read_output(d / "t.csv").format == "csv"
    assert res.compared == 2 and res.differences == []  # P@10: 3/10 and 2/10


def test_bad_input_exit_2_with_location(tool_files, tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("map\tall\t0.2\nP_10 all\n")
    err = io.StringIO()
    assert main(["diff", str(bad), str(tool_files["irm"]), "--format-a", "trec_eval"], io.StringIO(), err) == 2
    assert err.getvalue() == f"auditeval: error: {bad}:2: expected 3 fields, found 2\n"
    runjson = tmp_path / "run.json"
    runjson.write_text(json.dumps({"q1": {"LA0101-1": 3.0, "LA0101-2": 2.0}}))
    err = io.StringIO()
    assert main(["diff", str(runjson), str(tool_files["irm"])], io.StringIO(), err) == 2
    assert "a run (ranx Run.save or a run dict), not evaluation output" in err.getvalue()
    err = io.StringIO()
    assert main(["diff", str(tool_files["pytrec"]), str(tool_files["irm"]), "--qrels", "q"], io.StringIO(), err) == 2
    twice = tmp_path / "twice.tsv"  # two runs' ir_measures output pasted together: ambiguous
    twice.write_text("AP\t0.2500\nP@10\t0.3000\nAP\t0.2600\n")
    err = io.StringIO()
    assert main(["diff", str(twice), str(tool_files["irm"])], io.StringIO(), err) == 2
    assert err.getvalue().startswith(f"auditeval: error: {twice}:3: second value for 'AP' topic 'all' (first at line 1)")
    # ranx ndcg@10 (linear gain) aligns with trec_eval's ndcg_cut_10; ndcg_burges@10 is kept apart
    both = tmp_path / "both.json"
    both.write_text(json.dumps({"ndcg@10": NDCG_LINEAR, "ndcg_burges@10": NDCG_EXP_FILE_ORDER}))
    res = diff_outputs(read_output(both), read_output(tool_files["pytrec"]))
    assert res.only_a == ["nDCG@10(gain=exp2)"] and res.compared == 2
    assert res.differences == []  # pytrec_eval's ndcg_cut_10 equals the hand-computed values exactly


def test_pytrec_eval_gm_map_read_back_from_its_log(tmp_path):
    import pytrec_eval

    ev = pytrec_eval.RelevanceEvaluator(QRELS, {"map", "gm_map"}).evaluate(RUN)
    assert ev["q2"]["gm_map"] == pytest.approx(math.log(ev["q2"]["map"]))  # stored as log(AP)
    (tmp_path / "gm.json").write_text(json.dumps(ev))
    out = read_output(tmp_path / "gm.json")
    by = {(e.measure, e.topic): e.value for e in out.entries}
    # q1 ranked d1 d3 d2 d4 (relevant d1 d3 d4): AP = (1/1 + 2/2 + 3/4) / 3 = 11/12;
    # q2 ranked d7 d6 d5 (relevant d6 d5): AP = (1/2 + 2/3) / 2 = 7/12
    assert by[("GMAP", "q1")] == pytest.approx(11 / 12, abs=1e-12) and by[("AP", "q1")] == pytest.approx(11 / 12)
    assert by[("GMAP", "q2")] == pytest.approx(7 / 12, abs=1e-12)
    assert any("read back as exp(value)" in n for n in out.notes)


def test_a_number_no_convention_gives_is_said_so(tool_files, tmp_path):
    pt = json.loads(tool_files["pytrec"].read_text())
    pt["q1"]["P_10"] = 0.9  # 9 relevant in the top 10 of a 4-document ranking: no convention gives it
    (tmp_path / "bad.json").write_text(json.dumps(pt))
    res = diff_outputs(read_output(tmp_path / "bad.json"), read_output(tool_files["irm"]))
    assert [(d.measure, d.topic) for d in res.differences] == [("P@10", "q1")]
    explain(qrels_from(tool_files["qrels"]), run_from(tool_files["run"]), res)
    ex = res.explanations["P@10"]
    assert ex.a == [] and ex.b and ex.note == f"no candidate (profiles with up to 1 changed axis) reproduces {tmp_path / 'bad.json'}"


def test_trec_eval_beside_pytrec_eval_json_compares_only_what_both_print(builds, tmp_path, trec_eval_bins):
    """trec_eval -q prints per-topic values and the aggregate; pytrec_eval's JSON has no
    aggregate. On humR03dc the 100 topics x 4 measures agree: exit 0, 400 values compared."""
    import subprocess

    import pytrec_eval

    with open(builds["qrels"]) as f:
        qrels = pytrec_eval.parse_qrel(f)
    with open(builds["run"]) as f:
        run = pytrec_eval.parse_run(f)
    ev = pytrec_eval.RelevanceEvaluator(qrels, {"map", "ndcg_cut_10", "P_10", "recip_rank"})
    (tmp_path / "pytrec.json").write_text(json.dumps(ev.evaluate(run)))
    printed = subprocess.run([str(trec_eval_bins["9.0.8"]), "-q", "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10",
                              "-m", "recip_rank", str(builds["qrels"]), str(builds["run"])],
                             capture_output=True, text=True, check=True).stdout
    (tmp_path / "te.txt").write_text(printed)
    res = diff_outputs(read_output(tmp_path / "te.txt"), read_output(tmp_path / "pytrec.json"))
    assert res.differences == [] and res.compared == 400
    assert any("prints no aggregate for 4 measure(s)" in n for n in res.notes)
    out, err = io.StringIO(), io.StringIO()
    assert main(["diff", str(tmp_path / "te.txt"), str(tmp_path / "pytrec.json")], out, err) == 0
