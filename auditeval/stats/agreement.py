"""Agreement of the system orderings under two judgment sets (e.g. human and LLM labels).

From the mean of every run under qrels A and qrels B (same runs, same topics):

* Kendall's tau-b and Spearman's rho between the two vectors of means (scipy);
* the share of run pairs ordered the same way (both orders strict and equal, or both tied);
* every pair ordered differently, classified *within noise* when qrels A's own paired
  bootstrap swap probability for that pair exceeds ``threshold``: A itself cannot tell the
  two runs apart, so B's different order is no evidence against B.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy.stats import kendalltau, spearmanr

from .ranks import THRESHOLD


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
    with np.errstate(invalid="ignore"):
        tau = float(kendalltau(means_a, means_b).statistic)
        rho = float(spearmanr(means_a, means_b).statistic)
    return Agreement(tau, rho, float(same.mean()) if i.size else 1.0, int(i.size), dis, threshold)
