"""auditeval reproduce: KTU, RBO, RMSE, t-test, ER, DRI; hand-derived and against repro_eval 0.5.0."""

from __future__ import annotations

import gzip
import io
import math
from pathlib import Path

import numpy as np
import pytest

from auditeval.cli.main import main
from auditeval.verify.reproduce import reproduce

RUN = "input.humR03dc"  # 100 topics x 100 documents, no score ties


def _lines(robust03) -> list[list[str]]:
    with gzip.open((robust03.dir / "runs") / f"{RUN}.gz", "rt") as fh:
        return [line.split() for line in fh]


@pytest.fixture(scope="module")
def perturbed(robust03, tmp_path_factory) -> dict:
    """The run, and a copy with the documents at ranks 1 and 2 of one topic swapped and every
    score replaced by a jittered, order-preserving one (rank gaps of 1, jitter < 0.4)."""
    qrels_path = robust03.qrels
    rel = {(t, d) for t, _, d, g in (line.split() for line in open(qrels_path)) if int(g) >= 1}
    lines = _lines(robust03)
    by_topic: dict[str, list[list[str]]] = {}
    for f in lines:
        by_topic.setdefault(f[0], []).append(f)
    for docs in by_topic.values():
        docs.sort(key=lambda f: -float(f[4]))
    # a topic whose top document is relevant and whose second is not: RR goes 1 -> 1/2
    topic = next(t for t in sorted(by_topic) if (t, by_topic[t][0][2]) in rel and (t, by_topic[t][1][2]) not in rel)
    rng = np.random.default_rng(7)
    out = []
    for t in sorted(by_topic):
        docs = [f[2] for f in by_topic[t]]
        if t == topic:
            docs[0], docs[1] = docs[1], docs[0]
        n = len(docs)
        out += [f"{t} Q0 {d} {i + 1} {n - i + rng.uniform(0, 0.4):.6f} copy\n" for i, d in enumerate(docs)]
    d = tmp_path_factory.mktemp("repro")
    orig = d / "orig.txt"
    with gzip.open((robust03.dir / "runs") / f"{RUN}.gz", "rb") as fh:
        orig.write_bytes(fh.read())
    rep = d / "rep.txt"
    rep.write_text("".join(out))
    return {"qrels": qrels_path, "orig": orig, "rep": rep, "topic": topic, "n_topics": len(by_topic)}


def test_swap_of_two_adjacent_documents_hand_derived(perturbed):
    T, n, p = perturbed["n_topics"], 100, 0.95  # topics, list length, RBO persistence
    res = reproduce(perturbed["qrels"], perturbed["orig"], perturbed["rep"], measures=["RR", "P@1", "AP"], depth=100)
    topic = perturbed["topic"]
    # Kendall's tau: one discordant pair of n(n-1)/2 -> 1 - 2 * 2/(n(n-1)) = 1 - 4/9900
    assert res.get("KTU", topic=topic).value == pytest.approx(1 - 4 / (n * (n - 1)), abs=1e-12)
    assert res.get("KTU").value == pytest.approx(1 - 4 / (n * (n - 1)) / T, abs=1e-12)
    others = [v.value for v in res.values if v.statistic == "KTU" and v.topic not in ("all", topic)]
    assert len(others) == T - 1 and set(others) == {1.0}
    # RBO over depth 100: only the top-1 prefix loses its overlap (X_1 = 0, X_d = d for d >= 2),
    # so RBO = 1 - p^0 / sum_{d<100} p^d = 1 - (1 - p) / (1 - p^100)
    lost = (1 - p) / (1 - p**n)
    assert res.get("RBO", topic=topic).value == pytest.approx(1 - lost, abs=1e-12)
    assert res.get("RBO").value == pytest.approx(1 - lost / T, abs=1e-12)
    # RR 1 -> 1/2 and P@1 1 -> 0 in one topic, equal elsewhere: RMSE = |diff| / sqrt(T)
    assert res.get("RMSE", "RR").value == pytest.approx(0.5 / math.sqrt(T), abs=1e-12)
    assert res.get("RMSE", "P@1").value == pytest.approx(1 / math.sqrt(T), abs=1e-12)
    # paired t-test on one non-zero difference d among T: t = mean / (sd / sqrt T) = 1 exactly
    assert res.get("t", "P@1").value == pytest.approx(1.0, abs=1e-12)
    assert res.get("RMSE", "RR").variant.startswith("RR|depth=all|dups=error|")
    assert res.get("KTU").variant == "KTU@100|dups=error|ktu=tied-last|sim=float64|ties=docno-desc"
    assert res.get("RBO").variant == "RBO(p=0.95)@100|dups=error|rbo=trunc-norm|sim=float64|ties=docno-desc"
    frame = res.to_frame()  # tidy: one row per number
    assert list(frame.columns) == ["statistic", "measure", "topic", "value", "variant", "engine", "qrels"]
    assert set(frame.qrels) == {"A"}  # reproducibility: every run scored against the one qrels
    ktu = frame[(frame.statistic == "KTU") & (frame.topic == topic)].iloc[0]
    assert ktu.value == pytest.approx(1 - 4 / (n * (n - 1)), abs=1e-12) and len(frame) == len(res.values)


def test_ktu_forms_on_a_three_document_list():
    qrels = {"q": {"a": 1}}
    orig = {"q": {"a": 3.0, "c": 2.0, "b": 1.0}}
    rep = {"q": {"c": 3.0, "a": 2.0, "b": 1.0}}  # ranks 1 and 2 swapped
    tied = reproduce(qrels, orig, rep, measures=["RR"]).get("KTU").value
    assert tied == pytest.approx(1 / 3, abs=1e-15)  # 2 concordant, 1 discordant pair
    # repro_eval pairs union positions by rank: (0,2,1) vs (2,0,1): every pair discordant
    assert reproduce(qrels, orig, rep, measures=["RR"], ktu_form="repro_eval").get("KTU").value == -1.0
    # RBO over depth 3 with p = 0.9: overlaps X = (0, 2, 3), agreements A = (0, 1, 1)
    kw = {"measures": ["RR"], "depth": 3, "rbo_p": 0.9}
    trunc = reproduce(qrels, orig, rep, **kw).get("RBO").value
    assert trunc == pytest.approx((0 + 0.9 + 0.81) / (1 + 0.9 + 0.81), abs=1e-15)
    ext = reproduce(qrels, orig, rep, rbo_form="ext", **kw).get("RBO").value
    assert ext == pytest.approx(1 * 0.9**3 + 0.1 / 0.9 * (0 * 0.9 + 1 * 0.81 + 1 * 0.729), abs=1e-15)
    # a document only one list holds is tied last in the other: orig a,b; rep a,c
    res = reproduce(qrels, {"q": {"a": 2.0, "b": 1.0}}, {"q": {"a": 2.0, "c": 1.0}}, measures=["RR"])
    # union a,b,c; ranks orig (1,2,3) rep (1,3,2): pairs ab conc, ac conc, bc disc, no ties -> 1/3
    assert res.get("KTU").value == pytest.approx(1 / 3, abs=1e-15)


def test_matches_repro_eval(perturbed, robust03):
    """repro_eval 0.5.0 on the same files: RBO, KTU (repro_eval form), RMSE and p-values."""
    from repro_eval.measure.document_order import KTU, RBO
    from repro_eval.measure.effectiveness import RMSE
    from repro_eval.measure.statistics import ttest
    from repro_eval.util import break_ties, evaluate_run, load_qrels, load_run

    q = load_qrels(str(perturbed["qrels"]))
    o, r = break_ties(load_run(str(perturbed["orig"]))), break_ties(load_run(str(perturbed["rep"])))
    import ir_measures

    ms = [ir_measures.parse_measure(x) for x in ("AP", "RR", "P@10")]
    so, sr = evaluate_run(ms, q, o), evaluate_run(ms, q, r)
    res = reproduce(perturbed["qrels"], perturbed["orig"], perturbed["rep"], measures=["AP", "RR", "P@10"],
                    ktu_form="repro_eval", per_topic=True)
    assert res.get("RBO").value == pytest.approx(RBO(o, r, p=0.95, depth=1000, pbar=False, per_topic=False), abs=1e-12)
    ktu_theirs = KTU(o, r, per_topic=True)
    for t, v in ktu_theirs.items():
        assert res.get("KTU", topic=t).value == pytest.approx(v, abs=1e-12)
    rmse = RMSE(so, sr)
    pv = ttest(so, sr)
    for m in ("AP", "RR", "P@10"):
        assert res.get("RMSE", m).value == pytest.approx(rmse[m], abs=1e-12)
    for m in ("AP", "RR"):
        assert res.get("p_value", m).value == pytest.approx(pv[m], abs=1e-12)
    # P@10 is unchanged in every topic: scipy's p is NaN; repro_eval keeps the NaN unless every
    # measure is unchanged, auditeval reports 1 for that measure (and a note)
    assert res.get("RMSE", "P@10").value == 0.0 and math.isnan(pv["P@10"])
    assert res.get("p_value", "P@10").value == 1.0
    assert any(n.startswith("P@10: identical per-topic scores") for n in res.notes)


def test_effect_ratio_and_delta_ri_hand_computed():
    qrels = {"1": {"a": 1, "b": 1}, "2": {"a": 1, "b": 1}}
    # P@1 per topic: base_o (0, 0), orig (1, 1); base_r (0, 0), rep (1, 0)
    base_o = {"1": {"x": 2.0, "a": 1.0}, "2": {"x": 2.0, "a": 1.0}}
    orig = {"1": {"a": 2.0, "x": 1.0}, "2": {"b": 2.0, "x": 1.0}}
    rep = {"1": {"a": 2.0, "x": 1.0}, "2": {"x": 2.0, "b": 1.0}}
    # P@2 per topic: base 0.5 each, orig 0.5 each, rep 0.5 each -> no improvement: ER undefined
    res = reproduce(qrels, orig, rep, measures=["P@1", "P@2"], baseline_original=base_o, baseline_reproduced=base_o)
    assert res.get("ER", "P@1").value == pytest.approx(0.5 / 1.0)  # mean rep gain 0.5 / orig gain 1
    assert math.isnan(res.get("ER", "P@2").value)
    assert any("ER undefined" in n for n in res.notes)
    res2 = reproduce(qrels, {"1": {"a": 2.0, "x": 1.0}, "2": {"x": 2.0, "a": 1.0}}, rep, measures=["P@2"],
                     baseline_original=base_o, baseline_reproduced={"1": {"x": 2.0, "y": 1.0}, "2": {"x": 2.0, "a": 1.0}})
    # P@2: orig (0.5, 0.5) vs base_o (0.5, 0.5) -> RI_orig 0; rep (0.5, 0.5) vs base_r (0, 0.5): RI_rep 1/0.25 - 1 = 1
    assert res2.get("DRI", "P@2").value == pytest.approx(0.0 - 1.0)


def test_cli_table_json_and_bad_input(perturbed, tmp_path):
    out, err = io.StringIO(), io.StringIO()
    rc = main(["reproduce", str(perturbed["orig"]), str(perturbed["rep"]), "--qrels", str(perturbed["qrels"]),
               "-m", "RR", "--depth", "100", "--json"], out, err)
    assert rc == 0
    import json

    doc = json.loads(out.getvalue())
    ktu = next(v for v in doc["values"] if v["statistic"] == "KTU" and v["topic"] == "all")
    assert ktu["variant"].startswith("KTU@100|") and ktu["engine"].startswith("auditeval")
    out = io.StringIO()
    assert main(["reproduce", str(perturbed["orig"]), str(perturbed["rep"]), "--qrels", str(perturbed["qrels"]),
                 "-m", "RR"], out, err) == 0
    text = out.getvalue()
    assert "KTU@1000|dups=error|ktu=tied-last" in text and max(len(x) for x in text.splitlines()) <= 120
    png = tmp_path / "rep.png"
    assert main(["reproduce", str(perturbed["orig"]), str(perturbed["rep"]), "--qrels", str(perturbed["qrels"]),
                 "-m", "RR", "--plot", str(png)], io.StringIO(), io.StringIO()) == 0
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    err = io.StringIO()
    assert main(["reproduce", str(perturbed["orig"]), str(perturbed["rep"]), "--qrels", str(perturbed["qrels"]),
                 "--plot", str(tmp_path / "rep.pdf")], io.StringIO(), err) == 2
    assert err.getvalue() == f"auditeval: error: {tmp_path / 'rep.pdf'}: --plot writes .png or .svg, not '.pdf'\n"
    bad = tmp_path / "bad.txt"
    bad.write_text("1 Q0 d 1 0.5 r\n1 Q0 e 2 r\n")  # five fields: no score or no tag
    err = io.StringIO()
    assert main(["reproduce", str(bad), str(perturbed["rep"]), "--qrels", str(perturbed["qrels"])], io.StringIO(), err) == 2
    assert err.getvalue().startswith(f"auditeval: error: {bad}:2: ")


# ----------------------------------------------------------------------------- nRMSE
def test_nrmse_hand_computed():
    qrels = {"1": {"a": 1}, "2": {"a": 1}}
    orig = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}, "2": {"b": 3.0, "c": 2.0, "a": 1.0}}  # RR (1, 1/3)
    rep = {"1": {"b": 3.0, "a": 2.0, "c": 1.0}, "2": {"b": 3.0, "c": 2.0, "a": 1.0}}  # RR (1/2, 1/3)
    res = reproduce(qrels, orig, rep, measures=["RR"])
    # RMSE = sqrt((1/2)^2 / 2); normaliser sqrt((max(1, 0)^2 + max(1/3, 2/3)^2) / 2) = sqrt(13/18)
    assert res.get("RMSE", "RR").value == pytest.approx(math.sqrt(1 / 8), abs=1e-15)
    assert res.get("nRMSE", "RR").value == pytest.approx(math.sqrt(1 / 8) / math.sqrt(13 / 18), abs=1e-15)
    assert res.get("nRMSE", "RR").variant == res.get("RMSE", "RR").variant
    same = reproduce(qrels, orig, orig, measures=["RR"])
    assert same.get("nRMSE", "RR").value == 0.0


def _plain(path: Path, out: Path, topics: set[str] | None = None) -> Path:
    """A gzipped robust03 run as plain text (repro_eval reads plain files), optionally only
    the lines of ``topics``."""
    with gzip.open(path, "rt") as fh:
        out.write_text("".join(x for x in fh if topics is None or x.split()[0] in topics))
    return out


MEASURES = ("AP", "RR", "P@10", "nDCG@10", "R@1000", "nDCG", "Rprec", "Bpref", "AP@100")


def test_reproducibility_nrmse_er_dri_match_rpd_evaluator(perturbed, robust03, tmp_path):
    """nRMSE, ER, DRI and the paired t-test against repro_eval 0.5.0's RpdEvaluator: the
    advanced pair is the perturbed run, the baseline pair two other robust03 runs."""
    from repro_eval.Evaluator import RpdEvaluator

    runs = (robust03.dir / "runs")
    b_orig = _plain(runs / "input.SABIR03BASE.gz", tmp_path / "b_orig.txt")
    b_rep = _plain(runs / "input.InexpC2.gz", tmp_path / "b_rep.txt")
    ev = RpdEvaluator(qrels_orig_path=str(perturbed["qrels"]), run_b_orig_path=str(b_orig),
                      run_a_orig_path=str(perturbed["orig"]), run_b_rep_path=str(b_rep),
                      run_a_rep_path=str(perturbed["rep"]))
    ev.trim()
    ev.evaluate()
    nrmse, er, dri, tt = ev.nrmse(), ev.er(), ev.dri(), ev.ttest()
    res = reproduce(perturbed["qrels"], perturbed["orig"], perturbed["rep"], measures=MEASURES,
                    baseline_original=b_orig, baseline_reproduced=b_rep, per_topic=False)
    changed = 0
    for m in MEASURES:
        assert res.get("nRMSE", m).value == pytest.approx(nrmse["advanced"][m], abs=1e-12), m
        assert res.get("ER", m).value == pytest.approx(er[m], abs=1e-12), m
        assert res.get("DRI", m).value == pytest.approx(dri[m], abs=1e-12), m
        if not math.isnan(tt["advanced"][m]):  # unchanged measures: see test_matches_repro_eval
            assert res.get("p_value", m).value == pytest.approx(tt["advanced"][m], abs=1e-12), m
            changed += 1
        assert res.get("nRMSE", m).qrels == "A"
    assert changed >= 5 and sum(nrmse["advanced"][m] > 0 for m in MEASURES) >= 5
    # the baseline pair on its own: nRMSE of InexpC2 against SABIR03BASE
    base = reproduce(perturbed["qrels"], b_orig, b_rep, measures=MEASURES, per_topic=False)
    for m in MEASURES:
        assert base.get("nRMSE", m).value == pytest.approx(nrmse["baseline"][m], abs=1e-12), m
        assert base.get("p_value", m).value == pytest.approx(tt["baseline"][m], abs=1e-12), m


# ----------------------------------------------------------------------------- replicability
@pytest.fixture(scope="module")
def replication(robust03, tmp_path_factory) -> dict:
    """A replicability case from robust03: qrels A = the qrels of the first 50 topics (in
    sorted order), qrels B = those of the other 50 with every grade 2 turned into 1; original
    runs SABIR03BASE (baseline) and humR03dc (advanced), all 100 topics (qrels A judges 50);
    replicated runs InexpC2 (baseline) and aplrob03a (advanced), only qrels B's topics."""
    d = tmp_path_factory.mktemp("rpl")
    rows = [line.split() for line in open(robust03.qrels)]
    topics = sorted({r[0] for r in rows})
    ta, tb = set(topics[:50]), set(topics[50:])
    qa, qb = d / "qrels_a.txt", d / "qrels_b.txt"
    qa.write_text("".join(" ".join(r) + "\n" for r in rows if r[0] in ta))
    qb.write_text("".join(f"{r[0]} {r[1]} {r[2]} {min(int(r[3]), 1)}\n" for r in rows if r[0] in tb))
    (d / "qrels_b_graded.txt").write_text("".join(" ".join(r) + "\n" for r in rows if r[0] in tb))
    runs = (robust03.dir / "runs")
    return {"qrels_a": qa, "qrels_b": qb, "qrels_b_graded": d / "qrels_b_graded.txt", "topics_b": tb,
            "b_orig": _plain(runs / "input.SABIR03BASE.gz", d / "b_orig.txt"),
            "a_orig": _plain(runs / "input.humR03dc.gz", d / "a_orig.txt"),
            "b_rep": _plain(runs / "input.InexpC2.gz", d / "b_rep.txt", tb),
            "a_rep": _plain(runs / "input.aplrob03a.gz", d / "a_rep.txt", tb)}


def test_replicability_matches_rpl_evaluator(replication):
    """Unpaired t-test (baseline and advanced pairs), ER and DRI against repro_eval 0.5.0's
    RplEvaluator on the same files, to 1e-12."""
    from repro_eval.Evaluator import RplEvaluator

    r = replication
    ev = RplEvaluator(qrels_orig_path=str(r["qrels_a"]), run_b_orig_path=str(r["b_orig"]),
                      run_a_orig_path=str(r["a_orig"]), run_b_rep_path=str(r["b_rep"]),
                      run_a_rep_path=str(r["a_rep"]), qrels_rpl_path=str(r["qrels_b"]))
    ev.trim()
    ev.evaluate()
    er, dri, tt = ev.er(), ev.dri(), ev.ttest()
    assert len(ev.run_a_orig_score) == 50 and set(ev.run_a_rep_score) == r["topics_b"]
    res = reproduce(r["qrels_a"], r["a_orig"], r["a_rep"], measures=MEASURES, baseline_original=r["b_orig"],
                    baseline_reproduced=r["b_rep"], qrels_b=r["qrels_b"])
    base = reproduce(r["qrels_a"], r["b_orig"], r["b_rep"], measures=MEASURES, qrels_b=r["qrels_b"])
    assert res.mode == "replicability"
    for m in MEASURES:
        assert res.get("p_value", m).value == pytest.approx(tt["advanced"][m], abs=1e-12), m
        assert base.get("p_value", m).value == pytest.approx(tt["baseline"][m], abs=1e-12), m
        assert res.get("ER", m).value == pytest.approx(er[m], abs=1e-12), m
        assert res.get("DRI", m).value == pytest.approx(dri[m], abs=1e-12), m
    # every number is marked as computed on qrels A (original runs) and B (replicated runs)
    assert {v.qrels for v in res.values} == {"A+B"} and set(res.to_frame().qrels) == {"A+B"}
    assert {v.statistic for v in res.values} == {"t", "p_value", "ER", "DRI"}
    assert all("ttest_ind(equal_var=True)" in v.engine for v in res.values if v.statistic in ("t", "p_value"))
    assert any(n.startswith("replicability (qrels B): KTU, RBO, RMSE and nRMSE are not computed") for n in res.notes)
    (ta, xa), (tb, xb) = res.unpaired["AP"]
    assert len(ta) == 50 and set(tb) == r["topics_b"]
    # the replicated runs are scored on qrels B: with B's grades 2 kept, graded nDCG moves,
    # binary AP (rel=1) does not
    graded = reproduce(r["qrels_a"], r["a_orig"], r["a_rep"], measures=["AP", "nDCG"], qrels_b=r["qrels_b_graded"])
    assert graded.get("p_value", "nDCG").value != res.get("p_value", "nDCG").value
    assert graded.get("p_value", "AP").value == res.get("p_value", "AP").value


def test_unpaired_t_hand_computed():
    """Student's two-sample t by hand: RR on A (1, 1/2, 1), on B (1/2, 1/2, 1/3, 1)."""
    docs = {1.0: ["a", "x", "y"], 0.5: ["x", "a", "y"], 1 / 3: ["x", "y", "a"]}

    def run(rrs):
        return {str(i): {d: 3.0 - k for k, d in enumerate(docs[v])} for i, v in enumerate(rrs)}

    a, b = [1.0, 0.5, 1.0], [0.5, 0.5, 1 / 3, 1.0]
    qa = {str(i): {"a": 1} for i in range(3)}
    qb = {str(i): {"a": 1} for i in range(4)}
    res = reproduce(qa, run(a), run(b), measures=["RR"], qrels_b=qb, baseline_original=run([0.5] * 3),
                    baseline_reproduced=run([1 / 3] * 4))
    ma, mb = sum(a) / 3, sum(b) / 4
    sa = sum((x - ma) ** 2 for x in a) / 2
    sb = sum((x - mb) ** 2 for x in b) / 3
    sp = math.sqrt((2 * sa + 3 * sb) / 5)
    t = (ma - mb) / (sp * math.sqrt(1 / 3 + 1 / 4))
    assert res.get("t", "RR").value == pytest.approx(t, abs=1e-12)
    # ER: mean gain on B over mean gain on A; DRI: RI_A - RI_B, each over its own topics
    assert res.get("ER", "RR").value == pytest.approx((mb - 1 / 3) / (ma - 0.5), abs=1e-12)
    assert res.get("DRI", "RR").value == pytest.approx((ma - 0.5) / 0.5 - (mb - 1 / 3) / (1 / 3), abs=1e-12)


def test_cli_replicability(replication, tmp_path, capsys):
    import json

    r = replication
    args = ["reproduce", str(r["a_orig"]), str(r["a_rep"]), "--qrels", str(r["qrels_a"]), "--qrels-b",
            str(r["qrels_b"]), "-m", "AP", "-m", "P@10", "--baseline-original", str(r["b_orig"]),
            "--baseline-reproduced", str(r["b_rep"])]
    out = io.StringIO()
    assert main([*args, "--json"], out, io.StringIO()) == 0
    doc = json.loads(out.getvalue())
    assert doc["mode"] == "replicability" and doc["qrels"] == {"A": str(r["qrels_a"]), "B": str(r["qrels_b"])}
    assert {v["qrels"] for v in doc["values"]} == {"A+B"} and len(doc["values"]) == 8
    lib = reproduce(r["qrels_a"], r["a_orig"], r["a_rep"], measures=["AP", "P@10"], baseline_original=r["b_orig"],
                    baseline_reproduced=r["b_rep"], qrels_b=r["qrels_b"])
    assert [v.as_dict() for v in lib.values] == doc["values"]
    out = io.StringIO()
    png = tmp_path / "rpl.png"
    assert main([*args, "--width", "120", "--plot", str(png)], out, io.StringIO()) == 0
    text = out.getvalue()
    assert "every value below is qrels=A+B" in text and "document order" not in text and "RMSE" in text
    row = next(x for x in text.splitlines() if x.startswith("│ AP "))
    assert "A+B" in row and f"{lib.get('ER', 'AP').value:.4f}" in row and "unpaired t-test" in text
    assert max(len(x) for x in text.splitlines()) <= 120
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    # reproducibility shows nRMSE beside RMSE
    out = io.StringIO()
    assert main(["reproduce", str(r["a_orig"]), str(r["a_orig"]), "--qrels", str(r["qrels_a"]), "-m", "AP",
                 "--width", "120"], out, io.StringIO()) == 0
    assert "nRMSE" in out.getvalue()
    capsys.readouterr()
    with pytest.raises(SystemExit):
        main(["reproduce", "--help"], io.StringIO(), io.StringIO())
    help_text = capsys.readouterr().out  # argparse prints help to sys.stdout
    assert "--qrels-b" in help_text and "ttest_ind, equal_var=True" in help_text and "nRMSE = RMSE" in help_text


# ----------------------------------------------------------------------------- runs that lack topics
def _synthetic(d: Path, seed: int, topics: list[str], drops: dict[str, set[str]], long_topic: str) -> dict:
    """A seeded graded qrels over ``topics`` (40 judged documents each, grades 0-2) and one run
    per name in ``drops``, lacking those topics and holding a topic the qrels lack ('999');
    20-200 documents a topic, 1,100 in ``long_topic`` (past repro_eval's cut at 1000), scores
    rounded to 2 decimals (ties), each file sorted by score descending."""
    rng = np.random.default_rng(seed)
    docs = [f"D{j:04d}" for j in range(1500)]
    q = d / "qrels.txt"
    q.write_text("".join(f"{t} 0 {docs[j]} {rng.integers(0, 3)}\n" for t in topics
                         for j in rng.choice(300, 40, replace=False)))
    out = {"qrels": q}
    for name, dropped in drops.items():
        lines = []
        for t in [*topics, "999"]:
            if t in dropped:
                continue
            n = 1100 if t == long_topic else int(rng.integers(20, 200))
            sel = rng.choice(1500 if n > 300 else 300, n, replace=False)
            score = np.round(rng.normal(size=n), 2)
            order = np.lexsort((np.array([docs[s] for s in sel]), -score))
            lines += [f"{t} Q0 {docs[sel[o]]} {r + 1} {score[o]} {name}\n" for r, o in enumerate(order)]
        out[name] = d / f"{name}.txt"
        out[name].write_text("".join(lines))
    return out


@pytest.fixture(scope="module")
def lacking(tmp_path_factory) -> dict:
    """Collection A: 12 topics; the original pair lacks 0, 1 or 2 of them, the re-run pair others.
    Collection B (replicability): 10 other topics, each replicated run lacking some."""
    d = tmp_path_factory.mktemp("lacking")
    ta = [str(100 + i) for i in range(12)]
    a = _synthetic(d, 11, ta, {"b_orig": {"100"}, "a_orig": {"101", "102"}, "b_rep": {"103"}, "a_rep": {"101"}},
                   long_topic="105")
    db = d / "b"
    db.mkdir()
    b = _synthetic(db, 12, [str(200 + i) for i in range(10)], {"b_rpl": {"201", "202"}, "a_rpl": {"203"}},
                   long_topic="204")
    return {**a, "qrels_b": b["qrels"], "b_rpl": b["b_rpl"], "a_rpl": b["a_rpl"], "topics_a": ta}


def _same(ours: float, theirs: float) -> bool:
    """Equal to 1e-12; an undefined ratio (repro_eval: inf or nan from a division by 0) is NaN here."""
    if not math.isfinite(theirs):
        return math.isnan(ours)
    return abs(ours - theirs) <= 1e-12


def test_reproducibility_with_missing_topics_matches_rpd_evaluator(lacking):
    """Runs that lack qrels topics: under the repro_eval-0.5 profile every statistic equals
    RpdEvaluator's (trim, evaluate) on the same files; under the default profile the numbers differ
    and a note says which topics were scored and that repro_eval scores every qrels topic."""
    from repro_eval.Evaluator import RpdEvaluator

    x = lacking
    ev = RpdEvaluator(qrels_orig_path=str(x["qrels"]), run_b_orig_path=str(x["b_orig"]),
                      run_a_orig_path=str(x["a_orig"]), run_b_rep_path=str(x["b_rep"]),
                      run_a_rep_path=str(x["a_rep"]))
    ev.trim()
    ev.evaluate()
    assert set(ev.run_a_orig_score) == set(x["topics_a"])  # every qrels topic, those the run lacks too
    theirs = {"RMSE": ev.rmse(), "nRMSE": ev.nrmse(), "p_value": ev.ttest()}
    er, dri = ev.er(), ev.dri()
    kw = {"measures": MEASURES, "baseline_original": x["b_orig"], "baseline_reproduced": x["b_rep"], "per_topic": False}
    res = reproduce(x["qrels"], x["a_orig"], x["a_rep"], profile="repro_eval-0.5", **kw)
    base = reproduce(x["qrels"], x["b_orig"], x["b_rep"], profile="repro_eval-0.5", measures=MEASURES, per_topic=False)
    checked = 0
    for m in MEASURES:
        for stat, got in theirs.items():
            assert _same(res.get(stat, m).value, got["advanced"][m]), (stat, m, res.get(stat, m).value, got["advanced"][m])
            assert _same(base.get(stat, m).value, got["baseline"][m]), (stat, m)
            checked += 2
        assert _same(res.get("ER", m).value, er[m]), ("ER", m, res.get("ER", m).value, er[m])
        assert _same(res.get("DRI", m).value, dri[m]), ("DRI", m)
        checked += 2
        assert len(res.scores[m][0]) == 12
    assert checked == 8 * len(MEASURES)
    assert sum(math.isfinite(er[m]) and er[m] != 0 for m in MEASURES) >= 6  # not a comparison of undefined values
    assert not any("repro_eval 0.5.0 scores every qrels topic" in n for n in res.notes)
    # the default profile scores the topics both runs were evaluated on: other numbers, and a note
    default = reproduce(x["qrels"], x["a_orig"], x["a_rep"], **kw)
    assert len(default.scores["AP"][0]) == 10  # 12 less 101 and 102, which the original lacks
    assert abs(default.get("RMSE", "AP").value - theirs["RMSE"]["advanced"]["AP"]) > 1e-3
    note = next(n for n in default.notes if "repro_eval 0.5.0 scores every qrels topic" in n)
    assert note.startswith(f"{', '.join(MEASURES)}: RMSE, nRMSE and the t-test over the 10 topic(s) scored for "
                           "both runs under trec_eval-9.0.8 (topics=both), of the 12 qrels topic(s) (left out: "
                           "2 topic(s): '101', '102'); ER and DRI over the 8 scored for all four runs, of the 12 "
                           "qrels topic(s) (left out: 4 topic(s): '100', '101', '102', '103')")
    assert "--profile repro_eval-0.5" in note


def test_replicability_with_missing_topics_matches_rpl_evaluator(lacking):
    """The same on another collection: original runs on qrels A, replicated ones (lacking topics of
    qrels B) on qrels B; the unpaired t-test, ER and DRI equal RplEvaluator's under repro_eval-0.5."""
    from repro_eval.Evaluator import RplEvaluator

    x = lacking
    ev = RplEvaluator(qrels_orig_path=str(x["qrels"]), run_b_orig_path=str(x["b_orig"]),
                      run_a_orig_path=str(x["a_orig"]), run_b_rep_path=str(x["b_rpl"]),
                      run_a_rep_path=str(x["a_rpl"]), qrels_rpl_path=str(x["qrels_b"]))
    ev.trim()
    ev.evaluate()
    assert len(ev.run_a_rep_score) == 10
    er, dri, tt = ev.er(), ev.dri(), ev.ttest()
    kw = {"measures": MEASURES, "qrels_b": x["qrels_b"], "per_topic": False}
    res = reproduce(x["qrels"], x["a_orig"], x["a_rpl"], profile="repro_eval-0.5", baseline_original=x["b_orig"],
                    baseline_reproduced=x["b_rpl"], **kw)
    base = reproduce(x["qrels"], x["b_orig"], x["b_rpl"], profile="repro_eval-0.5", **kw)
    for m in MEASURES:
        assert _same(res.get("p_value", m).value, tt["advanced"][m]), m
        assert _same(base.get("p_value", m).value, tt["baseline"][m]), m
        assert _same(res.get("ER", m).value, er[m]), m
        assert _same(res.get("DRI", m).value, dri[m]), m
        (ta, _), (tb, _) = res.unpaired[m]
        assert (len(ta), len(tb)) == (12, 10)
    assert not any("repro_eval 0.5.0 scores every qrels topic" in n for n in res.notes)
    default = reproduce(x["qrels"], x["a_orig"], x["a_rpl"], **kw)
    note = next(n for n in default.notes if "repro_eval 0.5.0 scores every qrels topic" in n)
    assert ("scored under trec_eval-9.0.8 (topics=both) over 10 topic(s) of qrels A, of the 12 qrels topic(s) "
            "(left out: 2 topic(s): '101', '102') and 9 of qrels B, of the 10 qrels topic(s) (left out: 1 topic(s): "
            "'203')") in note


def test_the_topic_note_in_text_and_json(lacking):
    """The default profile's note on the topic set reaches both output formats of the command."""
    import json

    x = lacking
    argv = ["reproduce", str(x["a_orig"]), str(x["a_rep"]), "--qrels", str(x["qrels"]), "-m", "AP"]
    out = io.StringIO()
    assert main([*argv, "--json"], out, io.StringIO()) == 0
    notes = json.loads(out.getvalue())["notes"]
    assert any(n.startswith("AP: RMSE, nRMSE and the t-test over the 10 topic(s)") for n in notes)
    out = io.StringIO()
    assert main([*argv, "--width", "100"], out, io.StringIO()) == 0
    flat = " ".join(out.getvalue().split())
    assert "note: AP: RMSE, nRMSE and the t-test over the 10 topic(s) scored for both runs" in flat
    assert "repro_eval 0.5.0 scores every qrels topic" in flat
    out = io.StringIO()
    assert main([*argv, "--profile", "repro_eval-0.5", "--json"], out, io.StringIO()) == 0
    assert not any("scores every qrels topic" in n for n in json.loads(out.getvalue())["notes"])


def test_a_routed_measure_gets_its_providers_axes():
    """Under a profile with a route table, reproduce computes each measure as eval does: RR@2
    under ir_measures-0.4 goes to its msmarco provider (ties docno-asc), RR to pytrec_eval's
    (docno-desc). Two documents tied at the top, the relevant one 'a': docno-asc puts it first."""
    qrels = {"1": {"a": 1}}
    orig = {"1": {"a": 1.0, "b": 1.0}}
    rep = {"1": {"a": 2.0, "b": 1.0}}
    res = reproduce(qrels, orig, rep, measures=["RR@2", "RR"], profile="ir_measures-0.4")
    assert res.get("RMSE", "RR@2").value == 0.0  # orig RR@2 = 1 (a first by docno-asc) = rep
    assert res.get("RMSE", "RR").value == 0.5  # orig RR = 1/2 (b first by docno-desc), rep 1
    assert "ties=docno-asc" in res.get("RMSE", "RR@2").variant
    assert "ties=docno-desc" in res.get("RMSE", "RR").variant
    assert [v.measure for v in res.values if v.statistic == "RMSE"] == ["RR@2", "RR"]
    routed = reproduce(qrels, orig, rep, measures=["RR@2"], profile="repro_eval-0.5")
    assert any(n.startswith("RR@2: scored under the profile's route for it, with depth=all, not the profile's "
                            "depth=1000") for n in routed.notes)
