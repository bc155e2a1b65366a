"""Markdown rendering of the audit: one pipe table per section, full variant strings.

Cells are escaped: ``|`` and the characters Markdown gives meaning to (``\\ ` * _ [ ] < >
#``) get a backslash or an entity, newlines become spaces, so an id cannot break a table
or inject markup.
"""

from __future__ import annotations

import re

from auditeval.render.audit.tables import sections, verdict
from auditeval.results.audit import AuditReport

_SPECIAL = re.compile(r"([\\`*_\[\]#|~])")


def escape(text: str) -> str:
    text = str(text).replace("\r", " ").replace("\n", " ")
    text = _SPECIAL.sub(r"\\\1", text)
    return text.replace("<", "&lt;").replace(">", "&gt;")


def render(rep: AuditReport) -> str:
    secs, _ = sections(rep, legend=False)
    lines = [f"# auditeval audit: {escape(rep.profile)}", "", f"**{escape(verdict(rep))}**", "",
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
