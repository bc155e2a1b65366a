"""LaTeX rendering of the audit: a ``longtable`` per section (packages ``array`` and
``longtable``, both in texlive-latex-base; no booktabs: rules are ``\\hline``).

The first line is a comment holding the verdict (the exit status included), and the verdict
opens the document. Every cell is escaped (:func:`auditeval.render.tex.tex_breakable`):
``\\ { } _ % & # $ ~ ^ < > |`` become their text forms, so ids compile as text. Every column
is a ragged-right ``p{}`` column set in ``\\footnotesize\\ttfamily``, its width a share of
``\\linewidth`` proportional to its longest cell (capped); a break point follows every ``|`` of
a variant string and every ``chunk``-th character (:func:`~auditeval.render.tex.tex_breakable`) of a run without one, so no cell is wider
than its column and pdflatex reports no overfull ``\\hbox`` (tests/cli/test_exit_statuses.py compiles a
report on hostile ids). Variant strings are folded into a legend as in the terminal output.
Unexplained mismatches are marked with a leading ``!!``.
"""

from __future__ import annotations

from auditeval.render.audit.tables import sections, verdict
from auditeval.render.tex import tex_breakable, tex_escape
from auditeval.results.audit import AuditReport

PREAMBLE = ("% compile with: \\documentclass{article} \\usepackage{array} \\usepackage{longtable} "
            "(texlive-latex-base)")
CHAR_PT = 4.2  # width of one \footnotesize cmtt character (0.525 em of 8 pt)
LINE_PT = 345.0  # \linewidth of the article class at 10 pt (the narrowest page assumed)
SEP_PT = 2.0  # \tabcolsep inside these tables


def escape(text: str) -> str:
    return tex_escape(text)


def _comment(text: str) -> str:
    return " ".join(str(text).split())


def _widths(headers: list[str], rows: list[list[str]]) -> list[float]:
    """Each column's share of the line: proportional to its longest cell, capped at 40
    characters, at least 4."""
    need = [max(4, min(40, max(len(str(x)) for x in [h, *(r[i] for r in rows)]))) for i, h in enumerate(headers)]
    usable = 1.0 - 2 * SEP_PT * len(headers) / LINE_PT
    return [usable * n / sum(need) for n in need]


def _table(headers: list[str], rows: list[list[str]], status: list[str]) -> list[str]:
    widths = _widths(headers, rows)
    chunks = [max(1, int(0.8 * w * LINE_PT / CHAR_PT)) for w in widths]  # room for wider escapes
    spec = "".join(f">{{\\raggedright\\arraybackslash}}p{{{w:.4f}\\linewidth}}" for w in widths)
    out = ["{\\footnotesize\\ttfamily\\setlength{\\tabcolsep}{" + f"{SEP_PT:g}pt" + "}",
           "\\begin{longtable}{" + spec + "}", "\\hline"]
    out.append(" & ".join(tex_breakable(h, k) for h, k in zip(headers, chunks, strict=True)) + r" \\ \hline\endhead")
    for row, st in zip(rows, status, strict=True):
        bad = st in ("MISMATCH", "unexplained", "failed", "timeout")
        cells = [tex_breakable(("!!" if bad and i == 0 else "") + str(c), k)
                 for i, (c, k) in enumerate(zip(row, chunks, strict=True))]
        out.append(" & ".join(cells) + r" \\")
    out += ["\\hline", "\\end{longtable}}", ""]
    return out


def render(rep: AuditReport) -> str:
    secs, variants = sections(rep, legend=True)
    head = verdict(rep)
    out = [f"% {_comment(head)}", PREAMBLE,
           f"\\section*{{auditeval audit: {tex_breakable(rep.profile, 40)}}}",
           f"\\noindent\\textbf{{{tex_breakable(head, 40)}}}\\par",
           f"\\noindent qrels {{\\ttfamily {tex_breakable(rep.qrels, 40)}}}; native engine: "
           f"{tex_breakable(rep.native_engine, 40)}\\par", ""]
    for s in secs:
        if not s.rows:
            continue
        out.append(f"\\subsection*{{{tex_breakable(s.title, 40)}}}")
        out += _table(list(s.headers), [list(r) for r in s.rows], list(s.status))
    legend = variants.legend()
    if legend:
        out.append("\\subsection*{Variants}")
        out += _table(["label", "measure", "axes that differ from the chosen profile"], [list(r) for r in legend],
                      [""] * len(legend))
    return "\n".join(out) + "\n"
