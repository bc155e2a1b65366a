"""trec_eval all_trec measures of engine/measures/trec_set.py.

(1) small cases checked by hand (the arithmetic is in the comments), one assertion per
axis value that can move them; (2) per-topic equality with pytrec_eval (= trec_eval 9.0.8
measure code) to 1e-12 on the TREC 2003 Robust runs; (3) per-topic ``%.4f`` equality with
the trec_eval 9.0.8 and 10.0 reference outputs (``-q -m all_trec``, plus -J, -M100, -l2).
"""

from __future__ import annotations

import math
from collections import defaultdict

import numpy as np
import pytest
import pytrec_eval
from paths import TIER_COMPLETE, TIER_FLAGGED, TIER_RUNS, TIERS

from auditeval.engine.measures.trec_set import recall_count
from auditeval.engine.staged_run import evaluate_prepared
from auditeval.io import qrels_from, read_qrels, read_run, run_from
from auditeval.vocab.conventions import Convention, resolve
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import parse_measure, variant_axes

EPS = 1e-5  # trec_eval INFAP_EPSILON
TE9 = "trec_eval-9.0.8"


def per_topic(qrels, run, measure: str, conv: Convention | str = TE9, **axes) -> dict[str, object]:
    c = resolve(conv) if isinstance(conv, str) else conv
    if axes:
        c = c.replace(**axes)
    ((_m, _v, p, vals, _agg),) = evaluate_prepared(qrels_from(qrels), run_from(run), [parse_measure(measure)], c)
    return dict(zip(p.topics, vals.tolist(), strict=True))


def aggregate(qrels, run, measure: str, **axes) -> float:
    c = resolve(TE9).replace(**axes) if axes else resolve(TE9)
    ((*_, agg),) = evaluate_prepared(qrels_from(qrels), run_from(run), [parse_measure(measure)], c)
    return agg


# ---------------------------------------------------------------------------------- (1) by hand
# Case A (reference/cases/08_iprec_11pt): one topic, 10 docs, R = 3 relevant at ranks 2, 5, 8.
# Precision at the relevant ranks: P_1 = 1/2, P_2 = 2/5, P_3 = 3/8; interpolated
# (max over k' >= k): IP_1 = 0.5, IP_2 = 0.4, IP_3 = 0.375.
A_QRELS = {"1": {"D02": 1, "D05": 1, "D08": 1}}
A_RUN = {"1": {f"D{i:02d}": 11 - i for i in range(1, 11)}}


def test_recall_count_rules():
    big_r = np.array([3, 10, 2, 0])
    # 0.7*3 = 2.0999999999999996: +0.9 -> 2.9999999999999996 -> 2 (trunc09); ceil -> 3; lround -> 2
    assert recall_count(0.7, big_r, "trunc09").tolist() == [2, 7, 2, 0]
    # 0.7*10 = 7.000000000000001: ceil of the product would be 8, but 7/10 >= 0.7 already holds
    assert recall_count(0.7, big_r, "ceil").tolist() == [3, 7, 2, 0]
    # lround: 2.1 -> 2, 7.0 -> 7, 1.4 -> 1
    assert recall_count(0.7, big_r, "lround").tolist() == [2, 7, 1, 0]
    # halves go up under lround: 0.5*3 = 1.5 -> 2, 0.25*2 = 0.5 -> 1; trunc09 1.5+0.9 -> 2, 0.5+0.9 -> 1
    assert recall_count(0.5, np.array([3]), "lround").tolist() == [2]
    assert recall_count(0.25, np.array([2]), "lround").tolist() == [1]
    # r = 0 is the count 0 under every rule ((long)0.9 = 0, lround(0) = 0)
    for rule in ("ceil", "trunc09", "lround"):
        assert recall_count(0.0, big_r, rule).tolist() == [0, 0, 0, 0]


# counts per level 0, .1, ..., 1 with R = 3 (r*R = 0, .3, .6, .9, 1.2, 1.5, 1.8, 2.1, 2.4, 2.7, 3):
#   ceil    c = 0 1 1 1 2 2 2 3 3 3 3 -> .5 .5 .5 .5 .4 .4 .4 .375 .375 .375 .375, sum 4.7
#   trunc09 c = 0 1 1 1 2 2 2 2 3 3 3 (0.7: 2.9999999999999996 -> 2) -> 0.7 gives .4, sum 4.725
#   lround  c = 0 0 1 1 1 2 2 2 2 3 3 -> 0.4 gives .5 and 0.8 gives .4, sum 4.85
# c = 0 takes the interpolated precision at the first relevant doc (0.5).
IPREC_A = {
    "ceil": [0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.375, 0.375, 0.375, 0.375],
    "trunc09": [0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.4, 0.375, 0.375, 0.375],
    "lround": [0.5, 0.5, 0.5, 0.5, 0.5, 0.4, 0.4, 0.4, 0.4, 0.375, 0.375],
}


@pytest.mark.parametrize("rule, eleven", [("ceil", 4.7 / 11), ("trunc09", 4.725 / 11), ("lround", 4.85 / 11)])
def test_iprec_and_11pt_by_rule(rule, eleven):
    for i, want in enumerate(IPREC_A[rule]):
        got = per_topic(A_QRELS, A_RUN, f"IPrec@{i / 10}", iprec=rule)["1"]
        assert got == want, (rule, i / 10, got)
    assert per_topic(A_QRELS, A_RUN, "11pt", iprec=rule)["1"] == pytest.approx(eleven, abs=1e-15)
    # printed as trec_eval does: 0.4273 textbook, 0.4295 trec_eval 9.0.8, 0.4409 trec_eval 10.0
    assert f"{per_topic(A_QRELS, A_RUN, '11pt', iprec=rule)['1']:.4f}" == {"ceil": "0.4273", "trunc09": "0.4295", "lround": "0.4409"}[rule]


def test_11pt_custom_levels():
    # trec_eval -m 11pt_avg.0.2,0.5,0.8 on case A, trunc09: counts (long)(0.6+0.9) = 1,
    # (long)(1.5+0.9) = 2, (long)(2.4+0.9) = 3 -> (0.5 + 0.4 + 0.375) / 3 = 0.425
    assert per_topic(A_QRELS, A_RUN, "11pt(levels='0.2,0.5,0.8')")["1"] == pytest.approx(1.275 / 3, abs=1e-15)
    # levels out of order, '0.8,0.2' (counts 3, 1): trec_eval's walk assigns the last level
    # at count 1 (0.5), then never meets count 3 again and gives the first level the final
    # value, IP at the first relevant doc (0.5): (0.5 + 0.5) / 2. The textbook rule takes each
    # level on its own: (0.375 + 0.5) / 2.
    assert per_topic(A_QRELS, A_RUN, "11pt(levels='0.8,0.2')")["1"] == 0.5
    assert per_topic(A_QRELS, A_RUN, "11pt(levels='0.8,0.2')", iprec="ceil")["1"] == 0.4375
    # a level above R (count 6 > relret 3) at the end is skipped as 0: (0.5 + 0) / 2
    assert per_topic(A_QRELS, A_RUN, "11pt(levels='0.2,2.0')")["1"] == 0.25


def test_iprec_aliases_and_profiles():
    assert parse_measure("iprec_at_recall_0.10") == Measure("IPrec", (), 0.1)
    assert parse_measure("11pt_avg") == Measure("11pt")
    assert per_topic(A_QRELS, A_RUN, "iprec_at_recall_0.70", "trec_eval-9.0.8")["1"] == 0.4
    assert per_topic(A_QRELS, A_RUN, "iprec_at_recall_0.40", "trec_eval-10.0")["1"] == 0.5
    assert per_topic(A_QRELS, A_RUN, "iprec_at_recall_0.70", "textbook")["1"] == 0.375
    assert "iprec" in variant_axes(parse_measure("IPrec@0.5"))
    assert "iprec" in variant_axes(parse_measure("11pt"))


def test_iprec_empty_ranking_is_nan_in_trec_eval():
    # -J removes the only (unjudged) doc of topic 2: trec_eval computes relret/ret = 0/0 for
    # the levels whose count is 0 and prints -nan (cases/09_gm_map *.q.J.all_trec.out);
    # levels with a count > relret = 0 stay 0. R = 1: 0.4 -> count 0 under both trec rules
    # ((long)1.3 = 1 under trunc09, so only level 0 is nan there), 0.5 -> lround 1.
    q = {"2": {"B": 1}}
    r = {"2": {"Y": 1.0}}
    for rule, nan_levels in (("trunc09", {0.0}), ("lround", {0.0, 0.1, 0.2, 0.3, 0.4})):
        for lvl in (0.0, 0.1, 0.4, 0.5):
            v = per_topic(q, r, f"IPrec@{lvl}", unjudged="drop", iprec=rule)["2"]
            assert math.isnan(v) == (lvl in nan_levels), (rule, lvl, v)
        assert math.isnan(per_topic(q, r, "11pt", unjudged="drop", iprec=rule)["2"])
    # the textbook rule has no precision to interpolate: 0
    assert per_topic(q, r, "IPrec@0.0", unjudged="drop", iprec="ceil")["2"] == 0.0
    # a topic absent from the run (-c) is never computed by trec_eval: 0
    assert per_topic({"1": {"a": 1}, "2": {"B": 1}}, {"1": {"a": 1.0}}, "11pt", topics="qrels")["2"] == 0.0


def test_rprec_mult_keeps_plus_09_rounding():
    # c = (long)(x*3 + 0.9): x=0.2 -> 1 (P@1 = 0); 0.4 -> 2.1 -> 2 (P@2 = 1/2); 1.0 -> 3 (1/3);
    # 1.4 -> 5.1 -> 5 (2/5); 2.0 -> 6.9 -> 6 (2/6); 5.0 -> 15 > 10 retrieved: 3/15 (trec_eval
    # divides relret by the cut-off). Same under trec_eval 10 (lround is only iprec/11pt).
    want = {0.2: 0.0, 0.4: 0.5, 1.0: 1 / 3, 1.4: 0.4, 2.0: 2 / 6, 5.0: 3 / 15}
    for prof in ("trec_eval-9.0.8", "trec_eval-10.0"):
        for x, w in want.items():
            assert per_topic(A_QRELS, A_RUN, f"RprecMult@{x}", prof)["1"] == w, (prof, x)
    assert parse_measure("Rprec_mult_0.20") == Measure("RprecMult", (), 0.2)
    assert "iprec" not in variant_axes(parse_measure("RprecMult@1.0"))
    # R = 0: c = (long)0.9 = 0 -> 0
    assert per_topic({"1": {"a": 0}}, {"1": {"a": 1.0}}, "RprecMult@1.0")["1"] == 0.0


# Case B (reference/cases/12_recall_rprec_bpref_rr_success_p).
# T1: R = 4, N = 6 judged non-relevant; ranking N1 R1 U1 (U1 not in the qrels).
# T2: R = 1, N = 1; ranking X01..X11 (not in the qrels) then R1 at rank 12.
# T3: R = 2, N = 0; ranking U1 R1 U2 R2.
# T4: R1 1, N1 0, P1 -1, P2 -1 (negative = pooled but unjudged); ranking P1 R1 N1 P2.
B_QRELS = {
    "1": {"R1": 1, "R2": 1, "R3": 1, "R4": 1, "N1": 0, "N2": 0, "N3": 0, "N4": 0, "N5": 0, "N6": 0},
    "2": {"R1": 1, "N1": 0},
    "3": {"R1": 1, "R2": 1},
    "4": {"R1": 1, "N1": 0, "P1": -1, "P2": -1},
}
B_RUN = {
    "1": {"N1": 3, "R1": 2, "U1": 1},
    "2": {**{f"X{i:02d}": 100 - i for i in range(1, 12)}, "R1": 1},
    "3": {"U1": 4, "R1": 3, "U2": 2, "R2": 1},
    "4": {"P1": 4, "R1": 3, "N1": 2, "P2": 1},
}


def test_bpref_by_hand():
    # T1: R1 has 1 judged non-relevant above: 1 - min(1,4)/min(6,4) = 0.75; / R=4 -> 0.1875
    # T2: no judged non-relevant above R1 (X.. are not judged): 1 / 1
    # T3: N = 0, each retrieved relevant doc adds 1: 2 / 2
    # T4: P1 is pooled-unjudged, skipped: 1 / 1
    assert per_topic(B_QRELS, B_RUN, "Bpref") == {"1": 0.1875, "2": 1.0, "3": 1.0, "4": 1.0}
    # negatives=nonrel: P1, P2 judged non-relevant, N = 3: 1 - min(1,1)/min(3,1) = 0
    assert per_topic(B_QRELS, B_RUN, "Bpref", negatives="nonrel")["4"] == 0.0
    # rel=2: no relevant doc anywhere -> 0
    assert set(per_topic(B_QRELS, B_RUN, "Bpref", rel=2).values()) == {0.0}
    # unjudged=drop changes nothing: bpref reads judged docs only
    assert per_topic(B_QRELS, B_RUN, "Bpref", unjudged="drop") == per_topic(B_QRELS, B_RUN, "Bpref")
    # depth=1: T1 keeps N1 only -> 0; T4 keeps P1 only -> 0
    d1 = per_topic(B_QRELS, B_RUN, "Bpref", depth=1)
    assert (d1["1"], d1["4"]) == (0.0, 0.0)


def test_gm_bpref_by_hand():
    # geometric mean of 0.1875, 1, 1, 1 = 0.1875 ** (1/4)
    assert aggregate(B_QRELS, B_RUN, "GMBpref") == pytest.approx(0.1875**0.25, rel=1e-14)
    # rel=2: all 0 -> floored at gm_floor: 1e-5 (or the floor given)
    assert aggregate(B_QRELS, B_RUN, "GMBpref", rel=2) == pytest.approx(1e-5, rel=1e-12)
    assert aggregate(B_QRELS, B_RUN, "GMBpref", rel=2, gm_floor=1e-3) == pytest.approx(1e-3, rel=1e-12)
    assert parse_measure("gm_bpref") == Measure("GMBpref")
    assert "gm_floor" in variant_axes(parse_measure("GMBpref"))


def test_infap_by_hand():
    # per relevant doc at 0-based index j > 0:
    #   1/(j+1) + (j/(j+1)) * ((r-1+n+u)/j) * ((r-1+eps)/(r-1+n+2eps))
    # T1: R1 at j=1, r=1, n=1 (N1), u=0: 1/2 + 1/2 * 1 * eps/(1+2eps); / R=4
    t1 = (0.5 + 0.5 * (1 / 1) * (EPS / (1 + 2 * EPS))) / 4
    # T2: R1 at j=11 with nothing judged above: 1/12 + (11/12) * 0 = 1/12
    # T3: R1 at j=1: 1/2 + 0; R2 at j=3, r=2, n=0, u=0: 1/4 + (3/4)*(1/3)*((1+eps)/(1+2eps)); / 2
    t3 = (0.5 + (0.25 + (3 / 4) * (1 / 3) * ((1 + EPS) / (1 + 2 * EPS)))) / 2
    # T4: R1 at j=1, r=1, n=0, u=1 (P1): 1/2 + 1/2 * 1 * eps/(2 eps) = 0.75
    got = per_topic(B_QRELS, B_RUN, "infAP")
    assert got["1"] == pytest.approx(t1, abs=1e-15)
    assert got["2"] == pytest.approx(1 / 12, abs=1e-15)
    assert got["3"] == pytest.approx(t3, abs=1e-15)
    assert got["4"] == pytest.approx(0.75, abs=1e-15)
    # -J: the X.. docs of T2 are removed, R1 moves to rank 1 (j = 0): 1
    assert per_topic(B_QRELS, B_RUN, "infAP", unjudged="drop")["2"] == 1.0
    # negatives=nonrel: P1 is judged non-relevant: 1/2 + 1/2 * 1 * eps/(1+2eps) (= T1 * 4)
    assert per_topic(B_QRELS, B_RUN, "infAP", negatives="nonrel")["4"] == pytest.approx(t1 * 4, abs=1e-15)


def test_set_measures_by_hand():
    # T1: ret 3, relret 1, R 4
    one = {m: per_topic(B_QRELS, B_RUN, m)["1"] for m in ("SetP", "SetR", "SetRelP", "SetAP", "SetF", "SetF(beta=2)")}
    assert one["SetP"] == pytest.approx(1 / 3, abs=1e-15)
    assert one["SetR"] == 0.25
    assert one["SetRelP"] == pytest.approx(1 / 3, abs=1e-15)  # 1 / min(3, 4)
    assert one["SetAP"] == pytest.approx(1 / 12, abs=1e-15)  # 1^2 / (3 * 4)
    assert one["SetF"] == pytest.approx(2 / 7, abs=1e-15)  # 2 (1/3)(1/4) / (1/3 + 1/4)
    assert one["SetF(beta=2)"] == pytest.approx(3 / 11, abs=1e-15)  # 3 (1/12) / (2/3 + 1/4)
    # T3 at rel=2: R = 0 and relret = 0: every set measure 0 (trec_eval leaves them unset)
    for m in ("SetP", "SetR", "SetRelP", "SetAP", "SetF"):
        assert per_topic(B_QRELS, B_RUN, m, rel=2)["3"] == 0.0
    assert parse_measure("set_F") == Measure("SetF")
    assert parse_measure("set_relative_P") == Measure("SetRelP")


def test_num_nonrel_judged_ret_by_hand():
    # T1: N1; T2: none retrieved (N1 not retrieved); T3: none; T4: N1 (P1, P2 pooled-unjudged)
    assert per_topic(B_QRELS, B_RUN, "NumNonRelJudgedRet") == {"1": 1, "2": 0, "3": 0, "4": 1}
    assert aggregate(B_QRELS, B_RUN, "NumNonRelJudgedRet") == 2  # summed
    # negatives=nonrel: P1, P2 count -> 3 in T4
    assert per_topic(B_QRELS, B_RUN, "NumNonRelJudgedRet", negatives="nonrel")["4"] == 3
    # rel=2: R1 docs become judged non-relevant: T1 N1 R1 = 2, T3 R1 R2 = 2
    got = per_topic(B_QRELS, B_RUN, "NumNonRelJudgedRet", rel=2)
    assert (got["1"], got["3"]) == (2, 2)


def test_utility_by_hand():
    # a*relret + b*(ret-relret) + c*(R-relret) + d*(num_docs + relret - ret - R)
    # T1: relret 1, ret 3, R 4 -> default (1,-1,0,0): 1 - 2 = -1
    # T2: relret 1, ret 12, R 1 -> 1 - 11 = -10; T3: 2 - 2 = 0; T4: 1 - 3 = -2
    assert per_topic(B_QRELS, B_RUN, "Utility") == {"1": -1.0, "2": -10.0, "3": 0.0, "4": -2.0}
    assert aggregate(B_QRELS, B_RUN, "Utility") == -13 / 4
    # T1 with c=-1: -1 - 3 = -4; with d=1, num_docs=100: -1 + (100 + 1 - 3 - 4) = 93
    assert per_topic(B_QRELS, B_RUN, "Utility(c=-1)")["1"] == -4.0
    assert per_topic(B_QRELS, B_RUN, "Utility(d=1,num_docs=100)")["1"] == 93.0
    assert per_topic(B_QRELS, B_RUN, "Utility(a=2,b=-0.5)")["1"] == 1.0  # 2 - 0.5*2
    # Case A: relret 3, ret 10: 3 - 7 = -4 (trec_eval prints -4.0000)
    assert per_topic(A_QRELS, A_RUN, "utility")["1"] == -4.0


def test_relative_p_by_hand():
    # Case A: top 5 holds 2 relevant: 2 / min(5, 3); top 2 holds 1: 1 / min(2, 3); top 10: 3/3
    assert per_topic(A_QRELS, A_RUN, "RelP@5")["1"] == pytest.approx(2 / 3, abs=1e-15)
    assert per_topic(A_QRELS, A_RUN, "RelP@2")["1"] == 0.5
    assert per_topic(A_QRELS, A_RUN, "relative_P_1000")["1"] == 1.0
    # R = 0 (B, T3 at rel=2) -> 0
    assert per_topic(B_QRELS, B_RUN, "RelP@5", rel=2)["3"] == 0.0


def test_yaap_by_hand():
    # Case A: s = 1/2 + 2/5 + 3/8 = 1.275; log((1 + 1.275) / (1 + 3 - 1.275)) = log(2.275/2.725)
    assert per_topic(A_QRELS, A_RUN, "yaap")["1"] == pytest.approx(math.log(2.275 / 2.725), abs=1e-15)
    # nothing relevant retrieved, R = 1 (B, T2 cut at depth 5): log(1 / 2)
    assert per_topic(B_QRELS, B_RUN, "yaap", depth=5)["2"] == pytest.approx(math.log(0.5), abs=1e-15)
    # a topic absent from the run is not computed: 0, not log(1/(1+R))
    assert per_topic({"1": {"a": 1}, "2": {"B": 1}}, {"1": {"a": 1.0}}, "yaap", topics="qrels")["2"] == 0.0


def test_relstring_by_hand():
    # Case A: D01 not in the qrels '-', D02 relevant '1', ... first 10 docs
    assert per_topic(A_QRELS, A_RUN, "relstring")["1"] == "-1--1--1--"
    # B T4: P1 and P2 pooled-unjudged '.', R1 '1', N1 '0'; negatives=nonrel shows them as '0'
    assert per_topic(B_QRELS, B_RUN, "relstring")["4"] == ".10."
    assert per_topic(B_QRELS, B_RUN, "relstring", negatives="nonrel")["4"] == "0100"
    # B T2: 12 retrieved, 10 shown; relstring@n shows n; -J closes the gaps
    assert per_topic(B_QRELS, B_RUN, "relstring")["2"] == "-" * 10
    assert per_topic(B_QRELS, B_RUN, "relstring@12")["2"] == "-" * 11 + "1"
    assert per_topic(B_QRELS, B_RUN, "relstring", unjudged="drop")["2"] == "1"
    # grades above 9 print '>'; a topic absent from the run prints ''
    got = per_topic({"1": {"a": 12, "b": 3}, "2": {"c": 1}}, {"1": {"a": 2.0, "b": 1.0}}, "relstring", topics="qrels")
    assert got == {"1": ">3", "2": ""}
    assert "rel" not in variant_axes(parse_measure("relstring"))
    assert aggregate(A_QRELS, A_RUN, "relstring") is None


# ---------------------------------------------------------------------- robust03 (2) and (3)
# trec_eval output name -> auditeval measure
TREC = {
    "bpref": "Bpref",
    "infAP": "infAP",
    "11pt_avg": "11pt",
    "utility": "Utility",
    "set_P": "SetP",
    "set_recall": "SetR",
    "set_relative_P": "SetRelP",
    "set_map": "SetAP",
    "set_F": "SetF",
    "num_nonrel_judged_ret": "NumNonRelJudgedRet",
    "relstring": "relstring",
    "gm_bpref": "GMBpref",
    **{f"iprec_at_recall_{r / 10:.2f}": f"IPrec@{r / 10}" for r in range(11)},
    **{f"Rprec_mult_{x / 10:.2f}": f"Rprec_mult_{x / 10:.2f}" for x in range(2, 21, 2)},
    **{f"relative_P_{k}": f"RelP@{k}" for k in (5, 10, 15, 20, 30, 100, 200, 500, 1000)},
}
PER_TOPIC_ONLY = {"relstring"}
SUMMARY_ONLY = {"gm_bpref"}


@pytest.fixture(scope="module")
def robust(request):
    """``get(tier) -> (collection, qrels, run(name), measures)``: each tier's qrels read once,
    its runs read on demand and cached."""
    made: dict[str, tuple] = {}

    def get(tier: str) -> tuple:
        if tier not in made:
            data = request.getfixturevalue(tier)
            runs: dict[str, object] = {}

            def run(name: str):
                if name not in runs:
                    runs[name] = read_run(data.run(name))
                return runs[name]

            made[tier] = (data, read_qrels(data.qrels), run, [parse_measure(m) for m in TREC.values()])
        return made[tier]

    return get


def _flag_axes(flag: str) -> dict:
    return {"": {}, "J": {"unjudged": "drop"}, "M100": {"depth": 100}, "l2": {"rel": 2}}[flag]


def _trec_format(name: str, v) -> str:
    if name == "relstring":
        return f"'{v}'"
    if name == "num_nonrel_judged_ret":
        return str(int(v))
    if isinstance(v, float) and math.isnan(v):
        return "-nan"
    return f"{v:.4f}"


def _read_reference(output, data, run: str, version: str, flag: str) -> dict[tuple[str, str], str]:
    out = {}
    for line in output(version, data, run, [f"-{flag}"] if flag else []).splitlines():
        name, topic, value = line.rstrip("\n").split("\t")
        out[(name.strip(), topic)] = value.strip()
    return out


CASES_REF = [(tier, run, v, "") for tier in TIERS for run in TIER_COMPLETE[tier] for v in ("9.0.8", "10.0")] + [
    (tier, run, v, f) for tier in TIERS for run in TIER_FLAGGED[tier] if run in TIER_COMPLETE[tier]
    for v in ("9.0.8", "10.0") for f in ("J", "M100", "l2")
]


@pytest.mark.parametrize("tier, run, version, flag", CASES_REF)
def test_printed_values_equal_trec_eval(robust, trec_eval_output, tier, run, version, flag):
    data, qrels, get_run, measures = robust(tier)
    # 10.0 refuses a qrels topic missing from the run; none is missing here, so topics=both
    conv = resolve(f"trec_eval-{version}").replace(topics="both", **_flag_axes(flag))
    ref = _read_reference(trec_eval_output, data, run, version, flag)
    rows = evaluate_prepared(qrels, get_run(run), measures, conv)
    bad = []
    n = 0
    for name, (_m, _v, p, vals, agg) in zip(TREC, rows, strict=True):
        if name not in SUMMARY_ONLY:
            for t, v in zip(p.topics, vals.tolist(), strict=True):
                n += 1
                if _trec_format(name, v) != ref.get((name, t)):
                    bad.append((name, t, _trec_format(name, v), ref.get((name, t))))
        if name not in PER_TOPIC_ONLY:
            n += 1
            if _trec_format(name, agg) != ref.get((name, "all")):
                bad.append((name, "all", _trec_format(name, agg), ref.get((name, "all"))))
    assert n > 40 * len(p.topics)
    assert not bad, f"{len(bad)} differences, first: {bad[:5]}"


PYTREC_BASES = {
    "bpref", "infAP", "11pt_avg", "utility", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
    "num_nonrel_judged_ret", "gm_bpref", "iprec_at_recall", "Rprec_mult", "relative_P",
}  # fmt: skip


def _qrels_dict(qrels) -> dict[str, dict[str, int]]:
    d: dict[str, dict[str, int]] = defaultdict(dict)
    for t, doc, g in zip(*(qrels.table.column(c).to_pylist() for c in ("topic", "doc", "grade")), strict=True):
        d[t][doc] = g
    return dict(d)


CASES_PYTREC = [(tier, run, "") for tier in TIERS for run in TIER_RUNS[tier]] + [
    ("robust03_like", "synTies", "J"), ("robust03_like", "synShallow", "l2"), ("robust03", "MU03rob01", "J"),
    ("robust03", "humR03dc", "l2")]


@pytest.mark.parametrize("tier, run, flag", CASES_PYTREC)
def test_per_topic_equal_pytrec_eval(robust, tier, run, flag):
    data, qrels, get_run, measures = robust(tier)
    qrels_dict = _qrels_dict(qrels)
    r = get_run(run).table
    run_dict: dict[str, dict[str, float]] = defaultdict(dict)
    for t, doc, s in zip(*(r.column(c).to_pylist() for c in ("topic", "doc", "score")), strict=True):
        run_dict[t][doc] = s
    kw = {"": {}, "J": {"judged_docs_only_flag": True}, "l2": {"relevance_level": 2}}[flag]
    expected = pytrec_eval.RelevanceEvaluator(qrels_dict, PYTREC_BASES, **kw).evaluate(dict(run_dict))
    conv = resolve(TE9).replace(**_flag_axes(flag))
    rows = evaluate_prepared(qrels, get_run(run), measures, conv)
    n = 0
    for name, (_m, _v, p, vals, _agg) in zip(TREC, rows, strict=True):
        if name in PER_TOPIC_ONLY:
            continue
        for t, v in zip(p.topics, vals.tolist(), strict=True):
            want = expected[t][name]
            if name == "gm_bpref":  # pytrec_eval (and trec_eval) store log(max(bpref, floor))
                v = math.log(max(v, conv.gm_floor))
            assert v == pytest.approx(want, abs=1e-12, nan_ok=True), (name, t, v, want)
            n += 1
    assert n > 40 * len(p.topics)
