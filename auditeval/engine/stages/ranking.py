"""Stage 3 of the preparation (see :mod:`auditeval.engine.stages`): the ranking.

:func:`ranking` reads ``ties``, ``sim``, ``dups`` and ``self_hits``: the run rows kept
(``self_hits=drop``, ``dups=first|last``) and their order, topic by topic (one sort per
distinct key: :mod:`auditeval.engine.ordering`), with the grade of every ranked row.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np
import pyarrow as pa

from auditeval.engine.ids import DocKeys, to_numpy
from auditeval.engine.ordering import presorted_order, sort_order, trec_nan_scores
from auditeval.engine.ranked_lists import NONPOOL
from auditeval.engine.sim import scores
from auditeval.engine.stages.join import Join
from auditeval.engine.stages.judgments import Judgments
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.model import Run


def frozen(a: np.ndarray) -> np.ndarray:
    """Shared between cached stages: never modified in place."""
    a.flags.writeable = False
    return a


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
        return frozen(np.arange(len(self.tcode), dtype=itype) - starts[self.tcode])


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
        frozen(rows), frozen(tcode), frozen(grade), None if keep_found is None else frozen(keep_found),
        frozen(counts), notes,
    )


