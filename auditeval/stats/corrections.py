"""Multiple-comparison corrections of a family of p-values.

* ``bonferroni``: ``min(1, m p_i)``.
* ``holm`` (Holm 1979, step-down): with ``p_(1) <= ... <= p_(m)``,
  ``p~_(i) = max_{j <= i} min(1, (m - j + 1) p_(j))``.
* ``bh`` (Benjamini & Hochberg 1995, step-up, controls the false discovery rate):
  ``p~_(i) = min_{j >= i} min(1, m p_(j) / j)``.
* ``none``: unchanged.

``m`` counts the tests actually made: NaN p-values (a pair with no non-zero difference)
stay NaN and are not counted. The family is what the caller passes: runs against a baseline
(the baseline is never tested against itself) or all pairs.
"""

from __future__ import annotations

import numpy as np

METHODS = ("holm", "bonferroni", "bh", "none")


def adjust(p: np.ndarray, method: str = "holm") -> np.ndarray:
    """Adjusted p-values in the input order."""
    if method not in METHODS:
        raise ValueError(f"unknown correction {method!r}; one of {', '.join(METHODS)}")
    p = np.asarray(p, dtype=np.float64)
    out = np.full_like(p, np.nan)
    ok = np.flatnonzero(~np.isnan(p))
    m = ok.size
    if m == 0 or method == "none":
        out[ok] = p[ok]
        return out
    if method == "bonferroni":
        out[ok] = np.minimum(1.0, m * p[ok])
        return out
    order = ok[np.argsort(p[ok], kind="stable")]
    ps = p[order]
    i = np.arange(1, m + 1)
    if method == "holm":
        adj = np.maximum.accumulate(np.minimum(1.0, (m - i + 1) * ps))
    else:
        adj = np.minimum.accumulate(np.minimum(1.0, m * ps / i)[::-1])[::-1]
    out[order] = adj
    return out
