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


def _lines(shared: Path) -> list[list[str]]:
    with gzip.open(shared / "data/robust03/runs" / f"{RUN}.gz", "rt") as fh:
        return [line.split() for line in fh]


@pytest.fixture(scope="module")
def perturbed(shared: Path, tmp_path_factory) -> dict:
    """The run, and a copy with the documents at ranks 1 and 2 of one topic swapped and every
    score replaced by a jittered, order-preserving one (rank gaps of 1, jitter < 0.4)."""
    qrels_path = shared / "data/robust03/qrels.robust03.txt"
    rel = {(t, d) for t, _, d, g in (line.split() for line in open(qrels_path)) if int(g) >= 1}
    lines = _lines(shared)
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
    with gzip.open(shared / "data/robust03/runs" / f"{RUN}.gz", "rb") as fh:
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
    assert list(frame.columns) == ["statistic", "measure", "topic", "value", "variant", "engine"]
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


def test_matches_repro_eval(perturbed, shared):
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
    bad.write_text("1 Q0 d 1 0.5 r\n1 Q0 e 2 notanumber r\n")
    err = io.StringIO()
    assert main(["reproduce", str(bad), str(perturbed["rep"]), "--qrels", str(perturbed["qrels"])], io.StringIO(), err) == 2
    assert err.getvalue().startswith(f"auditeval: error: {bad}:2: ")
