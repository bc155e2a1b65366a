"""Terminal rendering of the audit (rich): colour for disagreement, fits ``width`` columns.

Variant strings are folded into a legend (``V1: AP  ties=docno-asc``: only the axes that
differ from the chosen profile's variant of that measure). Cells are rich ``Text`` objects,
so markup-like ids (``[bold]``) print literally.
"""

from __future__ import annotations

import io

from rich.console import Console
from rich.table import Table
from rich.text import Text

from ..audit.report import AuditReport
from .audit_tables import BAD, WARN, sections, verdict

STYLE = {**{s: "bold red" for s in BAD}, **{s: "yellow" for s in WARN}}
SKIP_EMPTY = {"evidence", "notes", "attribution", "conv_diff", "conv_effect", "unsupported"}


def render(rep: AuditReport, width: int = 100, color: bool = False) -> str:
    buf = io.StringIO()
    console = Console(file=buf, width=width, force_terminal=color, color_system="standard" if color else None,
                      no_color=not color, highlight=False, soft_wrap=False)
    secs, variants = sections(rep, legend=True)
    head = Text(f"auditeval audit  ·  profile {rep.profile}  ·  {len(rep.runs)} run(s)  ·  qrels {rep.qrels}")
    console.print(head)
    v = verdict(rep)
    console.print(Text(v, style="bold red" if rep.exit_status else "bold green"))
    for s in secs:
        if not s.rows and s.key in SKIP_EMPTY:
            continue
        t = Table(title=Text(s.title), title_justify="left", show_lines=False, expand=False, pad_edge=False)
        for h in s.headers:
            t.add_column(Text(h), overflow="fold")
        for row, st in zip(s.rows, s.status, strict=True):
            t.add_row(*[Text(c) for c in row], style=STYLE.get(st))
        if not s.rows:
            t.add_row(*[Text("-") for _ in s.headers])
        console.print(t)
        if s.intro:
            console.print(Text(s.intro, style="dim"))
    legend = variants.legend()
    if legend:
        t = Table(title=Text("Variants (axes that differ from the chosen profile's variant)"), title_justify="left")
        for h in ("label", "measure", "axes"):
            t.add_column(h, overflow="fold")
        for row in legend:
            t.add_row(*[Text(c) for c in row])
        console.print(t)
        console.print(Text(f"full variant strings: --format json; engine of every native value: {rep.native_engine}",
                           style="dim"))
    return buf.getvalue()
