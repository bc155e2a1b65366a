"""THE place where ranking conventions are applied (trec_eval's ``form_res_rels.c``).

:func:`prepare` turns a :class:`~auditeval.model.Qrels`, a :class:`~auditeval.model.Run`
and a :class:`~auditeval.conventions.Convention` into a :class:`Prepared`: one ranked,
judged list per evaluated topic, stored as flat arrays with topic offsets (CSR). Every
measure reads only this structure, so no measure ever re-decides a convention.

Order of operations (trec_eval's, form_res_rels.c:100-230):

1. ``self_hits``: drop rows whose doc id equals the topic id (BEIR), counted.
2. ``dups`` (``first``/``last``): collapse repeated (topic, doc) rows by file line, counted.
3. ``sim``: scores rounded to float32 when asked (C ``float sim``), so near-equal scores tie.
4. ``ties``: sort each topic by score desc and the tie rule (or by the rank column).
   NaN scores (only the ``numbers="atof"`` readers let them through) sort after every
   number; trec_eval's inconsistent comparator order for them is reproduced by the
   drop-in alone (``trec_eval/order.py``).
5. ``depth``: keep the first N rows of each topic.
6. ``dups`` (``error``): a (topic, doc) pair seen twice within the depth is an error
   (trec_eval checks after ``-M``, so duplicates below the depth pass, as there).
7. judgments: each row gets its qrels grade; ``-1`` = not in the qrels (NONPOOL);
   negative grades are ``-2`` (in pool, unjudged) under ``negatives=pooled`` or 0 under
   ``negatives=nonrel``.
8. ``unjudged=drop``: rows with grade < 0 removed, ranks close up (trec_eval ``-J``).
9. ``topics``: choose the evaluated topic set (both / qrels / strict / run).

Topics are evaluated in byte order of their ids (trec_eval sorts qids with strcmp), and
all sums run in that order.
"""

from __future__ import annotations

import weakref
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..conventions import Convention
from ..errors import EvaluationError, InputError
from ..model import Qrels, Run

NONPOOL = -1  # document not in the qrels (trec_eval RELVALUE_NONPOOL)
UNJUDGED = -2  # in the qrels with a negative grade (trec_eval RELVALUE_UNJUDGED)


@dataclass(eq=False)
class Prepared:
    """Ranked, judged lists for the evaluated topics, in CSR form.

    ``grade[offsets[t]:offsets[t+1]]`` are the grades of topic ``t``'s ranked documents in
    rank order (sentinels ``NONPOOL``/``UNJUDGED`` below 0); ``qgrade[qoffsets[t]:qoffsets[t+1]]``
    are the non-negative grades of every judged document of topic ``t`` (sorted descending).
    ``missing[t]`` marks a topic evaluated with an empty ranking (absent from the run).
    """

    convention: Convention
    topics: np.ndarray  # object array of topic ids, evaluation order
    offsets: np.ndarray  # int64, len n_topics + 1
    grade: np.ndarray  # int64 per ranked row
    qoffsets: np.ndarray  # int64, len n_topics + 1
    qgrade: np.ndarray  # int64 per judged doc (>= 0), sorted desc within topic
    missing: np.ndarray  # bool per topic: not in the run
    n_pooled_unjudged: np.ndarray  # int64 per topic: qrels entries with negative grade
    run_row: np.ndarray  # int64 per ranked row: its row in ``run.table`` (line, doc, score from there)
    run_name: str = "run"
    notes: list[str] = field(default_factory=list)

    # ------------------------------------------------------------------ shape
    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def row_topic(self) -> np.ndarray:
        """Topic index of each ranked row (int32)."""
        return np.repeat(np.arange(self.n_topics, dtype=np.int32), self.num_ret)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of each ranked row within its topic."""
        r = np.arange(1, len(self.grade) + 1, dtype=np.int64)
        r -= np.repeat(self.offsets[:-1], self.num_ret)
        return r

    @cached_property
    def qrow_topic(self) -> np.ndarray:
        return np.repeat(np.arange(self.n_topics), np.diff(self.qoffsets))

    # ------------------------------------------------------------------ helpers for measures
    def seg_sum(self, values: np.ndarray, rows: str = "ranked") -> np.ndarray:
        """Per-topic sum of a per-row array, added sequentially in rank order (as trec_eval)."""
        idx = self.row_topic if rows == "ranked" else self.qrow_topic
        return np.bincount(idx, weights=values, minlength=self.n_topics)

    def seg_count(self, mask: np.ndarray, rows: str = "ranked") -> np.ndarray:
        idx = self.row_topic if rows == "ranked" else self.qrow_topic
        return np.bincount(idx[mask], minlength=self.n_topics).astype(np.int64)

    def rel_mask(self, rel: int) -> np.ndarray:
        """Ranked rows that are relevant at threshold ``rel`` (grade >= rel, judged).

        Cached per threshold and read-only (many measures ask for the same mask)."""
        cache = self.__dict__.setdefault("_rel_masks", {})
        m = cache.get(rel)
        if m is None:
            m = (self.grade >= rel) & (self.grade >= 0)
            m.flags.writeable = False
            cache[rel] = m
        return m

    def num_rel(self, rel: int) -> np.ndarray:
        """Relevant documents per topic in the qrels (R), at threshold ``rel``."""
        return self.seg_count(self.qgrade >= rel, rows="qrels")

    def num_judged_nonrel(self, rel: int) -> np.ndarray:
        """Judged non-relevant documents per topic (0 <= grade < rel)."""
        return self.seg_count(self.qgrade < rel, rows="qrels")

    def cum_count(self, mask: np.ndarray) -> np.ndarray:
        """Within-topic running count of ``mask`` up to and including each row.

        For a mask from :meth:`rel_mask` the result is cached (read-only)."""
        for rel, m in self.__dict__.get("_rel_masks", {}).items():
            if mask is m:
                cache = self.__dict__.setdefault("_rel_cum", {})
                if rel not in cache:
                    c = self._cum_count(mask)
                    c.flags.writeable = False
                    cache[rel] = c
                return cache[rel]
        return self._cum_count(mask)

    def _cum_count(self, mask: np.ndarray) -> np.ndarray:
        c = np.cumsum(mask, dtype=np.int64)
        starts = self.offsets[:-1]
        base = np.where(starts > 0, c[np.maximum(starts - 1, 0)], 0) if len(c) else np.zeros(len(starts), np.int64)
        c -= np.repeat(base, self.num_ret)
        return c

    def rows_where(self, mask: np.ndarray, k: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, topic, rank)`` of the ranked rows where ``mask`` holds (within the top ``k``
        when given): positions, topic index, 1-based rank; ascending, i.e. by topic in rank order.

        For measures that only add terms from a few rows (relevant ones, the top k): a sum
        over these rows in this order equals the dense per-row sum exactly (it only skips
        ``+ 0.0`` terms), without touching every row.
        """
        rows = np.flatnonzero(mask)
        topic = np.searchsorted(self.offsets, rows, side="right") - 1
        rank = rows - self.offsets[topic] + 1
        if k is not None:
            keep = rank <= k
            rows, topic, rank = rows[keep], topic[keep], rank[keep]
        return rows, topic, rank

    def at_cutoff(self, k: int) -> np.ndarray:
        """Mask of ranked rows within the top ``k`` of their topic."""
        return self.rank <= k


# ---------------------------------------------------------------------------------- prepare
def prepare(qrels: Qrels, run: Run, conv: Convention) -> Prepared:
    notes: list[str] = list(qrels.notes) + list(run.notes)

    qt = qrels.table
    rt = run.table
    n_run = rt.num_rows
    # ---- topics sorted by bytes (trec_eval strcmp order) and integer codes
    q_topic = _combined(qt.column("topic"))
    r_topic = rt.column("topic")
    q_topics = pc.unique(q_topic).to_pylist()
    r_doc = rt.column("doc")
    ri = _run_index_of(run)
    r_topics, r_blocks = ri.topics, ri.blocks
    all_topics = sorted(set(q_topics) | set(r_topics), key=lambda s: s.encode("utf-8"))
    code_of = {t: i for i, t in enumerate(all_topics)}
    topic_values = pa.array(all_topics, pa.string())
    q_tcode = _codes(q_topic, topic_values)
    r_tcode = ri.codes(code_of, topic_values)

    # ---- qrels keys: (topic, doc) with doc coded among the qrels' own documents
    q_doc = _combined(qt.column("doc"))
    qd_values = pc.unique(q_doc)
    nqd = max(len(qd_values), 1)
    q_key = q_tcode * nqd + _codes(q_doc, qd_values)
    # integer doc ids on both sides: join on topic * span + doc (no string hashing of the run)
    q_ints = _canonical_ints(q_doc) if ri.ints is not None and len(q_doc) else None
    span = 0
    if q_ints is not None:
        span = max(ri.ints_max, int(q_ints.max())) + 1
        if span * len(all_topics) >= 2**62 or int(q_ints.max()) - int(q_ints.min()) > 50_000_000:
            q_ints = None
    q_grade = qt.column("grade").to_numpy().astype(np.int64)
    q_line = qt.column("line").to_numpy()

    # ---- qrels duplicates
    q_dup = _duplicated(q_key, False)
    if q_dup.any():
        if conv.dups == "error":
            idx = np.flatnonzero(q_dup)
            first = idx[0]
            second = idx[q_key[idx] == q_key[first]][1]
            raise InputError(
                qrels.source,
                int(q_line[second]),
                f"duplicate judgment for topic {q_topic[first].as_py()!r} doc {q_doc[first].as_py()!r} "
                f"(first at line {int(q_line[first])}); choose dups=first or dups=last to keep one",
            )
        keep = ~_duplicated(q_key, conv.dups)
        notes.append(f"{qrels.source}: {int((~keep).sum())} duplicate judgment line(s) dropped (dups={conv.dups})")
        q_key, q_tcode, q_grade, q_line = q_key[keep], q_tcode[keep], q_grade[keep], q_line[keep]
        if q_ints is not None:
            q_ints = q_ints[keep]

    # ---- each run row's judgment (looked up once, in file order; rows move with it below)
    if q_ints is not None:
        judged = np.zeros(int(q_ints.max()) + 2, bool)  # last entry False: ids beyond the qrels'
        judged[q_ints] = True
        cand = np.flatnonzero(np.take(judged, ri.ints, mode="clip"))  # doc judged for some topic
        ckey = r_tcode[cand].astype(np.int64) * span + ri.ints[cand]
        q_key = q_tcode * span + q_ints
    else:
        r_qdoc = pc.fill_null(pc.index_in(r_doc, value_set=qd_values), -1).to_numpy()
        cand = np.flatnonzero(r_qdoc >= 0)  # rows whose doc is judged for some topic
        ckey = r_tcode[cand].astype(np.int64) * nqd + r_qdoc[cand].astype(np.int64)
        del r_qdoc
    qorder = np.argsort(q_key, kind="stable")
    q_sorted = q_key[qorder]
    r_found = np.zeros(n_run, bool)  # row's (topic, doc) is in the qrels
    hit_rows = np.zeros(0, np.int64)  # those rows, ascending, and their grades
    hit_grade = np.zeros(0, np.int64)
    if len(q_sorted) and len(ckey):
        pos = np.minimum(np.searchsorted(q_sorted, ckey), len(q_sorted) - 1)
        hit = q_sorted[pos] == ckey
        hit_rows = cand[hit]
        hit_grade = q_grade[qorder][pos[hit]]
        r_found[hit_rows] = True

    # ---- run rows kept (self hits, dups first/last), as indices into the run table
    rows = None
    if conv.self_hits == "drop":
        same = pc.equal(r_doc, r_topic).to_numpy(zero_copy_only=False)
        if same.any():
            notes.append(f"{run.source}: {int(same.sum())} row(s) whose doc id equals the topic id dropped (self_hits=drop)")
            rows = np.flatnonzero(~same)
    doc_keys = None if ri.unique else _DocKeys(r_doc, r_tcode, len(all_topics))
    if conv.dups in ("first", "last") and doc_keys is not None:
        dup = doc_keys.duplicated(rows, conv.dups) if doc_keys.any(rows, r_blocks if rows is None else None) else None
        if dup is not None:
            notes.append(f"{run.source}: {int(dup.sum())} duplicate result line(s) dropped (dups={conv.dups})")
            rows = np.flatnonzero(~dup) if rows is None else rows[~dup]

    def sub(a: np.ndarray) -> np.ndarray:
        return a if rows is None else a[rows]

    # float32: C float sim; comparing float32 values orders exactly as their float64 images
    r_score = sub(_to_numpy(rt.column("score"), np.float32 if conv.sim == "float32" else np.float64))
    sel_doc = r_doc if rows is None else r_doc.take(pa.array(rows))
    sel_rank = sub(rt.column("rank").to_numpy()) if conv.ties == "rank" else None
    sel_line = sub(rt.column("line").to_numpy()) if conv.ties in ("rank", "file-order") else None

    # ---- sort (ties)
    sel_tcode = sub(r_tcode)
    order = _presorted_order(sel_tcode, r_score, sel_doc, sel_line, conv.ties)
    if order is None:
        order = _sort_order(sel_tcode, r_score, sel_doc, sel_rank, sel_line, conv.ties)
    del sel_tcode
    del r_score, sel_doc
    rows = order if rows is None else rows[order]
    r_tcode = r_tcode[rows]

    # ---- depth
    counts = np.bincount(r_tcode, minlength=len(all_topics))
    if conv.depth != "all":
        starts = np.concatenate(([0], np.cumsum(counts)))
        pos = np.arange(len(r_tcode)) - starts[r_tcode]
        keep = pos < conv.depth
        n_cut = int((~keep).sum())
        if n_cut:
            notes.append(f"{run.source}: {n_cut} result line(s) below depth {conv.depth} not evaluated (depth={conv.depth})")
            rows, r_tcode = rows[keep], r_tcode[keep]
            counts = np.minimum(counts, conv.depth)

    # ---- duplicates as errors (after depth, as trec_eval)
    if conv.dups == "error" and doc_keys is not None:
        if len(rows) == n_run:  # every row (any order): look in file order, by file blocks
            found = doc_keys.any(None, r_blocks)
        else:
            found = doc_keys.any(rows, counts)
        dup = doc_keys.duplicated(rows, False) if found else None
        if dup is not None:
            idx = np.flatnonzero(dup)
            same = idx[doc_keys.same_as(rows, idx)]
            r_line = rt.column("line").to_numpy()
            lines = sorted(int(r_line[rows[i]]) for i in same)
            t = all_topics[int(r_tcode[same[0]])]
            doc = r_doc[int(rows[same[0]])].as_py()
            raise InputError(
                run.source,
                lines[1],
                f"duplicate result for topic {t!r} doc {doc!r} (first at line {lines[0]}); "
                "choose dups=first or dups=last to keep one",
            )
    del doc_keys

    # ---- judgments
    found = r_found[rows]
    del r_found
    grade = np.full(len(rows), NONPOOL, dtype=np.int64)
    fpos = np.flatnonzero(found)
    grade[fpos] = hit_grade[np.searchsorted(hit_rows, rows[fpos])]
    if conv.negatives == "pooled":
        grade[found & (grade < 0)] = UNJUDGED
        q_neg = q_grade < 0
    else:
        grade[found & (grade < 0)] = 0
        q_neg = np.zeros(len(q_grade), bool)
        q_grade = np.maximum(q_grade, 0)

    if conv.unjudged == "drop":
        keep = grade >= 0
        n_drop = int((~keep).sum())
        if n_drop:
            notes.append(f"{run.source}: {n_drop} unjudged result(s) removed before measuring (unjudged=drop)")
        r_tcode, grade, rows = r_tcode[keep], grade[keep], rows[keep]

    # ---- topic set
    in_run = np.zeros(len(all_topics), bool)
    in_run[[code_of[t] for t in r_topics]] = True
    in_qrels = np.zeros(len(all_topics), bool)
    in_qrels[np.unique(q_tcode)] = True
    if conv.topics == "both":
        chosen = in_run & in_qrels
    elif conv.topics in ("qrels", "strict"):
        chosen = in_qrels.copy()
        if conv.topics == "strict":
            lacking = np.flatnonzero(in_qrels & ~in_run)
            if len(lacking):
                names = ", ".join(repr(all_topics[i]) for i in lacking[:5])
                raise EvaluationError(
                    f"{len(lacking)} qrels topic(s) missing from run {run.source}: {names}"
                    f"{' ...' if len(lacking) > 5 else ''} (topics=strict, as trec_eval 10 without -c; "
                    "use topics=qrels to score them 0 or topics=both to skip them)"
                )
    else:  # run
        chosen = in_run.copy()
    run_only = np.flatnonzero(in_run & ~in_qrels)
    if len(run_only) and conv.topics != "run":
        notes.append(
            f"{run.source}: {len(run_only)} run topic(s) without judgments not evaluated: "
            + ", ".join(repr(all_topics[i]) for i in run_only[:5])
            + (" ..." if len(run_only) > 5 else "")
        )
    qrels_only = np.flatnonzero(in_qrels & ~in_run)
    if len(qrels_only):
        how = "scored as empty rankings" if conv.topics in ("qrels",) else "not evaluated"
        if conv.topics != "run":
            notes.append(
                f"{run.source}: {len(qrels_only)} qrels topic(s) absent from the run {how} (topics={conv.topics}): "
                + ", ".join(repr(all_topics[i]) for i in qrels_only[:5])
                + (" ..." if len(qrels_only) > 5 else "")
            )

    # remap topic codes to evaluated positions
    chosen_idx = np.flatnonzero(chosen)
    newcode = np.full(len(all_topics), -1, dtype=np.int64)
    newcode[chosen_idx] = np.arange(len(chosen_idx))
    if chosen.all():
        rt_new = r_tcode  # every topic evaluated: codes unchanged
    else:
        rsel = newcode[r_tcode] >= 0
        grade, rows = grade[rsel], rows[rsel]
        rt_new = newcode[r_tcode[rsel]]  # already grouped by topic in ascending code order
    offsets = np.concatenate(([0], np.cumsum(np.bincount(rt_new, minlength=len(chosen_idx)))))

    qsel = newcode[q_tcode] >= 0
    qt_new = newcode[q_tcode[qsel]]
    qg = q_grade[qsel]
    qn = q_neg[qsel]
    n_pooled_unjudged = np.bincount(qt_new[qn], minlength=len(chosen_idx)).astype(np.int64)
    qt_pos, qg_pos = qt_new[~qn], qg[~qn]
    qord = np.lexsort((-qg_pos, qt_pos))
    qgrade = qg_pos[qord]
    qoffsets = np.concatenate(([0], np.cumsum(np.bincount(qt_pos, minlength=len(chosen_idx)))))

    return Prepared(
        convention=conv,
        topics=np.array([all_topics[i] for i in chosen_idx], dtype=object),
        offsets=offsets.astype(np.int64),
        grade=grade,
        qoffsets=qoffsets.astype(np.int64),
        qgrade=qgrade,
        missing=~in_run[chosen_idx],
        n_pooled_unjudged=n_pooled_unjudged,
        run_row=rows.astype(np.int64, copy=False),
        run_name=run.name,
        notes=notes,
    )


# ---------------------------------------------------------------------------------- helpers
def _to_numpy(col: pa.ChunkedArray | pa.Array, dtype) -> np.ndarray:
    """A numeric column as one numpy array of ``dtype``, filled chunk by chunk (no temporary)."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    out = np.empty(len(col), dtype)
    at = 0
    for c in chunks:
        out[at : at + len(c)] = c.to_numpy(zero_copy_only=False)
        at += len(c)
    return out


def _combined(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def _codes(arr: pa.Array | pa.ChunkedArray, values: pa.Array) -> np.ndarray:
    """Position of each element of ``arr`` in ``values`` (every element must be there)."""
    return pc.index_in(arr, value_set=values).to_numpy().astype(np.int64)


@dataclass(eq=False)
class _RunIndex:
    """What :func:`prepare` needs from a run's topic and doc columns, computed once per run
    (the trec_eval drop-in checks duplicates before preparing: the same work)."""

    topics: list[str]  # distinct topics, by first appearance
    codes: Callable[[dict, pa.Array], np.ndarray]  # (code_of, values) -> topic code per row
    blocks: np.ndarray | None  # sizes of the one-topic blocks in file order, if contiguous
    ints: np.ndarray | None  # doc ids as int64 when all are canonical decimal
    ints_max: int
    unique: bool  # no (topic, doc) pair occurs twice


_RUN_INDEX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Run -> _RunIndex


def _run_index_of(run: Run) -> _RunIndex:
    """The run's index, computed once while the :class:`Run` object lives."""
    ri = _RUN_INDEX.get(run)
    if ri is None:
        ri = _run_index(run.table.column("topic"), run.table.column("doc"))
        _RUN_INDEX[run] = ri
    return ri


def _run_index(topic: pa.ChunkedArray, doc: pa.ChunkedArray) -> _RunIndex:
    topics, codes, blocks = _run_topic_codes(topic)
    ints = _canonical_ints(doc)
    ints_max = int(ints.max()) if ints is not None and len(ints) else 0
    n_t = max(len(topics), 1)
    if ints is not None and (ints_max + 1) * n_t >= 2**62:
        ints = None
    local = {t: i for i, t in enumerate(topics)}
    if ints is not None:
        def key() -> np.ndarray:
            return codes(local, pa.array(topics, pa.string())).astype(np.int64) * (ints_max + 1) + ints

        unique = not _any_dup_int(ints, blocks, key)
    else:
        tcode = codes(local, pa.array(topics, pa.string()))
        unique = _DocKeys(doc, tcode, 0, ints=False).duplicated(None, False) is None
    return _RunIndex(topics, codes, blocks, ints, ints_max, unique)


def _run_topic_codes(col: pa.ChunkedArray):
    """The run's distinct topics and a function giving every row's topic code.

    Runs list each topic in one contiguous block (almost always): the blocks are found by
    comparing neighbours and the codes repeated per block, which avoids hashing every row.
    Otherwise rows are looked up in the topic dictionary. Also returns the block sizes in
    file order (None when a topic appears in several blocks).
    """
    n = len(col)
    if n:
        change = pc.not_equal(col.slice(1), col.slice(0, n - 1)).to_numpy(zero_copy_only=False)
        starts = np.concatenate(([0], np.flatnonzero(change) + 1))
        heads = col.take(pa.array(starts)).to_pylist()
        if len(set(heads)) == len(heads):
            lengths = np.diff(np.append(starts, n))

            def by_block(code_of, values):
                return np.repeat(np.array([code_of[h] for h in heads], dtype=np.int32), lengths)

            return heads, by_block, lengths
    return pc.unique(col).to_pylist(), lambda code_of, values: _codes(col, values).astype(np.int32), None


def has_duplicate_pairs(run: Run | pa.ChunkedArray | pa.Array, doc: pa.ChunkedArray | pa.Array | None = None) -> bool:
    """Whether some (topic, doc) pair of a :class:`Run` (or of two columns, topic and doc)
    occurs twice; fast (no per-row Python, no string hashing). For a Run the work is
    shared with :func:`prepare` of the same Run object."""
    if isinstance(run, Run):
        return not _run_index_of(run).unique
    topic = run
    if isinstance(topic, pa.Array):
        topic, doc = pa.chunked_array([topic]), pa.chunked_array([doc])
    return not _run_index(topic, doc).unique


def _duplicated(keys: np.ndarray, keep) -> np.ndarray:
    """``pandas.Series(keys).duplicated(keep=keep)`` (keep: ``"first"``, ``"last"`` or False)."""
    if len(keys) < 2:
        return np.zeros(len(keys), bool)
    order = np.argsort(keys, kind="stable")
    s = keys[order]
    return _repeats_mask(s[1:] == s[:-1], order, keep)  # stable: file order within equal keys


def _repeats_mask(eq: np.ndarray, order: np.ndarray, keep) -> np.ndarray:
    """Duplicate mask in original row order, from ``eq[i]`` = sorted row i+1 repeats row i.

    ``order`` maps sorted positions to rows (stable, so file order within a repeated key);
    ``keep`` as pandas: ``"first"`` marks every repeat but the first, ``"last"`` all but the
    last, False all of them.
    """
    n = len(order)
    m = np.zeros(n, bool)
    if keep == "first":
        m[1:] = eq
    elif keep == "last":
        m[:-1] = eq
    else:
        m[1:] = eq
        m[:-1] |= eq
    out = np.zeros(n, bool)
    out[order] = m
    return out


class _DocKeys:
    """Exact (topic, doc) identity of run rows, for duplicate detection.

    Canonical decimal doc ids (digits, no leading zero: MS MARCO, most numeric collections)
    become ``topic * (max + 1) + int(doc)`` int64 keys; any other doc id set is compared as
    strings through an Arrow sort.
    """

    def __init__(self, doc: pa.ChunkedArray, tcode: np.ndarray, n_topics: int, ints: bool = True):
        self.doc = doc
        self.tcode = tcode
        self.key = None
        ints = _canonical_ints(doc) if ints else None
        if ints is not None and len(ints):
            span = int(ints.max()) + 1
            if span * max(n_topics, 1) < 2**62:
                self.key = tcode.astype(np.int64) * span + ints

    def any(self, rows: np.ndarray | None, blocks) -> bool:
        """Whether a (topic, doc) pair repeats among ``rows`` (all rows when None).

        ``blocks``: sizes of the consecutive one-topic blocks ``rows`` fall into (each block is
        then sorted on its own), or None.
        """
        if self.key is not None:
            key = self.key if rows is None else self.key[rows]
            return _any_dup_int(key, blocks, lambda: key)
        return self.duplicated(rows, False) is not None

    def duplicated(self, rows: np.ndarray | None, keep) -> np.ndarray | None:
        """Duplicate mask over ``rows`` (all rows when None; ``keep`` as pandas), or None when there is none."""
        if self.key is not None:
            key = self.key if rows is None else self.key[rows]
            mask = _duplicated(key, keep)
            return mask if mask.any() else None
        n = len(self.tcode) if rows is None else len(rows)
        if n < 2:
            return None
        rows_ = np.arange(n) if rows is None else rows
        table = pa.table({"t": self.tcode[rows_], "d": self.doc.take(pa.array(rows_)), "r": rows_})
        order = pc.sort_indices(table, sort_keys=[("t", "ascending"), ("d", "ascending"), ("r", "ascending")]).to_numpy()
        st = table.take(pa.array(order))
        t, d = st.column("t").to_numpy(), st.column("d")
        eq = (t[1:] == t[:-1]) & pc.equal(d.slice(1), d.slice(0, n - 1)).to_numpy(zero_copy_only=False)
        if not eq.any():
            return None
        return _repeats_mask(eq, order, keep)

    def same_as(self, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Mask over ``idx`` (positions in ``rows``): same (topic, doc) as ``idx[0]``."""
        r = rows[idx]
        same_t = self.tcode[r] == self.tcode[r[0]]
        doc0 = self.doc[int(r[0])].as_py()
        same_d = pc.equal(self.doc.take(pa.array(r)), doc0).to_numpy(zero_copy_only=False)
        return same_t & same_d


def _canonical_ints(doc: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """int64 values of doc ids when every id is canonical decimal (``0`` or ``[1-9][0-9]*``)."""
    if doc.null_count or not (pa.types.is_string(doc.type) or pa.types.is_large_string(doc.type)):
        return None
    # Arrow also reads "-5", "007", "0x1F": reject any id starting with '-' or with '0' + more.
    chunks = doc.chunks if isinstance(doc, pa.ChunkedArray) else [doc]
    off_type = np.int64 if pa.types.is_large_string(doc.type) else np.int32
    out = np.empty(len(doc), np.int32)  # int64 once an id needs it
    at = 0
    for c in chunks:
        if not len(c):
            continue
        try:
            v = pc.cast(c, pa.int64()).to_numpy()
        except (pa.ArrowInvalid, pa.ArrowNotImplementedError):
            return None
        if out.dtype == np.int32 and (v.max() > 2**31 - 1 or v.min() < 0):
            out = out.astype(np.int64)
        out[at : at + len(c)] = v
        at += len(c)
        offs = np.frombuffer(c.buffers()[1], dtype=off_type)[c.offset : c.offset + len(c) + 1]
        data = np.frombuffer(c.buffers()[2], dtype=np.uint8)
        lengths = np.diff(offs)
        if (lengths == 0).any():
            return None
        first = data[offs[:-1]]
        if ((first == ord("-")) | ((first == ord("0")) & (lengths > 1))).any():
            return None
    return out


def _any_dup_int(values: np.ndarray, blocks, key: Callable[[], np.ndarray]) -> bool:
    """Whether a (topic, doc) pair repeats: ``values`` identify docs within a one-topic block
    (``blocks``: see :meth:`_DocKeys.any`), ``key()`` gives (topic, doc) keys for the general case."""
    if len(values) < 2:
        return False
    if blocks is not None:
        sizes = np.asarray(blocks)
        sizes = sizes[sizes > 0]
        if len(sizes) and (sizes == sizes[0]).all() and sizes[0] * len(sizes) == len(values):
            # equal-sized topic blocks (a run of k documents per topic): sort each block
            if values.dtype != np.int32 and values.max() < 2**31 and values.min() >= -(2**31):
                values = values.astype(np.int32)  # sorts several times faster
            s = np.sort(values.reshape(len(sizes), int(sizes[0])), axis=1)
            return bool((s[:, 1:] == s[:, :-1]).any())
    s = np.sort(key())
    return bool((s[1:] == s[:-1]).any())


def _presorted_order(
    tcode: np.ndarray, score: np.ndarray, doc: pa.Array | pa.ChunkedArray, line: np.ndarray | None, ties: str
) -> np.ndarray | None:
    """:func:`_sort_order` for a run already ranked the usual way, or None.

    Usual: each topic in one block of rows, scores non-increasing within it (no NaN). Then
    the order is the blocks by topic code, rows in place, except runs of tied scores, which
    alone are sorted (by docno; for ``file-order`` they stay). Equal to the full stable sort.
    """
    n = len(tcode)
    if ties not in ("docno-desc", "docno-asc", "file-order") or n < 2:
        return None
    if ties == "file-order" and not (np.diff(line) > 0).all():
        return None
    same = tcode[1:] == tcode[:-1]
    starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
    btopic = tcode[starts]
    if len(np.unique(btopic)) != len(btopic):
        return None  # a topic in several blocks
    if np.isnan(score).any() or (same & (score[1:] > score[:-1])).any():
        return None
    # blocks in topic-code order: position j of new block k holds file row j + shift[k]
    border = np.argsort(btopic, kind="stable")
    lengths = np.diff(np.append(starts, n))[border]
    new_starts = np.concatenate(([0], np.cumsum(lengths)[:-1]))
    shift = starts[border] - new_starts
    itype = np.int32 if n < 2**31 else np.int64
    pos = np.ones(n, itype)
    pos[0] = shift[0]
    pos[new_starts[1:]] += np.diff(shift).astype(itype)
    np.cumsum(pos, out=pos)  # j + shift[k]
    tie = same & (score[1:] == score[:-1])  # row i and i + 1 tied
    if ties != "file-order" and tie.any():
        in_group = np.zeros(n, bool)
        in_group[:-1] |= tie
        in_group[1:] |= tie
        idx = np.flatnonzero(in_group)
        head = np.ones(len(idx), bool)  # a tie group starts where row i is not tied to i - 1
        head[1:] = ~tie[idx[1:] - 1]
        gid = np.cumsum(head)
        sub = pa.table({"g": gid, "d": doc.take(pa.array(idx)), "i": idx})
        direction = "descending" if ties == "docno-desc" else "ascending"
        o = pc.sort_indices(sub, sort_keys=[("g", "ascending"), ("d", direction), ("i", "ascending")]).to_numpy()
        block = np.searchsorted(starts, idx, side="right") - 1
        new_block = np.empty(len(border), np.int64)
        new_block[border] = np.arange(len(border))
        pos[idx - shift[new_block[block]]] = idx[o]  # each tie group reordered in place
    return pos


def _sort_order(
    tcode: np.ndarray, score: np.ndarray, doc: pa.Array | pa.ChunkedArray, rank: np.ndarray | None, line: np.ndarray | None, ties: str
) -> np.ndarray:
    """Row order: topic ascending, then the tie rule (see the ``ties`` axis).

    ``rank`` is needed for ``ties=rank`` only, ``line`` (file line numbers) for ``rank`` and
    ``file-order`` only.
    """
    cols = {"t": pa.array(tcode), "s": pa.array(score)}
    if line is not None:
        cols["l"] = pa.array(line)
    if ties == "rank":
        keys = [("t", "ascending"), ("r", "ascending"), ("l", "ascending")]
        cols["r"] = pa.array(rank)
    elif ties == "file-order":
        keys = [("t", "ascending"), ("s", "descending"), ("l", "ascending")]
    elif ties == "docno-desc":
        keys = [("t", "ascending"), ("s", "descending"), ("d", "descending")]
        cols["d"] = doc
    elif ties == "docno-asc":
        keys = [("t", "ascending"), ("s", "descending"), ("d", "ascending")]
        cols["d"] = doc
    elif ties == "docno-asc-numeric":
        numeric = pc.match_substring_regex(doc, r"^[0-9]+$")
        cols["nn"] = pc.invert(numeric)
        # exact numeric order of digit strings of any length: (digits without leading zeros,
        # shorter first, then bytewise); a float64 key would tie 99999999999999999 and 1e17
        digits = pc.if_else(numeric, pc.utf8_ltrim(doc, characters="0"), "")
        cols["nl"] = pc.utf8_length(digits)
        cols["nd"] = digits
        cols["d"] = doc
        keys = [("t", "ascending"), ("s", "descending"), ("nn", "ascending"), ("nl", "ascending"), ("nd", "ascending"), ("d", "ascending")]
    else:  # pragma: no cover - Convention validates
        raise AssertionError(ties)
    table = pa.table(cols)
    return pc.sort_indices(table, sort_keys=keys).to_numpy()
