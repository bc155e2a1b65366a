"""Terminal table (rich): value and the variant string on every row, notes underneath."""

from __future__ import annotations

from typing import TextIO

from rich.console import Console
from rich.table import Table

from ..results import ResultSet


def format_value(x: float | int | str) -> str:
    if isinstance(x, float):
        return f"{x:.4f}"
    return str(x)


def render_text(res: ResultSet, out: TextIO, per_topic: bool = False) -> None:
    rows = res.values if per_topic else res.aggregates()
    widest = max((len(v.variant) for v in rows), default=40)
    console = Console(file=out, width=max(widest + 60, 100), soft_wrap=False)
    engines = sorted({v.engine for v in res.values})
    table = Table(
        title=f"profile {res.profile} · engine {', '.join(engines)}",
        title_justify="left",
        show_lines=False,
    )
    table.add_column("run", style="bold")
    table.add_column("measure")
    if per_topic:
        table.add_column("topic")
    table.add_column("value", justify="right", style="cyan")
    table.add_column("variant", overflow="fold", style="dim")
    for v in rows:
        row = [v.run, v.measure] + ([v.topic] if per_topic else []) + [format_value(v.value), v.variant]
        table.add_row(*row)
    console.print(table)
    for n in res.notes:
        console.print(f"[yellow]note:[/] {n}", highlight=False)
