"""The kernel contract, and the record binding a kernel to its spec row.

A kernel is a pure function ``fn(p, m, c) -> np.ndarray``: ``p`` the
:class:`~auditeval.engine.ranked_lists.Prepared` lists, ``m`` the parsed
:class:`~auditeval.vocab.measure.Measure` (cut-off and own parameters), ``c`` the effective
:class:`~auditeval.vocab.conventions.Convention` (measure parameters such as ``rel=`` already
folded in, the spec's ``fixed`` axes applied). It returns one float64 per evaluated topic,
in ``p.topics`` order, computed with vector operations over the flat arrays (no per-topic
Python loops). What the measure *is* (axes, parameters, aggregation, format, formula,
missing-topic value) is its row in :mod:`auditeval.vocab.specs`, not here.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, fields

import numpy as np

from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.specs import MeasureSpec

MeasureFn = Callable[[Prepared, Measure, Convention], np.ndarray]


@dataclass(frozen=True)
class MeasureDef(MeasureSpec):
    """A spec row with its kernel ``fn``."""

    fn: MeasureFn | None = None

    @classmethod
    def bind(cls, spec: MeasureSpec, fn: MeasureFn) -> MeasureDef:
        return cls(**{f.name: getattr(spec, f.name) for f in fields(spec)}, fn=fn)


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with 0 where den == 0 (trec_eval returns 0 for undefined values)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def counted_over(total: np.ndarray, counted: np.ndarray, big_r: np.ndarray) -> np.ndarray:
    """m_map.c / m_gm_map.c / m_binG.c: ``if (rel_so_far) value = sum / num_rel``, in IEEE
    arithmetic. Under a ``rel`` below 0 unjudged documents are counted while R counts the
    judged ones only, so a topic whose qrels hold only negative grades has R = 0 and a
    counted row: sum / 0 = inf, which trec_eval prints (elsewhere R >= counted rows)."""
    out = np.zeros(len(total), dtype=np.float64)
    hit = counted > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        out[hit] = np.asarray(total, dtype=np.float64)[hit] / np.asarray(big_r, dtype=np.float64)[hit]
    return out
