"""trec_eval 8.x's bpref family and infAP of one topic (8.1 trvec_teval.c:292-470
calc_bpref_measures; 8.0's trvec_teval.c:321-345 differs in its tests and has no infAP).

Over the tr_vec in rank order: 8.1 skips -1 (not in the qrels), counts -2 (a qrels grade -1)
as pooled but unjudged, takes ``0 <= rel < level`` as judged nonrelevant and any other as
relevant; 8.0 takes ``rel == 0`` as judged nonrelevant, then ``rel >= level`` as relevant, and
skips the rest. At the k-th relevant document, with ``n`` judged nonrelevant above it, each
measure adds ``1.0 - (float) MIN(n, cap) / (float) MIN(N, cap)`` (1.0 while n is 0) for its own
cap, N the topic's non-relevant qrels lines (``num_nonrel``) or the retrieved ones. The counts
at every relevant document are arrays; the terms are doubles (``1.0 -`` a float) added to float
fields (``float += double``), so their sums are :func:`seq_sum_double`: the one loop, over the
relevant documents only, every measure at once.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.c_float import fdiv, fdiv_arr, log_floor, seq_sum_double
from auditeval.engine.trec8.fields import INFAP_EPSILON, PREF_TOP_NONREL_NUM, Trec8Params

# the sums divided by num_rel at the end (trvec_teval.c:440-452); bpref_retall, bpref_5,
# bpref_10 have their own divisors, bpref_num_all and bpref_num_ret none
_BY_R = ("bpref", "old_bpref", "bpref_allnonrel", "bpref_retnonrel", "bpref_topnonrel", "bpref_top5Rnonrel",
         "bpref_top10Rnonrel", "bpref_top50pRnonrel", "bpref_top25pRnonrel", "bpref_top10pRnonrel",
         "old_bpref_top10pRnonrel", "bpref_top25p2Rnonrel")


def _kinds(params: Trec8Params, rels: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Per tr_vec entry: judged nonrelevant, relevant (to bpref), pooled-unjudged (8.1's -2)."""
    if params.version == "8.0":
        non = rels == 0
        return non, ~non & (rels >= params.relevance_level), np.zeros(len(rels), dtype=bool)
    pooled = rels == -2
    non = (rels >= 0) & (rels < params.relevance_level)
    return non, ~non & ~pooled & (rels != -1), pooled


def _pref(a: np.ndarray, b: np.ndarray | int) -> np.ndarray:
    """``1.0 - (float) a / (float) b`` (double minus a float quotient)."""
    return 1.0 - fdiv_arr(a, b).astype(np.float64)


def bpref_measures(params: Trec8Params, rels: np.ndarray, ev: dict, num_nonrel: int) -> None:
    num_rel, big_n = ev["num_rel"], num_nonrel
    non, rel, pooled = _kinds(params, rels)
    nonrel_ret = int(non.sum())
    pos = np.flatnonzero(rel)  # tr_vec index of each relevant document
    k = np.arange(1, len(pos) + 1)  # rel_so_far after it
    n = np.cumsum(non)[pos] - 0 if len(pos) else np.zeros(0, dtype=np.int64)  # nonrelevant above
    n = n.astype(np.int64)
    some = n > 0
    b5 = np.minimum(n, max(5 * num_rel, 0))  # the count stops at 5 R (its 10 R test is inside)

    def capped(cap: int, total: int) -> np.ndarray:
        return np.where(some, _pref(np.minimum(n, cap), min(total, cap)), 1.0)

    r, p10, p25, p50, p25x2 = num_rel, 10 + num_rel, 25 + num_rel, 50 + num_rel, 25 + 2 * num_rel
    terms = {
        "bpref_allnonrel": np.where(some, _pref(n, big_n), 1.0),
        "bpref_retnonrel": np.where(some, _pref(n, nonrel_ret), 1.0),
        "bpref_retall": np.where(some, _pref(n, nonrel_ret), 1.0),
        "bpref": capped(r, big_n), "old_bpref": capped(r, nonrel_ret),
        "bpref_topnonrel": capped(PREF_TOP_NONREL_NUM, big_n), "bpref_top50pRnonrel": capped(p50, big_n),
        "bpref_top25pRnonrel": capped(p25, big_n), "bpref_top10pRnonrel": capped(p10, big_n),
        "old_bpref_top10pRnonrel": capped(p10, nonrel_ret), "bpref_top25p2Rnonrel": capped(p25x2, big_n),
        "bpref_5": np.where(some, np.where((k <= 5) & (n < 5), _pref(n, min(big_n, 5)), 0.0), np.where(k <= 5, 1.0, 0.0)),
        "bpref_10": np.where(some, np.where((k <= 10) & (n < 10), _pref(n, min(big_n, 10)), 0.0),
                             np.where(k <= 10, 1.0, 0.0)),
        "bpref_top5Rnonrel": _pref(b5, min(big_n, num_rel * 5)),
        "bpref_top10Rnonrel": _pref(b5, min(big_n, num_rel * 10)),
        "bpref_num_all": (big_n - n).astype(np.float32).astype(np.float64),  # float += long: a float
        "bpref_num_ret": (nonrel_ret - n).astype(np.float32).astype(np.float64),
    }
    if params.version != "8.0":
        terms["inf_ap"] = _inf_ap_terms(pos, k, n, np.cumsum(pooled)[pos] if len(pos) else n)
    names = list(terms)
    with np.errstate(all="ignore"):
        sums = seq_sum_double(np.column_stack([terms[m] for m in names]) if len(pos) else np.zeros((0, len(names))))
    acc = {m: float(v) for m, v in zip(names, sums, strict=True)}
    if num_rel:
        for m in _BY_R:
            acc[m] = fdiv(acc[m], num_rel)
        if ev["num_rel_ret"]:
            acc["bpref_retall"] = fdiv(acc["bpref_retall"], ev["num_rel_ret"])
            acc["bpref_5"] = fdiv(acc["bpref_5"], min(len(pos), 5))
            acc["bpref_10"] = fdiv(acc["bpref_10"], min(len(pos), 10))
        ev["bpref_num_possible"] = num_rel * min(big_n, num_rel)
        if "inf_ap" in acc:
            acc["inf_ap"] = fdiv(acc["inf_ap"], num_rel)
    ev.update(acc)
    ev["bpref_num_correct"] = int(np.where(some, min(big_n, r) - np.minimum(n, r), 0).sum())
    if params.version != "8.0":
        ev["num_nonrel_judged_ret"] = nonrel_ret
    ev["gm_bpref"] = log_floor(ev["bpref"])


def _inf_ap_terms(pos: np.ndarray, k: np.ndarray, n: np.ndarray, pool: np.ndarray) -> np.ndarray:
    """8.1 trvec_teval.c:426-436: at tr_vec index j (0-based) the k-th relevant document adds
    1.0 (j = 0) or ``1/(j+1) + (j/(j+1)) (float)(k-1+n+pool)/(float) j ((k-1+e)/(k-1+n+2e))``,
    ``j`` a float, the rest double arithmetic."""
    fj = pos.astype(np.float32).astype(np.float64)
    with np.errstate(all="ignore"):
        term = (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * fdiv_arr(k - 1 + n + pool, pos).astype(np.float64)
                * ((k - 1 + INFAP_EPSILON) / (k - 1 + n + 2 * INFAP_EPSILON)))
    return np.where(pos == 0, 1.0, term)
