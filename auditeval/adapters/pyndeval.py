"""pyndeval (optional extra): ndeval 4.5, the TREC Web track's diversity evaluation, in process.

What runs in the child is :func:`auditeval.adapters.tools.pyndeval_values`: the qrels file
read as ``topic subtopic doc grade`` (ndeval's subtopic qrels), the run as (topic, doc,
score) grouped by topic, one ``pyndeval.RelevanceEvaluator(qrels, names, relevance_level,
alpha, beta)`` per (rel, alpha, beta). pyndeval ranks each topic by score descending, then doc
id ascending (own ``ties=docno-asc``, float64), and yields topics in both run and qrels.

Measures (auditeval -> pyndeval, every one pyndeval reports, SUPPORTED_MEASURES):
``alpha_DCG(alpha=a)@k`` -> ``alpha-DCG@k`` with ``alpha=a``, ``alpha_nDCG@k`` -> ``alpha-nDCG@k``,
``ERR_IA(alpha=a)@k`` -> ``ERR-IA@k`` and ``nERR_IA@k`` -> ``nERR-IA@k`` (ndeval's one global alpha,
which pyndeval sets per evaluator), ``NRBP(alpha=a,beta=b)`` -> ``NRBP``, ``nNRBP`` -> ``nNRBP``,
``AP_IA`` -> ``MAP-IA``, ``P_IA@k`` -> ``P-IA@k``, ``StRecall@k`` -> ``strec@k`` (the last three
read neither alpha nor beta); cut-offs 1..20 only (ndeval's ``DEPTH``; pyndeval asserts it).
"""

from __future__ import annotations

import importlib.metadata as md

from auditeval.adapters.base import ANY, Adapter, native, run_rewrite_axes
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

# auditeval name -> pyndeval name (pyndeval/__init__.py SUPPORTED_MEASURES)
NAMES = {"alpha_DCG": "alpha-DCG", "alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "nERR_IA": "nERR-IA", "NRBP": "NRBP",
         "nNRBP": "nNRBP", "AP_IA": "MAP-IA", "P_IA": "P-IA", "StRecall": "strec"}
MAX_CUTOFF = 20  # ndeval.c:69 DEPTH; pyndeval/__init__.py asserts max_cutoff <= 20
DEFAULT_ALPHA = DEFAULT_BETA = 0.5  # ndeval.c:70-71


class Pyndeval(Adapter):
    name = "pyndeval"
    profile = "pyndeval-0.0"
    install = "pip install 'auditeval[references]'"
    # CPU seconds of the child (tools.py) on benchmarks/diversity.py's 50,000-line run (37,649
    # subtopic judgments) with the five measures: 0.25 s, of which 0.05 s start-up (audit_bench.py's
    # robust03 calibration does not apply: pyndeval needs a subtopic qrels)
    cost, startup = 0.4, 0.1
    axes = {**run_rewrite_axes("pyndeval-0.0"), "rel": native({ANY: "relevance_level={}"})}

    def available(self) -> str | None:
        try:
            md.version("pyndeval")
        except md.PackageNotFoundError:
            return f"not installed: {self.install}"
        return None

    def engine(self) -> str:
        return f"pyndeval {md.version('pyndeval')} (ndeval 4.5)"

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        """``NAME[@k] alpha=A beta=B`` (the child's evaluator options), None for what pyndeval
        cannot compute (another measure, a cut-off above 20)."""
        name = NAMES.get(m.name)
        if name is None or (m.cutoff is not None and not (isinstance(m.cutoff, int) and 1 <= m.cutoff <= MAX_CUTOFF)):
            return None
        params = dict(m.params)
        if any(k not in ("alpha", "beta") for k in params):
            return None
        alpha = float(params.get("alpha", DEFAULT_ALPHA))
        beta = float(params.get("beta", DEFAULT_BETA))
        return f"{name}{'' if m.cutoff is None else f'@{m.cutoff}'} alpha={alpha!r} beta={beta!r}"


ADAPTERS = {"pyndeval": Pyndeval()}
