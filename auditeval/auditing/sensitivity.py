"""Sensitivity sweep: every value of every axis the measures read, one axis at a time.

Per run, measure, axis and value: the aggregate under the chosen convention with that one
axis changed, its delta from the chosen convention, how many topics change, and the
largest per-topic change. With several runs, per measure/axis/value: whether the order of
the runs by aggregate changes, and which pairs swap. A value the input makes impossible
(``dups=error`` on a run with duplicates, ``topics=strict`` with a missing topic) is
reported with the engine's error instead of a number.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from auditeval.auditing.attribution import axis_values, compare
from auditeval.auditing.native import Native
from auditeval.results.audit import SensitivityRow, SwapRow
from auditeval.vocab.conventions import AXES, Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import fold, variant_axes


def read_axes(measures: list[Measure], base: Convention) -> list[str]:
    read: set[str] = set()
    for m in measures:
        m2, c2 = fold(m, base)
        read |= set(variant_axes(m2, c2.depth, c2.topics, c2.rel))
    return [a for a in AXES if a in read]


def sweep(nat: Native, run_names: list[str], measures: list[Measure], base: Convention, max_grade: int,
          tick: Callable[[], None] | None = None) -> tuple[list[SensitivityRow], list[SwapRow]]:
    rows: list[SensitivityRow] = []
    swaps: list[SwapRow] = []
    for axis in read_axes(measures, base):
        for value in axis_values(axis, base, max_grade):
            conv = base.replace(**{axis: value})
            for m in measures:
                m2, c2 = fold(m, base)
                if axis not in variant_axes(m2, c2.depth, c2.topics, c2.rel) or (axis == "rel" and m.param("rel") is not None):
                    continue
                aggs = []
                for ri, name in enumerate(run_names):
                    b = nat.get(ri, m, base)
                    v = nat.get(ri, m, conv)
                    moved, top, change = compare(b, v)
                    delta = None if (v.aggregate is None or b.aggregate is None) else v.aggregate - b.aggregate
                    rows.append(SensitivityRow(name, str(m), axis, AXES[axis].format(value), str(v.variant), v.aggregate,
                                               delta, moved, top, change, is_base=value == getattr(base, axis),
                                               error=v.error or ""))
                    aggs.append((b.aggregate, v.aggregate))
                if len(run_names) > 1 and value != getattr(base, axis):
                    swaps.append(_swaps(str(m), axis, AXES[axis].format(value), run_names, aggs))
            if tick is not None:
                tick()
    return rows, swaps


def _swaps(measure: str, axis: str, value: str, names: list[str], aggs: list[tuple]) -> SwapRow:
    pairs = []
    for i in range(len(names)):
        for j in range(i + 1, len(names)):
            (bi, vi), (bj, vj) = aggs[i], aggs[j]
            if None in (bi, vi, bj, vj):
                continue
            if np.sign(bi - bj) * np.sign(vi - vj) < 0:
                pairs.append(f"{names[i]}/{names[j]}")
    return SwapRow(measure, axis, value, bool(pairs), pairs)
