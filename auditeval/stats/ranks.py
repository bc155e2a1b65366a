"""Rank confidence intervals and distinguishable pairs from paired bootstrap replicates.

Rank 1 is the best (highest mean). Ranks are competition ranks (``method="min"``: tied
systems share the better rank) on the full sample and on each resample. The interval at
level ``L`` holds the resample ranks from quantile ``(1-L)/2`` to ``(1+L)/2`` (inverted CDF,
so both ends are ranks that occurred). Two systems are *not distinguishable* when their
swap probability (:func:`auditeval.stats.bootstrap.swap_matrix`) exceeds ``threshold``
(default 5%).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

THRESHOLD = 0.05


@dataclass(frozen=True)
class RankIntervals:
    rank: np.ndarray  # (S,) observed rank
    low: np.ndarray  # (S,) best rank in the interval
    high: np.ndarray  # (S,) worst rank in the interval
    median: np.ndarray  # (S,) median resample rank
    level: float


def competition_ranks(means: np.ndarray) -> np.ndarray:
    """``(S, B)`` ranks per column: ``1 + #{systems with a strictly higher mean}``.

    (``scipy.stats.rankdata(-means, method="min", axis=0)``, without its import cost.) Each
    column sorted once, descending: a system's rank is one past the position where its mean
    first occurs (ties share it). With a NaN anywhere, the definition itself, pair by pair
    (a NaN is higher than nothing and nothing is higher than it). 200 systems x 10,000
    replicates: 0.4 s pair by pair, a quarter of that sorted.
    """
    s, b = means.shape
    if s == 0 or b == 0 or np.isnan(means).any():
        out = np.ones(means.shape, dtype=np.int64)
        for j in range(s):  # one pass per system, all trials at once
            out += means[j] > means
        return out
    neg = np.ascontiguousarray(-means.T)  # (B, S): each column's systems contiguous
    order = np.argsort(neg, axis=1)
    desc = np.take_along_axis(neg, order, axis=1)
    first = np.zeros((b, s), np.int64)  # per sorted position: 1 + where its value first occurs
    first[:, 0] = 1
    first[:, 1:] = np.where(desc[:, 1:] != desc[:, :-1], np.arange(2, s + 1), 0)
    np.maximum.accumulate(first, axis=1, out=first)
    out = np.empty((b, s), np.int64)
    np.put_along_axis(out, order, first, axis=1)
    return out.T


def rank_intervals(observed: np.ndarray, replicates: np.ndarray, level: float = 0.95) -> RankIntervals:
    """``observed`` means ``(S,)``, ``replicates`` means ``(S, B)`` -> :class:`RankIntervals`."""
    rank = competition_ranks(observed[:, None])[:, 0]
    r = competition_ranks(replicates)
    a = (1 - level) / 2
    low, high = np.quantile(r, [a, 1 - a], axis=1, method="inverted_cdf")
    med = np.quantile(r, 0.5, axis=1, method="inverted_cdf")
    return RankIntervals(rank, low.astype(np.int64), high.astype(np.int64), med.astype(np.int64), level)


def indistinguishable(swaps: np.ndarray, threshold: float = THRESHOLD) -> list[tuple[int, int]]:
    """Pairs ``(i, j)``, ``i < j``, whose swap probability is above ``threshold``."""
    i, j = np.nonzero(np.triu(swaps > threshold, k=1))
    return list(zip(i.tolist(), j.tolist(), strict=True))
