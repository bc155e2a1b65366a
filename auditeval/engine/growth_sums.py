"""Means of AP, RR, P, R and Success after each step of a growing set of judged pairs.

Pool growth (:mod:`auditeval.pooling.growth`) evaluates a run on the judgments of the pool
after each step of many system orders. Under ``unjudged=nonrel`` a judgment entering the pool
moves no rank, so each measure is a sum over the run's relevant ranked rows visible at that
step: for every (order, step) at once,

* AP: sum over visible relevant rows of (visible relevant rows up to it) / rank, / R
  (``ap_denom``: R, min(R, k) or relret), as :mod:`.measures.core`;
* RR: 1 / rank of the first visible relevant row;
* P@k: visible relevant rows in the top k / k; R: / R (``recall_denom``); Success: 1 if any.

The terms are added in the same order as the kernels in :mod:`.measures.core` add them
(bincount meets each (order, topic) bin's terms in rank order), so the means are
bit-identical to the engine's (``tests/pooling/test_pool_robust03.py::test_growth_fast_sums_equal_the_engine_path`` compares). Which measures this
covers is the spec table's ``growth_sum`` field.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.measures.base import safe_div
from auditeval.engine.measures.core import ap_denominator
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

__all__ = ["growth_means"]


def growth_means(m: Measure, c: Convention, t: np.ndarray, r: np.ndarray, e_rows: np.ndarray,
                 hits_by_step: np.ndarray, r_by_step: np.ndarray, run_pos: np.ndarray, n_t: int,
                 n: int) -> np.ndarray:
    """(O, n) mean over ``n_t`` topics of measure ``m`` (folded, convention ``c``) after each
    step; NaN at steps before the run joins.

    ``t``, ``r``: topic index and rank of the run's relevant ranked rows (within the cut-off,
    topic then rank order); ``e_rows``: (O, rows) step at which each row's pair is judged;
    ``hits_by_step``, ``r_by_step``: (O, n_t, n) visible relevant ranked rows and R per topic
    after each step; ``run_pos``: (O,) the run's 1-based position in each order."""
    k = None if m.cutoff is None else int(m.cutoff)
    n_o = e_rows.shape[0]
    first = np.flatnonzero(np.r_[True, t[1:] != t[:-1]]) if len(t) else np.zeros(0, np.int64)
    seg_first = np.repeat(first, np.diff(np.r_[first, len(t)]))
    # orders sorted by the step at which this run joins: at step s the orders it is present
    # in are a prefix. Layout rows x orders: running counts go down the rows, vectorized
    # across orders; bincount meets each (order, topic) bin's terms in rank order, adding
    # them one after another as the engine's bincount does (add.reduceat would not: it sums
    # pairwise).
    perm = np.argsort(run_pos, kind="stable")
    present = np.searchsorted(run_pos[perm], np.arange(1, n + 1), side="right")
    e_t = np.ascontiguousarray(e_rows.T[:, perm])
    rr = r[:, None].astype(np.float64)
    # within-topic counts fit int16 when no topic has 32768 relevant rows; the global running
    # sum may wrap around, but the difference of two wrapped sums is exact modulo 2^16
    ctype = np.int16 if (np.diff(np.r_[first, len(t)]).max(initial=0) < 2**15) else np.int64
    out = np.full((n_o, n), np.nan)
    for s in range(1, n + 1):
        n_p = int(present[s - 1])
        if n_p == 0:
            continue
        who = perm[:n_p]
        big_r, hits = r_by_step[who, :, s - 1], hits_by_step[who, :, s - 1]
        if m.name in ("AP", "RR"):
            total = np.zeros((n_p, n_t))
            if len(t):
                vis = e_t[:, :n_p] <= s
                with np.errstate(over="ignore"):
                    cum = np.add.accumulate(vis.view(np.int8), axis=0, dtype=ctype)
                    cum -= (cum - vis)[seg_first]  # running count within the topic
                w = np.zeros(vis.shape)
                if m.name == "AP":
                    np.divide(cum, rr, out=w, where=vis)
                else:
                    np.divide(1.0, rr, out=w, where=vis & (cum == 1))
                ids = (np.arange(n_p)[None, :] * n_t + t[:, None]).ravel()
                total = np.bincount(ids, weights=w.ravel(), minlength=n_p * n_t).reshape(n_p, n_t)
        if m.name == "AP":
            vals = safe_div(total, ap_denominator(big_r, hits, k, c))
        elif m.name == "RR":
            vals = total
        elif m.name == "P":
            vals = hits / float(k)
        elif m.name == "R":
            den = np.minimum(big_r, k) if c.recall_denom == "min-R-k" and k is not None else big_r
            vals = safe_div(hits, den)
        elif m.name == "Success":
            vals = (hits > 0).astype(np.float64)
        else:  # pragma: no cover - the caller checks the spec's growth_sum field
            raise ValueError(f"no growth sums for {m.name}")
        out[who, s - 1] = np.cumsum(vals, axis=1)[:, -1] / n_t if n_t else 0.0
    return out
