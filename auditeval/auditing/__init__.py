"""The audit: reference tools beside the native engine, every difference explained.

``audit(qrels, runs, ...)`` (:mod:`.core`) returns an :class:`~auditeval.results.audit.AuditReport`.
Modules: :mod:`.native` (the one door to the engine), :mod:`.inputs` (files the tools read),
:mod:`.agreement`, :mod:`.attribution` + :mod:`.evidence`, :mod:`.sensitivity`,
:mod:`.ties` (tie envelope), :mod:`.diagnostics`, :mod:`.official`; the report is :mod:`auditeval.results.audit`.

The public call is ``auditeval.audit(qrels, runs, ...)`` (:func:`.core.audit`).
"""

from __future__ import annotations

from auditeval.auditing.core import DEFAULT_MEASURES, audit
from auditeval.results.audit import AuditReport

__all__ = ["DEFAULT_MEASURES", "AuditReport", "audit"]
