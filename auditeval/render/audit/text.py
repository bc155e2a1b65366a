"""Terminal rendering of the audit: the ``summary`` view (default) or the ``full`` view.

Both fit ``width`` columns without splitting an engine name, a variant or a topic id
(:mod:`auditeval.render.textgrid`); a full variant string longer than the width breaks after a ``|`` only,
its continuation lines indented. ``summary`` is :mod:`.summary`. ``full`` is the same header,
then every table of :mod:`.tables` with each variant string as a short label (``V1``),
and the legend: per label the measure and the axes that differ from the chosen profile's
variant, then the full variant string on lines of its own.

Colour (rich) only when asked (a terminal): red for disagreements and failures, yellow for
explained ones and missing references. Lines are rich ``Text``, so markup-like ids
(``[bold]``) print literally.
"""

from __future__ import annotations

import io

from rich.text import Text

from auditeval.render.audit.summary import Line, header, summary
from auditeval.render.audit.tables import BAD, WARN, Section, sections
from auditeval.render.terminal import console as safe_console
from auditeval.render.textgrid import grid, wrap, wrap_variant
from auditeval.results.audit import AuditReport

VIEWS = ("summary", "full")
STYLE = {**{s: "bold red" for s in BAD}, **{s: "yellow" for s in WARN}, "title": "bold", "dim": "dim",
         "ok": "bold green"}
SKIP_EMPTY = {"evidence", "notes", "attribution", "conv_diff", "conv_effect", "unsupported"}
# columns of prose (broken at spaces when a table is too wide); every other column is kept whole
PROSE = {"computes / note", "version", "measures", "reason", "detail", "engines", "A", "B", "A -> B", "B -> A",
         "evidence", "value", "aggregate", "delta", "largest change", "pairs swapped", "method", "note"}
NUMERIC = {"seconds", "cpu seconds", "value", "native", "aggregate", "delta", "topics", "topics moved", "min", "max", "expected",
           "orderings"}


def _section(s: Section, width: int) -> list[Line]:
    out = [Line("")] + [Line(x, "title") for x in wrap(s.title, width, indent=2)]
    rows = s.rows or [["-"] * len(s.headers)]
    status = s.status or [""]
    wrap_cols = [i for i, h in enumerate(s.headers) if h in PROSE and (i > 0 or len(s.headers) == 1)]
    right = [i for i, h in enumerate(s.headers) if h in NUMERIC and h not in PROSE]
    for text, i in grid(s.headers, rows, width, wrap_cols=wrap_cols, right=right, keys=1):
        out.append(Line(text, "dim" if i < 0 and text.startswith("─") else (status[i] if i >= 0 else "")))
    if s.intro:
        out += [Line(x, "dim") for x in wrap(s.intro, width)]
    return out


def full(rep: AuditReport, width: int) -> list[Line]:
    secs, variants = sections(rep, legend=True)
    out = header(rep, width)
    for s in secs:
        if (not s.rows and s.key in SKIP_EMPTY) or s.key == "inputs":  # the inputs: in the header
            continue
        out += _section(s, width)
    legend = variants.legend()
    if legend:
        out += [Line("")] + [Line(x, "title") for x in wrap(
            "Variants: label, measure, the axes that differ from the chosen profile's variant; then the full variant "
            "string", width, indent=2)]
        full_of = {lab: v for v, lab in variants.labels.items()}
        for lab, measure, axes in legend:
            out += [Line(x) for x in wrap(axes, width, indent=4, first=f"{lab}  {measure}  ")]
            out += [Line(x, "dim") for x in wrap_variant(full_of[lab], width, indent=2)]  # broken after '|' only
        out.append(Line(f"engine of every native value: {rep.native_engine}", "dim"))
    return out


def render(rep: AuditReport, width: int = 100, color: bool = False, view: str = "summary") -> str:
    if view not in VIEWS:
        raise ValueError(f"unknown view {view!r}; choose one of {', '.join(VIEWS)}")
    lines = summary(rep, width) if view == "summary" else full(rep, width)
    buf = io.StringIO()
    console = safe_console(file=buf, width=max(width, 400), force_terminal=color,
                      color_system="standard" if color else None, no_color=not color, highlight=False, emoji=False)
    for line in lines:
        console.print(Text(line.text, style=STYLE.get(line.status, "")), soft_wrap=True)
    return "\n".join(x.rstrip() for x in buf.getvalue().split("\n"))
