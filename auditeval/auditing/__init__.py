"""The audit: reference tools beside the native engine, every difference explained.

``audit(qrels, runs, ...)`` (:mod:`.core`; its options one :class:`~.core.AuditOptions`) returns an :class:`~auditeval.results.audit.AuditReport`.
Modules: :mod:`.native` (the one door to the engine), :mod:`.inputs` (files the tools read),
:mod:`.tool_agreement`, :mod:`.attribution` + :mod:`.evidence`, :mod:`.sensitivity`,
:mod:`.tie_envelope` (tie envelope), :mod:`.input_diagnostics`, :mod:`.official`; the report is :mod:`auditeval.results.audit`.

The public call is ``auditeval.audit(qrels, runs, ...)`` (:func:`.core.audit`).
"""

from __future__ import annotations

from auditeval.vocab.lazy import lazy_exports

# loaded on first use (PEP 562): eval's tie note imports auditing.tie_note, which must not bring
# the audit's core, its reference adapters and their planning along
_LAZY = {"DEFAULT_MEASURES": "auditeval.auditing.core", "audit": "auditeval.auditing.core",
         "AuditOptions": "auditeval.auditing.core",
         "AuditReport": "auditeval.results.audit"}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = ["DEFAULT_MEASURES", "AuditOptions", "AuditReport", "audit"]
