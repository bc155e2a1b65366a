"""Subtopic (diversity) qrels merged for the intent-aware measures: one judged row per
(topic, doc) for their join, the subtopic judgments kept beside it (:mod:`.measures.diversity`).

A qrels with a ``subtopic`` column (``topic subtopic doc grade``, ndeval.c:905-927) judges a
document once per subtopic. Only the intent-aware measures (spec ``subtopics``) read it so
(:meth:`.staged_run.StagedRun.for_measure`); every other measure reads the file line by line
with column 2 ignored, as trec_eval does (a document under two subtopics is a repeated
(topic, doc) pair, decided by the ``dups`` axis: trec_eval refuses it, form_res_rels.c:131-139,
a dict loader keeps the last line). For the intent-aware measures :func:`collapse` merges the
rows of one (topic, doc) under different subtopics into one row:

* its grade is the highest of them, read only to find the ranked documents relevant to some
  subtopic (the candidates whose judgments the kernels then read one by one) and which rows
  are judged (``unjudged``); its line is the first of them;
* its subtopic judgments (subtopic code, grade) stay in :class:`Subtopics`, a CSR table over
  the merged rows, codes in order of first appearance in the file (pyndeval's ``subtopic_map``,
  pyndeval/__init__.py ``_coerce_qrels``, whose order ndeval's per-subtopic sums follow).

A (topic, subtopic, doc) given twice makes two merged rows of the pair (the first with every
subtopic's first judgment, the second with the repeated subtopic's second judgment and the
others' last ones), so ``dups=error`` refuses it as a repeated pair; under ``first`` / ``last``
the intent-aware measures refuse it (:attr:`Subtopics.repeated`): ndeval keeps one of the two
judgments arbitrarily (qsort is not stable, ndeval.c:301, rel = the later sorted, l.846) yet
counts both (l.847).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from auditeval.engine.ids import combined
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.model import Qrels, qrels_table


@dataclass(eq=False)
class Subtopics:
    """Subtopic judgments of each merged qrels row ``i``: ``code[offsets[i]:offsets[i+1]]``
    (ascending) with their ``grade``; ``doc`` and ``topic`` the merged rows' ids (the ideal
    ranking breaks ties by doc id, ndeval.c:394-401; lists rebuilt for a subset of topics or
    stacked copies find their topics' judgments by topic id)."""

    offsets: np.ndarray  # int64, len rows + 1
    code: np.ndarray  # int64 subtopic code per judgment, ascending within a row
    grade: np.ndarray  # int64 grade per judgment
    names: list[str]  # subtopic id per code
    doc: np.ndarray  # object array: doc id per merged row
    topic: np.ndarray  # object array: topic id per merged row
    repeated: tuple[int, int, str, str, str] | None  # (line, first line, topic, subtopic, doc) of a repeated triple
    source: str = "<qrels>"  # the qrels file, for the refusal of a repeated triple

    def row_of(self) -> np.ndarray:
        """Merged row of each judgment."""
        return np.repeat(np.arange(len(self.offsets) - 1), np.diff(self.offsets))


def _codes(col: pa.ChunkedArray | pa.Array) -> tuple[np.ndarray, list[str]]:
    """Dictionary codes (first appearance order) and the distinct values of a string column."""
    enc = pc.dictionary_encode(combined(col))
    return enc.indices.to_numpy(zero_copy_only=False).astype(np.int64), enc.dictionary.to_pylist()


def has_subtopics(qrels: Qrels) -> bool:
    """``qrels`` is a subtopic qrels (its readers kept column 2, :class:`~auditeval.vocab.model.Qrels`)."""
    return "subtopic" in qrels.table.column_names


def collapse(qrels: Qrels) -> tuple[Qrels, Subtopics | None]:
    """``qrels`` with one row per (topic, doc, repetition) and the :class:`Subtopics` of those
    rows; ``qrels`` itself and None when it has no ``subtopic`` column."""
    qt = qrels.table
    if not has_subtopics(qrels):
        return qrels, None
    n = qt.num_rows
    tcode, _ = _codes(qt.column("topic"))
    dcode, _ = _codes(qt.column("doc"))
    scode, names = _codes(qt.column("subtopic"))
    grade = qt.column("grade").to_numpy().astype(np.int64)
    line = qt.column("line").to_numpy().astype(np.int64)
    _, pair = np.unique(tcode * (int(dcode.max(initial=0)) + 1) + dcode, return_inverse=True)
    triple = pair.astype(np.int64) * max(len(names), 1) + scode
    by_triple = np.argsort(triple, kind="stable")
    st = triple[by_triple]
    start = np.r_[True, st[1:] != st[:-1]] if n else np.zeros(0, bool)
    first = np.flatnonzero(start)
    occ = np.empty(n, np.int64)
    occ[by_triple] = np.arange(n) - np.repeat(first, np.diff(np.r_[first, n]))
    repeated = None
    if n and occ.max() > 0:
        i = int(np.flatnonzero(occ > 0)[0])
        j = int(np.flatnonzero(triple == triple[i])[0])
        repeated = (int(line[i]), int(line[j]), qt.column("topic")[i].as_py(), names[scode[i]], qt.column("doc")[i].as_py())
    # merged row = (pair, repetition r): each subtopic's r-th judgment, or its last when it has
    # fewer (so the first merged row of a pair holds every first judgment, the last every last:
    # dups=first / dups=last), named by the first line that is an r-th judgment
    n_tau = np.empty(n, np.int64)
    n_tau[by_triple] = np.repeat(np.diff(np.r_[first, n]), np.diff(np.r_[first, n]))
    reps = np.zeros(int(pair.max(initial=-1)) + 1, np.int64)
    np.maximum.at(reps, pair, occ + 1)
    copies = np.where(occ < n_tau - 1, 1, reps[pair] - occ)
    member = np.repeat(np.arange(n), copies)
    rep = occ[member] + np.arange(len(member)) - np.repeat(np.cumsum(copies) - copies, copies)
    _, group = np.unique(pair[member].astype(np.int64) * (int(reps.max(initial=1))) + rep, return_inverse=True)
    n_groups = int(group.max(initial=-1)) + 1
    real = rep == occ[member]
    head = np.full(n_groups, n, np.int64)
    np.minimum.at(head, group[real], member[real])
    rank = np.empty(n_groups, np.int64)
    rank[np.argsort(head, kind="stable")] = np.arange(n_groups)
    group = rank[group]
    heads = np.sort(head)
    merged_grade = np.full(n_groups, np.iinfo(np.int64).min)
    np.maximum.at(merged_grade, group, grade[member])
    order = np.lexsort((scode[member], group))  # judgments by merged row, then subtopic code
    offsets = np.r_[0, np.cumsum(np.bincount(group, minlength=n_groups))].astype(np.int64)
    table = qrels_table(
        pc.take(qt.column("topic"), from_numpy(heads)), pc.take(qt.column("doc"), from_numpy(heads)), merged_grade, line=line[heads]
    )
    doc = np.asarray(table.column("doc").to_pylist(), dtype=object)
    topic = np.asarray(table.column("topic").to_pylist(), dtype=object)
    subs = Subtopics(offsets, scode[member][order], grade[member][order], names, doc, topic, repeated, qrels.source)
    merged = n - len(heads)
    notes = list(qrels.notes)
    if merged:
        notes.append(
            f"{qrels.source}: {merged} judgment line(s) of documents judged under several subtopics (column 2) merged "
            "into their (topic, doc) for the intent-aware measures, which read each subtopic's judgment"
        )
    return Qrels(table=table, source=qrels.source, notes=tuple(notes), skipped=qrels.skipped), subs
