"""Stage 1 of the preparation (see :mod:`auditeval.engine.stages`): the join of qrels and run.

:func:`join` reads no axis: topic codes in byte order (trec_eval's strcmp), the qrels
(topic, doc) keys, which topics each side holds. The qrels' half (:class:`QrelsIndex`) is made
once per :class:`~auditeval.vocab.model.Qrels` object and shared by every run joined with it.
"""

from __future__ import annotations

import weakref
from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa

from auditeval.engine.ids import (
    MixBuckets,
    RunIndex,
    canonical_ints,
    codes_in,
    combined,
    duplicated,
    id_mix,
    mix_buckets,
    mix_high32,
    run_index_of,
)
from auditeval.engine.subtopics import Subtopics
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.model import Qrels, Run


@dataclass(eq=False)
class Join:
    """Stage 1: what no convention changes."""

    qrels: Qrels
    run: Run
    ri: RunIndex
    all_topics: list[str]  # byte order (trec_eval's strcmp)
    r_tcode: np.ndarray  # int32 topic code per run row, file order
    q_topic: pa.Array
    q_doc: pa.Array
    qd_values: pa.Array  # distinct qrels doc ids
    q_tcode: np.ndarray
    q_key: np.ndarray  # (topic, doc) key per qrels row
    q_ints: np.ndarray | None  # qrels doc ids as int64 when both sides are canonical decimal
    span: int  # int key span: topic * span + doc
    q_grade: np.ndarray
    q_line: np.ndarray
    q_dup: np.ndarray  # bool per qrels row: its (topic, doc) occurs twice
    in_run: np.ndarray  # bool per topic code
    in_qrels: np.ndarray
    subtopics: Subtopics | None = None  # a merged subtopic qrels' judgments per row (intent-aware measures only)

    @cached_property
    def q_has_negative(self) -> bool:
        return bool((self.q_grade < 0).any())

    @cached_property
    def q_has_dup(self) -> bool:
        return bool(self.q_dup.any())

    @cached_property
    def topics_differ(self) -> bool:
        """Some topic is in the run or the qrels only (then the ``topics`` axis matters)."""
        return bool((self.in_run != self.in_qrels).any())

    @cached_property
    def has_self_hits(self) -> bool:
        return bool(self.self_hits.any())

    @cached_property
    def self_hits(self) -> np.ndarray:
        """Run rows whose doc id equals the topic id (computed once, when asked)."""
        rt = self.run.table
        return pc.equal(rt.column("doc"), rt.column("topic")).to_numpy(zero_copy_only=False)


@dataclass(eq=False)
class QrelsIndex:
    """The qrels' half of stage 1 (as :class:`~auditeval.engine.ids.RunIndex` is the run's), computed once per
    :class:`Qrels` object (:func:`qrels_index_of`) and shared by every run joined with it: a
    command over 200 runs hashed the same 128,796 judgments 200 times, and looked each run up
    in a hash table of the qrels' doc ids built anew (half of an AP evaluation of a run of
    100,000 lines: 97 -> 50 ms with this index and :attr:`mix_buckets`). Topic codes here number
    the qrels' own topics in byte order; :func:`join` renumbers them where a run brings topics
    the qrels lack (a monotone renumbering keeps every (topic, doc) equality, so ``dup`` holds)."""

    topics: tuple[str, ...]  # distinct qrels topics, byte order (trec_eval's strcmp)
    topic_set: frozenset[str]
    q_topic: pa.Array
    q_doc: pa.Array
    qd_values: pa.Array  # distinct qrels doc ids
    tcode: np.ndarray  # int64 code per qrels row, into ``topics`` (this and the arrays below: read-only)
    dcode: np.ndarray  # int64 code per qrels row, into ``qd_values``
    key: np.ndarray  # tcode * len(qd_values) + dcode
    dup: np.ndarray  # bool per row: its (topic, doc) occurs twice
    grade: np.ndarray
    line: np.ndarray

    @cached_property
    def ints(self) -> np.ndarray | None:
        """The doc ids as integers when every one is canonical decimal (:func:`canonical_ints`)."""
        return canonical_ints(self.q_doc) if len(self.q_doc) else None

    @cached_property
    def key_order(self) -> tuple[np.ndarray, np.ndarray]:
        """``(order, sorted keys)``: the rows by :attr:`key`, stable."""
        order = np.argsort(self.key, kind="stable")
        return order, self.key[order]

    @cached_property
    def mixes(self) -> np.ndarray | None:
        """The high 32 bits of each distinct doc id's mix (:func:`id_mix`, :func:`mix_high32`:
        a run keeps those), None when the ids are too long to mix."""
        q_mix = id_mix(self.qd_values)
        return None if q_mix is None or not len(q_mix) else mix_high32(q_mix)

    @cached_property
    def mix_buckets(self) -> MixBuckets:
        """The distinct doc ids by their mix (:func:`~auditeval.engine.ids.mix_buckets`), which
        joins a run's ids without hashing them (:func:`~auditeval.engine.ids.judged_by_mix`)."""
        return mix_buckets(self.mixes)


_QRELS_INDEX: weakref.WeakKeyDictionary[Qrels, QrelsIndex] = weakref.WeakKeyDictionary()


def qrels_index_of(qrels: Qrels) -> QrelsIndex:
    """:class:`QrelsIndex` of ``qrels``, made on first use and kept while the object lives
    (``Qrels`` is frozen, its table immutable)."""
    qi = _QRELS_INDEX.get(qrels)
    if qi is None:
        qt = qrels.table
        q_topic = combined(qt.column("topic"))
        topics = sorted(pc.unique(q_topic).to_pylist(), key=lambda s: s.encode("utf-8"))
        tcode = codes_in(q_topic, pa.array(topics, pa.string()))
        q_doc = combined(qt.column("doc"))
        qd_values = pc.unique(q_doc)
        dcode = codes_in(q_doc, qd_values)
        key = tcode * max(len(qd_values), 1) + dcode
        arrays = [tcode, dcode, key, duplicated(key, False), qt.column("grade").to_numpy().astype(np.int64),
                  np.array(qt.column("line").to_numpy())]
        for a in arrays:  # shared by every run's join: never modified in place
            a.flags.writeable = False
        qi = QrelsIndex(tuple(topics), frozenset(topics), q_topic, q_doc, qd_values, *arrays)
        _QRELS_INDEX[qrels] = qi
    return qi


def join(qrels: Qrels, run: Run, subtopics: Subtopics | None = None) -> Join:
    """Stage 1: every qrels line is a (topic, doc) judgment (a ``subtopic`` column is not read:
    a document judged under two subtopics is a repeated pair, as trec_eval reads the file);
    ``subtopics``: the judgments behind each row of ``qrels`` when it is a subtopic qrels merged
    for the intent-aware measures (:func:`auditeval.engine.subtopics.collapse`). The qrels' half comes from
    :func:`qrels_index_of`, made once per qrels."""
    qi = qrels_index_of(qrels)
    ri = run_index_of(run)
    # run topics: those with rows, and the run's empty topics (zero rows: an empty ranking)
    run_topics = [*ri.topics, *run.empty_topics]
    extra = set(run_topics) - qi.topic_set
    q_tcode, q_key = qi.tcode, qi.key
    all_topics = list(qi.topics)
    if extra:  # topics the qrels lack: the qrels' codes renumbered into the union, byte order
        all_topics = sorted([*qi.topics, *extra], key=lambda s: s.encode("utf-8"))
        pos = {t: i for i, t in enumerate(all_topics)}
        q_tcode = np.array([pos[t] for t in qi.topics], np.int64)[qi.tcode]
        q_key = q_tcode * max(len(qi.qd_values), 1) + qi.dcode
    code_of = {t: i for i, t in enumerate(all_topics)}
    r_tcode = ri.codes(code_of, pa.array(all_topics, pa.string()))
    # integer doc ids on both sides: join on topic * span + doc (no string hashing of the run)
    q_ints = qi.ints if ri.ints is not None else None
    span = 0
    if q_ints is not None:
        span = max(ri.ints_max, int(q_ints.max())) + 1
        if span * len(all_topics) >= 2**62 or int(q_ints.max()) - int(q_ints.min()) > 50_000_000:
            q_ints = None
    in_run = np.zeros(len(all_topics), bool)
    in_run[[code_of[t] for t in run_topics]] = True
    in_qrels = np.zeros(len(all_topics), bool)
    in_qrels[q_tcode] = True
    return Join(
        qrels, run, ri, all_topics, r_tcode, qi.q_topic, qi.q_doc, qi.qd_values, q_tcode, q_key, q_ints, span,
        qi.grade, qi.line, qi.dup, in_run, in_qrels, subtopics,
    )
