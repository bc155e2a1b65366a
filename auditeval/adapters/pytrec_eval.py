"""pytrec_eval (pytrec-eval-terrier): trec_eval 9.0.x compiled in, scores stored as C float.

What runs in the child is :func:`auditeval.adapters.tools.pytrec_eval_values` (per-topic
``gm_*`` logs turned back into floored values; aggregates from pytrec_eval's own
``compute_aggregated_measure``). Topics: those in both run and qrels (no ``-c``).
"""

from __future__ import annotations

import importlib.metadata as md

from ..conventions import Convention
from ..measures import Measure
from .base import ANY, Adapter, native, run_rewrite_axes
from .trec_names import trec_name


class PytrecEval(Adapter):
    name = "pytrec_eval"
    profile = "trec_eval-9.0.8"
    install = "pip install pytrec-eval-terrier"
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
        t = trec_name(m)
        return None if t is None else f"{t[0]} {t[1]}"
