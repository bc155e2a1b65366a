"""Statistics over per-topic values: bootstrap, tests, corrections, ranks, topic-set size.

Every resampled statistic is reproducible bit for bit from its seed; the seed derivation is
in :mod:`auditeval.stats.rng`. Names are loaded on first use (PEP 562), so that importing
the command line (which registers ``compare``) does not import scipy.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_NAMES = {
    "Intervals": "bootstrap",
    "paired_bootstrap": "bootstrap",
    "swap_probabilities": "bootstrap",
    "MeasureMatrix": "matrix",
    "measure_matrix": "matrix",
    "topic_matrix": "matrix",
    "randomization_test": "significance",
    "adjust": "corrections",
    "rank_intervals": "ranks",
    "analyze": "compare",
}

__all__ = sorted(_NAMES)


def __getattr__(name: str) -> Any:
    if name in _NAMES:
        return getattr(import_module(f".{_NAMES[name]}", __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
