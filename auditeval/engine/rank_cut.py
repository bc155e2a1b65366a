"""The preparation stages, each a function of exactly the axes it reads.

:class:`~auditeval.engine.staged_run.StagedRun` calls them and caches each result under its
key (see :mod:`auditeval.engine.preparation` for the order of operations and the sources):

1. :func:`~.join.join` -- no axis: topic codes (byte order), the qrels keys; per run once.
2. :func:`~.join.judgments` -- ``dups`` only when the qrels hold a duplicate (topic, doc): the
   qrels rows kept and each run row's grade, looked up once in file order.
3. :func:`ranking` -- ``ties``, ``sim``, ``dups``, ``self_hits``: the rows kept and their
   order (one sort per distinct key), with the grade of every ranked row.
4. :func:`qrels_side` -- ``negatives``, ``topics`` (and the qrels' ``dups``): the evaluated
   topics and their judged documents, grades sorted descending.
5. :func:`cut` -- adds ``depth``, ``unjudged`` (and ``negatives``, ``dups=error``) to a
   ranking: masks over its rows, no sort; gives the :class:`~.ranked_lists.Prepared` lists.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from auditeval.engine.ids import DocKeys, to_numpy
from auditeval.engine.join import Join, Judgments
from auditeval.engine.ordering import presorted_order, sort_order, trec_nan_scores
from auditeval.engine.ranked_lists import NONPOOL, UNJUDGED, Origin, Prepared
from auditeval.engine.sim import scores
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.errors import EvaluationError, InputError
from auditeval.vocab.model import Run


def _frozen(a: np.ndarray) -> np.ndarray:
    """Shared between cached stages: never modified in place."""
    a.flags.writeable = False
    return a


# ---------------------------------------------------------------------------------- ranking
@dataclass(eq=False)
class Ranking:
    """Stage 3: the kept run rows in rank order, topic by topic (ascending topic code)."""

    rows: np.ndarray  # row of run.table per ranked row: int32 (int64 from 2**31 rows, row_dtype)
    tcode: np.ndarray  # int32 topic code per ranked row
    grade: np.ndarray  # qrels grade (any sign) where found, else NONPOOL: int32 or int64 (grade_dtype)
    found: np.ndarray | None  # per ranked row: in the qrels (kept only when grades can be < 0)
    counts: np.ndarray  # ranked rows per topic code
    notes: list[str]

    @cached_property
    def max_count(self) -> int:
        return int(self.counts.max(initial=0))

    @cached_property
    def pos(self) -> np.ndarray:
        """0-based position of each ranked row within its topic (int32 below 2**31 rows)."""
        itype = row_dtype(len(self.tcode))
        starts = np.concatenate(([0], np.cumsum(self.counts))).astype(itype)
        return _frozen(np.arange(len(self.tcode), dtype=itype) - starts[self.tcode])


def topic_counts(tcode: np.ndarray, n_codes: int) -> np.ndarray:
    """Rows per topic code (int64) of rows grouped by ascending topic code: the group bounds
    by binary search, without the int64 copy of ``tcode`` that ``np.bincount`` makes."""
    return np.diff(np.searchsorted(tcode, np.arange(n_codes + 1, dtype=tcode.dtype))).astype(np.int64)


def row_dtype(n: int) -> type:
    """Row indices into a table of ``n`` rows: int32 below 2**31 rows (half the memory of
    int64 on a 7M-line run), else int64."""
    return np.int32 if n < 2**31 else np.int64


def grade_dtype(grades: np.ndarray) -> type:
    """Ranked-row grades: int32 when every qrels grade (and its negation, ``-grade`` orders
    best-first) fits in +-2**30, else int64; the sentinels NONPOOL/UNJUDGED fit either."""
    if len(grades) == 0 or (int(grades.min()) > -(2**30) and int(grades.max()) < 2**30):
        return np.int32
    return np.int64


def rank_column(run: Run) -> np.ndarray:
    """The rank column for ``ties=rank``, the one convention that reads it; a rank the reader
    could not read (null: ``-``, ``1.5``, which trec_eval ignores) refuses the run, naming
    its line."""
    col = run.table.column("rank")
    if col.null_count:
        row = int(np.flatnonzero(pc.is_null(col).to_numpy(zero_copy_only=False))[0])
        line = run.table.column("line")[row].as_py()
        raise EvaluationError(f"{run.source}:{line}: rank is not an integer: ties=rank orders by the rank column "
                              "(every other ties value ignores it, as trec_eval does)")
    return col.to_numpy()


def ranking(j: Join, jd: Judgments, doc_keys: DocKeys | None, ties: str, sim: str, dups: str, self_hits: str) -> Ranking:
    run = j.run
    rt = run.table
    notes: list[str] = []
    rows = None
    if self_hits == "drop":
        same = j.self_hits
        if same.any():
            notes.append(f"{run.source}: {int(same.sum())} row(s) whose doc id equals the topic id dropped (self_hits=drop)")
            rows = np.flatnonzero(~same)
    if dups in ("first", "last") and doc_keys is not None:
        dup = doc_keys.duplicated(rows, dups) if doc_keys.any(rows, j.ri.blocks if rows is None else None) else None
        if dup is not None:
            notes.append(f"{run.source}: {int(dup.sum())} duplicate result line(s) dropped (dups={dups})")
            rows = np.flatnonzero(~dup) if rows is None else rows[~dup]

    def sub(a: np.ndarray) -> np.ndarray:
        return a if rows is None else a[rows]

    col = rt.column("score")
    if rows is None and sim != "float32" and col.type == pa.float64() and not col.null_count:
        r_score, score_notes = col, []  # the fast path reads the column as is (no 56 MB copy)
    else:
        score, score_notes = scores(run, sim)
        r_score = sub(score)
        del score
    del col
    notes += score_notes
    r_doc = rt.column("doc")
    sel_doc = r_doc if rows is None else pc.take(r_doc, from_numpy(rows))
    sel_rank = sub(rank_column(run)) if ties == "rank" else None
    sel_line = sub(rt.column("line").to_numpy()) if ties in ("rank", "file-order") else None
    sel_tcode = sub(j.r_tcode)
    if isinstance(r_score, pa.ChunkedArray) and (ties == "docno-desc" and pc.any(pc.is_nan(r_score)).as_py()):
        r_score = to_numpy(r_score, np.float64)
    if ties == "docno-desc" and isinstance(r_score, np.ndarray) and np.isnan(r_score).any():
        r_score = trec_nan_scores(sel_tcode, r_score, sel_doc)  # trec_eval's qsort order for NaN
    order = presorted_order(sel_tcode, r_score, sel_doc, sel_line, ties)
    if order is None:
        if isinstance(r_score, pa.ChunkedArray):
            r_score = to_numpy(r_score, np.float64)
        order = sort_order(sel_tcode, r_score, sel_doc, sel_rank, sel_line, ties)
    del sel_tcode, r_score, sel_doc
    rows = (order if rows is None else rows[order]).astype(row_dtype(len(rt)), copy=False)
    del order
    tcode = j.r_tcode[rows]
    counts = topic_counts(tcode, len(j.all_topics))
    found = jd.r_found[rows]
    grade = np.full(len(rows), NONPOOL, dtype=grade_dtype(jd.hit_grade))
    fpos = np.flatnonzero(found)
    grade[fpos] = jd.hit_grade[np.searchsorted(jd.hit_rows, rows[fpos])]
    del fpos
    keep_found = found if (jd.q_grade < 0).any() else None
    return Ranking(
        _frozen(rows), _frozen(tcode), _frozen(grade), None if keep_found is None else _frozen(keep_found),
        _frozen(counts), notes,
    )


# ---------------------------------------------------------------------------------- qrels side
@dataclass(eq=False)
class QrelsSide:
    """Stage 4: the evaluated topics and their judged documents."""

    chosen_idx: np.ndarray  # topic codes evaluated, ascending
    newcode: np.ndarray  # int32 topic code -> evaluated position (-1: not evaluated)
    topics: np.ndarray  # object array of topic ids
    missing: np.ndarray  # bool per evaluated topic: absent from the run
    qoffsets: np.ndarray
    qgrade: np.ndarray
    n_pooled_unjudged: np.ndarray
    notes: list[str]
    cache: dict = field(default_factory=dict)  # Prepared.qcache of every cut on this side


def qrels_side(j: Join, jd: Judgments, negatives: str, topics: str) -> QrelsSide:
    run = j.run
    in_run, in_qrels, names = j.in_run, j.in_qrels, j.all_topics
    notes: list[str] = []
    if topics == "both":
        chosen = in_run & in_qrels
    elif topics in ("qrels", "strict"):
        chosen = in_qrels.copy()
        if topics == "strict":
            lacking = np.flatnonzero(in_qrels & ~in_run)
            if len(lacking):
                shown = ", ".join(repr(names[i]) for i in lacking[:5])
                raise EvaluationError(
                    f"{len(lacking)} qrels topic(s) missing from run {run.source}: {shown}"
                    f"{' ...' if len(lacking) > 5 else ''} (topics=strict, as trec_eval 10 without -c; "
                    "use topics=qrels to score them 0 or topics=both to skip them)"
                )
    else:  # run
        chosen = in_run.copy()
    run_only = np.flatnonzero(in_run & ~in_qrels)
    if len(run_only) and topics != "run":
        notes.append(
            f"{run.source}: {len(run_only)} run topic(s) without judgments not evaluated: "
            + ", ".join(repr(names[i]) for i in run_only[:5])
            + (" ..." if len(run_only) > 5 else "")
        )
    qrels_only = np.flatnonzero(in_qrels & ~in_run)
    if len(qrels_only) and topics != "run":
        how = "scored as empty rankings" if topics == "qrels" else "not evaluated"
        notes.append(
            f"{run.source}: {len(qrels_only)} qrels topic(s) absent from the run {how} (topics={topics}): "
            + ", ".join(repr(names[i]) for i in qrels_only[:5])
            + (" ..." if len(qrels_only) > 5 else "")
        )
    chosen_idx = np.flatnonzero(chosen)
    n = len(chosen_idx)
    newcode = np.full(len(names), -1, dtype=np.int32)  # int32: cut() maps every ranked row
    newcode[chosen_idx] = np.arange(n)
    q_grade = jd.q_grade
    q_neg = q_grade < 0 if negatives == "pooled" else np.zeros(len(q_grade), bool)
    if negatives != "pooled":
        q_grade = np.maximum(q_grade, 0)
    qsel = newcode[jd.q_tcode] >= 0
    qt_new = newcode[jd.q_tcode[qsel]]
    qg, qn = q_grade[qsel], q_neg[qsel]
    n_pooled_unjudged = np.bincount(qt_new[qn], minlength=n).astype(np.int64)
    qt_pos, qg_pos = qt_new[~qn], qg[~qn]
    qgrade = qg_pos[np.lexsort((-qg_pos, qt_pos))]
    qoffsets = np.concatenate(([0], np.cumsum(np.bincount(qt_pos, minlength=n)))).astype(np.int64)
    return QrelsSide(
        chosen_idx, _frozen(newcode), np.array([names[i] for i in chosen_idx], dtype=object),
        _frozen(~in_run[chosen_idx]), _frozen(qoffsets), _frozen(qgrade), _frozen(n_pooled_unjudged), notes,
        {"_for": (qgrade, qoffsets)},
    )


# ---------------------------------------------------------------------------------- cut
def cut(j: Join, jd: Judgments, rk: Ranking, qs: QrelsSide, doc_keys: DocKeys | None, conv,
        base_notes: list[str]) -> Prepared:
    """Depth, ``dups=error`` (checked within the depth, as trec_eval), negatives, ``-J``, topics."""
    run = j.run
    notes = list(base_notes) + rk.notes
    rows, tcode, grade, found, counts = rk.rows, rk.tcode, rk.grade, rk.found, rk.counts
    if conv.depth != "all" and conv.depth < rk.max_count:  # else no row lies below the depth
        keep = rk.pos < conv.depth
        n_cut = len(keep) - int(np.count_nonzero(keep))
        if n_cut:
            notes.append(f"{run.source}: {n_cut} result line(s) below depth {conv.depth} not evaluated (depth={conv.depth})")
            rows, tcode, grade = rows[keep], tcode[keep], grade[keep]
            found = None if found is None else found[keep]
            counts = np.minimum(counts, conv.depth)
    if conv.dups == "error" and doc_keys is not None:
        _duplicate_error(j, doc_keys, rows, tcode, counts)
    if found is not None:  # qrels grades below 0: pooled-but-unjudged, or judged non-relevant
        grade = np.where(found & (grade < 0), UNJUDGED if conv.negatives == "pooled" else 0, grade)
    if conv.unjudged == "drop":
        keep = grade >= 0
        n_drop = len(keep) - int(np.count_nonzero(keep))
        if n_drop:
            notes.append(f"{run.source}: {n_drop} unjudged result(s) removed before measuring (unjudged=drop)")
            rows, tcode, grade = rows[keep], tcode[keep], grade[keep]
    notes += qs.notes
    counts = topic_counts(tcode, len(j.all_topics))[qs.chosen_idx]  # rows stay grouped by topic
    if len(qs.chosen_idx) != len(j.all_topics):
        rsel = (qs.newcode >= 0)[tcode]
        grade, rows = grade[rsel], rows[rsel]
    del tcode
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Prepared(
        convention=conv,
        topics=qs.topics,
        offsets=offsets,
        grade=grade,
        qoffsets=qs.qoffsets,
        qgrade=qs.qgrade,
        missing=qs.missing,
        n_pooled_unjudged=qs.n_pooled_unjudged,
        run_row=rows,
        run_name=run.name,
        notes=notes,
        qcache=qs.cache,
        origin=Origin(run, jd, qs.newcode, conv.negatives, conv.sim, rows, grade, topic_ids=j.all_topics),
    )


def _duplicate_error(j: Join, doc_keys: DocKeys, rows: np.ndarray, tcode: np.ndarray, counts: np.ndarray) -> None:
    """Raise when a (topic, doc) pair occurs twice among the ranked rows kept."""
    found = doc_keys.any(None, j.ri.blocks) if len(rows) == len(j.r_tcode) else doc_keys.any(rows, counts)
    dup = doc_keys.duplicated(rows, False) if found else None
    if dup is None:
        return
    idx = np.flatnonzero(dup)
    same = idx[doc_keys.same_as(rows, idx)]
    r_line = j.run.table.column("line").to_numpy()
    lines = sorted(int(r_line[rows[i]]) for i in same)
    t = j.all_topics[int(tcode[same[0]])]
    doc = j.run.table.column("doc")[int(rows[same[0]])].as_py()
    raise InputError(
        j.run.source,
        lines[1],
        f"duplicate result for topic {t!r} doc {doc!r} (first at line {lines[0]}); choose dups=first or dups=last to keep one",
    )
