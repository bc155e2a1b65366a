"""What the boxed rich tables of ``reproduce``, ``diff`` and ``verify`` share: the console they
draw on, the room left for a column of variant strings, and the cell texts.

A variant string is broken after ``|`` only (:func:`~auditeval.render.textgrid.wrap_variant`);
where fewer than :data:`MIN_VARIANT` cells are left beside the numbers, a table puts its variants
under it instead.
"""

from __future__ import annotations

from typing import Any, TextIO

__all__ = ["MIN_VARIANT", "console", "fmt", "room", "variant_cell"]

MIN_VARIANT = 30  # narrowest column of variant strings kept in a table (else they go under it)


def console(out: TextIO) -> Any:
    """A rich console for ``out`` (:func:`auditeval.render.terminal.console`, control characters
    of the data escaped): the terminal's width, else ``$COLUMNS``, else 100
    (:func:`~auditeval.render.width.detect_width`); no soft wrap, no highlighting."""
    from auditeval.render.terminal import console as safe_console
    from auditeval.render.width import detect_width

    return safe_console(file=out, width=detect_width(out), soft_wrap=False, highlight=False)


def variant_cell(variant: str, room: int) -> str:
    """A variant string for a rich table cell ``room`` cells wide (at least 20): broken after
    ``|`` only (:func:`~auditeval.render.textgrid.wrap_variant`), markup escaped."""
    from rich.markup import escape

    from auditeval.render.textgrid import wrap_variant

    return escape("\n".join(wrap_variant(variant, max(room, 20))))


def room(width: int, headers: list[str], rows: list[list[str]]) -> int:
    """Cells left for the last column of a boxed rich table ``width`` wide whose other columns
    have ``headers`` and hold ``rows`` (plain text): each column takes its longest line, one
    blank each side and one rule: ``width - sum(longest) - 3 * (columns + 1) - 1``."""
    from rich.cells import cell_len

    used = sum(max(cell_len(x) for c in [h, *(r[i] for r in rows)] for x in c.split("\n"))
               for i, h in enumerate(headers))
    return width - used - 3 * (len(headers) + 1) - 1


def fmt(x: float) -> str:
    """A statistic in a table cell: four decimals, ``nan`` for NaN."""
    return "nan" if x != x else f"{x:.4f}"
