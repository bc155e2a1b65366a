"""Topic-aligned score matrices from a :class:`~auditeval.results.values.ResultSet`."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from auditeval.results.subset import TopicSubset
from auditeval.results.values import ResultSet, variant_text
from auditeval.vocab.errors import EvaluationError


def _byte_order(t: str) -> bytes:
    return t.encode("utf-8")


@dataclass(frozen=True)
class MeasureMatrix:
    """Per-topic values of one measure: ``scores[r, t]`` for ``runs[r]`` on ``topics[t]``.

    ``topics`` are those every run was evaluated on (byte order, as trec_eval's strcmp);
    ``dropped`` maps each other topic to the runs that lack it (reported, never silent).
    ``full`` holds each run's own topics (those ``eval`` averages it over) and ``full_means``
    the aggregate ``eval`` reports for it (``None`` when the results have no aggregate row),
    so a mean over ``topics`` is never taken for the full-set number (:meth:`subset`).
    """

    measure: str
    variant: str
    engine: str
    runs: list[str]
    topics: list[str]
    scores: np.ndarray
    dropped: dict[str, list[str]] = field(default_factory=dict)
    full: dict[str, tuple[str, ...]] = field(default_factory=dict)
    full_means: dict[str, float | None] = field(default_factory=dict)

    def subset(self, run: str | None = None) -> TopicSubset:
        """The paired topics out of ``run``'s own topics (``None``: out of every topic some
        run is evaluated on); the full set when the results do not say (``full`` empty)."""
        if run is None:
            every = set(self.topics) | set(self.dropped)
            full = tuple(sorted(every, key=_byte_order))
        else:
            full = self.full.get(run, tuple(self.topics))
        return TopicSubset(tuple(self.topics), full, "paired", "not evaluated for every run compared")

    def notes(self) -> list[str]:
        out = []
        for t, lacking in self.dropped.items():
            out.append(f"{self.measure}: topic {t} left out of the statistics: not evaluated for "
                       + ", ".join(lacking))
        return out


def measure_matrix(result_set: ResultSet, measure: str) -> MeasureMatrix:
    """The :class:`MeasureMatrix` of ``measure`` (as requested, e.g. ``"nDCG@10"``)."""
    per_run: dict[str, dict[str, float]] = {}
    aggregate: dict[str, float | None] = {}
    variants: set[str] = set()
    engines: set[str] = set()
    for v in result_set.values:
        if v.measure != measure:
            continue
        per_run.setdefault(v.run, {})
        if v.topic == "all":
            aggregate[v.run] = None if isinstance(v.value, str) else float(v.value)
            continue
        if isinstance(v.value, str):
            raise EvaluationError(f"{measure} has text values (e.g. {v.value!r}); no statistics on it")
        per_run[v.run][v.topic] = float(v.value)
        variants.add(variant_text(v.variant))
        engines.add(v.engine)
    if not per_run:
        raise EvaluationError(f"measure {measure!r} not in the results")
    if len(variants) != 1:
        raise EvaluationError(f"{measure}: runs evaluated under different variants, not comparable: "
                              + " / ".join(sorted(variants)) if variants else f"{measure}: no per-topic values")
    runs = list(per_run)
    every = set.union(*(set(d) for d in per_run.values()))
    common = set.intersection(*(set(d) for d in per_run.values()))
    topics = sorted(common, key=_byte_order)
    if not topics:
        raise EvaluationError(f"{measure}: no topic is evaluated for every run")
    scores = np.array([[per_run[r][t] for t in topics] for r in runs], dtype=np.float64)
    dropped = {t: [r for r in runs if t not in per_run[r]] for t in sorted(every - common, key=_byte_order)}
    full = {r: tuple(sorted(per_run[r], key=_byte_order)) for r in runs}
    return MeasureMatrix(measure, variants.pop(), ", ".join(sorted(engines)), runs, topics, scores, dropped,
                         full, {r: aggregate.get(r) for r in runs})


def topic_matrix(result_set: ResultSet, measure: str) -> tuple[list[str], list[str], np.ndarray]:
    """``(runs, topics, scores (R, T))`` of ``measure``: topics present in every run.

    Runs keep their order in the results; topics are in byte order. Topics some run lacks
    are listed by :func:`measure_matrix` (``dropped``).
    """
    m = measure_matrix(result_set, measure)
    return m.runs, m.topics, m.scores
