"""What every renderer shares: one or several result sets (one per profile), their notes,
the axes a value departs from its profile on, and value formatting."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from auditeval.results.values import ResultSet, Value
from auditeval.vocab.conventions import AXES, Convention
from auditeval.vocab.variant import Variant


def as_list(results: ResultSet | Sequence[ResultSet]) -> list[ResultSet]:
    """A single result set or several (one per profile) as a list."""
    return [results] if isinstance(results, ResultSet) else list(results)


def all_notes(results: Sequence[ResultSet]) -> list[str]:
    """Notes of every result set, each once, in order of first appearance; a refused run's
    note (:meth:`~auditeval.results.values.Refusal.note`) is always among them."""
    notes = [n for res in results for n in res.notes]
    notes += [r.note() for res in results for r in res.refusals]
    return list(dict.fromkeys(notes))


REFUSED = "refused"
"""The cell of a value the engine refused to compute (the run's :class:`~auditeval.results.values.Refusal`)."""


def run_order(results: Sequence[ResultSet]) -> list[str]:
    """Every run label of the result sets in the order given, refused runs in their place."""
    return list(dict.fromkeys(r for res in results for r in res.runs()))


def refused_runs(res: ResultSet) -> set[str]:
    return {r.run for r in res.refusals}


def rows(res: ResultSet, per_topic: bool) -> list[Value]:
    return res.values if per_topic else res.aggregates()


def departures(variant: Variant, conv: Convention | None) -> list[tuple[str, Any]]:
    """Axes of ``variant`` whose value differs from the profile's (``AP(rel=2)`` under a
    ``rel=1`` profile departs on ``rel``); every axis when there is no profile."""
    if conv is None:
        return list(variant.axes)
    return [(a, v) for a, v in variant.axes if getattr(conv, a) != v]


def axis_text(axis: str, value: Any) -> str:
    return f"{axis}={AXES[axis].format(value)}"


def format_value(x: float | int | str) -> str:
    """Terminal form of a value: floats to 4 decimals (full precision stays in TSV/JSON)."""
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def full_value(x: float | int | str) -> str:
    """TSV form: ``repr`` of a float (round-trips exactly), ints and strings as they are."""
    return repr(x) if isinstance(x, float) else str(x)
