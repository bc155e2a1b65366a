"""Tie envelope: what a measure can be over every ordering of the tied documents.

Documents with equal scores (after the ``sim`` rounding of the chosen convention) form
*tied blocks*; each tool orders a block by its own rule (``ties`` axis). For each measure
and topic this module gives the exact minimum and maximum over all orderings of all
blocks, and the expected value under a uniformly random ordering of each block:

* **min / max** (exact): every measure here is monotone in moving a higher-graded
  document above a lower-graded one inside a block, so the best ordering sorts each block
  by grade descending and the worst by grade ascending (unjudged before judged
  non-relevant before relevant). Topics are independent, so the mean's envelope is the
  aggregate of the per-topic ones.
* **expected** (McSherry & Najork 2008, "Computing information retrieval performance
  measures efficiently in the presence of tied scores", exact forms): with a block of n
  documents holding r relevant after c relevant ones, starting after rank s,

  - P@k, R@k: each position of the block is relevant with probability r/n;
  - nDCG@k: each position's expected gain is the block's mean gain (linearity), the ideal
    DCG is fixed (taken as DCG_max / nDCG_max);
  - AP: position s+p contributes (r/n) (c + 1 + (p-1)(r-1)/(n-1)) / (s+p) (the other
    p-1 positions hold r-1 of the n-1 remaining documents at random), divided by R;
  - RR: the first block with r > 0 puts its first relevant document at position p with
    probability C(n-p, r-1) / C(n, r).

  Other measures (Bpref, 11pt, GMAP per topic, Rprec, ...) and the geometric mean get a
  seeded sampled estimate (``sampled (seed S, N orderings)``), labelled so.

Only topics with a *mixed* block (documents of different grades tied) can move; the rest
keep their value, and the sampling touches only the mixed topics.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from auditeval.engine import (
    Blocks,
    Prepared,
    aggregate,
    gain_of,
    head,
    measure_on,
    reorder,
    stacked,
    subset,
    tied_blocks,
)
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Run
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import Variant, fold

__all__ = ["Blocks", "Envelope", "envelope", "exact_envelope", "tied_blocks"]


def exact_envelope(m: Measure) -> bool:
    """Whether the envelope of (folded) ``m`` is exact: min / max by sorting blocks
    (spec ``tie_monotone``) and a closed-form expectation (spec ``envelope_exact``), without
    a gains map."""
    spec = SPECS[m.name]
    return spec.envelope_exact and spec.tie_monotone and m.param("gains") is None


SAMPLE_ROWS = 2_000_000  # rows evaluated at once when sampling (copies stacked as topics)


def _head(sub: Prepared, blk: np.ndarray, mixed_rows: np.ndarray, c: Convention) -> tuple[Prepared, np.ndarray, np.ndarray]:
    """``sub`` cut after the block holding each topic's last relevant document (a topic
    without one keeps every row: IPrec and 11pt read relret / ret there)."""
    rel = sub.rel_mask(c.rel)
    keep_to = sub.num_ret.astype(np.int64)  # rows kept per topic
    rows = np.flatnonzero(rel)
    if len(rows):
        last = np.full(sub.n_topics, -1, np.int64)
        np.maximum.at(last, sub.row_topic[rows], rows)
        has = last >= 0
        end_of_block = np.searchsorted(blk, blk[last[has]], side="right")  # blk ascends with rows
        keep_to[has] = end_of_block - sub.offsets[:-1][has]
    cut, keep = head(sub, keep_to)
    return cut, blk[keep], mixed_rows[keep]


def _sampled(sub: Prepared, blk: np.ndarray, mixed_rows: np.ndarray, m: Measure, c: Convention, samples: int,
             rng: np.random.Generator) -> np.ndarray:
    """Measure values of ``samples`` random orderings of the mixed blocks, shape (samples, topics).

    The copies are stacked as extra topics of one prepared list, so each batch is one
    vectorized measure call (:func:`~auditeval.engine.measure_on`); only rows of mixed
    blocks are permuted."""
    if SPECS[m.name].tail_free and m.cutoff is None:
        sub, blk, mixed_rows = _head(sub, blk, mixed_rows, c)
    n, t = len(sub.grade), sub.n_topics
    idx = np.flatnonzero(mixed_rows)
    vals = sub.grade[idx]
    bl = blk[idx]
    out = np.empty((samples, t))
    per_batch = max(1, min(samples, SAMPLE_ROWS // max(n, 1)))
    for s0 in range(0, samples, per_batch):
        k = min(per_batch, samples - s0)
        copy = np.repeat(np.arange(k), len(idx))
        span = float(bl.max() + 1) if len(bl) else 1.0
        # one float key orders by (copy, block) and at random inside a block (u in [0, 1))
        order = np.argsort(copy * span + np.tile(bl, k) + rng.random(k * len(idx)), kind="stable")
        grade = np.tile(sub.grade, k)
        run_row = np.tile(sub.run_row, k)  # the documents move with their grades (Compat, intent-aware measures read them)
        at = copy * n + np.tile(idx, k)
        grade[at] = vals[order % len(idx)] if len(idx) else vals
        run_row[at] = sub.run_row[idx][order % len(idx)] if len(idx) else run_row[at]
        copies = stacked(sub, k, grade, run_row)
        out[s0:s0 + k] = np.asarray(measure_on(copies, m, c)[0], dtype=np.float64).reshape(k, t)
    return out


@dataclass
class Envelope:
    topics: np.ndarray
    value: np.ndarray
    minimum: np.ndarray
    maximum: np.ndarray
    expected: np.ndarray
    method: str
    orderings: np.ndarray  # log10 of the number of document orderings per topic
    agg: tuple[float | None, float | None, float | None, float | None]  # value, min, max, expected
    agg_method: str


def _moving(p: Prepared, b: Blocks, m: Measure, c: Convention) -> np.ndarray:
    """Per tied block: whether reordering it can change ``m``: a mixed block (two grades), or
    for a measure that reads which documents are where (spec ``reads_ids``: Compat, the
    intent-aware measures) any block of two or more documents holding a relevant one."""
    if not SPECS[m.name].reads_ids or not len(b.block):
        return b.mixed
    rel = np.bincount(b.block, weights=p.rel_mask(c.rel), minlength=len(b.size)) > 0
    return b.mixed | ((b.size >= 2) & rel)


def envelope(p: Prepared, run: Run, m: Measure, conv: Convention, samples: int = 50, seed: int = 0) -> Envelope:
    """The tie envelope of measure ``m`` on prepared lists ``p`` (see the module docstring)."""
    m2, c2 = fold(m, conv)
    d = SPECS[m2.name]
    base = np.asarray(measure_on(p, m2, c2)[0], dtype=np.float64)
    b = tied_blocks(p, run, c2.sim)
    moving = _moving(p, b, m2, c2)
    mixed_topics = unique(p.row_topic[moving[b.block]]) if len(b.block) else np.zeros(0, np.int64)
    lo, hi, ex = base.copy(), base.copy(), base.copy()
    log_orders = np.zeros(p.n_topics)
    method = "exact" if exact_envelope(m2) else f"sampled (seed {seed}, {samples} orderings)"
    agg_method = "exact" if d.agg == "mean" and method == "exact" else f"sampled (seed {seed}, {samples} orderings)"
    samples_vals = None
    if len(mixed_topics):
        sub, rows = subset(p, mixed_topics)
        blk = b.block[rows]
        g = sub.grade
        mixed_rows = moving[b.block][rows]
        sub_lo = reorder(sub, blk, g)
        sub_hi = reorder(sub, blk, -g)
        vlo = np.asarray(measure_on(sub_lo, m2, c2)[0], dtype=np.float64)
        vhi = np.asarray(measure_on(sub_hi, m2, c2)[0], dtype=np.float64)
        rng = np.random.default_rng(seed)
        need_samples = method != "exact" or agg_method != "exact" or not d.tie_monotone
        if need_samples:
            samples_vals = _sampled(sub, blk, mixed_rows, m2, c2, samples, rng)
        if d.tie_monotone:
            lo[mixed_topics], hi[mixed_topics] = vlo, vhi
        else:
            lo[mixed_topics], hi[mixed_topics] = samples_vals.min(0), samples_vals.max(0)
        if method == "exact":
            ex[mixed_topics] = _expected(sub, blk, b, rows, m2, c2, vhi)
        else:
            ex[mixed_topics] = samples_vals.mean(0)
        ublk = unique(blk)
        sizes = b.size[ublk][moving[ublk]]
        owners = sub.row_topic[np.searchsorted(blk, ublk[moving[ublk]])]
        # log10(size!) per block
        np.add.at(log_orders, mixed_topics[owners], _lgamma(sizes + 1.0) / math.log(10))
    floor = c2.gm_floor
    a_val = aggregate(base, d.agg, floor)
    a_lo, a_hi = aggregate(lo, d.agg, floor), aggregate(hi, d.agg, floor)
    if agg_method == "exact":
        a_ex = aggregate(ex, d.agg, floor)
    elif samples_vals is not None:
        full = np.repeat(base[None, :], samples, axis=0)
        full[:, mixed_topics] = samples_vals
        per = [aggregate(full[i], d.agg, floor) for i in range(samples)]
        a_ex = float(np.mean(per)) if per and per[0] is not None else None
    else:
        a_ex = a_val
    return Envelope(p.topics, base, lo, hi, ex, method, log_orders, (a_val, a_lo, a_hi, a_ex), agg_method)


def _expected(sub: Prepared, blk: np.ndarray, b: Blocks, rows: np.ndarray, m: Measure, c: Convention,
              vmax: np.ndarray) -> np.ndarray:
    """Exact expected values (McSherry & Najork) for the topics of ``sub``."""
    k = None if m.cutoff is None else int(m.cutoff)
    rank = sub.rank.astype(np.float64)
    within = rank <= k if k is not None else np.ones(len(rank), bool)
    # per block (in sub row order): size n, relevant r, relevant before it c0, position p
    ub, first, inv = np.unique(blk, return_index=True, return_inverse=True)
    n = b.size[ub][inv].astype(np.float64)
    pos = np.arange(len(blk)) - first[inv] + 1.0
    if m.name == "nDCG":
        gains = np.where(sub.grade >= 0, gain_of(np.maximum(sub.grade, 0), m, c), 0.0)
        mean_gain = np.bincount(inv, weights=gains)[inv] / n
        disc = np.where(within, 1.0 / np.log2(rank + 1.0), 0.0)
        e_dcg = np.bincount(sub.row_topic, weights=mean_gain * disc, minlength=sub.n_topics)
        srt = _best(sub, blk)
        g_best = np.where(srt.grade >= 0, gain_of(np.maximum(srt.grade, 0), m, c), 0.0)
        dcg_max = np.bincount(srt.row_topic, weights=g_best * disc, minlength=sub.n_topics)
        return np.where(vmax > 0, e_dcg * np.divide(vmax, dcg_max, out=np.zeros_like(vmax), where=dcg_max > 0), 0.0)
    rel = sub.rel_mask(c.rel).astype(np.float64)
    r = np.bincount(inv, weights=rel)[inv]
    prob = r / n
    if m.name in ("P", "R"):
        e_hits = np.bincount(sub.row_topic, weights=np.where(within, prob, 0.0), minlength=sub.n_topics)
        best = _best(sub, blk)
        best_hits = np.bincount(best.row_topic, weights=np.where(within, best.rel_mask(c.rel), 0.0),
                                minlength=sub.n_topics)
        return np.where(vmax > 0, e_hits * np.divide(vmax, best_hits, out=np.zeros_like(vmax), where=best_hits > 0), 0.0)
    if m.name == "AP":
        before = np.cumsum(rel) - rel  # relevant rows before each row (all of sub)
        c_row = before - before[sub.offsets[:-1]][sub.row_topic]  # ... within its topic
        c_at_block = c_row[first][inv]  # relevant documents ranked above the row's block
        other = np.where(n > 1, (pos - 1) * (r - 1) / np.maximum(n - 1, 1), 0.0)
        contrib = np.where(within, prob * (c_at_block + 1 + other) / rank, 0.0)
        e_sum = np.bincount(sub.row_topic, weights=contrib, minlength=sub.n_topics)
        best = _best(sub, blk)
        brel = best.rel_mask(c.rel)
        bsum = np.bincount(best.row_topic, weights=np.where(within & brel, best.cum_count(brel) / rank, 0.0),
                           minlength=sub.n_topics)
        return np.where(vmax > 0, e_sum * np.divide(vmax, bsum, out=np.zeros_like(vmax), where=bsum > 0), 0.0)
    if m.name == "RR":
        out = np.zeros(sub.n_topics)
        rel_blocks = np.flatnonzero(np.bincount(inv, weights=rel) > 0)  # local block ids with r > 0
        if not len(rel_blocks):
            return out
        bt = sub.row_topic[first[rel_blocks]]
        keep = np.ones(len(rel_blocks), bool)
        keep[1:] = bt[1:] != bt[:-1]  # first such block per topic
        fb, ft = rel_blocks[keep], bt[keep]
        nb = b.size[ub][fb].astype(np.int64)
        rb = np.bincount(inv, weights=rel)[fb].astype(np.int64)
        s = rank[first[fb]] - 1.0
        reps = nb - rb + 1
        owner = np.repeat(np.arange(len(fb)), reps)
        pp = np.arange(reps.sum()) - np.repeat(np.cumsum(reps) - reps, reps) + 1.0
        nn, rr = nb[owner].astype(np.float64), rb[owner].astype(np.float64)
        logp = _lcomb(nn - pp, rr - 1) - _lcomb(nn, rr)
        rk = s[owner] + pp
        term = np.where((rk <= k) if k is not None else True, np.exp(logp) / rk, 0.0)
        np.add.at(out, ft[owner], term)
        return out
    raise AssertionError(m.name)  # pragma: no cover


def _best(sub: Prepared, blk: np.ndarray) -> Prepared:
    return reorder(sub, blk, -sub.grade)


def _lgamma(x: np.ndarray) -> np.ndarray:
    """``log Gamma(x)`` elementwise by C's ``lgamma`` (``math.lgamma``), as
    ``scipy.special.gammaln`` gives it, without that import (~100 ms that eval's tie note
    would pay on every call); the arrays here hold one entry per tied block or position."""
    x = np.asarray(x, dtype=np.float64)
    return np.array([math.lgamma(v) for v in x.ravel().tolist()], dtype=np.float64).reshape(x.shape)


def _lcomb(n: np.ndarray, k: np.ndarray) -> np.ndarray:
    """``log C(n, k)``."""
    return _lgamma(n + 1) - _lgamma(k + 1) - _lgamma(n - k + 1)


def variant_of(m: Measure, conv: Convention) -> str:
    return str(Variant.of(m, conv))
