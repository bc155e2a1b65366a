"""Shared by the command-line tests: run ``auditeval`` in process and capture its streams."""

from __future__ import annotations

import io

from auditeval.cli.main import main


def run_cli(*argv: str) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)`` of ``auditeval ARGV...``."""
    out, err = io.StringIO(), io.StringIO()
    code = main(list(argv), out, err)
    return code, out.getvalue(), err.getvalue()


def joined_variant_lines(text: str) -> list[str]:
    """The lines of ``text`` with every variant string broken after ``|`` put back together:
    a line ending in ``|`` continues on the next line (its indentation removed)."""
    out: list[str] = []
    cont = False
    for line in text.splitlines():
        if cont:
            out[-1] += line.lstrip()
        else:
            out.append(line)
        cont = out[-1].rstrip().endswith("|")
        out[-1] = out[-1].rstrip() if cont else out[-1]
    return out
