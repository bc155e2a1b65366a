"""The audit: reference tools beside the native engine, every difference explained.

``audit(qrels, runs, ...)`` (:mod:`.core`) returns an :class:`~.report.AuditReport`.
Modules: :mod:`.native` (the one door to the engine), :mod:`.inputs` (files the tools read),
:mod:`.agreement`, :mod:`.attribution` + :mod:`.evidence`, :mod:`.sensitivity`,
:mod:`.ties` (tie envelope), :mod:`.diagnostics`, :mod:`.official`, :mod:`.report`.

The package itself is callable: ``auditeval.audit(qrels, runs, ...)`` (the public API, also
``from auditeval import audit``) calls :func:`.core.audit`. The name ``auditeval.audit``
therefore stays this package, so ``import auditeval.audit.core as core`` and every other
submodule import reach their module (a function bound to that name would hide them).
"""

from __future__ import annotations

import sys
import types
from typing import Any

from .core import DEFAULT_MEASURES, DEFAULT_PROFILE, audit
from .report import AuditReport

__all__ = ["DEFAULT_MEASURES", "DEFAULT_PROFILE", "AuditReport", "audit"]


class _CallablePackage(types.ModuleType):
    """This package's module type: calling it is calling :func:`.core.audit`."""

    def __call__(self, *args: Any, **kwargs: Any) -> AuditReport:
        return audit(*args, **kwargs)

    @property
    def __signature__(self):  # inspect.signature(auditeval.audit) and help() show audit()'s
        import inspect

        return inspect.signature(audit)


sys.modules[__name__].__class__ = _CallablePackage
