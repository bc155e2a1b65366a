"""Markdown rendering of the audit: one pipe table per section, full variant strings.

Cells are escaped: every character Markdown gives meaning to (``\\ ` * _ { } [ ] ( ) # + - . !
| $ ~``) gets a backslash, ``< > &`` become entities, newlines spaces, so an id cannot break a
table or inject markup (:func:`auditeval.render.tex.md_escape`). The first line is the verdict.
"""

from __future__ import annotations

from auditeval.render.audit.tables import sections, verdict
from auditeval.render.tex import md_escape
from auditeval.results.audit import AuditReport


def escape(text: str) -> str:
    return md_escape(text)


def render(rep: AuditReport) -> str:
    secs, _ = sections(rep, legend=False)
    lines = [f"**{escape(verdict(rep))}**", "", f"# auditeval audit: {escape(rep.profile)}", "",
             f"qrels `{escape(rep.qrels)}`; runs: {', '.join(escape(r) for r in rep.runs)}; "
             f"native engine: {escape(rep.native_engine)}", ""]
    for s in secs:
        lines += [f"## {escape(s.title)}", ""]
        if s.intro:
            lines += [escape(s.intro), ""]
        if not s.rows:
            lines += ["(none)", ""]
            continue
        lines.append("| " + " | ".join(escape(h) for h in s.headers) + " |")
        lines.append("|" + "---|" * len(s.headers))
        for row, st in zip(s.rows, s.status, strict=True):
            cells = [escape(c) for c in row]
            if st in ("MISMATCH", "unexplained", "failed", "timeout"):
                cells = [f"**{c}**" if c else c for c in cells]
            lines.append("| " + " | ".join(cells) + " |")
        lines.append("")
    return "\n".join(lines)
