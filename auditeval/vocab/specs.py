"""The measure spec table: what each measure is, apart from how it is computed.

One :class:`MeasureSpec` row per measure (:data:`SPECS`; the record in :mod:`.spec_row`, the
rows in :mod:`.spec_table`): name, parameters and their checks, the axes it reads (and when),
aggregation, printed format, formula, source (trec_eval ``m_*.c``), trec_eval names, and the value of a topic absent
from the run. The measure grammar and variant strings (:mod:`auditeval.vocab.variant`), the
trec_eval drop-in (:mod:`auditeval.trec_eval`) and ``auditeval measures`` read this table
and import no kernel; the engine binds one kernel to each row
(:data:`auditeval.engine.measures.MEASURES`).

:data:`TREC_ALIASES` (trec_eval name -> auditeval name, cut-off kind) is derived from the
rows' ``trec_names``: the one trec_eval name map.
"""

from __future__ import annotations

import re

from auditeval.vocab.measure import Measure
from auditeval.vocab.spec_row import CONDITIONS, ELEVEN_POINTS, MeasureSpec, levels_of
from auditeval.vocab.spec_table import ROWS

SPECS: dict[str, MeasureSpec] = {s.name: s for s in ROWS}

DEFAULT_MEASURES: tuple[str, ...] = ("AP", "nDCG@10", "P@10", "R@1000", "RR")
"""The measures every evaluating command reports when none is asked for (``-m``): trec_eval's
headline measures (map, ndcg_cut_10, P_10, recall_1000, recip_rank)."""

AUDIT_MEASURES: tuple[str, ...] = (*DEFAULT_MEASURES, "GMAP", "Bpref", "11pt")
"""The audit's default: :data:`DEFAULT_MEASURES` plus the measures on which reference tools
are known to part ways (GMAP's floor for zero-AP topics, Bpref's denominator, the 11-point
interpolation), since finding such disagreements is what the audit is for."""

# trec_eval name -> (auditeval name, cut-off kind): the one trec_eval name map.
TREC_ALIASES: dict[str, tuple[str, str | None]] = {t: (s.name, kind) for s in ROWS for t, kind in s.trec_names}
_TREC_SPLIT = re.compile(r"^(?P<base>.+?)(?:[_.](?P<arg>\d+(?:\.\d*)?|\.\d+))?$")


def resolve_alias(text: str) -> Measure | None:
    """``P_10`` / ``P.10`` -> ``P@10``; ``map`` -> ``AP``; None when not a trec_eval name."""
    if text in TREC_ALIASES:
        name, _ = TREC_ALIASES[text]
        return Measure(name)
    m = _TREC_SPLIT.match(text)
    if not m or m.group("arg") is None:
        return None
    base, arg = m.group("base"), m.group("arg")
    if base not in TREC_ALIASES:
        return None
    name, kind = TREC_ALIASES[base]
    if kind is None:
        return None
    value: int | float = int(arg) if kind == "int" and arg.isdigit() else float(arg)
    if kind == "int" and not isinstance(value, int):
        return None
    return Measure(name, (), value)


__all__ = ["CONDITIONS", "ELEVEN_POINTS", "SPECS", "TREC_ALIASES", "MeasureSpec", "levels_of", "resolve_alias"]
