"""Raw input: the bytes of a file (gzip, stdin), UTF-8 check, and the general path's
whitespace-split lines with their line numbers (:class:`Split`).

Lines whose first non-blank character is ``#`` (comments, ir_metadata headers; trec_eval
10 accepts them) are skipped and counted in ``notes``; blank lines likewise. A UTF-8
byte order mark opening the file is removed, with a note (trec_eval keeps it in the first
topic id). Everything else must parse or the reader raises
:class:`~auditeval.vocab.errors.InputError` as ``path:line: reason``.
"""

from __future__ import annotations

import gzip
import io
import os
import sys
import zlib
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.errors import InputError

BOM = b"\xef\xbb\xbf"  # UTF-8 byte order mark


def read_bytes(path: str | Path) -> tuple[bytes, str]:
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


def lenient_bytes(path: str | Path) -> bytes:
    """A file's bytes as trec_eval reads them: b"" when it cannot be read (the caller words the
    failure in the tool's terms), gzip decompressed, corrupt gzip data kept as it is."""
    try:
        with open(path, "rb") as fh:
            return gunzip_lenient(fh.read())
    except OSError:
        return b""


def gunzip_lenient(data: bytes) -> bytes:
    """``data`` decompressed when it is gzip, as it is when not or when corrupt."""
    if data[:2] == b"\x1f\x8b":
        try:
            return gzip.decompress(data)
        except (OSError, EOFError, zlib.error):
            pass
    return data


def head_bytes(path: str | Path, size: int = 1 << 16) -> bytes:
    """The first ``size`` (decompressed) bytes of ``path``, or b"" when it cannot be read (the
    full read that follows reports why); enough to tell a file's format without reading it all."""
    try:
        with open(path, "rb") as fh:
            head = fh.read(size)
    except OSError:
        return b""
    if head[:2] == b"\x1f\x8b":
        try:
            return zlib.decompressobj(wbits=31).decompress(head, size)
        except zlib.error:
            return b""
    return head


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


class Split:
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


def is_plain_file(path: str | Path) -> bool:
    """A regular file that is not gzip: the fast path may read it by path."""
    if str(path) == "-":
        return False
    try:
        with open(path, "rb") as fh:
            return os.path.isfile(path) and fh.read(2) != b"\x1f\x8b"
    except OSError:
        return False


def bad_field_count(split: Split, ok: np.ndarray, expected: str, kind: str) -> None:
    if ok.all():
        return
    row = int(np.flatnonzero(~ok)[0])
    n = int(split.nfields[row])
    raise InputError(
        split.name,
        split.line_of(row),
        f"{kind} line has {n} field{'s' if n != 1 else ''}, expected {expected}",
    )
