"""LaTeX table of a comparison, in the manner of ranx's ``Report.to_latex`` plus intervals.

One row per run (lettered a, b, ...), one column per measure: the mean, in boldface where it
is the best of its column, a superscript listing the letters of the runs it is significantly
better than (adjusted randomization-test p-value below ``1 - level``; with a baseline only
pairs with the baseline are tested), and the percentile bootstrap interval in small type.
The caption names the test, the correction, trials, seed and level; the variant string and
engine of every measure follow the table, each variant string breakable after every ``|``.
The table needs no package beyond the LaTeX kernel and ``array`` (texlive-latex-base):
rules are ``\\hline``, not booktabs; the run column is a ragged ``p{}`` column in which a long
id breaks (:func:`auditeval.render.tex.tex_breakable`). Every id is escaped for LaTeX. A mean over fewer
topics than the run's own (the paired topics, :mod:`auditeval.results.subset`) has a dagger, and
a line after the table gives its subset variant and the full-set mean ``eval`` prints.
"""

from __future__ import annotations

import string
from typing import TextIO

_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
          "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}", "|": r"\textbar{}",
          "<": r"\textless{}", ">": r"\textgreater{}"}


def tex_escape(s: str) -> str:
    return "".join(_LATEX.get(ch, ch) for ch in s)


def _tt(s: str) -> str:
    """A variant string or path in typewriter type, breakable after every ``|``."""
    return r"\texttt{" + tex_escape(s).replace(r"\textbar{}", r"\textbar{}\allowbreak{}") + "}"


def _letters(n: int) -> list[str]:
    letters = string.ascii_lowercase
    return [letters[k] if k < 26 else letters[k // 26 - 1] + letters[k % 26] for k in range(n)]


def better_than(m: dict, alpha: float) -> dict[str, set[str]]:
    """Run -> runs it is significantly better than (adjusted randomization p < alpha)."""
    out: dict[str, set[str]] = {r: set() for r in m["runs"]}
    for r in m["pairs"]["rows"]:
        p = r["p_adjusted"]["randomization"]
        if p is not None and p < alpha and r["mean_diff"]:
            win, lose = (r["a"], r["b"]) if r["mean_diff"] > 0 else (r["b"], r["a"])
            out[win].add(lose)
    return out


def render_latex(measures: list[dict], notes: list[str], out: TextIO) -> None:
    from auditeval.render.tex import tex_breakable

    runs = measures[0]["runs"]
    letter = dict(zip(runs, _letters(len(runs)), strict=True))
    b = measures[0]["bootstrap"]
    pr = measures[0]["pairs"]
    alpha = 1 - b["level"]
    cols = []
    for m in measures:
        means = {s["run"]: s for s in m["systems"]}
        best = max(s["mean"] for s in m["systems"])
        sig = better_than(m, alpha)
        cells = {}
        for r in runs:
            s = means[r]
            v = f"{s['mean']:.4f}"
            v = rf"\mathbf{{{v}}}" if s["mean"] == best else v
            sup = "".join(sorted((letter[x] for x in sig[r]), key=lambda t: (len(t), t)))
            lo, hi = s["ci"]
            if s.get("dropped"):
                sup = r"\dagger" + sup
            mean = f"${v}^{{{sup}}}$" if sup else f"${v}$"
            cells[r] = mean + rf" {{\scriptsize [{lo:.3f}, {hi:.3f}]}}"
        cols.append(cells)
    test = pr.get("methods", {}).get("randomization", "two-sided paired randomization test")
    family = pr.get("family", "none")
    w = out.write
    w("\\begin{table}[t]\n\\centering\n")
    w(f"\\caption{{Mean over the {measures[0]['topics']} paired topics with the {100 * b['level']:g}\\% "
      f"{tex_escape(b['method'])} percentile interval ({b['trials']} trials, seed {b['seed']}). "
      f"The best value of each measure is in boldface. Superscripts name the runs a run is "
      f"significantly better than: {tex_escape(test)}, {family}, p-values adjusted by "
      f"{tex_escape(pr.get('correction', 'none'))}, $p < {alpha:.3g}$.}}\n")
    w("\\label{tab:auditeval-compare}\n")
    w("% needs \\usepackage{array} (texlive-latex-base); no booktabs\n")
    w("\\begin{tabular}{c>{\\raggedright\\arraybackslash}p{3cm}" + "c" * len(measures) + "}\n\\hline\n")
    w("\\# & \\textbf{Run} & " + " & ".join(f"\\textbf{{{tex_escape(m['measure'])}}}" for m in measures)
      + " \\\\\n\\hline\n")
    for r in runs:
        w(f"{letter[r]} & {tex_breakable(r, 14)} & " + " & ".join(c[r] for c in cols) + " \\\\\n")
    w("\\hline\n\\end{tabular}\n\\par\\smallskip\\footnotesize\n")
    for m in measures:
        w(f"{tex_escape(m['measure'])}: {_tt(m['variant'])} "
          f"({tex_escape(m['engine'])})\\par\n")
        for s in m["systems"]:
            if s.get("dropped"):
                full = "-" if s.get("mean_full") is None else f"{s['mean_full']:.4f}"
                w(f"$^\\dagger$ {tex_escape(s['run'])} {tex_escape(m['measure'])}: mean over {s['topics']} of its "
                  f"{s['topics_full']} topics (left out: {tex_escape(', '.join(s['dropped']))}), "
                  f"{_tt(s['variant'])}; over all {s['topics_full']}: {full}\\par\n")
    w("\\end{table}\n")
    for n in notes + [n for m in measures for n in m["notes"]]:
        w(f"% note: {n}\n".replace("\n", " ").rstrip() + "\n")
