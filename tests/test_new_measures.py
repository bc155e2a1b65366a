"""Unnormalised DCG and the counts with a cut-off (issue 16 item 2): DCG@k, Hits@k, NumRelRet@k,
NumRet@k.

* ``DCG@k`` = sum over ranks i <= k of gain_i / log2(i + 1), gain = grade (ranx ``dcg``) or
  2^grade - 1 (``gain=exp2``, ranx ``dcg_burges``); checked by hand and against ranx per topic.
* ``Hits@k`` = relevant documents in the top k, mean over topics (ranx ``hits``);
  ``NumRelRet@k`` the same per topic, summed (ir_measures ``NumRet(rel=1)@k``; trec_eval sums
  num_rel_ret); ``NumRet@k`` = min(ret, k), summed.

ir_measures 0.4.3 accepts ``NumRet(rel=1)@10`` but its pytrec_eval provider ignores the cut-off
(checked below), so ir_measures is the reference for the uncut counts only.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pytest

import auditeval as ae
from auditeval.adapters.ir_measures import IrMeasures
from auditeval.adapters.ranx import Ranx
from auditeval.vocab.conventions import load_profile
from auditeval.vocab.variant import parse_measure

TOL = 1e-12
RUN = "input.MU03rob01.gz"


def test_hand_checked():
    # ranks: a (grade 2), z (unjudged), b (0), c (1), d (-1 pooled-unjudged)
    q = {"t": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 1}}
    r = {"t": {"a": 5.0, "z": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    res = ae.evaluate(q, r, ["DCG@3", "DCG@10", "DCG", "DCG(dcg='exp-log2')@10", "DCG(gains={1:5})@10",
                             "Hits@3", "Hits@10", "NumRelRet@3", "NumRet@3", "NumRet(rel=1)@4", "NumRet@10"],
                      profile="trec_eval-9.0.8", per_topic=False)
    got = {v.measure: v.value for v in res.values}
    assert got["DCG@3"] == pytest.approx(2.0, abs=1e-15)  # 2/log2(2); z and b gain 0
    assert got["DCG@10"] == pytest.approx(2.0 + 1.0 / math.log2(5), abs=1e-15)  # c at rank 4
    assert got["DCG"] == got["DCG@10"]  # no ideal ranking: e, never retrieved, adds nothing
    assert got["DCG(dcg='exp-log2')@10"] == pytest.approx(3.0 + 1.0 / math.log2(5), abs=1e-15)
    assert got["DCG(gains={1:5})@10"] == pytest.approx(2.0 + 5.0 / math.log2(5), abs=1e-15)
    assert (got["Hits@3"], got["Hits@10"], got["NumRelRet@3"], got["NumRet(rel=1)@4"]) == (1.0, 2.0, 1, 2)
    assert (got["NumRet@3"], got["NumRet@10"]) == (3, 5)


def test_names_and_variants():
    m = parse_measure("NumRet(rel=1)@10")  # ir_measures' spelling; rel= folds into the rel axis
    assert (m.name, m.cutoff, m.params) == ("NumRelRet", 10, (("rel", 1),))
    assert str(parse_measure("DCG(dcg='exp-log2')@5")) == "DCG(dcg='exp-log2')@5"
    # the order matters only once something is cut: no ties/sim axes uncut at depth=all
    base = load_profile("trec_eval-9.0.8").convention
    uncut = ae.evaluate({"t": {"a": 1}}, {"t": {"a": 1.0}}, ["NumRelRet", "NumRelRet@10", "Hits"], profile=base)
    strings = {v.measure: str(v.variant) for v in uncut.values}
    assert "ties=" not in strings["NumRelRet"] and "ties=" not in strings["Hits"]
    assert "ties=" in strings["NumRelRet@10"]
    with pytest.raises(ae.UnknownMeasureError, match=r"ranx's name for DCG: did you mean \"DCG\(dcg='exp-log2'\)@10\""):
        parse_measure("dcg_burges@10")


def test_adapter_spellings():
    rx = Ranx()
    own = rx.own()
    spell = {x: rx.plan(parse_measure(x), own).tool_measure for x in ("DCG@10", "DCG(dcg='exp-log2')@10", "Hits@10",
                                                                          "Hits", "DCG")}
    assert spell == {"DCG@10": "dcg@10", "DCG(dcg='exp-log2')@10": "dcg_burges@10", "Hits@10": "hits@10",
                     "Hits": "hits", "DCG": "dcg"}
    assert rx.tool_measure(parse_measure("NumRelRet@10"), own) is None  # ranx averages hits; NumRelRet sums
    pt = IrMeasures("pytrec_eval")
    assert pt.plan(parse_measure("NumRet(rel=1)"), pt.own()).tool_measure == "NumRelRet"
    assert pt.plan(parse_measure("NumRet(rel=2)"), pt.own()).tool_measure == "NumRelRet(rel=2)"
    assert pt.tool_measure(parse_measure("NumRelRet@10"), pt.own()) is None  # ir_measures ignores the @10
    assert pt.tool_measure(parse_measure("NumRet@10"), pt.own()) is None


@pytest.fixture(scope="module")
def robust(shared):
    qrels_path = shared / "data/robust03/qrels.robust03.txt"
    run_path = shared / "data/robust03/runs" / RUN
    return qrels_path, run_path


def test_per_topic_against_ranx(robust):
    import ranx

    qrels_path, run_path = robust
    # distinct scores (file order within each topic, as written): ranx breaks ties by its own
    # sort (topic 616 of this run has a tie across rank 10), which is the ties axis, not the
    # formulas checked here
    run = {t: {d: float(1000 - i) for i, d in enumerate(docs)} for t, docs in ae.read_run(run_path).to_dict().items()}
    ours = {"DCG@10": "dcg@10", "DCG(dcg='exp-log2')@10": "dcg_burges@10", "Hits@10": "hits@10", "DCG@100": "dcg@100",
            "DCG": "dcg", "Hits@1000": "hits@1000", "Hits": "hits"}
    qrels = ae.read_qrels(qrels_path)
    rq, rr = ranx.Qrels(qrels.to_dict()), ranx.Run(run)
    means = ranx.evaluate(rq, rr, list(ours.values()), make_comparable=True)
    res = ae.evaluate(qrels, run, list(ours), profile="ranx-0.3")
    got = {(v.measure, v.topic): v.value for v in res.values}
    grades = {g for d in qrels.to_dict().values() for g in d.values()}
    assert 2 in grades  # exp2 gain differs from the grade: dcg_burges is a real check
    for mine, theirs in ours.items():
        want = {str(t): float(v) for t, v in rr.scores[theirs].items()}
        per = {t: v for (label, t), v in got.items() if label == mine and t != "all"}
        assert set(per) == set(want) and len(want) == 100, mine
        diff = max(abs(per[t] - want[t]) for t in want)
        assert diff <= TOL, (mine, diff)
        assert got[(mine, "all")] == pytest.approx(float(means[theirs]), abs=1e-12), mine
    assert got[("DCG(dcg='exp-log2')@10", "all")] > got[("DCG@10", "all")] > 0
    # NumRelRet@10 is Hits@10 per topic, summed
    sums = ae.evaluate(qrels, run, ["NumRelRet@10"], profile="ranx-0.3", per_topic=False)
    hits = np.array([float(v) for v in rr.scores["hits@10"].values()])
    assert sums.get("NumRelRet@10").value == int(hits.sum()) > 0


def test_counts_against_ir_measures(robust):
    qrels_path, run_path = robust
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    names = ["NumRet(rel=1)", "NumRet", "NumRet(rel=2)", "NumRet(rel=1)@10"]
    want: dict[tuple[str, str], float] = {}
    # NumRet(rel=1)@10 alone: asked together with NumRet(rel=1), ir_measures 0.4.3 reports 0 for
    # the latter (both are pytrec_eval's num_rel_ret in one invocation)
    provider = ir_measures.providers.registry["pytrec_eval"]
    for group in (names[:3], names[3:]):
        evaluator = provider.evaluator([ir_measures.parse_measure(n) for n in group], qrels)
        for metric in evaluator.iter_calc(run):
            want[(str(metric.measure), metric.query_id)] = metric.value
    res = ae.evaluate(qrels_path, run_path, names, profile="ir_measures-0.4")
    got = {(v.measure, v.topic): v.value for v in res.values}
    topics = {t for (_, t) in want}
    assert len(topics) == 100
    for n in names[:3]:
        bad = [t for t in topics if got[(n, t)] != want[(n, t)]]
        assert not bad, (n, bad[:5])
    # ir_measures' @10 is the uncut count: the adapter must never send it
    assert all(want[("NumRet(rel=1)@10", t)] == want[("NumRet(rel=1)", t)] for t in topics)
    assert any(got[("NumRet(rel=1)@10", t)] < got[("NumRet(rel=1)", t)] for t in topics)
    assert all(got[("NumRet(rel=1)@10", t)] <= 10 for t in topics)
