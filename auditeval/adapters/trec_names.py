"""auditeval measures in trec_eval's spelling (shared by the trec_eval and pytrec_eval adapters).

``trec_name(m)`` gives ``(request, output)``: what ``-m`` (or pytrec_eval's measure set) is
given and the name the value is printed under (``P.10`` is printed as ``P_10``). Only
measures without remaining parameters map (convention parameters are folded into axes
before this is asked: ``AP(rel=2)`` is ``map`` with ``-l2``).
"""

from __future__ import annotations

from ..measures import Measure
from ..specs import SPECS
from .tools import GEOMETRIC  # noqa: F401 - kept here for the readers of tool outputs (verify)

# The measures the trec_eval and pytrec_eval adapters ask for; their names come from the spec
# table's trec_eval names (auditeval.specs, the one name map).
_ASKED = ("AP", "GMAP", "nDCG", "P", "R", "RR", "Bpref", "GMBpref", "11pt", "Rprec", "infAP", "Success",
          "NumRet", "NumRel", "NumRelRet", "NumQ", "SetP", "binG")
_UNCUT_AS = {"R": "set_recall"}  # R without a cut-off is relret / R: trec_eval's set_recall


def _names(name: str) -> tuple[str | None, str | None]:
    trec = SPECS[name].trec_names
    plain = next((t for t, kind in trec if kind is None), _UNCUT_AS.get(name))
    return plain, next((t for t, kind in trec if kind == "int"), None)


# auditeval name -> (trec name without cut-off, trec cut-off family)
_TREC = {n: _names(n) for n in _ASKED}


def trec_name(m: Measure) -> tuple[str, str] | None:
    """``(request, printed name)`` of ``m`` in trec_eval, or None when trec_eval has no such measure."""
    if m.params or m.name not in _TREC:
        return None
    plain, family = _TREC[m.name]
    if m.cutoff is None:
        return (plain, plain) if plain else None
    if family is None or not isinstance(m.cutoff, int):
        return None
    return f"{family}.{m.cutoff}", f"{family}_{m.cutoff}"
