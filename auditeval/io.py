"""TREC qrels and run readers/writers, plus in-memory inputs.

Formats (trec_eval's ``get_qrels.c`` / ``get_trec_results.c``)::

    qrels:  TOPIC  ITERATION  DOCNO  GRADE            (exactly 4 fields)
    run:    TOPIC  Q0  DOCNO  RANK  SCORE  RUN_TAG    (6 fields)

Fields are separated by any whitespace. Lines whose first non-blank character is ``#``
(comments, ir_metadata headers; trec_eval 10 accepts them) are skipped and counted in
``notes``; blank lines likewise. Everything else must parse or the reader raises
:class:`~auditeval.errors.InputError` as ``path:line: reason``.

Parsing is columnar (pyarrow): the file is read as one string column, split on
whitespace, validated with vector kernels, and only on failure scanned line by line to
name the first offending line.

``numbers="strict"`` (default) accepts any float notation Python and Arrow agree on
(``1e-3``, ``5E-4``, ``.5``) and rejects NaN, infinities and non-numbers.
``numbers="atof"`` reproduces C ``atof``/``atol`` as trec_eval uses them (``abc`` -> 0,
``0x10`` -> 16, ``nan`` kept, grade ``1.0`` -> 1); it exists for the trec_eval drop-in and
every value it had to coerce is counted in ``notes``.
"""

from __future__ import annotations

import gzip
import io
import math
import mmap
import os
import re
import sys
import zlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc
import pyarrow.csv as pacsv

from .errors import InputError
from .model import Qrels, Run, qrels_table, run_table

QRELS_FIELDS = 4
RUN_FIELDS = 6
BOM = b"\xef\xbb\xbf"  # UTF-8 byte order mark


# --------------------------------------------------------------------------- raw bytes
def _read_bytes(path: str | Path) -> tuple[bytes, str]:
    """Return the (decompressed) bytes of ``path`` (``-`` = stdin) and a display name."""
    name = str(path)
    if name == "-":
        data = sys.stdin.buffer.read()
        name = "<stdin>"
    else:
        p = Path(path)
        if not p.exists():
            raise InputError(name, None, "no such file")
        if p.is_dir():
            raise InputError(name, None, "is a directory, not a file")
        try:
            data = p.read_bytes()
        except OSError as exc:
            raise InputError(name, None, f"cannot read ({exc.strerror or exc})") from None
    if data[:2] == b"\x1f\x8b":
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(name, None, f"corrupt gzip data ({exc})") from None
    return data, name


def _check_utf8(data: bytes, name: str) -> None:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            name, line, f"undecodable bytes (not UTF-8): {data[exc.start:exc.end]!r}"
        ) from None


def _lines_column(data: bytes) -> pa.Array:
    """One string per physical line, in order (line i+1 is element i)."""
    if not data:
        return pa.array([], pa.string())
    if b"\x1f" in data:  # the delimiter below; whitespace to the field splitter anyway
        data = data.replace(b"\x1f", b" ")
    tbl = pacsv.read_csv(
        io.BytesIO(data),
        read_options=pacsv.ReadOptions(column_names=["l"], block_size=1 << 24),
        parse_options=pacsv.ParseOptions(
            delimiter="\x1f", quote_char=False, escape_char=False, ignore_empty_lines=False
        ),
        convert_options=pacsv.ConvertOptions(
            column_types={"l": pa.string()}, strings_can_be_null=False, quoted_strings_can_be_null=False
        ),
    )
    col = tbl.column("l").combine_chunks()
    return pc.fill_null(col, "")


class _Split:
    """Whitespace-split lines with their 1-based line numbers, comments/blank removed."""

    def __init__(self, data: bytes, name: str, kind: str):
        self.name = name
        self.notes: list[str] = []
        if data.startswith(BOM):
            data = data[len(BOM):]
            self.notes.append(
                f"{name}: removed the UTF-8 byte order mark (EF BB BF) opening the file "
                "(trec_eval keeps it as part of the first topic id)"
            )
        _check_utf8(data, name)
        lines = _lines_column(data)
        if len(lines) == 0 or not data.strip():
            raise InputError(name, None, f"empty {kind} file (no lines)")
        stripped = pc.utf8_trim_whitespace(lines)
        blank = pc.equal(stripped, "")
        comment = pc.starts_with(stripped, "#")
        keep = pc.invert(pc.or_(blank, comment))
        n_blank = pc.sum(blank).as_py() or 0
        n_comment = pc.sum(comment).as_py() or 0
        if n_comment:
            self.notes.append(f"{name}: skipped {n_comment} comment line(s) starting with '#'")
        if n_blank:
            self.notes.append(f"{name}: skipped {n_blank} blank line(s)")
        self.n_blank = n_blank
        self.n_comment = n_comment
        self.skipped = {
            "blank": tuple(np.flatnonzero(blank.to_numpy(zero_copy_only=False)) + 1),
            "comment": tuple(np.flatnonzero(comment.to_numpy(zero_copy_only=False)) + 1),
        }
        self.lineno = np.flatnonzero(keep.to_numpy(zero_copy_only=False)) + 1
        kept = pc.filter(stripped, keep)
        if len(kept) == 0:
            raise InputError(name, None, f"empty {kind} file (only comments or blank lines)")
        self.fields = pc.utf8_split_whitespace(kept)
        self.nfields = pc.list_value_length(self.fields).to_numpy(zero_copy_only=False)

    def column(self, i: int) -> pa.Array:
        return pc.list_element(self.fields, i)

    def line_of(self, row: int) -> int:
        return int(self.lineno[row])


# --------------------------------------------------------------------------- fast path
_SNIFF = 1 << 16


_HEADER_KEY = b"auditeval.comment_header_lines"


def _comment_header(head: bytes) -> int | None:
    """Length in bytes of the ``#`` lines opening ``head`` (0 if none); None when they do not
    end inside ``head`` or hold a CR or bytes that are not UTF-8 (the general path decides)."""
    pos = 0
    while head.startswith(b"#", pos):
        nl = head.find(b"\n", pos)
        if nl == -1:
            return None
        pos = nl + 1
    if pos:
        if b"\r" in head[:pos]:
            return None
        try:
            head[:pos].decode("utf-8")
        except UnicodeDecodeError:
            return None
    return pos


def header_lines(table: pa.Table) -> int:
    """Comment lines skipped before the rows of a table from :func:`_fast_table`."""
    return int((table.schema.metadata or {}).get(_HEADER_KEY, b"0"))


def _fast_table(
    source: bytes | str | Path, types: list[pa.DataType], lone_cr_ok: bool = True, comment_header: bool = False
) -> pa.Table | None:
    """Parse a *regular* file in one pass with Arrow's CSV reader, or return None.

    ``source``: the file's bytes, or its path (read by Arrow block by block, so the whole
    file is never held as one Python object; compressed files, stdin and anything that is
    not a plain file return None: the caller reads bytes and calls again or goes general).

    Regular: fields separated by exactly one space (or exactly one tab when the first 64 KiB
    hold no space), exactly ``len(types)`` fields on every line, every field non-empty and
    made of printable ASCII (no whitespace, control or non-ASCII byte inside a field), no
    comment (a first field starting with ``#``) or blank line, every number accepted by
    Arrow (no null spelling such as ``nan``) and finite. Lines end with LF, CRLF or CR as on
    the general path, which reads lines with the same Arrow reader (``lone_cr_ok=False``
    returns None on any CR not followed by LF, for readers that split lines on LF only).
    Such a file has the same fields, line numbers and values on the general path, which is
    taken for anything else and alone decides (and words) every error.

    ``comment_header``: the file may open with lines starting with ``#`` (an ir_metadata
    header, within the first 64 KiB); they are skipped and counted (:func:`header_lines`),
    as the general path does. Comment lines anywhere else still mean the general path.
    """
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source) if not isinstance(source, bytes) else source
        if len(data) < 2 or data[:2] == b"\x1f\x8b":
            return None
        if not lone_cr_ok and b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
            return None
        sniff = data[: 2 * _SNIFF]
        stream = pa.BufferReader(data)
    else:
        name = str(source)
        if name == "-" or not os.path.isfile(name):
            return None
        try:
            with open(name, "rb") as fh:
                sniff = fh.read(2 * _SNIFF)
                if len(sniff) < 2 or sniff[:2] == b"\x1f\x8b":
                    return None
                if not lone_cr_ok and not _crlf_only(fh):
                    return None
            stream = pa.OSFile(name)
        except OSError:
            return None
    if sniff.startswith(BOM):  # Arrow would drop it silently; the general path notes it
        stream.close()
        return None
    n_header = 0
    if comment_header:
        hb = _comment_header(sniff[:_SNIFF])
        if hb is None:
            stream.close()
            return None
        n_header = sniff[:hb].count(b"\n")
        sniff = sniff[hb:]
    sniff = sniff[:_SNIFF]
    if b"\t" in sniff:
        if b" " in sniff:
            stream.close()
            return None
        delimiter = "\t"
    else:
        delimiter = " "
    names = [f"f{i}" for i in range(len(types))]
    try:
        table = pacsv.read_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=names, block_size=1 << 23, skip_rows=n_header),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict(zip(names, types, strict=True)),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    finally:
        stream.close()
    if table.num_rows == 0:
        return None
    for k, (col, typ) in enumerate(zip(table.columns, types, strict=True)):
        if col.null_count:  # blank line, or a null spelling in a number column
            return None
        if pa.types.is_dictionary(typ):
            chunks = [c.dictionary for c in col.chunks]
        elif pa.types.is_string(typ):
            chunks = col.chunks
        else:
            if pa.types.is_floating(typ) and not pc.all(pc.is_finite(col)).as_py():
                return None  # inf: the general path decides (strict rejects it)
            continue
        if not all(_plain_field_values(c, first_field=k == 0) for c in chunks):
            return None
    if n_header:
        table = table.replace_schema_metadata({_HEADER_KEY: str(n_header).encode()})
    return table


def _crlf_only(fh) -> bool:
    """Whether every CR in the open file ``fh`` is followed by LF (mapped, not read: no copy)."""
    size = os.fstat(fh.fileno()).st_size
    if size == 0:
        return True
    with mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as mm:
        if mm.find(b"\r") == -1:
            return True
    # some CR: count CRs and CRLFs block by block (a CR ending a block is carried over)
    fh.seek(0)
    carry = b""
    while block := fh.read(1 << 24):
        buf = carry + block
        n_cr = buf.count(b"\r")
        carry = b"\r" if buf.endswith(b"\r") else b""
        if n_cr - len(carry) != buf.count(b"\r\n"):
            return False
    return not carry


def _plain_field_values(arr: pa.Array, first_field: bool) -> bool:
    """Every value non-empty printable ASCII (0x21-0x7e); a first field not starting with ``#``."""
    if len(arr) == 0:
        return True
    if arr.null_count or pc.min(pc.binary_length(arr)).as_py() == 0:
        return False
    offs = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)
    body = data[offs[0] : offs[-1]]
    if body.min() <= 0x20 or body.max() >= 0x7F:
        return False
    return not (first_field and (data[offs[:-1]] == ord("#")).any())


def _dict_values(col: pa.ChunkedArray) -> list[str]:
    """Distinct values of a dictionary-typed column read by :func:`_fast_table`."""
    out: dict[str, None] = {}
    for c in col.chunks:
        out.update(dict.fromkeys(c.dictionary.to_pylist()))
    return list(out)


_DICT_STR = pa.dictionary(pa.int32(), pa.string())
_FAST_TYPES = {
    "qrels": [pa.string(), _DICT_STR, pa.string(), pa.int64()],
    "run": [pa.string(), _DICT_STR, pa.string(), pa.int64(), pa.float64(), _DICT_STR],
}
_FAST_NAMES = {
    "qrels": ["topic", "iteration", "doc", "grade"],
    "run": ["topic", "q0", "doc", "rank", "score", "tag"],
}


def read_regular(
    source: bytes | str | Path, kind: str, lone_cr_ok: bool = True, comment_header: bool = False
) -> pa.Table | None:
    """The fields of a *regular* qrels (``kind="qrels"``) or run (``"run"``) file, or None.

    ``source``: the file's bytes or its path (see :func:`_fast_table`). Regular: one space
    or one tab between fields, exactly 4 or 6 fields, integer grade/rank, finite score, no
    comment/blank line, printable ASCII. Columns:
    ``topic, iteration, doc, grade`` or ``topic, q0, doc, rank, score, tag`` (iteration, q0
    and tag dictionary-encoded); line ``i`` of the file is row ``i - 1``. On None, parse the
    file the general way: it alone decides and words errors. For readers with other rules
    (the trec_eval drop-in) that agree on regular files. ``comment_header``: skip a leading
    block of ``#`` lines; their count is :func:`header_lines` (row ``i`` is then line
    ``i + 1 + count``).
    """
    table = _fast_table(source, _FAST_TYPES[kind], lone_cr_ok=lone_cr_ok, comment_header=comment_header)
    if table is None:
        return None
    return table.rename_columns(_FAST_NAMES[kind]).replace_schema_metadata(table.schema.metadata)


def last_value(col: pa.ChunkedArray) -> str:
    """The last value of a (dictionary-encoded) column, e.g. the run tag of the last line."""
    last = [c for c in col.chunks if len(c)][-1]
    v = last[len(last) - 1]
    return v.as_py()


# --------------------------------------------------------------------------- C atof/atol
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


# --------------------------------------------------------------------------- numbers
_PLAIN_FLOAT = re.compile(r"[+-]?(?:(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?|inf(?:inity)?|nan)", re.IGNORECASE)
_PLAIN_INT = re.compile(r"[+-]?[0-9]+")
_INT64_MIN, _INT64_MAX = -(2**63), 2**63 - 1


def _parse_numbers(
    col: pa.Array, split: _Split, what: str, kind: str, numbers: str
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


def _bad_field_count(split: _Split, ok: np.ndarray, expected: str, kind: str) -> None:
    if ok.all():
        return
    row = int(np.flatnonzero(~ok)[0])
    n = int(split.nfields[row])
    raise InputError(
        split.name,
        split.line_of(row),
        f"{kind} line has {n} field{'s' if n != 1 else ''}, expected {expected}",
    )


# --------------------------------------------------------------------------- qrels
def read_qrels(path: str | Path, numbers: str = "strict") -> Qrels:
    """Read a TREC qrels file (plain, ``.gz`` or ``-`` for stdin), or an ``irds:`` id."""
    if str(path).startswith("irds:"):
        return qrels_from_irds(str(path)[5:])
    plain = _is_plain_file(path)
    if plain:
        fast = _fast_table(path, _FAST_TYPES["qrels"], comment_header=True)
        if fast is not None:
            return _fast_qrels(fast, str(path))
    data, name = _read_bytes(path)
    return _parse_qrels(data, name, numbers, try_fast=not plain)


def parse_qrels(data: bytes, name: str = "<qrels>", numbers: str = "strict") -> Qrels:
    return _parse_qrels(data, name, numbers, try_fast=True)


def _is_plain_file(path: str | Path) -> bool:
    """A regular file that is not gzip: the fast path may read it by path."""
    if str(path) == "-":
        return False
    try:
        with open(path, "rb") as fh:
            return os.path.isfile(path) and fh.read(2) != b"\x1f\x8b"
    except OSError:
        return False


def _header_notes(fast: pa.Table, name: str) -> tuple[int, list[str], dict[str, tuple[int, ...]]]:
    """(lines skipped, notes, skipped) for a table from :func:`_fast_table`, as :class:`_Split` words them."""
    k = header_lines(fast)
    notes = [f"{name}: skipped {k} comment line(s) starting with '#'"] if k else []
    return k, notes, {"blank": (), "comment": tuple(np.arange(1, k + 1))}


def _fast_qrels(fast: pa.Table, name: str) -> Qrels:
    k, notes, skipped = _header_notes(fast, name)
    table = pa.table(
        {
            "topic": fast.column(0),
            "doc": fast.column(2),
            "grade": fast.column(3),
            "line": pa.array(np.arange(k + 1, k + fast.num_rows + 1, dtype=np.int64)),
        }
    )
    return Qrels(table=table, source=name, notes=tuple(notes), skipped=skipped)


def _parse_qrels(data: bytes, name: str, numbers: str, try_fast: bool) -> Qrels:
    if try_fast:
        fast = _fast_table(data, _FAST_TYPES["qrels"], comment_header=True)
        if fast is not None:
            return _fast_qrels(fast, name)
    split = _Split(data, name, "qrels")
    _bad_field_count(split, split.nfields == QRELS_FIELDS, "4 (topic iteration docno grade)", "qrels")
    grade, coerced = _parse_numbers(split.column(3), split, "relevance grade", "int", numbers)
    notes = list(split.notes)
    if coerced:
        notes.append(f"{name}: {coerced} grade(s) read with C atol (non-integer text)")
    table = pa.table(
        {
            "topic": split.column(0),
            "doc": split.column(2),
            "grade": pa.array(grade, pa.int64()),
            "line": pa.array(split.lineno.astype(np.int64)),
        }
    )
    return Qrels(table=table, source=name, notes=tuple(notes), skipped=split.skipped)


# --------------------------------------------------------------------------- runs
def read_run(path: str | Path, numbers: str = "strict", min_fields: int = RUN_FIELDS, max_fields: int | None = RUN_FIELDS) -> Run:
    """Read a TREC run file (plain, ``.gz`` or ``-`` for stdin).

    trec_eval accepts more than 6 fields and ignores the extra ones; pass
    ``max_fields=None`` for that behaviour (the drop-in does). The default is strict.
    """
    fast_ok = min_fields <= RUN_FIELDS and (max_fields is None or max_fields >= RUN_FIELDS)
    plain = fast_ok and _is_plain_file(path)
    if plain:
        fast = _fast_table(path, _FAST_TYPES["run"], comment_header=True)
        if fast is not None:
            return _fast_run(fast, str(path))
    data, name = _read_bytes(path)
    return _parse_run(data, name, numbers, min_fields, max_fields, try_fast=fast_ok and not plain)


def parse_run(
    data: bytes,
    name: str = "<run>",
    numbers: str = "strict",
    min_fields: int = RUN_FIELDS,
    max_fields: int | None = RUN_FIELDS,
) -> Run:
    fast_ok = min_fields <= RUN_FIELDS and (max_fields is None or max_fields >= RUN_FIELDS)
    return _parse_run(data, name, numbers, min_fields, max_fields, try_fast=fast_ok)


def _parse_run(data: bytes, name: str, numbers: str, min_fields: int, max_fields: int | None, try_fast: bool) -> Run:
    if try_fast:
        fast = _fast_table(data, _FAST_TYPES["run"], comment_header=True)
        if fast is not None:
            return _fast_run(fast, name)
    split = _Split(data, name, "run")
    ok = split.nfields >= min_fields
    if max_fields is not None:
        ok &= split.nfields <= max_fields
    expected = "6 (topic Q0 docno rank score tag)" if max_fields == min_fields else f"at least {min_fields}"
    _bad_field_count(split, ok, expected, "run")
    score, coerced = _parse_numbers(split.column(4), split, "score", "float", numbers)
    notes = list(split.notes)
    if coerced:
        notes.append(f"{name}: {coerced} score(s) read with C atof (non-numeric text)")
    n_extra = int((split.nfields > RUN_FIELDS).sum())
    if n_extra:
        notes.append(f"{name}: ignored fields after the 6th on {n_extra} line(s)")
    rank, rank_coerced = _parse_numbers(split.column(3), split, "rank", "int", numbers)
    if rank_coerced:
        notes.append(f"{name}: {rank_coerced} rank(s) read with C atol (non-integer text; only ties=rank reads ranks)")
    tags = split.column(5)
    run_name = tags[len(tags) - 1].as_py()
    table = pa.table(
        {
            "topic": split.column(0),
            "doc": split.column(2),
            "score": pa.array(score, pa.float64()),
            "rank": pa.array(rank, pa.int64()),
            "line": pa.array(split.lineno.astype(np.int64)),
        }
    )
    n_tags = pc.count_distinct(tags).as_py()
    if n_tags > 1:
        notes.append(f"{name}: {n_tags} different run tags; using the last one read, {run_name!r} (as trec_eval)")
    return Run(table=table, name=run_name, source=name, notes=tuple(notes), skipped=split.skipped)


def _fast_run(fast: pa.Table, name: str) -> Run:
    """The :class:`Run` of a file read by :func:`_fast_table` (same table and notes as the general path)."""
    tags = fast.column(5)
    run_name = last_value(tags)
    k, notes, skipped = _header_notes(fast, name)
    table = pa.table(
        {
            "topic": fast.column(0),
            "doc": fast.column(2),
            "score": fast.column(4),
            "rank": fast.column(3),
            "line": pa.array(np.arange(k + 1, k + fast.num_rows + 1, dtype=np.int64)),
        }
    )
    n_tags = len(_dict_values(tags))
    if n_tags > 1:
        notes.append(f"{name}: {n_tags} different run tags; using the last one read, {run_name!r} (as trec_eval)")
    return Run(table=table, name=run_name, source=name, notes=tuple(notes), skipped=skipped)


# --------------------------------------------------------------------------- in-memory
def qrels_from(obj: Any) -> Qrels:
    """Qrels from a path, a :class:`Qrels`, a pandas DataFrame, a dict-of-dicts, or ``irds:ID``."""
    if isinstance(obj, Qrels):
        return obj
    if isinstance(obj, str | Path):
        return read_qrels(obj)
    if isinstance(obj, Mapping):
        topic, doc, grade = [], [], []
        for t, docs in obj.items():
            for d, g in docs.items():
                if not _is_integer(g):
                    raise InputError("<dict>", None, f"grade for topic {t!r} doc {d!r} is not an integer: {g!r}")
                topic.append(str(t))
                doc.append(str(d))
                grade.append(int(g))
        if not grade:
            raise InputError("<dict>", None, "empty qrels (no judgments)")
        return Qrels(qrels_table(topic, doc, grade), source="<dict>")
    if _is_dataframe(obj):
        cols = _df_columns(obj, {"topic": ("query_id", "qid", "topic", "query"), "doc": ("doc_id", "docno", "doc", "docid"), "grade": ("relevance", "rel", "grade", "label")})
        if len(obj) == 0:
            raise InputError("<DataFrame>", None, "empty qrels (no rows)")
        grade = obj[cols["grade"]].to_numpy()
        if not np.issubdtype(grade.dtype, np.integer):
            g = _floats(grade)
            if not np.all(np.isfinite(g)) or np.any(g != np.round(g)):
                row = int(np.flatnonzero(~np.isfinite(g) | (g != np.round(g)))[0])
                raise InputError("<DataFrame>", row + 1, f"grade is not an integer: {np.asarray(grade[row]).item()!r}")
        return Qrels(
            qrels_table(obj[cols["topic"]].astype(str).tolist(), obj[cols["doc"]].astype(str).tolist(), grade.astype(np.int64)),
            source="<DataFrame>",
        )
    raise TypeError(f"cannot read qrels from {type(obj).__name__}")


def run_from(obj: Any, name: str | None = None) -> Run:
    """Run from a path, a :class:`Run`, a pandas DataFrame or a dict-of-dicts (topic -> doc -> score)."""
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, str | Path):
        return read_run(obj)
    if isinstance(obj, Mapping):
        topic, doc, score = [], [], []
        for t, docs in obj.items():
            for d, s in docs.items():
                topic.append(str(t))
                doc.append(str(d))
                try:
                    v = float(s)
                except (TypeError, ValueError):
                    raise InputError("<dict>", None, f"score for topic {t!r} doc {d!r} is not a number: {s!r}") from None
                if not math.isfinite(v):
                    raise InputError("<dict>", None, f"score for topic {t!r} doc {d!r} is not a finite number: {s!r}")
                score.append(v)
        if not score:
            raise InputError("<dict>", None, "empty run (no results)")
        _check_finite(np.asarray(score), "<dict>")
        return Run(run_table(topic, doc, score), name=name or "run", source="<dict>")
    if _is_dataframe(obj):
        cols = _df_columns(obj, {"topic": ("query_id", "qid", "topic", "query"), "doc": ("doc_id", "docno", "doc", "docid"), "score": ("score", "sim")})
        if len(obj) == 0:
            raise InputError("<DataFrame>", None, "empty run (no rows)")
        raw = obj[cols["score"]].to_numpy()
        score = _floats(raw)
        _check_finite(score, "<DataFrame>", raw)
        rank = obj["rank"].to_numpy(np.int64) if "rank" in obj.columns else None
        return Run(
            run_table(obj[cols["topic"]].astype(str).tolist(), obj[cols["doc"]].astype(str).tolist(), score, rank),
            name=name or "run",
            source="<DataFrame>",
        )
    raise TypeError(f"cannot read a run from {type(obj).__name__}")


def _check_finite(score: np.ndarray, name: str, raw: np.ndarray | None = None) -> None:
    bad = ~np.isfinite(score)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        shown = np.asarray((score if raw is None else raw)[row]).item()
        raise InputError(name, row + 1, f"score is not a finite number: {shown!r}")


def _floats(values: np.ndarray) -> np.ndarray:
    """float64 of an in-memory column; values that are not numbers become NaN (reported by the caller)."""
    try:
        return values.astype(np.float64)
    except (TypeError, ValueError):
        out = np.full(len(values), np.nan)
        for i, v in enumerate(values):
            try:
                out[i] = float(v)
            except (TypeError, ValueError):
                pass
        return out


def _is_integer(g: Any) -> bool:
    if isinstance(g, bool | str):
        return False
    try:
        return int(g) == g
    except (TypeError, ValueError, OverflowError):
        return False


def _is_dataframe(obj: Any) -> bool:
    return type(obj).__name__ == "DataFrame" and hasattr(obj, "columns")


def _df_columns(df: Any, wanted: dict[str, tuple[str, ...]]) -> dict[str, str]:
    out = {}
    for key, names in wanted.items():
        for n in names:
            if n in df.columns:
                out[key] = n
                break
        else:
            raise InputError("<DataFrame>", None, f"no {key} column (tried {', '.join(names)})")
    return out


def qrels_from_irds(dataset_id: str) -> Qrels:
    """Qrels of an ir_datasets dataset, e.g. ``msmarco-passage/trec-dl-2019/judged``."""
    try:
        import ir_datasets
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise InputError(f"irds:{dataset_id}", None, "ir_datasets is not installed (pip install ir-datasets)") from exc
    try:
        ds = ir_datasets.load(dataset_id)
    except KeyError as exc:
        raise InputError(f"irds:{dataset_id}", None, f"unknown ir_datasets id ({exc})") from None
    if not ds.has_qrels():
        raise InputError(f"irds:{dataset_id}", None, "dataset has no qrels")
    topic, doc, grade = [], [], []
    for q in ds.qrels_iter():
        topic.append(str(q.query_id))
        doc.append(str(q.doc_id))
        grade.append(int(q.relevance))
    if not grade:
        raise InputError(f"irds:{dataset_id}", None, "empty qrels (no judgments)")
    return Qrels(qrels_table(topic, doc, grade), source=f"irds:{dataset_id}")


# --------------------------------------------------------------------------- writers
_UNWRITABLE = r"^$|[\s\x0b\x1c-\x1f\x85\p{Z}]"  # what the readers would split on (or lose)


def _check_writable(path: str | Path, what: str, col: pa.Array | pa.ChunkedArray, topic: bool = False) -> None:
    """Refuse ids the readers could not read back: empty, holding whitespace, or (topics) starting with '#'."""
    pattern = _UNWRITABLE + (r"|^#" if topic else "")
    bad = pc.match_substring_regex(col, pattern)
    if pc.any(bad).as_py():
        value = pc.filter(col, bad)[0].as_py()
        why = "starts with '#' (read back as a comment)" if topic and value.startswith("#") else "is empty or holds whitespace"
        raise InputError(str(path), None, f"cannot write {what} {value!r}: it {why}")


def write_run(run: Run, path: str | Path) -> None:
    """Write a run in TREC format (6 columns, ``.gz`` when the name ends so)."""
    t = run.table
    _check_writable(path, "topic id", t.column("topic"), topic=True)
    _check_writable(path, "doc id", t.column("doc"))
    _check_writable(path, "run tag", pa.array([run.name], pa.string()))
    lines = [
        f"{q} Q0 {d} {r} {s!r} {run.name}\n"
        for q, d, r, s in zip(
            t.column("topic").to_pylist(), t.column("doc").to_pylist(), t.column("rank").to_pylist(), t.column("score").to_pylist(), strict=True
        )
    ]
    _write_text(path, "".join(lines))


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write qrels in TREC format (4 columns, ``.gz`` when the name ends so)."""
    t = qrels.table
    _check_writable(path, "topic id", t.column("topic"), topic=True)
    _check_writable(path, "doc id", t.column("doc"))
    lines = [
        f"{q} 0 {d} {g}\n"
        for q, d, g in zip(t.column("topic").to_pylist(), t.column("doc").to_pylist(), t.column("grade").to_pylist(), strict=True)
    ]
    _write_text(path, "".join(lines))


def _write_text(path: str | Path, text: str) -> None:
    if str(path) == "-":
        sys.stdout.write(text)
        return
    data = text.encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    Path(path).write_bytes(data)
