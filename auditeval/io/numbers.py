"""Numbers in qrels and runs: C ``atof``/``atol`` as trec_eval reads them, and the column
parser of the general path.

``numbers="strict"`` (default) accepts any float notation Python and Arrow agree on
(``1e-3``, ``5E-4``, ``.5``) and rejects NaN, infinities and non-numbers.
``numbers="atof"`` reproduces C ``atof``/``atol`` as trec_eval uses them (``abc`` -> 0,
``0x10`` -> 16, ``nan`` kept, grade ``1.0`` -> 1); it exists for the trec_eval drop-in and
every value it had to coerce is counted in ``notes``.
"""

from __future__ import annotations

import math
import re
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.errors import InputError

if TYPE_CHECKING:
    from auditeval.io.lines import Split

_ATOF_RE = re.compile(
    r"\s*([+-]?(?:0[xX](?:[0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)(?:[pP][+-]?\d+)?"
    r"|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf(?:inity)?|nan(?:\([0-9A-Za-z_]*\))?))",
    re.IGNORECASE | re.ASCII,
)


def c_atof(text: str) -> float:
    """C ``atof``: the longest numeric prefix, 0.0 when there is none (``abc`` -> 0, ``0x10`` -> 16)."""
    m = _ATOF_RE.match(text)
    if not m:
        return 0.0
    s = m.group(1)
    low = s.lower().lstrip("+-")
    if low.startswith("0x"):
        sign = -1.0 if s.startswith("-") else 1.0
        body = low[2:]
        if "p" not in body:
            body += "p0"
        return sign * float.fromhex("0x" + body)
    if low.startswith("nan"):
        return math.nan
    return float(s)


def c_atol(text: str) -> int:
    """C ``atol``: optional sign and leading digits, 0 when none (``1.0`` -> 1, ``x`` -> 0)."""
    m = re.match(r"\s*([+-]?\d+)", text, re.ASCII)
    return int(m.group(1)) if m else 0


_PLAIN_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.IGNORECASE)
_PLAIN_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1
INT64_MIN, INT64_MAX = _INT64_MIN, _INT64_MAX  # what a grade, rank or stored label can hold (int64, SQLite INTEGER)


def int64_range_problem(value: int, what: str) -> str | None:
    """The reason ``value`` cannot be a ``what`` (int64: numpy columns and SQLite INTEGER), or None."""
    if _INT64_MIN <= value <= _INT64_MAX:
        return None
    return f"{what} {value} is out of range (a 64-bit integer: {_INT64_MIN} .. {_INT64_MAX})"


def parse_numbers(
    col: pa.Array, split: Split, what: str, kind: str, numbers: str
) -> tuple[np.ndarray, int]:
    """Parse a string column to float64 (``kind='float'``) or int64 (``kind='int'``).

    Returns the values and how many were coerced (atof mode only).
    """
    target = pa.float64() if kind == "float" else pa.int64()
    try:
        arr = pc.cast(col, target).to_numpy(zero_copy_only=False)
        bad = None
    except pa.ArrowInvalid:
        bad = True
    if bad is None:
        if kind == "float" and numbers == "strict":
            finite = np.isfinite(arr)
            if not finite.all():
                row = int(np.flatnonzero(~finite)[0])
                raise InputError(
                    split.name, split.line_of(row), f"{what} is not a finite number: {col[row].as_py()!r}"
                )
        return arr, 0
    texts = col.to_pylist()
    # Python's float()/int() also accept "1_000" and non-ASCII digits; the grammar here is
    # the plain ASCII one (Arrow's, plus a leading '+' on integers).
    plain = _PLAIN_FLOAT if kind == "float" else _PLAIN_INT
    out = np.empty(len(texts), dtype=np.float64 if kind == "float" else np.int64)
    if numbers == "strict":
        for row, t in enumerate(texts):
            if not plain.fullmatch(t):
                raise InputError(
                    split.name,
                    split.line_of(row),
                    f"{what} is not {'a number' if kind == 'float' else 'an integer'}: {t!r}",
                )
            v = float(t) if kind == "float" else int(t)
            if kind == "float" and not math.isfinite(v):
                raise InputError(split.name, split.line_of(row), f"{what} is not a finite number: {t!r}")
            if kind == "int" and not _INT64_MIN <= v <= _INT64_MAX:
                raise InputError(split.name, split.line_of(row), f"{what} is out of range: {t!r}")
            out[row] = v
        return out, 0
    conv = c_atof if kind == "float" else c_atol
    coerced = 0
    for row, t in enumerate(texts):
        if plain.fullmatch(t):
            v = float(t) if kind == "float" else int(t)
        else:
            v = conv(t)
            coerced += 1
        if kind == "int":
            v = min(max(v, _INT64_MIN), _INT64_MAX)  # C atol saturates
        out[row] = v
    return out, coerced
