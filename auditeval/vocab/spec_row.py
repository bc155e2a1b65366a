"""One row of the measure spec table: the :class:`MeasureSpec` record, the ``only_if``
conditions it names (:data:`CONDITIONS`) and the helpers its checks call (:func:`levels_of`).

The rows themselves are in :mod:`auditeval.vocab.spec_table`; :mod:`auditeval.vocab.specs`
indexes them (:data:`~auditeval.vocab.specs.SPECS`) and re-exports these names. This module
sits below both, so the table and its index import it and not each other.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from auditeval.vocab.axes import AXIS_ORDER, Convention
from auditeval.vocab.measure import Measure

# ``only_if`` conditions: an axis listed there is read only when its condition holds.
CONDITIONS = {
    "cutoff": "with a cut-off @k",
    "finite depth": "under a finite depth, where the order decides what survives the cut",
    "cut": "with a cut-off @k or under a finite depth, where the order decides what is counted",
    "gains": "with a gains={...} map",
    "no gains": "without a gains={...} map",
    "topics=qrels": "under topics=qrels, where a qrels topic can be missing from the run",
}


@dataclass(frozen=True)
class MeasureSpec:
    """One row of the spec table.

    ``axes``: every axis that can change the value; ``only_if`` narrows some of them to a
    condition (see :data:`CONDITIONS`): the variant string lists exactly the axes read.
    ``cutoff``: ``"none"`` (no ``@k``), ``"optional"`` or ``"required"``; ``cutoff_type``
    ``int`` or ``float`` (a float cut-off must lie in ``cutoff_range``). ``params``: the
    measure's own parameters and their types (``rel``, ``judged_only`` and RBP's ``p`` fold
    into axes, see :data:`auditeval.vocab.axes.FOLDED`). ``check(m)``: validates parameters at
    parse time (error text or None); ``check_convention(m, c)``: a parameter the convention
    makes meaningless (error text or None), checked before evaluating. ``fixed``: axes the
    measure pins whatever the convention says (RBP's gain is the grade, not nDCG's
    ``gain``). ``agg``: ``mean``, ``sum``, ``gmean`` (with ``gm_floor``), ``mean-defined`` or ``none``.
    ``fmt``: ``float``, ``int`` or ``str``. ``trec_names``: (trec_eval name, cut-off kind
    ``"int"``/``"float"`` for a family named ``name_k``/``name.k``, or None).
    ``missing``: under ``absent=bogus`` (trec_eval 10.0 ``-c``), the value trec_eval resets the
    measure to after evaluating a missing topic on its bogus ranking (trec_eval.c:416-430), for
    the measure named without parameters (and, unless its cut-off is required, without one);
    None = no reset. How a missing topic is scored otherwise is the ``absent`` axis, read by
    the rows listing it (``only_if`` topics=qrels); see :mod:`auditeval.engine.absent`. ``undefined``: when a topic has no value
    (the kernel returns NaN; only with ``agg="mean-defined"``, whose mean skips those topics).

    Properties (what analyses may rely on; set only where they hold, from the formula):

    * ``bounded``: every per-topic value lies in [0, 1] whatever the conventions (a tool
      printing a value outside it is wrong; the verifier says so).
    * ``ties_effect``: which tied blocks can change the value: ``"order"`` (any block, within
      the top k for a cut measure: the order inside the top k matters), ``"set-at-k"`` (only a
      block straddling ranks k and k+1: the top k counts as a set) or ``"first-relevant"``
      (only the block holding the first relevant document).
    * ``tie_monotone``: moving a higher-graded document above a lower-graded one inside a tied
      block never lowers the value, so the best (worst) tie order sorts each block by grade
      descending (ascending): the tie envelope's min / max are exact.
    * ``envelope_exact``: the expected value over uniformly random tie orders has a closed form
      (McSherry & Najork 2008) implemented by the tie envelope.
    * ``tail_free``: the value reads only the ranked rows down to the last relevant document
      (rows below it can be cut before sampling tie orders).
    * ``growth_sum``: under ``unjudged=nonrel`` the value is a sum over relevant ranked rows and
      R, so pool growth evaluates every (order, step) at once from them
      (:func:`auditeval.engine.growth_means`).
    * ``reads_ids``: the value depends on which documents are where, not only on the grade
      sequence (Compat: RBO against the ideal ranking, whose order reads run scores and qrels
      lines), so reordering tied documents of equal grade can change it.
    * ``subtopics``: intent-aware (ndeval's measures): the value reads a subtopic qrels'
      judgments per (topic, subtopic, doc); every other measure reads a subtopic qrels as any
      qrels, line by line with column 2 ignored (a document judged under two subtopics is a
      repeated (topic, doc) pair for the ``dups`` axis, as trec_eval reads it).
    """

    name: str
    doc: str
    axes: frozenset[str]
    formula: str
    source: str
    cutoff: str = "none"
    cutoff_type: type = int
    cutoff_range: tuple[float, float] = (0.0, math.inf)
    params: dict[str, type] = field(default_factory=dict)
    agg: str = "mean"
    fmt: str = "float"
    trec_names: tuple[tuple[str, str | None], ...] = ()
    missing: float | str | None = None
    only_if: dict[str, str] = field(default_factory=dict)
    fixed: dict[str, Any] = field(default_factory=dict)
    check: Callable[[Measure], str | None] | None = None
    check_convention: Callable[[Measure, Convention], str | None] | None = None
    undefined: str = ""
    bounded: bool = False
    ties_effect: str = "order"
    tie_monotone: bool = False
    envelope_exact: bool = False
    tail_free: bool = False
    growth_sum: bool = False
    reads_ids: bool = False
    subtopics: bool = False

    @property
    def trec_name(self) -> str | None:
        """The first trec_eval name (``map`` for AP), or None."""
        return self.trec_names[0][0] if self.trec_names else None

    def variant_axes(self, m: Measure, depth: Any = "all", topics: str | None = None,
                     rel: int | None = None) -> tuple[str, ...]:
        """The axes that can change ``m``'s value under a convention with ``depth``,
        ``topics`` (None: not known, the ``topics=qrels`` condition does not hold) and ``rel``,
        in canonical order. Under a ``rel`` below 0 a document outside the qrels counts as
        relevant, so trec_eval 10.0's bogus ranking of a missing topic (``absent=bogus``) can
        score every measure reading ``rel``: ``absent`` joins those under ``topics=qrels``."""
        holds = {
            "topics=qrels": topics == "qrels",
            "cutoff": m.cutoff is not None,
            "finite depth": depth != "all",
            "cut": depth != "all" or m.cutoff is not None,
            "gains": m.param("gains") is not None,
            "no gains": m.param("gains") is None,
        }
        read = {a for a in self.axes if a not in self.only_if or holds[self.only_if[a]]}
        if rel is not None and rel < 0 and topics == "qrels" and "rel" in read:
            read.add("absent")
        return tuple(a for a in AXIS_ORDER if a in read)


def levels_of(m: Measure) -> tuple[float, ...]:
    """The recall levels of ``11pt`` (``levels='0.2,0.5,0.8'``; default 0, 0.1, ..., 1.0)."""
    text = m.param("levels")
    if text is None:
        return ELEVEN_POINTS
    try:
        levels = tuple(float(x) for x in str(text).split(",") if x.strip())
    except ValueError:
        raise ValueError(f"11pt levels must be comma-separated numbers, got {text!r}") from None
    if not levels:
        raise ValueError("11pt needs at least one recall level")
    return levels


ELEVEN_POINTS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)  # m_11pt_avg.c
