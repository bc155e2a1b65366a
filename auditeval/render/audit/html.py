"""One self-contained HTML file: the audit's tables and a per-topic delta plot.

No network access is needed to view it: the style sheet is inline and the plots are inline
SVG drawn by matplotlib (text drawn as paths, so no id reaches the page as markup). Every
table cell and title goes through :func:`html.escape` (``quote=True``), so no markup or
script from an id reaches the page. Rows that disagree are coloured (red: unexplained,
amber: explained or unavailable).
"""

from __future__ import annotations

import html
import io
import re

from auditeval.render.audit.tables import BAD, WARN, sections, verdict
from auditeval.results.audit import AuditReport

CSS = """
body{font-family:system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:1.5em;color:#222;max-width:1400px}
h1{font-size:1.4em}h2{font-size:1.1em;margin-top:1.6em;border-bottom:1px solid #ccc}
table{border-collapse:collapse;font-size:12px;margin:.4em 0}
th,td{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{background:#f3f3f3}td.v{font-family:ui-monospace,Menlo,monospace;font-size:11px;color:#555;overflow-wrap:anywhere;min-width:18em}
tr.bad td{background:#fdd;font-weight:bold}tr.warn td{background:#fff4d6}
.verdict{font-weight:bold;padding:.4em .6em;display:inline-block;border-radius:4px}
.ok{background:#dfd}.no{background:#fdd}.plot svg{max-width:100%;height:auto}
"""


def esc(x: object) -> str:
    return html.escape(str(x), quote=True)


def _breakable(escaped: str) -> str:
    """A variant string (already escaped) that wraps only after its ``|`` separators."""
    return escaped.replace("|", "|<wbr>")


def delta_plot(rep: AuditReport) -> str:
    """Inline SVG: per measure, each engine's per-topic value minus the chosen profile's."""
    if not rep.topic_deltas:
        return ""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    run = next(iter(rep.topic_deltas))
    per_measure = rep.topic_deltas[run]
    measures = [m for m in rep.measures if m in per_measure]
    fig, axes = plt.subplots(len(measures), 1, figsize=(9, 1.9 * len(measures) + 0.6), squeeze=False)
    for ax, m in zip(axes[:, 0], measures, strict=True):
        for k, (eng, d) in enumerate(sorted(per_measure[m].items())):
            topics = sorted(d)
            ax.plot(range(len(topics)), [d[t] for t in topics], "o", ms=3, label=f"{eng} ({len(d)} topics)",
                    color=f"C{k % 10}")
        ax.axhline(0, color="#888", lw=0.6)
        ax.set_ylabel(f"{m}\ndelta", fontsize=8)
        ax.tick_params(labelsize=7)
        ax.legend(fontsize=7, loc="best")
    axes[-1, 0].set_xlabel("topics that move (sorted by id)", fontsize=8)
    fig.suptitle(f"per-topic delta from the chosen profile ({rep.profile}), run {run}", fontsize=9)
    fig.tight_layout()
    buf = io.StringIO()
    with matplotlib.rc_context({"svg.fonttype": "path"}):
        fig.savefig(buf, format="svg", metadata={"Date": None})
    plt.close(fig)
    svg = buf.getvalue()
    svg = re.sub(r"<metadata>.*?</metadata>", "", svg[svg.index("<svg"):], flags=re.S)  # RDF block: not needed
    return svg


def render(rep: AuditReport) -> str:
    secs, _ = sections(rep, legend=False)
    ok = rep.exit_status == 0
    parts = ["<!DOCTYPE html>", '<html lang="en"><head><meta charset="utf-8">',
             f"<title>{esc(verdict(rep))} · auditeval audit: {esc(rep.profile)}</title><style>{CSS}</style></head>"
             "<body>",
             f'<p class="verdict {"ok" if ok else "no"}" id="verdict">{esc(verdict(rep))}</p>',
             f"<h1>auditeval audit · profile {esc(rep.profile)}</h1>",
             f"<p>qrels <code>{esc(rep.qrels)}</code>; runs: {esc(', '.join(rep.runs))}; native engine: "
             f"{esc(rep.native_engine)}; {rep.seconds:.1f} s</p>"]
    plot = delta_plot(rep)
    for s in secs:
        parts.append(f'<h2 id="{esc(s.key)}">{esc(s.title)}</h2>')
        if s.intro:
            parts.append(f"<p>{esc(s.intro)}</p>")
        if s.key == "attribution" and plot:
            parts.append(f'<div class="plot" id="delta-plot">{plot}</div>')
        if not s.rows:
            parts.append("<p>(none)</p>")
            continue
        parts.append("<table><thead><tr>" + "".join(f"<th>{esc(h)}</th>" for h in s.headers) + "</tr></thead><tbody>")
        for row, st in zip(s.rows, s.status, strict=True):
            cls = ' class="bad"' if st in BAD else (' class="warn"' if st in WARN else "")
            cells = "".join(f'<td{" class=v" if h == "variant" else ""}>{_breakable(esc(c)) if h == "variant" else esc(c)}</td>'
                            for h, c in zip(s.headers, row, strict=True))
            parts.append(f"<tr{cls}>{cells}</tr>")
        parts.append("</tbody></table>")
    parts.append("</body></html>")
    return "\n".join(parts) + "\n"
