"""Paired bootstrap over topics: resamples, replicate means, intervals, reversal rates.

One resample draws ``T`` topics with replacement (Efron & Tibshirani 1993, ch. 6); every
system is evaluated on the same resample (paired design, Sakai 2006 "Evaluating evaluation
metrics based on the bootstrap"). With strata (:func:`stratum_codes`), each stratum is
resampled on its own with its own size, so the share of every query type stays fixed.

A *reversal* of a pair (a, b) in a resample: the sign of the replicate mean difference is
opposite to the full-sample sign; a replicate difference of exactly 0 counts as half a
reversal; a pair tied on the full sample has reversal rate 0.5 (its order is a coin flip).
The *swap probability* of two systems is that rate computed on their replicate means.

Intervals of the mean difference at level ``L`` (``alpha = (1 - L) / 2``):

* percentile: quantiles ``alpha`` and ``1 - alpha`` of the replicates (linear
  interpolation, numpy's default and scipy's);
* BCa (Efron & Tibshirani eq. 14.9-14.15, as ``scipy.stats.bootstrap``):
  ``z0 = Phi^-1(share(rep < obs) / 2 + share(rep <= obs) / 2)``, acceleration
  ``a = sum(U^3) / (6 sum(U^2)^1.5)`` with ``U_i = (n - 1)(mean(theta_(.)) - theta_(i))`` from
  the leave-one-topic-out means ``theta_(i)``, endpoints at the replicate quantiles
  ``Phi(z0 + (z0 + z) / (1 - a (z0 + z)))`` for ``z = Phi^-1(alpha), Phi^-1(1 - alpha)``.
  A constant difference (``sum(U^2) = 0``) has ``a = 0``. Under strata the acceleration
  still comes from the plain leave-one-topic-out jackknife.

Random streams: :mod:`auditeval.stats.rng`.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass

import numpy as np
from scipy.special import ndtr, ndtri

from auditeval.stats.rng import CHUNK, blocks, generator
from auditeval.vocab.arrays import unique

GATHER_LIMIT = 1 << 22
"""Largest systems x trials x topics block gathered at once (32 MB of float64)."""


def stratum_codes(topics: Sequence[str], strata: dict[str, str], source: str = "strata") -> np.ndarray:
    """Integer stratum code per topic (codes follow the sorted stratum labels).

    Every topic must have a stratum: a topic without one is an error, never dropped.
    """
    missing = [t for t in topics if t not in strata]
    if missing:
        from auditeval.vocab.errors import InputError

        shown = ", ".join(missing[:5]) + (" ..." if len(missing) > 5 else "")
        raise InputError(source, None, f"{len(missing)} evaluated topic(s) have no stratum: {shown}")
    labels = sorted({strata[t] for t in topics})
    code = {s: i for i, s in enumerate(labels)}
    return np.array([code[strata[t]] for t in topics], dtype=np.int64)


def resamples(rng: np.random.Generator, n_topics: int, trials: int,
              strata: np.ndarray | None = None) -> Iterator[np.ndarray]:
    """Blocks of topic indices, ``(block, n_topics)`` int64; strata resampled separately.

    Unstratified: ``rng.integers(0, n, (block, n))``. Stratified: for each stratum in code
    order, ``members[rng.integers(0, size, (block, size))]``, columns concatenated.
    """
    if strata is None:
        for _, c in blocks(trials):
            yield rng.integers(0, n_topics, size=(c, n_topics))
        return
    groups = [np.flatnonzero(strata == g) for g in unique(strata)]
    for _, c in blocks(trials):
        yield np.concatenate([g[rng.integers(0, g.size, size=(c, g.size))] for g in groups], axis=1)


def replicate_block(scores: np.ndarray, idx: np.ndarray) -> np.ndarray:
    """``(S, c)``: each system's mean on each of the ``c`` resamples ``idx`` ``(c, T)`` (one block
    of :func:`resamples`); ``scores`` C-contiguous float64. A task function (``shared, item``):
    :mod:`auditeval.stats.run_comparison` runs the blocks on a backend, the draws made in the parent."""
    n_sys, n_top = scores.shape
    c = idx.shape[0]
    out = np.empty((n_sys, c))
    step = max(1, GATHER_LIMIT // max(1, c * n_top))
    for s in range(0, n_sys, step):  # bounds memory (the steps as they always were: numpy sums a
        out[s:s + step] = scores[s:s + step, idx].mean(axis=-1)  # one-system gather in another order)
    return out


def replicate_means(scores: np.ndarray, trials: int, rng: np.random.Generator,
                    strata: np.ndarray | None = None) -> np.ndarray:
    """``(S, trials)``: each system's mean on each resample (the same resample for all)."""
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n_sys, n_top = scores.shape
    out = np.empty((n_sys, trials))
    for (start, c), idx in zip(blocks(trials), resamples(rng, n_top, trials, strata), strict=True):
        out[:, start:start + c] = replicate_block(scores, idx)
    return out


def reversal_counts(observed: np.ndarray, replicates: np.ndarray) -> np.ndarray:
    """Twice the number of reversals (ties count 1, so the count stays an integer)."""
    opposite = np.where(observed[..., None] > 0, replicates < 0, replicates > 0)
    twice = 2 * opposite.sum(axis=-1) + (replicates == 0).sum(axis=-1)
    trials = replicates.shape[-1]
    return np.where(observed == 0, trials, twice)


SWAP_ROWS = 16
"""Systems (rows of the swap matrix) per :func:`swap_block`: a fixed constant."""


def swap_block(replicates: np.ndarray, item: tuple[int, int, np.ndarray]) -> np.ndarray:
    """Rows ``start:stop`` of twice the swap counts, ``(stop - start, S)`` int64: ``item`` is
    ``(start, stop, observed)`` (``observed``: every system's full-sample mean). Integer
    counts over the trial blocks, so rows and blocks add up exactly, in any grouping. A task
    function (``shared, item``; ``shared``: the ``(S, B)`` replicate means)."""
    start, stop, observed = item
    n_sys, trials = replicates.shape
    twice = np.zeros((stop - start, n_sys), dtype=np.int64)
    step = max(1, GATHER_LIMIT // max(1, n_sys * min(trials, CHUNK)))
    for r0 in range(start, stop, step):
        r1 = min(stop, r0 + step)
        d0 = observed[r0:r1, None] - observed[None, :]
        for b0, c in blocks(trials):  # bounds memory; no effect on the counts
            r = replicates[:, b0:b0 + c]
            twice[r0 - start:r1 - start] += reversal_counts(d0, r[r0:r1, None, :] - r[None, :, :])
    return twice


def swap_rows(n_sys: int) -> list[tuple[int, int]]:
    """``(start, stop)`` of each block of :data:`SWAP_ROWS` rows."""
    return [(k, min(n_sys, k + SWAP_ROWS)) for k in range(0, n_sys, SWAP_ROWS)]


def swap_from_counts(twice: np.ndarray, trials: int) -> np.ndarray:
    """The swap matrix from twice its counts (every row block stacked); diagonal 0."""
    out = twice / (2.0 * trials)
    np.fill_diagonal(out, 0.0)
    return out


def swap_matrix(observed: np.ndarray, replicates: np.ndarray) -> np.ndarray:
    """``(S, S)`` reversal rates of every pair from per-system means; diagonal 0."""
    n_sys, trials = replicates.shape
    parts = [swap_block(replicates, (a, b, observed)) for a, b in swap_rows(n_sys)]
    return swap_from_counts(np.concatenate(parts) if parts else np.zeros((0, 0), dtype=np.int64), trials)


def swap_probabilities(scores: np.ndarray, trials: int = 1000, seed: int = 0) -> np.ndarray:
    """Share of paired bootstrap resamples in which each pair's order of means reverses.

    ``scores`` is ``(S, T)`` (systems x topics, every topic scored for every system);
    returns the symmetric ``(S, S)`` matrix (diagonal 0). Topics are resampled with
    replacement, the same resample for all systems, from the stream
    ``generator(seed, "bootstrap")`` (see :mod:`auditeval.stats.rng`); ties as in the module
    docstring.
    """
    return swap_probabilities_labelled(scores, trials, seed, ("bootstrap",))


def swap_probabilities_labelled(scores: np.ndarray, trials: int, seed: int, labels: tuple[str, ...]) -> np.ndarray:
    """:func:`swap_probabilities` from the stream ``generator(seed, *labels)``."""
    scores = np.asarray(scores, dtype=np.float64)
    if scores.ndim != 2 or scores.shape[1] < 1:
        raise ValueError(f"scores must be (systems, topics) with at least one topic, got {scores.shape}")
    reps = replicate_means(scores, trials, generator(seed, *labels))
    return swap_matrix(scores.mean(axis=1), reps)


@dataclass(frozen=True)
class Intervals:
    """Bootstrap summary of mean differences, one entry per pair (arrays of shape ``(P,)``)."""

    observed: np.ndarray
    median: np.ndarray
    percentile: np.ndarray  # (P, 2)
    bca: np.ndarray  # (P, 2)
    reversal_rate: np.ndarray
    level: float
    trials: int


def sorted_quantiles(sorted_reps: np.ndarray, q: np.ndarray) -> np.ndarray:
    """Per row ``p``, the quantiles ``q[p, :]`` of ``sorted_reps[p]`` (sorted ascending).

    numpy's ``method="linear"`` (Hyndman & Fan type 7) including its interpolation formula
    (``a + (b - a) t``, from ``b`` when ``t >= 0.5``), vectorized over rows; NaN for NaN q.
    """
    n = sorted_reps.shape[-1]
    ok = np.isfinite(q)
    h = np.where(ok, q, 0.0) * (n - 1)
    lo = np.clip(np.floor(h).astype(np.int64), 0, n - 1)
    hi = np.minimum(lo + 1, n - 1)
    t = h - lo
    a = np.take_along_axis(sorted_reps, lo, axis=-1)
    b = np.take_along_axis(sorted_reps, hi, axis=-1)
    diff = b - a
    out = np.where(t >= 0.5, b - diff * (1 - t), a + diff * t)
    return np.where(ok, out, np.nan)


def jackknife_means(diffs: np.ndarray) -> np.ndarray:
    """Leave-one-topic-out means, ``(P, T)``: ``(sum - d_i) / (T - 1)``."""
    n = diffs.shape[-1]
    return (diffs.sum(axis=-1, keepdims=True) - diffs) / (n - 1)


def summarize(diffs: np.ndarray, replicates: np.ndarray, level: float) -> Intervals:
    """Percentile and BCa intervals, median and reversal rate of ``replicates`` ``(P, B)``.

    ``diffs`` ``(P, T)`` are the per-topic differences (observed mean and jackknife).
    """
    if not 0 < level < 1:
        raise ValueError(f"level must be in (0, 1), got {level}")
    diffs = np.atleast_2d(diffs)
    replicates = np.atleast_2d(replicates)
    alpha = (1 - level) / 2
    obs = diffs.mean(axis=-1)
    ordered = np.sort(replicates, axis=-1)
    pct = sorted_quantiles(ordered, np.broadcast_to([alpha, 1 - alpha], (replicates.shape[0], 2)))
    share = ((replicates < obs[:, None]).sum(-1) + (replicates <= obs[:, None]).sum(-1)) / (2 * replicates.shape[-1])
    z0 = ndtri(share)
    if diffs.shape[-1] > 1:
        theta = jackknife_means(diffs)
        n = theta.shape[-1]
        u = (n - 1) * (theta.mean(axis=-1, keepdims=True) - theta)
        num = (u**3).sum(-1) / n**3
        den = ((u**2).sum(-1) / n**2) ** 1.5
        a = np.divide(num, 6 * den, out=np.zeros_like(num), where=den > 0)
    else:
        a = np.zeros_like(obs)
    qs = np.stack([ndtr(z0 + (z0 + z) / (1 - a * (z0 + z))) for z in (ndtri(alpha), -ndtri(alpha))], axis=-1)
    bca = sorted_quantiles(ordered, qs)
    rev = reversal_counts(obs, replicates) / (2.0 * replicates.shape[-1])
    return Intervals(obs, np.median(replicates, axis=-1), pct, bca, rev, level, replicates.shape[-1])


def paired_bootstrap(x: np.ndarray, y: np.ndarray, trials: int = 10000, seed: int = 0, level: float = 0.95,
                     strata: np.ndarray | None = None, label: str = "") -> Intervals:
    """Paired bootstrap of ``mean(x - y)`` over topics (one pair; arrays of length 1).

    Stream: ``generator(seed, "bootstrap", label)`` (``generator(seed, "bootstrap")``
    without a label: the resamples of :func:`swap_probabilities` with the same seed).
    """
    d = np.asarray(x, dtype=np.float64) - np.asarray(y, dtype=np.float64)
    rng = generator(seed, "bootstrap", *((label,) if label else ()))
    reps = replicate_means(d[None, :], trials, rng, strata)
    return summarize(d[None, :], reps, level)
