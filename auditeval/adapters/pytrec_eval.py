"""pytrec_eval (pytrec-eval-terrier): trec_eval 9.0.x compiled in, scores stored as C float.

Per-topic ``gm_*`` values come back as logs, ``log(max(x, 1e-5))``; the child converts them
to ``max(x, 1e-5)`` so they compare with auditeval's floored per-topic values. Aggregates
are pytrec_eval's own ``compute_aggregated_measure`` (mean; exp of the mean log for gm_*).
Topics: those in both run and qrels (no ``-c``).
"""

from __future__ import annotations

import importlib.metadata as md
import math
from typing import Any

from ..conventions import Convention
from ..measures import Measure
from .base import ANY, Adapter, native, run_rewrite_axes
from .trec_names import GEOMETRIC, trec_name


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

    @staticmethod
    def compute(spec: dict[str, Any]) -> dict[str, Any]:
        """Child-process side: parse both files with pytrec_eval and evaluate each request group."""
        import pytrec_eval

        with open(spec["qrels"], encoding="utf-8") as fh:
            qrel = pytrec_eval.parse_qrel(fh)
        out: dict[str, Any] = {}
        for job in spec["jobs"]:
            with open(job["run"], encoding="utf-8") as fh:
                run = pytrec_eval.parse_run(fh)
            groups: dict[tuple, list] = {}
            for req in job["requests"]:
                groups.setdefault(tuple(req["options"]), []).append(req)
            for opts, reqs in groups.items():
                kw = dict(o.split("=", 1) for o in opts)
                level = int(kw.get("relevance_level", 1))
                names = {r["tool"].split()[0] for r in reqs}
                res = pytrec_eval.RelevanceEvaluator(qrel, names, relevance_level=level).evaluate(run)
                for r in reqs:
                    printed = r["tool"].split()[1]
                    vals = {t: float(v[printed]) for t, v in res.items()}
                    agg = pytrec_eval.compute_aggregated_measure(printed, list(vals.values())) if vals else None
                    if printed in GEOMETRIC:
                        vals = {t: math.exp(v) for t, v in vals.items()}
                    out[r["key"]] = {"topics": vals, "aggregate": agg}
        return out
