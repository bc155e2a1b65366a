"""trec_eval 8.x's rank-based measures of one topic (8.1 trvec_teval.c:124-290
calc_cutoff_measures, 472-593 calc_average_measures, 595-624 calc_exact_measures), vectorized
over the ranks.

The C code walks the ranked documents from the last to the first with ``rel_so_far`` counting
down; at rank ``j`` it holds the relevant documents in ranks 1..j (``cum[j]``), so precision,
recall and relative precision at every rank are arrays (``(float) rel_so_far / (float) j``,
:func:`fdiv_arr`) and the interpolated precision is their running maximum from the last rank
up. A value stored "when ``j`` equals a cut-off" is the array at that rank; one stored "while
the counter equals ``cut[p]``, ``p`` counting down" is the array at the rank where the counter
reaches ``cut[p]`` (:func:`_pointer_cuts`, which keeps the C loop's blocking: a cut the counter
never reaches stops the ones below it). Float sums (``float += float``) are :func:`seq_sum`
over the terms in the C loop's order, last rank first; a term the loop skips is a 0.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.c_float import f32, fdiv, fdiv_arr, log_floor, seq_sum
from auditeval.engine.trec8.fields import (
    CUTOFF,
    MAX_FALL_RET,
    MAX_RPREC,
    NUM_FR_PTS,
    NUM_PREC_PTS,
    NUM_RP_PTS,
    THREE_PTS,
    Trec8Params,
)

_F = np.float32


class Steps:
    """Per rank j = 1..num_ret (index j - 1): ``cum`` relevant in ranks 1..j, and the doubles
    holding float quotients trvec_teval.c:175-188 computes there (all 0 while cum is 0)."""

    def __init__(self, rel: np.ndarray, num_rel: int):
        self.rel = rel
        self.n = len(rel)
        self.num_rel = num_rel
        self.cum = np.cumsum(rel, dtype=np.int64)
        j = np.arange(1, self.n + 1, dtype=np.int64)
        some = self.cum > 0
        self.recall = np.where(some, fdiv_arr(self.cum, num_rel), _F(0))
        self.precis = np.where(some, fdiv_arr(self.cum, j), _F(0))
        self.rel_precis = np.where(some & (j > num_rel), self.recall, self.precis)
        self.int_precis = np.maximum.accumulate(self.precis[::-1])[::-1]  # from the last rank up
        self.relpos = np.flatnonzero(rel)
        self.nonpos = np.flatnonzero(~rel)


def _pointer_cuts(cut: np.ndarray, start: int, reached: int) -> np.ndarray:
    """Which of ``cut`` (non-decreasing) the C loop's ``while (p >= 0 && counter == cut[p])
    p--`` stores, ``p`` starting at ``start``, the counter taking each value reached..1 once
    (counting down): from ``start`` down while cut[p] is in 1..reached; the first that is not
    blocks every one below it."""
    done = np.zeros(len(cut), dtype=bool)
    for p in range(start, -1, -1):
        if not 1 <= cut[p] <= reached:
            break
        done[p] = True
    return done


def cutoff_measures(s: Steps, ev: dict) -> None:
    """calc_cutoff_measures: P, recall, relative precision and the unranked averages at the
    cut-offs, interpolated precision at 11 recall points, the R-multiple precisions,
    R-precision, the reciprocal rank and the fallout-recall points."""
    n, num_rel = s.n, s.num_rel
    nrr = int(s.cum[-1])
    cuts = np.array(CUTOFF)
    inside = cuts <= n
    at = np.minimum(cuts, n) - 1
    pre, rec, relp = s.precis[at], s.recall[at], s.rel_precis[at]
    if nrr > 0:  # beyond the ranking: the final counts (trvec_teval.c:251-262)
        rec = np.where(inside, rec, fdiv_arr(nrr, num_rel))
        pre = np.where(inside, pre, fdiv_arr(nrr, cuts))
    else:
        rec, pre = np.where(inside, rec, _F(0)), np.where(inside, pre, _F(0))
    relp = np.where(inside, relp, np.where(cuts < num_rel, pre, rec))
    ev["recall_cut"], ev["precis_cut"], ev["rel_precis_cut"] = _lst(rec), _lst(pre), _lst(relp)
    ev["uap_cut"] = _lst(np.where(inside, s.precis[at].astype(np.float64) * s.recall[at], pre.astype(np.float64) * rec))
    ev["rel_uap_cut"] = _lst(np.where(inside, s.rel_precis[at].astype(np.float64) ** 2, pre.astype(np.float64) ** 2))
    # (MAX_RPREC * num_rel * i + 9) / 10: double arithmetic, truncated to long
    cut_rprec = np.array([int((MAX_RPREC * num_rel * i + NUM_PREC_PTS - 2) / (NUM_PREC_PTS - 1))
                          for i in range(1, NUM_PREC_PTS + 1)])
    hit = (cut_rprec >= 1) & (cut_rprec <= n)
    idx = np.clip(cut_rprec, 1, n) - 1
    beyond = fdiv_arr(nrr, cut_rprec)
    zero = _F(0)
    ev["R_prec_cut"] = _lst(np.where(hit, s.precis[idx], np.where(cut_rprec > n, beyond, zero)))
    ev["int_R_prec_cut"] = _lst(np.where(hit, s.int_precis[idx], np.where(cut_rprec > n, beyond, zero)))
    if 1 <= num_rel <= n:
        ev["R_recall_precis"], ev["int_R_recall_precis"] = float(s.precis[num_rel - 1]), float(s.int_precis[num_rel - 1])
    elif num_rel > n:
        ev["R_recall_precis"] = ev["int_R_recall_precis"] = fdiv(nrr, num_rel)
    _recall_points(s, ev, nrr)
    _fallout_points(s, ev, nrr)
    if nrr > 0:
        first = int(s.relpos[0]) + 1
        ev["recip_rank"], ev["rank_first_rel"] = f32(1.0 / f32(first)), first


def _recall_points(s: Steps, ev: dict, nrr: int) -> None:
    """ircl_prn: the interpolated precision at the relevant document that brings the count to
    ``cut_rp[i] = (R i + 9) / 10`` (long division), point 0 the maximum over every rank; the
    3-point and 11-point averages of the 11 (float sums)."""
    cut_rp = np.array([(s.num_rel * i + NUM_RP_PTS - 2) // (NUM_RP_PTS - 1) for i in range(NUM_RP_PTS)])
    start = NUM_RP_PTS - 1
    while start > 0 and cut_rp[start] > nrr:
        start -= 1
    done = _pointer_cuts(cut_rp, start, nrr)
    irp = np.zeros(NUM_RP_PTS, dtype=_F)
    if done.any():
        irp[done] = s.int_precis[s.relpos[cut_rp[done] - 1]]
    irp[0] = s.int_precis[0]
    ev["int_recall_precis"] = _lst(irp)
    a, b, c = (float(irp[k]) for k in THREE_PTS)
    ev["int_av3_recall_precis"] = f32(f32(f32(a + b) + c) / 3.0)
    ev["int_av11_recall_precis"] = fdiv(float(seq_sum(irp)), NUM_RP_PTS)


def _fallout_points(s: Steps, ev: dict, nrr: int) -> None:
    """fallout_recall_k: the recall at the nonrelevant document after the ``cut_fr[i] = (142 i +
    9) / 10``-th (the counter is the nonrelevant documents in ranks 1..j, matched against cut + 1);
    points beyond the retrieved nonrelevant documents the final recall."""
    nnr = s.n - nrr
    cut_fr = np.array([(MAX_FALL_RET * i + NUM_FR_PTS - 2) // (NUM_FR_PTS - 1) for i in range(NUM_FR_PTS)])
    start = NUM_FR_PTS - 1
    while start > 0 and cut_fr[start] > nnr:
        start -= 1
    done = _pointer_cuts(cut_fr + 1, start, nnr)
    fall = np.zeros(NUM_FR_PTS, dtype=_F)
    if done.any():
        fall[done] = s.recall[s.nonpos[cut_fr[done]]]
    if nrr > 0:
        fall[nnr < cut_fr] = fdiv(nrr, s.num_rel)
    ev["fall_recall"] = _lst(fall)


def average_measures(s: Steps, ev: dict) -> None:
    """calc_average_measures: AP (and avg_doc_prec, the same sum), interpolated AP, map_at_R
    (precision at ranks j < R only, then (float) nrr / i for i = num_ret .. R - 1), relative
    precision's average, rcl_at_142_nonrel; gm_ap's per-topic log."""
    n, num_rel = s.n, s.num_rel
    nrr = int(s.cum[-1])
    rev = slice(None, None, -1)  # the C loop's order: the last rank first
    j = np.arange(1, n + 1)
    below_r = j < num_rel
    av_rel_precis = seq_sum(s.rel_precis[rev])
    extra = fdiv_arr(nrr, np.arange(n, num_rel)) if num_rel > n else np.zeros(0, dtype=_F)
    av_r = seq_sum(np.concatenate([np.where(below_r, s.precis, 0)[rev], extra]))
    int_av_r = seq_sum(np.concatenate([np.where(below_r, s.int_precis, 0)[rev], extra]))
    int_av = seq_sum(np.where(s.rel, s.int_precis, 0)[rev])
    av = adp = seq_sum(np.where(s.rel, s.precis, 0)[rev])
    few_nonrel = (j - s.cum) < MAX_FALL_RET
    fall = float(seq_sum(np.where(~s.rel & few_nonrel, s.recall, 0)[rev]))
    if n - nrr < MAX_FALL_RET and nrr > 0:
        fall = f32(fall + f32(f32(MAX_FALL_RET - (n - nrr)) * fdiv(nrr, num_rel)))
    av, int_av, av_r, int_av_r = float(av), float(int_av), float(av_r), float(int_av_r)
    if nrr > 0:
        av, int_av = fdiv(av, num_rel), fdiv(int_av, num_rel)
    if num_rel:
        av_r, int_av_r = fdiv(av_r, num_rel), fdiv(int_av_r, num_rel)
    ev["av_fall_recall"] = fdiv(fall, MAX_FALL_RET)
    ev["av_rel_precis"] = fdiv(float(av_rel_precis), n)
    ev["av_R_precis"], ev["int_av_R_precis"] = av_r, int_av_r
    ev["int_av_recall_precis"], ev["av_recall_precis"], ev["avg_doc_prec"] = int_av, av, float(adp)
    ev["gm_ap"] = log_floor(av)


def exact_measures(params: Trec8Params, ev: dict) -> None:
    """calc_exact_measures (double arithmetic, stored as float): exact precision, recall,
    relative precision, the unranked averages and utility ``a nrr + b (ret - nrr) + c (rel -
    nrr) + d (N + nrr - ret - rel)``."""
    num_ret, num_rel, nrr = ev["num_ret"], ev["num_rel"], ev["num_rel_ret"]
    if not num_rel:
        return
    recall, precis = f32(nrr / num_rel), f32(nrr / num_ret)
    ev["exact_recall"], ev["exact_precis"] = recall, precis
    ev["exact_uap"] = f32(recall * precis)  # float * float
    ev["exact_rel_precis"] = precis if num_rel > num_ret else recall
    ev["exact_rel_uap"] = f32(precis * precis)
    ua, ub, uc, ud = params.utility
    ev["exact_utility"] = f32(ua * nrr + ub * (num_ret - nrr) + uc * (num_rel - nrr)
                              + ud * (params.num_docs_in_coll + nrr - num_ret - num_rel))


def _lst(a: np.ndarray) -> list[float]:
    """An array field as the float values it stores (float32 rounding of double products)."""
    return np.asarray(a).astype(_F).astype(np.float64).tolist()
