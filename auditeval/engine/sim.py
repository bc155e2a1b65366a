"""The ``sim`` axis: run scores as the convention stores them, float32 (C ``float sim``,
trec_eval <= 9.0.8) or float64 as read. The engine's one float32 rule, read by the ranking
stage (:func:`~auditeval.engine.stages.ranking.ranking`), the ranked lists' scores
(:meth:`~auditeval.engine.ranked_lists.Origin.scores`) and the tie analyses.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.ids import to_numpy
from auditeval.vocab.model import Run


def as_sim(values: np.ndarray, sim: str) -> np.ndarray:
    """Scores as the ``sim`` axis stores them: float32 (C ``float sim``; beyond +-3.4e38 a
    finite score becomes +-inf, as in C, without a numpy warning) or float64 as read."""
    if sim != "float32":
        return values
    with np.errstate(over="ignore"):
        return values.astype(np.float32)


def scores(run: Run, sim: str) -> tuple[np.ndarray, list[str]]:
    """The score column as the ``sim`` axis stores it, and a note when float32 overflows.

    float32 is C's ``float sim`` (trec_eval <= 9.0.8): finite scores beyond +-3.4e38 become
    +-inf there too, and comparing float32 values orders exactly as their float64 images.
    """
    col = run.table.column("score")
    if sim != "float32":
        return to_numpy(col, np.float64), []
    with np.errstate(over="ignore"):
        s = to_numpy(col, np.float32)
    notes = []
    if np.isinf(s).any():
        n = int((np.isinf(s) & np.isfinite(to_numpy(col, np.float64))).sum())
        if n:
            notes.append(f"{run.source}: {n} score(s) overflow float32 and became -inf/inf (sim=float32)")
    return s, notes
