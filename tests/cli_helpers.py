"""Shared by the command-line tests: run ``auditeval`` in process and capture its streams."""

from __future__ import annotations

import io

from auditeval.cli import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)`` of ``auditeval ARGV...``."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()
