"""Exceptions with locations: every input problem names the file and the line."""

from __future__ import annotations


class AuditEvalError(Exception):
    """Base class of every error auditeval raises on purpose."""


class InputError(AuditEvalError, ValueError):
    """Bad qrels or run input.

    ``str(err)`` is ``"path:line: reason"`` (or ``"path: reason"`` when the problem
    concerns the whole file), the form compilers use, so editors can jump to it.
    """

    def __init__(self, path: str, line: int | None, reason: str):
        self.path = path
        self.line = line
        self.reason = reason
        where = f"{path}:{line}" if line is not None else path
        super().__init__(f"{where}: {reason}")


class ConventionError(AuditEvalError, ValueError):
    """Unknown axis, bad axis value, unknown or malformed profile."""


class MeasureSyntaxError(AuditEvalError, ValueError):
    """A measure or variant string that does not parse; points at the offending character."""

    def __init__(self, text: str, pos: int, reason: str):
        self.text = text
        self.pos = pos
        self.reason = reason
        caret = " " * pos + "^"
        super().__init__(f"{reason} at position {pos}\n    {text}\n    {caret}")


class UnknownMeasureError(AuditEvalError, ValueError):
    """A measure name that no table knows."""


class EvaluationError(AuditEvalError):
    """The evaluation cannot proceed under the chosen conventions (e.g. topics=strict)."""


class OutputError(AuditEvalError, OSError):
    """A file auditeval was asked to write cannot be written: ``"path: reason"`` (a missing or
    read-only folder, a full disk). Nothing is left half-written (:func:`auditeval.io.files.atomic_write`)."""

    def __init__(self, path: str, reason: str):
        self.path = path
        self.reason = reason
        super().__init__(f"{path}: {reason}")

    def __str__(self) -> str:  # OSError's own __str__ would show the errno tuple
        return f"{self.path}: {self.reason}"
