"""The fast path: a *regular* qrels or run file parsed in one pass by Arrow's CSV reader.

Regular: one space (or one tab) between fields, exactly 4 or 6 printable-ASCII fields,
integer grade/rank, finite score, no comment or blank line (a leading ``#`` header block
may be allowed). Anything else returns None and the general path (:mod:`.readers`) alone
decides and words errors. The trec_eval drop-in shares it through :func:`read_regular`.
"""

from __future__ import annotations

import json
import mmap
import os
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from auditeval.io.lines import BOM

_SNIFF = 1 << 16


_HEADER_KEY = b"auditeval.comment_header_lines"
_VALUES_KEY = b"auditeval.dropped."


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
    """Comment lines skipped before the rows of a table from :func:`fast_table`."""
    return int((table.schema.metadata or {}).get(_HEADER_KEY, b"0"))


def fast_table(
    source: bytes | str | Path,
    types: list[pa.DataType],
    lone_cr_ok: bool = True,
    comment_header: bool = False,
    names: list[str] | None = None,
    keep: tuple[int, ...] | None = None,
    check_dropped: bool = True,
) -> pa.Table | None:
    """Parse a *regular* file in one pass with Arrow's CSV reader, or return None.

    ``source``: the file's bytes, or its path (streamed by Arrow in 1 MiB blocks, converted
    and checked block by block, so neither the whole text nor a second copy of a column is
    ever held; compressed files, stdin and anything that is not a plain file return None:
    the caller reads bytes and calls again or goes general).

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

    ``names``: the column names (default ``f0``, ``f1``, ...). ``keep``: the indices of the
    columns the table keeps (default all); every other column is still parsed and checked,
    block by block, then let go: of a dropped dictionary column (the run's ``Q0`` and tag)
    only its distinct values and its last value are kept (:func:`dropped_values`), which
    spares the memory of a per-row column nobody reads.

    ``check_dropped=False``: the columns outside ``keep`` are read as bytes (``pa.binary()``,
    about a third of the reader's CPU time on a 7M-line run), for a reader that ignores their
    values, as trec_eval ignores Q0 and the rank, and checked only for what makes their fields
    the ones a whitespace split gives: non-empty, no byte up to 0x20 (tab, vertical tab, form
    feed, a space in a tab-separated file). Of each dropped column only the last line's value
    is kept (:func:`dropped_values` gives None for the distinct values), None unless printable
    ASCII.
    """
    opened = _open(source, lone_cr_ok)
    if opened is None:
        return None
    stream, sniff = opened
    layout = _layout(sniff, comment_header)
    if layout is None:
        stream.close()
        return None
    delimiter, n_header = layout
    names = names or [f"f{i}" for i in range(len(types))]
    keep = tuple(range(len(types))) if keep is None else keep
    if not check_dropped:
        types = [t if k in keep else pa.binary() for k, t in enumerate(types)]
    try:
        read = _read_blocks(stream, names, types, keep, delimiter, n_header)
    finally:
        stream.close()
    if read is None:
        return None
    kept, dropped, last = read
    meta = {}
    if n_header:
        meta[_HEADER_KEY] = str(n_header).encode()
    for name, seen in dropped.items():
        col = last.column(name)
        value = col[len(col) - 1].as_py()
        if isinstance(value, bytes):  # dropped unchecked: the last value only, if printable ASCII
            plain = value and min(value) > 0x20 and max(value) < 0x7F
            meta[_VALUES_KEY + name.encode()] = json.dumps([None, value.decode("ascii") if plain else None]).encode()
            continue
        meta[_VALUES_KEY + name.encode()] = json.dumps([list(seen), value]).encode()
    table = pa.table(
        {names[k]: pa.chunked_array(chunks, type=types[k]) for k, chunks in zip(keep, kept, strict=True)}
    )
    return table.replace_schema_metadata(meta) if meta else table


def _open(source: bytes | str | Path, lone_cr_ok: bool):
    """An Arrow stream of ``source`` and its first ``2 * _SNIFF`` bytes, or None: too short,
    gzip, a lone CR where ``lone_cr_ok`` is false, stdin, not a plain file, unreadable."""
    if isinstance(source, bytes | bytearray | memoryview):
        data = bytes(source) if not isinstance(source, bytes) else source
        if len(data) < 2 or data[:2] == b"\x1f\x8b":
            return None
        if not lone_cr_ok and b"\r" in data and data.count(b"\r") != data.count(b"\r\n"):
            return None
        return pa.BufferReader(data), data[: 2 * _SNIFF]
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
        return pa.OSFile(name), sniff
    except OSError:
        return None


def _layout(sniff: bytes, comment_header: bool) -> tuple[str, int] | None:
    """The delimiter (one tab when the first 64 KiB after the header hold tabs and no space,
    else one space) and the number of ``#`` header lines; None for the general path (a BOM,
    a header that is not plain, both tabs and spaces)."""
    if sniff.startswith(BOM):  # Arrow would drop it silently; the general path notes it
        return None
    n_header = 0
    if comment_header:
        hb = _comment_header(sniff[:_SNIFF])
        if hb is None:
            return None
        n_header = sniff[:hb].count(b"\n")
        sniff = sniff[hb:]
    sniff = sniff[:_SNIFF]
    if b"\t" in sniff:
        if b" " in sniff:
            return None
        return "\t", n_header
    return " ", n_header


def _read_blocks(stream, names: list[str], types: list[pa.DataType], keep: tuple[int, ...], delimiter: str,
                 n_header: int):
    """Every block of ``stream`` parsed and checked: the kept columns' chunks, the dropped
    columns' distinct values (of dictionary columns), the last block; None when a block is
    not regular (or none holds a row)."""
    checks = [_column_check(typ, first_field=k == 0) for k, typ in enumerate(types)]
    dropped: dict[str, dict[str, None]] = {names[k]: {} for k in range(len(types)) if k not in keep}
    kept: list[list[pa.Array]] = [[] for _ in keep]
    last: pa.RecordBatch | None = None
    try:
        reader = pacsv.open_csv(
            stream,
            read_options=pacsv.ReadOptions(column_names=names, block_size=_BLOCK, skip_rows=n_header),
            parse_options=pacsv.ParseOptions(
                delimiter=delimiter, quote_char=False, escape_char=False, ignore_empty_lines=False
            ),
            convert_options=pacsv.ConvertOptions(
                column_types=dict(zip(names, types, strict=True)),
                strings_can_be_null=False,
                quoted_strings_can_be_null=False,
            ),
        )
        for batch in reader:
            if not batch.num_rows:
                continue
            for k, col in enumerate(batch.columns):
                if not checks[k](col):
                    return None
            for i, k in enumerate(keep):
                kept[i].append(batch.column(k))
            for name, seen in dropped.items():
                col = batch.column(name)
                seen.update(dict.fromkeys(col.dictionary.to_pylist() if pa.types.is_dictionary(col.type) else ()))
            last = batch
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, OSError):
        return None
    if last is None:
        return None
    return kept, dropped, last


_BLOCK = 1 << 20  # smaller blocks hold less transient text; 1 MiB parses as fast as 8 MiB


def _column_check(typ: pa.DataType, first_field: bool):
    """A check of one block's column of type ``typ``: no null (a blank line, or a null
    spelling in a number column), finite floats (inf: the general path decides, strict
    rejects it), plain field values in string and dictionary columns; in a binary column (a
    column dropped unchecked) no empty value (two delimiters in a row) and no byte up to 0x20
    (whitespace a whitespace split would split at)."""

    def check(col: pa.Array) -> bool:
        if col.null_count:
            return False
        if pa.types.is_binary(typ):
            return _unsplit_values(col)
        if pa.types.is_dictionary(typ):
            return _plain_field_values(col.dictionary, first_field)
        if pa.types.is_string(typ):
            return _plain_field_values(col, first_field)
        return not pa.types.is_floating(typ) or bool(np.isfinite(col.to_numpy()).all())

    return check


def dropped_values(table: pa.Table, name: str) -> tuple[list[str] | None, str | None]:
    """Distinct values (first appearance) and last value of a column :func:`fast_table` dropped
    (dropped unchecked, ``check_dropped=False``: distinct values None, the last value None
    unless printable ASCII)."""
    distinct, last = json.loads((table.schema.metadata or {})[_VALUES_KEY + name.encode()])
    return distinct, last


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


def _unsplit_values(arr: pa.Array) -> bool:
    """Every value of a binary column non-empty, no byte of it 0x20 or lower."""
    if len(arr) == 0:
        return True
    offs = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    if (offs[1:] == offs[:-1]).any():
        return False
    return bool(np.frombuffer(arr.buffers()[2], dtype=np.uint8)[offs[0] : offs[-1]].min() > 0x20)


def _plain_field_values(arr: pa.Array, first_field: bool) -> bool:
    """Every value non-empty printable ASCII (0x21-0x7e); a first field not starting with ``#``."""
    if len(arr) == 0:
        return True
    if arr.null_count:
        return False
    offs = np.frombuffer(arr.buffers()[1], dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    if (offs[1:] == offs[:-1]).any():  # an empty value (numpy: a block's checks are many small calls)
        return False
    data = np.frombuffer(arr.buffers()[2], dtype=np.uint8)
    body = data[offs[0] : offs[-1]]
    if body.min() <= 0x20 or body.max() >= 0x7F:
        return False
    return not (first_field and (data[offs[:-1]] == ord("#")).any())


def dict_values(col: pa.ChunkedArray) -> list[str]:
    """Distinct values of a dictionary-typed column read by :func:`fast_table`."""
    out: dict[str, None] = {}
    for c in col.chunks:
        out.update(dict.fromkeys(c.dictionary.to_pylist()))
    return list(out)


_DICT_STR = pa.dictionary(pa.int32(), pa.string())
FAST_TYPES = {
    "qrels": [pa.string(), _DICT_STR, pa.string(), pa.int64()],
    "run": [pa.string(), _DICT_STR, pa.string(), pa.int64(), pa.float64(), _DICT_STR],
    "msmarco": [pa.string(), pa.string(), pa.int64()],  # MS MARCO candidate file: qid pid rank
}
FAST_NAMES = {
    "qrels": ["topic", "iteration", "doc", "grade"],
    "run": ["topic", "q0", "doc", "rank", "score", "tag"],
    "msmarco": ["topic", "doc", "rank"],
}


def read_regular(
    source: bytes | str | Path,
    kind: str,
    lone_cr_ok: bool = True,
    comment_header: bool = False,
    keep: tuple[str, ...] | None = None,
    check_dropped: bool = True,
) -> pa.Table | None:
    """The fields of a *regular* qrels (``kind="qrels"``) or run (``"run"``) file, or None.

    ``source``: the file's bytes or its path (see :func:`fast_table`). Regular: one space
    or one tab between fields, exactly 4 or 6 fields, integer grade/rank, finite score, no
    comment/blank line, printable ASCII. Columns:
    ``topic, iteration, doc, grade`` or ``topic, q0, doc, rank, score, tag`` (iteration, q0
    and tag dictionary-encoded), or only those named in ``keep`` (the others are checked
    all the same; the run tags are then :func:`run_tags`); line ``i`` of the file is row
    ``i - 1``. On None, parse the file the general way: it alone decides and words errors.
    For readers with other rules (the trec_eval drop-in) that agree on regular files.
    ``comment_header``: skip a leading block of ``#`` lines; their count is
    :func:`header_lines` (row ``i`` is then line ``i + 1 + count``). ``check_dropped=False``:
    the columns outside ``keep`` are read as bytes, not converted (see :func:`fast_table`).
    """
    names = FAST_NAMES[kind]
    idx = None if keep is None else tuple(names.index(k) for k in keep)
    return fast_table(source, FAST_TYPES[kind], lone_cr_ok=lone_cr_ok, comment_header=comment_header, names=names,
                      keep=idx, check_dropped=check_dropped)


def last_value(col: pa.ChunkedArray) -> str:
    """The last value of a (dictionary-encoded) column, e.g. the run tag of the last line."""
    last = [c for c in col.chunks if len(c)][-1]
    v = last[len(last) - 1]
    return v.as_py()


def run_tags(table: pa.Table, name: str = "tag") -> tuple[list[str] | None, str | None]:
    """The distinct run tags (first appearance) of a table from :func:`fast_table` and the
    last line's tag (the one trec_eval reports), whether the tag column was kept or dropped
    (dropped unchecked: see :func:`dropped_values`)."""
    if name in table.column_names:
        return dict_values(table.column(name)), last_value(table.column(name))
    return dropped_values(table, name)
