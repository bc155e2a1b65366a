"""Qrels and runs from Python objects: a path, a :class:`Qrels`/:class:`Run`, a pandas
DataFrame, a dict of dicts (pytrec_eval's and ranx's form), a ranx ``Qrels``/``Run`` or an
``irds:`` ir_datasets id.

A run topic given as an empty mapping (``{"q2": {}}``, or a ranx ``Run`` topic without
documents) is a topic the system answered with nothing: it is evaluated as an empty ranking
under every profile (pytrec_eval's reading: it counts in ``num_q``, P, AP, nDCG ... are 0,
``num_rel`` counts its judgments), kept as :attr:`Run.empty_topics` with a note. Files cannot
express this: a topic with no line does not exist in a TREC run file, and trec_eval (9.0.8
averages over the other topics; 10.0 refuses the run, or scores it under ``-c``) sees it as a
topic missing from the run.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa

from auditeval.io.numbers import atof_value, integer_value, rank_note, score_notes
from auditeval.io.readers import read_qrels, read_run
from auditeval.vocab.errors import InputError
from auditeval.vocab.model import Qrels, Run, qrels_table, run_table, subtopic_column


def _ranx(obj: Any, kind: str) -> bool:
    """A ranx ``Qrels`` or ``Run`` (read through its ``to_dict()``, without importing ranx)."""
    return type(obj).__name__ == kind and type(obj).__module__.startswith("ranx") and hasattr(obj, "to_dict")


def qrels_from(obj: Any) -> Qrels:
    """Qrels from a path, a :class:`Qrels`, a pandas DataFrame, a dict-of-dicts, a ranx
    ``Qrels``, or ``irds:ID``. A DataFrame's ``subtopic`` / ``subtopic_id`` / ``iteration``
    column and an ir_datasets qrels' ``subtopic_id`` (TREC Web diversity) are the subtopic of a
    diversity qrels when they hold more than one value (as a file's second column)."""
    if isinstance(obj, Qrels):
        return obj
    if _ranx(obj, "Qrels"):
        return qrels_from(dict(obj.to_dict()))
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
        sub = next((c for c in ("subtopic", "subtopic_id", "iteration") if c in obj.columns), None)
        subtopic = None if sub is None else subtopic_column(obj[sub].astype(str).tolist())
        return Qrels(
            qrels_table(obj[cols["topic"]].astype(str).tolist(), obj[cols["doc"]].astype(str).tolist(), grade.astype(np.int64),
                        subtopic=subtopic),
            source="<DataFrame>",
        )
    raise TypeError(f"cannot read qrels from {type(obj).__name__}")


def run_from(obj: Any, name: str | None = None) -> Run:
    """Run from a path (a TREC run, or an MS MARCO candidate file ``qid pid rank`` when its first
    data line has 3 fields: :func:`auditeval.io.readers.read_run` ``format="auto"``, noted), a
    :class:`Run`, a pandas DataFrame, a dict-of-dicts (topic -> doc ->
    score) or a ranx ``Run``. A topic mapped to no document is kept in ``Run.empty_topics``
    and evaluated as an empty ranking (see the module docstring), with a note."""
    if isinstance(obj, Run):
        return obj
    if isinstance(obj, str | Path):
        return read_run(obj, format="auto")  # a 3-field first line: an MS MARCO candidate file, noted
    if _ranx(obj, "Run"):
        ranx_name = getattr(obj, "name", None)
        return run_from(dict(obj.to_dict()), name=name or (ranx_name if isinstance(ranx_name, str) and ranx_name else None))
    if isinstance(obj, Mapping):
        topic, doc, score, raw, coerced = [], [], [], [], []
        empty: list[str] = []
        for t, docs in obj.items():
            if not docs:
                empty.append(str(t))
                continue
            for d, s in docs.items():
                topic.append(str(t))
                doc.append(str(d))
                try:
                    v, odd = atof_value(s)  # text as C atof reads it, as every file reader does
                except (TypeError, ValueError):
                    raise InputError("<dict>", None, f"score for topic {t!r} doc {d!r} is not a number: {s!r}") from None
                score.append(v)
                raw.append(s)
                coerced.append(odd)
        if not score and not empty:
            raise InputError("<dict>", None, "empty run (no results)")
        values = np.asarray(score, dtype=np.float64)
        notes = score_notes("<dict>", values, np.asarray(coerced, dtype=bool),
                            lambda row: f"topic {topic[row]!r} doc {doc[row]!r}", lambda row: raw[row])
        if empty:
            notes.append(f"<dict>: {len(empty)} run topic(s) with no results evaluated as empty rankings "
                         "(every measure of an empty ranking, as pytrec_eval): "
                         + ", ".join(repr(t) for t in empty[:5]) + (" ..." if len(empty) > 5 else ""))
        return Run(run_table(topic, doc, values), name=name or "run", source="<dict>",
                   notes=tuple(notes), empty_topics=tuple(empty))
    if _is_dataframe(obj):
        cols = _df_columns(obj, {"topic": ("query_id", "qid", "topic", "query"), "doc": ("doc_id", "docno", "doc", "docid"), "score": ("score", "sim")})
        if len(obj) == 0:
            raise InputError("<DataFrame>", None, "empty run (no rows)")
        raw = obj[cols["score"]].to_numpy()
        score, coerced = _scores(raw)
        notes = score_notes("<DataFrame>", score, coerced, lambda row: f"row {row + 1}", lambda row: _shown(raw[row]))
        rank = _ranks(obj["rank"].to_numpy(), notes) if "rank" in obj.columns else None
        return Run(
            run_table(obj[cols["topic"]].astype(str).tolist(), obj[cols["doc"]].astype(str).tolist(), score, rank),
            name=name or "run",
            source="<DataFrame>",
            notes=tuple(notes),
        )
    raise TypeError(f"cannot read a run from {type(obj).__name__}")


def _shown(value: object) -> object:
    """A cell as notes show it (a numpy scalar as its Python value: ``nan``, not ``np.float64(nan)``)."""
    return value.item() if isinstance(value, np.generic) else value


def _scores(raw: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """A DataFrame's score column as the file readers read scores: numbers as they are, text
    with C ``atof`` (:func:`auditeval.io.numbers.atof_value`); the mask of atof-read texts.
    A value that is neither (None, an object) is an error naming its row."""
    if raw.dtype.kind in "biuf":
        return raw.astype(np.float64), np.zeros(len(raw), dtype=bool)
    out = np.empty(len(raw), dtype=np.float64)
    coerced = np.zeros(len(raw), dtype=bool)
    for i, v in enumerate(raw):
        try:
            out[i], coerced[i] = atof_value(v)
        except (TypeError, ValueError):
            raise InputError("<DataFrame>", i + 1, f"score is not a number: {v!r}") from None
    return out, coerced


def _ranks(raw: np.ndarray, notes: list[str]) -> np.ndarray | pa.Array:
    """A DataFrame's rank column: integers as they are; anything else (``-``, 1.5, NaN) a null
    rank, noted, as the file readers read a rank field (ignored but by ``ties=rank``)."""
    if raw.dtype.kind in "iu":
        return raw.astype(np.int64)
    values = [integer_value(v) for v in raw]
    bad = np.array([v is None for v in values], dtype=bool)
    note = rank_note("<DataFrame>", bad, lambda row: f"row {row + 1}", lambda row: _shown(raw[row]))
    if note is None:
        return np.asarray(values, dtype=np.int64)
    notes.append(note)
    return pa.array([0 if v is None else v for v in values], pa.int64(), mask=bad)


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
