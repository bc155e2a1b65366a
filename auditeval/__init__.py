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
from auditeval.integrations.registration import register_with_ir_measures
from auditeval.vocab.lazy import lazy_exports

# name -> module: loaded on first use (PEP 562), so that `import auditeval` and the command line
# load only what they use (the trec_eval drop-in never imports the audit, ir_measures or rich).
_WHERE = {
    "evaluate": "auditeval.api", "sweep": "auditeval.api",
    "audit": "auditeval.auditing.core", "AuditReport": "auditeval.results.audit",
    "render_audit": "auditeval.render.audit",
    "Convention": "auditeval.vocab.conventions", "load_profile": "auditeval.vocab.conventions",
    "profile_names": "auditeval.vocab.conventions",
    "AuditEvalError": "auditeval.vocab.errors", "ConventionError": "auditeval.vocab.errors",
    "EvaluationError": "auditeval.vocab.errors", "InputError": "auditeval.vocab.errors",
    "MeasureSyntaxError": "auditeval.vocab.errors", "UnknownMeasureError": "auditeval.vocab.errors",
    "qrels_from": "auditeval.io", "read_qrels": "auditeval.io", "read_run": "auditeval.io",
    "run_from": "auditeval.io", "write_qrels": "auditeval.io", "write_run": "auditeval.io",
    "Measure": "auditeval.vocab.measure", "Qrels": "auditeval.vocab.model", "Run": "auditeval.vocab.model",
    "ResultSet": "auditeval.results.values", "Value": "auditeval.results.values",
    "Variant": "auditeval.vocab.variant", "parse_measure": "auditeval.vocab.variant",
    "parse_variant": "auditeval.vocab.variant",
}


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)


register_with_ir_measures()  # ir_measures.providers.registry['auditeval'], now or when ir_measures loads

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
    "render_audit",
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
