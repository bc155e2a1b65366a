"""A run topic given as an empty mapping is evaluated as an empty ranking.

pytrec_eval and ranx take runs as dicts of dicts; a topic mapped to ``{}`` is a topic the
system answered with nothing. pytrec_eval evaluates it as an empty ranking (it counts in
num_q, num_rel counts its judgments, P/AP/nDCG are 0, iprec_at_recall_0.00 and 11pt_avg
are trec_eval's 0/0 = NaN). auditeval does the same under every profile, with a note; a
file cannot express such a topic (a topic with no line does not exist in a run file).
References: pytrec_eval (trec_eval 9.0.8 code) per topic to 1e-12 under trec_eval-9.0.8,
ranx under ranx-0.3.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

import auditeval as ae
from auditeval.engine.measures import MEASURES
from auditeval.io.memory import run_from
from auditeval.vocab.errors import UnknownMeasureError

TOL = 1e-12
EMPTIED = ("601", "620", "650")  # robust03 topics whose results are removed


@pytest.fixture(scope="module")
def data(robust03):
    qrels = ae.read_qrels(robust03.qrels)
    run = ae.read_run(robust03.run("MU03rob01")).to_dict()
    assert all(t in run for t in EMPTIED)
    for t in EMPTIED:
        run[t] = {}
    return qrels, run


def test_run_from_keeps_empty_topics_with_a_note():
    r = run_from({"q1": {"a": 1.0}, "q2": {}, 3: {}})
    assert r.empty_topics == ("q2", "3")
    assert len(r) == 1 and r.topics == ["3", "q1", "q2"]
    assert r.to_dict() == {"q1": {"a": 1.0}, "q2": {}, "3": {}}
    assert len(r.notes) == 1 and "2 run topic(s) with no results evaluated as empty rankings" in r.notes[0]
    # a run of empty topics only is a run (pytrec_eval evaluates it); no topic at all is not
    assert run_from({"q": {}}).empty_topics == ("q",)
    with pytest.raises(ae.InputError, match="empty run"):
        run_from({})


def test_hand_checked_every_profile():
    # q2 is judged (1 relevant) and answered with nothing: AP 0, P@5 0, num_q counts it
    q = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1, "y": 0}}
    r = {"q1": {"a": 2.0, "b": 1.0}, "q2": {}}
    for profile in ("trec_eval-9.0.8", "trec_eval-10.0", "ir_measures-0.4", "ranx-0.3", "textbook"):
        res = ae.evaluate(q, r, ["AP", "P@5", "NumQ", "NumRel", "NumRet"], profile=profile)
        got = {(v.measure, v.topic): v.value for v in res.values}
        assert got[("AP", "q2")] == 0.0 and got[("AP", "all")] == 0.5, profile
        assert got[("P@5", "all")] == pytest.approx(0.1, abs=1e-15), profile
        assert (got[("NumQ", "all")], got[("NumRel", "all")], got[("NumRet", "all")]) == (2, 2, 2), profile
        assert any("evaluated as empty rankings" in n and "'q2'" in n for n in res.notes), profile


def test_per_topic_equals_pytrec_eval(data):
    qrels, run = data
    expected = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), pytrec_eval.supported_measures).evaluate(run)
    assert all(t in expected for t in EMPTIED)  # pytrec_eval evaluates the empty topics
    keys = []
    for key in sorted(next(iter(expected.values()))):
        try:
            m = ae.parse_measure(key)
        except UnknownMeasureError:
            continue
        if MEASURES[m.name].fmt != "str":
            keys.append(key)
    assert {"map", "P_10", "ndcg_cut_10", "num_q", "num_rel", "num_ret", "iprec_at_recall_0.00"} <= set(keys)
    res = ae.evaluate(qrels, run, keys, profile="trec_eval-9.0.8")
    got = {(v.measure, v.topic): v.value for v in res.values}
    bad = []
    for key in keys:
        topics = sorted(t for (label, t) in got if label == key and t != "all")
        assert topics == sorted(expected), key
        for t in topics:
            mine, want = got[(key, t)], expected[t][key]
            if key.startswith("gm_"):
                mine = math.log(max(mine, 1e-5))  # pytrec_eval keeps log(max(v, 1e-5)) per topic
            if not (abs(mine - want) <= TOL or (math.isnan(mine) and math.isnan(want))):
                bad.append(f"{key} {t}: {mine!r} vs {want!r}")
    assert not bad, bad[:10]
    # the empty topics by hand: nothing retrieved, their judgments counted
    for t in EMPTIED:
        assert got[("map", t)] == 0.0 and got[("num_ret", t)] == 0 and got[("num_q", t)] == 1
        assert got[("num_rel", t)] == sum(1 for g in qrels.to_dict()[t].values() if g >= 1) > 0
        assert math.isnan(got[("iprec_at_recall_0.00", t)])  # trec_eval's 0/0 on an empty ranking
    n = len(expected)
    assert got[("map", "all")] == pytest.approx(sum(expected[t]["map"] for t in expected) / n, abs=1e-15)


def test_trec_eval_10_evaluates_instead_of_refusing(data):
    qrels, run = data
    res = ae.evaluate(qrels, run, ["AP", "NumQ"], profile="trec_eval-10.0", per_topic=False)
    nine = ae.evaluate(qrels, run, ["AP", "NumQ"], profile="trec_eval-9.0.8", per_topic=False)
    assert res.get("NumQ").value == nine.get("NumQ").value == 100
    assert res.get("AP").value == pytest.approx(nine.get("AP").value, abs=1e-12)


@pytest.mark.slow
def test_ranx_run_object_and_values(data):
    import ranx
    qrels, run = data
    q_dict = qrels.to_dict()
    names = ["map", "ndcg@10", "precision@10", "recall@100", "mrr"]
    rq, rr = ranx.Qrels(q_dict), ranx.Run(run)
    ranx.evaluate(rq, rr, names, make_comparable=True)
    res = ae.evaluate(rq, rr, ["AP", "nDCG@10", "P@10", "R@100", "RR"], profile="ranx-0.3")
    assert any("evaluated as empty rankings" in n for n in res.notes)
    got = {(v.measure, v.topic): v.value for v in res.values}
    for ours, theirs in zip(["AP", "nDCG@10", "P@10", "R@100", "RR"], names, strict=True):
        want = {str(t): float(v) for t, v in rr.scores[theirs].items()}
        mine = {t: v for (label, t), v in got.items() if label == ours and t != "all"}
        assert set(mine) == set(want) and all(t in mine for t in EMPTIED), ours
        diff = max(abs(mine[t] - want[t]) for t in want)
        assert diff <= TOL, (ours, diff)
        assert all(mine[t] == 0.0 for t in EMPTIED)
        assert got[(ours, "all")] == pytest.approx(float(np.mean(list(want.values()))), abs=1e-12)


def test_audit_of_a_dict_run_with_an_empty_topic(trec_eval_bins):
    """The audit says the topic is empty (a note) and gives pytrec_eval the topic as an empty
    ranking, as its dict API takes it; a trec_eval binary reads a file, which cannot hold the
    topic: its difference is explained by that, the other topic agreeing as printed.
    Hand: q1 ranks a (relevant) then b; q2 (1 relevant) has nothing: AP = (1 + 0) / 2 = 0.5;
    trec_eval sees q1 alone: 1.0000."""
    q = {"q1": {"a": 1, "b": 0}, "q2": {"x": 1, "y": 0}}
    r = {"q1": {"a": 2.0, "b": 1.0}, "q2": {}}
    rep = ae.audit(q, r, measures=["AP"], against=["pytrec_eval", "trec_eval"], trec_eval=[str(trec_eval_bins["9.0.8"])])
    assert any("1 run topic(s) with no results evaluated as empty rankings" in n and "'q2'" in n for n in rep.notes)
    rows = {a.engine: a for a in rep.agreement}
    assert (rows["pytrec_eval"].status, rows["pytrec_eval"].value, rows["pytrec_eval"].native) == ("match", 0.5, 0.5)
    te = rows["trec_eval-9.0.8"]
    assert (te.status, te.value) == ("explained", "1.0000")
    assert "1 topic(s) empty in the run (q2) are not in the file trec_eval-9.0.8 read" in te.detail
    assert te.detail.endswith("the other 1 topic(s) agree (1 topics, as printed (4 dp))")
