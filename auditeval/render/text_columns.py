"""Text tables of millions of cells, a column at a time: each distinct value formatted once,
padding and joining done by Arrow's string kernels.

A 200-run ``sweep --vary all`` prints 69,120 rows x 200 runs = 13.8 million cells. Formatting
each cell with an f-string and joining each row in Python took 30 CPU seconds, all of it in the
command's own process after the workers were done, so it capped what ``--jobs`` could gain
(issue 18). A column holds few distinct values (a run computes 1,200 of its 69,120 variants
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
from auditeval.vocab.arrays import from_numpy, unique


def text_column(values: np.ndarray, fmt: Callable[[Any], str], replace: np.ndarray | None = None,
                replacement: str = "", memo: dict[int, str] | None = None) -> pa.Array:
    """``[fmt(x) for x in values.tolist()]`` as an Arrow string array, ``fmt`` called once per
    distinct float64 bit pattern (and, given a ``memo`` of bit pattern -> text shared between
    calls, once per pattern across them); where ``replace`` (bool) is set, ``replacement``."""
    vals = np.ascontiguousarray(values, dtype=np.float64)
    bits = vals.view(np.int64)
    distinct = unique(bits)  # ascending bit patterns; each cell's is found by bisection
    inverse = np.searchsorted(distinct, bits)
    floats = distinct.view(np.float64)
    if memo is None:
        texts = [fmt(x) for x in floats.tolist()]
    else:
        texts = []
        for b, x in zip(distinct.tolist(), floats.tolist(), strict=True):
            t = memo.get(b)
            if t is None:
                t = memo[b] = fmt(x)
            texts.append(t)
    out = pc.take(pa.array(texts, pa.string()), from_numpy(inverse.astype(np.int64)))
    if replace is not None and replace.any():
        out = pc.if_else(from_numpy(replace), pa.scalar(replacement, pa.string()), out)
    return out


def longest(column: pa.Array) -> int:
    """The most code points of a value of ``column`` (0 when empty)."""
    if len(column) == 0:
        return 0
    return int(pc.max(pc.utf8_length(column)).as_py())


def join_rows(left: pa.Array, left_width: int, columns: Sequence[tuple[pa.Array, int]], tail: pa.Array) -> str:
    """Row ``i``: ``left[i].ljust(left_width)``, then per ``(column, width)`` two spaces and
    ``column[i].rjust(width)``, then ``tail[i]`` (the line's end and anything after it); every
    row, concatenated."""
    parts = [pc.utf8_rpad(left, width=left_width, padding=" ")]
    parts += [pc.utf8_lpad(col, width=width + 2, padding=" ") for col, width in columns]
    rows = pc.binary_join_element_wise(*parts, tail, pa.scalar("", pa.string()))
    return joined(rows)


def joined(strings: pa.Array) -> str:
    """``"".join(strings.to_pylist())`` without a Python string per value: the values of a
    string array lie one after another in its data buffer."""
    if len(strings) == 0:
        return ""
    offsets = np.frombuffer(strings.buffers()[1], np.int32, len(strings) + 1, offset=strings.offset * 4)
    return strings.buffers()[2].to_pybytes()[offsets[0]:offsets[-1]].decode("utf-8")
