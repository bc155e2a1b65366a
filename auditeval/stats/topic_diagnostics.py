"""Topic diagnostics: spread across runs, hard topics, topics that cannot discriminate.

For each topic, over the runs: minimum, quartiles (linear interpolation), maximum, the
spread ``max - min`` and the standard deviation (``ddof=0``).

* *below the floor*: topics whose median over runs is below ``floor`` (e.g. AP < 0.1).
* *non-discriminating*: topics on which every run is within ``near`` of 0, or (for
  measures bounded by 1, i.e. every value <= 1) every run within ``near`` of 1. They cannot
  separate runs; the mean without them is reported separately and labelled with the topic
  count, never in place of the full mean.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditeval.stats.qrels_agreement import kendall_tau_b

FLOOR = 0.1
NEAR = 0.01


@dataclass(frozen=True)
class TopicDiagnostics:
    quantiles: np.ndarray  # (T, 5): min, q25, median, q75, max over runs
    spread: np.ndarray  # (T,)
    std: np.ndarray  # (T,)
    below_floor: np.ndarray  # (T,) bool
    near_zero: np.ndarray  # (T,) bool
    near_one: np.ndarray  # (T,) bool
    bounded: bool  # every value <= 1: "near 1" is checked
    filtered_means: np.ndarray  # (S,) over topics that are neither near 0 nor near 1
    kept: int
    tau_filtered: float  # Kendall tau-b between the full and the filtered means
    floor: float
    near: float


def diagnose(scores: np.ndarray, floor: float = FLOOR, near: float = NEAR) -> TopicDiagnostics:
    """Diagnostics of an ``(S, T)`` score matrix (see the module docstring)."""
    scores = np.asarray(scores, dtype=np.float64)
    q = np.quantile(scores, [0, 0.25, 0.5, 0.75, 1], axis=0).T
    bounded = bool(scores.max() <= 1.0)
    near_zero = (np.abs(scores) <= near).all(axis=0)
    near_one = (np.abs(scores - 1.0) <= near).all(axis=0) if bounded else np.zeros(scores.shape[1], bool)
    keep = ~(near_zero | near_one)
    kept = int(keep.sum())
    filtered = scores[:, keep].mean(axis=1) if kept else np.full(scores.shape[0], np.nan)
    full = scores.mean(axis=1)
    tau = kendall_tau_b(full, filtered) if kept and scores.shape[0] > 1 else float("nan")
    return TopicDiagnostics(q, q[:, 4] - q[:, 0], scores.std(axis=0), q[:, 2] < floor, near_zero, near_one,
                            bounded, filtered, kept, tau, floor, near)
