"""auditeval measures in trec_eval's spelling (shared by the trec_eval and pytrec_eval adapters).

``trec_name(m)`` gives ``(request, output)``: what ``-m`` (or pytrec_eval's measure set) is
given and the name the value is printed under (``P.10`` is printed as ``P_10``). Only
measures without remaining parameters map (convention parameters are folded into axes
before this is asked: ``AP(rel=2)`` is ``map`` with ``-l2``).
"""

from __future__ import annotations

from ..measures import Measure

# auditeval name -> (trec name without cut-off, trec cut-off family)
_TREC = {
    "AP": ("map", "map_cut"),
    "GMAP": ("gm_map", None),
    "nDCG": ("ndcg", "ndcg_cut"),
    "P": (None, "P"),
    "R": ("set_recall", "recall"),
    "RR": ("recip_rank", None),
    "Bpref": ("bpref", None),
    "GMBpref": ("gm_bpref", None),
    "11pt": ("11pt_avg", None),
    "Rprec": ("Rprec", None),
    "infAP": ("infAP", None),
    "Success": (None, "success"),
    "NumRet": ("num_ret", None),
    "NumRel": ("num_rel", None),
    "NumRelRet": ("num_rel_ret", None),
    "NumQ": ("num_q", None),
    "SetP": ("set_P", None),
    "binG": ("binG", None),
}


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
