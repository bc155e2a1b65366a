"""Stages 1 and 2 of the preparation (see :mod:`.stages`): the join of qrels and run.

:func:`join` reads no axis: topic codes in byte order (trec_eval's strcmp), the qrels
(topic, doc) keys, which topics each side holds. :func:`judgments` reads ``dups`` only when
the qrels repeat a (topic, doc) pair: the qrels rows kept and each run row's grade, looked
up once in file order (canonical integer doc ids on both sides join on ``topic * span +
doc``, without hashing the run's strings).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa

from auditeval.engine.ids import (
    RunIndex,
    canonical_ints,
    codes_in,
    combined,
    duplicated,
    id_mix,
    mix_high32,
    run_index_of,
    take_rows,
)
from auditeval.engine.subtopics import Subtopics, has_subtopics
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.errors import InputError
from auditeval.vocab.model import Qrels, Run


# ---------------------------------------------------------------------------------- join
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


def join(qrels: Qrels, run: Run, subtopics: Subtopics | None = None) -> Join:
    """Stage 1: every qrels line is a (topic, doc) judgment (a ``subtopic`` column is not read:
    a document judged under two subtopics is a repeated pair, as trec_eval reads the file);
    ``subtopics``: the judgments behind each row of ``qrels`` when it is a subtopic qrels merged
    for the intent-aware measures (:func:`.subtopics.collapse`)."""
    qt = qrels.table
    q_topic = combined(qt.column("topic"))
    ri = run_index_of(run)
    # run topics: those with rows, and the run's empty topics (zero rows: an empty ranking)
    run_topics = [*ri.topics, *run.empty_topics]
    all_topics = sorted(set(pc.unique(q_topic).to_pylist()) | set(run_topics), key=lambda s: s.encode("utf-8"))
    code_of = {t: i for i, t in enumerate(all_topics)}
    topic_values = pa.array(all_topics, pa.string())
    q_tcode = codes_in(q_topic, topic_values)
    r_tcode = ri.codes(code_of, topic_values)
    q_doc = combined(qt.column("doc"))
    qd_values = pc.unique(q_doc)
    q_key = q_tcode * max(len(qd_values), 1) + codes_in(q_doc, qd_values)
    # integer doc ids on both sides: join on topic * span + doc (no string hashing of the run)
    q_ints = canonical_ints(q_doc) if ri.ints is not None and len(q_doc) else None
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
        qrels, run, ri, all_topics, r_tcode, q_topic, q_doc, qd_values, q_tcode, q_key, q_ints, span,
        qt.column("grade").to_numpy().astype(np.int64), qt.column("line").to_numpy(),
        duplicated(q_key, False), in_run, in_qrels, subtopics,
    )


# ---------------------------------------------------------------------------------- judgments
@dataclass(eq=False)
class Judgments:
    """Stage 2: the qrels rows kept, and the run rows found in them with their grades."""

    q_tcode: np.ndarray
    q_grade: np.ndarray
    q_line: np.ndarray  # qrels line of each kept row (of its pair's first line when the qrels repeat it)
    r_found: np.ndarray  # bool per run row: its (topic, doc) is in the qrels
    hit_rows: np.ndarray  # those rows, ascending
    hit_grade: np.ndarray  # and their grades
    hit_qrow: np.ndarray  # and the kept qrels row (index into q_tcode/q_grade/q_line) judging each
    notes: list[str]
    subtopics: Subtopics | None = None  # per kept qrels row when none was dropped (dups), else see its ``repeated``
    unmerged_subtopics: bool = False  # a subtopic qrels read line by line (not for the intent-aware measures)


def judgments(j: Join, dups: str | None) -> Judgments:
    """``dups``: the axis value when the qrels hold duplicates, else None (it changes nothing)."""
    q_key, q_tcode, q_grade, q_line, q_ints = j.q_key, j.q_tcode, j.q_grade, j.q_line, j.q_ints
    notes: list[str] = []
    if dups is not None:
        if dups == "error":
            idx = np.flatnonzero(j.q_dup)
            first = idx[0]
            second = idx[q_key[idx] == q_key[first]][1]
            raise InputError(
                j.qrels.source,
                int(q_line[second]),
                f"duplicate judgment for topic {j.q_topic[first].as_py()!r} doc {j.q_doc[first].as_py()!r} "
                f"(first at line {int(q_line[first])}); choose dups=first or dups=last to keep one",
            )
        keep = ~duplicated(q_key, dups)
        notes.append(f"{j.qrels.source}: {int((~keep).sum())} duplicate judgment line(s) dropped (dups={dups})")
        # a kept row takes the first line of its (topic, doc): where a dict keeps the key
        by_key = np.argsort(q_key, kind="stable")
        starts = np.flatnonzero(np.r_[True, q_key[by_key][1:] != q_key[by_key][:-1]])
        first_line = np.empty_like(q_line)
        first_line[by_key] = np.repeat(q_line[by_key][starts], np.diff(np.r_[starts, len(by_key)]))
        q_key, q_tcode, q_grade, q_line = q_key[keep], q_tcode[keep], q_grade[keep], first_line[keep]
        if q_ints is not None:
            q_ints = q_ints[keep]
    ri = j.ri
    if q_ints is not None:
        judged = np.zeros(int(q_ints.max()) + 2, bool)  # last entry False: ids beyond the qrels'
        judged[q_ints] = True
        in_qrels = np.empty(len(ri.ints), bool)  # doc judged for some topic
        for at in range(0, len(ri.ints), 1 << 20):  # take() widens int32 ids to intp: 8 MB at a time
            np.take(judged, ri.ints[at : at + (1 << 20)], mode="clip", out=in_qrels[at : at + (1 << 20)])
        cand = np.flatnonzero(in_qrels)
        del in_qrels
        ckey = j.r_tcode[cand].astype(np.int64) * j.span + ri.ints[cand]
        q_key = q_tcode * j.span + q_ints
    else:
        cand, r_qdoc = _judged_rows(j)  # rows whose doc is judged for some topic, its qrels doc code
        ckey = j.r_tcode[cand].astype(np.int64) * max(len(j.qd_values), 1) + r_qdoc
        del r_qdoc
    qorder = np.argsort(q_key, kind="stable")
    q_sorted = q_key[qorder]
    r_found = np.zeros(len(j.r_tcode), bool)
    hit_rows = np.zeros(0, np.int64)
    hit_grade = np.zeros(0, np.int64)
    hit_qrow = np.zeros(0, np.int64)
    if len(q_sorted) and len(ckey):
        pos = np.minimum(np.searchsorted(q_sorted, ckey), len(q_sorted) - 1)
        hit = q_sorted[pos] == ckey
        hit_rows = cand[hit]
        hit_qrow = qorder[pos[hit]]
        hit_grade = q_grade[hit_qrow]
        r_found[hit_rows] = True
    return Judgments(q_tcode, q_grade, q_line, r_found, hit_rows, hit_grade, hit_qrow, notes, j.subtopics, has_subtopics(j.qrels))


def _judged_rows(j: Join) -> tuple[np.ndarray, np.ndarray]:
    """Run rows whose doc id is a qrels doc id (ascending), and that doc's code in
    ``qd_values``. With short string ids the run's id mixes (computed once for the duplicate
    check) pick the candidates, and only those are looked up as strings: exact, as equal ids
    have equal mixes; otherwise every row is looked up."""
    doc = j.run.table.column("doc")
    q_mix = id_mix(j.qd_values) if j.ri.mix is not None else None
    if q_mix is not None and len(q_mix):
        # a bit table over the top 22 bits of the mixes (4 MB, cache-friendly; the low bits
        # see only a few bytes of an id, see mix_high32): a run row whose bit is unset holds
        # no qrels doc; the few rows left are looked up exactly
        bits = np.zeros(1 << 22, bool)
        bits[mix_high32(q_mix) >> 10] = True
        maybe = np.flatnonzero(bits[j.ri.mix >> 10])
        code = pc.fill_null(pc.index_in(take_rows(doc, maybe), value_set=j.qd_values), -1).to_numpy()
        hit = code >= 0
        return maybe[hit], code[hit].astype(np.int64)
    r_qdoc = pc.fill_null(pc.index_in(doc, value_set=j.qd_values), -1).to_numpy()
    cand = np.flatnonzero(r_qdoc >= 0)
    return cand, r_qdoc[cand].astype(np.int64)
