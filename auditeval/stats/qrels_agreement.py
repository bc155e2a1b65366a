"""Agreement of the system orderings under two judgment sets (e.g. human and LLM labels).

From the mean of every run under qrels A and qrels B (same runs, same topics):

* Kendall's tau-b and Spearman's rho between the two vectors of means (the definitions of
  ``scipy.stats.kendalltau`` and ``spearmanr``; computed here on a handful of runs, which
  saves scipy.stats' second of import time);
* the share of run pairs ordered the same way (both orders strict and equal, or both tied);
* every pair ordered differently, classified *within noise* when qrels A's own paired
  bootstrap swap probability for that pair exceeds ``threshold``: A itself cannot tell the
  two runs apart, so B's different order is no evidence against B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditeval.stats.ranks import THRESHOLD


def kendall_tau_b(x: np.ndarray, y: np.ndarray) -> float:
    """``(C - D) / sqrt((n0 - tx)(n0 - ty))`` over all pairs (ties in x or y counted apart)."""
    i, j = np.triu_indices(len(x), k=1)
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    n0 = i.size
    den = np.sqrt(float(n0 - (sx == 0).sum()) * float(n0 - (sy == 0).sum()))
    return float((sx * sy).sum() / den) if den > 0 else float("nan")


def spearman_rho(x: np.ndarray, y: np.ndarray) -> float:
    """Pearson correlation of the mean ranks."""
    from auditeval.stats.significance import midranks

    rx, ry = midranks(x) - (len(x) + 1) / 2, midranks(y) - (len(y) + 1) / 2
    den = np.sqrt((rx**2).sum() * (ry**2).sum())
    return float((rx * ry).sum() / den) if den > 0 else float("nan")


@dataclass(frozen=True)
class Disagreement:
    a: int
    b: int
    swap: float  # qrels A's swap probability of the pair
    within_noise: bool


@dataclass(frozen=True)
class Agreement:
    tau: float
    rho: float
    same_order: float
    pairs: int
    disagreements: list[Disagreement]
    threshold: float


def agreement(means_a: np.ndarray, means_b: np.ndarray, swaps_a: np.ndarray, threshold: float = THRESHOLD) -> Agreement:
    means_a = np.asarray(means_a, dtype=np.float64)
    means_b = np.asarray(means_b, dtype=np.float64)
    i, j = np.triu_indices(means_a.size, k=1)
    sa = np.sign(means_a[i] - means_a[j])
    sb = np.sign(means_b[i] - means_b[j])
    same = sa == sb
    dis = [Disagreement(int(x), int(y), float(swaps_a[x, y]), bool(swaps_a[x, y] > threshold))
           for x, y in zip(i[~same], j[~same], strict=True)]
    tau = kendall_tau_b(means_a, means_b)
    rho = spearman_rho(means_a, means_b)
    return Agreement(tau, rho, float(same.mean()) if i.size else 1.0, int(i.size), dis, threshold)
