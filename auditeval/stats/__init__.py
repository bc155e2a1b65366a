"""Statistics over per-topic values: bootstrap, tests, corrections, ranks, topic-set size.

Every resampled statistic is reproducible bit for bit from its seed; the seed derivation is
in :mod:`auditeval.stats.rng`. Names are loaded on first use (PEP 562), so that importing
the command line (which registers ``compare``) does not import scipy.
"""

from __future__ import annotations

from auditeval.vocab.lazy import lazy_exports

_NAMES = {
    "Intervals": ".bootstrap",
    "paired_bootstrap": ".bootstrap",
    "swap_probabilities": ".bootstrap",
    "MeasureMatrix": ".matrix",
    "measure_matrix": ".matrix",
    "topic_matrix": ".matrix",
    "randomization_test": ".significance",
    "adjust": ".corrections",
    "rank_intervals": ".ranks",
    "analyze": ".run_comparison",
}

__all__ = sorted(_NAMES)


__getattr__, __dir__ = lazy_exports(__name__, _NAMES)
