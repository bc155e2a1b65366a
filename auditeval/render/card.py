"""Renderers of a :class:`~auditeval.verify.card.Card`: Markdown, LaTeX, HTML, JSON.

Every id (run names, topic ids, paths) and every variant string is escaped for its format:

* Markdown (GitHub tables): ids with a backslash before every character Markdown gives
  meaning to (``\\ ` * _ { } [ ] ( ) # + - . ! | $ ~``), ``<``/``>``/``&`` as entities (so
  ``<script>`` stays text; :func:`auditeval.render.tex.md_escape`);
  variant strings in code spans with ``|`` written ``\\|`` (GFM table rule) and backticks
  doubled around a code span that holds one.
* LaTeX: ``\\ { } $ & # ^ _ % ~`` replaced by their text commands; variant strings in
  ``\\texttt`` with a break point after every ``|``. The document compiles with pdflatex
  from texlive-latex-base alone (article, fontenc T1, array, longtable: tables break
  across pages).
* HTML: :func:`html.escape` on everything, variant strings in ``<code>``.
* JSON: the ir_metadata evaluation section (:func:`auditeval.results.ir_metadata.evaluation_section`:
  ``research goal`` -> ``evaluation`` -> reported measures, evaluator with every profile axis
  and variant string, qrels hash) with the card added under ``card``.
"""

from __future__ import annotations

import html
from typing import TextIO

from auditeval.render.json_out import write_json
from auditeval.render.tex import md_escape, tex_breakable
from auditeval.verify.card import Card


# ------------------------------------------------------------------------------ escaping
def md(text: str) -> str:
    """Escape an id for Markdown (inline text, table cells included): every character Markdown
    gives meaning to (:func:`auditeval.render.tex.md_escape`)."""
    return md_escape(text)


def md_code(text: str) -> str:
    s = str(text).replace("|", "\\|").replace("\n", " ")
    fence = "``" if "`" in s else "`"
    return f"{fence} {s} {fence}" if fence == "``" else f"`{s}`"


_TEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
        "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "<": r"\textless{}",
        ">": r"\textgreater{}", "|": r"\textbar{}\allowbreak{}", "\n": " "}


def tex(text: str) -> str:
    """An id for LaTeX: escaped, breakable after every ``|`` and separator and every 8
    characters of a run without one (:func:`auditeval.render.tex.tex_breakable`), so it wraps
    inside a ``p{}`` column (no overfull box)."""
    return tex_breakable(text, 8)


def tex_variant(text: str) -> str:
    return r"\texttt{" + tex(text) + "}"  # a break point after every |


def _tex_sha(sha: str) -> str:
    return r"\texttt{" + sha[:32] + r"\allowbreak{}" + sha[32:] + "}"


def h(text: str) -> str:
    return html.escape(str(text), quote=True)


def _num(x: float) -> str:
    return "nan" if x != x else f"{x:.4f}"


def _topics_line(ids: list[str], limit: int = 20) -> list[str]:
    return ids[:limit] + ([f"... ({len(ids) - limit} more)"] if len(ids) > limit else [])


# ------------------------------------------------------------------------------ markdown
def render_markdown(card: Card, out: TextIO) -> None:
    w = out.write
    w("# Provenance card\n\n")
    w(f"- qrels: {md(card.qrels_path)}, {card.judgments} judgments, {card.qrels_topics} topics, "
      f"SHA-256 `{card.qrels_sha256}`\n")
    w(f"- profile: {md(card.profile)} (" + ", ".join(f"{md(k)}={md(v)}" for k, v in card.axes.items()) + ")\n")
    w(f"- engine: {md(card.auditeval)}; references: " + "; ".join(f"{md(k)} {md(v)}" for k, v in card.references.items()) + "\n")
    w(f"- judgment pool: {md(card.pooled)}\n\n")
    w("## Runs\n\n| run | file SHA-256 | documents | topics evaluated | missing | without judgments | empty (R=0) "
      "| tied docs | float32 collapses |\n|---|---|---:|---:|---|---|---|---:|---:|\n")
    for r in card.runs:
        w(f"| {md(r.name)} | `{r.sha256}` | {r.docs} | {r.topics_evaluated} | {md(', '.join(_topics_line(r.missing))) or '-'} "
          f"| {md(', '.join(_topics_line(r.unjudged_topics))) or '-'} | {md(', '.join(_topics_line(r.empty))) or '-'} "
          f"| {r.tied_docs} | {r.float32_collapsed} |\n")
    ties = [(r.name, m, n, of) for r in card.runs for m, (n, of) in r.tie_topics.items()]
    if ties:
        w("\nTopics where tied scores can change the value (the tie rule decides): "
          + "; ".join(f"{md(name)} {md(m)} {n} of {of}" for name, m, n, of in ties) + ".\n")
    w("\n## Results\n\n| run | measure | value | topics | variant | engine |\n|---|---|---:|---:|---|---|\n")
    for n in card.numbers:
        w(f"| {md(n.run)} | {md(n.measure)} | {_num(n.value)} | {n.topics} | {md_code(n.variant)} | {md(n.engine)} |\n")
    if card.comparisons:
        w(f"\n## Against the baseline {md(card.baseline)}\n\nPaired bootstrap over topics (10,000 resamples, "
          "seed 0), 95% percentile interval; reversal rate: share of resamples in which the sign flips.\n\n"
          "| run | measure | difference | 95% interval | reversal rate | topics | variant | engine |\n"
          "|---|---|---:|---|---:|---:|---|---|\n")
        for c in card.comparisons:
            w(f"| {md(c.run)} | {md(c.measure)} | {c.difference:+.4f} | [{_num(c.low)}, {_num(c.high)}] "
              f"| {c.reversal_rate:.4f} | {c.topics} | {md_code(c.variant)} | {md(c.engine)} |\n")
    w("\n## Methods\n\n" + md(card.methods) + "\n")
    if card.notes:
        w("\n## Notes\n\n" + "".join(f"- {md(n)}\n" for n in card.notes))


# ------------------------------------------------------------------------------ latex
def render_latex(card: Card, out: TextIO) -> None:
    w = out.write
    w("\\documentclass{article}\n\\usepackage[T1]{fontenc}\n\\usepackage{array}\n\\usepackage{longtable}\n"
      "\\setlength{\\textwidth}{16cm}\\setlength{\\oddsidemargin}{0cm}\n\\begin{document}\n\\sloppy\n")
    w("\\section*{Provenance card}\n\\begin{itemize}\n")
    w(f"\\item qrels: {tex(card.qrels_path)}, {card.judgments} judgments, {card.qrels_topics} topics, "
      f"SHA-256 {_tex_sha(card.qrels_sha256)}\n")
    w(f"\\item profile: {tex(card.profile)} (" + ", ".join(f"{tex(k)}={tex(v)}" for k, v in card.axes.items()) + ")\n")
    w(f"\\item engine: {tex(card.auditeval)}; references: "
      + "; ".join(f"{tex(k)} {tex(v)}" for k, v in card.references.items()) + "\n")
    w(f"\\item judgment pool: {tex(card.pooled)}\n\\end{{itemize}}\n")
    w("\\subsection*{Runs}\n{\\small\\begin{longtable}{>{\\raggedright}p{2.6cm}>{\\raggedright}p{5.6cm}rrrr}\n"
      "run & file SHA-256 & docs & topics & tied & float32 \\tabularnewline\\hline\\endhead\n")
    for r in card.runs:
        w(f"{tex(r.name)} & {_tex_sha(r.sha256)} & {r.docs} & {r.topics_evaluated} & {r.tied_docs} & "
          f"{r.float32_collapsed} \\tabularnewline\n")
    w("\\end{longtable}}\n\n")
    for r in card.runs:
        for what, ids in (("missing", r.missing), ("without judgments", r.unjudged_topics), ("empty (R=0)", r.empty)):
            if ids:
                w(f"\\noindent {tex(r.name)}, topics {what}: {tex(', '.join(_topics_line(ids)))}\\par\n")
    w("\\subsection*{Results}\n{\\small\\begin{longtable}{>{\\raggedright}p{2.2cm}>{\\raggedright}p{1.8cm}rr"
      ">{\\raggedright}p{7.6cm}}\nrun & measure & value & topics & variant \\tabularnewline\\hline\\endhead\n")
    for n in card.numbers:
        w(f"{tex(n.run)} & {tex(n.measure)} & {_num(n.value)} & {n.topics} & {tex_variant(n.variant)} \\tabularnewline\n")
    w("\\end{longtable}}\n\n\\noindent Engine: " + tex(", ".join(sorted({n.engine for n in card.numbers}))) + ".\n")
    if card.comparisons:
        w(f"\\subsection*{{Against the baseline {tex(card.baseline)}}}\n{{\\small\\begin{{longtable}}"
          "{>{\\raggedright}p{2cm}>{\\raggedright}p{1.6cm}rlr>{\\raggedright}p{5.1cm}}\n"
          "run & measure & diff. & 95\\% interval & reversal & variant \\tabularnewline\\hline\\endhead\n")
        for c in card.comparisons:
            w(f"{tex(c.run)} & {tex(c.measure)} & {c.difference:+.4f} & [{_num(c.low)}, {_num(c.high)}] & "
              f"{c.reversal_rate:.4f} & {tex_variant(c.variant)} \\tabularnewline\n")
        w("\\end{longtable}}\n\n")
    w("\\subsection*{Methods}\n" + tex(card.methods) + "\n")
    if card.notes:
        w("\\subsection*{Notes}\n\\begin{itemize}\n" + "".join(f"\\item {tex(n)}\n" for n in card.notes) + "\\end{itemize}\n")
    w("\\end{document}\n")


# ------------------------------------------------------------------------------ html
def render_html(card: Card, out: TextIO) -> None:
    w = out.write
    w("<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>Provenance card</title>\n"
      "<style>table{border-collapse:collapse}td,th{border:1px solid #ccc;padding:2px 6px;vertical-align:top}"
      "code{word-break:break-all}</style></head><body>\n<h1>Provenance card</h1>\n<ul>\n")
    w(f"<li>qrels: {h(card.qrels_path)}, {card.judgments} judgments, {card.qrels_topics} topics, "
      f"SHA-256 <code>{card.qrels_sha256}</code></li>\n")
    w(f"<li>profile: {h(card.profile)} (" + ", ".join(f"{h(k)}={h(v)}" for k, v in card.axes.items()) + ")</li>\n")
    w(f"<li>engine: {h(card.auditeval)}; references: " + "; ".join(f"{h(k)} {h(v)}" for k, v in card.references.items()) + "</li>\n")
    w(f"<li>judgment pool: {h(card.pooled)}</li>\n</ul>\n<h2>Runs</h2>\n<table><tr><th>run</th><th>file SHA-256</th>"
      "<th>documents</th><th>topics evaluated</th><th>missing</th><th>without judgments</th><th>empty (R=0)</th>"
      "<th>tied docs</th><th>float32 collapses</th></tr>\n")
    for r in card.runs:
        w(f"<tr><td>{h(r.name)}</td><td><code>{r.sha256}</code></td><td>{r.docs}</td><td>{r.topics_evaluated}</td>"
          f"<td>{h(', '.join(_topics_line(r.missing)))}</td><td>{h(', '.join(_topics_line(r.unjudged_topics)))}</td>"
          f"<td>{h(', '.join(_topics_line(r.empty)))}</td><td>{r.tied_docs}</td><td>{r.float32_collapsed}</td></tr>\n")
    w("</table>\n<h2>Results</h2>\n<table><tr><th>run</th><th>measure</th><th>value</th><th>topics</th>"
      "<th>variant</th><th>engine</th></tr>\n")
    for n in card.numbers:
        w(f"<tr><td>{h(n.run)}</td><td>{h(n.measure)}</td><td>{_num(n.value)}</td><td>{n.topics}</td>"
          f"<td><code>{h(n.variant)}</code></td><td>{h(n.engine)}</td></tr>\n")
    w("</table>\n")
    if card.comparisons:
        w(f"<h2>Against the baseline {h(card.baseline)}</h2>\n<table><tr><th>run</th><th>measure</th><th>difference</th>"
          "<th>95% interval</th><th>reversal rate</th><th>topics</th><th>variant</th></tr>\n")
        for c in card.comparisons:
            w(f"<tr><td>{h(c.run)}</td><td>{h(c.measure)}</td><td>{c.difference:+.4f}</td><td>[{_num(c.low)}, "
              f"{_num(c.high)}]</td><td>{c.reversal_rate:.4f}</td><td>{c.topics}</td><td><code>{h(c.variant)}</code></td></tr>\n")
        w("</table>\n")
    w(f"<h2>Methods</h2>\n<p>{h(card.methods)}</p>\n")
    if card.notes:
        w("<h2>Notes</h2>\n<ul>\n" + "".join(f"<li>{h(n)}</li>\n" for n in card.notes) + "</ul>\n")
    w("</body></html>\n")


# ------------------------------------------------------------------------------ json
def render_json(card: Card, out: TextIO) -> None:
    block = {"research goal": {"evaluation": {**card.ir_metadata, "card": card.as_dict()}}}
    write_json(out, block, indent=1, ensure_ascii=False)


RENDERERS = {"markdown": render_markdown, "latex": render_latex, "html": render_html, "json": render_json}


def render_cards(cards: list[Card], fmt: str, out: TextIO) -> None:
    """Several cards (a claims file under several conventions): Markdown one after another
    under a rule, JSON a list of the one-card documents; LaTeX and HTML render one document
    per card, so several are refused (an :class:`~auditeval.vocab.errors.AuditEvalError`)."""
    if len(cards) == 1:
        RENDERERS[fmt](cards[0], out)
        return
    if fmt == "markdown":
        for i, card in enumerate(cards):
            out.write("\n---\n\n" if i else "")
            render_markdown(card, out)
        return
    if fmt == "json":
        write_json(out, [{"research goal": {"evaluation": {**c.ir_metadata, "card": c.as_dict()}}} for c in cards],
                   indent=1, ensure_ascii=False)
        return
    from auditeval.vocab.errors import AuditEvalError

    raise AuditEvalError(f"the claims make {len(cards)} cards (several qrels or conventions); --format {fmt} "
                         "writes one document: use markdown or json")
