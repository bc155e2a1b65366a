"""pytrec_eval (pytrec-eval-terrier): trec_eval 9.0.x compiled in, scores stored as C float.

What runs in the child is :func:`auditeval.adapters.tools.pytrec_eval_values` (per-topic
``gm_*`` logs turned back into floored values; aggregates from pytrec_eval's own
``compute_aggregated_measure``). Topics: those in both run and qrels (no ``-c``).
"""

from __future__ import annotations

import importlib.metadata as md

from auditeval.adapters.base import ANY, Adapter, native, run_rewrite_axes
from auditeval.adapters.trec_names import KIND, trec_name
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

# pytrec_eval.supported_measures of pytrec-eval-terrier 0.5 (no yaap): checked at import when installed
SUPPORTED = frozenset({
    "11pt_avg", "G", "P", "Rndcg", "Rprec", "Rprec_mult", "binG", "bpref", "gm_bpref", "gm_map", "infAP",
    "iprec_at_recall", "map", "map_cut", "ndcg", "ndcg_cut", "ndcg_rel", "num_nonrel_judged_ret", "num_q", "num_rel",
    "num_rel_ret", "num_ret", "recall", "recip_rank", "relative_P", "relstring", "runid", "set_F", "set_P", "set_map",
    "set_recall", "set_relative_P", "success", "utility",
})


class PytrecEval(Adapter):
    name = "pytrec_eval"
    profile = "trec_eval-9.0.8"
    install = "pip install pytrec-eval-terrier"
    # CPU seconds (benchmarks/audit_bench.py --calibrate): 0.75 s on a 100,000-line robust03 run
    cost, startup = 0.5, 0.3
    axes = {**run_rewrite_axes("trec_eval-9.0.8"), "rel": native({ANY: "relevance_level={}"})}

    def available(self) -> str | None:
        try:
            md.version("pytrec-eval-terrier")
        except md.PackageNotFoundError:
            return f"not installed: {self.install}"
        return None

    def engine(self) -> str:
        return f"pytrec_eval-terrier {md.version('pytrec-eval-terrier')} (trec_eval 9.0.x, float32 scores)"

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        t = trec_name(m, "9.0.8")  # pytrec_eval-terrier bundles trec_eval's float32 tag
        if t is None or t[0].split(".")[0] not in SUPPORTED:
            return None
        family, _, param = t[0].partition(".")
        if param and KIND[family] in ("pairs", "double_params"):
            # pytrec_eval splits parameter strings at commas (utility.2,-1,0,0 computes a=0; a
            # pair list aborts the process) and prints set_F.2.0 as set_F: only cut-offs are safe
            return None
        return f"{t[0]} {t[1]}"
