"""``StagedRun``: one qrels and one run, prepared under many conventions with shared work.

Each stage of :mod:`auditeval.engine.stages` is computed once per distinct value of the axes it reads::

    join            (no axis)                                  once per run
      -> judgments  (dups, only if the qrels repeat a pair)
      -> ranking    (ties, sim, dups, self_hits)               one sort per key
      -> qrels side (negatives, topics)
      -> cut        (+ depth, unjudged, negatives, topics)     masks, no sort  -> Prepared
      -> kernel     (+ rel and the measure's own axes)         one call per variant

A key leaves out an axis that cannot change the stage on *this* input (``dups`` when no
(topic, doc) pair repeats, ``self_hits`` when no doc id equals its topic id, ``negatives``
when no grade is negative, ``topics`` when run and qrels hold the same topics, a ``depth``
at least the longest ranking): variants that differ only there share every array, and
their variant strings still differ (they name the convention, not the work done).

A subtopic qrels (a ``subtopic`` column) is read two ways: every measure that is not
intent-aware reads it line by line, column 2 ignored, as trec_eval and every dict loader do
(a document judged under two subtopics is a repeated (topic, doc) pair: the ``dups`` axis);
the intent-aware measures (spec ``subtopics``) are staged on its merge per (topic, doc)
(:func:`.subtopics.collapse`, :meth:`StagedRun.for_measure`), their kernels reading the
subtopic judgments kept beside.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

import numpy as np

from auditeval._version import __version__
from auditeval.engine.absent import absent_values, with_bogus_ranking
from auditeval.engine.aggregation import aggregate
from auditeval.engine.duplicates import qrels_duplicates, ranked_duplicates
from auditeval.engine.ids import DocKeys
from auditeval.engine.measures import MEASURES
from auditeval.engine.ranked_lists import Prepared
from auditeval.engine.stages.cut import cut
from auditeval.engine.stages.join import Join, join
from auditeval.engine.stages.judgments import Judgments, judgments
from auditeval.engine.stages.qrels_side import QrelsSide, qrels_side
from auditeval.engine.stages.ranking import Ranking, ranking
from auditeval.engine.subtopics import Subtopics, collapse, has_subtopics
from auditeval.vocab.arrays import first_seen
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import AuditEvalError, EvaluationError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant, fold, parse_measure

# Axes that only order documents with equal scores (``sim`` decides which scores are equal):
# under depth=all they permute rows inside tied blocks and nothing else.
ORDER_AXES = ("ties", "sim")
RANKING_AXES = ORDER_AXES + ("dups", "self_hits")
CUT_AXES = ("depth", "unjudged", "negatives", "topics")
PREPARE_AXES = RANKING_AXES + CUT_AXES

ENGINE = f"auditeval {__version__} (native)"  # the engine's name in every result's provenance


@dataclass(frozen=True)
class TopicValues:
    """One measure under one convention: per-topic values in evaluation order, the aggregate."""

    variant: Variant
    topics: np.ndarray  # object array of topic ids
    values: np.ndarray  # float64 (object for str measures), read-only
    aggregate: float | None


@dataclass(frozen=True)
class Resolved:
    """What evaluating a measure under a convention needs that depends on that (measure,
    convention) pair alone, never on the run: its variant, the folded measure and convention
    (:func:`~auditeval.vocab.variant.fold`) and the variant's axes beyond the prepared lists
    (``own``: with the lists' key and the folded measure, the key of a kernel's result).

    :func:`resolve_variant` computes it; a sweep resolves each variant once in its plan
    (:func:`~auditeval.engine.sweep.sweep_plan`) and hands the record to
    :meth:`StagedRun.evaluate` for every run, instead of resolving it per run and variant."""

    variant: Variant
    measure: Measure
    convention: Convention
    own: tuple[tuple[str, Any], ...]

    def __reduce__(self) -> tuple[Any, tuple[Measure, Convention]]:
        """Pickled as the folded pair it is resolved from (``resolve_variant`` of a folded pair
        gives the same record): a plan's tens of thousands of records travel to a pool as
        references to its conventions, and each worker resolves them once on unpickling."""
        return resolve_variant, (self.measure, self.convention)


def resolve_variant(m: Measure, conv: Convention) -> Resolved:
    """The :class:`Resolved` record of ``m`` under ``conv``."""
    m2, c2 = fold(m, conv)
    variant = Variant.of_folded(m2, c2)
    return Resolved(variant, m2, c2, tuple((a, v) for a, v in variant.axes if a not in PREPARE_AXES))


_resolved = lru_cache(maxsize=1 << 16)(resolve_variant)
""":func:`resolve_variant` memoised for callers that evaluate one (measure, convention) on several
runs without a plan (eval, the audit)."""


def _mixed(columns: Sequence[np.ndarray]) -> np.ndarray:
    """One int64 code per row of non-negative integer ``columns``: equal rows, equal codes."""
    out = np.zeros(len(columns[0]), np.int64)
    for c in columns:
        out = out * (int(c.max(initial=0)) + 1) + c
    return out


def check_measure(m2: Measure, c2: Convention) -> None:
    """Raise :class:`EvaluationError` when the (folded) convention makes a parameter of the
    (folded) measure meaningless (the spec's ``check_convention``)."""
    check_convention = MEASURES[m2.name].check_convention
    if check_convention is not None:
        problem = check_convention(m2, c2)
        if problem:
            raise EvaluationError(problem)


def measure_on(p: Prepared, m: Measure, conv: Convention, staged: StagedRun | None = None,
               resolved: Resolved | None = None) -> tuple[np.ndarray, float | None]:
    """Per-topic values (``p.topics`` order, float64) and aggregate of ``m`` under ``conv`` on
    the lists ``p``: THE one application of a kernel and its spec row, for every caller.

    ``p`` must be lists prepared under ``fold(m, conv)``'s convention (or rebuilt from such:
    :func:`~auditeval.engine.rebuild.relabel`, ``subset``, ``reorder``, ``stacked``). In order:
    measure parameters fold into axes (:func:`~auditeval.vocab.variant.fold`); the spec's
    ``check_convention`` may refuse the pair; the kernel reads the convention with the spec's
    ``fixed`` axes pinned (RBP's gain is the grade, never nDCG's ``gain``); a topic absent from
    the run (``topics=qrels``) is scored as the ``absent`` axis says (:mod:`.absent`; under
    ``absent=bogus`` from ``staged``'s run with trec_eval 10.0's bogus ranking added, so lists
    without a ``staged`` pair cannot be scored so and are refused); the aggregate is the spec's
    ``agg`` summed in topic order (:func:`~auditeval.engine.aggregation.aggregate`).
    ``resolved``: ``resolve_variant(m, conv)``, when the caller holds it (a sweep's plan)."""
    r = _resolved(m, conv) if resolved is None else resolved
    m2, c2 = r.measure, r.convention
    check_measure(m2, c2)
    d = MEASURES[m2.name]
    values = np.asarray(d.fn(p, m2, c2.replace(**d.fixed) if d.fixed else c2))
    bogus = None if staged is None else (lambda c: staged.bogus().prepared(c))
    values = absent_values(bogus, d, m2, c2, p, values)  # topics absent from the run: the absent axis
    return values, aggregate(values, d.agg, c2.gm_floor)


@dataclass(frozen=True, eq=False)
class PrepareTable:
    """Conventions by their :data:`PREPARE_AXES` values, as codes: ``codes[i, k]`` is the index
    of convention ``i``'s value of axis ``PREPARE_AXES[k]`` in ``values[k]``
    (:func:`prepare_table`; what :meth:`StagedRun.key_numbers` reads)."""

    conventions: tuple[Convention, ...]
    codes: np.ndarray  # (conventions, axes) intp
    values: tuple[tuple[Any, ...], ...]


def prepare_table(conventions: Sequence[Convention]) -> PrepareTable:
    """:class:`PrepareTable` of ``conventions`` (a sweep's plan makes it once per process)."""
    conventions = tuple(conventions)
    codes = np.empty((len(conventions), len(PREPARE_AXES)), np.intp)
    values = []
    for k, a in enumerate(PREPARE_AXES):
        index: dict[Any, int] = {}
        codes[:, k] = [index.setdefault(getattr(c, a), len(index)) for c in conventions]
        values.append(tuple(index))
    return PrepareTable(conventions, codes, tuple(values))


class StagedRun:
    """Caches the join / ranking / cut stages and the kernels of one (qrels, run) pair.

    ``subtopics``: set on the staged pair of a merged subtopic qrels (:meth:`for_measure`)."""

    def __init__(self, qrels: Qrels, run: Run, subtopics: Subtopics | None = None):
        self.qrels = qrels
        self.run = run
        self.subtopics = subtopics
        self._merged: StagedRun | None = None
        self._join: Join | None = None
        self._doc_keys: DocKeys | None | bool = False  # False: not built yet
        self._judgments: dict[Any, Judgments] = {}
        self._rankings: dict[tuple, Ranking] = {}
        self._qsides: dict[tuple, QrelsSide] = {}
        self._prepared: dict[tuple, Prepared] = {}
        self._kernels: dict[tuple, tuple[np.ndarray, float | None]] = {}
        self._keys: dict[Convention, tuple] = {}
        self._keys_by_axes: dict[tuple, tuple] = {}
        self._bogus: StagedRun | None = None

    # ------------------------------------------------------------------ stages
    def for_measure(self, m: Measure | None) -> StagedRun:
        """The staged pair ``m`` is evaluated on: this one, or for an intent-aware measure on a
        subtopic qrels the pair over that qrels merged per (topic, doc), its subtopic judgments
        kept beside (built once)."""
        if m is None or not MEASURES[m.name].subtopics or not has_subtopics(self.qrels):
            return self
        if self._merged is None:
            merged, subs = collapse(self.qrels)
            self._merged = StagedRun(merged, self.run, subs)
        return self._merged

    @property
    def join(self) -> Join:
        if self._join is None:
            self._join = join(self.qrels, self.run, self.subtopics)
        return self._join

    @property
    def doc_keys(self) -> DocKeys | None:
        """(topic, doc) identities of the run rows; None when no pair repeats."""
        if self._doc_keys is False:
            j = self.join
            self._doc_keys = None if j.ri.unique else DocKeys(self.run.table.column("doc"), j.r_tcode, len(j.all_topics))
        return self._doc_keys  # type: ignore[return-value]

    def _qdups(self, c: Convention) -> str | None:
        return c.dups if self.join.q_has_dup else None

    def _judgments_for(self, c: Convention) -> Judgments:
        key = self._qdups(c)
        if key not in self._judgments:
            self._judgments[key] = judgments(self.join, key)
        return self._judgments[key]

    def ranking_key(self, c: Convention) -> tuple:
        """(ties, sim, dups, self_hits), leaving out what cannot change the ranking here."""
        j = self.join
        dups = c.dups if (self.doc_keys is not None or j.q_has_dup) else "-"
        self_hits = "drop" if c.self_hits == "drop" and j.has_self_hits else "keep"
        return (c.ties, c.sim, dups, self_hits)

    def _ranking_for(self, c: Convention) -> Ranking:
        key = self.ranking_key(c)
        if key not in self._rankings:
            self._rankings[key] = ranking(self.join, self._judgments_for(c), self.doc_keys, c.ties, c.sim, c.dups, key[3])
        return self._rankings[key]

    def _qside_for(self, c: Convention) -> QrelsSide:
        j = self.join
        negatives = c.negatives if j.q_has_negative else "-"
        topics = c.topics if j.topics_differ else "-"
        key = (self._qdups(c), negatives, topics)
        if key not in self._qsides:
            self._qsides[key] = qrels_side(j, self._judgments_for(c), c.negatives, c.topics)
        return self._qsides[key]

    def prepare_key(self, c: Convention) -> tuple:
        """The key of the :class:`Prepared` lists ``c`` gives on this input (memoised per
        convention, and per value of the :data:`PREPARE_AXES`, all it reads: a sweep's
        conventions that differ only in a kernel's axes share one computation)."""
        key = self._keys.get(c)
        if key is None:
            axes = tuple(getattr(c, a) for a in PREPARE_AXES)
            key = self._keys_by_axes.get(axes)
            if key is None:
                key = self._keys_by_axes[axes] = self._prepare_key(c)
            self._keys[c] = key
        return key

    def _prepare_key(self, c: Convention) -> tuple:
        rk = self._ranking_for(c)
        j = self.join
        depth = c.depth
        if depth != "all" and depth >= rk.max_count:
            depth = "all"  # nothing below the depth
        negatives = c.negatives if j.q_has_negative else "-"
        topics = c.topics if j.topics_differ else "-"
        return (*self.ranking_key(c), depth, c.unjudged, negatives, topics, self._qdups(c))

    def key_numbers(self, table: PrepareTable) -> np.ndarray:
        """Per convention of ``table``, a number of its :meth:`prepare_key`: equal keys, equal
        numbers, numbered in order of first appearance; a convention whose ranking refuses the
        input (:meth:`prepare_key` raises) gets a number of its own. What numbering
        ``prepare_key(c)`` convention by convention gives (``tests/engine/test_sweep.py`` checks it),
        with the key's rules applied to each axis's few values instead of to each of a sweep's
        thousands of conventions (a sixth of a ``--vary all`` sweep's time per run was those
        calls): ``dups``, ``negatives``, ``topics`` and ``self_hits=drop`` collapse where this
        input cannot tell their values apart, a depth at or past the longest ranking to
        ``all`` (per ranking, the one key read from the lists), ``dups`` once more where the
        qrels repeat a pair."""
        n = len(table.conventions)
        try:
            j, doc_keys = self.join, self.doc_keys
        except AuditEvalError:
            return np.arange(n)
        col = dict(zip(PREPARE_AXES, table.codes.T, strict=True))
        val = dict(zip(PREPARE_AXES, table.values, strict=True))
        none = np.zeros(n, np.intp)

        def where(axis: str, matters: bool) -> np.ndarray:
            return col[axis] if matters else none

        drop = np.array([v == "drop" and j.has_self_hits for v in val["self_hits"]], np.intp)[col["self_hits"]]
        first, ranking = first_seen(_mixed([col["ties"], col["sim"], where("dups", doc_keys is not None or j.q_has_dup),
                                            drop]))
        longest = np.zeros(len(first), np.int64)
        refused = np.zeros(len(first), bool)
        for r, i in enumerate(first.tolist()):
            try:
                longest[r] = self._ranking_for(table.conventions[i]).max_count
            except AuditEvalError:
                refused[r] = True
        depth = np.array([-1 if v == "all" else v for v in val["depth"]], np.int64)[col["depth"]]
        depth = np.where((depth < 0) | (depth >= longest[ranking]), -1, depth) + 1  # 0: all
        key = _mixed([ranking, depth, col["unjudged"], where("negatives", j.q_has_negative),
                      where("topics", j.topics_differ), where("dups", j.q_has_dup)])
        alone = np.flatnonzero(refused[ranking])
        key[alone] = key.max(initial=0) + 1 + np.arange(len(alone))
        return first_seen(key)[1]

    def prepared(self, convention: Convention, measure: Measure | None = None) -> Prepared:
        """The ranked, judged lists under ``convention`` (shared by every convention with the
        same :meth:`prepare_key`; ``Prepared.convention`` is the first one asked for), for
        ``measure`` (:meth:`for_measure`: an intent-aware one on a subtopic qrels reads the
        merged lists; None: the lists of every other measure)."""
        sr = self.for_measure(measure)
        if sr is not self:
            return sr.prepared(convention)
        return self._prepared_at(self.prepare_key(convention), convention)

    def _prepared_at(self, key: tuple, convention: Convention) -> Prepared:
        """:meth:`prepared` for a convention whose :meth:`prepare_key` the caller holds."""
        p = self._prepared.get(key)
        if p is None:
            rk = self._ranking_for(convention)
            qs = self._qside_for(convention)
            base = list(self.join.qrels.notes) + list(self.run.notes) + self._judgments_for(convention).notes
            p = cut(self.join, self._judgments_for(convention), rk, qs, self.doc_keys, convention, base)
            self._prepared[key] = p
        return p

    def bogus(self) -> StagedRun:
        """The staged pair with trec_eval 10.0's bogus ranking added for each qrels topic
        missing from the run (``absent=bogus``, :mod:`.absent`)."""
        if self._bogus is None:
            j = self.join
            missing = [t for t, q, r in zip(j.all_topics, j.in_qrels, j.in_run, strict=True) if q and not r]
            self._bogus = StagedRun(self.qrels, with_bogus_ranking(self.run, missing), self.subtopics)
        return self._bogus

    # ------------------------------------------------------------------ kernels
    def evaluate(self, measure: str | Measure, convention: Convention, resolved: Resolved | None = None) -> TopicValues:
        """One measure under one convention (through :func:`measure_on`); equal (prepared
        lists, measure, measure axes) are computed once. ``resolved``: ``resolve_variant(measure,
        convention)``, computed once per plan by a sweep (else looked up here)."""
        m = parse_measure(measure) if isinstance(measure, str) else measure
        sr = self.for_measure(m)
        if sr is not self:
            return sr.evaluate(m, convention, resolved)
        r = _resolved(m, convention) if resolved is None else resolved
        m2, c2 = r.measure, r.convention
        check_measure(m2, c2)  # before any stage is built
        pkey = self.prepare_key(c2)
        p = self._prepared_at(pkey, c2)
        key = (pkey, m2, r.own)
        hit = self._kernels.get(key)
        if hit is None:
            values, agg = measure_on(p, m, convention, staged=self, resolved=r)
            values.flags.writeable = False
            hit = self._kernels[key] = (values, agg)
        return TopicValues(r.variant, p.topics, hit[0], hit[1])

    def notes(self, measure: Measure, convention: Convention, resolved: Resolved | None = None) -> list[str]:
        """The notes of the lists ``measure`` is evaluated on under ``convention``."""
        r = _resolved(measure, convention) if resolved is None else resolved
        return self.prepared(r.convention, measure).notes

    def check_inputs(self, convention: Convention, measures: Iterable[Measure] | None = None) -> None:
        """Raise what evaluating under ``convention`` raises for these inputs, whatever the
        measure: a repeated (topic, doc) pair of the run or the qrels under ``dups=error``, a
        topic missing from one side under ``topics=strict``, ... The one rule of every command
        (``eval`` meets it in :meth:`evaluate`; ``sweep`` and ``audit`` call this for their
        base convention before varying anything), so each refuses an input with one message.
        ``measures``: the inputs as those measures read them (a subtopic qrels: merged for the
        intent-aware ones, line by line for the others, :meth:`for_measure`); None: as a measure
        that is not intent-aware reads them."""
        views = [self] if measures is None else list({id(s): s for s in map(self.for_measure, measures)}.values())
        for sr in views:
            sr.prepared(convention)

    def duplicates(self, convention: Convention) -> dict[str, str]:
        """Topic -> smallest doc id (byte order) of a (topic, doc) pair the run repeats within
        ``convention.depth``, in the ranking ``convention`` gives with nothing collapsed."""
        c = convention.replace(dups="error")
        if self.join.q_has_dup:  # the order needs no grade: any kept judgment will do (not cached)
            jd = self._judgments_for(convention.replace(dups="first"))
            rk = ranking(self.join, jd, self.doc_keys, c.ties, c.sim, "error", self.ranking_key(c)[3])
        else:
            rk = self._ranking_for(c)
        return ranked_duplicates(self.join, rk, self.doc_keys, convention.depth)

    def qrels_duplicates(self) -> dict[str, str]:
        """Topic -> smallest doc id the qrels judge twice for it."""
        return qrels_duplicates(self.join)


def prepare(qrels: Qrels, run: Run, conv: Convention) -> Prepared:
    """The :class:`Prepared` lists of ``run`` under ``conv`` (for many conventions keep one
    :class:`StagedRun`: it shares every stage)."""
    return StagedRun(qrels, run).prepared(conv)


def staged_for(qrels: Qrels, run: Run, cache: dict | None) -> StagedRun:
    """The :class:`StagedRun` kept in ``cache`` for this (qrels, run) pair (a new one when the
    cache holds another pair or none)."""
    if cache is None:
        return StagedRun(qrels, run)
    sr = cache.get("staged")
    if sr is None or sr.qrels is not qrels or sr.run is not run:
        sr = cache["staged"] = StagedRun(qrels, run)
    return sr


def evaluate_prepared(
    qrels: Qrels, run: Run, measures: Sequence[Measure], conv: Convention, cache: dict | None = None
) -> list[tuple[Measure, Variant, Prepared, np.ndarray, float | None]]:
    """Many measures under one convention. Per measure: (measure, variant, prepared lists,
    per-topic values, aggregate or None). Pass one ``cache`` dict to share the stages across
    calls on the same qrels and run."""
    sr = staged_for(qrels, run, cache)
    out = []
    for m in measures:
        tv = sr.evaluate(m, conv)
        out.append((m, tv.variant, sr.prepared(fold(m, conv)[1], m), tv.values, tv.aggregate))
    return out
