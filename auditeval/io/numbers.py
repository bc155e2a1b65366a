"""Numbers in qrels and runs: C ``atof``/``atol`` as trec_eval reads them, and the column
parser of the general path.

A run's scores are read as trec_eval reads them, by every reader: C ``atof``
(:func:`atof_column`, :func:`atof_value`: ``0x1p-1`` -> 0.5, ``1e400`` -> inf, ``nan``,
``1.5abc`` -> 1.5, ``abc`` -> 0), each field that is not a plain decimal and each value that
is not finite noted (:func:`score_notes`). A run's rank field, which trec_eval never reads,
is an integer or null (:func:`int_column`, :func:`integer_value`, :func:`rank_note`).

For grades (and an MS MARCO file's ranks) ``numbers="strict"`` (default) accepts the plain
integers Python and Arrow agree on and rejects the rest, naming the line;
``numbers="atof"`` reads them with C ``atol`` as trec_eval does (``1.0`` -> 1, ``x`` -> 0),
every coerced value counted in ``notes``.
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


# ------------------------------------------------------------- run columns as trec_eval reads them
_PLAIN_DECIMAL = r"^[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|(?i:inf|infinity|nan))$"  # Arrow's
_PLAIN_INTEGER = r"^[+-]?[0-9]+$"
_SHORT_INTEGER = r"^[+-]?[0-9]{1,18}$"  # within int64 whatever the digits


def _texts(col: pa.Array, mask: np.ndarray) -> list[str]:
    """The strings of ``col`` where ``mask`` holds (few: the texts that take the slow path)."""
    return pc.filter(col, pa.array(mask)).to_pylist()


def atof_column(col: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """A run's score column as trec_eval reads it (get_trec_results.c: ``sim = atof(field)``):
    float64 values and the mask of fields that are not plain decimal numbers (or ``inf``,
    ``infinity``, ``nan`` in any case, which Arrow and ``atof`` read alike), read with C
    ``atof`` (:func:`c_atof`: ``0x1p-1`` -> 0.5, ``1.5abc`` -> 1.5, ``abc`` -> 0, ``nan``,
    ``inf``). A plain decimal number is read by Arrow, correctly rounded as ``strtod`` rounds it
    (``1e400`` -> inf, as C's ``HUGE_VAL``). Non-finite values are kept: the caller notes them.
    Vectorised; only the fields that are not plain decimals pass through Python."""
    try:
        values = pc.cast(col, pa.float64()).to_numpy(zero_copy_only=False)
        return values, np.zeros(len(values), dtype=bool)
    except pa.ArrowInvalid:
        pass
    plain = pc.match_substring_regex(col, _PLAIN_DECIMAL).to_numpy(zero_copy_only=False)
    values = pc.cast(pc.if_else(pa.array(plain), col, "0"), pa.float64()).to_numpy(zero_copy_only=False).copy()
    odd = ~plain
    values[odd] = [c_atof(t) for t in _texts(col, odd)]
    return values, odd


def int_column(col: pa.Array) -> tuple[np.ndarray, np.ndarray]:
    """int64 values of a column of decimal integers, and the mask of fields that are not one
    (not ``[+-]?[0-9]+``, or outside int64); those values are 0."""
    try:
        values = pc.cast(col, pa.int64()).to_numpy(zero_copy_only=False)
        return values, np.zeros(len(values), dtype=bool)
    except pa.ArrowInvalid:
        pass
    short = pc.match_substring_regex(col, _SHORT_INTEGER).to_numpy(zero_copy_only=False)
    unsigned = pc.utf8_ltrim(col, characters="+")
    values = pc.cast(pc.if_else(pa.array(short), unsigned, "0"), pa.int64()).to_numpy(zero_copy_only=False).copy()
    bad = ~short
    long_plain = bad & pc.match_substring_regex(col, _PLAIN_INTEGER).to_numpy(zero_copy_only=False)
    for row, text in zip(np.flatnonzero(long_plain), _texts(col, long_plain), strict=True):
        v = int(text)
        if _INT64_MIN <= v <= _INT64_MAX:
            values[row] = v
            bad[row] = False
    return values, bad


def score_notes(name: str, values: np.ndarray, coerced: np.ndarray, where, text_of) -> list[str]:
    """The notes on a score column read by :func:`atof_column`: fields read with C ``atof`` and
    values that are not finite (each: how many, the first one, its text and value).
    ``where(row)`` / ``text_of(row)``: where a row is (``line 7``) and its field's text."""
    out = []
    n = int(coerced.sum())
    if n:
        row = int(np.argmax(coerced))
        out.append(f"{name}: {n} score(s) read with C atof, as trec_eval reads them (not a plain decimal number; "
                   f"first: {where(row)}, {text_of(row)!r} -> {float(values[row])!r})")
    bad = ~np.isfinite(values)
    n_bad = int(bad.sum())
    if n_bad:
        row = int(np.argmax(bad))
        out.append(f"{name}: {n_bad} score(s) not finite (first: {where(row)}, {text_of(row)!r} -> "
                   f"{float(values[row])!r}): kept, as trec_eval keeps them (inf orders first or last; NaN: "
                   "after every number, or under ties=docno-desc where trec_eval's qsort puts it)")
    return out


def rank_note(name: str, bad: np.ndarray, where, text_of) -> str | None:
    """The note on a rank column with fields that are not integers (trec_eval never reads the
    rank field: get_trec_results.c keeps it as text, form_res_rels.c ranks by score)."""
    n = int(bad.sum())
    if not n:
        return None
    row = int(np.argmax(bad))
    return (f"{name}: rank column not an integer on {n} line(s) (first: {where(row)}, {text_of(row)!r}): "
            "ignored, as trec_eval does (ties=rank, which orders by it, refuses the run)")


def atof_value(value: object) -> tuple[float, bool]:
    """One in-memory score as the readers read a file's (C ``atof`` for text, :func:`atof_column`),
    and whether it was text that is not a plain decimal number; a number is ``float(value)``.
    Raises TypeError/ValueError for what is neither (None, a list)."""
    if isinstance(value, bytes):
        value = value.decode("latin-1")
    if isinstance(value, str):
        if _PLAIN_FLOAT.fullmatch(value):
            return float(value), False
        return c_atof(value), True
    return float(value), False  # type: ignore[arg-type]


def integer_value(value: object) -> int | None:
    """An in-memory rank as an int64, or None when it is not an integer (``-``, ``1.5``, NaN,
    outside int64): integral floats and decimal-integer text are integers."""
    if isinstance(value, bool):
        return None
    if isinstance(value, str | bytes):
        text = value.decode("latin-1") if isinstance(value, bytes) else value
        v = int(text) if _PLAIN_INT.fullmatch(text) else None
    else:
        try:
            f = float(value)  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return None
        v = int(f) if math.isfinite(f) and f == int(f) else None
        if v is not None and isinstance(value, int | np.integer):
            v = int(value)
    return v if v is not None and _INT64_MIN <= v <= _INT64_MAX else None
