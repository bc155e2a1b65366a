"""Shared by the command-line tests: run ``auditeval`` in process and capture its streams."""

from __future__ import annotations

import contextlib
import io
import os
import subprocess
from pathlib import Path

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


def run_cli_in(argv: list[str], cwd: Path | str | None = None, env: dict[str, str] | None = None,
               ) -> subprocess.CompletedProcess:
    """``auditeval ARGV`` in this process, as a child would run it: in folder ``cwd`` with the
    variables ``env`` set (``COLUMNS``, ...), ``sys.stdout``/``sys.stderr`` captured too (argparse
    writes its usage there) and ``SystemExit`` taken as the exit status. The result has a
    child's fields (``returncode``, ``stdout``, ``stderr``); an exception the command lets out
    propagates (a child would print a traceback). Used where a test is about what a command
    answers, not about the process (``tests/cli/test_commands_fresh.py`` is)."""
    out, err = io.StringIO(), io.StringIO()
    saved = {k: os.environ.get(k) for k in (env or {})}
    here = os.getcwd()
    try:
        os.environ.update(env or {})
        if cwd is not None:
            os.chdir(cwd)
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            try:
                code = main(list(argv), out, err)
            except SystemExit as exc:
                code = exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    finally:
        os.chdir(here)
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
    return subprocess.CompletedProcess(["auditeval", *argv], code, out.getvalue(), err.getvalue())
