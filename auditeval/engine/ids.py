"""Integer codes for topic and document ids, computed once per run, and duplicate detection.

Ids stay Arrow string columns at load time; here they become integer keys without hashing
every row where possible: a run's topics come in contiguous blocks (codes repeated per
block), canonical decimal doc ids (``0`` or ``[1-9][0-9]*``: MS MARCO, most numeric
collections) are read as int64, and any other (topic, doc) set is compared through an
Arrow sort (see HACKING.md: ``dictionary_encode`` of a 7M-row doc column costs 3.1 s).
"""

from __future__ import annotations

import sys
import weakref
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.model import Run


def to_numpy(col: pa.ChunkedArray | pa.Array, dtype) -> np.ndarray:
    """A numeric column as one numpy array of ``dtype``, filled chunk by chunk (no temporary)."""
    chunks = col.chunks if isinstance(col, pa.ChunkedArray) else [col]
    out = np.empty(len(col), dtype)
    at = 0
    for c in chunks:
        out[at : at + len(c)] = c.to_numpy(zero_copy_only=False)
        at += len(c)
    return out


def take_rows(col: pa.ChunkedArray | pa.Array, rows: np.ndarray) -> pa.Array | pa.ChunkedArray:
    """``col.take(rows)`` for ascending ``rows``, chunk by chunk (a ChunkedArray's own ``take``
    concatenates every chunk first: a 100 MB copy of a 7M-row doc column for a few rows)."""
    if not isinstance(col, pa.ChunkedArray) or col.num_chunks <= 1:
        return pc.take(col, from_numpy(rows))
    bounds = np.cumsum([0] + [len(c) for c in col.chunks])
    cut = np.searchsorted(rows, bounds)
    parts = [pc.take(c, from_numpy(rows[cut[i] : cut[i + 1]] - bounds[i])) for i, c in enumerate(col.chunks) if cut[i + 1] > cut[i]]
    return pa.chunked_array(parts, type=col.type)


def combined(col: pa.ChunkedArray | pa.Array) -> pa.Array:
    return col.combine_chunks() if isinstance(col, pa.ChunkedArray) else col


def codes_in(arr: pa.Array | pa.ChunkedArray, values: pa.Array) -> np.ndarray:
    """Position of each element of ``arr`` in ``values`` (every element must be there)."""
    return pc.index_in(arr, value_set=values).to_numpy().astype(np.int64)


@dataclass(eq=False)
class RunIndex:
    """What the staged preparation needs from a run's topic and doc columns, computed once per run
    (the trec_eval drop-in checks duplicates before preparing: the same work)."""

    topics: list[str]  # distinct topics, by first appearance
    codes: Callable[[dict, pa.Array], np.ndarray]  # (code_of, values) -> topic code per row
    blocks: np.ndarray | None  # sizes of the one-topic blocks in file order, if contiguous
    ints: np.ndarray | None  # doc ids as int32 (int64 if one needs it) when all are canonical decimal
    ints_max: int
    unique: bool  # no (topic, doc) pair occurs twice
    mix: np.ndarray | None = None  # otherwise: the high 32 bits (uint32) of each short string id's mix (mix_high32)


_RUN_INDEX: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()  # Run -> RunIndex


def run_index_of(run: Run) -> RunIndex:
    """The run's index, computed once while the :class:`Run` object lives."""
    ri = _RUN_INDEX.get(run)
    if ri is None:
        ri = run_index(run.table.column("topic"), run.table.column("doc"))
        _RUN_INDEX[run] = ri
    return ri


def run_topics(run: Run) -> list[str]:
    """The distinct topics of the run's rows, by first appearance: those of its index
    (:func:`run_index_of`, made once per :class:`Run` and shared with its join and duplicate
    check), so a caller's topic set costs no hashing of a 7M-row column (``pc.unique``)."""
    return list(run_index_of(run).topics)


def run_index(topic: pa.ChunkedArray, doc: pa.ChunkedArray) -> RunIndex:
    topics, codes, blocks = run_topic_codes(topic)
    ints = canonical_ints(doc)
    ints_max = int(ints.max()) if ints is not None and len(ints) else 0
    n_t = max(len(topics), 1)
    if ints is not None and (ints_max + 1) * n_t >= 2**62:
        ints = None
    local = {t: i for i, t in enumerate(topics)}
    mix = None
    if ints is not None:

        def key() -> np.ndarray:
            return codes(local, pa.array(topics, pa.string())).astype(np.int64) * (ints_max + 1) + ints

        unique = not any_dup_int(ints, blocks, key)
    else:

        def tcode() -> np.ndarray:
            return codes(local, pa.array(topics, pa.string()))

        mix, unique = run_mixes(doc, blocks, tcode)
        if unique is None:  # ids too long to mix, or two pairs share a mix: decide by an Arrow sort
            unique = DocKeys(doc, tcode(), 0, ints=False).duplicated(None, False) is None
    return RunIndex(topics, codes, blocks, ints, ints_max, unique, mix)


PIECE_ROWS = 1 << 20
"""Rows mixed (or looked up) at a time by :func:`run_mixes` and :func:`judged_by_mix`: their
64-bit temporaries stay at a few MB, not 56 MB each on a 7M-line run."""


def run_mixes(doc: pa.ChunkedArray, blocks: np.ndarray | None,
              tcode: Callable[[], np.ndarray]) -> tuple[np.ndarray | None, bool | None]:
    """``(mix, unique)`` of a run's doc column: the high 32 bits of each id's :func:`id_mix`
    (:func:`mix_high32`: uint32, what the join reads), None when an id is too long to mix; and
    True when no (topic, mix) repeats (then no (topic, doc) pair does), else None (a repeated
    pair or a collision: the caller decides exactly).

    With one block of rows per topic (``blocks``, :func:`run_topic_codes`) the ids are mixed
    piece by piece, each piece whole topic blocks of about :data:`PIECE_ROWS` rows, and the
    pairs checked within each piece (a pair can only repeat inside its topic's block): the
    int64 mixes of the whole column are never held. ``tcode()``: the topic code per row, read
    only when the topics are not in blocks."""
    if blocks is None:
        mix = id_mix(doc)
        return (None, None) if mix is None else (mix_high32(mix), unique_by_mix(mix, tcode(), None))
    out = np.empty(len(doc), np.uint32)
    ends = np.cumsum(blocks)
    unique: bool | None = True
    a, first = 0, 0
    while a < len(doc):
        last = max(int(np.searchsorted(ends, a + PIECE_ROWS, side="right")), first + 1)
        b = int(ends[last - 1])
        mix = id_mix(doc.slice(a, b - a))
        if mix is None:
            return None, None
        sizes = blocks[first:last]
        if unique and unique_by_mix(mix, np.repeat(np.arange(len(sizes), dtype=np.int32), sizes), sizes) is None:
            unique = None
        out[a:b] = mix.view(np.uint32)[1 if sys.byteorder == "little" else 0 :: 2]
        a, first = b, last
    return out, unique


# top k bytes of a big-endian uint64 (k = 0..8)
_TOP_BYTES = np.array([0] + [((1 << (8 * k)) - 1) << (8 * (8 - k)) for k in range(1, 9)], dtype=np.uint64)


def short_id_words(doc: pa.ChunkedArray | pa.Array, max_len: int = 15) -> tuple[np.ndarray, ...] | None:
    """Every id of at most ``max_len`` bytes (15 or 23) as uint64 words, exact: bytes 0-7
    big-endian, bytes 8-14 and the length in the low byte, and where some id is longer than
    15 bytes a third word, bytes 15-22 (0 for the ids of at most 15). Equal ids give equal words and different ids different
    words (``D3312019``, ``LA052390-0089``, ``FR940104-0-00001``: TREC-shaped ids fit). None
    when an id is longer (or the column is not a string column).

    Read without per-row Python: an overlapping big-endian uint64 view at every byte of the
    data buffer (numpy strides of 1), gathered at each id's offset and masked to its length.
    """
    if doc.null_count or not (pa.types.is_string(doc.type) or pa.types.is_large_string(doc.type)):
        return None
    chunks = [c for c in (doc.chunks if isinstance(doc, pa.ChunkedArray) else [doc]) if len(c)]
    off_type = np.int64 if pa.types.is_large_string(doc.type) else np.int32
    offsets = [np.frombuffer(c.buffers()[1], dtype=off_type)[c.offset : c.offset + len(c) + 1] for c in chunks]
    longest = max([int(np.diff(o).max()) for o in offsets], default=0)
    if longest > max_len:
        return None
    out = [np.empty(len(doc), np.uint64) for _ in range(2 if longest <= 15 else 3)]
    at = 0
    for c, offs in zip(chunks, offsets, strict=True):
        n = len(c)
        lengths = np.diff(offs)
        data, starts = _padded_bytes(c.buffers()[2], offs)
        words = np.ndarray((len(data) - 7,), dtype=">u8", buffer=data, strides=(1,))
        w = [x[at : at + n] for x in out]
        _masked_word(words, starts, np.minimum(lengths, 8), w[0])
        _masked_word(words, starts + 8, np.clip(lengths - 8, 0, 7), w[1])
        w[1] |= lengths.astype(np.uint64)
        if len(w) == 3:
            _masked_word(words, starts + 15, np.clip(lengths - 15, 0, 8), w[2])
        at += n
    return tuple(out)


def _masked_word(words: np.ndarray, at: np.ndarray, keep: np.ndarray, out: np.ndarray) -> None:
    """``out[i]`` = the big-endian word at byte ``at[i]``, native, only its top ``keep[i]`` bytes."""
    g = words[at]  # one gather, then in place: native byte order, mask
    np.bitwise_and(g.view(np.uint64).byteswap(inplace=True), _TOP_BYTES[keep], out=out)


_MIX = (np.uint64(0x9E3779B97F4A7C15), np.uint64(0xC2B2AE3D27D4EB4F), np.uint64(0x27D4EB2F165667C5))
"""The odd multipliers of :func:`id_mix`'s first three words (golden ratio, xxHash64's primes 2
and 5); :func:`unique_by_mix` mixes topic codes with another."""

MIX_MAX_BYTES = 256
"""The longest id :func:`id_mix` mixes (ClueWeb09's ``clueweb09-en0000-00-00000`` is 25 bytes,
a URL may be longer): its cost is one gather over the rows per 8 bytes of a chunk's longest id;
a column with a longer id returns None (the callers hash or sort the strings instead)."""


def _more_multipliers(n: int) -> np.ndarray:
    """Odd multipliers of the words past the third (bytes 23, 31, ...) and of the final step:
    splitmix64 outputs of 1, 2, ... with the low bit set (fixed numbers, not seeded)."""
    z = (np.arange(n, dtype=np.uint64) + np.uint64(1)) * _MIX[0]
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    return (z ^ (z >> np.uint64(31))) | np.uint64(1)


_MORE = _more_multipliers((MIX_MAX_BYTES - 23 + 7) // 8 + 1)  # the last one: the final step
_WORDS = [(0, 8, _MIX[0]), (8, 7, _MIX[1]), (15, 8, _MIX[2])] + [
    (23 + 8 * k, 8, _MORE[k]) for k in range(len(_MORE) - 1)
]  # (first byte, bytes, multiplier) of each word; the second word's low byte: the id's length


def id_mix(doc: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """A 64-bit mix (int64) of each id of at most :data:`MIX_MAX_BYTES` bytes (None when an id
    is longer, or the column is not a string column without nulls).

    The id's words, as :func:`short_id_words` reads them and on past 23 bytes (bytes 0-7; 8-14
    and the length in the low byte; 15-22; 23-30; ...; the last masked to the id's end), each
    folded in turn: ``h = (h ^ w) * K; h ^= h >> 32``, then ``h *= K'; h ^= h >> 29``. The
    shifts matter: a product's low bits depend on its factors' low bits only, so without them a
    difference in a word's first byte (``clueweb09-en0001-76-37175`` against ``...0000-76-37105``)
    changes only the top 8 bits and two such differences cancel one time in 256. Words past
    an id's end are skipped (an id's mix does not depend on the column it is in). Equal ids have
    equal mixes (different ids almost always differ): a mix proves a (topic, doc) pair unique,
    never equal; equality is always decided on the strings."""
    if doc.null_count or not (pa.types.is_string(doc.type) or pa.types.is_large_string(doc.type)):
        return None
    mix = np.empty(len(doc), np.uint64)
    at = 0
    for c in doc.chunks if isinstance(doc, pa.ChunkedArray) else [doc]:  # one chunk's words at a time
        if len(c) and not _chunk_mix(c, mix[at : at + len(c)]):
            return None
        at += len(c)
    return mix.view(np.int64)


def _chunk_mix(c: pa.Array, out: np.ndarray) -> bool:
    """:func:`id_mix` of one chunk into ``out`` (uint64); False when an id is too long. Where
    every id of the chunk has the same length (``D0067032``, ClueWeb09's ids) each word is a
    strided view of the buffer, read without a gather."""
    off_type = np.int64 if pa.types.is_large_string(c.type) else np.int32
    offs = np.frombuffer(c.buffers()[1], dtype=off_type)[c.offset : c.offset + len(c) + 1]
    lengths = np.diff(offs)
    longest = int(lengths.max())
    if longest > MIX_MAX_BYTES:
        return False
    fixed = longest if int(lengths.min()) == longest else None
    data, starts = _padded_bytes(c.buffers()[2], offs)
    word, step = np.empty(len(c), np.uint64), np.empty(len(c), np.uint64)
    out[:] = 0
    for k, (first, width, mult) in enumerate(_WORDS):
        if k >= 2 and first >= longest:
            break
        _chunk_word(data, starts, lengths, fixed, first, width, word)
        if k == 1:
            word |= np.uint64(fixed & 0xFF) if fixed is not None else (lengths & 0xFF).astype(np.uint64)
        partial = k >= 2 and fixed is None and bool((lengths <= first).any())
        h = step if partial else out
        if partial:  # only the ids that reach this word take the step
            step[:] = out
        h ^= word
        h *= mult
        h ^= h >> np.uint64(32)
        if partial:
            np.copyto(out, step, where=lengths > first)
    out *= _MORE[-1]
    out ^= out >> np.uint64(29)
    return True


def _chunk_word(data: np.ndarray, starts: np.ndarray, lengths: np.ndarray, fixed: int | None, first: int, width: int,
                out: np.ndarray) -> None:
    """``out[i]``: bytes ``first`` to ``first + width - 1`` of id ``i`` (those it has) as the top
    bytes of a native uint64, the others 0. ``data``: the chunk's bytes with 24 bytes of slack,
    ``starts``: each id's first byte, ``fixed``: the ids' one length, if they have one."""
    if fixed is not None:
        keep = min(max(fixed - first, 0), width)
        if keep == 0 or not len(starts):
            out[:] = 0
            return
        at = np.ndarray((len(starts),), dtype=">u8", buffer=data, offset=int(starts[0]) + first, strides=(fixed,))
        np.bitwise_and(at, _TOP_BYTES[keep], out=out)
        return
    keep = np.clip(lengths - first, 0, width)
    if not keep.any():
        out[:] = 0
        return
    view = np.ndarray((len(data) - 7,), dtype=">u8", buffer=data, strides=(1,))
    _masked_word(view, np.where(keep > 0, starts + first, starts), keep, out)  # no byte left: any, masked to 0


def _padded_bytes(buf: pa.Buffer, offs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The chunk's data bytes with at least 24 bytes of slack after its last id (read in place
    when Arrow's padding leaves that much, else copied), and each id's start in them."""
    if buf.size - int(offs[-1]) >= 24:  # Arrow pads buffers: read in place
        return np.frombuffer(buf, dtype=np.uint8), offs[:-1]
    data = np.zeros(int(offs[-1] - offs[0]) + 24, np.uint8)
    data[: len(data) - 24] = np.frombuffer(buf, dtype=np.uint8)[offs[0] : offs[-1]]
    return data, offs[:-1] - offs[0]


def mix_high32(mix: np.ndarray) -> np.ndarray:
    """The high 32 bits (uint32) of each :func:`id_mix`. A product's low bits depend on its
    factors' low bits only: the low 32 bits of a mix see just bytes 0-3 and 8-11 of an id,
    which ids such as ``LA091789-6352`` share by the thousand; the high bits see every byte."""
    return np.ascontiguousarray(mix.view(np.uint32)[1 if sys.byteorder == "little" else 0 :: 2])


def unique_by_mix(mix: np.ndarray, tcode: np.ndarray, blocks) -> bool | None:
    """True when no (topic, id mix) repeats -- then no (topic, doc) pair does; None when some
    mix repeats within a topic (a repeated pair, or a collision: the caller decides exactly).

    With topic blocks the high 32 bits are compared first (sorted twice as fast as int64): where
    none repeats within a block no mix does; only otherwise (a 1,000-row block's 32-bit values
    collide about once in 8,600 blocks) the full mixes are compared."""

    def key() -> np.ndarray:
        return mix ^ (tcode.astype(np.int64) * np.int64(0x165667B19E3779F9))

    if blocks is not None:
        high = mix_high32(mix)

        def key32() -> np.ndarray:  # topics not in equal blocks: (topic, high bits) keys
            return (tcode.astype(np.int64) << 32) | high

        if not any_dup_int(high, blocks, key32):
            return True
    return None if any_dup_int(mix, blocks, key) else True


@dataclass(frozen=True, eq=False)
class MixBuckets:
    """A hash table of distinct doc ids (a qrels' ``qd_values``) by the top ``bits`` bits of
    their mix's high 32 bits: bucket ``b`` holds the ``count[b]`` value positions
    ``order[start[b]:start[b] + count[b]]``; ``mix``: each value's high 32 bits (:func:`mix_high32`)."""

    bits: int
    start: np.ndarray  # int32, 2**bits + 1
    order: np.ndarray
    mix: np.ndarray
    count: np.ndarray  # uint8 per bucket (255: that many or more, read from ``start``)


def mix_buckets(mix: np.ndarray) -> MixBuckets:
    """:class:`MixBuckets` of the values whose high mixes are ``mix`` (uint32): 16 to 32
    buckets per value (at most 2**22: a table of 16 MB), so few hold more than one and most
    run rows land in an empty one."""
    bits = min(22, max(8, len(mix).bit_length() + 4))
    bucket = mix >> (32 - bits)
    order = np.argsort(bucket, kind="stable")
    counts = np.bincount(bucket, minlength=1 << bits)
    start = np.zeros((1 << bits) + 1, np.int32)
    np.cumsum(counts, out=start[1:])
    return MixBuckets(bits, start, order, mix, np.minimum(counts, 255).astype(np.uint8))


def judged_by_mix(doc: pa.ChunkedArray, mix: np.ndarray, values: pa.Array, mb: MixBuckets) -> tuple[np.ndarray, np.ndarray]:
    """Rows of ``doc`` (ascending, int64) whose id is one of ``values``, and its position there
    (int64). ``mix``: the rows' high mixes (:func:`run_mixes`), ``mb``: the values' buckets.

    A row can hold a value only if their high mixes are equal (equal ids have equal mixes), and
    holds it exactly when the strings are equal: each row is compared with the values of its
    bucket (rarely more than one) by mix, :data:`PIECE_ROWS` rows at a time, then the few rows
    left by string. Exact, and without hashing a run's strings."""
    rows, code = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
    shift = 32 - mb.bits
    for a in range(0, len(mix), PIECE_ROWS):  # a gather from a table of a byte per bucket, then the few rows left
        m = mix[a : a + PIECE_ROWS]
        bucket = m >> shift
        maybe = np.flatnonzero(mb.count[bucket])
        b = bucket[maybe]
        del bucket
        lo = mb.start[b]
        n = mb.start[b + 1] - lo
        for k in range(int(n.max(initial=0))):  # the k-th value of the bucket (rarely more than one)
            has = np.flatnonzero(n > k)
            r, c = maybe[has], mb.order[lo[has] + k]
            same = mb.mix[c] == m[r]
            rows.append(r[same].astype(np.int64) + a)
            code.append(c[same].astype(np.int64))
    r, c = np.concatenate(rows), np.concatenate(code)
    if len(r) > 1 and not (np.diff(r) > 0).all():
        by_row = np.argsort(r, kind="stable")
        r, c = r[by_row], c[by_row]
    same = pc.equal(take_rows(doc, r), pc.take(values, from_numpy(c))).to_numpy(zero_copy_only=False)
    return r[same], c[same]


def short_ids_unique(doc: pa.ChunkedArray, tcode: np.ndarray, blocks) -> bool | None:
    """Whether no (topic, doc) pair repeats, for ids of at most 23 bytes (else None, also when
    two pairs share a mix: decide those exactly)."""
    mix = id_mix(doc)
    return None if mix is None else unique_by_mix(mix, tcode, blocks)


def run_topic_codes(col: pa.ChunkedArray):
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
        heads = take_rows(col, starts).to_pylist()  # chunk by chunk: no copy of the column
        if len(set(heads)) == len(heads):
            lengths = np.diff(np.append(starts, n))

            def by_block(code_of, values):
                return np.repeat(np.array([code_of[h] for h in heads], dtype=np.int32), lengths)

            return heads, by_block, lengths
    return pc.unique(col).to_pylist(), lambda code_of, values: codes_in(col, values).astype(np.int32), None


def has_duplicate_pairs(run: Run | pa.ChunkedArray | pa.Array, doc: pa.ChunkedArray | pa.Array | None = None) -> bool:
    """Whether some (topic, doc) pair of a :class:`Run` (or of two columns, topic and doc)
    occurs twice; fast (no per-row Python, no string hashing). For a Run the work is
    shared with the preparation of the same Run object."""
    if isinstance(run, Run):
        return not run_index_of(run).unique
    topic = run
    if isinstance(topic, pa.Array):
        topic, doc = pa.chunked_array([topic]), pa.chunked_array([doc])
    return not run_index(topic, doc).unique


def duplicated(keys: np.ndarray, keep) -> np.ndarray:
    """``pandas.Series(keys).duplicated(keep=keep)`` (keep: ``"first"``, ``"last"`` or False)."""
    if len(keys) < 2:
        return np.zeros(len(keys), bool)
    order = np.argsort(keys, kind="stable")
    s = keys[order]
    return repeats_mask(s[1:] == s[:-1], order, keep)  # stable: file order within equal keys


def repeats_mask(eq: np.ndarray, order: np.ndarray, keep) -> np.ndarray:
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


class DocKeys:
    """Exact (topic, doc) identity of run rows, for duplicate detection.

    Canonical decimal doc ids (digits, no leading zero: MS MARCO, most numeric collections)
    become ``topic * (max + 1) + int(doc)`` int64 keys; any other doc id set is compared as
    strings through an Arrow sort.
    """

    def __init__(self, doc: pa.ChunkedArray, tcode: np.ndarray, n_topics: int, ints: bool = True):
        self.doc = doc
        self.tcode = tcode
        self.key = None
        ints = canonical_ints(doc) if ints else None
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
            return any_dup_int(key, blocks, lambda: key)
        return self.duplicated(rows, False) is not None

    def duplicated(self, rows: np.ndarray | None, keep) -> np.ndarray | None:
        """Duplicate mask over ``rows`` (all rows when None; ``keep`` as pandas), or None when there is none."""
        if self.key is not None:
            key = self.key if rows is None else self.key[rows]
            mask = duplicated(key, keep)
            return mask if mask.any() else None
        n = len(self.tcode) if rows is None else len(rows)
        if n < 2:
            return None
        rows_ = np.arange(n) if rows is None else rows
        table = pa.table({"t": from_numpy(self.tcode[rows_]), "d": pc.take(self.doc, from_numpy(rows_)), "r": from_numpy(rows_)})
        order = pc.sort_indices(table, sort_keys=[("t", "ascending"), ("d", "ascending"), ("r", "ascending")]).to_numpy()
        st = pc.take(table, from_numpy(order))
        t, d = st.column("t").to_numpy(), st.column("d")
        eq = (t[1:] == t[:-1]) & pc.equal(d.slice(1), d.slice(0, n - 1)).to_numpy(zero_copy_only=False)
        if not eq.any():
            return None
        return repeats_mask(eq, order, keep)

    def same_as(self, rows: np.ndarray, idx: np.ndarray) -> np.ndarray:
        """Mask over ``idx`` (positions in ``rows``): same (topic, doc) as ``idx[0]``."""
        r = rows[idx]
        same_t = self.tcode[r] == self.tcode[r[0]]
        doc0 = self.doc[int(r[0])].as_py()
        same_d = pc.equal(pc.take(self.doc, from_numpy(r)), doc0).to_numpy(zero_copy_only=False)
        return same_t & same_d


def canonical_ints(doc: pa.ChunkedArray | pa.Array) -> np.ndarray | None:
    """Values of doc ids (int32, int64 if one needs it) when every id is canonical decimal
    (``0`` or ``[1-9][0-9]*``)."""
    if doc.null_count or not (pa.types.is_string(doc.type) or pa.types.is_large_string(doc.type)):
        return None
    # Arrow also reads "-5", "007", "0x1F": reject any id starting with '-' or with '0' + more.
    chunks = doc.chunks if isinstance(doc, pa.ChunkedArray) else [doc]
    head = next((c[0].as_py() for c in chunks if len(c)), "0")
    if not head.isdigit():  # string ids (D3312019): no parse attempt over a whole chunk
        return None
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


def any_dup_int(values: np.ndarray, blocks, key: Callable[[], np.ndarray]) -> bool:
    """Whether a (topic, doc) pair repeats: ``values`` identify docs within a one-topic block
    (``blocks``: see :meth:`DocKeys.any`), ``key()`` gives (topic, doc) keys for the general case."""
    if len(values) < 2:
        return False
    if blocks is not None:
        sizes = np.asarray(blocks)
        sizes = sizes[sizes > 0]
        if len(sizes) and (sizes == sizes[0]).all() and sizes[0] * len(sizes) == len(values):
            # equal-sized topic blocks (a run of k documents per topic): sort each block
            if values.dtype != np.int32 and values.max() < 2**31 and values.min() >= -(2**31):
                values = values.astype(np.int32)  # sorts several times faster
            grid = values.reshape(len(sizes), int(sizes[0]))
            step = max(1, (1 << 18) // int(sizes[0]))  # a few hundred blocks at a time: a small copy
            for i in range(0, len(grid), step):
                s = np.sort(grid[i : i + step], axis=1)
                if (s[:, 1:] == s[:, :-1]).any():
                    return True
            return False
    s = np.sort(key())
    return bool((s[1:] == s[:-1]).any())


