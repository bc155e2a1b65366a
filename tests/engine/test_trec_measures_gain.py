"""trec_gain measures: binG, G, nDCGRel, RnDCG, RBP, RBPResid, Unj@k, Judged@k.

1. Hand-checkable cases (conventions-detail.md §4, §5, §10, §13), every axis value of
   ``ideal_sort``, ``rbp_gain``, ``rbp_resid``, ``judged_denom`` and ``negatives`` asserted
   with both numbers.
2. A line-by-line Python transliteration of trec_eval's C loops (m_binG.c, m_G.c,
   m_ndcg_rel.c, m_Rndcg.c, m_rbp.c, m_rbp_resid.c, m_unjudged.c, gain_init.c setup_gains
   with glibc's merge sort) run per topic on random inputs, custom gains included, under
   both ``ideal_sort`` values.
3. robust03: per-topic equality with pytrec_eval (1e-12) and the printed ``%.4f`` of
   trec_eval 9.0.8 and 10.0 (plain, -J, -M100, -l2).
"""

from __future__ import annotations

import gzip
import math

import numpy as np
import pytest
from paths import TIER_COMPLETE, TIER_FLAGGED, TIERS

import auditeval as ae
from auditeval.engine.staged_run import evaluate_prepared, prepare
from auditeval.io import parse_qrels, parse_run, read_qrels, read_run
from auditeval.vocab.conventions import load_profile
from auditeval.vocab.variant import fold, parse_measure

TE10 = "trec_eval-10.0"
TE9 = "trec_eval-9.0.8"


def qrels(text: str):
    return parse_qrels(text.encode(), "qrels")


def run(text: str):
    return parse_run(text.encode(), "run")


def per_topic(q, r, measure: str, *settings: str, profile: str = TE10) -> dict[str, float]:
    res = ae.evaluate(q, r, [measure], profile=profile, settings=["topics=both", *settings])
    return {v.topic: v.value for v in res.values}


def variant(q, r, measure: str, *settings: str, profile: str = TE10) -> str:
    res = ae.evaluate(q, r, [measure], profile=profile, settings=["topics=both", *settings])
    return str(res.values[0].variant)


# ------------------------------------------------------------------------------ §13 RBP
# T1: a(2) u(unjudged) b(1) c(0) v(unjudged); T2: a(1) and b(0) tied (docno desc: b, a);
# T3: a(1) b(0) c(1), fully judged.
RBP_Q = "1 0 a 2\n1 0 b 1\n1 0 c 0\n2 0 a 1\n2 0 b 0\n3 0 a 1\n3 0 b 0\n3 0 c 1\n"
RBP_R = (
    "1 Q0 a 1 5 r\n1 Q0 u 2 4 r\n1 Q0 b 3 3 r\n1 Q0 c 4 2 r\n1 Q0 v 5 1 r\n"
    "2 Q0 a 1 1 r\n2 Q0 b 2 1 r\n"
    "3 Q0 a 1 3 r\n3 Q0 b 2 2 r\n3 Q0 c 3 1 r\n"
)


@pytest.mark.parametrize(
    "rbp_gain, expected",
    [
        # grades / max grade 2 in T1 (a=1, b=.5): .1*(1 + .5*.81) = 0.1405; T2 b, a: .1*.9; T3 .1*(1 + .81)
        ("minmax", {"1": 0.1405, "2": 0.0900, "3": 0.1810}),
        # raw grades: T1 .1*(2 + .81) = 0.2810
        ("raw", {"1": 0.2810, "2": 0.0900, "3": 0.1810}),
        # grade >= rel=1: T1 .1*(1 + .81) = 0.1810
        ("binary", {"1": 0.1810, "2": 0.0900, "3": 0.1810}),
    ],
)
def test_rbp_gain(rbp_gain, expected):
    got = per_topic(qrels(RBP_Q), run(RBP_R), "RBP", f"rbp_gain={rbp_gain}")
    for t, want in expected.items():
        assert got[t] == pytest.approx(want, abs=1e-12)
    assert f"rbp_gain={rbp_gain}" in variant(qrels(RBP_Q), run(RBP_R), "RBP", f"rbp_gain={rbp_gain}")


def test_rbp_p_and_trec_eval_10_table():
    q, r = qrels(RBP_Q), run(RBP_R)
    got = per_topic(q, r, "rbp")  # trec_eval 10 profile: minmax, p=0.9
    assert [round(got[t], 4) for t in ("1", "2", "3", "all")] == [0.1405, 0.0900, 0.1810, 0.1372]
    # rbp.p=0.8: .2*(1 + .5*.64) = 0.2640, .2*.8 = 0.1600, .2*(1 + .64) = 0.3280
    got = per_topic(q, r, "RBP(p=0.8)")
    assert [round(got[t], 4) for t in ("1", "2", "3", "all")] == [0.2640, 0.1600, 0.3280, 0.2507]
    assert per_topic(q, r, "RBP", "rbp_p=0.8") == got
    assert "rbp_p=0.8" in variant(q, r, "RBP(p=0.8)")


def test_rbp_ignores_ndcg_gain_axis():
    q, r = qrels(RBP_Q), run(RBP_R)
    assert per_topic(q, r, "RBP", "gain=exp2") == per_topic(q, r, "RBP", "gain=linear")
    assert "gain=" not in variant(q, r, "RBP").replace("rbp_gain=", "")


def test_rbp_custom_gains():
    # trec_eval 10 -m rbp.2=4: T1 levels 0, 1, 2 -> gains 0, 1, 4, rescaled by 4: a=1, b=.25
    q, r = qrels(RBP_Q), run(RBP_R)
    got = per_topic(q, r, "RBP(gains={2:4})")
    assert got["1"] == pytest.approx(0.1 * (1 + 0.25 * 0.81), abs=1e-15)
    assert per_topic(q, r, "RBP(gains={2:4})", "rbp_gain=raw")["1"] == pytest.approx(0.1 * (4 + 0.81), abs=1e-15)
    with pytest.raises(ae.EvaluationError, match="rbp_gain"):
        per_topic(q, r, "RBP(gains={2:4})", "rbp_gain=binary")


def test_rbp_binary_reads_rel():
    # rel=2: only T1's a counts: .1*1; T3 has no grade 2: 0
    got = per_topic(qrels(RBP_Q), run(RBP_R), "RBP", "rbp_gain=binary", "rel=2")
    assert got["1"] == pytest.approx(0.1, abs=1e-15) and got["3"] == 0.0


@pytest.mark.parametrize(
    "rbp_resid, expected",
    [
        # p^n + (1-p) * sum over unjudged ranks p^(i-1); T1: .9^5 + .1*(.9 + .9^4) = 0.7461;
        # T2, T3 hold no unjudged document: trec_eval 10 stores nothing (0)
        ("if-unjudged", {"1": 0.59049 + 0.1 * (0.9 + 0.6561), "2": 0.0, "3": 0.0}),
        # Moffat & Zobel: T2 .9^2 = 0.81, T3 .9^3 = 0.729
        ("always", {"1": 0.59049 + 0.1 * (0.9 + 0.6561), "2": 0.81, "3": 0.729}),
    ],
)
def test_rbp_resid(rbp_resid, expected):
    q, r = qrels(RBP_Q), run(RBP_R)
    got = per_topic(q, r, "RBPResid", f"rbp_resid={rbp_resid}")
    for t, want in expected.items():
        assert got[t] == pytest.approx(want, abs=1e-12)
    assert round(got["1"], 4) == 0.7461
    assert f"rbp_resid={rbp_resid}" in variant(q, r, "rbp_resid", f"rbp_resid={rbp_resid}")


def test_rbp_resid_judged_only():
    # -J removes u, v: no unjudged left -> 0 under trec_eval 10, p^3 = 0.729 when always
    q, r = qrels(RBP_Q), run(RBP_R)
    assert per_topic(q, r, "rbp_resid", "unjudged=drop")["1"] == 0.0
    assert per_topic(q, r, "rbp_resid", "unjudged=drop", "rbp_resid=always")["1"] == pytest.approx(0.729, abs=1e-15)


def test_gain_measures_case13():
    # trec_eval 10.0 -q -m all_trec on case 13 (te9 prints the same for these four)
    q, r = qrels(RBP_Q), run(RBP_R)
    want = {
        "binG": [0.8155, 0.6309, 0.8155],
        "G": [0.8770, 0.6309, 0.8155],
        "ndcg_rel": [0.9751, 0.6309, 0.9599],
        "Rndcg": [0.9035, 0.0000, 0.6131],
    }
    for name, vals in want.items():
        for prof in (TE9, TE10):
            got = per_topic(q, r, name, profile=prof)
            assert [round(got[t], 4) for t in ("1", "2", "3")] == vals, (name, prof)
    # binG T1 by hand: a at rank 1 (0 non-relevant before): 1/log2(2); b at rank 3 (u before): 1/log2(3); R = 2
    assert per_topic(q, r, "binG")["1"] == pytest.approx((1 + 1 / math.log2(3)) / 2, abs=1e-15)


# ------------------------------------------------------------------------------ §10 nDCG and ideal_sort
# qrels a3 b2 c1 d0 e1 f2; ranking d c a x(unjudged) b
NDCG_Q = "1 0 a 3\n1 0 b 2\n1 0 c 1\n1 0 d 0\n1 0 e 1\n1 0 f 2\n"
NDCG_R = "1 Q0 d 1 5 r\n1 Q0 c 2 4 r\n1 Q0 a 3 3 r\n1 Q0 x 4 2 r\n1 Q0 b 5 1 r\n"
FRAC = "{1:0.5,2:0.8,3:0.9}"


def _dcg(gains):
    return sum(g / math.log2(i + 2) for i, g in enumerate(gains))


def test_ndcg_linear_vs_exp():
    q, r = qrels(NDCG_Q), run(NDCG_R)
    lin = per_topic(q, r, "nDCG", "gain=linear")["1"]
    exp = per_topic(q, r, "nDCG", "gain=exp2")["1"]
    assert lin == pytest.approx(_dcg([0, 1, 3, 0, 2]) / _dcg([3, 2, 2, 1, 1]), abs=1e-15)
    assert exp == pytest.approx(_dcg([0, 1, 7, 0, 3]) / _dcg([7, 3, 3, 1, 1]), abs=1e-15)
    assert (round(lin, 4), round(exp, 4)) == (0.4778, 0.4720)
    # the exp gains as a map: trec_eval -m ndcg.1=1,2=3,3=7
    assert round(per_topic(q, r, "nDCG(gains={1:1,2:3,3:7})")["1"], 4) == 0.4720


def test_ideal_sort_ndcg():
    q, r = qrels(NDCG_Q), run(NDCG_R)
    # exact: ideal .9 .8 .8 .5 .5 -> 0.4856
    exact = per_topic(q, r, f"nDCG(gains={FRAC})", "ideal_sort=exact")["1"]
    assert exact == pytest.approx(_dcg([0, 0.5, 0.9, 0, 0.8]) / _dcg([0.9, 0.8, 0.8, 0.5, 0.5]), abs=1e-15)
    assert round(exact, 4) == 0.4856
    # trec-int: (int)(gain difference) is 0 for every pair, the list [1, 2, 3, 0] stays as
    # is, level 0 (gain 0) ends on top: the ideal ranking is empty -> 0
    assert per_topic(q, r, f"nDCG(gains={FRAC})", "ideal_sort=trec-int")["1"] == 0.0
    assert "ideal_sort=trec-int" in variant(q, r, f"nDCG(gains={FRAC})")
    # integer gains: both sorts agree and the axis is not part of the variant
    assert "ideal_sort" not in variant(q, r, "nDCG")
    assert "ideal_sort" not in variant(q, r, "RBP")
    for s in ("exact", "trec-int"):
        assert round(per_topic(q, r, "nDCG(gains={1:1,2:3,3:7})", f"ideal_sort={s}")["1"], 4) == 0.4720


def test_ideal_sort_gain_family():
    q, r = qrels(NDCG_Q), run(NDCG_R)
    # trec_eval 10 -m ndcg_rel.1=0.5,2=0.8,3=0.9 -> 0.0000, Rndcg -> -nan, G -> 0
    assert per_topic(q, r, f"nDCGRel(gains={FRAC})", "ideal_sort=trec-int")["1"] == 0.0
    assert math.isnan(per_topic(q, r, f"RnDCG(gains={FRAC})", "ideal_sort=trec-int")["1"])
    assert per_topic(q, r, f"G(gains={FRAC})", "ideal_sort=trec-int")["1"] == 0.0
    # exact: nDCGRel = mean over the 5 positive ideal docs; relevant retrieved at ranks 2, 3, 5
    ideal = [0.9, 0.8, 0.8, 0.5, 0.5]
    res = [0, 0.5, 0.9, 0, 0.8]
    ndcg_at = [_dcg(res[: i + 1]) / _dcg(ideal[: i + 1]) for i in range(5)]
    rel_expected = (ndcg_at[1] + ndcg_at[2] + ndcg_at[4] + 2 * ndcg_at[4]) / 5
    got = per_topic(q, r, f"nDCGRel(gains={FRAC})", "ideal_sort=exact")["1"]
    assert got == pytest.approx(rel_expected, abs=1e-15)
    # exact RnDCG: ideal gain changes at ranks 2, 4 (0-based 1, 3) and ends at 5
    r_expected = (ndcg_at[0] + ndcg_at[2] + ndcg_at[4]) / 3
    got = per_topic(q, r, f"RnDCG(gains={FRAC})", "ideal_sort=exact")["1"]
    assert got == pytest.approx(r_expected, abs=1e-15)
    # gains >= 1 apart sort correctly under both: trec_eval 10 ndcg_rel 0.4211, Rndcg 0.3033
    for s in ("exact", "trec-int"):
        assert round(per_topic(q, r, "nDCGRel(gains={1:5,2:8,3:9})", f"ideal_sort={s}")["1"], 4) == 0.4211
        assert round(per_topic(q, r, "RnDCG(gains={1:5,2:8,3:9})", f"ideal_sort={s}")["1"], 4) == 0.3033
    # a negative gain for grade 0 (trec_eval -m ndcg.0=-1): 0.3133
    assert round(per_topic(q, r, "nDCG(gains={0:-1})")["1"], 4) == 0.3133


# ------------------------------------------------------------------------------ §4 / §5 unjudged rates
# ranking u1 a u2 b c (u1, u2 not in the qrels)
UNJ_Q = "1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 d 1\n1 0 e 0\n"
UNJ_R = "1 Q0 u1 1 10 r\n1 Q0 a 2 9 r\n1 Q0 u2 3 8 r\n1 Q0 b 4 7 r\n1 Q0 c 5 6 r\n"


@pytest.mark.parametrize(
    "judged_denom, unj5, unj10, judged10",
    [
        # trec_eval 10 unj: 2 unjudged / 5, / 10; judged 3 / 10
        ("k", 0.4, 0.2, 0.3),
        # ir_measures Judged: 3 / min(10, 5) = 0.6 (so Judged@10 != 1 - unj_10); Unj 2/5
        ("min-k-ret", 0.4, 0.4, 0.6),
    ],
)
def test_judged_denom(judged_denom, unj5, unj10, judged10):
    q, r = qrels(UNJ_Q), run(UNJ_R)
    s = f"judged_denom={judged_denom}"
    assert per_topic(q, r, "unj_5", s)["1"] == pytest.approx(unj5, abs=1e-15)
    assert per_topic(q, r, "Unj@10", s)["1"] == pytest.approx(unj10, abs=1e-15)
    assert per_topic(q, r, "Judged@10", s)["1"] == pytest.approx(judged10, abs=1e-15)
    assert s in variant(q, r, "Judged@10", s)


@pytest.mark.parametrize(
    "negatives, unj5, judged5",
    [
        # e(-2) and d(-1) are pooled-but-unjudged (trec_eval): e a d b c x -> 2 of the top 5
        ("pooled", 0.4, 0.6),
        # negative grades judged (ir_measures Judged): only x is unjudged, below rank 5
        ("nonrel", 0.0, 1.0),
    ],
)
def test_negatives_judged(negatives, unj5, judged5):
    q = qrels("1 0 a 2\n1 0 b 1\n1 0 c 0\n1 0 d -1\n1 0 e -2\n1 0 f 3\n")
    r = run("1 Q0 e 1 6 r\n1 Q0 a 2 5 r\n1 Q0 d 3 4 r\n1 Q0 b 4 3 r\n1 Q0 c 5 2 r\n1 Q0 x 6 1 r\n")
    assert per_topic(q, r, "Unj@5", f"negatives={negatives}")["1"] == pytest.approx(unj5, abs=1e-15)
    assert per_topic(q, r, "Judged@5", f"negatives={negatives}")["1"] == pytest.approx(judged5, abs=1e-15)


def test_unj_short_ranking_divides_by_k():
    # 2 documents, one unjudged: unj@20 = 1/20 (trec_eval 10), 1/2 with min-k-ret
    q, r = qrels("1 0 a 1\n"), run("1 Q0 a 1 2 r\n1 Q0 z 2 1 r\n")
    assert per_topic(q, r, "unj_20")["1"] == pytest.approx(0.05, abs=1e-15)
    assert per_topic(q, r, "unj_20", "judged_denom=min-k-ret")["1"] == pytest.approx(0.5, abs=1e-15)


# ------------------------------------------------------------------------------ transliteration of the C code
def _div(a: float, b: float) -> float:
    """C double division (IEEE: x/0 is +-inf, 0/0 NaN)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.float64(a) / np.float64(b))


def _log2(x: float) -> float:
    with np.errstate(divide="ignore", invalid="ignore"):
        return float(np.log2(np.float64(x)))


def _glibc_msort(a, cmp):
    if len(a) <= 1:
        return a
    n1 = len(a) // 2
    left, right = _glibc_msort(a[:n1], cmp), _glibc_msort(a[n1:], cmp)
    out = []
    while left and right:
        out.append(left.pop(0) if cmp(left[0], right[0]) <= 0 else right.pop(0))
    return out + left + right


def _setup_gains(qgrades, pairs, exact):
    """gain_init.c setup_gains: [level, num_at_level, gain], sorted by increasing gain."""
    rel_levels = [0] * (max(qgrades) + 1 if qgrades else 0)
    for g in qgrades:
        rel_levels[g] += 1
    num_rel_levels = max((i + 1 for i, n in enumerate(rel_levels) if n), default=0)
    gains = [[lv, 0, float(g)] for lv, g in pairs]
    for i in range(num_rel_levels):
        for e in gains:
            if e[0] == i:
                e[1] = rel_levels[i]
                break
        else:
            gains.append([i, rel_levels[i], float(i)])
    if exact:
        cmp = lambda x, y: (x[2] > y[2]) - (x[2] < y[2])  # noqa: E731
    else:
        cmp = lambda x, y: int(x[2] - y[2])  # noqa: E731
    return _glibc_msort(gains, cmp)


def _get_gain(level, gains):
    for e in gains:
        if e[0] == level:
            return e[2]
    return 0.0


def _walk(gains, cur_level, num_at_level):
    num_at_level += 1
    ideal_gain = None
    while cur_level >= 0 and num_at_level > gains[cur_level][1]:
        num_at_level = 1
        cur_level -= 1
        ideal_gain = gains[cur_level][2] if cur_level >= 0 else 0.0
    return cur_level, num_at_level, ideal_gain


def ref_ndcg_rel(ranked, gains):
    cur = len(gains) - 1
    ideal_gain = gains[cur][2] if cur >= 0 else 0.0
    nat = 0
    rdcg = idcg = s = 0.0
    num_rel = num_rel_ret = 0
    i = 0
    while i < len(ranked) and ideal_gain > 0:
        rg = _get_gain(ranked[i], gains)
        if rg != 0:
            rdcg += rg / math.log2(i + 2)
        cur, nat, g = _walk(gains, cur, nat)
        ideal_gain = ideal_gain if g is None else g
        if ideal_gain > 0:
            num_rel += 1
            idcg += ideal_gain / math.log2(i + 2)
        if rg > 0:
            s += _div(rdcg, idcg)
            num_rel_ret += 1
        i += 1
    while i < len(ranked):
        rg = _get_gain(ranked[i], gains)
        if rg != 0:
            rdcg += rg / math.log2(i + 2)
        if rg > 0:
            s += _div(rdcg, idcg)
            num_rel_ret += 1
        i += 1
    while ideal_gain > 0:
        cur, nat, g = _walk(gains, cur, nat)
        ideal_gain = ideal_gain if g is None else g
        if ideal_gain > 0:
            num_rel += 1
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    s += _div((num_rel - num_rel_ret) * rdcg, idcg)
    return _div(s, num_rel) if s > 0 else 0.0


def ref_rndcg(ranked, gains, num_rel):
    if num_rel == 0:
        return 0.0
    cur = len(gains) - 1
    ideal_gain = gains[cur][2] if cur >= 0 else 0.0
    old = ideal_gain
    changed = 0
    nat = 0
    rdcg = idcg = s = 0.0
    i = 0
    while i < len(ranked) and ideal_gain > 0:
        rg = _get_gain(ranked[i], gains)
        cur, nat, g = _walk(gains, cur, nat)
        ideal_gain = ideal_gain if g is None else g
        if old != ideal_gain:
            if idcg > 0:
                s += rdcg / idcg
                changed += 1
            old = ideal_gain
        if rg != 0:
            rdcg += rg / math.log2(i + 2)
        if ideal_gain > 0:
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    if i < len(ranked):
        while i < len(ranked):
            rg = _get_gain(ranked[i], gains)
            if rg != 0:
                rdcg += rg / math.log2(i + 2)
            i += 1
        if idcg > 0:
            s += rdcg / idcg
            changed += 1
    while ideal_gain > 0:
        cur, nat, g = _walk(gains, cur, nat)
        ideal_gain = ideal_gain if g is None else g
        if old != ideal_gain:
            if idcg > 0:
                s += rdcg / idcg
                changed += 1
            old = ideal_gain
        if ideal_gain > 0:
            idcg += ideal_gain / math.log2(i + 2)
        i += 1
    return s / changed if changed else math.nan


def ref_g(ranked, gains):
    cur = len(gains) - 1
    ideal_gain = gains[cur][2] if cur >= 0 else 0.0
    nat = 0
    results_g = sum_results = sum_ideal = sum_cost = 0.0
    i = 0
    while i < len(ranked) and ideal_gain > 0:
        rg = _get_gain(ranked[i], gains)
        sum_results += rg
        cur, nat, g = _walk(gains, cur, nat)
        ideal_gain = ideal_gain if g is None else g
        if ideal_gain > 0:
            sum_ideal += ideal_gain
        sum_cost += ideal_gain if ideal_gain >= 1.0 else 1.0
        if rg != 0:
            results_g += _div(rg, _log2(2 + sum_cost - sum_results))
        i += 1
    while i < len(ranked):
        rg = _get_gain(ranked[i], gains)
        sum_results += rg
        sum_cost += 1.0
        if rg != 0:
            results_g += _div(rg, _log2(2 + sum_cost - sum_results))
        i += 1
    while ideal_gain > 0:
        cur, nat, g = _walk(gains, cur, nat)
        ideal_gain = ideal_gain if g is None else g
        if ideal_gain > 0:
            sum_ideal += ideal_gain
    return results_g / sum_ideal if sum_ideal > 0 else 0.0


def ref_bin_g(ranked, rel, num_rel):
    rel_so_far, s = 0, 0.0
    for i, g in enumerate(ranked):
        if g >= rel:
            rel_so_far += 1
            s += 1.0 / math.log2(3 + i - rel_so_far)
    return s / num_rel if rel_so_far else 0.0


def ref_rbp(ranked, gains, p):
    lo = min((e[2] for e in gains), default=0.0)
    hi = max((e[2] for e in gains), default=0.0)
    if lo < 0 or hi > 1:
        # C: (g - min) / 0 is NaN (0/0) when every level has the same gain
        gains = [[e[0], e[1], (e[2] - lo) / (hi - lo) if hi != lo else math.nan] for e in gains]
    s, cur_p = 0.0, 1.0
    for g in ranked:
        gain = _get_gain(g, gains) if g >= 0 else 0.0
        if gain != 0:
            s += gain * cur_p
        cur_p *= p
    return (1.0 - p) * s


def ref_rbp_resid(ranked, p):
    unj, s, cur_p = 0, 0.0, 1.0
    for g in ranked:
        if g < 0:
            unj += 1
            s += cur_p
        cur_p *= p
    return cur_p + (1 - p) * s if unj else 0.0


def _random_inputs(seed: int):
    rng = np.random.default_rng(seed)
    qlines, rlines = [], []
    for t in range(40):
        tid = f"t{t:02d}"
        top = int(rng.integers(0, 4))
        n_j = int(rng.integers(1, 12))
        for d in range(n_j):
            g = int(rng.integers(-1, top + 1))
            qlines.append(f"{tid} 0 d{d} {g}")
        n_r = int(rng.integers(0, 16))
        docs = rng.choice(30, size=n_r, replace=False)
        for rank, d in enumerate(docs):
            rlines.append(f"{tid} Q0 d{d} {rank + 1} {float(rng.integers(0, 5))} r")
    return qrels("\n".join(qlines) + "\n"), run("\n".join(rlines) + "\n")


GAIN_MAPS = [None, (), ((1, 0.5), (2, 0.8), (3, 0.9)), ((0, -1.0),), ((1, 5), (2, 8), (3, 9)), ((1, 0.3), (2, 1.7), (3, 1.2)), ((2, 0),), ((0, 0.5), (5, 2.5))]


def _gains_text(pairs) -> str:
    return "{" + ",".join(f"{lv}:{g}" for lv, g in pairs) + "}"


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("ideal_sort", ["exact", "trec-int"])
def test_against_c_transliteration(seed, ideal_sort):
    q, r = _random_inputs(seed)
    for rel in (1, 2):
        conv = load_profile(TE10).convention.replace(topics="both", ideal_sort=ideal_sort, rel=rel)
        p = prepare(q, r, conv)
        for pairs in GAIN_MAPS:
            suffix = f"(gains={_gains_text(pairs)})" if pairs else ""
            names = [f"G{suffix}", f"nDCGRel{suffix}", f"RnDCG{suffix}", f"nDCG{suffix}", "binG", "RBP", "RBPResid"]
            if pairs:
                names.append(f"RBP{suffix}")
            rows = evaluate_prepared(q, r, [parse_measure(n) for n in names], conv)
            got = {n: row[3] for n, row in zip(names, rows, strict=True)}
            for ti in range(p.n_topics):
                ranked = [int(g) for g in p.grade[p.offsets[ti] : p.offsets[ti + 1]]]
                qg = [int(g) for g in p.qgrade[p.qoffsets[ti] : p.qoffsets[ti + 1]]]
                gains = _setup_gains(qg, list(pairs or ()), ideal_sort == "exact")
                n_rel = sum(1 for g in qg if g >= rel)
                want = {
                    f"G{suffix}": ref_g(ranked, gains),
                    f"nDCGRel{suffix}": ref_ndcg_rel(ranked, gains),
                    f"RnDCG{suffix}": ref_rndcg(ranked, gains, n_rel),
                    "binG": ref_bin_g(ranked, rel, n_rel),
                    "RBP": ref_rbp(ranked, _setup_gains(qg, [], True), 0.9),
                    "RBPResid": ref_rbp_resid(ranked, 0.9),
                }
                if pairs:
                    want[f"RBP{suffix}"] = ref_rbp(ranked, gains, 0.9)
                for n, w in want.items():
                    x = got[n][ti]
                    if math.isnan(w):
                        assert math.isnan(x), (n, p.topics[ti], x)
                    else:
                        assert x == pytest.approx(w, abs=1e-12), (n, p.topics[ti], ranked, qg, x, w)
            # nDCG (core) uses the same ideal: DCG / IDCG of the walked ideal list
            for ti in range(p.n_topics):
                ranked = [int(g) for g in p.grade[p.offsets[ti] : p.offsets[ti + 1]]]
                qg = [int(g) for g in p.qgrade[p.qoffsets[ti] : p.qoffsets[ti + 1]]]
                gains = _setup_gains(qg, list(pairs or ()), ideal_sort == "exact")
                ideal = []
                cur = len(gains) - 1
                if cur >= 0 and gains[cur][2] > 0:
                    for e in reversed(gains):
                        if e[1] == 0:
                            continue
                        if e[2] <= 0:
                            break
                        ideal += [e[2]] * e[1]
                dcg = sum(_get_gain(g, gains) / math.log2(i + 2) for i, g in enumerate(ranked) if g >= 0)
                idcg = _dcg(ideal)
                w = dcg / idcg if idcg > 0 else 0.0
                assert got[f"nDCG{suffix}"][ti] == pytest.approx(w, abs=1e-12)


# ------------------------------------------------------------------------------ robust03
TE9_NAMES = ["binG", "G", "ndcg_rel", "Rndcg"]
TE10_NAMES = TE9_NAMES + ["rbp", "rbp_resid", "unj_5", "unj_10", "unj_20"]
FLAGS = {"": [], "J.": ["unjudged=drop"], "M100.": ["depth=100"], "l2.": ["rel=2"]}
TRE_FLAGS = {"": [], "J.": ["-J"], "M100.": ["-M100"], "l2.": ["-l2"]}
CASES = [(tier, run) for tier in TIERS for run in TIER_COMPLETE[tier]]


def _reference(output, data, run_name: str, version: str, flags: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in output(version, data, run_name, TRE_FLAGS[flags]).splitlines():
        m, t, v = line.split()
        out[(m, t)] = v
    return out


@pytest.mark.parametrize(("tier", "run_name"), CASES, ids=[f"{t}-{r}" for t, r in CASES])
def test_robust03_reference_and_pytrec_eval(request, trec_eval_output, tier, run_name):
    import pytrec_eval

    data = request.getfixturevalue(tier)
    robust_qrels = read_qrels(data.qrels)
    r = read_run(data.run(run_name))
    with gzip.open(data.run(run_name), "rt") as f:
        pytrec_run = pytrec_eval.parse_run(f)
    with open(data.qrels) as f:
        pytrec_qrels = pytrec_eval.parse_qrel(f)
    FLAGGED = TIER_FLAGGED[tier]
    flagsets = FLAGS if run_name in FLAGGED else {"": []}
    checked = 0
    for flags, settings in flagsets.items():
        for version, profile, names in (("9.0.8", TE9, TE9_NAMES), ("10.0", TE10, TE10_NAMES)):
            conv = load_profile(profile).convention.with_settings([*settings, "topics=both"])
            want = _reference(trec_eval_output, data, run_name, version, flags)
            rows = evaluate_prepared(robust_qrels, r, [parse_measure(n) for n in names], conv)
            for name, (_m, _v, p, vals, agg) in zip(names, rows, strict=True):
                for t, x in zip(p.topics, vals, strict=True):
                    assert f"{x:.4f}" == want[(name, t)], (run_name, version, flags, name, t, x)
                    checked += 1
                assert f"{agg:.4f}" == want[(name, "all")], (run_name, version, flags, name, agg)
            if version == "9.0.8" and flags != "M100.":  # pytrec_eval has no -M
                ev = pytrec_eval.RelevanceEvaluator(
                    pytrec_qrels, set(TE9_NAMES), relevance_level=2 if flags == "l2." else 1, judged_docs_only_flag=flags == "J."
                )
                res = ev.evaluate(pytrec_run)
                for name, (_m, _v, p, vals, _agg) in zip(names, rows, strict=True):
                    for t, x in zip(p.topics, vals, strict=True):
                        assert abs(x - res[t][name]) <= 1e-12, (run_name, flags, name, t, x, res[t][name])
    assert checked > 0


def test_profile_axes_and_variants():
    for name in ("trec_eval-9.0.8", "trec_eval-9.0.8-double", "trec_eval-10.0"):
        c = load_profile(name).convention
        assert (c.ideal_sort, c.rbp_resid) == ("trec-int", "if-unjudged")
    for name in ("textbook", "ranx-0.3"):
        c = load_profile(name).convention
        assert (c.ideal_sort, c.rbp_resid) == ("exact", "always")
    m, c = fold(parse_measure("rbp_resid"), load_profile(TE10).convention)
    assert m.name == "RBPResid" and c.rbp_p == 0.9


JUDGED = [("robust03_like", "synShallow"), ("robust03_like", "synTies"), ("robust03", "humR03dc"), ("robust03", "Sel50")]


@pytest.mark.parametrize(("tier", "run_name"), JUDGED, ids=[f"{t}-{r}" for t, r in JUDGED])
def test_robust03_judged_vs_ir_measures(request, tier, run_name):
    # ir_measures' judged provider: docid-ascending ties, any qrels entry judged, / min(k, retrieved)
    import ir_measures

    data = request.getfixturevalue(tier)
    qrels_list = list(ir_measures.read_trec_qrels(str(data.qrels)))
    with gzip.open(data.run(run_name), "rt") as f:
        run_list = list(ir_measures.read_trec_run(f))
    cutoffs = (5, 100, 1000)
    theirs = list(ir_measures.iter_calc([ir_measures.Judged @ k for k in cutoffs], qrels_list, run_list))
    res = ae.evaluate(data.qrels, data.run(run_name), [f"Judged@{k}" for k in cutoffs],
                      profile="ir_measures-0.4-msmarco")
    for k in cutoffs:
        want = {m.query_id: m.value for m in theirs if m.measure == ir_measures.Judged @ k}
        got = {v.topic: v.value for v in res.values if v.topic != "all" and v.measure == f"Judged@{k}"}
        assert want and set(got) == set(want)
        for t, w in want.items():
            assert got[t] == pytest.approx(w, abs=1e-12), (k, t)
