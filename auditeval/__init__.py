"""auditeval: information-retrieval evaluation numbers that carry their conventions.

Public API::

    import auditeval as ae
    qrels = ae.read_qrels("qrels.txt")
    run = ae.read_run("run.txt")
    res = ae.evaluate(qrels, run, ["AP", "nDCG@10"], profile="trec_eval-9.0.8")
    for v in res.aggregates():
        print(v.variant, v.value)
"""

from __future__ import annotations

from auditeval._version import __version__
from auditeval.api import evaluate, sweep
from auditeval.auditing.core import audit
from auditeval.io import qrels_from, read_qrels, read_run, run_from, write_qrels, write_run
from auditeval.results.audit import AuditReport
from auditeval.results.values import ResultSet, Value
from auditeval.vocab.conventions import Convention, load_profile, profile_names
from auditeval.vocab.errors import (
    AuditEvalError,
    ConventionError,
    EvaluationError,
    InputError,
    MeasureSyntaxError,
    UnknownMeasureError,
)
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant, parse_measure, parse_variant


def _register_ir_measures() -> None:
    """``ir_measures.providers.registry['auditeval']`` when ir_measures is installed."""
    try:
        import ir_measures  # noqa: F401
    except ImportError:
        return
    from auditeval.integrations.ir_measures_provider import register

    register()


_register_ir_measures()

__all__ = [
    "AuditReport",
    "AuditEvalError",
    "Convention",
    "ConventionError",
    "EvaluationError",
    "InputError",
    "Measure",
    "MeasureSyntaxError",
    "Qrels",
    "ResultSet",
    "Run",
    "UnknownMeasureError",
    "Value",
    "Variant",
    "__version__",
    "audit",
    "evaluate",
    "sweep",
    "load_profile",
    "parse_measure",
    "parse_variant",
    "profile_names",
    "qrels_from",
    "read_qrels",
    "read_run",
    "run_from",
    "write_qrels",
    "write_run",
]
