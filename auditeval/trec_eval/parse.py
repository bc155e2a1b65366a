"""Reading qrels and results files exactly as a given trec_eval build does.

Line rules (get_qrels.c ``te_get_qrels``/``parse_qrels_line``, get_trec_results.c
``te_get_trec_results``/``parse_results_line``; both versions, checked on
``../shared/reference/cases/14_parsing``):

* A 0-byte (or unreadable) file: ``Cannot read qrels file 'X'`` / ``Cannot read results
  file 'X'``, then ``trec_eval: Quit in file 'X'``, exit 2.
* qrels: every line must have exactly 4 whitespace-separated fields (blank lines too are
  "Malformed"). Relevance is read with C ``atol`` (``1.0`` -> 1).
* results: blank lines are skipped (a file of blank or, in 10.0, comment lines only has no
  results: 9.0.8 finds no topic to evaluate, exit 7; 10.0 misses the first qrels topic,
  exit 4, or with ``-c`` evaluates every topic on its bogus ranking); a line needs at least 6 fields (qid iter docno rank sim
  run_id), later fields are ignored; sim is C ``atof`` (``abc`` -> 0, ``0x10`` -> 16,
  ``nan`` kept); the run id is the 6th field of the last line.
* ``Malformed line N`` counts the lines parsed so far (skipped lines are not counted).
* 9.0.8 has no comments: ``#`` lines are data (``# a b c`` is a qrels line of topic ``#``).
* 10.0 skips, in results, lines whose first non-blank character is ``#``
  (get_trec_results.c:150-161); in qrels, a line with ``#`` in column 0, but the line right
  after a skipped one is parsed unconditionally (get_qrels.c:112-141: two consecutive
  comment lines -> Malformed). Where 10.0 reads past the end of its buffer (a comment as
  the last qrels line, a file of comments only) it crashes (exit 139); the drop-in exits 2
  with a clean message instead.

Gzipped input is decompressed (a convenience; trec_eval would call it malformed).
"""

from __future__ import annotations

import os
import re
import sys

import numpy as np

from auditeval.io import c_atof, c_atol, header_lines, read_regular, run_tags
from auditeval.io.lines import gunzip_lenient, lenient_bytes
from auditeval.trec_eval.catalog import is_10
from auditeval.trec_eval.text import fs_path
from auditeval.vocab.model import Qrels, Run, qrels_table, run_table


class TrecError(Exception):
    """trec_eval stops: ``text`` goes to stderr verbatim, ``code`` is the exit status."""

    def __init__(self, text: str, code: int):
        super().__init__(text)
        self.text = text
        self.code = code


def check_results_format(a) -> None:
    """trec_eval.c: the results format is looked up after the rel_info file is read; formats.c
    knows only ``trec_results``."""
    if a.results_format != "trec_results":
        if a.version == "9.0.5":
            from auditeval.trec_eval.v905 import FORMAT, crash_text

            raise TrecError(crash_text(FORMAT), 2)
        raise TrecError(f"trec_eval: Illegal retrieval results format '{a.results_format}'\n", 2)


def _read(path: str, kind: str, version: str) -> bytes:
    what = "qrels" if kind == "qrels" else "results"
    where = "get_qrels" if kind == "qrels" else "get_results"
    if path == "-" and kind == "run" and is_10(version):  # 10.0's get_trec_results.c: '-' is stdin
        # (results only; 9.x opens a file named '-')
        stream = sys.stdin
        try:
            data = stream.buffer.read() if hasattr(stream, "buffer") else stream.read().encode("utf-8")
        except OSError:
            data = b""
        data = gunzip_lenient(data)
    else:
        data = lenient_bytes(fs_path(path))  # corrupt gzip: the bytes as they are, as trec_eval (Malformed line)
    if not data:
        raise TrecError(
            f"trec_eval.{where}: Cannot read {what} file '{path}'\ntrec_eval: Quit in file '{path}'\n", 2
        )
    return data


def _lines(data: bytes) -> list[bytes]:
    if not data.endswith(b"\n"):
        data += b"\n"
    return data[:-1].split(b"\n")


def _decode_column(values: list[bytes]) -> list[str]:
    """The fields as they are: one character per byte (:mod:`.text`), whatever the bytes."""
    return b"\n".join(values).decode("latin-1").split("\n") if values else []


def _malformed(kind: str, n: int, path: str) -> TrecError:
    where = "get_qrels" if kind == "qrels" else "get_results"
    return TrecError(f"trec_eval.{where}: Malformed line {n}\ntrec_eval: Quit in file '{path}'\n", 2)


def _crash(path: str, why: str) -> TrecError:
    return TrecError(
        f"auditeval trec-eval: {path}: {why}; trec_eval 10.0 crashes here (segmentation fault, exit 139)\n", 2
    )


_PLAIN_FLOAT = re.compile(rb"[+-]?(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_PLAIN_INT = re.compile(rb"[+-]?[0-9]+")
_FAST_FLOAT = re.compile(rb"[0-9.eE+\-\n]*")
_FAST_INT = re.compile(rb"[0-9+\-\n]*")
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _floats(values: list[bytes]) -> np.ndarray:
    """C ``atof`` of each field (plain decimal numbers take Python's equally exact path)."""
    if _FAST_FLOAT.fullmatch(b"\n".join(values)):
        try:
            return np.array([float(v) for v in values], dtype=np.float64)
        except ValueError:
            pass
    out = np.empty(len(values), dtype=np.float64)
    for i, v in enumerate(values):
        out[i] = float(v) if _PLAIN_FLOAT.fullmatch(v) else c_atof(v.decode("latin-1"))
    return out


def _ints(values: list[bytes]) -> np.ndarray:
    """C ``atol`` of each field, saturating at the long range."""
    if _FAST_INT.fullmatch(b"\n".join(values)):
        try:
            return np.array([int(v) for v in values], dtype=np.int64)
        except (ValueError, OverflowError):
            pass
    out = [int(v) if _PLAIN_INT.fullmatch(v) else c_atol(v.decode("latin-1")) for v in values]
    return np.array([min(max(x, _LONG_MIN), _LONG_MAX) for x in out], dtype=np.int64)


_QRELS_CACHE: dict[tuple, Qrels] = {}


def read_qrels(path: str, version: str) -> Qrels:
    """Read a qrels file; the last one read is kept (keyed by path, size, mtime, version),
    since the same qrels is usually evaluated against many runs in one process."""
    try:
        st = os.stat(fs_path(path))
        key = (os.path.abspath(fs_path(path)), st.st_size, st.st_mtime_ns, is_10(version))
    except OSError:
        key = None
    if key is not None and key in _QRELS_CACHE:
        return _QRELS_CACHE[key]
    q = _read_qrels(path, version)
    if key is not None:
        _QRELS_CACHE.clear()
        _QRELS_CACHE[key] = q
    return q


def _read_qrels(path: str, version: str) -> Qrels:
    fast = read_regular(fs_path(path), "qrels", lone_cr_ok=False)  # plain 4-field lines: every build reads them alike
    if fast is not None:
        return Qrels(qrels_table(fast["topic"], fast["doc"], fast["grade"]), source=path)
    lines = _lines(_read(path, "qrels", version))
    rows: list[list[bytes]] = []
    linenos: list[int] = []
    if is_10(version) and any(line[:1] == b"#" for line in lines):
        i, n = 0, len(lines)
        while i < n:
            if lines[i][:1] == b"#":
                i += 1
                if i >= n:
                    raise _crash(path, "comment line at the end of the qrels")
            f = lines[i].split()
            if len(f) != 4:
                raise _malformed("qrels", len(rows) + 1, path)
            rows.append(f)
            linenos.append(i + 1)
            i += 1
        if not rows:
            raise _crash(path, "no judgments (only comment lines)")
    else:
        rows = [line.split() for line in lines]
        for i, f in enumerate(rows):
            if len(f) != 4:
                raise _malformed("qrels", i + 1, path)
        linenos = list(range(1, len(rows) + 1))
    topic = _decode_column([f[0] for f in rows])
    doc = _decode_column([f[2] for f in rows])
    grade = _ints([f[3] for f in rows])
    return Qrels(qrels_table(topic, doc, grade, line=np.asarray(linenos, np.int64)), source=path)


def read_run(path: str, version: str) -> Run:
    # plain 6-field lines: every build reads them alike (10.0 also skips a '#' header)
    # rank: file order (trec_eval never reads the rank field), nor Q0; of the tags only the last
    # line's (the runid): those fields are split, not converted (check_dropped=False)
    keep = ("topic", "doc", "score")
    fast = read_regular(fs_path(path), "run", lone_cr_ok=False, comment_header=is_10(version), keep=keep,
                        check_dropped=False)
    run_id = None if fast is None else run_tags(fast)[1]  # None: not printable ASCII (bytes as they are, below)
    if run_id is not None:
        table = run_table(fast["topic"], fast["doc"], fast["score"], first_line=header_lines(fast) + 1)
        return Run(table, name=run_id, source=path)
    del fast
    lines = _lines(_read(path, "run", version))
    skip_comments = is_10(version)
    rows: list[list[bytes]] = []
    linenos: list[int] = []
    for i, line in enumerate(lines):
        f = line.split()
        if not f or (skip_comments and f[0][:1] == b"#"):
            continue
        if len(f) < 6:
            raise _malformed("run", len(rows) + 1, path)
        rows.append(f)
        linenos.append(i + 1)
    if not rows:  # no result line: every qrels topic is missing (10.0: exit 4, or -c bogus rankings)
        return Run(run_table([], [], np.zeros(0)), name="", source=path)
    topic = _decode_column([f[0] for f in rows])
    doc = _decode_column([f[2] for f in rows])
    score = _floats([f[4] for f in rows])
    run_id = _decode_column([rows[-1][5]])[0]
    n = len(rows)
    table = run_table(topic, doc, score, rank=np.arange(1, n + 1), line=np.asarray(linenos, np.int64))
    return Run(table, name=run_id, source=path)
