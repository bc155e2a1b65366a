"""Results computed one run at a time (elsewhere, :mod:`auditeval.execution`), put together.

A run's task returns its values under the run's *tag* and its :class:`RunHeader`; the runs'
labels are decided once every tag is known, by the one rule (:mod:`auditeval.io.run_labels`:
:func:`labels_of`), then each run's values are :func:`renamed` and the runs' result sets
:func:`merged` in run order: what one :func:`auditeval.api.evaluate` call over the labelled
runs gives (values in run order, each note once, the qrels' notes first).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from typing import NamedTuple

from auditeval.io.run_labels import label_notes, run_labels
from auditeval.results.values import ResultSet


class RunHeader(NamedTuple):
    """What labelling needs of a run (:func:`auditeval.io.run_labels.run_labels` reads these two)."""

    name: str
    source: str


def labels_of(headers: Sequence[RunHeader]) -> tuple[list[str], list[str]]:
    """The runs' labels and the labelling notes (in run order): the one rule, on headers."""
    labels = run_labels(headers)  # type: ignore[arg-type]  # it reads .name and .source only
    notes = label_notes(headers, labels)  # type: ignore[arg-type]
    return labels, [n for n in notes if n]


def renamed(res: ResultSet, label: str) -> ResultSet:
    """``res`` (one run's values) with the run reported as ``label``."""
    if all(v.run == label for v in res.values):
        return res
    return replace(res, values=[replace(v, run=label) for v in res.values])


def merged(parts: Sequence[ResultSet], labels: Sequence[str], first_notes: Sequence[str] = ()) -> ResultSet:
    """One result set of the runs' ``parts`` (one run each, in run order) under ``labels``:
    values in run order, notes ``first_notes`` then each part's in order, each text once."""
    if not parts:
        raise ValueError("merged() needs at least one part")
    total = ResultSet(profile=parts[0].profile, convention=parts[0].convention, notes=list(first_notes))
    for part, label in zip(parts, labels, strict=True):
        total.values.extend(renamed(part, label).values)
        total.notes.extend(n for n in part.notes if n not in total.notes)
    return total
