"""Text tables of millions of cells, a column at a time: each distinct value formatted once,
padding and joining done by Arrow's string kernels.

A 200-run ``sweep --vary all`` prints 69,120 rows x 200 runs = 13.8 million cells. Formatting
each cell with an f-string and joining each row in Python took 30 CPU seconds, all of it in the
command's own process after the workers were done, so it capped what ``--jobs`` could gain.
A column holds few distinct values (a run computes 1,200 of its 69,120 variants
alike: :class:`~auditeval.engine.sweep.VariantClasses`), so :func:`text_column` formats the
distinct bit patterns only (the same function on the same float: the same text, ``-0.0`` and
each NaN payload kept apart) and gathers; :func:`join_rows` pads and concatenates whole
columns with ``utf8_lpad`` / ``utf8_rpad`` / ``binary_join_element_wise`` (Arrow counts code
points, as ``str.rjust`` does) and hands back the text in one piece.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pyarrow as pa

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy


def text_column(values: np.ndarray, fmt: Callable[[Any], str], replace: np.ndarray | None = None,
                replacement: str = "", memo: dict[int, str] | None = None, decimals: int | None = None) -> pa.Array:
    """``[fmt(x) for x in values.tolist()]`` as an Arrow string array, ``fmt`` called once per
    distinct float64 bit pattern (and, given a ``memo`` of bit pattern -> text shared between
    calls, once per pattern across them); where ``replace`` (bool) is set, ``replacement``.

    ``decimals``: the caller's promise that ``fmt(x) == format(x, f".{decimals}f")`` for every
    finite ``x``; the distinct values are then formatted by :func:`fixed_texts` at once and
    ``fmt`` is called only on those it leaves undecided (NaN, infinities, ties)."""
    vals = np.ascontiguousarray(values, dtype=np.float64).ravel()
    codes = pc.dictionary_encode(from_numpy(vals.view(np.int64)))  # a hash table: distinct bit patterns
    distinct = codes.dictionary.to_numpy(zero_copy_only=False)
    floats = distinct.view(np.float64)
    if memo is not None:
        texts_list = []
        for b, x in zip(distinct.tolist(), floats.tolist(), strict=True):
            t = memo.get(b)
            if t is None:
                t = memo[b] = fmt(x)
            texts_list.append(t)
        texts = pa.array(texts_list, pa.string())
    elif decimals is not None:
        texts, undecided = fixed_texts(floats, decimals)
        if undecided.any():
            mine = pa.array([fmt(x) for x in floats[undecided].tolist()], pa.string())
            texts = pc.replace_with_mask(texts, from_numpy(undecided), mine)
    else:
        texts = pa.array([fmt(x) for x in floats.tolist()], pa.string())
    out = pc.take(texts, codes.indices)
    if replace is not None and replace.any():
        out = pc.if_else(from_numpy(replace), pa.scalar(replacement, pa.string()), out)
    return out


TIE = 1e-6
"""How near to a rounding tie (``k + 0.5`` after scaling) :func:`fixed_texts` leaves a value to
Python's exact formatting."""

SCALED_MAX = 2.0**31
"""Values whose scaled magnitude reaches this are left to Python: below it the scaled double
is within 2**-22 (< :data:`TIE`) of the exact product, so rounding it rounds the exact value."""


def fixed_texts(values: np.ndarray, decimals: int) -> tuple[pa.Array, np.ndarray]:
    """``format(x, f".{decimals}f")`` of each float64, vectorized, and the mask of the values it
    left undecided (their text here is a placeholder; the caller formats them).

    Python formats the exact binary value rounded half to even. Here ``y = |x| * 10**decimals``
    (one rounding) is rounded to an integer ``n`` by ``np.rint``; that is the exact value's
    rounding unless ``y`` lies within :data:`TIE` of a tie or reaches :data:`SCALED_MAX`, and
    those (and NaN, the infinities) are undecided. The text is ``n // 10**d``, ``.`` and
    ``n % 10**d`` zero-padded to ``d`` digits, after a ``-`` wherever the sign bit is set (Python
    prints ``-0.0000`` for ``-0.0`` and for ``-0.00001``)."""
    x = np.ascontiguousarray(values, dtype=np.float64)
    scale = 10**decimals
    with np.errstate(invalid="ignore", over="ignore"):
        y = np.abs(x) * float(scale)
        undecided = ~(y < SCALED_MAX) | ~(np.abs(y - np.floor(y) - 0.5) > TIE)  # NaN compares False
    n = np.rint(np.where(undecided, 0.0, y)).astype(np.int64)
    whole, frac = np.divmod(n, scale)
    parts = [pc.cast(from_numpy(whole), pa.string())]
    if decimals:
        parts += [pa.scalar("."), pc.utf8_lpad(pc.cast(from_numpy(frac), pa.string()), width=decimals, padding="0")]
    text = pc.binary_join_element_wise(*parts, pa.scalar(""))
    negative = np.signbit(x)
    if negative.any():
        text = pc.if_else(from_numpy(negative), pc.binary_join_element_wise(pa.scalar("-"), text, pa.scalar("")), text)
    return text, undecided


def wrapped_column(texts: Sequence[str], width: int, indent: int) -> tuple[pa.Array, pa.Array]:
    """Per text, the first line of :func:`~auditeval.render.textgrid.wrap` ``(text, width,
    indent)`` and the rest: a line end, then each further line and its line end (a table row's end and
    continuation lines). When every text is plain (:func:`plain_join`: one check over them all),
    a text that fits is its own line and the longer ones are wrapped at once
    (:func:`greedy_wrapped`); otherwise each goes through ``wrap`` (a sweep's departures: a
    ``wrap`` call per variant was a second of the text view, a call per long one still 0.26 s
    for 40,700 of them)."""
    arr = pa.array(list(texts), pa.string())
    together = plain_join(texts)
    plain = together is not None and len(together) * (1 + indent) < 1 << 31  # int32 offsets
    todo = np.arange(len(arr)) if not plain else np.flatnonzero(pc.utf8_length(arr).to_numpy() > width)
    first, tails = arr, pa.repeat(pa.scalar("\n", pa.string()), len(arr))
    if len(todo):
        if plain:
            got_first, got_tails = greedy_wrapped([texts[k] for k in todo.tolist()], width, indent)
        else:  # textgrid loads rich's cell widths: not for the TSV view
            from auditeval.render.textgrid import wrap

            lines = [wrap(texts[k], width, indent=indent) for k in todo.tolist()]
            got_first = pa.array([x[0] for x in lines], pa.string())
            got_tails = pa.array(["\n" + "".join(f"{more}\n" for more in x[1:]) for x in lines], pa.string())
        mask = np.zeros(len(arr), bool)
        mask[todo] = True
        first = pc.replace_with_mask(first, from_numpy(mask), got_first)
        tails = pc.replace_with_mask(tails, from_numpy(mask), got_tails)
    return first, tails


def plain_join(texts: Sequence[str]) -> str | None:
    """``" ".join(texts)`` when every text is plain: printable ASCII (one cell a character),
    words separated by single spaces, none at either end (so ``text.split()`` is
    ``text.split(" ")``, and joining them back with one space gives the text); else None."""
    together = " ".join(texts)
    ok = (together.isascii() and together.isprintable() and "  " not in together
          and not together.startswith(" ") and not together.endswith(" "))
    return together if ok else None


def longest_word(texts: Sequence[str]) -> int:
    """``max([1, *(len(w) for t in texts for w in t.split())])``: over the joined bytes when
    the texts are plain (:func:`plain_join`), one pass instead of a Python string per word."""
    together = plain_join(texts)
    if together is None:
        return max([1, *(len(w) for t in texts for w in t.split())])
    data = np.frombuffer(together.encode("ascii"), np.uint8)
    cuts = np.concatenate(([-1], np.flatnonzero(data == 32), [len(data)]))
    return max(1, int(np.diff(cuts).max(initial=1)) - 1)


def greedy_wrapped(texts: Sequence[str], width: int, indent: int) -> tuple[pa.Array, pa.Array]:
    """What :func:`wrapped_column` gives for plain texts (:func:`plain_join`; none empty), all
    texts at once: the greedy rule of :func:`~auditeval.render.textgrid.wrap` (a word joins its
    line when the line's cells, a space and the word fit ``width``; the first word of a line
    always stands, however long; lines after the first start with ``indent`` blanks).

    With the texts joined by spaces, a line that starts at word ``s`` (at byte ``start[s]``)
    with ``base`` cells before it (0 on a text's first line, ``indent`` after) ends at the last
    word ``k`` of its text with ``end[k] - start[s] <= width - base`` (single spaces: the
    words' text between them is exactly that long), or at ``s`` itself: a ``searchsorted`` per
    line *number*, over every text still being wrapped. The spaces where a line ends become a
    line end and ``indent`` blanks, those between texts a line end; each text's first line and
    the rest are cut out of that one buffer (Arrow arrays over its bytes)."""
    n = len(texts)
    data = np.frombuffer(" ".join(texts).encode("ascii"), np.uint8)
    lengths = np.fromiter(map(len, texts), np.int64, n)
    starts = np.zeros(n, np.int64)
    starts[1:] = np.cumsum(lengths[:-1] + 1)
    ends = starts + lengths  # each text's separator (the end of the data for the last)
    spaces = np.flatnonzero(data == 32)
    word_start = np.concatenate(([0], spaces + 1))
    word_end = np.concatenate((spaces, [len(data)]))
    last = np.searchsorted(word_end, ends)  # each text's last word
    s = np.searchsorted(word_start, starts)  # the word each text's current line starts at
    active = np.arange(n)
    first_break = ends.copy()
    breaks = []
    base = 0
    while len(active):
        k = np.searchsorted(word_end, word_start[s] + (width - base), side="right") - 1
        k = np.minimum(np.maximum(k, s), last[active])
        more = k < last[active]
        if not breaks:  # the texts' first lines
            first_break[active[more]] = word_end[k[more]]
        breaks.append(word_end[k[more]])
        active, s, base = active[more], k[more] + 1, indent
    cut = np.concatenate(breaks) if breaks else np.zeros(0, np.int64)
    rep = np.ones(len(data), np.int32)  # the caller keeps the output under 2**31 bytes
    rep[cut] = 1 + indent
    at = np.zeros(len(data) + 1, np.int64)  # where each byte of data lands in the output
    np.cumsum(rep, out=at[1:])
    out = np.concatenate((np.repeat(data, rep), np.array([10], np.uint8)))  # the last text's line end
    out[at[cut]] = 10  # a line end, then the indent (the space repeated)
    out[at[ends[:-1]]] = 10  # the line end of each text but the last
    first_len = at[first_break] - at[starts]
    tail_len = at[ends] + 1 - at[first_break]  # up to each text's final line end
    in_first = np.repeat(np.tile(np.array([True, False]), n), np.stack([first_len, tail_len], 1).ravel())
    return _strings(out[in_first], first_len), _strings(out[~in_first], tail_len)


def _strings(data: np.ndarray, lengths: np.ndarray) -> pa.Array:
    """The string array of ``len(lengths)`` values laid one after another in ``data`` (UTF-8)."""
    offsets = np.zeros(len(lengths) + 1, np.int32)  # the caller keeps the total under 2**31
    np.cumsum(lengths, out=offsets[1:])
    return pa.StringArray.from_buffers(len(lengths), pa.py_buffer(offsets), pa.py_buffer(data.tobytes()))


def longest(column: pa.Array) -> int:
    """The most code points of a value of ``column`` (0 when empty)."""
    if len(column) == 0:
        return 0
    return int(pc.max(pc.utf8_length(column)).as_py())


def join_rows(left: pa.Array, left_width: int, columns: Sequence[tuple[pa.Array, int]], tail: pa.Array) -> str:
    """Row ``i``: ``left[i].ljust(left_width)``, then per ``(column, width)`` two spaces and
    ``column[i].rjust(width)``, then ``tail[i]`` (the line's end and anything after it); every
    row, concatenated."""
    ascii_only = all(_is_ascii(a) for a in (left, *(col for col, _ in columns)))
    rpad, lpad = (pc.ascii_rpad, pc.ascii_lpad) if ascii_only else (pc.utf8_rpad, pc.utf8_lpad)  # same text on ASCII
    parts = [rpad(left, width=left_width, padding=" ")]
    parts += [lpad(col, width=width + 2, padding=" ") for col, width in columns]
    rows = pc.binary_join_element_wise(*parts, tail, pa.scalar("", pa.string()))
    return joined(rows)


def _data(strings: pa.Array) -> memoryview:
    """The bytes of a (null-free) string array's values, one after another: its data buffer
    between the first and the last offset."""
    if len(strings) == 0:
        return memoryview(b"")
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1, offset=strings.offset * 4)
    return memoryview(strings.buffers()[2])[offsets[0]:offsets[-1]]


def _is_ascii(strings: pa.Array) -> bool:
    """Whether every value is ASCII: one pass over the data buffer (Arrow's per-value
    ``string_is_ascii`` costs as much as the ASCII padding kernels save)."""
    return int(np.frombuffer(_data(strings), np.uint8).max(initial=0)) < 0x80


def joined(strings: pa.Array) -> str:
    """``"".join(strings.to_pylist())`` without a Python string per value: the values of a
    string array lie one after another in its data buffer."""
    return bytes(_data(strings)).decode("utf-8")
