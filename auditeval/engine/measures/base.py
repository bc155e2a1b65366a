"""The measure definition record and shared axis sets.

A measure is a pure function ``fn(p, m, c) -> np.ndarray``: ``p`` the
:class:`~auditeval.engine.prepared.Prepared` lists, ``m`` the parsed
:class:`~auditeval.measures.Measure` (cut-off and own parameters), ``c`` the effective
:class:`~auditeval.conventions.Convention` (measure parameters such as ``rel=`` already
folded in). It returns one float64 per evaluated topic, in ``p.topics`` order, computed
with vector operations over the flat arrays (no per-topic Python loops).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from ...conventions import Convention
from ...measures import Measure
from ..prepared import Prepared

MeasureFn = Callable[[Prepared, Measure, Convention], np.ndarray]

# Axes every ranked-list measure reads (they shape the list itself).
RANKING = frozenset({"ties", "sim", "topics", "unjudged", "negatives", "depth", "dups", "self_hits"})
# ... and those using binary relevance.
RANKING_REL = RANKING | {"rel"}
# Counts that do not depend on the order.
UNORDERED = RANKING - {"ties", "sim"}


@dataclass(frozen=True)
class MeasureDef:
    """One row of the measure table.

    ``cutoff``: ``"none"`` (no ``@k``), ``"optional"`` or ``"required"``; ``cutoff_type``
    ``int`` or ``float`` (a float cut-off must lie in ``cutoff_range``). ``params``: the measure's own parameters and their types
    (``rel`` and ``judged_only`` are folded into axes and accepted by every measure whose
    axes include ``rel`` / ``unjudged``). ``agg``: ``mean``, ``sum``, ``gmean``
    (geometric mean with the ``gm_floor`` axis) or ``none`` (no aggregate, e.g. relstring).
    ``fmt``: ``float``, ``int`` or ``str`` (a str measure returns an object array).
    """

    name: str
    fn: MeasureFn
    axes: frozenset[str]
    doc: str
    cutoff: str = "none"
    cutoff_type: type = int
    cutoff_range: tuple[float, float] = (0.0, float("inf"))  # float cut-offs only
    params: dict[str, type] = field(default_factory=dict)
    agg: str = "mean"
    fmt: str = "float"
    trec_name: str | None = None
    check: Callable[[Measure], str | None] | None = None
    """Validates the measure's own parameters at parse time; returns an error text or None."""


def safe_div(num: np.ndarray, den: np.ndarray) -> np.ndarray:
    """num / den with 0 where den == 0 (trec_eval returns 0 for undefined values)."""
    num = np.asarray(num, dtype=np.float64)
    den = np.asarray(den, dtype=np.float64)
    out = np.zeros(np.broadcast(num, den).shape, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out
