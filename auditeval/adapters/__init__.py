"""Reference adapters: the one table of tools auditeval runs beside its native engine.

==========================  =========================================  =========================
name                        module                                     own profile
==========================  =========================================  =========================
pytrec_eval                 :mod:`.pytrec_eval`                        trec_eval-9.0.8
ir_measures:PROVIDER        :mod:`.ir_measures` (one per provider)     see that module's table
ranx                        :mod:`.ranx`                               ranx-0.3
beir                        :mod:`.beir` (EvaluateRetrieval.evaluate)  beir-2.2
pyndeval                    :mod:`.pyndeval`                           pyndeval-0.0
trec_eval-BUILD             :mod:`.trec_eval` (binaries, by probing)   trec_eval-BUILD
==========================  =========================================  =========================

Each adapter declares per axis ``native`` / ``emulated`` / ``fixed`` (:mod:`.base`) and the
measures it computes; :func:`references` picks the ones an audit runs; the Python tools run in
a child process through :mod:`.tools` (which imports nothing from auditeval).
"""

from __future__ import annotations

from auditeval.adapters import beir, ir_measures, pyndeval, pytrec_eval, ranx
from auditeval.adapters.base import Adapter, Plan, Support, check_declarations
from auditeval.adapters.trec_eval import TrecEvalBinary, discover

ADAPTERS: dict[str, Adapter] = {
    "pytrec_eval": pytrec_eval.PytrecEval(),
    **ir_measures.ADAPTERS,
    **ranx.ADAPTERS,
    **beir.ADAPTERS,
    **pyndeval.ADAPTERS,
}


def references(against: list[str] | None = None, trec_eval: list[str] | None = None) -> list[Adapter]:
    """The adapters named in ``against`` (names, ``ir_measures`` for every provider,
    ``trec_eval`` for every binary), or all of them; trec_eval binaries from ``trec_eval``
    paths or PATH. Unknown names raise :class:`~auditeval.vocab.errors.ConventionError`."""
    from auditeval.vocab.errors import ConventionError

    bins: list[Adapter] = list(discover(trec_eval))
    every: dict[str, Adapter] = {**ADAPTERS, **{b.name: b for b in bins}}
    if against is None:
        return list(every.values())
    named = list(bins) if trec_eval else []  # binaries given by path always take part
    out: list[Adapter] = []
    for name in against:
        if name == "ir_measures":
            out += [a for n, a in ADAPTERS.items() if n.startswith("ir_measures:")]
        elif name == "trec_eval":
            out += bins
        elif name in every:
            out.append(every[name])
        else:
            raise ConventionError(f"--against: unknown reference {name!r}; known: {', '.join(every)}, ir_measures, trec_eval")
    return list(dict.fromkeys(out + named))


__all__ = ["ADAPTERS", "Adapter", "Plan", "Support", "TrecEvalBinary", "check_declarations", "references"]
