"""The audit's one door to the native engine: many conventions over the same inputs.

Every analysis (agreement, attribution, sensitivity, tie envelope) asks
:meth:`Native.get` for ``(run, measure, convention)``. Each run has one
:class:`~auditeval.engine.StagedRun`, which computes the join once and each
ranking, cut and kernel once per distinct key of the axes it reads; results are memoised
here by variant string as well (two conventions with one variant give one result), and an
input the engine refuses under a convention (``dups=error`` with duplicates,
``topics=strict`` with a missing topic) becomes a result carrying the error text.

Conventions that differ from the chosen one only in the order of tied documents (``ties``
other than ``rank``, ``sim``; no depth cut) can change a topic only where a tied block
holds documents of different grades (a *mixed* block; float32 blocks when either side
stores float32, since they contain the float64 ones): a permutation inside a block of
equal grades leaves every grade sequence as it was (not so for a measure that reads which
documents are where, ``reads_ids`` in the spec table: Compat is evaluated in full). Such a convention is evaluated on the
affected topics only (the run and qrels restricted to them, through their own
``StagedRun``) and spliced into the chosen convention's per-topic values; the aggregate is
recomputed over all topics in evaluation order, so the result is the full evaluation's.
On a 7M-line run with 3% of lines tied this replaces a full re-ranking per tie rule by one
on a few hundred topics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditeval.engine import (
    ORDER_AXES,
    Prepared,
    StagedRun,
    aggregate,
    has_duplicate_pairs,
    tied_blocks,
    undefined_note,
)
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import Variant, fold


@dataclass(frozen=True)
class TopicValues:
    """One measure under one convention on one run: per-topic values and the aggregate."""

    variant: Variant
    topics: np.ndarray  # object array of topic ids (evaluation order)
    values: np.ndarray  # float64 per topic; an object array of str for a string measure (relstring)
    aggregate: float | None
    error: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def is_text(self) -> bool:
        """Whether the values are strings (``fmt="str"``: relstring), compared exactly."""
        return self.values.dtype == object

    def as_dict(self) -> dict[str, float]:
        return dict(zip(self.topics.tolist(), self.values.tolist(), strict=True))



class Native:
    """Memoised native evaluation of many conventions over one qrels and several runs."""

    def __init__(self, qrels: Qrels, runs: list[Run], base: Convention | None = None):
        self.qrels = qrels
        self.runs = runs
        self.base = base
        self.staged = [StagedRun(qrels, r) for r in runs]
        self._values: dict[tuple[int, str], TopicValues] = {}
        self._subs: dict[tuple[int, frozenset], StagedRun] = {}
        self._plain: dict[int, bool] = {}
        self.notes: list[str] = []
        self._undefined_noted: set[tuple[int, str]] = set()
        self.restricted = 0  # evaluations done on the affected topics only

    def get(self, ri: int, m: Measure, conv: Convention) -> TopicValues:
        variant = Variant.of(m, conv)
        key = (ri, str(variant))
        hit = self._values.get(key)
        if hit is not None:
            return hit
        tv = self._restricted(ri, m, conv, variant)
        if tv is not None:
            self._values[key] = tv
            return tv
        try:
            tv0 = self.staged[ri].evaluate(m, conv)
            d = SPECS[fold(m, conv)[0].name]
            # a string measure (relstring) keeps its strings: "01-" is no number, "10" must not become 10.0
            text = d.fmt == "str"
            values = np.array([str(v) for v in tv0.values], dtype=object) if text else np.asarray(tv0.values, dtype=np.float64)
            topics = tv0.topics
            if d.agg == "mean-defined" and np.isnan(values).any():  # undefined topics have no value (Accuracy)
                if (ri, str(m)) not in self._undefined_noted:  # once per run and measure (its first variant)
                    self._undefined_noted.add((ri, str(m)))
                    self.notes.append(undefined_note(self.runs[ri].source, str(m), topics[np.isnan(values)].tolist(),
                                                     d.undefined, len(topics)))
                topics, values = topics[~np.isnan(values)], values[~np.isnan(values)]
            tv = TopicValues(variant, topics, values, tv0.aggregate)
            for n in self.staged[ri].prepared(fold(m, conv)[1], m).notes:
                if n not in self.notes:
                    self.notes.append(n)
        except AuditEvalError as exc:
            tv = TopicValues(variant, np.array([], dtype=object), np.array([]), None, error=str(exc))
        self._values[key] = tv
        return tv

    # ------------------------------------------------------------------ ties/sim on affected topics
    def _restricted(self, ri: int, m: Measure, conv: Convention, variant: Variant) -> TopicValues | None:
        if self.base is None:
            return None
        m2, c2 = fold(m, conv)
        _, b2 = fold(m, self.base)
        changed = {a for a, v in c2.as_dict().items() if getattr(b2, a) != v}
        if not changed or not changed <= set(ORDER_AXES) or "all" != c2.depth:
            return None
        if "rank" in (c2.ties, b2.ties) and not self._rank_is_score_order(ri):
            return None
        if SPECS[m2.name].agg in ("none", "mean-defined") or SPECS[m2.name].reads_ids or not self._is_plain(ri):
            return None  # a measure reading document identities can change inside a block of one grade
        base = self.get(ri, m, self.base)
        if not base.ok:
            return None
        pb = self.prepared(ri, b2)
        sim = "float32" if "float32" in (b2.sim, c2.sim) else "float64"
        blocks = tied_blocks(pb, self.runs[ri], sim)
        rows = blocks.mixed_rows
        affected = unique(pb.row_topic[rows]) if len(rows) else np.zeros(0, np.int64)
        values = np.array(base.values, dtype=np.float64)
        if len(affected):
            names = frozenset(pb.topics[affected].tolist())
            sub = self._sub(ri, names).evaluate(m, conv)
            where = {t: i for i, t in enumerate(base.topics.tolist())}
            values[[where[t] for t in sub.topics.tolist()]] = sub.values
        self.restricted += 1
        return TopicValues(variant, base.topics, values, aggregate(values, SPECS[m2.name].agg, c2.gm_floor))

    def _rank_is_score_order(self, ri: int) -> bool:
        """Each topic's lines form one block, in increasing rank with non-increasing scores:
        ordering by the rank column is then a score order that breaks ties by file order, so
        ``ties=rank`` too differs from another tie rule only inside tied blocks."""
        key = -ri - 1
        if key not in self._plain:
            t = self.runs[ri].table
            topic = t.column("topic")
            rank = t.column("rank").to_numpy()
            score = t.column("score").to_numpy()
            from auditeval.vocab import arrow_compute as pc

            same = np.zeros(len(rank), bool)
            if len(rank) > 1:
                same[1:] = pc.equal(topic.slice(1), topic.slice(0, len(rank) - 1)).to_numpy(zero_copy_only=False)
            starts = int((~same).sum())
            ok = starts == len(pc.unique(topic)) if len(rank) else True  # one block per topic
            ok = ok and bool(np.all((rank[1:] > rank[:-1]) | ~same[1:])) and bool(np.all((score[1:] <= score[:-1]) | ~same[1:]))
            self._plain[key] = ok
        return self._plain[key]

    def _is_plain(self, ri: int) -> bool:
        """No duplicate (topic, doc) pair and no NaN score: the restriction is exact."""
        if ri not in self._plain:
            score = self.runs[ri].table.column("score").to_numpy()
            self._plain[ri] = not has_duplicate_pairs(self.runs[ri]) and not bool(np.isnan(score).any())
        return self._plain[ri]

    def _sub(self, ri: int, topics: frozenset) -> StagedRun:
        key = (ri, topics)
        if key not in self._subs:
            import pyarrow as pa

            from auditeval.vocab import arrow_compute as pc

            keep = pa.array(sorted(topics), pa.string())
            r = self.runs[ri]
            rt = r.table.filter(pc.is_in(r.table.column("topic"), value_set=keep))
            qt = self.qrels.table.filter(pc.is_in(self.qrels.table.column("topic"), value_set=keep))
            self._subs = {k: v for k, v in self._subs.items() if k[0] != ri}  # one restriction per run at a time
            self._subs[key] = StagedRun(Qrels(qt, source=self.qrels.source), Run(rt, name=r.name, source=r.source))
        return self._subs[key]

    def prepared(self, ri: int, conv: Convention, m: Measure | None = None) -> Prepared:
        """The prepared lists of run ``ri`` under ``conv`` (folded by ``m``'s parameters)."""
        return self.staged[ri].prepared(fold(m, conv)[1] if m is not None else conv, m)


def floor_for(m: Measure, conv: Convention) -> float | None:
    """gm_floor when ``m`` aggregates by geometric mean (per-topic values compare floored)."""
    return fold(m, conv)[1].gm_floor if SPECS[m.name].agg == "gmean" else None


def same(a: TopicValues, b: TopicValues, tol: float = 1e-12) -> bool:
    """Same topic set and every per-topic value within ``tol`` (and both aggregates)."""
    if not (a.ok and b.ok):
        return a.error == b.error
    if len(a.topics) != len(b.topics) or not np.array_equal(a.topics, b.topics):
        return False
    if a.is_text or b.is_text:  # strings (relstring): equal exactly
        return a.is_text and b.is_text and a.values.tolist() == b.values.tolist() and a.aggregate == b.aggregate
    if not np.allclose(a.values, b.values, rtol=0, atol=tol, equal_nan=True):
        return False
    if (a.aggregate is None) != (b.aggregate is None):
        return False
    return a.aggregate is None or abs(a.aggregate - b.aggregate) <= tol or a.aggregate == b.aggregate
