"""Row orders for the ``ties`` axis: the full sort and the fast path for runs already ranked.

Both return the permutation of the (kept) run rows that puts them topic by topic (ascending
topic code, i.e. byte order of topic ids) in rank order under the tie rule.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc


def presorted_order(
    tcode: np.ndarray, score: np.ndarray, doc: pa.Array | pa.ChunkedArray, line: np.ndarray | None, ties: str
) -> np.ndarray | None:
    """:func:`sort_order` for a run already ranked the usual way, or None.

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


def sort_order(
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

