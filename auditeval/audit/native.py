"""The audit's one door to the native engine: many conventions over the same inputs.

Every analysis (agreement, attribution, sensitivity, tie envelope) asks
:meth:`Native.get` for ``(run, measure, convention)``. Each run has one
:class:`~auditeval.engine.staged.StagedRun`, which computes the join once and each
ranking, cut and kernel once per distinct key of the axes it reads; results are memoised
here by variant string as well (two conventions with one variant give one result), and an
input the engine refuses under a convention (``dups=error`` with duplicates,
``topics=strict`` with a missing topic) becomes a result carrying the error text.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..conventions import Convention
from ..engine.measures import MEASURES
from ..engine.prepared import Prepared
from ..engine.staged import StagedRun
from ..errors import AuditEvalError
from ..measures import Measure
from ..model import Qrels, Run
from ..variant import Variant, fold


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
        self.staged = [StagedRun(qrels, r) for r in runs]
        self._values: dict[tuple[int, str], TopicValues] = {}
        self.notes: list[str] = []

    def get(self, ri: int, m: Measure, conv: Convention) -> TopicValues:
        variant = Variant.of(m, conv)
        key = (ri, str(variant))
        hit = self._values.get(key)
        if hit is not None:
            return hit
        try:
            tv0 = self.staged[ri].evaluate(m, conv)
            tv = TopicValues(variant, tv0.topics, np.asarray(tv0.values, dtype=np.float64), tv0.aggregate)
            for n in self.staged[ri].prepared(fold(m, conv)[1]).notes:
                if n not in self.notes:
                    self.notes.append(n)
        except AuditEvalError as exc:
            tv = TopicValues(variant, np.array([], dtype=object), np.array([]), None, error=str(exc))
        self._values[key] = tv
        return tv

    def prepared(self, ri: int, conv: Convention, m: Measure | None = None) -> Prepared:
        """The prepared lists of run ``ri`` under ``conv`` (folded by ``m``'s parameters)."""
        return self.staged[ri].prepared(fold(m, conv)[1] if m is not None else conv)


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
