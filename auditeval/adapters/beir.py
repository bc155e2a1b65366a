"""BEIR (``pip install --no-deps beir`` beside pytrec-eval-terrier): the real
``EvaluateRetrieval.evaluate(qrels, results, k_values, ignore_identical_ids)``.

What runs in the child is :func:`auditeval.adapters.tools.beir_values`: the qrels and the run
are read into BEIR's dict-of-dicts (a repeated query/document pair keeps the last line, as
any dict does: beir/retrieval/evaluation.py:70-71), then one call of ``evaluate`` with every
requested cut-off. BEIR returns aggregates only, each ``round(sum / len(scores), 5)``
(evaluation.py:111-115): the adapter exposes them as printed text with 5 decimals, compared
with the native mean printed the same way (profile ``beir-2.2``).

Measures: ``NDCG@k`` = nDCG@k, ``MAP@k`` = AP@k (trec_eval ``map_cut``: divided by R),
``Recall@k`` = R@k, ``P@k``; each needs a cut-off. Self hits (a document id equal to its
query id) are dropped by default, ``ignore_identical_ids=False`` keeps them (evaluation.py:73).
"""

from __future__ import annotations

import importlib.metadata as md

from auditeval.adapters.base import Adapter, native, run_rewrite_axes
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

# auditeval measure -> the key prefix of BEIR's result dicts (evaluation.py:91-94)
NAMES = {"nDCG": "NDCG", "AP": "MAP", "R": "Recall", "P": "P"}


class Beir(Adapter):
    name = "beir"
    profile = "beir-2.2"
    install = "pip install --no-deps beir  (its evaluation module needs pytrec-eval-terrier alone)"
    exposes_per_topic = False
    printed_digits = 5
    summary_only = frozenset(NAMES)  # BEIR returns means only
    # CPU seconds (benchmarks/audit_bench.py --calibrate): about pytrec_eval's, plus BEIR's imports
    cost, startup = 0.6, 0.6
    axes = {**run_rewrite_axes("beir-2.2", skip=("self_hits",)),
            "self_hits": native({"drop": "", "keep": "ignore_identical_ids=False"})}

    def available(self) -> str | None:
        try:
            md.version("beir")
            md.version("pytrec-eval-terrier")
        except md.PackageNotFoundError:
            return f"not installed: {self.install}"
        return None

    def engine(self) -> str:
        return (f"beir {md.version('beir')} EvaluateRetrieval.evaluate (pytrec_eval-terrier "
                f"{md.version('pytrec-eval-terrier')}; means rounded to 5 decimals)")

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        if m.name not in NAMES or m.params or not isinstance(m.cutoff, int) or isinstance(m.cutoff, bool):
            return None
        return f"{NAMES[m.name]}@{m.cutoff}"


ADAPTERS = {"beir": Beir()}
