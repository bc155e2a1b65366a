"""Aggregation over topics, summed in topic order as trec_eval does (meas_avg.c).

* ``mean``: sum of per-topic values, added sequentially, divided by the number of topics.
* ``sum``: counts (num_ret, num_rel, ...), summed.
* ``gmean``: exp(sum(log(max(v, gm_floor))) / n) (m_gm_map.c, MIN_GEO_MEAN).
* ``mean-defined``: the mean over the topics whose value is defined (not NaN), as
  ir_measures' accuracy provider averages only the topics it yields; None when none is.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np


def aggregate(values: np.ndarray, how: str, gm_floor: float) -> float | None:
    """The aggregate of per-topic ``values``; None for ``how="none"`` (e.g. relstring)."""
    if how == "none":
        return None
    n = len(values)
    if n == 0:
        return 0.0
    if how == "sum":
        return float(np.cumsum(values)[-1])
    if how == "gmean":
        logs = np.log(np.maximum(values, gm_floor))
        return math.exp(float(np.cumsum(logs)[-1]) / n)
    if how == "mean":
        return float(np.cumsum(values)[-1]) / n
    if how == "mean-defined":
        defined = values[~np.isnan(values)]
        return float(np.cumsum(defined)[-1]) / len(defined) if len(defined) else None
    raise ValueError(how)  # pragma: no cover


def undefined_note(source: str, label: str, topics: Sequence[str], reason: str, of: int | None = None,
                   where: str = "") -> str:
    """The note for topics a ``mean-defined`` measure has no value for (every output says it)."""
    shown = ", ".join(repr(str(t)) for t in topics[:5]) + (" ..." if len(topics) > 5 else "")
    count = f"{len(topics)} of {of}" if of is not None else f"{len(topics)}"
    return (f"{source}: {label} has no value for {count} topic(s){where} ({reason}): left out of its mean "
            f"and of per-topic output: {shown}")
