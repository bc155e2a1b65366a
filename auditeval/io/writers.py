"""Writing qrels and runs in TREC format (``.gz`` when the name ends so, ``-`` for stdout)."""

from __future__ import annotations

import gzip
import sys
from pathlib import Path

import pyarrow as pa

from auditeval.io.files import write_bytes
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.errors import InputError
from auditeval.vocab.model import Qrels, Run

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
        f"{q} Q0 {d} {'-' if r is None else r} {s!r} {run.name}\n"  # a rank not read (null) as '-', read back so
        for q, d, r, s in zip(
            t.column("topic").to_pylist(), t.column("doc").to_pylist(), t.column("rank").to_pylist(), t.column("score").to_pylist(), strict=True
        )
    ]
    _write_text(path, "".join(lines))


def write_qrels(qrels: Qrels, path: str | Path) -> None:
    """Write qrels in TREC format (4 columns, ``.gz`` when the name ends so); the second column
    is the subtopic of a subtopic qrels, else 0."""
    t = qrels.table
    _check_writable(path, "topic id", t.column("topic"), topic=True)
    _check_writable(path, "doc id", t.column("doc"))
    if "subtopic" in t.column_names:
        _check_writable(path, "subtopic id", t.column("subtopic"))
        second = t.column("subtopic").to_pylist()
    else:
        second = ["0"] * t.num_rows
    lines = [
        f"{q} {s} {d} {g}\n"
        for q, s, d, g in zip(
            t.column("topic").to_pylist(), second, t.column("doc").to_pylist(), t.column("grade").to_pylist(), strict=True
        )
    ]
    _write_text(path, "".join(lines))


def _write_text(path: str | Path, text: str) -> None:
    if str(path) == "-":
        sys.stdout.write(text)
        return
    data = text.encode("utf-8")
    if str(path).endswith(".gz"):
        data = gzip.compress(data)
    write_bytes(path, data)  # atomic: a failed write leaves no partial file
