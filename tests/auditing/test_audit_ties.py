"""Tie envelope: exact min / max / expected over orderings of tied documents, checked by
enumerating the orderings with a plain AP written here (independent of the engine)."""

from __future__ import annotations

import itertools

import pytest

import auditeval as ae
from auditeval.auditing.tie_envelope import envelope
from auditeval.engine import prepare
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure

CONV = resolve("trec_eval-9.0.8")
# the seed article's case: a relevant document alone at rank 1, then one block of 4 tied
# documents holding 2 of the other relevant ones (R = 3)
QRELS = {"1": {"a": 1, "c": 1, "e": 1}}
RUN = {"1": {"a": 5.0, "b": 3.0, "c": 3.0, "d": 3.0, "e": 3.0, "f": 1.0}}


def plain_ap(rels: list[int], big_r: int) -> float:
    hits, total = 0, 0.0
    for i, r in enumerate(rels, 1):
        if r:
            hits += 1
            total += hits / i
    return total / big_r


def _env(measure: str, qrels=QRELS, run=RUN, **kw):
    q, r = ae.qrels_from(qrels), ae.run_from(run)
    return envelope(prepare(q, r, CONV), r, parse_measure(measure), CONV, **kw)


def test_ap_over_the_24_orderings_of_one_tied_block():
    orders = list(itertools.permutations([0, 1, 0, 1]))  # b, c, d, e: c and e relevant
    values = [plain_ap([1, *o, 0], 3) for o in orders]
    assert len(orders) == 24
    e = _env("AP")
    # min: relevant at ranks 4, 5: (1 + 2/4 + 3/5) / 3 = 0.7; max: ranks 2, 3: 1.0
    assert (e.minimum[0], e.maximum[0]) == pytest.approx((0.7, 1.0))
    assert (min(values), max(values)) == pytest.approx((0.7, 1.0))
    # expected (McSherry & Najork): (1 + sum_p (2/4)(2 + (p-1)/3)/(1+p)) / 3 = 0.840741
    assert e.expected[0] == pytest.approx(sum(values) / 24, abs=1e-12)
    assert e.expected[0] == pytest.approx(0.8407407407, abs=1e-9)
    assert e.method == "exact" and e.agg_method == "exact"
    assert round(10 ** e.orderings[0]) == 24
    # docno-desc orders the block e, d, c, b: relevant at 2 and 4: (1 + 1 + 3/4) / 3
    assert e.value[0] == pytest.approx(2.75 / 3)


def test_rr_p_ndcg_expected_are_exact():
    # one block of 3 with one relevant, after nothing: E[RR] = (1 + 1/2 + 1/3) / 3
    e = _env("RR", {"1": {"b": 1}}, {"1": {"a": 1.0, "b": 1.0, "c": 1.0}})
    assert e.expected[0] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert (e.minimum[0], e.maximum[0]) == pytest.approx((1 / 3, 1.0))
    # P@3 of the seed case: rank 1 relevant, ranks 2-3 from the block (2 of 4 relevant): (1 + 2 * 2/4) / 3
    assert _env("P@3").expected[0] == pytest.approx(2 / 3)
    # nDCG@3: E[DCG] = 1 + (1/2)(1/log2 3 + 1/2); ideal 1 + 1/log2 3 + 1/2
    import math

    ideal = 1 + 1 / math.log2(3) + 0.5
    assert _env("nDCG@3").expected[0] == pytest.approx((1 + 0.5 * (1 / math.log2(3) + 0.5)) / ideal)


def test_other_measures_are_sampled_and_labelled_so():
    e = _env("Bpref", samples=20, seed=3)
    assert e.method == "sampled (seed 3, 20 orderings)"
    e = _env("GMAP", samples=20)
    assert e.agg_method == "sampled (seed 0, 20 orderings)"
    assert (e.minimum[0], e.maximum[0]) == pytest.approx((0.7, 1.0))  # per topic GMAP is AP: exact bounds
    assert 0.7 <= e.expected[0] <= 1.0


def test_sampled_11pt_on_a_topic_without_a_relevant_document_retrieved():
    """Topic 2 ties a judged non-relevant document with an unjudged one and retrieves none of
    its relevant ones: every order gives 11pt 0 (relret / ret = 0 at level 0, nothing above).
    The sampled orderings used to cut its rows after its last relevant one (there is none),
    leaving an empty list whose 0/0 made the expected value NaN. Topic 1 is the seed case."""
    qrels = {**QRELS, "2": {"x": 0, "r": 1}}
    run = {**RUN, "2": {"x": 1.0, "u": 1.0}}
    e = _env("11pt", qrels, run, samples=20)
    assert e.method == "sampled (seed 0, 20 orderings)"
    assert (e.value[1], e.minimum[1], e.maximum[1], e.expected[1]) == (0.0, 0.0, 0.0, 0.0)
    assert all(x == x for x in e.agg)  # no NaN in the aggregates either


def test_tie_only_conventions_on_affected_topics_equal_the_full_evaluation(robust03):
    """Native evaluates ties/sim changes on the topics with mixed tied blocks only: bit-identical."""
    import numpy as np

    from auditeval.auditing.native import Native

    q = ae.read_qrels(robust03.qrels)
    r = ae.read_run(robust03.run("InexpC2"))
    for base in (resolve("trec_eval-9.0.8"), resolve("trec_eval-10.0").replace(topics="both")):
        fast, full = Native(q, [r], base), Native(q, [r])
        for ms in ("AP", "nDCG@10", "RR", "GMAP", "11pt"):
            m = parse_measure(ms)
            for change in ({"ties": "docno-asc"}, {"ties": "file-order"}, {"ties": "rank"},
                           {"sim": "float32" if base.sim == "float64" else "float64", "ties": "docno-asc"}):
                a, b = fast.get(0, m, base.replace(**change)), full.get(0, m, base.replace(**change))
                assert np.array_equal(a.topics, b.topics) and np.array_equal(a.values, b.values)
                assert a.aggregate == b.aggregate
        assert fast.restricted >= 15  # ties=rank too when the file is in rank order (below)
    # lines in rank order with non-increasing scores: ties=rank is a tie rule like the others
    q2 = ae.qrels_from(QRELS)
    r2 = ae.run_from(RUN)
    fast, full = Native(q2, [r2], CONV), Native(q2, [r2])
    for ms in ("AP", "RR", "P@3"):
        a, b = fast.get(0, parse_measure(ms), CONV.replace(ties="rank")), full.get(0, parse_measure(ms), CONV.replace(ties="rank"))
        assert np.array_equal(a.values, b.values) and a.aggregate == b.aggregate
    assert fast.restricted == 3
