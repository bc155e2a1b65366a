"""Statistics over per-topic values: bootstrap, tests, corrections, ranks, topic-set size.

Every resampled statistic is reproducible bit for bit from its seed; the seed derivation is
in :mod:`auditeval.stats.rng`.
"""

from __future__ import annotations

from .bootstrap import Intervals, paired_bootstrap, swap_probabilities
from .matrix import MeasureMatrix, measure_matrix, topic_matrix

__all__ = [
    "Intervals",
    "MeasureMatrix",
    "measure_matrix",
    "paired_bootstrap",
    "swap_probabilities",
    "topic_matrix",
]
