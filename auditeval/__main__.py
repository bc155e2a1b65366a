"""``python -m auditeval`` = the ``auditeval`` command."""

from .cli import entry

entry()
