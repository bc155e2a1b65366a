"""Sweeps: the same runs under many conventions, every stage shared (:class:`StagedRun`).

Variants of a measure: the profile's convention with the varied axes set to every
combination of their values, **restricted to the axes the measure reads** (its variant
axes; ``ties``/``sim`` join them for an order-free count under a finite ``depth``), and
collapsed by variant string (``AP(rel=2)`` ignores a varied ``rel``; equal strings are one
variant, computed once).

Grids (``vary={"axis": "all"}`` or ``--vary AXIS``): every value of a categorical axis;
``rel`` the positive grades present in the qrels (``rel=0`` would call every judged
document relevant, and grades above the highest leave no relevant document); ``depth``
5, 10, 20, 100, 1000 and all; a float axis (``gm_floor``, ``rbp_p``) the values the shipped
profiles use.
"""

from __future__ import annotations

import gc
import itertools
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from operator import attrgetter
from typing import Any, TypeVar

import numpy as np

from auditeval.engine.aggregation import undefined_note
from auditeval.engine.measures import MEASURES
from auditeval.engine.staged_run import (
    ENGINE,
    PREPARE_AXES,
    Resolved,
    StagedRun,
    TopicValues,
    prepare_table,
    resolve_variant,
)
from auditeval.engine.sweep_grid import (
    GridConventions,
    GridVariants,
    combination,
    grid_variants,
    own_text,
    varied,
)
from auditeval.vocab.arrays import first_seen, unique
from auditeval.vocab.conventions import AXES, AXIS_ORDER, Convention, load_profile, profile_names
from auditeval.vocab.errors import AuditEvalError, ConventionError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant, parse_measure, variant_axes

T = TypeVar("T")

DEPTH_GRID: tuple[int | str, ...] = (5, 10, 20, 100, 1000, "all")


def axis_grid(axis: str, qrels: Qrels | None = None) -> list[Any]:
    """The documented grid of ``axis`` (see the module docstring)."""
    ax = AXES.get(axis)
    if ax is None:
        raise ConventionError(f"unknown axis {axis!r}; axes are: {', '.join(AXIS_ORDER)}")
    if ax.kind == "enum":
        return list(ax.values)
    if axis == "depth":
        return list(DEPTH_GRID)
    if axis == "rel":
        if qrels is None:
            return [1]
        grades = unique(qrels.table.column("grade").to_numpy())
        return [int(g) for g in grades if g >= 1] or [1]
    if ax.kind == "float":
        return sorted({getattr(load_profile(n).convention, axis) for n in profile_names()})
    raise AssertionError(axis)  # pragma: no cover - every axis kind is handled above


def vary_values(vary: dict[str, Any] | str | None, qrels: Qrels | None = None) -> dict[str, list[Any]]:
    """``{"ties": "all", "rel": [1, 2], "depth": 10}`` -> parsed value lists per axis, in axis
    order. ``"all"`` (or ``{"all": ...}``) varies every axis over its grid. An axis value
    ``"all"`` means the grid, except for ``depth``, where a list may hold ``"all"`` itself."""
    if vary is None:
        return {}
    if isinstance(vary, str):
        if vary != "all":
            raise ConventionError(f"vary must be a mapping axis -> values or 'all', got {vary!r}")
        vary = {"all": "all"}
    spec = dict(vary)
    if "all" in spec:
        spec.pop("all")
        for a in AXIS_ORDER:
            spec.setdefault(a, "all")
    out: dict[str, list[Any]] = {}
    for axis in AXIS_ORDER:
        if axis not in spec:
            continue
        v = spec[axis]
        values = axis_grid(axis, qrels) if v == "all" or v is None else (list(v) if isinstance(v, list | tuple) else [v])
        parsed: list[Any] = []
        for x in values:
            try:
                p = AXES[axis].parse(x)
            except ConventionError as exc:
                raise ConventionError(f"vary {axis}: {exc}") from None
            if p not in parsed:
                parsed.append(p)
        out[axis] = parsed
    unknown = set(spec) - set(AXES)
    if unknown:
        raise ConventionError(f"vary: unknown axis {sorted(unknown)[0]!r}; axes are: {', '.join(AXIS_ORDER)}")
    return out


def readable_axes(m: Measure) -> set[str]:
    """Every axis that can appear in ``m``'s variant under some convention."""
    return set(variant_axes(m, "all", "qrels", -1)) | set(variant_axes(m, 1, "qrels", -1))


def measure_variants(m: Measure, base: Convention, values: dict[str, list[Any]]) -> list[tuple[str, Convention]]:
    """Distinct (variant string, convention) pairs of ``m``: the varied axes ``m`` reads,
    every combination, collapsed by variant string (first convention kept). The profile's
    own variant (``base``), when among them, comes first: every sweep view (text, tsv, json)
    lists it before the variants that depart from it."""
    return [(key, conv) for key, conv, _, _ in _resolved_variants(m, base, values)]


def _resolved_variants(m: Measure, base: Convention, values: dict[str, list[Any]]
                       ) -> list[tuple[str, Convention, Resolved, int]]:
    """:func:`measure_variants` with each variant's :class:`Resolved` record (what the engine
    needs of the pair on every run), built from the :class:`Variant` computed here anyway, and
    the index of its combination among ``itertools.product`` of the axes ``m`` reads
    (:func:`read_axes`; :func:`combination` rebuilds the convention from it).

    Each combination's convention is built without validating its 20 axes again
    (``Convention._unchecked``): ``base`` is a convention and the varied values are checked
    once here, which is what ``Convention(**...)`` per combination checked."""
    axes = read_axes(m, values)
    for a in axes:
        for x in values[a]:
            AXES[a].parse(x)  # raises what Convention(...) raises for a bad value
    seen: dict[str, tuple[Convention, Resolved, int]] = {}
    base_values = base.as_dict()
    with _gc_paused():
        for ci, combo in enumerate(itertools.product(*(values[a] for a in axes))):
            conv = varied(base, base_values, axes, combo)
            r = resolve_variant(m, conv)
            key = str(r.variant)
            if key not in seen:
                seen[key] = (conv, r, ci)
        own = str(Variant.of(m, base))
        keys = [own, *(k for k in seen if k != own)] if own in seen else list(seen)
        return [(k, *seen[k]) for k in keys]


def read_axes(m: Measure, values: dict[str, list[Any]]) -> tuple[str, ...]:
    """The varied axes (``values``' keys, in their order) that ``m`` can read."""
    return tuple(a for a in values if a in readable_axes(m))


@contextmanager
def _gc_paused() -> Iterator[None]:
    """The cyclic garbage collector paused while a plan is built: it makes a few small objects
    per variant (conventions, variants, their records; no reference cycle among them), and the
    collections their allocation triggers, each traversing the plan built so far, took half
    of :func:`sweep_plan`'s time on 69,120 variants."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was:
            gc.enable()


@dataclass
class SweepBlock:
    """One measure over every variant, run and topic.

    ``values[v, r, t]``: the value of topic ``topics[t]`` in run ``runs[r]`` under variant
    ``variants[v]`` (NaN -- ``None`` for a text measure -- where that topic is not evaluated
    under that variant, or the variant could not be evaluated: see ``errors``);
    ``aggregates[v, r]`` likewise (NaN for a measure without an aggregate). ``evaluated[v, r,
    t]`` tells a value that is NaN (trec_eval's ``-nan``: IPrec of an emptied ranking) from a
    topic not evaluated.
    """

    measure: str
    variants: list[str]
    conventions: Sequence[Convention]  # built on first use (:class:`~auditeval.engine.sweep_grid.GridConventions`)
    runs: list[str]
    topics: list[str]
    values: np.ndarray
    aggregates: np.ndarray
    errors: dict[tuple[int, int], str] = field(default_factory=dict)  # (variant, run) -> reason
    fmt: str = "float"
    evaluated: np.ndarray | None = None  # bool (V, R, T)
    agg: str = "mean"  # the spec's aggregation ("none": aggregates are all NaN)
    undefined: np.ndarray | None = None  # bool (V, R, T): evaluated, but no value (agg "mean-defined")


@dataclass
class SweepResult:
    """Per measure a :class:`SweepBlock`; the notes of every decision taken on the way."""

    blocks: dict[str, SweepBlock]
    profile: str
    convention: Convention
    varied: dict[str, list[Any]]
    engine: str = ENGINE
    notes: list[str] = field(default_factory=list)
    bases: dict[str, Convention] = field(default_factory=dict)  # label -> its routed base, where not ``convention``

    def base_for(self, label: str) -> Convention:
        """The convention measure ``label`` was varied around (a routed profile's per measure)."""
        return self.bases.get(label, self.convention)

    def block(self, measure: str | Measure) -> SweepBlock:
        key = str(measure)
        if key in self.blocks:
            return self.blocks[key]
        for b in self.blocks.values():
            if b.measure == key:
                return b
        raise KeyError(key)

    @property
    def n_variants(self) -> int:
        return sum(len(b.variants) for b in self.blocks.values())

    def to_frame(self, per_topic: bool = True):
        """Tidy frame: run, topic (``"all"`` for the aggregate), measure, variant, engine, value."""
        import pandas as pd

        parts = []
        for label, b in self.blocks.items():
            n_v, n_r, n_t = b.values.shape
            cols = []
            if per_topic and n_t:
                vals = b.values.reshape(-1)
                v_i, r_i, t_i = np.unravel_index(np.arange(vals.size), b.values.shape)
                keep = b.evaluated.reshape(-1)
                cols.append((v_i[keep], r_i[keep], np.asarray(b.topics, dtype=object)[t_i[keep]], vals[keep]))
            agg = b.aggregates.reshape(-1)
            v_i, r_i = np.unravel_index(np.arange(agg.size), b.aggregates.shape)
            ok = np.full(b.aggregates.shape, b.agg != "none")
            for vr in b.errors:
                ok[vr] = False
            keep = ok.reshape(-1)
            cols.append((v_i[keep], r_i[keep], np.full(int(keep.sum()), "all", dtype=object), agg[keep]))
            for v_idx, r_idx, topic, value in cols:
                parts.append(
                    pd.DataFrame(
                        {
                            "run": np.asarray(b.runs, dtype=object)[r_idx],
                            "topic": topic,
                            "measure": label,
                            "variant": np.asarray(b.variants, dtype=object)[v_idx],
                            "engine": self.engine,
                            "value": value,
                        }
                    )
                )
        if not parts:
            return pd.DataFrame(columns=["run", "topic", "measure", "variant", "engine", "value"])
        return pd.concat(parts, ignore_index=True)


INPUT_RULE_AXES = frozenset({"dups", "topics"})
"""Axes whose value decides whether an input is refused (a repeated pair under ``dups=error``,
a missing topic under ``topics=strict``). A sweep varying none of them refuses what ``eval``
refuses under the profile (:meth:`StagedRun.check_inputs`, the same error and message); a sweep
varying one lists each refusing variant as not evaluated, with its reason in a note."""


@dataclass(frozen=True)
class VariantClasses:
    """A measure's variants by what evaluating them computes, known before any run is read.

    ``prepare[v]``: the index in the plan's ``prepare`` conventions of variant ``v``'s folded
    convention's :data:`PREPARE_AXES` values (all :meth:`StagedRun.prepare_key` reads: on a
    given run, equal indices mean the same :class:`~.ranked_lists.Prepared` lists); ``kernel[v]``: the index of
    its (folded measure, ``own`` axes, the spec's ``check_convention`` answer) among the
    measure's (with the lists' key, the key :meth:`StagedRun.evaluate` caches a kernel's result
    under). Variants equal in both get equal values, notes and refusals on every run; a run
    then merges more (``depth=1000`` is ``depth=all`` on lists of 1,000 documents, ``dups``
    reads nothing without a repeated pair): :func:`sweep_part` evaluates one variant per
    merged class. 69,120 ``--vary all`` variants of AP, nDCG@10, P@10 and RR are 1,200
    computations on a robust03 run."""

    prepare: np.ndarray  # intp (V,)
    kernel: np.ndarray  # intp (V,)
    n_kernels: int


def resolved_grid(m: Measure, base: Convention, values: dict[str, list[Any]]) -> GridVariants:
    """:class:`~auditeval.engine.sweep_grid.GridVariants` of ``m`` found combination by
    combination (:func:`_resolved_variants`: each one's :class:`Resolved` record), the classes
    keyed as :meth:`StagedRun.evaluate` keys its work: the folded convention's
    :data:`PREPARE_AXES` values; the folded measure, the ``own`` axes and the spec's
    ``check_convention`` answer. The reference :func:`~auditeval.engine.sweep_grid.grid_variants`
    equals (``tests/engine/test_sweep_grid.py``), and the plan's way where the grid's codes cannot serve."""
    made = _resolved_variants(m, base, values)
    prepare_axes = attrgetter(*PREPARE_AXES)
    prep_index: dict[tuple, int] = {}
    prepare_convs: list[Convention] = []
    kernel_index: dict[tuple, int] = {}
    prep = np.empty(len(made), np.intp)
    kern = np.empty(len(made), np.intp)
    for vi, (_, _, r, _) in enumerate(made):
        c2 = r.convention
        pi = prep_index.setdefault(prepare_axes(c2), len(prep_index))
        if pi == len(prepare_convs):
            prepare_convs.append(c2)
        check = MEASURES[r.measure.name].check_convention
        key = (r.measure, r.own, check(r.measure, c2) if check is not None else None)
        prep[vi] = pi
        kern[vi] = kernel_index.setdefault(key, len(kernel_index))
    return GridVariants([k for k, *_ in made], np.array([ci for *_, ci in made], np.intp), prepare_convs, prep, kern,
                        len(kernel_index))


def plan_grid(m: Measure, base: Convention, values: dict[str, list[Any]]) -> GridVariants:
    """The variants of ``m`` as the plan lists them: from the grid's codes
    (:func:`~auditeval.engine.sweep_grid.grid_variants`), or combination by combination
    (:func:`resolved_grid`) where those cannot serve."""
    axes = read_axes(m, values)
    for a in axes:
        for x in values[a]:
            AXES[a].parse(x)  # raises what Convention(...) raises for a bad value
    got = grid_variants(m, base, values, axes, own_text(m, base))
    return got if got is not None else resolved_grid(m, base, values)


@dataclass(frozen=True)
class SweepPlan:
    """What a sweep evaluates on every run: per measure its label, the convention it is varied
    around and its distinct variants (:func:`plan_grid`): ``texts[mi]`` their strings (None
    in a plan that travelled to a worker, which reads none), ``combos[mi]`` the index of each
    one's combination (:func:`~auditeval.engine.sweep_grid.combination` rebuilds its
    convention, :meth:`convention`; :meth:`resolution` its :class:`Resolved` record, once
    per process and variant evaluated).

    ``classes[mi]``: the variants of measure ``mi`` grouped by what the engine computes for
    them (:class:`VariantClasses`), so a run evaluates each distinct computation once
    (:func:`sweep_part`); ``prepare``: the folded conventions those classes index."""

    measures: tuple[Measure, ...]
    labels: tuple[str, ...]
    base: Convention
    values: dict[str, list[Any]]
    bases: tuple[Convention, ...]
    texts: tuple[tuple[str, ...], ...] | None  # None: a travelled plan
    per_topic: bool = True  # False: each run's part keeps the aggregates only (SweepAggregates)
    prepare: tuple[Convention, ...] = ()  # a folded convention per distinct PREPARE_AXES values
    classes: tuple[VariantClasses, ...] = ()  # per measure (:func:`plan_grid`)
    combos: tuple[np.ndarray, ...] = ()  # per measure and variant: its combination's index (:func:`combination`)
    _made: dict = field(default_factory=dict, compare=False, repr=False)  # conventions and records rebuilt

    @property
    def per_run(self) -> int:
        """Variant evaluations per run."""
        return sum(len(c) for c in self.combos)

    def n_variants(self, mi: int) -> int:
        return len(self.combos[mi])

    def _axes(self, mi: int) -> tuple[str, ...]:
        axes = self._made.get(("axes", mi))
        if axes is None:
            axes = self._made[("axes", mi)] = read_axes(self.measures[mi], self.values)
        return axes

    def convention(self, mi: int, vi: int) -> Convention:
        """The convention of variant ``vi`` of measure ``mi``."""
        c = self._made.get(("convention", mi, vi))
        if c is None:
            c = self._made[("convention", mi, vi)] = combination(self.bases[mi], self._axes(mi), self.values,
                                                                 int(self.combos[mi][vi]))
        return c

    def conventions(self, mi: int) -> GridConventions:
        """Every variant's convention of measure ``mi``, each built on first use."""
        return GridConventions(self.bases[mi], self._axes(mi), self.values, self.combos[mi])

    def resolution(self, mi: int, vi: int) -> Resolved:
        """The :class:`Resolved` record of variant ``vi`` of measure ``mi``, made on first use."""
        r = self._made.get(("resolution", mi, vi))
        if r is None:
            r = self._made[("resolution", mi, vi)] = resolve_variant(self.measures[mi], self.convention(mi, vi))
        return r

    def __reduce__(self) -> tuple[Any, tuple]:
        """A plan travels (to a pool's workers, a cluster's) without its variants' strings (for
        69,120 variants 4 MB pickled, where a worker evaluates 1,200 of them and names none:
        :class:`VariantClasses`), as the index of each variant's combination."""
        return SweepPlan, (self.measures, self.labels, self.base, self.values, self.bases, None, self.per_topic,
                           self.prepare, self.classes, self.combos)


@dataclass
class SweepAggregates:
    """One measure's row of a run's part when no per-topic value is shown (``plan.per_topic``
    False): what the views and notes then read, as arrays. ``aggregates[v]``: the aggregate
    under variant ``v`` (NaN where refused or the measure has none); ``undefined[v]``: the
    topics evaluated without a value (agg ``mean-defined``: the undefined note), only for the
    variants that have some. A 200-run ``--vary all`` sweep (69,120 variants, 100 topics) holds
    110 MB of these in the command instead of 11 GB of per-topic values, and each run's part
    travels from a worker as two arrays, not 69,120 pickled :class:`TopicValues`."""

    aggregates: np.ndarray
    undefined: dict[int, np.ndarray]


@dataclass
class SweepPart:
    """One run's share of a sweep (:func:`sweep_part`): per measure and variant its
    :class:`TopicValues` (None where refused) -- or, when the plan keeps no per-topic value,
    per measure one :class:`SweepAggregates` --, per measure the refused variants' reasons,
    and the run's notes in order, each as (text, text shown: with the axes it came under)."""

    values: list[list[TopicValues | None] | SweepAggregates]
    errors: list[dict[int, str]]
    notes: list[tuple[str, str]]


def sweep_plan(measures: Sequence[Measure], labels: Sequence[str], base: Convention, values: dict[str, list[Any]],
               bases: Sequence[Convention] | None = None, per_topic: bool = True) -> SweepPlan:
    """The :class:`SweepPlan` of ``measures`` varied along ``values`` around ``base`` (or,
    per measure, ``bases``: a profile's ``[route]``); ``per_topic=False``: the parts keep the
    aggregates only (:class:`SweepAggregates`), for views that show no per-topic value. The
    measures' prepare conventions are numbered across measures in order of first variant."""
    per_base = tuple(bases) if bases is not None else (base,) * len(measures)
    grids = [plan_grid(m, b, values) for m, b in zip(measures, per_base, strict=True)]
    prepare_axes = attrgetter(*PREPARE_AXES)
    index: dict[tuple, int] = {}
    prepare: list[Convention] = []
    classes = []
    for g in grids:
        local = np.empty(len(g.prepare_convs), np.intp)
        for k, c2 in enumerate(g.prepare_convs):
            local[k] = index.setdefault(prepare_axes(c2), len(index))
            if local[k] == len(prepare):
                prepare.append(c2)
        classes.append(VariantClasses(local[g.prepare], g.kernel, g.n_kernels))
    return SweepPlan(tuple(measures), tuple(labels), base, values, per_base, tuple(tuple(g.texts) for g in grids),
                     per_topic, tuple(prepare), tuple(classes), tuple(g.combos for g in grids))


def sweep_part(qrels: Qrels, run: Run, plan: SweepPlan, progress: Callable[[int], None] | None = None) -> SweepPart:
    """Every variant of the plan on one run (one :class:`StagedRun`: stages shared).
    ``progress(n)`` is called after each measure with the variant evaluations just done.

    Each measure's variants are merged into the classes this run computes alike (the plan's
    :class:`VariantClasses`, with each class of lists keyed by this run's
    :meth:`StagedRun.prepare_key`); the first variant of each class, in plan order, is
    evaluated (:meth:`StagedRun.evaluate`: what evaluating every variant would compute, each
    computation cached there on its own key) and its values, refusal and notes are every
    member's. Reading the classes in the order of their first variants meets each note
    where evaluating variant after variant first meets it (a note comes with the lists, and the
    first variant on a list is the first of some class): the notes, their order and the
    variant each is tagged with are the same."""
    sr = StagedRun(qrels, run)
    if not INPUT_RULE_AXES & set(plan.values):  # what eval refuses, the sweep refuses; varying the
        sr.check_inputs(plan.base, plan.measures)  # rule's own axis shows each refusing variant as a cell instead
    part = SweepPart([], [], [])
    seen: set[str] = set(qrels.notes)
    noted: set[int] = set()  # ids of the note lists read (each Prepared's, alive with sr): read once
    keys: dict[int, np.ndarray] = {}  # id(staged pair) -> per prepare convention, its lists' key number
    for mi, m in enumerate(plan.measures):
        cls = plan.classes[mi]
        staged = sr.for_measure(m)
        if id(staged) not in keys:
            keys[id(staged)] = _key_numbers(staged, plan)
        first, inverse = first_seen(keys[id(staged)][cls.prepare] * cls.n_kernels + cls.kernel)
        got: list[TopicValues | None] = []
        failed: dict[int, str] = {}  # class -> the refusal
        for k, vi in enumerate(first.tolist()):
            conv, r = plan.convention(mi, vi), plan.resolution(mi, vi)
            try:
                tv = sr.evaluate(m, conv, r)
            except AuditEvalError as exc:
                failed[k] = str(exc)
                got.append(None)
                continue
            got.append(tv)
            notes = sr.notes(m, conv, r)
            if id(notes) in noted:
                continue
            noted.add(id(notes))
            for n in notes:
                if n not in seen:  # once per text; tagged with the first variant it came from
                    seen.add(n)
                    part.notes.append((n, n if n in run.notes else _under(n, conv, plan.bases[mi])))
        errors = _spread(failed, inverse)
        if plan.per_topic:
            part.values.append([None if (tv := got[k]) is None else TopicValues(plan.resolution(mi, vi).variant, tv.topics,
                                                                                tv.values, tv.aggregate)
                                for vi, k in enumerate(inverse.tolist())])
        else:
            part.values.append(_aggregates_only(got, inverse, MEASURES[m.name].agg))
        part.errors.append(errors)
        if progress is not None:
            progress(plan.n_variants(mi))
    return part


def _key_numbers(staged: StagedRun, plan: SweepPlan) -> np.ndarray:
    """Per convention of ``plan.prepare``, the number of its lists' key on ``staged``
    (:meth:`StagedRun.key_numbers`; equal keys, equal numbers; a convention whose ranking
    refuses the input gets a number of its own: its variants are then refused, each class on
    its own, by :meth:`StagedRun.evaluate`). The table of the conventions' axis values is made
    once per plan and process."""
    table = plan._made.get("prepare_table")
    if table is None:
        table = plan._made["prepare_table"] = prepare_table(plan.prepare)
    return staged.key_numbers(table)


def _spread(by_class: dict[int, T], inverse: np.ndarray) -> dict[int, T]:
    """``{variant: by_class[its class]}`` for the variants of the classes in ``by_class``."""
    if not by_class:
        return {}
    listed = np.zeros(int(inverse.max()) + 1, bool)
    listed[list(by_class)] = True
    members = np.flatnonzero(listed[inverse])
    return {vi: by_class[k] for vi, k in zip(members.tolist(), inverse[members].tolist(), strict=True)}


def _aggregates_only(got: list[TopicValues | None], inverse: np.ndarray, how: str) -> SweepAggregates:
    """A measure's :class:`SweepAggregates` from its classes' values ``got`` (None: refused)
    and each variant's class ``inverse``."""
    aggs = np.array([np.nan if tv is None or tv.aggregate is None else tv.aggregate for tv in got], np.float64)
    undefined: dict[int, np.ndarray] = {}
    if how == "mean-defined":
        nan_topics = {k: tv.topics[nan] for k, tv in enumerate(got) if tv is not None and (nan := np.isnan(tv.values)).any()}
        undefined = _spread(nan_topics, inverse)
    return SweepAggregates(aggs[inverse] if len(inverse) else np.full(0, np.nan), undefined)


def sweep_assemble(qrels: Qrels, plan: SweepPlan, runs: Sequence[Any], parts: Iterable[SweepPart],
                   profile: str = "custom") -> SweepResult:
    """The :class:`SweepResult` of the parts, one per run in the order of ``runs`` (anything
    with the run's ``name`` and ``source``: a :class:`Run`, or its header when the parts were
    computed elsewhere). The same result whoever computed the parts: the notes keep the
    runs' order, each text once."""
    result = SweepResult({}, profile, plan.base, plan.values, notes=list(qrels.notes),
                         bases={lab: b for lab, b in zip(plan.labels, plan.bases, strict=True) if b != plan.base})
    seen_notes = set(result.notes)
    if plan.per_topic:
        per: list[list[list[Any]]] = [[[None] * len(runs) for _ in v] for v in plan.combos]  # [measure][variant][run]
    else:  # [measure]: (variant, run) aggregates and the undefined topics of each (variant, run)
        aggs = [np.full((len(v), len(runs)), np.nan) for v in plan.combos]
        undefined: list[dict[tuple[int, int], np.ndarray]] = [{} for _ in plan.measures]
    errors: list[dict[tuple[int, int], str]] = [{} for _ in plan.measures]
    for ri, part in enumerate(parts):
        for mi in range(len(plan.measures)):
            row = part.values[mi]
            if isinstance(row, SweepAggregates):
                aggs[mi][:, ri] = row.aggregates
                undefined[mi].update({(vi, ri): t for vi, t in row.undefined.items()})
            else:
                for vi, tv in enumerate(row):
                    per[mi][vi][ri] = tv
            errors[mi].update({(vi, ri): text for vi, text in part.errors[mi].items()})
        for raw, shown in part.notes:
            if raw not in seen_notes:
                seen_notes.add(raw)
                result.notes.append(shown)
    texts = plan.texts if plan.texts is not None else sweep_plan(plan.measures, plan.labels, plan.base, plan.values,
                                                                 plan.bases).texts
    for mi, m in enumerate(plan.measures):
        names = [r.name for r in runs]
        variants = (list(texts[mi]), plan.conventions(mi))
        block = result.blocks[plan.labels[mi]] = (
            _block(m, variants, names, per[mi], errors[mi]) if plan.per_topic
            else _aggregate_block(m, variants, names, aggs[mi], undefined[mi], errors[mi]))
        if block.agg == "mean-defined":
            result.notes.extend(_undefined_notes(block, runs, plan.labels[mi]))
        for (vi, ri), text in sorted(errors[mi].items(), key=lambda kv: (kv[0][1], kv[0][0])):
            result.notes.append(f"{runs[ri].source}: {texts[mi][vi]} not evaluated: {text}")
    return result


def run_sweep(
    qrels: Qrels,
    runs: Sequence[Run],
    measures: Sequence[Measure],
    labels: Sequence[str],
    base: Convention,
    values: dict[str, list[Any]],
    profile: str = "custom",
    progress: Callable[[int, int], None] | None = None,
    bases: Sequence[Convention] | None = None,
) -> SweepResult:
    """Evaluate every variant of every measure on every run: :func:`sweep_plan`, then
    :func:`sweep_part` per run, then :func:`sweep_assemble` (``auditeval.execution`` runs the
    parts elsewhere and assembles them the same way). ``progress(done, total)`` is called after
    each run and measure. ``bases``: per measure, the convention to vary around instead of
    ``base`` (a profile's ``[route]``, :meth:`~auditeval.vocab.conventions.Profile.convention_for`)."""
    plan = sweep_plan(measures, labels, base, values, bases)
    total = plan.per_run * len(runs)
    done = [0]

    def step(n: int) -> None:
        done[0] += n
        if progress is not None:
            progress(done[0], total)

    return sweep_assemble(qrels, plan, runs, (sweep_part(qrels, r, plan, step) for r in runs), profile)


def _undefined_notes(b: SweepBlock, runs: Sequence[Run], label: str) -> list[str]:
    """Per run, the topics some variant of a ``mean-defined`` measure has no value for."""
    notes = []
    undefined = MEASURES[parse_measure(b.measure).name].undefined
    for ri, run in enumerate(runs):
        missing = np.flatnonzero(b.undefined[:, ri, :].any(axis=0)) if b.undefined is not None else []
        if len(missing):
            notes.append(undefined_note(run.source, label, [b.topics[t] for t in missing], undefined,
                                        where=" under some variant(s)"))
    return notes


def _under(note: str, conv: Convention, base: Convention) -> str:
    """``note`` with the list-shaping axes on which ``conv`` departs from the sweep's profile
    (a note's count depends on them: the same note text differs between variants)."""
    away = [f"{a}={conv.as_dict()[a]}" for a in PREPARE_AXES
            if getattr(conv, a) != getattr(base, a) and f"{a}={getattr(conv, a)}" not in note]
    return f"{note} [under {' '.join(away)}]" if away else note


def _aggregate_block(measure: Measure, variants: tuple[list[str], Sequence[Convention]], runs: list[str], aggs: np.ndarray,
                     undefined: dict[tuple[int, int], np.ndarray], errors) -> SweepBlock:
    """The :class:`SweepBlock` of parts that kept the aggregates only: ``aggregates`` as
    :func:`_block` gives them; the topic axis holds just the topics some (variant, run) has no
    value for (``undefined``; not evaluated there, as :func:`_block` marks them), so no view
    without per-topic values, and no note, reads anything else."""
    fmt, how = MEASURES[measure.name].fmt, MEASURES[measure.name].agg
    topics = sorted({t for a in undefined.values() for t in a.tolist()}, key=lambda s: s.encode("utf-8"))
    index = {t: i for i, t in enumerate(topics)}
    texts, conventions = variants
    shape = (len(texts), len(runs), len(topics))
    values = np.full(shape, None if fmt == "str" else np.nan, dtype=object if fmt == "str" else np.float64)
    missing = np.zeros(shape, bool)
    for (vi, ri), a in undefined.items():
        missing[vi, ri, [index[t] for t in a.tolist()]] = True
    return SweepBlock(
        str(measure), texts, conventions, runs, topics, values, aggs, errors, fmt, np.zeros(shape, bool), how, missing if how == "mean-defined" else None,
    )


def _block(measure: Measure, variants: tuple[list[str], Sequence[Convention]], runs: list[str], per: list[list[Any]], errors) -> SweepBlock:
    fmt, how = MEASURES[measure.name].fmt, MEASURES[measure.name].agg
    texts, conventions = variants
    topic_set: dict[str, None] = {}
    seen_arrays: dict[int, np.ndarray] = {}
    for row in per:
        for tv in row:
            if tv is not None and id(tv.topics) not in seen_arrays:
                seen_arrays[id(tv.topics)] = tv.topics
                topic_set.update(dict.fromkeys(tv.topics.tolist()))
    topics = sorted(topic_set, key=lambda s: s.encode("utf-8"))
    index = {t: i for i, t in enumerate(topics)}
    idx_of = {k: np.array([index[t] for t in a.tolist()], dtype=np.int64) for k, a in seen_arrays.items()}
    dtype = object if fmt == "str" else np.float64
    values = np.full((len(texts), len(runs), len(topics)), None if fmt == "str" else np.nan, dtype=dtype)
    aggs = np.full((len(texts), len(runs)), np.nan)
    evaluated = np.zeros(values.shape, bool)
    undefined = np.zeros(values.shape, bool)
    for ri in range(len(runs)):  # per run, the variants evaluated on one topic list are written at once
        groups: dict[int, list[int]] = {}
        for vi, row in enumerate(per):
            tv = row[ri]
            if tv is None:
                continue
            groups.setdefault(id(tv.topics), []).append(vi)
            if tv.aggregate is not None:
                aggs[vi, ri] = tv.aggregate
        for key, vis in groups.items():
            at = np.ix_(np.asarray(vis, dtype=np.int64), [ri], idx_of[key])
            rows = np.stack([per[vi][ri].values for vi in vis])[:, None, :]
            values[at] = rows
            if how == "mean-defined":  # a topic without a value (Accuracy) counts as not evaluated there
                evaluated[at] = ~np.isnan(rows)
                undefined[at] = np.isnan(rows)
            else:
                evaluated[at] = True
    return SweepBlock(
        str(measure), texts, conventions, runs, topics, values, aggs, errors, fmt, evaluated, how,
        undefined if how == "mean-defined" else None,
    )
