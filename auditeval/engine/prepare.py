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

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pandas as pd
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
        """Topic index of each ranked row."""
        return np.repeat(np.arange(self.n_topics), self.num_ret)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of each ranked row within its topic."""
        return np.arange(len(self.grade), dtype=np.int64) - self.offsets[self.row_topic] + 1

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
        """Ranked rows that are relevant at threshold ``rel`` (grade >= rel, judged)."""
        return (self.grade >= rel) & (self.grade >= 0)

    def num_rel(self, rel: int) -> np.ndarray:
        """Relevant documents per topic in the qrels (R), at threshold ``rel``."""
        return self.seg_count(self.qgrade >= rel, rows="qrels")

    def num_judged_nonrel(self, rel: int) -> np.ndarray:
        """Judged non-relevant documents per topic (0 <= grade < rel)."""
        return self.seg_count(self.qgrade < rel, rows="qrels")

    def cum_count(self, mask: np.ndarray) -> np.ndarray:
        """Within-topic running count of ``mask`` up to and including each row."""
        c = np.cumsum(mask, dtype=np.int64)
        base = np.concatenate(([0], c))[self.offsets[:-1]]
        return c - base[self.row_topic]

    def at_cutoff(self, k: int) -> np.ndarray:
        """Mask of ranked rows within the top ``k`` of their topic."""
        return self.rank <= k


# ---------------------------------------------------------------------------------- prepare
def prepare(qrels: Qrels, run: Run, conv: Convention) -> Prepared:
    notes: list[str] = list(qrels.notes) + list(run.notes)

    qt = qrels.table
    rt = run.table
    # ---- shared dictionaries: topics sorted by bytes (trec_eval strcmp order)
    q_topic = qt.column("topic").combine_chunks() if isinstance(qt.column("topic"), pa.ChunkedArray) else qt.column("topic")
    r_topic = rt.column("topic").combine_chunks() if isinstance(rt.column("topic"), pa.ChunkedArray) else rt.column("topic")
    q_topics = pc.unique(q_topic)
    r_topics = pc.unique(r_topic)
    all_topics = sorted(set(q_topics.to_pylist()) | set(r_topics.to_pylist()), key=lambda s: s.encode("utf-8"))
    topic_values = pa.array(all_topics, pa.string())
    q_tcode = pc.index_in(q_topic, value_set=topic_values).to_numpy(zero_copy_only=False).astype(np.int64)
    r_tcode = pc.index_in(r_topic, value_set=topic_values).to_numpy(zero_copy_only=False).astype(np.int64)

    docs = pa.chunked_array([qt.column("doc").combine_chunks(), rt.column("doc").combine_chunks()]).combine_chunks()
    dcodes = pc.dictionary_encode(docs).indices.to_numpy(zero_copy_only=False).astype(np.int64)
    nq = qt.num_rows
    q_dcode, r_dcode = dcodes[:nq], dcodes[nq:]
    ndoc = int(dcodes.max()) + 1 if len(dcodes) else 1
    q_key = q_tcode * ndoc + q_dcode
    r_key = r_tcode * ndoc + r_dcode

    q_grade = qt.column("grade").to_numpy().astype(np.int64)
    q_line = qt.column("line").to_numpy()

    # ---- qrels duplicates
    q_dup = pd.Series(q_key).duplicated(keep=False).to_numpy()
    if q_dup.any():
        if conv.dups == "error":
            idx = np.flatnonzero(q_dup)
            first = idx[0]
            second = idx[q_key[idx] == q_key[first]][1]
            raise InputError(
                qrels.source,
                int(q_line[second]),
                f"duplicate judgment for topic {q_topic[first].as_py()!r} doc {qt.column('doc')[first].as_py()!r} "
                f"(first at line {int(q_line[first])}); choose dups=first or dups=last to keep one",
            )
        keep = ~pd.Series(q_key).duplicated(keep=conv.dups).to_numpy()
        notes.append(f"{qrels.source}: {int((~keep).sum())} duplicate judgment line(s) dropped (dups={conv.dups})")
        q_key, q_tcode, q_grade, q_line = q_key[keep], q_tcode[keep], q_grade[keep], q_line[keep]

    # ---- run rows
    r_score = rt.column("score").to_numpy()
    r_rank = rt.column("rank").to_numpy()
    r_line = rt.column("line").to_numpy()
    r_doc = rt.column("doc")
    sel = None
    if conv.self_hits == "drop":
        same = pc.equal(r_doc, r_topic).to_numpy(zero_copy_only=False)
        if same.any():
            notes.append(f"{run.source}: {int(same.sum())} row(s) whose doc id equals the topic id dropped (self_hits=drop)")
            sel = ~same
    if conv.dups in ("first", "last"):
        keys = r_key if sel is None else r_key[sel]
        dup = pd.Series(keys).duplicated(keep=conv.dups).to_numpy()
        if dup.any():
            notes.append(f"{run.source}: {int(dup.sum())} duplicate result line(s) dropped (dups={conv.dups})")
            keep_idx = np.flatnonzero(~dup) if sel is None else np.flatnonzero(sel)[~dup]
            sel = np.zeros(len(r_key), bool)
            sel[keep_idx] = True
    if sel is not None:
        r_tcode, r_key, r_score, r_rank, r_line = r_tcode[sel], r_key[sel], r_score[sel], r_rank[sel], r_line[sel]
        r_doc = r_doc.filter(pa.array(sel))

    if conv.sim == "float32":
        r_score = r_score.astype(np.float32).astype(np.float64)

    # ---- sort (ties)
    order = _sort_order(r_tcode, r_score, r_doc, r_rank, r_line, conv.ties)
    r_tcode, r_key, r_line = r_tcode[order], r_key[order], r_line[order]

    # ---- depth
    counts = np.bincount(r_tcode, minlength=len(all_topics))
    starts = np.concatenate(([0], np.cumsum(counts)))
    pos = np.arange(len(r_tcode)) - starts[r_tcode]
    if conv.depth != "all":
        keep = pos < conv.depth
        n_cut = int((~keep).sum())
        if n_cut:
            notes.append(f"{run.source}: {n_cut} result line(s) below depth {conv.depth} not evaluated (depth={conv.depth})")
            r_tcode, r_key, r_line = r_tcode[keep], r_key[keep], r_line[keep]

    # ---- duplicates as errors (after depth, as trec_eval)
    if conv.dups == "error":
        dup = pd.Series(r_key).duplicated(keep=False).to_numpy()
        if dup.any():
            idx = np.flatnonzero(dup)
            same = idx[r_key[idx] == r_key[idx[0]]]
            lines = sorted(int(r_line[i]) for i in same)
            t = all_topics[int(r_tcode[same[0]])]
            doc = docs[int(nq + _row_of_line(rt, lines[0]))].as_py()
            raise InputError(
                run.source,
                lines[1],
                f"duplicate result for topic {t!r} doc {doc!r} (first at line {lines[0]}); "
                "choose dups=first or dups=last to keep one",
            )

    # ---- judgments
    qorder = np.argsort(q_key, kind="stable")
    q_sorted = q_key[qorder]
    pos_in_q = np.searchsorted(q_sorted, r_key)
    pos_in_q_clipped = np.minimum(pos_in_q, max(len(q_sorted) - 1, 0))
    found = (len(q_sorted) > 0) & (q_sorted[pos_in_q_clipped] == r_key) if len(q_sorted) else np.zeros(len(r_key), bool)
    grade = np.full(len(r_key), NONPOOL, dtype=np.int64)
    grade[found] = q_grade[qorder][pos_in_q_clipped[found]]
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
        r_tcode, grade = r_tcode[keep], grade[keep]

    # ---- topic set
    in_run = np.zeros(len(all_topics), bool)
    in_run[np.unique(r_tcode_all := _codes(r_topic, topic_values))] = True
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
    del r_tcode_all
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
    rsel = newcode[r_tcode] >= 0
    grade = grade[rsel]
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
        run_name=run.name,
        notes=notes,
    )


def _codes(arr: pa.Array, values: pa.Array) -> np.ndarray:
    return pc.index_in(arr, value_set=values).to_numpy(zero_copy_only=False).astype(np.int64)


def _row_of_line(table: pa.Table, line: int) -> int:
    lines = table.column("line").to_numpy()
    return int(np.flatnonzero(lines == line)[0])


def _sort_order(tcode: np.ndarray, score: np.ndarray, doc: pa.Array, rank: np.ndarray, line: np.ndarray, ties: str) -> np.ndarray:
    """Row order: topic ascending, then the tie rule (see the ``ties`` axis)."""
    cols = {"t": pa.array(tcode), "s": pa.array(score), "l": pa.array(line)}
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
        cols["dn"] = pc.cast(pc.if_else(numeric, doc, "0"), pa.float64())
        cols["d"] = doc
        keys = [("t", "ascending"), ("s", "descending"), ("nn", "ascending"), ("dn", "ascending"), ("d", "ascending")]
    else:  # pragma: no cover - Convention validates
        raise AssertionError(ties)
    table = pa.table(cols)
    return pc.sort_indices(table, sort_keys=keys).to_numpy()
