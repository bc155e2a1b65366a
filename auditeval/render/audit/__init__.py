"""Renderers of one audit report: ``text`` (rich), ``markdown``, ``json``, ``html``, ``latex``.

Each takes the :class:`~auditeval.results.audit.AuditReport` and returns the document as a
string; the tables come from :mod:`.tables`, and each renderer escapes every cell
for its format (ids come from files the user did not write).
"""

from __future__ import annotations

import json

from auditeval.render.audit import html as audit_html
from auditeval.render.audit import latex as audit_latex
from auditeval.render.audit import markdown as audit_markdown
from auditeval.render.audit import text as audit_text
from auditeval.results.audit import AuditReport

FORMATS = ("text", "markdown", "json", "html", "latex")


def render_json(rep: AuditReport) -> str:
    """Every section; every number with its variant string and its engine."""
    d = rep.to_dict()
    for key in ("sensitivity", "ties"):
        for row in d[key]:
            row["engine"] = rep.native_engine
    for row in d["conv_diff"]:
        for e in row["effects"]:
            e["engine"] = rep.native_engine
    return json.dumps(d, indent=1, default=str) + "\n"


def render(rep: AuditReport, fmt: str = "text", width: int = 100, color: bool = False, view: str = "summary") -> str:
    """The audit report as ``text``, ``markdown``, ``json``, ``html`` or ``latex`` (also
    ``auditeval.render_audit``). ``view`` (``summary`` or ``full``) and ``width`` shape the text format only; every other
    format holds every section in full."""
    if fmt == "text":
        return audit_text.render(rep, width=width, color=color, view=view)
    if fmt == "markdown":
        return audit_markdown.render(rep)
    if fmt == "json":
        return render_json(rep)
    if fmt == "html":
        return audit_html.render(rep)
    if fmt == "latex":
        return audit_latex.render(rep)
    raise ValueError(f"unknown format {fmt!r}; choose one of {', '.join(FORMATS)}")


render_audit = render  # the public name (auditeval.render_audit)
