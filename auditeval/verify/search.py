"""Which conventions reproduce a number: candidate variants of a measure, simplest first,
evaluated natively with the work shared across them.

A **candidate** is a named profile plus a few *departures* (``axis=value`` changes). Only
axes that can change the measure are varied (its variant axes, with ``depth``, so ``ties``
and ``sim`` join for order-free counts), and candidates whose variant strings coincide
compute the same number, so only the simplest of them is kept: fewest departures, then
profile order (:func:`profile_order`). Simplicity is exactly "fewest departures from a
named profile, that profile named", the order ``verify`` lists reproducing variants in.

Axis values are the sweep's grids (:func:`auditeval.engine.sweep.axis_grid`: every value
of an enumerated axis, ``rel`` the positive grades in the qrels, ``depth`` 5, 10, 20, 100,
1000 and all, float axes the values the shipped profiles use).

:func:`evaluate_candidates` is the one place candidates are evaluated, on the sweep's
engine: one :class:`~auditeval.engine.staged_run.StagedRun` per run (kept in ``cache``), so each
distinct ranking is sorted once, each cut is a mask, and each distinct variant is one
kernel call.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from auditeval.engine import axis_grid, readable_axes, staged_for
from auditeval.vocab.conventions import AXES, Convention, load_profile, profile_names
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant

PREFERRED = ("trec_eval-9.0.8", "trec_eval-10.0", "trec_eval-9.0.8-double", "trec_eval-8.1", "ir_measures-0.4",
             "ir_measures-0.4-msmarco", "ranx-0.3", "textbook")
# trec_eval 9.0.7, 9.0.6, 9.0.5 share 9.0.8's axes (same_as) and 8.0 shares 8.1's: their candidates
# are 9.0.8's and 8.1's (one per variant string), found under those names first.


def profile_order() -> list[str]:
    """Every shipped profile, the trec_eval builds and the common tools first (the order in
    which equally simple candidates are listed)."""
    names = profile_names()
    return [n for n in PREFERRED if n in names] + [n for n in names if n not in PREFERRED]


@dataclass(frozen=True)
class Candidate:
    """A profile and the axes changed from it; ``variant`` is the measure's variant string."""

    profile: str
    departures: tuple[tuple[str, Any], ...]
    convention: Convention
    variant: str
    digits: int | None = None  # the profile's print_digits: its aggregates are rounded (BEIR: 5)

    @property
    def label(self) -> str:
        rounded = "" if self.digits is None else f" (aggregate rounded to {self.digits} decimals)"
        if not self.departures:
            return self.profile + rounded
        return self.profile + " with " + ", ".join(f"{a}={AXES[a].format(v)}" for a, v in self.departures) + rounded

    @property
    def settings(self) -> list[str]:
        return [f"{a}={AXES[a].format(v)}" for a, v in self.departures]


def searched_axes(m: Measure) -> tuple[str, ...]:
    """The axes that can change ``m`` under some convention (the sweep's ``readable_axes``)."""
    return tuple(sorted(readable_axes(m)))


def candidates(m: Measure, max_departures: int = 1, qrels: Qrels | None = None,
               profiles: Sequence[str] | None = None, axes: Sequence[str] | None = None) -> list[Candidate]:
    """Every profile with up to ``max_departures`` changed axes, one candidate per distinct
    variant string and output rounding, simplest first.

    A profile with ``print_digits`` (BEIR's ``round(x, 5)``) gives candidates of its own even
    where its variant string is another profile's: the tool returns a different number, the
    rounded aggregate (:func:`evaluate_candidates` rounds it)."""
    axes = tuple(axes) if axes is not None else searched_axes(m)
    values = {a: axis_grid(a, qrels) for a in axes}
    seen: dict[tuple[str, int | None], Candidate] = {}
    for k in range(max_departures + 1):
        for name in profiles or profile_order():
            prof = load_profile(name)
            base, digits = prof.convention, prof.print_digits
            for combo in itertools.combinations(axes, k):
                choices = [[v for v in values[a] if v != getattr(base, a)] for a in combo]
                for vals in itertools.product(*choices):
                    dep = tuple(zip(combo, vals, strict=True))
                    conv = base.replace(**dict(dep)) if dep else base
                    var = str(Variant.of(m, conv))
                    if (var, digits) not in seen:
                        seen[(var, digits)] = Candidate(name, dep, conv, var, digits)
    return list(seen.values())


@dataclass
class Evaluated:
    """Candidates' values: ``values[v, t]`` for ``topics[t]`` (NaN: topic not evaluated)."""

    candidates: list[Candidate]
    topics: list[str]
    values: np.ndarray  # (V, T)
    aggregates: np.ndarray  # (V,) NaN where the measure has no aggregate
    errors: dict[int, str] = field(default_factory=dict)  # candidate index -> why it has no value
    raw_aggregates: np.ndarray | None = None  # (V,) before a candidate's print_digits rounding

    def error_note(self, m: Measure) -> str | None:
        """One note summing up the candidates that could not be evaluated, or None."""
        if not self.errors:
            return None
        i, why = next(iter(self.errors.items()))
        return (f"{len(self.errors)} variant(s) of {m} not evaluated on this input, e.g. "
                f"{self.candidates[i].label}: {why.splitlines()[0]}")


def evaluate_candidates(qrels: Qrels, run: Run, m: Measure, cands: Sequence[Candidate],
                        cache: dict | None = None) -> Evaluated:
    """Evaluate ``m`` under every candidate on one run, the engine's stages shared through
    one ``cache`` (pass the same dict for several measures of the same run).

    A candidate with ``digits`` gets its aggregate as its tool returns it, Python
    ``round(aggregate, digits)`` (beir/retrieval/evaluation.py:111-115); per-topic values stay
    unrounded (BEIR rounds only the means). One variant string is computed once."""
    sr = staged_for(qrels, run, cache)
    per: list[tuple[np.ndarray, np.ndarray, float]] = []
    raw: list[float] = []
    topic_index: dict[str, int] = {}
    errors: dict[int, str] = {}
    done: dict[str, Any] = {}
    for i, c in enumerate(cands):
        try:
            tv = done.get(c.variant)
            if tv is None:
                tv = done[c.variant] = sr.evaluate(m, c.convention)
        except AuditEvalError as exc:  # e.g. topics=strict on a run lacking a qrels topic: no value
            errors[i] = str(exc)
            per.append((np.zeros(0, dtype=np.int64), np.zeros(0), np.nan))
            raw.append(np.nan)
            continue
        ids, vals, agg = [str(t) for t in tv.topics], tv.values, tv.aggregate
        raw.append(np.nan if agg is None else float(agg))
        if agg is not None and c.digits is not None:
            agg = round(float(agg), c.digits)
        for t in ids:
            topic_index.setdefault(t, len(topic_index))
        per.append((np.array([topic_index[t] for t in ids], dtype=np.int64), np.asarray(vals, dtype=np.float64),
                    np.nan if agg is None else float(agg)))
    topics = sorted(topic_index, key=lambda s: s.encode("utf-8"))
    order = np.empty(len(topic_index), dtype=np.int64)
    order[[topic_index[t] for t in topics]] = np.arange(len(topics))
    values = np.full((len(cands), len(topics)), np.nan)
    for i, (idx, vals, _agg) in enumerate(per):
        values[i, order[idx]] = vals
    return Evaluated(list(cands), topics, values, np.array([a for _, _, a in per], dtype=np.float64), errors,
                     np.array(raw, dtype=np.float64))
