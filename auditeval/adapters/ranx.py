"""ranx (optional extra): ``Qrels.from_file`` / ``Run.from_file`` (TREC), ``evaluate``.

``make_comparable=True`` (every qrels topic, missing ones 0), per-topic values from
``run.scores`` after ``evaluate``. Metric names: ``map``, ``ndcg`` / ``ndcg_burges`` (gain
exp2), ``precision``, ``recall``, ``mrr``, ``bpref``, ``r-precision``, ``hit_rate``; ``@k``
cut-off and ``-lN`` relevance level suffixes. Numba compiles every metric on first use
(about 30 s, cached afterwards).
"""

from __future__ import annotations

import importlib.metadata as md

from auditeval.adapters.base import ANY, Adapter, native, run_rewrite_axes
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

_NAMES = {"AP": "map", "P": "precision", "R": "recall", "RR": "mrr", "Bpref": "bpref", "Rprec": "r-precision",
          "Success": "hit_rate"}
_NEED_CUT = frozenset({"P", "Success"})


class Ranx(Adapter):
    name = "ranx"
    profile = "ranx-0.3"
    install = "pip install ranx"
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
        if m.name == "nDCG":
            base = "ndcg" if conv.gain == "linear" else "ndcg_burges"
        elif m.name in _NAMES:
            base = _NAMES[m.name]
        else:
            return None
        if m.name in _NEED_CUT and m.cutoff is None:
            return None
        if m.cutoff is not None and not isinstance(m.cutoff, int):
            return None
        s = base + (f"@{m.cutoff}" if m.cutoff is not None else "")
        return s + (f"-l{conv.rel}" if conv.rel != 1 else "")



ADAPTERS = {"ranx": Ranx()}
