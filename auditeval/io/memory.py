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

import math
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

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
        topic, doc, score = [], [], []
        empty: list[str] = []
        for t, docs in obj.items():
            if not docs:
                empty.append(str(t))
                continue
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
        if not score and not empty:
            raise InputError("<dict>", None, "empty run (no results)")
        _check_finite(np.asarray(score), "<dict>")
        notes: tuple[str, ...] = ()
        if empty:
            notes = (f"<dict>: {len(empty)} run topic(s) with no results evaluated as empty rankings "
                     "(every measure of an empty ranking, as pytrec_eval): "
                     + ", ".join(repr(t) for t in empty[:5]) + (" ..." if len(empty) > 5 else ""),)
        return Run(run_table(topic, doc, np.asarray(score, dtype=np.float64)), name=name or "run", source="<dict>",
                   notes=notes, empty_topics=tuple(empty))
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
