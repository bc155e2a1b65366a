"""Columnar qrels and runs.

Both are thin wrappers around a :class:`pyarrow.Table`; topic and document ids are
Arrow string columns (the engine builds integer codes for them once per run, in
:mod:`auditeval.engine.stages`), grades are int64,
scores float64 exactly as written (float32 storage is a *convention* applied later, in
:mod:`auditeval.engine.stages`, never at load time). Each row keeps the line number it
came from so every later decision (duplicates, dropped topics) can name it.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np
import pyarrow as pa

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy


class _Columns:
    """Shared by :class:`Qrels` and :class:`Run`: size, topics, dict-of-dicts view."""

    table: pa.Table
    _value_column: str = ""

    def __len__(self) -> int:
        return self.table.num_rows

    @property
    def topics(self) -> list[str]:
        """Distinct topic ids, sorted."""
        return sorted(set(self.table.column("topic").to_pylist()))

    def to_dict(self) -> dict[str, dict[str, float | int]]:
        """The pytrec_eval / ranx dict-of-dicts form (last line wins on duplicates)."""
        out: dict[str, dict[str, float | int]] = {}
        for t, d, v in zip(
            self.table.column("topic").to_pylist(),
            self.table.column("doc").to_pylist(),
            self.table.column(self._value_column).to_pylist(),
            strict=True,
        ):
            out.setdefault(t, {})[d] = v
        return out


@dataclass(frozen=True, eq=False)
class Qrels(_Columns):
    """Relevance judgments: columns ``topic``, ``doc`` (str), ``grade`` (int64), ``line`` (int64),
    and ``subtopic`` (str) for a subtopic (diversity) qrels ``topic subtopic doc grade``: the
    second column, kept by the readers when it holds more than one value (a qrels whose second
    column is 0 everywhere is one subtopic per topic and has no ``subtopic`` column)."""

    table: pa.Table
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    skipped: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Line numbers of lines that held no judgment, by kind (``blank``, ``comment``)."""
    _value_column = "grade"


@dataclass(frozen=True, eq=False)
class Run(_Columns):
    """A ranked result list: ``topic``, ``doc`` (str), ``score`` (float64), ``rank``, ``line``
    (int32 when every value fits, else int64). A null ``rank`` is a rank field the reader
    could not read as an integer (``-``, ``1.5``): no measure reads the column but ``ties=rank``,
    which refuses such a run.

    ``name`` is the run tag (trec_eval reports the last one read).

    ``empty_topics``: topics the run holds with no result (an empty mapping in the
    dict-of-dicts form, ``{"q2": {}}``, or an empty topic of a ranx ``Run``); the engine's join
    counts them as run topics with zero rows, so they are evaluated as empty rankings, as
    pytrec_eval does. A file cannot express them (a topic without lines does not exist in a
    TREC run file), so only the in-memory forms (:func:`auditeval.io.memory.run_from`) set it;
    they never also hold rows.

    ``format``: the file format it was read from, ``"trec"`` or ``"msmarco"`` (a candidate file
    ``qid pid rank``: tools that read TREC runs get a TREC copy of it).
    """

    table: pa.Table
    name: str = "run"
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    skipped: dict[str, tuple[int, ...]] = field(default_factory=dict)
    empty_topics: tuple[str, ...] = field(default=())
    format: str = "trec"
    _value_column = "score"

    @property
    def topics(self) -> list[str]:
        """Distinct topic ids, sorted (with the empty topics)."""
        return sorted(set(self.table.column("topic").to_pylist()) | set(self.empty_topics))

    def to_dict(self) -> dict[str, dict[str, float | int]]:
        """The pytrec_eval / ranx dict-of-dicts form (last line wins; empty topics map to ``{}``)."""
        out = super().to_dict()
        for t in self.empty_topics:
            out.setdefault(t, {})
        return out


Values = pa.Array | pa.ChunkedArray | np.ndarray | Sequence[Any]


_NUMPY = {pa.int64(): np.int64, pa.int32(): np.int32, pa.float64(): np.float64, pa.float32(): np.float32}


def _column(values: Values, typ: pa.DataType) -> pa.Array | pa.ChunkedArray:
    """``values`` as an Arrow column of type ``typ`` (Arrow input is kept, not copied)."""
    if isinstance(values, pa.Array | pa.ChunkedArray):
        return values if values.type == typ else values.cast(typ)
    if typ == pa.string():
        return pa.array(values, typ)
    return from_numpy(np.asarray(values, dtype=_NUMPY[typ]))  # (typ.to_pandas_dtype() would import pandas)


def _lines(n: int, line: Values | None, first_line: int) -> pa.Array | pa.ChunkedArray:
    if line is None:
        return from_numpy(np.arange(first_line, first_line + n, dtype=np.int64))
    return _column(line, pa.int64())


def qrels_table(
    topic: Values, doc: Values, grade: Values, line: Values | None = None, first_line: int = 1,
    subtopic: Values | None = None,
) -> pa.Table:
    """THE table of a :class:`Qrels` (every reader and in-memory form builds it here):
    ``topic``, ``doc`` (string), ``grade`` (int64), ``line`` (int64: the given line numbers,
    else ``first_line``, ``first_line + 1``, ...), and ``subtopic`` (string) when given."""
    grade = _column(grade, pa.int64())
    cols = {
        "topic": _column(topic, pa.string()),
        "doc": _column(doc, pa.string()),
        "grade": grade,
        "line": _lines(len(grade), line, first_line),
    }
    if subtopic is not None:
        cols["subtopic"] = _column(subtopic, pa.string())
    return pa.table(cols)


def subtopic_column(col, distinct: int | None = None):
    """The second column as the ``subtopic`` column of a diversity qrels (``topic subtopic doc
    grade``, as ndeval.c:905-927 and ir_measures' pyndeval provider read it), or None when it
    holds one value (``0`` everywhere: an ordinary qrels, one subtopic per topic). ``distinct``:
    its number of distinct values, when known."""
    if distinct is None:
        distinct = pc.count_distinct(col).as_py() if isinstance(col, pa.Array | pa.ChunkedArray) else len(set(col))
    return col if distinct > 1 else None


def _narrow(col: pa.Array | pa.ChunkedArray) -> pa.Array | pa.ChunkedArray:
    """An int64 column as int32 when every value fits (half the memory; the values are the same)."""
    if len(col) > col.null_count:  # nulls (ranks not read) are left out of the range
        lo, hi = pc.min_max(col).values()
        if lo.as_py() < -(2**31) or hi.as_py() >= 2**31:
            return col
    return pc.cast(col, pa.int32())


def run_table(
    topic: Values, doc: Values, score: Values, rank: Values | None = None, line: Values | None = None,
    first_line: int = 1,
) -> pa.Table:
    """THE table of a :class:`Run`: ``topic``, ``doc`` (string), ``score`` (float64),
    ``rank`` (1, 2, ... when not given), ``line`` (as in :func:`qrels_table`). ``rank`` and
    ``line`` are int32 when every value fits (7M-line runs: 56 MB less), else int64; generated
    ranks and lines that coincide (no header line) share one array."""
    score = _column(score, pa.float64())
    n = len(score)
    if n < 2**31 - first_line:
        generated = from_numpy(np.arange(1, n + 1, dtype=np.int32))
        rank = generated if rank is None else _narrow(_column(rank, pa.int64()))
        if line is None:
            line = generated if first_line == 1 else from_numpy(np.arange(first_line, first_line + n, dtype=np.int32))
        else:
            line = _narrow(_column(line, pa.int64()))
    else:
        rank = from_numpy(np.arange(1, n + 1, dtype=np.int64)) if rank is None else _column(rank, pa.int64())
        line = _lines(n, line, first_line)
    return pa.table(
        {"topic": _column(topic, pa.string()), "doc": _column(doc, pa.string()), "score": score, "rank": rank, "line": line}
    )
