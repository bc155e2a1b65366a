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


def c_float_sum(values: np.ndarray) -> float:
    """trec_eval 8.x's accumulation (print_meas.c:30-60 ``accumulate_results``): every per-topic
    value is stored as a C ``float`` (trec_eval.h:200-370, the TREC_EVAL fields) and added to a
    ``float`` total in topic order, ``*float_accum += *float_query`` (float arithmetic)."""
    total = np.float32(0.0)
    for v in np.asarray(values, dtype=np.float64).astype(np.float32):
        total = np.float32(total + v)
    return float(total)


def c_float_mean(total: float, n: int) -> float:
    """print_meas.c:108-110: ``float_eval /= eval->num_queries`` (float by long: float division;
    0 topics give C's NaN or infinity)."""
    with np.errstate(all="ignore"):
        return float(np.float32(total) / np.float32(n))


def c_float_gmean(log_total: float, n: int, n_missing: int, floor: float) -> float:
    """print_meas.c:112-121, trec_eval 8.x's geometric mean: the float sum of per-topic
    ``(float) log(MAX(v, MIN_GEO_MEAN))``, plus ``n_missing * log(MIN_GEO_MEAN)`` for the qrels
    topics ``-c`` counts (double arithmetic stored in the float), then
    ``(float) exp((double)(float_eval / num_queries))``."""
    with np.errstate(all="ignore"):
        total = np.float32(np.float64(np.float32(log_total)) + n_missing * math.log(floor))
        return float(np.float32(np.exp(np.float64(np.float32(total / np.float32(n))))))


def c_float_logs(values: np.ndarray, floor: float) -> np.ndarray:
    """trvec_teval.c's per-topic ``(float) log((double) MAX(v, MIN_GEO_MEAN))`` of float values."""
    v = np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64)
    return np.log(np.maximum(v, floor)).astype(np.float32).astype(np.float64)
