"""Readers for trec_eval's preference judgments (``-R prefs``, ``-R qrels_prefs``), qrels with
judgment groups (``-R qrels_jg``) and z-score files (``-Z``), line for line as the binaries
read them.

Formats (whitespace-separated fields, ``bytes.split`` = C ``isspace``):

* ``prefs``: ``qid jg jsg docno rel_level`` (get_prefs.c:15-22); ``rel_level`` is C ``atof``;
* ``qrels_prefs``: a qrels file ``qid jg docno rel_level`` read as preferences, the iter
  field being the judgment group and every line in sub-group ``"0"`` (get_qrels_prefs.c:15-20,
  l.225 ``jsg = "0"``);
* ``qrels_jg``: ``qid jg docno rel``, ``rel`` C ``atol`` (get_qrels_jg.c, ``TEXT_QRELS``);
  a docno twice in one (qid, jg) stops the read (get_qrels_jg.c:164-179);
* z-scores: ``qid measure mean stddev`` (get_zscores.c:15-22), both C ``atof``.

Line rules shared by the four readers (``parse_prefs_line`` and its copies): a line must have
exactly the number of fields of its format (a blank line is malformed); the reported number
counts the lines parsed so far. 10.0 skips a line with ``#`` in column 0 in the three judgment
formats, but the line right after a skipped one is parsed unconditionally (get_prefs.c:175-212,
the same loop as get_qrels.c); 9.0.8 has no comments, and no build skips comments in z-score
files. Where 10.0 parses past its buffer (a comment as the last line) it crashes:
:class:`PrefsCrash`.

Errors are :class:`~auditeval.vocab.errors.InputError` (``path:line: reason``, ``line`` the
physical line) carrying ``count``, the line number trec_eval prints.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

import numpy as np

from auditeval.io.lines import lenient_bytes
from auditeval.io.numbers import c_atof, c_atol
from auditeval.vocab.errors import InputError

# the three judgment formats: fields per line
FORMATS = {"prefs": 5, "qrels_prefs": 4, "qrels_jg": 4}
_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


class PrefsLineError(InputError):
    """A malformed line: ``count`` is trec_eval's ``Malformed line N`` (lines parsed so far)."""

    def __init__(self, path: str, line: int, count: int, reason: str):
        super().__init__(path, line, reason)
        self.count = count


class PrefsReadError(InputError):
    """An empty or unreadable file (trec_eval: ``Cannot read ... file``)."""

    def __init__(self, path: str):
        super().__init__(path, None, "cannot read the file (empty or unreadable)")


class PrefsCrash(InputError):
    """Input where trec_eval reads past its buffer (it crashes, exit 139)."""


class DuplicateJudgment(InputError):
    """A docno twice in one (qid, judgment group) of a qrels_jg file."""

    def __init__(self, path: str, line: int, docno: str):
        super().__init__(path, line, f"docno '{docno}' judged twice in one judgment group")
        self.docno = docno


@dataclass(frozen=True)
class PrefsTopic:
    """One topic's preference lines (file order): judgment group, sub-group, level, docno."""

    jg: tuple[str, ...]
    jsg: tuple[str, ...]
    level: np.ndarray  # float64, C atof of the field
    doc: tuple[str, ...]


@dataclass(frozen=True)
class Prefs:
    """Preference judgments: topics in strcmp order (get_prefs.c sorts by qid)."""

    format: str  # "prefs" | "qrels_prefs"
    topics: dict[str, PrefsTopic]
    source: str = ""


@dataclass(frozen=True)
class JgTopic:
    """One topic's judgment groups in strcmp order, each its docnos (sorted) and grades."""

    groups: tuple[tuple[str, tuple[str, ...], np.ndarray], ...]  # (jg, docs, rels int64)


@dataclass(frozen=True)
class QrelsJg:
    topics: dict[str, JgTopic]
    source: str = ""


@dataclass(frozen=True)
class Zscores:
    """``-Z`` file: per qid, (measure, mean, stddev) sorted by measure (get_zscores.c qsort)."""

    qids: tuple[str, ...]  # sorted
    entries: tuple[tuple[str, tuple[tuple[str, float, float], ...]], ...]
    source: str = ""


def read_bytes(path: str) -> bytes:
    """The file's bytes (gzip is decompressed, a convenience); empty or unreadable ->
    :class:`PrefsReadError` (``fseek``/``ftell`` size 0 in every reader)."""
    data = lenient_bytes(path)
    if not data:
        raise PrefsReadError(path)
    return data


def _decode(values: list[bytes]) -> list[str]:
    """The fields one character per byte (Latin-1: trec_eval never decodes its input; the
    drop-in writes each back as the bytes it was read as, ``auditeval.trec_eval.text``)."""
    return b"\n".join(values).decode("latin-1").split("\n") if values else []


_FAST_FLOAT = re.compile(rb"[0-9.eE+\-\n]*")


def _atof(values: list[bytes]) -> np.ndarray:
    """C ``atof`` of each field (plain decimal numbers take Python's equally exact ``float``)."""
    if _FAST_FLOAT.fullmatch(b"\n".join(values)):
        try:
            return np.array([float(v) for v in values], dtype=np.float64)
        except ValueError:
            pass
    return np.array([c_atof(v.decode("latin-1")) for v in values], dtype=np.float64)


_FAST_INT = re.compile(rb"[0-9+\-\n]*")


def _atol(values: list[bytes]) -> list[int]:
    """C ``atol`` of each field, saturating at the long range (plain integers take ``int``)."""
    if _FAST_INT.fullmatch(b"\n".join(values)):
        try:
            out = [int(v) for v in values]
            if all(_LONG_MIN <= x <= _LONG_MAX for x in out):
                return out
        except ValueError:
            pass
    return [min(max(c_atol(v.decode("latin-1")), _LONG_MIN), _LONG_MAX) for v in values]


def split_lines(data: bytes, path: str, n_fields: int, comments: bool) -> tuple[list[list[bytes]], list[int]]:
    """Fields of every parsed line and its physical line number (the C parse loop)."""
    if not data.endswith(b"\n"):
        data += b"\n"
    lines = data[:-1].split(b"\n")
    rows: list[list[bytes]] = []
    where: list[int] = []
    i, n = 0, len(lines)
    while i < n:
        if comments and lines[i][:1] == b"#":
            i += 1  # one skipped line; the next one is parsed whatever it holds
            if i >= n:
                raise PrefsCrash(path, i, "comment as the last line: trec_eval 10.0 reads past its buffer here")
        f = lines[i].split()
        if len(f) != n_fields:
            raise PrefsLineError(path, i + 1, len(rows) + 1, f"expected {n_fields} fields, found {len(f)}")
        rows.append(f)
        where.append(i + 1)
        i += 1
    return rows, where


def read_prefs(path: str, fmt: str = "prefs", comments: bool = True) -> Prefs:
    """Read a ``prefs`` or ``qrels_prefs`` file (``comments``: 10.0's ``#`` rule)."""
    n_fields = FORMATS[fmt]
    rows, _where = split_lines(read_bytes(path), path, n_fields, comments)
    qid = _decode([f[0] for f in rows])
    jg = _decode([f[1] for f in rows])
    if fmt == "prefs":
        jsg = _decode([f[2] for f in rows])
        doc = _decode([f[3] for f in rows])
        lev = [f[4] for f in rows]
    else:
        jsg = ["0"] * len(rows)
        doc = _decode([f[2] for f in rows])
        lev = [f[3] for f in rows]
    level = _atof(lev)
    by: dict[str, list[int]] = {}
    for k, q in enumerate(qid):
        by.setdefault(q, []).append(k)
    topics = {}
    for q in sorted(by):
        idx = by[q]
        topics[q] = PrefsTopic(tuple(jg[k] for k in idx), tuple(jsg[k] for k in idx), level[idx],
                               tuple(doc[k] for k in idx))
    return Prefs(fmt, topics, source=path)


def read_qrels_jg(path: str, comments: bool = True) -> QrelsJg:
    """Read a ``qrels_jg`` file; a repeated (qid, jg, docno) -> :class:`DuplicateJudgment`
    naming the first in (qid, jg, docno) order, as get_qrels_jg.c:160-179 does."""
    rows, where = split_lines(read_bytes(path), path, 4, comments)
    qid = _decode([f[0] for f in rows])
    jg = _decode([f[1] for f in rows])
    doc = _decode([f[2] for f in rows])
    rel = _atol([f[3] for f in rows])
    q, g, d = (np.array(x, dtype=str) for x in (qid, jg, doc))  # code point order = strcmp on UTF-8
    order = np.lexsort((d, g, q)) if len(rows) else np.zeros(0, dtype=np.int64)
    q, g, d = q[order], g[order], d[order]
    r = np.array(rel, dtype=np.int64)[order]
    same_group = (q[1:] == q[:-1]) & (g[1:] == g[:-1])
    dup = np.flatnonzero(same_group & (d[1:] == d[:-1]))
    if len(dup):
        k = int(order[dup[0] + 1])
        raise DuplicateJudgment(path, where[k], doc[k])
    starts = np.concatenate([[0], np.flatnonzero(~same_group) + 1, [len(rows)]]) if len(rows) else np.zeros(1, int)
    topics: dict[str, list] = {}
    for a, b in zip(starts[:-1].tolist(), starts[1:].tolist(), strict=True):
        topics.setdefault(str(q[a]), []).append((str(g[a]), tuple(d[a:b].tolist()), r[a:b]))
    return QrelsJg({t: JgTopic(tuple(gs)) for t, gs in topics.items()}, source=path)


def read_zscores(path: str) -> Zscores:
    """Read a ``-Z`` file (no comment lines in any build: get_zscores.c:103-120)."""
    rows, _where = split_lines(read_bytes(path), path, 4, comments=False)
    qid = _decode([f[0] for f in rows])
    meas = _decode([f[1] for f in rows])
    mean = _atof([f[2] for f in rows]).tolist()
    sd = _atof([f[3] for f in rows]).tolist()
    order = sorted(range(len(rows)), key=lambda k: (qid[k], meas[k]))  # glibc msort: stable
    entries: list[tuple[str, list]] = []
    for k in order:
        if not entries or entries[-1][0] != qid[k]:
            entries.append((qid[k], []))
        entries[-1][1].append((meas[k], mean[k], sd[k]))
    return Zscores(tuple(q for q, _ in entries), tuple((q, tuple(e)) for q, e in entries), source=path)
