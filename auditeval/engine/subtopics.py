"""Subtopic (diversity) qrels: one judged row per (topic, doc) for the join, the subtopic
judgments kept beside it for the intent-aware measures (:mod:`.measures.diversity`).

A qrels with a ``subtopic`` column (``topic subtopic doc grade``, ndeval.c:905-927) judges a
document once per subtopic. The join reads pairs, so :func:`collapse` merges the rows of one
(topic, doc) under different subtopics into one row:

* its grade is the highest of them: the document is relevant to the topic when it is relevant
  to any subtopic (ndeval.c:322-344 ``nrel``, how ndeval's own MAP reads a subtopic qrels), what
  every measure that is not intent-aware sees; its line is the first of them;
* its subtopic judgments (subtopic code, grade) stay in :class:`Subtopics`, a CSR table over
  the merged rows, codes in order of first appearance in the file (pyndeval's ``subtopic_map``,
  pyndeval/__init__.py ``_coerce_qrels``, whose order ndeval's per-subtopic sums follow).

A (topic, subtopic, doc) given twice stays two rows of the pair (the k-th repetition joins the
k-th merged row), so the ``dups`` axis decides between them for every other measure as for any
qrels; the intent-aware measures refuse it (:attr:`Subtopics.repeated`): ndeval keeps one of
the two judgments arbitrarily (qsort is not stable, ndeval.c:301, rel = the later sorted,
l.846) yet counts both (l.847).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from auditeval.engine.ids import combined
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


def collapse(qrels: Qrels) -> tuple[Qrels, Subtopics | None]:
    """``qrels`` with one row per (topic, doc, repetition) and the :class:`Subtopics` of those
    rows; ``qrels`` itself and None when it has no ``subtopic`` column."""
    qt = qrels.table
    if "subtopic" not in qt.column_names:
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
    # merged row = (pair, repetition), numbered in file order of its first line
    group_key = pair.astype(np.int64) * (int(occ.max(initial=0)) + 1) + occ
    _, first_row, group = np.unique(group_key, return_index=True, return_inverse=True)
    rank = np.empty(len(first_row), np.int64)
    rank[np.argsort(first_row, kind="stable")] = np.arange(len(first_row))
    group = rank[group]
    heads = np.sort(first_row)
    merged_grade = np.full(len(heads), np.iinfo(np.int64).min)
    np.maximum.at(merged_grade, group, grade)
    order = np.lexsort((scode, group))  # judgments by merged row, then subtopic code
    offsets = np.r_[0, np.cumsum(np.bincount(group, minlength=len(heads)))].astype(np.int64)
    table = qrels_table(
        qt.column("topic").take(pa.array(heads)), qt.column("doc").take(pa.array(heads)), merged_grade, line=line[heads]
    )
    doc = np.asarray(table.column("doc").to_pylist(), dtype=object)
    topic = np.asarray(table.column("topic").to_pylist(), dtype=object)
    subs = Subtopics(offsets, scode[order], grade[order], names, doc, topic, repeated, qrels.source)
    merged = n - len(heads)
    notes = list(qrels.notes)
    if merged:
        notes.append(
            f"{qrels.source}: {merged} judgment line(s) of documents judged under several subtopics (column 2) merged "
            "into their (topic, doc): measures that are not intent-aware read a document's highest grade (relevant "
            "to any subtopic, as ndeval's MAP: ndeval.c:322-344)"
        )
    return Qrels(table=table, source=qrels.source, notes=tuple(notes), skipped=qrels.skipped), subs
