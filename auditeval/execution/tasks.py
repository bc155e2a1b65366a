"""The picklable tasks: one run each, computed by the functions the serial path calls.

A task is ``fn(shared, item)`` (:mod:`auditeval.execution.seam`; the backends of
:mod:`auditeval.execution.backends` run it): ``shared`` holds what every run of a command
needs (the read qrels, the measures, the profiles; loaded once per worker), ``item`` is one
run: its path (read in the worker, so the parent never holds the runs) or, for standard input
and in-memory runs, the :class:`~auditeval.vocab.model.Run` itself (its Arrow table travels as
pickled IPC buffers). A task returns per-topic values and
the run's header (tag and source); the parent labels the runs by the one rule
(:mod:`auditeval.io.run_labels`) once every tag is known, then renders: the values are those of
:func:`auditeval.api.evaluate` / :func:`auditeval.engine.sweep_part`, whoever ran the task.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from auditeval.api import evaluate, sweep_setup
from auditeval.auditing.tie_note import tie_summary
from auditeval.engine import SweepPart, SweepPlan, SweepResult, sweep_assemble, sweep_plan
from auditeval.engine import sweep_part as engine_sweep_part
from auditeval.execution.seam import Progress, Seam
from auditeval.io import run_from
from auditeval.results.parts import RunHeader, labels_of, merged
from auditeval.results.values import ResultSet
from auditeval.vocab.conventions import ProfileLike, resolve_profile
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import parse_measure

if TYPE_CHECKING:  # verify loads with verify --table only
    from auditeval.verify.claims import Claim, Verdict

RunSource = str | Run
"""A task's run: a path, or the run itself (standard input, a DataFrame, a dict)."""


def item_label(src: RunSource) -> str:
    """How a failure report names a run: its path, or its source (``<stdin>``)."""
    return src if isinstance(src, str) else src.source


def _read(src: RunSource) -> Run:
    return run_from(src) if isinstance(src, str) else src


# ----------------------------------------------------------------------------- eval
@dataclass(frozen=True)
class EvalShared:
    """What every run's evaluation reads: the qrels, the measures (as given), the profiles
    (names, or :class:`~auditeval.vocab.conventions.ResolvedProfile` objects resolved once by the
    command) and ``--set`` overrides; ``ties``: also the tie summary (``eval``'s note)."""

    qrels: Qrels
    measures: tuple[str, ...]
    profiles: tuple[ProfileLike, ...]
    settings: tuple[str, ...] = ()
    ties: bool = True


@dataclass
class ProfileResult:
    """One run under one profile: its values (``result``, run named by its tag) and tie
    summary, or the reason the profile refused it."""

    result: ResultSet | None
    ties: list | None = None
    refusal: str | None = None


@dataclass
class EvalPart:
    """One run's evaluation under every profile (:func:`eval_run`)."""

    header: RunHeader
    notes: list[str]  # the run's reading notes
    profiles: list[ProfileResult]


def eval_run(shared: EvalShared, src: RunSource) -> EvalPart:
    """Evaluate one run under every profile: :func:`auditeval.api.evaluate` and, when asked,
    :func:`auditeval.auditing.tie_note.tie_summary` (one staged join and ranking shared by both)."""
    run = _read(src)
    parsed = [(m, parse_measure(m)) for m in shared.measures]
    profiles = [resolve_profile(p, list(shared.settings)) for p in shared.profiles]  # a no-op on resolved ones
    cache: dict = {}
    out = []
    for prof in profiles:
        try:
            res = evaluate(shared.qrels, [run], list(shared.measures), profile=prof, cache=cache)
            ties = None
            if shared.ties:
                ties = tie_summary(shared.qrels, run, parsed, prof.convention, cache=cache)
            out.append(ProfileResult(res, ties))
        except EvaluationError as exc:
            out.append(ProfileResult(None, refusal=str(exc)))
    return EvalPart(RunHeader(run.name, run.source), list(run.notes), out)


def eval_parts(backend: Seam, qrels: Qrels, runs: Sequence[RunSource], measures: Sequence[str],
               profiles: Sequence[ProfileLike], settings: Sequence[str] = (), ties: bool = True,
               progress: Progress | None = None) -> Iterator[EvalPart]:
    """:func:`eval_run` of every run on ``backend``, in run order."""
    shared = backend.share(EvalShared(qrels, tuple(measures), tuple(profiles), tuple(settings), ties))
    return backend.map(eval_run, shared, list(runs), [item_label(r) for r in runs], progress)


def evaluate_runs(backend: Seam, qrels: Qrels, runs: Sequence[RunSource], measures: Sequence[str],
                  profile: str, settings: Sequence[str] = (), progress: Progress | None = None
                  ) -> tuple[ResultSet, list[str], list[str]]:
    """The runs under one profile as one :class:`ResultSet` (what ``evaluate(qrels, runs, ...)``
    gives for already labelled runs: values in run order, each note once), the runs' labels
    and the labelling notes. A refusal is raised, as ``evaluate`` raises it."""
    parts = list(eval_parts(backend, qrels, runs, measures, [profile], settings, False, progress))
    labels, notes = labels_of([p.header for p in parts])
    for part in parts:
        if part.profiles[0].result is None:
            raise EvaluationError(part.profiles[0].refusal or "refused")
    return merged([p.profiles[0].result for p in parts], labels, qrels.notes), labels, notes


# ----------------------------------------------------------------------------- sweep
@dataclass(frozen=True)
class SweepShared:
    qrels: Qrels
    plan: SweepPlan


def sweep_run(shared: SweepShared, src: RunSource) -> tuple[RunHeader, SweepPart]:
    """Every variant of the plan on one run (:func:`auditeval.engine.sweep_part`)."""
    run = _read(src)
    return RunHeader(run.name, run.source), engine_sweep_part(shared.qrels, run, shared.plan)


def sweep_runs(backend: Seam, qrels: Qrels, runs: Sequence[RunSource], measures: Sequence[str],
               profile: str, vary: dict[str, Any] | None, settings: Sequence[str] = (),
               progress: Progress | None = None, per_topic: bool = True) -> SweepResult:
    """What :func:`auditeval.api.sweep` gives, with each run's part computed on ``backend``
    and the parts assembled in run order (:func:`auditeval.engine.sweep_assemble`).
    ``per_topic=False`` (a view that shows none): each part keeps the aggregates only, so the
    command holds variants x runs numbers, not variants x runs x topics."""
    setup = sweep_setup(qrels, measures, profile, vary, list(settings))
    plan = sweep_plan(setup.parsed, setup.labels, setup.base, setup.values, setup.bases, per_topic)
    shared = backend.share(SweepShared(qrels, plan))
    results = list(backend.map(sweep_run, shared, list(runs), [item_label(r) for r in runs], progress))
    labels, notes = labels_of([h for h, _ in results])
    headers = [RunHeader(lab, h.source) for (h, _), lab in zip(results, labels, strict=True)]
    res = sweep_assemble(qrels, plan, headers, (p for _, p in results), setup.name)
    res.notes[:0] = notes
    return res


# ----------------------------------------------------------------------------- verify --table
@dataclass(frozen=True)
class ClaimsShared:
    """What every run's claims read: the qrels and the most departures searched."""

    qrels: Qrels
    max_departures: int


def verify_run(shared: ClaimsShared, item: tuple[RunSource, list[Claim]]) -> list[Verdict]:
    """Every claim of one run (``verify --table``): :func:`auditeval.verify.claims.verify_claim`
    in the table's order, one staged run (cache) shared by the run's claims."""
    from auditeval.verify.claims import verify_claim

    src, claims = item
    run = _read(src)
    cache: dict = {}
    return [verify_claim(shared.qrels, run, c, cache, shared.max_departures) for c in claims]
