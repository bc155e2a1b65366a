"""The audit: reference tools beside the native engine, every difference explained.

``audit(qrels, runs, ...)`` (:mod:`.core`) returns an :class:`~.report.AuditReport`.
Modules: :mod:`.native` (the one door to the engine), :mod:`.inputs` (files the tools read),
:mod:`.agreement`, :mod:`.attribution` + :mod:`.evidence`, :mod:`.sensitivity`,
:mod:`.ties` (tie envelope), :mod:`.diagnostics`, :mod:`.official`, :mod:`.report`.
"""

from __future__ import annotations

from .core import DEFAULT_MEASURES, DEFAULT_PROFILE, audit
from .report import AuditReport

__all__ = ["DEFAULT_MEASURES", "DEFAULT_PROFILE", "AuditReport", "audit"]
