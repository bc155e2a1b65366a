"""Many measures under one convention, on the staged preparation (engine side).

The public :func:`auditeval.evaluate` (paths, DataFrames, dicts in; a ``ResultSet`` out)
lives in :mod:`auditeval.api`; the engine itself reads no files.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from auditeval._version import __version__
from auditeval.engine.ranked_lists import Prepared
from auditeval.engine.staged_run import PREPARE_AXES, StagedRun
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant, fold

ENGINE = f"auditeval {__version__} (native)"

__all__ = ["ENGINE", "PREPARE_AXES", "evaluate_prepared", "staged_for"]


def staged_for(qrels: Qrels, run: Run, cache: dict | None) -> StagedRun:
    """The :class:`StagedRun` kept in ``cache`` for this (qrels, run) pair (a new one when the
    cache holds another pair or none)."""
    if cache is None:
        return StagedRun(qrels, run)
    sr = cache.get("staged")
    if sr is None or sr.qrels is not qrels or sr.run is not run:
        sr = cache["staged"] = StagedRun(qrels, run)
    return sr


def evaluate_prepared(
    qrels: Qrels, run: Run, measures: Sequence[Measure], conv: Convention, cache: dict | None = None
) -> list[tuple[Measure, Variant, Prepared, np.ndarray, float | None]]:
    """Per measure: (measure, variant, prepared lists, per-topic values, aggregate or None).

    Pass one ``cache`` dict to share the stages across calls on the same qrels and run."""
    sr = staged_for(qrels, run, cache)
    out = []
    for m in measures:
        tv = sr.evaluate(m, conv)
        out.append((m, tv.variant, sr.prepared(fold(m, conv)[1], m), tv.values, tv.aggregate))
    return out

