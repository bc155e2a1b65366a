"""The width of a command's text output: ``--width``, else the terminal's, else ``$COLUMNS``, else 100.

Apart from the renderers (which draw with rich) so that every command can read it without
loading rich (``cli/main.py`` sets :data:`WIDTH` for the command it runs).
"""

from __future__ import annotations

import os
from contextvars import ContextVar
from typing import TextIO

DEFAULT_WIDTH = 100  # when the output is not a terminal and COLUMNS is unset


WIDTH: ContextVar[int | None] = ContextVar("auditeval_width", default=None)
"""The command's ``--width`` (set by :func:`auditeval.cli.main.main` while a command runs)."""


def detect_width(out: TextIO) -> int:
    """``--width`` when given, else the terminal's width when ``out`` is one, else ``$COLUMNS``,
    else 100 (kept in 40..400)."""
    if WIDTH.get() is not None:
        return max(40, min(400, int(WIDTH.get())))
    width = None
    try:
        if out.isatty():
            width = os.get_terminal_size(out.fileno()).columns
    except (AttributeError, OSError, ValueError):
        width = None
    if width is None:
        try:
            width = int(os.environ.get("COLUMNS", ""))
        except ValueError:
            width = DEFAULT_WIDTH
    return max(40, min(400, width))
