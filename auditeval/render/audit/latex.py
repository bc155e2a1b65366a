"""LaTeX rendering of the audit: a ``longtable`` per section (package ``longtable``).

Every cell is escaped: ``\\ { } _ % & # $ ~ ^`` become their LaTeX forms, so ids compile
as text. Variant strings are folded into a legend as in the terminal output. Unexplained
mismatches are set in bold with ``\\textbf``.
"""

from __future__ import annotations

from auditeval.render.audit.tables import sections, verdict
from auditeval.results.audit import AuditReport

_MAP = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "_": r"\_", "%": r"\%", "&": r"\&", "#": r"\#",
        "$": r"\$", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "<": r"\textless{}", ">": r"\textgreater{}",
        "\n": " ", "\r": " "}


def escape(text: str) -> str:
    return "".join(_MAP.get(ch, ch) for ch in str(text))


def render(rep: AuditReport) -> str:
    secs, variants = sections(rep, legend=True)
    out = ["% auditeval audit report; needs \\usepackage{longtable}",
           f"\\section*{{auditeval audit: {escape(rep.profile)}}}",
           f"\\textbf{{{escape(verdict(rep))}}}\\\\",
           f"qrels \\texttt{{{escape(rep.qrels)}}}; native engine: {escape(rep.native_engine)}", ""]
    for s in secs:
        if not s.rows:
            continue
        out.append(f"\\subsection*{{{escape(s.title)}}}")
        out.append("{\\footnotesize\\begin{longtable}{" + "l" * len(s.headers) + "}")
        out.append(" & ".join(f"\\textbf{{{escape(h)}}}" for h in s.headers) + r" \\ \hline")
        for row, st in zip(s.rows, s.status, strict=True):
            cells = [escape(c) for c in row]
            if st in ("MISMATCH", "unexplained", "failed", "timeout"):
                cells = [f"\\textbf{{{c}}}" for c in cells]
            out.append(" & ".join(cells) + r" \\")
        out.append("\\end{longtable}}")
        out.append("")
    legend = variants.legend()
    if legend:
        out.append("\\subsection*{Variants}")
        out.append("{\\footnotesize\\begin{longtable}{lll}")
        out.append(r"\textbf{label} & \textbf{measure} & \textbf{axes that differ from the chosen profile} \\ \hline")
        for row in legend:
            out.append(" & ".join(escape(c) for c in row) + r" \\")
        out.append("\\end{longtable}}")
    return "\n".join(out) + "\n"
