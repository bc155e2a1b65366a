"""ranx (optional extra): ``Qrels.from_file`` / ``Run.from_file`` (TREC), ``evaluate``.

``make_comparable=True`` (every qrels topic, missing ones 0), per-topic values from
``run.scores`` after ``evaluate``. Metric names (:data:`auditeval.vocab.names.RANX_NAMES`):
``map``, ``ndcg`` / ``ndcg_burges`` (gain exp2), ``dcg`` / ``dcg_burges`` (unnormalised DCG),
``precision``, ``recall``, ``mrr``, ``bpref``, ``r-precision``, ``hit_rate``, ``hits`` (our
Hits: ranx averages it; NumRelRet, which sums, is not sent); ``@k`` cut-off and ``-lN``
relevance level suffixes, the latter only for measures reading ``rel`` (ranx's ``-lN`` on
``ndcg``/``dcg`` would zero the gains of grades below N, which auditeval's gain never does).
Numba compiles every metric on first use (about 30 s, cached afterwards).
"""

from __future__ import annotations

import importlib.metadata as md

from auditeval.adapters.base import ANY, Adapter, native, run_rewrite_axes
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.names import RANX_NAMES
from auditeval.vocab.specs import SPECS

# auditeval (name, gain or None) -> ranx metric name, from names.RANX_NAMES
_NAMES = {(ours, gain): theirs for theirs, (ours, gain) in RANX_NAMES.items()}
_GAINED = frozenset(ours for ours, gain in RANX_NAMES.values() if gain is not None)
_NEED_CUT = frozenset({"P", "Success"})


class Ranx(Adapter):
    name = "ranx"
    profile = "ranx-0.3"
    install = "pip install 'auditeval[references]'"
    # CPU seconds (benchmarks/audit_bench.py --calibrate): 20 s on a 100,000-line robust03 run
    # with numba's compiled metrics cached (36 s while it compiles them)
    cost, startup = 19.0, 1.0
    axes = {**run_rewrite_axes("ranx-0.3"), "rel": native({ANY: ""}),
            "gain": native({"linear": "", "exp2": ""})}

    def available(self) -> str | None:
        try:
            md.version("ranx")
        except md.PackageNotFoundError:
            return f"not installed: {self.install}"
        return None

    def engine(self) -> str:
        return f"ranx {md.version('ranx')}"

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        if m.params:
            return None
        base = _NAMES.get((m.name, conv.gain if m.name in _GAINED else None))
        if base is None:
            return None
        if m.name in _NEED_CUT and m.cutoff is None:
            return None
        if m.cutoff is not None and not isinstance(m.cutoff, int):
            return None
        s = base + (f"@{m.cutoff}" if m.cutoff is not None else "")
        return s + (f"-l{conv.rel}" if conv.rel != 1 and "rel" in SPECS[m.name].axes else "")


ADAPTERS = {"ranx": Ranx()}
