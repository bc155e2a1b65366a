"""Row orders for the ``ties`` axis: the full sort and the fast path for runs already ranked.

Both return the permutation of the (kept) run rows that puts them topic by topic (ascending
topic code, i.e. byte order of topic ids) in rank order under the tie rule.

NaN scores (every reader reads ``nan`` as C ``atof`` does, with a note) sort after every number,
except under ``ties=docno-desc``, trec_eval's rule: its comparator (form_res_rels.c
``comp_sim_docno``: sim descending, then ``strcmp(docno2, docno1)``) is inconsistent with a
NaN (neither greater nor smaller), so the order is whatever glibc's ``qsort`` -- a merge sort
(msort.c) -- makes of it, starting from the docno-ascending order get_trec_results.c leaves.
:func:`trec_nan_scores` replays that merge sort for the topics holding a NaN only and gives
their rows strictly decreasing scores in the resulting order.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa

from auditeval.engine.glibc_sort import glibc_msort
from auditeval.engine.ids import take_rows
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy, unique


def _cmp_sim_docno(a: tuple[float, bytes, int], b: tuple[float, bytes, int]) -> int:
    if a[0] > b[0]:
        return -1
    if a[0] < b[0]:
        return 1
    return (b[1] > a[1]) - (b[1] < a[1])


def trec_nan_scores(tcode: np.ndarray, score: np.ndarray, doc: pa.Array | pa.ChunkedArray) -> np.ndarray:
    """``score`` with the rows of every topic holding a NaN rescored ``n, n-1, ..., 1`` in
    trec_eval's qsort order (see the module docstring); other topics untouched. Python
    per NaN topic: such topics are rare and small (a NaN comes from a broken scorer)."""
    new = score.copy()
    for t in unique(tcode[np.isnan(score)]):
        rows = np.flatnonzero(tcode == t)
        docs = [d.encode("utf-8") for d in pc.take(doc, from_numpy(rows)).to_pylist()]
        start = sorted(range(len(rows)), key=lambda i: docs[i])  # get_trec_results.c: by (qid, docno)
        items = [(float(score[rows[i]]), docs[i], int(rows[i])) for i in start]
        ordered = glibc_msort(items, _cmp_sim_docno)
        new[[it[2] for it in ordered]] = np.arange(len(ordered), 0, -1, dtype=np.float64)
    return new


def _adjacent(score: np.ndarray | pa.ChunkedArray) -> tuple[bool, np.ndarray, np.ndarray]:
    """Whether ``score`` holds a NaN, and per row pair (i, i + 1) ``score[i+1] > score[i]``
    and ``score[i+1] == score[i]``: chunk by chunk for a float64 Arrow column (no float64
    copy of a whole run's scores), the same comparisons of the same doubles."""
    chunks = score.chunks if isinstance(score, pa.ChunkedArray) else [score]
    n = len(score)
    gt, eq = np.empty(max(n - 1, 0), bool), np.empty(max(n - 1, 0), bool)
    nan, at, prev = False, 0, None
    for c in chunks:
        a = c if isinstance(c, np.ndarray) else c.to_numpy(zero_copy_only=False)
        if not len(a):
            continue
        nan = nan or bool(np.isnan(a).any())
        if prev is not None:  # the pair across the chunk boundary
            gt[at - 1], eq[at - 1] = a[0] > prev, a[0] == prev
        np.greater(a[1:], a[:-1], out=gt[at : at + len(a) - 1])
        np.equal(a[1:], a[:-1], out=eq[at : at + len(a) - 1])
        prev, at = a[-1], at + len(a)
    return nan, gt, eq


def presorted_order(
    tcode: np.ndarray, score: np.ndarray | pa.ChunkedArray, doc: pa.Array | pa.ChunkedArray, line: np.ndarray | None,
    ties: str,
) -> np.ndarray | None:
    """:func:`sort_order` for a run already ranked the usual way, or None.

    Usual: each topic in one block of rows, scores non-increasing within it (no NaN). Then
    the order is the blocks by topic code, rows in place, except runs of tied scores, which
    alone are sorted (by docno; for ``file-order`` they stay). Equal to the full stable sort.
    ``score``: float64 or float32 values, or the run's float64 Arrow column as read.
    """
    n = len(tcode)
    if ties not in ("docno-desc", "docno-asc", "file-order") or n < 2:
        return None
    if ties == "file-order" and not (np.diff(line) > 0).all():
        return None
    same = tcode[1:] == tcode[:-1]
    starts = np.concatenate(([0], np.flatnonzero(~same) + 1))
    btopic = tcode[starts]
    if len(unique(btopic)) != len(btopic):
        return None  # a topic in several blocks
    nan, gt, tie = _adjacent(score)
    if nan or (same & gt).any():
        return None
    del gt
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
    np.logical_and(tie, same, out=tie)  # row i and i + 1 tied
    if ties != "file-order" and tie.any():
        in_group = np.zeros(n, bool)
        in_group[:-1] |= tie
        in_group[1:] |= tie
        idx = np.flatnonzero(in_group)
        head = np.ones(len(idx), bool)  # a tie group starts where row i is not tied to i - 1
        head[1:] = ~tie[idx[1:] - 1]
        gid = np.cumsum(head)
        sub = pa.table({"g": from_numpy(gid), "d": take_rows(doc, idx), "i": from_numpy(idx)})
        direction = "descending" if ties == "docno-desc" else "ascending"
        o = pc.sort_indices(sub, sort_keys=[("g", "ascending"), ("d", direction), ("i", "ascending")]).to_numpy()
        block = np.searchsorted(starts, idx, side="right") - 1
        new_block = np.empty(len(border), np.int64)
        new_block[border] = np.arange(len(border))
        pos[idx - shift[new_block[block]]] = idx[o]  # each tie group reordered in place
    return pos


def sort_order(
    tcode: np.ndarray, score: np.ndarray, doc: pa.Array | pa.ChunkedArray, rank: np.ndarray | None, line: np.ndarray | None, ties: str
) -> np.ndarray:
    """Row order: topic ascending, then the tie rule (see the ``ties`` axis).

    ``rank`` is needed for ``ties=rank`` only, ``line`` (file line numbers) for ``rank`` and
    ``file-order`` only.
    """
    cols = {"t": from_numpy(tcode), "s": from_numpy(score)}
    if line is not None:
        cols["l"] = from_numpy(line)
    if ties == "rank":
        keys = [("t", "ascending"), ("r", "ascending"), ("l", "ascending")]
        cols["r"] = from_numpy(rank)
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

