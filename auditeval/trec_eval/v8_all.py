"""trec_eval 8.x's ``-a`` and ``-T`` measures: the TREC_EVAL struct of one topic, as 8.x fills it.

A port of 8.1 trvec_teval.c (8.0: the same but for bpref's tests and infAP, see
:func:`_bpref`), which computes every measure of one topic in a few sequential loops over
the ranked documents; each loop is kept as the C code runs it because its C ``float``
fields are updated one document at a time (``float += double``: the sum in double, stored as
float). C expressions are modelled literally: ``(float) a / (float) b`` is :func:`fdiv`
(a float quotient), ``float_field += double`` is ``f32(field + term)``, long by long
arithmetic is Python int. Division by zero gives C's values (``0/0`` the x86 default NaN,
``-nan``; ``x/0`` infinity): :func:`ddiv`.

The constants are trec_eval.h:158-193 (8.1): cut-offs 5 .. 1000, MAX_FALL_RET 142,
MAX_RPREC 2.0, MAX_TIME 300, NUM_TIME_PTS 60, PREF_TOP_NONREL_NUM 100, three points
{2, 5, 8}, 11 recall / fallout / R-multiple points, utility (1, -1, 0, 0). The measure table
(names, which are printed when, how they are averaged) is measures.c:82-275, printed as
print_meas.c:79-205 does (see :mod:`auditeval.trec_eval.v8`). The default measures' fields
(num_*, map, R-prec, bpref, recip_rank, ircl_prn, P) are then replaced by the engine's values
(``v8._from_engine``), as the drop-in computes them without ``-a``.
"""

from __future__ import annotations

import math
import struct
from dataclasses import dataclass

import numpy as np

from auditeval.trec_eval.format import c_float

CUTOFF = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval.h:160
MAX_FALL_RET = 142  # trec_eval.h:165
MAX_RPREC = 2.0  # trec_eval.h:169
MAX_TIME = 300.0  # trec_eval.h:171
NUM_TIME_PTS = 60  # trec_eval.h:172
PREF_TOP_NONREL_NUM = 100  # trec_eval.h:175
NUM_RP_PTS = NUM_FR_PTS = NUM_PREC_PTS = 11  # trec_eval.h:181-185
THREE_PTS = (2, 5, 8)
MIN_GEO_MEAN = 0.00001
INFAP_EPSILON = 0.00001  # 8.1 trec_eval.h:192
NAN = -math.nan  # x86's default NaN (0.0 / 0.0): sign bit set, printed "-nan"


_F32 = struct.Struct("f")
_EXACT = 1 << 24  # integers up to 2**24 are exact floats


def f32(x: float) -> float:
    """C's conversion to ``float`` (round to nearest single; out of range: infinity)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return float(np.float32(x))


def ddiv(a: float, b: float) -> float:
    """C double division ``a / b`` (IEEE: x/0 is +-inf, 0/0 the default NaN)."""
    if b == 0:
        if a == 0 or a != a:
            return NAN if a == 0 else a
        return math.copysign(math.inf, a) * (1.0 if math.copysign(1.0, b) > 0 else -1.0)
    return a / b


def fdiv(a: float, b: float) -> float:
    """C ``(float) a / (float) b``: the float quotient (the double quotient of two floats
    rounded once to float is the correctly rounded float quotient)."""
    if type(a) is not int or not -_EXACT <= a <= _EXACT:
        a = f32(a)
    if type(b) is not int or not -_EXACT <= b <= _EXACT:
        b = f32(b)
    if b:
        return f32(a / b)
    return f32(ddiv(float(a), float(b)))


@dataclass
class Epi:
    """8.1 trec_eval.h:5-31 EVAL_PARAM_INFO: the flags the measures read."""

    version: str = "8.1"
    relevance_level: int = 1
    time_flag: bool = False
    utility: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0)
    num_docs_in_coll: int = 0


# measures.c:82-190 sing_meas: (name, field, is_long, short, time, only_query, only_average,
# avg_results, avg_rel_results, gm_results); 8.0 has neither num_nonrel_judged_ret nor infAP
SING = (
    ("num_ret", "num_ret", 1, 1, 0, 0, 0, 0, 0, 0),
    ("num_rel", "num_rel", 1, 1, 0, 0, 0, 0, 0, 0),
    ("num_rel_ret", "num_rel_ret", 1, 1, 0, 0, 0, 0, 0, 0),
    ("map", "av_recall_precis", 0, 1, 0, 0, 0, 1, 0, 0),
    ("gm_ap", "gm_ap", 0, 1, 0, 0, 1, 0, 0, 1),
    ("R-prec", "R_recall_precis", 0, 1, 0, 0, 0, 1, 0, 0),
    ("bpref", "bpref", 0, 1, 0, 0, 0, 1, 0, 0),
    ("recip_rank", "recip_rank", 0, 1, 0, 0, 0, 1, 0, 0),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret", 1, 0, 0, 0, 0, 0, 0, 0),
    ("exact_prec", "exact_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("exact_recall", "exact_recall", 0, 0, 0, 0, 0, 1, 0, 0),
    ("11-pt_avg", "int_av11_recall_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("3-pt_avg", "int_av3_recall_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("avg_doc_prec", "avg_doc_prec", 0, 0, 0, 0, 0, 0, 1, 0),
    ("exact_relative_prec", "exact_rel_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("avg_relative_prec", "av_rel_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("exact_unranked_avg_prec", "exact_uap", 0, 0, 0, 0, 0, 1, 0, 0),
    ("exact_relative_unranked_avg_prec", "exact_rel_uap", 0, 0, 0, 0, 0, 1, 0, 0),
    ("map_at_R", "av_R_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("int_map", "int_av_recall_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("exact_int_R_rcl_prec", "int_R_recall_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("int_map_at_R", "int_av_R_precis", 0, 0, 0, 0, 0, 1, 0, 0),
    ("time_integral_prec", "av_time_precis", 0, 0, 1, 0, 0, 1, 0, 0),
    ("time_integral_relative_prec", "av_time_relprecis", 0, 0, 1, 0, 0, 1, 0, 0),
    ("time_integral_uap", "av_time_uap", 0, 0, 1, 0, 0, 1, 0, 0),
    ("time_integral_relative_uap", "av_time_reluap", 0, 0, 1, 0, 0, 1, 0, 0),
    ("time_integral_cum_rel", "av_time_cum_rel", 0, 0, 1, 0, 0, 1, 0, 0),
    *((n, n, 0, 0, 0, 0, 0, 1, 0, 0) for n in (
        "bpref_allnonrel", "bpref_retnonrel", "bpref_topnonrel", "bpref_top5Rnonrel",
        "bpref_top10Rnonrel", "bpref_top10pRnonrel", "bpref_top25pRnonrel", "bpref_top50pRnonrel",
        "bpref_top25p2Rnonrel", "bpref_retall", "bpref_5", "bpref_10", "bpref_num_all",
        "bpref_num_ret")),
    ("bpref_num_correct", "bpref_num_correct", 1, 0, 0, 0, 0, 0, 0, 0),
    ("bpref_num_possible", "bpref_num_possible", 1, 0, 0, 0, 0, 0, 0, 0),
    ("old_bpref", "old_bpref", 0, 0, 0, 0, 0, 1, 0, 0),
    ("old_bpref_top10pRnonrel", "old_bpref_top10pRnonrel", 0, 0, 0, 0, 0, 1, 0, 0),
    ("infAP", "inf_ap", 0, 0, 0, 0, 0, 1, 0, 0),
    ("gm_bpref", "gm_bpref", 0, 0, 0, 0, 1, 0, 0, 1),
    ("rank_first_rel", "rank_first_rel", 1, 0, 0, 1, 0, 0, 0, 0),
)
ONLY_81 = ("num_nonrel_judged_ret", "infAP")


def _ircl(i: int) -> str:
    return f"{f32(i / (NUM_RP_PTS - 1)):4.2f}"


def _rcut(i: int) -> str:
    return f"{f32(f32(MAX_RPREC * (i + 1)) / f32(NUM_PREC_PTS - 1)):4.2f}"


def _util(e: Epi) -> str:
    return "_".join(f"{u:3.1f}" for u in e.utility)


def _tcut(i: int) -> str:
    return str(int(i * MAX_TIME / NUM_TIME_PTS))


# measures.c:192-262 param_meas: (name format, field, n, short, time, param text); every one
# float and averaged over topics. "time_precis_%s" is listed twice (accumulated twice too).
PARAM = (
    ("ircl_prn.{}", "int_recall_precis", NUM_RP_PTS, 1, 0, lambda e, i: _ircl(i)),
    ("P{}", "precis_cut", len(CUTOFF), 1, 0, lambda e, i: str(CUTOFF[i])),
    ("recall{}", "recall_cut", len(CUTOFF), 0, 0, lambda e, i: str(CUTOFF[i])),
    ("{}R-prec", "R_prec_cut", NUM_PREC_PTS - 1, 0, 0, lambda e, i: _rcut(i)),
    ("relative_prec{}", "rel_precis_cut", len(CUTOFF), 0, 0, lambda e, i: str(CUTOFF[i])),
    ("unranked_avg_prec{}", "uap_cut", len(CUTOFF), 0, 0, lambda e, i: str(CUTOFF[i])),
    ("relative_unranked_avg_prec{}", "rel_uap_cut", len(CUTOFF), 0, 0, lambda e, i: str(CUTOFF[i])),
    ("utility_{}", "exact_utility", 1, 0, 0, lambda e, i: _util(e)),
    ("rcl_at_{}_nonrel", "av_fall_recall", 1, 0, 0, lambda e, i: str(MAX_FALL_RET)),
    ("fallout_recall_{}", "fall_recall", NUM_FR_PTS, 0, 0,
     lambda e, i: str(MAX_FALL_RET * i // (NUM_FR_PTS - 1))),
    ("int_{}R-prec", "int_R_prec_cut", NUM_PREC_PTS - 1, 0, 0, lambda e, i: _rcut(i)),
    ("time_integral_utility_{}", "av_time_utility", 1, 0, 1, lambda e, i: _util(e)),
    ("time_num_rel_{}", "time_num_rel", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_num_nonrel_{}", "time_num_nrel", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_cum_rel_{}", "time_cum_rel", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_precis_{}", "time_precis", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_precis_{}", "time_precis", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_relative_precis_{}", "time_relprecis", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_uap_{}", "time_uap", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_relative_uap_{}", "time_reluap", NUM_TIME_PTS, 0, 1, lambda e, i: _tcut(i)),
    ("time_utility_{}", "time_utility", NUM_TIME_PTS, 0, 1,
     lambda e, i: f"{_util(e)}-{_tcut(i)}"),
)

# measures.c:266-273 micro_meas: (name, numerator, denominator), summary only
MICRO = (
    ("micro_prec", "num_rel_ret", "num_ret"),
    ("micro_recall", "num_rel_ret", "num_rel"),
    ("micro_bpref", "bpref_num_correct", "bpref_num_possible"),
)

_ARRAYS = {f: n for _, f, n, *_ in PARAM if n > 1}
_SIZES = {"R_prec_cut": NUM_PREC_PTS, "int_R_prec_cut": NUM_PREC_PTS}  # trec_eval.h:318, 323
_LONGS = {f for _, f, is_long, *_ in SING if is_long}


def sing_table(version: str) -> tuple:
    return tuple(s for s in SING if version == "8.1" or s[0] not in ONLY_81)


def new_eval() -> dict:
    """A zeroed TREC_EVAL (trvec_teval.c:45 ``bzero``): scalars 0, arrays of 0.0."""
    ev: dict = {f: (0 if f in _LONGS else 0.0) for _, f, *_ in SING}
    for _, f, n, *_ in PARAM:
        ev[f] = [0.0] * _SIZES.get(f, n) if n > 1 else 0.0
    ev["num_rel"] = 0
    return ev


def trvec_eval(epi: Epi, rels: list[int], sims: list[float], num_rel: int, num_nonrel: int) -> dict:
    """trvec_teval.c:32-95 ``trvec_trec_eval`` of one topic: ``rels`` the tr_vec's relevance
    values in rank order (-1 not in the qrels; 8.1: -2 a qrels grade -1), ``sims`` their
    float scores; ``num_rel`` the qrels lines with grade >= level, ``num_nonrel`` the other
    qrels lines. No document: every value 0 (trvec_teval.c:52-54)."""
    ev = new_eval()
    if not rels:
        return ev
    lvl = epi.relevance_level
    ev["num_rel"] = num_rel
    ev["num_ret"] = len(rels)
    ev["num_rel_ret"] = sum(1 for r in rels if r >= lvl)
    _cutoff(epi, rels, ev)
    _bpref(epi, rels, ev, num_nonrel)
    _average(epi, rels, ev)
    _exact(epi, ev)
    if epi.time_flag:
        _time(epi, rels, sims, ev)
    return ev


def _step(rel_so_far: int, j: int, num_rel: int) -> tuple[float, float, float]:
    """recall, precis, rel_precis after j documents (trvec_teval.c:175-188; doubles holding
    float quotients)."""
    if rel_so_far > 0:
        recall = fdiv(rel_so_far, num_rel)
        precis = fdiv(rel_so_far, j)
        rel_precis = fdiv(rel_so_far, num_rel) if j > num_rel else precis
        return recall, precis, rel_precis
    return 0.0, 0.0, 0.0


def _cutoff(epi: Epi, rels: list[int], ev: dict) -> None:
    """trvec_teval.c:124-290 calc_cutoff_measures: cut-off, interpolated, R-based and
    fallout measures in one loop from the last retrieved document to the first."""
    lvl = epi.relevance_level
    num_ret, num_rel, nrr = ev["num_ret"], ev["num_rel"], ev["num_rel_ret"]
    rel_so_far = nrr
    int_precis = fdiv(rel_so_far, num_ret)
    cc = len(CUTOFF) - 1
    while cc > 0 and CUTOFF[cc] > num_ret:
        cc -= 1
    cut_rp = [(num_rel * i + NUM_RP_PTS - 2) // (NUM_RP_PTS - 1) for i in range(NUM_RP_PTS)]
    crp = NUM_RP_PTS - 1
    while crp > 0 and cut_rp[crp] > nrr:
        crp -= 1
    cut_fr = [(MAX_FALL_RET * i + NUM_FR_PTS - 2) // (NUM_FR_PTS - 1) for i in range(NUM_FR_PTS)]
    cfr = NUM_FR_PTS - 1
    while cfr > 0 and cut_fr[cfr] > num_ret - nrr:
        cfr -= 1
    # (MAX_RPREC * num_rel * i + 9) / 10: double arithmetic, truncated to long
    cut_rprec = [int((MAX_RPREC * num_rel * i + NUM_PREC_PTS - 2) / (NUM_PREC_PTS - 1))
                 for i in range(1, NUM_PREC_PTS + 1)]
    crr = NUM_PREC_PTS - 1
    while crr > 0 and cut_rprec[crr] > num_ret:
        crr -= 1
    recall_cut, precis_cut = ev["recall_cut"], ev["precis_cut"]
    rel_precis_cut, uap_cut, rel_uap_cut = ev["rel_precis_cut"], ev["uap_cut"], ev["rel_uap_cut"]
    irp, fall = ev["int_recall_precis"], ev["fall_recall"]
    rpc, irpc = ev["R_prec_cut"], ev["int_R_prec_cut"]
    for j in range(num_ret, 0, -1):
        recall, precis, rel_precis = _step(rel_so_far, j, num_rel)
        rel_uap = rel_precis * rel_precis
        if int_precis < precis:
            int_precis = precis
        while cc >= 0 and j == CUTOFF[cc]:
            recall_cut[cc] = f32(recall)
            precis_cut[cc] = f32(precis)
            rel_precis_cut[cc] = f32(rel_precis)
            uap_cut[cc] = f32(precis * recall)
            rel_uap_cut[cc] = f32(rel_uap)
            cc -= 1
        while crr >= 0 and j == cut_rprec[crr]:
            rpc[crr] = f32(precis)
            irpc[crr] = f32(int_precis)
            crr -= 1
        if j == num_rel:
            ev["R_recall_precis"] = f32(precis)
            ev["int_R_recall_precis"] = f32(int_precis)
        if rels[j - 1] >= lvl:
            while crp >= 0 and rel_so_far == cut_rp[crp]:
                irp[crp] = f32(int_precis)
                crp -= 1
            ev["recip_rank"] = f32(ddiv(1.0, f32(j)))
            ev["rank_first_rel"] = j
            rel_so_far -= 1
        else:
            while cfr >= 0 and j - rel_so_far == cut_fr[cfr] + 1:
                fall[cfr] = f32(recall)
                cfr -= 1
    irp[0] = f32(int_precis)
    for i, c in enumerate(CUTOFF):
        if num_ret < c:
            if nrr > 0:
                recall_cut[i] = fdiv(nrr, num_rel)
                precis_cut[i] = fdiv(nrr, c)
            rel_precis_cut[i] = precis_cut[i] if c < num_rel else recall_cut[i]
            uap_cut[i] = f32(precis_cut[i] * recall_cut[i])
            rel_uap_cut[i] = f32(precis_cut[i] * precis_cut[i])
    for i in range(NUM_FR_PTS):
        if num_ret - nrr < cut_fr[i] and nrr > 0:
            fall[i] = fdiv(nrr, num_rel)
    for i in range(NUM_PREC_PTS):  # R_prec_cut[10] (2.2 R) is computed, never printed
        if num_ret < cut_rprec[i]:
            rpc[i] = irpc[i] = fdiv(nrr, cut_rprec[i])
    if num_rel > num_ret:
        ev["R_recall_precis"] = ev["int_R_recall_precis"] = fdiv(nrr, num_rel)
    a, b, c = (irp[k] for k in THREE_PTS)
    ev["int_av3_recall_precis"] = f32(f32(f32(a + b) + c) / 3.0)
    acc = 0.0
    for v in irp:
        acc = f32(acc + v)
    ev["int_av11_recall_precis"] = fdiv(acc, NUM_RP_PTS)


def _bpref(epi: Epi, rels: list[int], ev: dict, num_nonrel: int) -> None:
    """trvec_teval.c:292-470 calc_bpref_measures (8.1): the bpref family, infAP, over the
    judged documents in rank order. 8.1 skips -1 (not in the qrels), counts -2 as pooled but
    unjudged, takes ``0 <= rel < level`` as judged nonrelevant and any other as relevant;
    8.0 (its trvec_teval.c:321-345) takes ``rel == 0`` as judged nonrelevant, then
    ``rel >= level`` as relevant, and has no infAP."""
    lvl = epi.relevance_level
    v80 = epi.version == "8.0"
    num_rel = ev["num_rel"]
    top_r, top_10p, top_25p, top_50p, top_25p2 = num_rel, 10 + num_rel, 25 + num_rel, 50 + num_rel, \
        25 + 2 * num_rel

    def is_nonrel(r: int) -> bool:
        return r == 0 if v80 else 0 <= r < lvl

    nonrel_ret = sum(1 for r in rels if is_nonrel(r))
    nonrel_so_far = rel_so_far = pool_unjudged = b5 = b10 = 0
    acc = {k: 0.0 for k in ("bpref", "old_bpref", "bpref_allnonrel", "bpref_retnonrel", "bpref_retall",
                            "bpref_topnonrel", "bpref_top50pRnonrel", "bpref_top25pRnonrel",
                            "bpref_top10pRnonrel", "old_bpref_top10pRnonrel", "bpref_top25p2Rnonrel",
                            "bpref_5", "bpref_10", "bpref_top5Rnonrel", "bpref_top10Rnonrel",
                            "bpref_num_all", "bpref_num_ret", "inf_ap")}
    correct = 0

    def add(k: str, term: float) -> None:
        acc[k] = f32(acc[k] + term)

    def pref(so_far: int, total: int) -> float:  # 1.0 - (float) so_far / (float) total, double
        return 1.0 - fdiv(so_far, total)

    for j, r in enumerate(rels):
        if v80:
            if r == 0:
                kind = "n"
            elif r >= lvl:
                kind = "r"
            else:
                continue
        else:
            if r == -1:
                continue
            if r == -2:
                pool_unjudged += 1
                continue
            kind = "n" if 0 <= r < lvl else "r"
        if kind == "n":
            if nonrel_so_far < 5 * num_rel:
                b5 += 1
                if nonrel_so_far < 10 * num_rel:
                    b10 += 1
            nonrel_so_far += 1
            continue
        rel_so_far += 1
        n = nonrel_so_far
        if n > 0:
            add("bpref_allnonrel", pref(n, num_nonrel))
            add("bpref_retnonrel", pref(n, nonrel_ret))
            add("bpref_retall", pref(n, nonrel_ret))
            correct += min(num_nonrel, top_r) - min(n, top_r)
            add("bpref", pref(min(n, top_r), min(num_nonrel, top_r)))
            add("old_bpref", pref(min(n, top_r), min(nonrel_ret, top_r)))
            add("bpref_topnonrel", pref(min(n, PREF_TOP_NONREL_NUM), min(num_nonrel, PREF_TOP_NONREL_NUM)))
            add("bpref_top50pRnonrel", pref(min(n, top_50p), min(num_nonrel, top_50p)))
            add("bpref_top25pRnonrel", pref(min(n, top_25p), min(num_nonrel, top_25p)))
            add("bpref_top10pRnonrel", pref(min(n, top_10p), min(num_nonrel, top_10p)))
            add("old_bpref_top10pRnonrel", pref(min(n, top_10p), min(nonrel_ret, top_10p)))
            add("bpref_top25p2Rnonrel", pref(min(n, top_25p2), min(num_nonrel, top_25p2)))
            if rel_so_far <= 5 and n < 5:
                add("bpref_5", pref(n, min(num_nonrel, 5)))
            if rel_so_far <= 10 and n < 10:
                add("bpref_10", pref(n, min(num_nonrel, 10)))
        else:
            for k in ("bpref", "old_bpref", "bpref_allnonrel", "bpref_retnonrel", "bpref_retall",
                      "bpref_topnonrel", "bpref_top50pRnonrel", "bpref_top25pRnonrel", "bpref_top10pRnonrel",
                      "old_bpref_top10pRnonrel", "bpref_top25p2Rnonrel"):
                add(k, 1.0)
            if rel_so_far <= 5:
                add("bpref_5", 1.0)
            if rel_so_far <= 10:
                add("bpref_10", 1.0)
        add("bpref_top5Rnonrel", pref(b5, min(num_nonrel, num_rel * 5)))
        add("bpref_top10Rnonrel", pref(b10, min(num_nonrel, num_rel * 10)))
        add("bpref_num_all", f32(num_nonrel - n))  # float += long: float arithmetic
        add("bpref_num_ret", f32(nonrel_ret - n))
        if not v80:  # 8.1 trvec_teval.c:426-436
            if j == 0:
                add("inf_ap", 1.0)
            else:
                fj = f32(j)
                add("inf_ap", 1.0 / (fj + 1.0) + (fj / (fj + 1.0))
                    * fdiv(rel_so_far - 1 + n + pool_unjudged, fj)
                    * ((rel_so_far - 1 + INFAP_EPSILON) / (rel_so_far - 1 + n + 2 * INFAP_EPSILON)))
    if num_rel:
        for k in ("bpref", "old_bpref", "bpref_allnonrel", "bpref_retnonrel", "bpref_topnonrel",
                  "bpref_top5Rnonrel", "bpref_top10Rnonrel", "bpref_top50pRnonrel", "bpref_top25pRnonrel",
                  "bpref_top10pRnonrel", "old_bpref_top10pRnonrel", "bpref_top25p2Rnonrel"):
            acc[k] = fdiv(acc[k], num_rel)
        if ev["num_rel_ret"]:
            acc["bpref_retall"] = fdiv(acc["bpref_retall"], ev["num_rel_ret"])
            acc["bpref_5"] = fdiv(acc["bpref_5"], min(rel_so_far, 5))
            acc["bpref_10"] = fdiv(acc["bpref_10"], min(rel_so_far, 10))
        ev["bpref_num_possible"] = num_rel * min(num_nonrel, top_r)
        if not v80:
            acc["inf_ap"] = fdiv(acc["inf_ap"], num_rel)
    ev.update(acc)
    ev["bpref_num_correct"] = correct
    if not v80:
        ev["num_nonrel_judged_ret"] = nonrel_ret
    ev["gm_bpref"] = log_floor(ev["bpref"])


def log_floor(v: float) -> float:
    """``(float) log ((double) MAX (v, MIN_GEO_MEAN))`` (trvec_teval.c:468, 591)."""
    m = v if v > MIN_GEO_MEAN else MIN_GEO_MEAN  # MAX(a, b): ((a) > (b) ? (a) : (b)); NaN: the floor
    return f32(math.log(m))


def _average(epi: Epi, rels: list[int], ev: dict) -> None:
    """trvec_teval.c:472-593 calc_average_measures: AP, interpolated AP, map_at_R, relative
    precision, avg_doc_prec, rcl_at_142_nonrel; gm_ap's per-topic log."""
    lvl = epi.relevance_level
    num_ret, num_rel, nrr = ev["num_ret"], ev["num_rel"], ev["num_rel_ret"]
    rel_so_far = nrr
    int_precis = fdiv(rel_so_far, num_ret)
    av_rel_precis = av_rel_uap = av_r = int_av_r = int_av = av = adp = fall = 0.0
    for j in range(num_ret, 0, -1):
        recall, precis, rel_precis = _step(rel_so_far, j, num_rel)
        rel_uap = rel_precis * rel_precis
        if int_precis < precis:
            int_precis = precis
        av_rel_precis = f32(av_rel_precis + rel_precis)
        av_rel_uap = f32(av_rel_uap + rel_uap)
        if j < num_rel:
            av_r = f32(av_r + precis)
            int_av_r = f32(int_av_r + int_precis)
        if rels[j - 1] >= lvl:
            int_av = f32(int_av + int_precis)
            av = f32(av + precis)
            adp = f32(adp + precis)
            rel_so_far -= 1
        elif j - rel_so_far < MAX_FALL_RET:
            fall = f32(fall + recall)
    if num_ret - nrr < MAX_FALL_RET and nrr > 0:
        fall = f32(fall + f32(f32(MAX_FALL_RET - (num_ret - nrr)) * fdiv(nrr, num_rel)))
    if num_rel > num_ret:
        for i in range(num_ret, num_rel):
            q = fdiv(nrr, i)
            av_r = f32(av_r + q)
            int_av_r = f32(int_av_r + q)
    if nrr > 0:
        av = fdiv(av, num_rel)
        int_av = fdiv(int_av, num_rel)
    ev["av_fall_recall"] = fdiv(fall, MAX_FALL_RET)
    ev["av_rel_precis"] = fdiv(av_rel_precis, num_ret)
    ev["av_rel_uap"] = fdiv(av_rel_uap, num_ret)
    if num_rel:
        av_r = fdiv(av_r, num_rel)
        int_av_r = fdiv(int_av_r, num_rel)
    ev["av_R_precis"], ev["int_av_R_precis"] = av_r, int_av_r
    ev["int_av_recall_precis"], ev["av_recall_precis"], ev["avg_doc_prec"] = int_av, av, adp
    ev["gm_ap"] = log_floor(av)


def _exact(epi: Epi, ev: dict) -> None:
    """trvec_teval.c:595-624 calc_exact_measures (double arithmetic, stored as float)."""
    num_ret, num_rel, nrr = ev["num_ret"], ev["num_rel"], ev["num_rel_ret"]
    if not num_rel:
        return
    recall = ddiv(float(nrr), float(num_rel))
    precis = ddiv(float(nrr), float(num_ret))
    ev["exact_recall"], ev["exact_precis"] = f32(recall), f32(precis)
    recall, precis = f32(recall), f32(precis)
    ev["exact_uap"] = f32(recall * precis)  # float * float
    ev["exact_rel_precis"] = precis if num_rel > num_ret else recall
    ev["exact_rel_uap"] = f32(precis * precis)
    ua, ub, uc, ud = epi.utility
    ev["exact_utility"] = f32(ua * nrr + ub * (num_ret - nrr) + uc * (num_rel - nrr)
                              + ud * (epi.num_docs_in_coll + nrr - num_ret - num_rel))


def _bucket(sim: float) -> int:
    """``(long) (sim * (NUM_TIME_PTS / MAX_TIME))`` clamped to [0, 59] (trvec_teval.c:654-657);
    x86's cvttsd2si gives LONG_MIN (so bucket 0) for NaN and out-of-range values."""
    x = sim * (NUM_TIME_PTS / MAX_TIME)
    b = int(x) if math.isfinite(x) and abs(x) < 2.0 ** 63 else -(2 ** 63)
    return min(max(b, 0), NUM_TIME_PTS - 1)


def _time(epi: Epi, rels: list[int], sims: list[float], ev: dict) -> None:
    """trvec_teval.c:626-700 calc_time_measures (``-T``): the score read as a time in seconds
    (ranks by increasing score, form_trvec.c:46-50), in 60 buckets of 5 s up to 300 s; each
    bucket holds the values after its earliest document, later empty buckets the values of
    the bucket before them, and the integrals average buckets 1..59 (bucket 0 is left out of
    all but the cumulative count, trvec_teval.c:688-696)."""
    lvl = epi.relevance_level
    num_ret, num_rel, nrr = ev["num_ret"], ev["num_rel"], ev["num_rel_ret"]
    ua, ub, uc, ud = epi.utility
    nd = epi.num_docs_in_coll
    rel_so_far = nrr
    mrr = min(num_rel, num_ret)
    last = NUM_TIME_PTS
    nrel, nnrel = ev["time_num_rel"], ev["time_num_nrel"]
    tp, trp, tu, tru, tut = ev["time_precis"], ev["time_relprecis"], ev["time_uap"], ev["time_reluap"], \
        ev["time_utility"]
    fr, fm = f32(num_ret), f32(mrr)
    for j in range(num_ret, 0, -1):
        b = _bucket(sims[j - 1])
        if rels[j - 1] >= lvl:
            nrel[b] = f32(nrel[b] + 1)
        else:
            nnrel[b] = f32(nnrel[b] + 1)
        tp[b] = fdiv(rel_so_far, num_ret)
        trp[b] = fdiv(rel_so_far, mrr)
        rr = f32(f32(rel_so_far) * rel_so_far)
        tu[b] = f32(ddiv(rr, f32(fr * fm)))
        tru[b] = f32(ddiv(rr, f32(fm * fm)))
        tut[b] = f32(ua * rel_so_far + ub * (j - rel_so_far) + uc * (num_rel - rel_so_far)
                     + ud * (nd + rel_so_far - j - num_rel))
        for i in range(b + 1, last):
            tp[i], trp[i], tu[i], tru[i], tut[i] = tp[b], trp[b], tu[b], tru[b], tut[b]
        last = b
    cum = ev["time_cum_rel"]
    cum[0] = nrel[0]
    sums = {"cum": nrel[0], "p": 0.0, "rp": 0.0, "u": 0.0, "ru": 0.0, "ut": 0.0}
    for i in range(1, NUM_TIME_PTS):
        cum[i] = f32(cum[i - 1] + nrel[i])
        sums["cum"] = f32(sums["cum"] + cum[i])
        sums["p"] = f32(sums["p"] + tp[i])
        sums["rp"] = f32(sums["rp"] + trp[i])
        sums["u"] = f32(sums["u"] + tu[i])
        sums["ru"] = f32(sums["ru"] + tru[i])
        sums["ut"] = f32(sums["ut"] + tut[i])
    ev["av_time_cum_rel"] = fdiv(sums["cum"], NUM_TIME_PTS)
    ev["av_time_precis"] = fdiv(sums["p"], NUM_TIME_PTS)
    ev["av_time_relprecis"] = fdiv(sums["rp"], NUM_TIME_PTS)
    ev["av_time_uap"] = fdiv(sums["u"], NUM_TIME_PTS)
    ev["av_time_reluap"] = fdiv(sums["ru"], NUM_TIME_PTS)
    ev["av_time_utility"] = fdiv(sums["ut"], NUM_TIME_PTS)


def accumulate(version: str, evals: list[dict]) -> tuple[dict, int]:
    """print_meas.c:26-75 accumulate_results over the topics in order: topics that retrieved
    nothing are skipped; long fields summed as long, float fields ``+=`` in float, each
    listed field once per listing (time_precis is listed twice in param_meas, so summed twice).
    Returns the summed struct and the number of topics summed."""
    acc = new_eval()
    n = 0
    sing = sing_table(version)
    for ev in evals:
        if ev["num_ret"] <= 0:
            continue
        n += 1
        for _, f, is_long, *_ in sing:
            acc[f] = acc[f] + ev[f] if is_long else f32(acc[f] + ev[f])
        for _, f, k, *_ in PARAM:
            if k > 1:
                acc[f] = [f32(a + b) for a, b in zip(acc[f], ev[f], strict=True)]
            else:
                acc[f] = f32(acc[f] + ev[f])
    return acc, n


def print_rel(epi: Epi, all_flag: bool, ev: dict, qid: str | None, num_queries: int = 1,
              num_orig: int = 0, complete: bool = False) -> str:
    """print_meas.c:79-205 print_rel_trec_eval_list of one topic (``qid``) or of the summary
    (``qid`` None: ``num_q`` first, means, the micro measures last)."""
    single = qid is not None
    q = qid if single else "all"
    out = [] if single else [f"{'num_q':<15}\t{q}\t{num_queries}\n"]
    with np.errstate(all="ignore"):
        for name, f, is_long, short, time, only_q, only_avg, avg, avg_rel, gm in sing_table(epi.version):
            if (not short and not all_flag) or (time and not epi.time_flag) or (only_q and not single) \
                    or (only_avg and single):
                continue
            if is_long:
                out.append(f"{name:<15}\t{q}\t{ev[f]}\n")
                continue
            v = ev[f]
            if avg:
                v = fdiv(v, num_queries)
            elif avg_rel and ev["num_rel"] > 0:
                v = fdiv(v, ev["num_rel"])
            elif gm:
                if not single and complete:
                    v = f32(v + (num_queries - num_orig) * math.log(MIN_GEO_MEAN))
                v = f32(np.exp(np.float64(fdiv(v, num_queries))))
            out.append(f"{name:<15}\t{q}\t{_c_float(v)}\n")
        for fmt, f, k, short, time, param in PARAM:
            if (not short and not all_flag) or (time and not epi.time_flag):
                continue
            vals = ev[f] if k > 1 else [ev[f]]
            for j in range(k):
                out.append(f"{fmt.format(param(epi, j)):<15}\t{q}\t{_c_float(fdiv(vals[j], num_queries))}\n")
        if not single and all_flag:
            for name, a, b in MICRO:
                out.append(f"{name:<15}\t{q}\t{_c_float(fdiv(ev[a], ev[b]))}\n")
    return "".join(out)


def _c_float(v: float) -> str:
    return c_float(v)
