"""trec_eval 8.x's time measures of one topic (``-T``; 8.1 trvec_teval.c:626-700
calc_time_measures), vectorized over the ranks and the 60 buckets.

The score is read as a time in seconds (``-T`` ranks by increasing score, form_trvec.c:46-50)
and bucketed in 60 buckets of 5 s up to 300 s. The C loop walks the documents from the last to
the first; the document at rank j writes its values (precision, relative precision, unranked
averages, utility, all from ``rel_so_far``, which this loop never lowers: the topic's relevant
retrieved count) into its bucket and into every
bucket between it and the previous document's, so a bucket's final value is the one of the
last document (in the loop's order) whose span covers it: :func:`_last_cover`. The integrals
average buckets 1..59 over 60 (bucket 0 is left out of all but the cumulative count,
trvec_teval.c:688-696), as float sums in bucket order.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.c_float import fdiv, fdiv_arr, seq_sum
from auditeval.engine.trec8.fields import MAX_TIME, NUM_TIME_PTS, Trec8Params

_F = np.float32


def _buckets(sims: np.ndarray) -> np.ndarray:
    """``(long) (sim * (NUM_TIME_PTS / MAX_TIME))`` clamped to [0, 59] (trvec_teval.c:654-657);
    x86's cvttsd2si gives LONG_MIN (so bucket 0) for NaN and out-of-range values."""
    x = np.asarray(sims, dtype=np.float64) * (NUM_TIME_PTS / MAX_TIME)
    ok = np.isfinite(x) & (np.abs(x) < 2.0 ** 63)
    b = np.where(ok, np.trunc(np.where(ok, x, 0.0)), -1.0)
    return np.clip(b, 0, NUM_TIME_PTS - 1).astype(np.int64)


def _last_cover(lo: np.ndarray, hi: np.ndarray) -> np.ndarray:
    """Per bucket, the last step (in loop order) whose span [lo, hi] covers it, or -1."""
    i = np.arange(NUM_TIME_PTS)
    cover = (lo[:, None] <= i) & (i <= hi[:, None])
    last = len(lo) - 1 - np.argmax(cover[::-1], axis=0)
    return np.where(cover.any(axis=0), last, -1)


def time_measures(params: Trec8Params, rel: np.ndarray, sims: np.ndarray, ev: dict) -> None:
    num_ret, num_rel = ev["num_ret"], ev["num_rel"]
    ua, ub, uc, ud = params.utility
    mrr = min(num_rel, num_ret)
    order = np.arange(num_ret - 1, -1, -1)  # the loop: rank num_ret first
    b = _buckets(sims)[order]
    j = order + 1
    rsf = np.full(num_ret, int(rel.sum()), dtype=np.int64)  # rel_so_far: calc_time_measures never lowers it
    prev = np.concatenate([[NUM_TIME_PTS], b[:-1]])  # the previous document's bucket
    hi = np.maximum(b, prev - 1)
    fr, fm = _F(num_ret), _F(mrr)
    rr = rsf.astype(_F) * rsf.astype(_F)
    with np.errstate(all="ignore"):
        vals = {"time_precis": fdiv_arr(rsf, num_ret), "time_relprecis": fdiv_arr(rsf, mrr),
                "time_uap": rr / _F(fr * fm), "time_reluap": rr / _F(fm * fm),
                "time_utility": (ua * rsf + ub * (j - rsf) + uc * (num_rel - rsf)
                                 + ud * (params.num_docs_in_coll + rsf - j - num_rel)).astype(_F)}
    step = _last_cover(b, hi)
    has = step >= 0
    for f, v in vals.items():
        out = np.zeros(NUM_TIME_PTS, dtype=_F)
        out[has] = v[step[has]]
        ev[f] = out.astype(np.float64).tolist()
    nrel = np.bincount(b[rel[order]], minlength=NUM_TIME_PTS).astype(_F)  # float += 1: exact below 2**24
    nnrel = np.bincount(b[~rel[order]], minlength=NUM_TIME_PTS).astype(_F)
    cum = np.cumsum(nrel, dtype=_F)
    ev["time_num_rel"], ev["time_num_nrel"] = nrel.astype(np.float64).tolist(), nnrel.astype(np.float64).tolist()
    ev["time_cum_rel"] = cum.astype(np.float64).tolist()
    ev["av_time_cum_rel"] = fdiv(float(seq_sum(np.concatenate([nrel[:1], cum[1:]]))), NUM_TIME_PTS)
    for f, total in (("av_time_precis", "time_precis"), ("av_time_relprecis", "time_relprecis"),
                     ("av_time_uap", "time_uap"), ("av_time_reluap", "time_reluap"),
                     ("av_time_utility", "time_utility")):
        ev[f] = fdiv(float(seq_sum(np.asarray(ev[total][1:], dtype=_F))), NUM_TIME_PTS)
