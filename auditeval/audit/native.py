"""The audit's one door to the native engine: many conventions over the same inputs.

Every analysis (agreement, attribution, sensitivity, tie envelope) asks
:meth:`Native.get` for ``(run, measure, convention)``; values are memoised by variant
string (two conventions with the same variant give the same numbers) and prepared lists
are shared through the engine's cache keyed by the axes ``prepare`` reads
(:func:`auditeval.engine.evaluate.evaluate_prepared`). When the staged engine
(``auditeval.engine.staged.StagedRun``) lands, only this module changes.
"""

from __future__ import annotations

from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from ..conventions import Convention
from ..engine.evaluate import PREPARE_AXES, evaluate_prepared
from ..engine.measures import MEASURES
from ..engine.prepare import Prepared
from ..errors import AuditEvalError
from ..measures import Measure
from ..model import Qrels, Run
from ..variant import Variant, fold

PREPARED_KEEP = 6  # prepared lists kept per run (a 7M-line run's prepared lists take ~110 MB each)


@dataclass(frozen=True)
class TopicValues:
    """One measure under one convention on one run: per-topic values and the aggregate."""

    variant: Variant
    topics: np.ndarray  # object array of topic ids (evaluation order)
    values: np.ndarray  # float64 per topic
    aggregate: float | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.topics.tolist(), self.values.tolist(), strict=True))


class Native:
    """Memoised native evaluation of many conventions over one qrels and several runs."""

    def __init__(self, qrels: Qrels, runs: list[Run]):
        self.qrels = qrels
        self.runs = runs
        self._prepared: list[OrderedDict] = [OrderedDict() for _ in runs]
        self._values: dict[tuple[int, str], TopicValues] = {}
        self.notes: list[str] = []
        self.evaluations = 0

    def get(self, ri: int, m: Measure, conv: Convention) -> TopicValues:
        variant = Variant.of(m, conv)
        key = (ri, str(variant))
        hit = self._values.get(key)
        if hit is not None:
            return hit
        cache = _LRU(self._prepared[ri], PREPARED_KEEP)
        try:
            ((_, _, p, vals, agg),) = evaluate_prepared(self.qrels, self.runs[ri], [m], conv, cache)
            tv = TopicValues(variant, p.topics, np.asarray(vals, dtype=np.float64), agg)
            for n in p.notes:
                if n not in self.notes:
                    self.notes.append(n)
        except AuditEvalError as exc:
            tv = TopicValues(variant, np.array([], dtype=object), np.array([]), None, error=str(exc))
        self.evaluations += 1
        self._values[key] = tv
        return tv

    def prepared(self, ri: int, conv: Convention, m: Measure | None = None) -> Prepared:
        """The prepared lists of run ``ri`` under ``conv`` (folded by ``m``'s parameters)."""
        c2 = fold(m, conv)[1] if m is not None else conv
        cache = _LRU(self._prepared[ri], PREPARED_KEEP)
        key = tuple(getattr(c2, a) for a in PREPARE_AXES)
        if key not in cache:
            from ..engine.prepare import prepare

            cache[key] = prepare(self.qrels, self.runs[ri], c2)
        return cache[key]


def floor_for(m: Measure, conv: Convention) -> float | None:
    """gm_floor when ``m`` aggregates by geometric mean (per-topic values compare floored)."""
    return fold(m, conv)[1].gm_floor if MEASURES[m.name].agg == "gmean" else None


def same(a: TopicValues, b: TopicValues, tol: float = 1e-12) -> bool:
    """Same topic set and every per-topic value within ``tol`` (and both aggregates)."""
    if not (a.ok and b.ok):
        return a.error == b.error
    if len(a.topics) != len(b.topics) or not np.array_equal(a.topics, b.topics):
        return False
    if not np.allclose(a.values, b.values, rtol=0, atol=tol, equal_nan=True):
        return False
    if (a.aggregate is None) != (b.aggregate is None):
        return False
    return a.aggregate is None or abs(a.aggregate - b.aggregate) <= tol or a.aggregate == b.aggregate


class _LRU:
    """The cache protocol ``evaluate_prepared`` uses, over a shared dict that keeps at most
    ``n`` entries (least recently used dropped first)."""

    def __init__(self, store: OrderedDict, n: int):
        self._store, self._n = store, n

    def __contains__(self, k) -> bool:
        return k in self._store

    def __getitem__(self, k):
        self._store.move_to_end(k)
        return self._store[k]

    def __setitem__(self, k, v) -> None:
        self._store[k] = v
        while len(self._store) > self._n:
            self._store.popitem(last=False)
