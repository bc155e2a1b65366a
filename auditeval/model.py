"""Columnar qrels and runs.

Both are thin wrappers around a :class:`pyarrow.Table`; topic and document ids are
Arrow string columns (the engine builds integer codes for them once per run, in
:mod:`auditeval.engine.prepare`), grades are int64,
scores float64 exactly as written (float32 storage is a *convention* applied later, in
:mod:`auditeval.engine.prepare`, never at load time). Each row keeps the line number it
came from so every later decision (duplicates, dropped topics) can name it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa


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
    """Relevance judgments: columns ``topic``, ``doc`` (str), ``grade`` (int64), ``line`` (int64)."""

    table: pa.Table
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    skipped: dict[str, tuple[int, ...]] = field(default_factory=dict)
    """Line numbers of lines that held no judgment, by kind (``blank``, ``comment``)."""
    _value_column = "grade"


@dataclass(frozen=True, eq=False)
class Run(_Columns):
    """A ranked result list: ``topic``, ``doc`` (str), ``score`` (float64), ``rank`` (int64), ``line`` (int64).

    ``name`` is the run tag (trec_eval reports the last one read).
    """

    table: pa.Table
    name: str = "run"
    source: str = "<memory>"
    notes: tuple[str, ...] = field(default=())
    skipped: dict[str, tuple[int, ...]] = field(default_factory=dict)
    _value_column = "score"


def qrels_table(topic, doc, grade, line=None) -> pa.Table:
    n = len(grade)
    return pa.table(
        {
            "topic": pa.array(topic, pa.string()),
            "doc": pa.array(doc, pa.string()),
            "grade": pa.array(np.asarray(grade, dtype=np.int64)),
            "line": pa.array(np.arange(1, n + 1) if line is None else np.asarray(line, np.int64)),
        }
    )


def run_table(topic, doc, score, rank=None, line=None) -> pa.Table:
    n = len(score)
    return pa.table(
        {
            "topic": pa.array(topic, pa.string()),
            "doc": pa.array(doc, pa.string()),
            "score": pa.array(np.asarray(score, dtype=np.float64)),
            "rank": pa.array(np.arange(1, n + 1) if rank is None else np.asarray(rank, np.int64)),
            "line": pa.array(np.arange(1, n + 1) if line is None else np.asarray(line, np.int64)),
        }
    )
