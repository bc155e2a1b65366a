"""Every convention axis value, on a tiny hand-computed qrels/run pair.

Each test flips one axis (everything else fixed by the base profile) and asserts the
number under every value of that axis, with the hand computation in a comment. The base
profile is ``trec_eval-9.0.8-double`` (float64 scores, docno-desc ties, topics=both ...)
unless a test says otherwise.
"""

from __future__ import annotations

import math
import os
import subprocess

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from paths import CASES
from plain_model import ranked as _ranked
from plain_model import reference_value as _reference_value

import auditeval as ae
from auditeval.io import parse_qrels, parse_run
from auditeval.vocab.model import Qrels, Run, qrels_table, run_table

BASE = "trec_eval-9.0.8-double"


def qrels(text: str):
    return parse_qrels(text.encode(), "qrels")


def run(text: str):
    return parse_run(text.encode(), "run")


def value(q, r, measure: str, *settings: str, profile: str = BASE, topic: str = "all"):
    res = ae.evaluate(q, r, [measure], profile=profile, settings=list(settings))
    return res.get(measure, topic=topic).value


def variant(q, r, measure: str, *settings: str, profile: str = BASE) -> str:
    res = ae.evaluate(q, r, [measure], profile=profile, settings=list(settings))
    return str(res.get(measure).variant)


# ------------------------------------------------------------------------------ ties
# Topic 1: five documents, all scored 1.0; only "9" is relevant.
# File order: 10, a, b, c, 9; rank column: 10=1, a=2, 9=3, b=4, c=5.
TIES_Q = "1 0 9 1\n1 0 10 0\n"
TIES_R = """\
1 Q0 10 1 1.0 t
1 Q0 a 2 1.0 t
1 Q0 b 4 1.0 t
1 Q0 c 5 1.0 t
1 Q0 9 3 1.0 t
"""


@pytest.mark.parametrize(
    "ties, expected",
    [
        # bytes descending: c b a 9 10 -> "9" at rank 4
        ("docno-desc", 1 / 4),
        # bytes ascending: 10 9 a b c -> rank 2
        ("docno-asc", 1 / 2),
        # numbers ascending first (9 < 10), then the rest: 9 10 a b c -> rank 1
        ("docno-asc-numeric", 1.0),
        # the rank column: 10 a 9 b c -> rank 3
        ("rank", 1 / 3),
        # input order: 10 a b c 9 -> rank 5
        ("file-order", 1 / 5),
    ],
)
def test_ties(ties, expected):
    assert value(qrels(TIES_Q), run(TIES_R), "RR", f"ties={ties}") == pytest.approx(expected, abs=1e-15)
    assert f"ties={ties}" in variant(qrels(TIES_Q), run(TIES_R), "RR", f"ties={ties}")


def test_ties_rank_ignores_scores():
    # ties=rank reads the rank column even when scores disagree: rank says x y z,
    # scores say y z x; x relevant. rank -> RR 1; docno-desc (scores) -> y z x -> 1/3.
    r = run("2 Q0 x 1 0.1 t\n2 Q0 y 2 0.9 t\n2 Q0 z 3 0.5 t\n")
    q = qrels("2 0 x 1\n")
    assert value(q, r, "RR", "ties=rank") == 1.0
    assert value(q, r, "RR", "ties=docno-desc") == pytest.approx(1 / 3, abs=1e-15)


# ------------------------------------------------------------------------------ sim
def test_sim():
    # a (relevant) scores 0.30000001, b scores 0.3: distinct doubles, equal floats
    # (float32 spacing near 0.3 is 3e-8). float64: a b -> RR 1. float32: tie, docno
    # descending puts b first -> a at rank 2 -> RR 1/2.
    q = qrels("1 0 a 1\n1 0 b 0\n")
    r = run("1 Q0 a 1 0.30000001 t\n1 Q0 b 2 0.3 t\n")
    assert value(q, r, "RR", "sim=float64") == 1.0
    assert value(q, r, "RR", "sim=float32") == 0.5
    # same with 100000001 vs 100000000 (float32 has 24 bits of mantissa)
    r2 = run("1 Q0 a 1 100000001 t\n1 Q0 b 2 100000000 t\n")
    assert value(q, r2, "RR", "sim=float64") == 1.0
    assert value(q, r2, "RR", "sim=float32") == 0.5


# ------------------------------------------------------------------------------ topics
# qrels topics 1, 2; run topics 1, 3, 4. Topic 1: relevant doc at rank 1 -> AP 1.
TOPICS_Q = "1 0 a 1\n2 0 b 1\n"
TOPICS_R = "1 Q0 a 1 1.0 t\n3 Q0 c 1 1.0 t\n4 Q0 d 1 1.0 t\n"


def test_topics_both():
    # run & qrels = {1}: AP 1/1
    res = ae.evaluate(qrels(TOPICS_Q), run(TOPICS_R), ["AP", "NumQ"], profile=BASE, settings=["topics=both"])
    assert res.get("AP").value == 1.0
    assert res.get("NumQ").value == 1
    assert [v.topic for v in res.per_topic() if v.measure == "AP"] == ["1"]


def test_topics_qrels():
    # every qrels topic {1, 2}; topic 2 is absent from the run -> AP 0: (1 + 0) / 2
    res = ae.evaluate(qrels(TOPICS_Q), run(TOPICS_R), ["AP", "NumQ"], profile=BASE, settings=["topics=qrels"])
    assert res.get("AP").value == 0.5
    assert res.get("AP", topic="2").value == 0.0
    assert res.get("NumQ").value == 2


def test_topics_run():
    # every run topic {1, 3, 4}; 3 and 4 have no judgments -> AP 0: (1 + 0 + 0) / 3
    res = ae.evaluate(qrels(TOPICS_Q), run(TOPICS_R), ["AP", "NumQ"], profile=BASE, settings=["topics=run"])
    assert res.get("AP").value == pytest.approx(1 / 3, abs=1e-15)
    assert res.get("NumQ").value == 3
    assert [v.topic for v in res.per_topic() if v.measure == "AP"] == ["1", "3", "4"]


def test_topics_strict():
    # strict = qrels topic set, but topic 2 missing from the run is an error ...
    with pytest.raises(ae.EvaluationError) as err:
        value(qrels(TOPICS_Q), run(TOPICS_R), "AP", "topics=strict")
    assert str(err.value) == (
        "1 qrels topic(s) missing from run run: '2' (topics=strict, as trec_eval 10 without -c; "
        "use topics=qrels to score them 0 or topics=both to skip them)"
    )
    # ... and once every qrels topic is in the run it evaluates them all: (1 + 1/2) / 2;
    # topic 2's relevant doc b is at rank 2 behind x.
    r = run(TOPICS_R + "2 Q0 x 1 2.0 t\n2 Q0 b 2 1.0 t\n")
    assert value(qrels(TOPICS_Q), r, "AP", "topics=strict") == 0.75
    assert value(qrels(TOPICS_Q), r, "AP", "topics=both") == 0.75


def test_topics_order_is_bytes():
    # trec_eval sorts topic ids with strcmp: "10" < "9"
    q = qrels("9 0 a 1\n10 0 a 1\n")
    r = run("9 Q0 a 1 1 t\n10 Q0 a 1 1 t\n")
    res = ae.evaluate(q, r, ["AP"], profile=BASE)
    assert [v.topic for v in res.per_topic()] == ["10", "9"]


# ------------------------------------------------------------------------------ unjudged
def test_unjudged():
    # ranking x (not in qrels), a (relevant); R = 1.
    # nonrel: a at rank 2 -> AP 1/2; drop: x removed, a at rank 1 -> AP 1.
    q = qrels("1 0 a 1\n1 0 b 0\n")
    r = run("1 Q0 x 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    assert value(q, r, "AP", "unjudged=nonrel") == 0.5
    assert value(q, r, "AP", "unjudged=drop") == 1.0
    # judged_only=True is the same axis, spelled as a measure parameter
    assert value(q, r, "AP(judged_only=True)") == 1.0
    assert "unjudged=drop" in variant(q, r, "AP(judged_only=True)")
    # NumRet counts the ranking after -J: 2 vs 1
    assert value(q, r, "NumRet", "unjudged=nonrel") == 2
    assert value(q, r, "NumRet", "unjudged=drop") == 1


# ------------------------------------------------------------------------------ negatives
def test_negatives():
    # n has grade -1, a grade 1; ranking n a. With unjudged=drop (trec_eval -J):
    # pooled: n is "in pool but unjudged" -> dropped, a at rank 1 -> AP 1.
    # nonrel: n is judged non-relevant (grade 0) -> kept, a at rank 2 -> AP 1/2.
    q = qrels("1 0 a 1\n1 0 n -1\n")
    r = run("1 Q0 n 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    assert value(q, r, "AP", "unjudged=drop", "negatives=pooled") == 1.0
    assert value(q, r, "AP", "unjudged=drop", "negatives=nonrel") == 0.5
    # without -J both count n as non-relevant: AP 1/2 either way
    assert value(q, r, "AP", "negatives=pooled") == 0.5
    assert value(q, r, "AP", "negatives=nonrel") == 0.5


def test_negatives_never_relevant_at_rel0():
    # rel=0: every judged grade >= 0 is relevant. pooled: n (-1) stays unjudged, R = 1,
    # a at rank 2 -> AP 1/2. nonrel: n becomes grade 0 -> relevant, R = 2:
    # (1/1 + 2/2) / 2 = 1.
    q = qrels("1 0 a 1\n1 0 n -1\n")
    r = run("1 Q0 n 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    assert value(q, r, "AP", "rel=0", "negatives=pooled") == 0.5
    assert value(q, r, "AP", "rel=0", "negatives=nonrel") == 1.0
    assert value(q, r, "NumRel", "rel=0", "negatives=pooled") == 1
    assert value(q, r, "NumRel", "rel=0", "negatives=nonrel") == 2


# ------------------------------------------------------------------------------ rel
def test_rel():
    # a grade 1 at rank 1, b grade 2 at rank 2.
    # rel=1: R = 2, (1/1 + 2/2) / 2 = 1. rel=2: R = 1, b at rank 2 -> 1/2.
    q = qrels("1 0 a 1\n1 0 b 2\n")
    r = run("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    assert value(q, r, "AP", "rel=1") == 1.0
    assert value(q, r, "AP", "rel=2") == 0.5
    assert value(q, r, "AP(rel=2)") == 0.5
    assert variant(q, r, "AP(rel=2)") == variant(q, r, "AP", "rel=2")
    assert "|rel=2|" in variant(q, r, "AP(rel=2)")
    # P@1: a is relevant at rel=1 only
    assert value(q, r, "P@1", "rel=1") == 1.0
    assert value(q, r, "P@1", "rel=2") == 0.0


# ------------------------------------------------------------------------------ depth
def test_depth():
    # ranking a (non-relevant), b (relevant); R = 1.
    # depth=all: b at rank 2 -> AP 1/2; depth=1: only a is kept -> AP 0.
    q = qrels("1 0 a 0\n1 0 b 1\n")
    r = run("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n")
    assert value(q, r, "AP", "depth=all") == 0.5
    assert value(q, r, "AP", "depth=1") == 0.0
    assert value(q, r, "NumRet", "depth=all") == 2
    assert value(q, r, "NumRet", "depth=1") == 1


def test_depth_before_duplicate_check():
    # trec_eval checks duplicates after -M: a duplicate below the depth passes.
    q = qrels("1 0 a 1\n")
    r = run("1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 a 3 1.0 t\n")
    assert value(q, r, "AP", "depth=2", "dups=error") == 1.0
    with pytest.raises(ae.InputError):
        value(q, r, "AP", "depth=3", "dups=error")


# ------------------------------------------------------------------------------ dups
# Run: a (relevant) at 3.0 on line 1, b at 2.0, a again at 1.0 on line 3.
DUPS_Q = "1 0 a 1\n1 0 b 0\n"
DUPS_R = "1 Q0 a 1 3.0 t\n1 Q0 b 2 2.0 t\n1 Q0 a 3 1.0 t\n"


def test_dups_run():
    q, r = qrels(DUPS_Q), run(DUPS_R)
    # first: a keeps 3.0 -> a b -> RR 1
    assert value(q, r, "RR", "dups=first") == 1.0
    # last: a keeps 1.0 -> b a -> RR 1/2
    assert value(q, r, "RR", "dups=last") == 0.5
    with pytest.raises(ae.InputError) as err:
        value(q, r, "RR", "dups=error")
    assert str(err.value) == (
        "run:3: duplicate result for topic '1' doc 'a' (first at line 1); "
        "choose dups=first or dups=last to keep one"
    )
    res = ae.evaluate(q, r, ["RR"], profile=BASE, settings=["dups=last"])
    assert "run: 1 duplicate result line(s) dropped (dups=last)" in res.notes


def test_dups_qrels():
    # b judged 1 (line 2) then 0 (line 3); ranking b a.
    # first: b relevant, R = 2: (1/1 + 2/2)/2 = 1. last: b non-relevant, R = 1: a at 2 -> 1/2.
    q = qrels("1 0 a 1\n1 0 b 1\n1 0 b 0\n")
    r = run("1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    assert value(q, r, "AP", "dups=first") == 1.0
    assert value(q, r, "AP", "dups=last") == 0.5
    with pytest.raises(ae.InputError) as err:
        value(q, r, "AP", "dups=error")
    assert str(err.value) == (
        "qrels:3: duplicate judgment for topic '1' doc 'b' (first at line 2); "
        "choose dups=first or dups=last to keep one"
    )
    res = ae.evaluate(q, r, ["AP"], profile=BASE, settings=["dups=first"])
    assert "qrels: 1 duplicate judgment line(s) dropped (dups=first)" in res.notes


def test_dups_with_other_topics_and_self_hits():
    # duplicate handling must keep the right rows when rows before it were dropped
    # (self_hits=drop removes "1" from topic 1); topic 2 keeps both its docs.
    q = qrels("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r = run("1 Q0 1 1 9.0 t\n" + DUPS_R + "2 Q0 d 1 2.0 t\n2 Q0 c 2 1.0 t\n")
    # topic 1 (self hit dropped): first -> a b: RR 1; last -> b a: RR 1/2. topic 2: c at 2 -> 1/2.
    assert value(q, r, "RR", "dups=first", "self_hits=drop", topic="1") == 1.0
    assert value(q, r, "RR", "dups=last", "self_hits=drop", topic="1") == 0.5
    assert value(q, r, "RR", "dups=last", "self_hits=drop", topic="2") == 0.5


# ------------------------------------------------------------------------------ iprec
# Case 08: one topic, 10 docs, R = 3 relevant at ranks 2, 5, 8 (precision 1/2, 2/5, 3/8).
# Interpolated precision once c relevant docs are seen: c=0,1 -> .5, c=2 -> .4, c=3 -> .375.
IPREC_Q = "".join(f"1 0 d{i} {1 if i in (2, 5, 8) else 0}\n" for i in range(1, 11))
IPREC_R = "".join(f"1 Q0 d{i} {i} {11 - i} t\n" for i in range(1, 11))


@pytest.mark.parametrize(
    "iprec, at07, at04, avg11",
    [
        # c = ceil(r*R): 0.7*3 = 2.0999999999999996 -> 3 (.375); 0.4*3 = 1.2 -> 2 (.4)
        # levels c = 0 1 1 1 2 2 2 3 3 3 3 -> (4*.5 + 3*.4 + 4*.375) / 11 = 4.7 / 11
        ("ceil", 0.375, 0.4, 4.7 / 11),
        # c = (long)(r*R + 0.9): 0.7 -> (long)2.9999999999999996 = 2 (.4); 0.4 -> (long)2.1 = 2
        # levels c = 0 1 1 1 2 2 2 2 3 3 3 -> (4*.5 + 4*.4 + 3*.375) / 11 = 4.725 / 11
        ("trunc09", 0.4, 0.4, 4.725 / 11),
        # c = lround(r*R): 0.7 -> 2 (.4); 0.4 -> lround(1.2) = 1 (.5)
        # levels c = 0 0 1 1 1 2 2 2 2 3 3 -> (5*.5 + 4*.4 + 2*.375) / 11 = 4.85 / 11
        ("lround", 0.4, 0.5, 4.85 / 11),
    ],
)
def test_iprec(iprec, at07, at04, avg11):
    q, r = qrels(IPREC_Q), run(IPREC_R)
    assert value(q, r, "IPrec@0.7", f"iprec={iprec}") == pytest.approx(at07, abs=1e-15)
    assert value(q, r, "IPrec@0.4", f"iprec={iprec}") == pytest.approx(at04, abs=1e-15)
    assert value(q, r, "11pt", f"iprec={iprec}") == pytest.approx(avg11, abs=1e-12)


# ------------------------------------------------------------------------------ gm_floor
def test_gm_floor():
    # topic 1: AP 1/2; topic 2: relevant doc not retrieved -> AP 0.
    # gm_floor=1e-05: exp((ln .5 + ln 1e-5) / 2) = sqrt(5e-6)
    # gm_floor=0.01:  sqrt(.5 * .01) = sqrt(5e-3)
    q = qrels("1 0 a 1\n2 0 b 1\n")
    r = run("1 Q0 x 1 2.0 t\n1 Q0 a 2 1.0 t\n2 Q0 y 1 1.0 t\n")
    assert value(q, r, "GMAP", "gm_floor=1e-05") == pytest.approx(math.sqrt(5e-6), rel=1e-12)
    assert value(q, r, "GMAP", "gm_floor=0.01") == pytest.approx(math.sqrt(5e-3), rel=1e-12)
    # the floor never lifts a value above it: AP 1/2 with floor 0.01 stays 1/2
    assert value(q, r, "GMAP", "gm_floor=0.01", topic="1") == 0.5
    assert "gm_floor=0.01|" in variant(q, r, "GMAP", "gm_floor=0.01")


# ------------------------------------------------------------------------------ gain
def test_gain():
    # a grade 2, b grade 1; ranking b a.
    # linear: DCG = 1/log2(2) + 2/log2(3); ideal = 2 + 1/log2(3)
    # exp2:   gains 3 and 1: DCG = 1 + 3/log2(3); ideal = 3 + 1/log2(3)
    q = qrels("1 0 a 2\n1 0 b 1\n")
    r = run("1 Q0 b 1 2.0 t\n1 Q0 a 2 1.0 t\n")
    l3 = math.log2(3)
    assert value(q, r, "nDCG", "gain=linear") == pytest.approx((1 + 2 / l3) / (2 + 1 / l3), abs=1e-15)
    assert value(q, r, "nDCG", "gain=exp2") == pytest.approx((1 + 3 / l3) / (3 + 1 / l3), abs=1e-15)
    # an explicit gains map replaces the axis (and drops it from the variant)
    assert value(q, r, "nDCG(gains={0:0,1:1,2:3})", "gain=linear") == pytest.approx(
        (1 + 3 / l3) / (3 + 1 / l3), abs=1e-15
    )
    assert "gain=" not in variant(q, r, "nDCG(gains={0:0,1:1,2:3})")


def test_ndcg_case10():
    # conventions.md case 10: qrels a3 b2 c1 d0 e1 f2; ranking d c a x b.
    q = qrels("1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 e 1\n1 0 f 2\n")
    r = run("1 Q0 d 1 5 t\n1 Q0 c 2 4 t\n1 Q0 a 3 3 t\n1 Q0 x 4 2 t\n1 Q0 b 5 1 t\n")
    dcg = 1 / math.log2(3) + 3 / math.log2(4) + 2 / math.log2(6)
    ideal = [3, 2, 2, 1, 1]
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    assert value(q, r, "nDCG") == pytest.approx(dcg / idcg, abs=1e-15)  # 0.4778
    assert round(value(q, r, "nDCG"), 4) == 0.4778
    idcg3 = sum(g / math.log2(i + 2) for i, g in enumerate(ideal[:3]))
    assert value(q, r, "nDCG@3") == pytest.approx((1 / math.log2(3) + 3 / 2) / idcg3, abs=1e-15)  # 0.4050
    assert round(value(q, r, "nDCG@3"), 4) == 0.4050
    assert round(value(q, r, "nDCG", "gain=exp2"), 4) == 0.4720
    assert round(value(q, r, "nDCG@3", "gain=exp2"), 4) == 0.3975


# ------------------------------------------------------------------------------ recall_denom
def test_recall_denom():
    # R = 3; ranking a (rel), x; R@2 has 1 relevant in the top 2.
    # R: 1/3; min-R-k: 1/min(3, 2) = 1/2.
    q = qrels("1 0 a 1\n1 0 b 1\n1 0 c 1\n")
    r = run("1 Q0 a 1 2.0 t\n1 Q0 x 2 1.0 t\n")
    assert value(q, r, "R@2", "recall_denom=R") == pytest.approx(1 / 3, abs=1e-15)
    assert value(q, r, "R@2", "recall_denom=min-R-k") == 0.5
    # k >= R: same denominator either way
    assert value(q, r, "R@5", "recall_denom=R") == value(q, r, "R@5", "recall_denom=min-R-k")


# ------------------------------------------------------------------------------ ap_denom
# Case 11: R = 5, relevant retrieved at ranks 1, 3, 6 of 6.
AP_Q = "".join(f"1 0 r{i} 1\n" for i in range(1, 6))
AP_R = "".join(
    f"1 Q0 {d} {i} {10 - i} t\n" for i, d in enumerate(["r1", "n1", "r2", "n2", "n3", "r3"], start=1)
)


@pytest.mark.parametrize(
    "ap_denom, at3, full",
    [
        # (1/1 + 2/3) / R=5 = 0.3333; full (1 + 2/3 + 3/6) / 5 = 0.4333
        ("R", (1 + 2 / 3) / 5, (1 + 2 / 3 + 1 / 2) / 5),
        # / min(R, k) = 3: 0.5556; no cut-off -> R
        ("min-R-k", (1 + 2 / 3) / 3, (1 + 2 / 3 + 1 / 2) / 5),
        # / relevant retrieved (within the cut-off): 2 -> 0.8333; full 3 -> 0.7222
        ("rel-ret", (1 + 2 / 3) / 2, (1 + 2 / 3 + 1 / 2) / 3),
    ],
)
def test_ap_denom(ap_denom, at3, full):
    q, r = qrels(AP_Q), run(AP_R)
    assert value(q, r, "AP@3", f"ap_denom={ap_denom}") == pytest.approx(at3, abs=1e-15)
    assert value(q, r, "AP", f"ap_denom={ap_denom}") == pytest.approx(full, abs=1e-15)


# ------------------------------------------------------------------------------ RBP
# Case 13, topic 1: a(2) u(unjudged) b(1) c(0) v(unjudged).
RBP_Q = "1 0 a 2\n1 0 b 1\n1 0 c 0\n"
RBP_R = "1 Q0 a 1 5 t\n1 Q0 u 2 4 t\n1 Q0 b 3 3 t\n1 Q0 c 4 2 t\n1 Q0 v 5 1 t\n"


@pytest.mark.parametrize(
    "rbp_gain, expected",
    [
        # grades rescaled to [0,1] by the topic max 2: a=1, b=.5: .1 * (1 + .5 * .9^2) = 0.1405
        ("minmax", 0.1 * (1 + 0.5 * 0.81)),
        # raw grades: .1 * (2 + 1 * .9^2) = 0.2810
        ("raw", 0.1 * (2 + 0.81)),
        # binary at rel=1: .1 * (1 + .9^2) = 0.1810
        ("binary", 0.1 * (1 + 0.81)),
    ],
)
def test_rbp_gain(rbp_gain, expected):
    assert value(qrels(RBP_Q), run(RBP_R), "RBP", f"rbp_gain={rbp_gain}", "rbp_p=0.9") == pytest.approx(
        expected, abs=1e-12
    )


def test_rbp_p():
    # minmax gains a=1, b=.5. p=.9: .1 * (1 + .5 * .81) = 0.1405; p=.8: .2 * (1 + .5 * .64) = 0.2640
    q, r = qrels(RBP_Q), run(RBP_R)
    assert value(q, r, "RBP", "rbp_gain=minmax", "rbp_p=0.9") == pytest.approx(0.1405, abs=1e-12)
    assert value(q, r, "RBP", "rbp_gain=minmax", "rbp_p=0.8") == pytest.approx(0.2640, abs=1e-12)
    # RBP(p=0.8) is the same axis written as a parameter
    assert value(q, r, "RBP(p=0.8)", "rbp_gain=minmax") == pytest.approx(0.2640, abs=1e-12)
    assert "rbp_p=0.8" in variant(q, r, "RBP(p=0.8)")


# ------------------------------------------------------------------------------ judged_denom
# Case 04: ranking u1 a u2 b c (u1, u2 unjudged); 5 retrieved.
JUDGED_Q = "1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 1\n1 0 e 0\n"
JUDGED_R = "1 Q0 u1 1 10 r\n1 Q0 a 2 9 r\n1 Q0 u2 3 8 r\n1 Q0 b 4 7 r\n1 Q0 c 5 6 r\n"


def test_judged_denom_judged():
    # 3 judged in the top 10. k: 3/10; min-k-ret: 3/min(10, 5) = 3/5. At k=5 both 3/5.
    q, r = qrels(JUDGED_Q), run(JUDGED_R)
    assert value(q, r, "Judged@10", "judged_denom=k") == pytest.approx(0.3, abs=1e-15)
    assert value(q, r, "Judged@10", "judged_denom=min-k-ret") == pytest.approx(0.6, abs=1e-15)
    assert value(q, r, "Judged@5", "judged_denom=k") == pytest.approx(0.6, abs=1e-15)


def test_judged_denom_unj():
    # 2 unjudged in the top 10 (trec_eval 10 unj_10 = 0.2000). k: 2/10; min-k-ret: 2/5.
    q, r = qrels(JUDGED_Q), run(JUDGED_R)
    assert value(q, r, "Unj@10", "judged_denom=k") == pytest.approx(0.2, abs=1e-15)
    assert value(q, r, "Unj@10", "judged_denom=min-k-ret") == pytest.approx(0.4, abs=1e-15)
    assert value(q, r, "unj_5", "judged_denom=k") == pytest.approx(0.4, abs=1e-15)


# ------------------------------------------------------------------------------ self_hits
def test_self_hits():
    # topic q1: ranking q1 (doc id = topic id, judged non-relevant), a (relevant).
    # keep: a at rank 2 -> RR 1/2; drop: q1 removed -> RR 1.
    q = qrels("q1 0 a 1\nq1 0 q1 0\n")
    r = run("q1 Q0 q1 1 2.0 t\nq1 Q0 a 2 1.0 t\n")
    assert value(q, r, "RR", "self_hits=keep") == 0.5
    assert value(q, r, "RR", "self_hits=drop") == 1.0
    res = ae.evaluate(q, r, ["RR"], profile=BASE, settings=["self_hits=drop"])
    assert "run: 1 row(s) whose doc id equals the topic id dropped (self_hits=drop)" in res.notes


# ------------------------------------------------------------------------------ core formulas
def test_core_case12():
    # conventions-detail.md §12. T1: R=4, ranking N1 R1 U1. T2: only relevant doc at rank 12.
    # T3: R=2, both retrieved at ranks 1, 2... (see below). T4: R1 1, N1 0, P1 -1, P2 -1;
    # ranking P1 R1 N1 P2.
    q = qrels(
        "T1 0 R1 1\nT1 0 R2 1\nT1 0 R3 1\nT1 0 R4 1\nT1 0 N1 0\n"
        "T2 0 D12 1\n"
        "T3 0 A 1\nT3 0 B 1\n"
        "T4 0 R1 1\nT4 0 N1 0\nT4 0 P1 -1\nT4 0 P2 -1\n"
    )
    r = run(
        "T1 Q0 N1 1 3 t\nT1 Q0 R1 2 2 t\nT1 Q0 U1 3 1 t\n"
        + "".join(f"T2 Q0 D{i} {i} {100 - i} t\n" for i in range(1, 13))
        + "T3 Q0 A 1 2 t\nT3 Q0 X 2 1.5 t\nT3 Q0 B 3 1 t\n"
        + "T4 Q0 P1 1 4 t\nT4 Q0 R1 2 3 t\nT4 Q0 N1 3 2 t\nT4 Q0 P2 4 1 t\n"
    )
    per = lambda m, t: value(q, r, m, topic=t)  # noqa: E731
    # P@10: hits / 10 even with fewer retrieved
    assert [per("P@10", t) for t in ("T1", "T2", "T3", "T4")] == [0.1, 0.0, 0.2, 0.1]
    # R@10: 1/4, 0/1, 2/2, 1/1
    assert [per("R@10", t) for t in ("T1", "T2", "T3", "T4")] == [0.25, 0.0, 1.0, 1.0]
    # Rprec: relevant in the top R / R: T1 top 4 holds R1 -> 1/4; T2 top 1 -> 0; T3 top 2 -> A -> 1/2; T4 top 1 P1 -> 0
    assert [per("Rprec", t) for t in ("T1", "T2", "T3", "T4")] == [0.25, 0.0, 0.5, 0.0]
    # RR: 1/2, 1/12, 1, 1/2; RR@10: T2 -> 0
    assert [per("RR", t) for t in ("T1", "T2", "T3", "T4")] == pytest.approx([0.5, 1 / 12, 1.0, 0.5], abs=1e-15)
    assert per("RR@10", "T2") == 0.0
    # Success@1 / @10
    assert [per("Success@1", t) for t in ("T1", "T2", "T3", "T4")] == [0.0, 0.0, 1.0, 0.0]
    assert [per("Success@10", t) for t in ("T1", "T2", "T3", "T4")] == [1.0, 0.0, 1.0, 1.0]
    # AP T3: (1/1 + 2/3) / 2
    assert per("AP", "T3") == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    # counts summed over topics: NumRet 3+12+3+4, NumRel 4+1+2+1, NumRelRet 1+1+2+1
    assert value(q, r, "NumRet") == 22
    assert value(q, r, "NumRel") == 8
    assert value(q, r, "NumRelRet") == 5


def test_custom_gains_case10():
    # case 10 with gains maps. gains={0:-1}: d (grade 0) at rank 1 gains -1:
    # DCG = -1 + 1/log2(3) + 3/2 + 2/log2(6); ideal (positive gains only) 3 2 2 1 1.
    q = qrels("1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 e 1\n1 0 f 2\n")
    r = run("1 Q0 d 1 5 t\n1 Q0 c 2 4 t\n1 Q0 a 3 3 t\n1 Q0 x 4 2 t\n1 Q0 b 5 1 t\n")
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate([3, 2, 2, 1, 1]))
    dcg = -1 + 1 / math.log2(3) + 3 / 2 + 2 / math.log2(6)
    assert value(q, r, "nDCG(gains={0:-1})") == pytest.approx(dcg / idcg, abs=1e-15)  # trec_eval 0.3133
    assert round(value(q, r, "nDCG(gains={0:-1})"), 4) == 0.3133
    # a negative level never matches a document outside the qrels (x) or a pooled-unjudged one
    assert value(q, r, "nDCG(gains={-1:5})") == value(q, r, "nDCG")
    q_neg = qrels("1 0 a 1\n1 0 n -1\n")
    r_neg = run("1 Q0 n 1 2 t\n1 Q0 a 2 1 t\n")
    # n (grade -1, pooled) gains 0: DCG = 1/log2(3), ideal 1
    assert value(q_neg, r_neg, "nDCG(gains={-1:5})") == pytest.approx(1 / math.log2(3), abs=1e-15)


# ------------------------------------------------------------------------------ ideal_sort
def test_ideal_sort():
    # case 10 with fractional gains 1->.5, 2->.8, 3->.9: a .9, b .8, c .5, d 0, e .5, f .8;
    # ranking d c a x b: DCG = .5/log2(3) + .9/log2(4) + .8/log2(6).
    # exact ideal .9 .8 .8 .5 .5 -> 0.4856. trec-int: trec_eval's (int)(g1 - g2) comparator
    # sees every level as equal, the ideal walk starts at level 0 (gain 0): ideal DCG 0 -> 0.
    q = qrels("1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 e 1\n1 0 f 2\n")
    r = run("1 Q0 d 1 5 t\n1 Q0 c 2 4 t\n1 Q0 a 3 3 t\n1 Q0 x 4 2 t\n1 Q0 b 5 1 t\n")
    dcg = 0.5 / math.log2(3) + 0.9 / 2 + 0.8 / math.log2(6)
    idcg = 0.9 + 0.8 / math.log2(3) + 0.8 / 2 + 0.5 / math.log2(5) + 0.5 / math.log2(6)
    m = "nDCG(gains={1:0.5,2:0.8,3:0.9})"
    assert value(q, r, m, "ideal_sort=exact") == pytest.approx(dcg / idcg, abs=1e-15)
    assert round(value(q, r, m, "ideal_sort=exact"), 4) == 0.4856
    assert value(q, r, m, "ideal_sort=trec-int") == 0.0
    # integer gains are ordered the same either way: 0.4778 (see test_ndcg_case10)
    assert value(q, r, "nDCG", "ideal_sort=trec-int") == value(q, r, "nDCG", "ideal_sort=exact")


# ------------------------------------------------------------------------------ rbp_resid
def test_rbp_resid():
    # p = .9. Topic 1 (case 13 T1): a u b c v, u and v unjudged, n = 5:
    #   .9^5 + .1 * (.9^1 + .9^4) = .59049 + .15561 = 0.7461 under both values.
    # Topic 3: a(1) b(0) c(1) fully judged: always -> .9^3 = 0.729; if-unjudged -> 0 (trec_eval 10).
    q = qrels(RBP_Q + "3 0 a 1\n3 0 b 0\n3 0 c 1\n")
    r = run(RBP_R + "3 Q0 a 1 3 t\n3 Q0 b 2 2 t\n3 Q0 c 3 1 t\n")
    for setting in ("always", "if-unjudged"):
        assert value(q, r, "RBPResid", f"rbp_resid={setting}", "rbp_p=0.9", topic="1") == pytest.approx(0.7461, abs=1e-12)
    assert value(q, r, "RBPResid", "rbp_resid=always", "rbp_p=0.9", topic="3") == pytest.approx(0.729, abs=1e-12)
    assert value(q, r, "RBPResid", "rbp_resid=if-unjudged", "rbp_p=0.9", topic="3") == 0.0
    assert value(q, r, "rbp_resid", "rbp_resid=always", "rbp_p=0.9") == pytest.approx((0.7461 + 0.729) / 2, abs=1e-12)


def test_topics_qrels_matches_trec_eval_c(trec_eval_bins):
    # case 03: qrels topics 1 (a rel), 2 (c rel), 3 (d, e non-rel); run topics 1, 3, 5, 6.
    # trec_eval -c: topic 1 AP 1, topic 2 (absent) 0, topic 3 (no relevant doc) 0:
    #   map = 1/3, gm_map = exp((ln 1 + 2 ln 1e-5) / 3) = 1e-5^(2/3), num_rel 1+1+0, num_ret 2+0+2.
    case = CASES / "03_topic_coverage"
    q, r = ae.read_qrels(case / "qrels"), ae.read_run(case / "run")
    res = ae.evaluate(q, r, ["map", "gm_map", "num_rel", "num_ret", "num_q"], profile=BASE, settings=["topics=qrels"])
    assert res.get("map").value == pytest.approx(1 / 3, abs=1e-15)
    assert res.get("gm_map").value == pytest.approx(1e-5 ** (2 / 3), rel=1e-12)
    assert [res.get(m).value for m in ("num_rel", "num_ret", "num_q")] == [2, 4, 3]
    assert res.get("num_rel", topic="2").value == 1  # trec_eval 10 -c -q prints it
    # trec_eval's printed summary (4 decimals) agrees
    out = subprocess.run([trec_eval_bins["9.0.8-double"], "-q", "-c", "-m", "all_trec", "qrels", "run"], cwd=case,
                         capture_output=True, text=True, check=True).stdout.splitlines()
    summary = {line.split()[0]: line.split()[2] for line in out if line.split()[1] == "all"}
    assert summary["map"] == f"{res.get('map').value:.4f}"
    assert summary["gm_map"] == f"{res.get('gm_map').value:.4f}"
    # topics=both (trec_eval 9 without -c): topics 1 and 3 -> map 1/2
    assert value(q, r, "map", "topics=both") == 0.5


def test_ties_docno_asc_numeric_exact():
    # numeric ids compare as integers of any length (a float64 key would tie 99999999999999999
    # and 100000000000000000); equal numbers ("0"/"00", "7"/"007") fall back to bytes ascending;
    # non-numeric ids come last. Order: 0 00 007 7 99999999999999999 100000000000000000 x
    q = {"1": {"100000000000000000": 1}}
    r = {"1": {d: 1.0 for d in ["x", "100000000000000000", "7", "99999999999999999", "007", "00", "0"]}}
    assert value(q, r, "RR", "ties=docno-asc-numeric") == pytest.approx(1 / 6, abs=1e-15)
    assert value({"1": {"0": 1}}, r, "RR", "ties=docno-asc-numeric") == 1.0
    assert value({"1": {"007": 1}}, r, "RR", "ties=docno-asc-numeric") == pytest.approx(1 / 3, abs=1e-15)
    # bytes ascending instead: 0 00 007 100000000000000000 7 99999999999999999 x
    assert value(q, r, "RR", "ties=docno-asc") == 0.25


# ------------------------------------------------------------------------------ reference model
# A plain-Python statement of the ranking conventions (prepare.py's order of operations) and
# of the core measures, checked against the vectorized engine on random inputs and random
# conventions. Docs/topic ids and scores are drawn from small pools so that ties, float32
# collisions, numeric ids, self hits and duplicates are frequent.
_TOPICS = ["1", "10", "2", "q"]
_DOCS = ["1", "7", "007", "10", "9", "a", "b", "B", "q", "x", "é"]
_SCORES = [0.3, 0.30000001, 1.0, 2.0, 1e8, 100000001.0, -1.0, 0.0, 5.5]
_MEASURES = [
    "P@1", "P@3", "R@2", "R", "AP", "AP@2", "RR", "RR@2", "nDCG", "nDCG@3", "Rprec",
    "Success@2", "NumRet", "NumRel", "NumRelRet",
]


@st.composite
def reference_cases(draw):
    dups = draw(st.sampled_from(["error", "first", "last"]))
    conv = {
        "ties": draw(st.sampled_from(["docno-desc", "docno-asc", "docno-asc-numeric", "rank", "file-order"])),
        "sim": draw(st.sampled_from(["float32", "float64"])),
        "topics": draw(st.sampled_from(["both", "qrels", "run"])),
        "unjudged": draw(st.sampled_from(["nonrel", "drop"])),
        "negatives": draw(st.sampled_from(["pooled", "nonrel"])),
        "rel": draw(st.integers(0, 2)),
        "depth": draw(st.sampled_from(["all", 1, 2, 4])),
        "dups": dups,
        "gain": draw(st.sampled_from(["linear", "exp2"])),
        "recall_denom": draw(st.sampled_from(["R", "min-R-k"])),
        "ap_denom": draw(st.sampled_from(["R", "min-R-k", "rel-ret"])),
        "self_hits": draw(st.sampled_from(["keep", "drop"])),
    }
    pairs = st.tuples(st.sampled_from(_TOPICS), st.sampled_from(_DOCS))
    unique = dups == "error"
    qpairs = draw(st.lists(pairs, min_size=1, max_size=14, unique=unique))
    qrels = [(t, d, draw(st.integers(-1, 3)), i + 1) for i, (t, d) in enumerate(qpairs)]
    rpairs = draw(st.lists(pairs, min_size=1, max_size=18, unique=unique))
    run = [(t, d, draw(st.sampled_from(_SCORES)), draw(st.integers(1, 5)), i + 1) for i, (t, d) in enumerate(rpairs)]
    return conv, qrels, run


#: random cases of the reference-model test; ``AUDITEVAL_AXES_CASES=N`` draws N instead
AXES_CASES = int(os.environ.get("AUDITEVAL_AXES_CASES", "150"))


@pytest.mark.slow
@settings(max_examples=AXES_CASES, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(reference_cases())
def test_engine_matches_reference_model(case):
    """The engine against the plain model of this file on random inputs and conventions. The
    default 150 cases (400 before; ``AUDITEVAL_AXES_CASES=2000`` for a wide run) draw each of
    the 12 axes' values (at most 5 per axis, drawn about uniformly) some 30 times or more: the
    chance that one of the 33 values is never drawn is below 33 * 0.8^150, about 1e-13; the inputs' shapes (ties,
    duplicates, grades -1..3, missing topics) are drawn afresh for every case."""
    conv, qrels, run = case
    q = Qrels(qrels_table(*zip(*[(t, d, g) for t, d, g, _ in qrels], strict=True), line=[r[3] for r in qrels]), source="q")
    r = Run(run_table(*zip(*[(t, d, s) for t, d, s, _, _ in run], strict=True), rank=[x[3] for x in run], line=[x[4] for x in run]), source="r")
    settings_ = [f"{k}={v}" for k, v in conv.items()]
    expected = _ranked(conv, qrels, run)
    res = ae.evaluate(q, r, _MEASURES, profile="textbook", settings=settings_)
    for m in _MEASURES:
        got = {v.topic: v.value for v in res.values if v.measure == m and v.topic != "all"}
        assert list(got) == list(expected), (m, conv)
        for topic, (grades, qgrades) in expected.items():
            want = _reference_value(m, conv, grades, qgrades)
            assert got[topic] == pytest.approx(want, abs=1e-12), (m, topic, conv, grades, qgrades)


def test_prepared_run_row_points_at_the_ranked_lines():
    """Prepared.run_row: each ranked row's index in run.table, after sort, depth and -J."""
    import auditeval as ae
    from auditeval.engine.staged_run import prepare
    from auditeval.vocab.conventions import resolve

    q = ae.qrels_from({"q1": {"a": 1, "b": 0}, "q2": {"x": 1}})
    r = ae.run_from({"q1": {"a": 1.0, "b": 2.0, "c": 2.0, "u": 3.0}, "q2": {"x": 1.0}, "q9": {"z": 1.0}})
    docs = r.table.column("doc").to_pylist()
    p = prepare(q, r, resolve("trec_eval-9.0.8"))
    # q1 by score desc, ties docno desc: u(3) c(2) b(2) a(1); q2: x; q9 not in qrels
    assert [docs[i] for i in p.run_row] == ["u", "c", "b", "a", "x"]
    p = prepare(q, r, resolve("trec_eval-9.0.8", ["unjudged=drop", "depth=3"]))
    assert [docs[i] for i in p.run_row] == ["b", "x"]  # top 3 = u c b; u, c unjudged dropped
