"""Text (plain lines within the terminal's width) and Markdown renderings of :func:`auditeval.stats.run_comparison.analyze`.

Both are built from the same sections (a title, lines of settings, tables), so the two
formats always say the same things. Ids are escaped per format: the text is plain (no
markup is interpreted), Markdown escapes its punctuation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TextIO

from auditeval.render.textgrid import grid, wrap, wrap_variant

WIDTH = 100  # when the caller gives no width
TEST_SHORT = {"randomization": "rand", "t": "t", "wilcoxon": "wilc", "sign": "sign"}


@dataclass
class Section:
    title: str
    lines: list[str] = field(default_factory=list)
    header: list[str] = field(default_factory=list)
    rows: list[list[str]] = field(default_factory=list)
    right: set[int] = field(default_factory=set)
    text_skip: set[int] = field(default_factory=set)  # columns left out of the text view
    keys: int = 1  # leading columns that stay in the text table when others move under their rows


def num(x: float | None, digits: int = 4) -> str:
    return "-" if x is None else f"{x:.{digits}f}"


def pval(x: float | None) -> str:
    if x is None:
        return "-"
    return f"{x:.4f}" if x >= 1e-4 else f"{x:.0e}"


def pct(x: float | None) -> str:
    return "-" if x is None else f"{100 * x:.1f}%"


def interval(v: list[float | None], digits: int = 3) -> str:
    return f"[{num(v[0], digits)}, {num(v[1], digits)}]"


def sections(m: dict) -> list[Section]:
    """The sections of one measure's analysis."""
    b = m["bootstrap"]
    lvl = f"{100 * b['level']:g}%"
    sub = m.get("subset") or {}
    head = Section(f"== {m['measure']}: {m['topics']} topics, {len(m['runs'])} runs", [
        f"variant: {m['variant']}", f"engine: {m['engine']}",
        f"{b['method']}: {b['trials']} trials, seed {b['seed']}, level {b['level']}, numpy {b['numpy']}"])
    if sub.get("dropped"):
        head.lines.insert(1, f"topic subset: every number here is over the {sub['topics']} paired topics of the "
                             f"{sub['of']} evaluated (left out: {_listing(sub['dropped'])}), not eval's "
                             "full-set numbers (those: column 'eval (topics)')")
    d = m["diagnostics"]
    left_out = len(d["near_zero"]) + len(d["near_one"])
    cut = any(sy.get("dropped") for sy in m["systems"])
    runs = Section(f"runs: mean with {lvl} percentile interval; rank with {lvl} bootstrap rank interval",
                   header=["rank", "interval", "run", f"mean, {m['topics']} topics" if cut else "mean",
                           f"{lvl} interval"], right={0, 1, 3})
    if cut:
        runs.header.append("eval (topics)")
        runs.right.add(len(runs.header) - 1)
        runs.lines.append("eval (topics): the mean eval prints for the run, over its own topics; runs with more "
                          "than the paired topics: " + "; ".join(
                              f"{sy['run']} ({sy['variant'].rsplit('|', 1)[1]})" for sy in m["systems"] if sy.get("dropped")))
    if left_out:
        runs.header.append(f"mean, {d['kept']} topics")
        runs.right.add(len(runs.header) - 1)
        runs.lines.append(f"last column: mean without the {left_out} topics on which every run is within "
                          f"{d['near']} of 0 or 1 (no discriminating power); tau to the full ranking "
                          f"{num(d['tau_filtered'], 3)}")
    for sy in sorted(m["systems"], key=lambda r: (r["rank"], r["run"])):
        lo, hi = sy["rank_interval"]
        row = [str(sy["rank"]), f"{lo}-{hi}", sy["run"], num(sy["mean"]), interval(sy["ci"], 4)]
        if cut:
            row.append(f"{num(sy.get('mean_full'))} ({sy['topics_full']})")
        if left_out:
            row.append(num(sy["mean_discriminating"]))
        runs.rows.append(row)
    out = [head, runs]
    pr = m["pairs"]
    if pr["rows"]:
        p = Section(f"pairs ({pr['family']}): difference a - b, {lvl} BCa interval, reversal rate, "
                    f"p-values adjusted by {pr['correction']} within each test", right={2, 3, 4, 5, 6, 7, 8, 9, 10},
                    text_skip={10}, keys=2)
        p.lines = [f"{TEST_SHORT[k]}: {v}" for k, v in pr["methods"].items()]
        p.header = ["a", "b", "diff", "BCa interval", "rev", "rand", "t", "wilc", "sign", "W/T/L", "d_z"]
        for r in pr["rows"]:
            q = r["p_adjusted"]
            p.rows.append([r["a"], r["b"], num(r["mean_diff"]), interval(r["bca"]), pct(r["reversal_rate"]),
                           pval(q["randomization"]), pval(q["t"]), pval(q["wilcoxon"]), pval(q["sign"]),
                           f"{r['wins']}/{r['ties']}/{r['losses']}", num(r["d_z"], 2)])
        out.append(p)
    sw = m["swap"]
    nd = Section(f"not distinguishable (swap probability > {pct(sw['threshold'])}): "
                 f"{len(sw['not_distinguishable'])} of {len(m['runs']) * (len(m['runs']) - 1) // 2} pairs")
    nd.lines = ["; ".join(f"{a} ~ {b} ({pct(v)})" for a, b, v in sw["not_distinguishable"])] \
        if sw["not_distinguishable"] else []
    out.append(nd)
    out.append(_topicset(m["topicset"]))
    out.append(_diagnostics(m, d))
    if "agreement" in m:
        out.append(_agreement(m["agreement"], m.get("variant_full", m["variant"])))
    if m["notes"]:
        out.append(Section("notes", [*m["notes"]]))
    return out


def _topicset(ts: dict) -> Section:
    s = Section(f"topic-set size ({ts['method']}), alpha {ts['alpha']:.3g}, power {ts['power']:g}")
    if "sigma2" in ts:
        a, b = ts["sigma2_pair"]
        s.lines.append(f"sigma^2 = {ts['sigma2']:.5f} ({ts['sigma2_rule']}: {a} - {b})")
        need = ts["t_test_topics"]
        s.lines.append(f"paired t-test design, min diff {ts['min_diff']:g}: "
                       + (f"{need} topics" if need else "more than 100000 topics"))
        need = ts["ci_width_topics"]
        s.lines.append(f"CI-width design, expected width <= {ts['ci_width']:g}: "
                       + (f"{need} topics" if need else "more than 100000 topics"))
        s.lines.append(f"detectable difference with the current {ts['topics']} topics: "
                       f"{num(ts['detectable_diff'])}")
    if "curve" in ts and ts["curve"]["pairs"]:
        c = ts["curve"]
        sizes = c["sizes"]
        pick = sorted({sizes[0], *[k for k in sizes if k % 10 == 0], sizes[-1]})
        at = dict(zip(sizes, c["agreement"], strict=True))
        s.lines.append(f"pairs ordered as on all topics, random subsets ({c['trials']} trials, seed {c['seed']}): "
                       + ", ".join(f"{k}: {pct(at[k])}" for k in pick))
    return s


def _listing(ids: list[str], limit: int = 12) -> str:
    return ", ".join(ids[:limit]) + (f", ... ({len(ids)} in all)" if len(ids) > limit else "")


def _diagnostics(m: dict, d: dict) -> Section:
    s = Section("topic diagnostics (over runs, per topic)")
    s.lines.append(f"median spread (max - min over runs): {num(d['median_spread'])}")
    s.lines.append(f"{len(d['below_floor'])} topics with median {m['measure']} < {d['floor']:g}"
                   + (f": {_listing(d['below_floor'])}" if d["below_floor"] else ""))
    s.lines.append(f"{len(d['near_zero'])} topics with every run <= {d['near']:g}"
                   + (f": {_listing(d['near_zero'])}" if d["near_zero"] else ""))
    if d["bounded"]:
        s.lines.append(f"{len(d['near_one'])} topics with every run >= {1 - d['near']:g}"
                       + (f": {_listing(d['near_one'])}" if d["near_one"] else ""))
    else:
        s.lines.append("values above 1: no 'near 1' check for this measure")
    return s


def _agreement(ag: dict, variant_a: str) -> Section:
    s = Section(f"agreement with qrels B ({ag['qrels_b']}), {ag['topics']} topics")
    noise = sum(1 for g in ag["disagreements"] if g["within_noise"])
    s.lines.append(f"Kendall tau {num(ag['tau'], 3)}, Spearman rho {num(ag['rho'], 3)}, "
                   f"same order {pct(ag['same_order'])} of {ag['pairs']} pairs; {len(ag['disagreements'])} "
                   f"disagreements, {noise} within noise (A's swap probability > {pct(ag['threshold'])})")
    if ag["variant_b"] != variant_a:
        s.lines.append(f"variant B: {ag['variant_b']}")
    s.lines.extend(f"{g['a']} vs {g['b']}: swap {pct(g['swap'])}, "
                   + ("within noise" if g["within_noise"] else "beyond noise") for g in ag["disagreements"])
    s.lines.extend(ag["notes"])
    return s


_VARIANT_LINE = re.compile(r"(variant(?: B)?: )(\S+)")


def render_text(measures: list[dict], notes: list[str], out: TextIO, width: int = WIDTH) -> None:
    """Every section as plain lines within ``width``: titles and settings broken at spaces, a
    variant string after ``|`` only, tables laid out by :func:`~auditeval.render.textgrid.grid`
    (no run label or number is ever split; columns that do not fit go under their row)."""
    lines: list[str] = []
    for m in measures:
        for sec in sections(m):
            lines += wrap(sec.title, width, indent=2)
            for line in sec.lines:
                v = _VARIANT_LINE.fullmatch(line)
                lines += (wrap_variant(v.group(2), width, indent=4, first="  " + v.group(1)) if v
                          else wrap(line, width, indent=4, first="  "))
            if sec.header:
                cols = [c for c in range(len(sec.header)) if c not in sec.text_skip]
                lines += [x for x, _ in grid([sec.header[c] for c in cols], [[r[c] for c in cols] for r in sec.rows],
                                             width, right=[i for i, c in enumerate(cols) if c in sec.right],
                                             keys=sec.keys)]
        lines.append("")
    for n in notes:
        lines += wrap(f"note: {n}", width, indent=2)
    out.write("".join(x + "\n" for x in lines))


def md_escape(s: str) -> str:
    """Every character Markdown gives meaning to, escaped (:func:`auditeval.render.tex.md_escape`)."""
    from auditeval.render.tex import md_escape as escape

    return escape(s)


def render_markdown(measures: list[dict], notes: list[str], out: TextIO) -> None:
    for m in measures:
        for k, sec in enumerate(sections(m)):
            title = sec.title.removeprefix("== ")
            out.write(("## " if k == 0 else "### ") + md_escape(title) + "\n\n")
            for line in sec.lines:
                out.write(f"- {md_escape(line)}\n")
            if sec.lines:
                out.write("\n")
            if sec.header:
                out.write("| " + " | ".join(md_escape(h) for h in sec.header) + " |\n")
                out.write("|" + "|".join("---:" if c in sec.right else "---" for c in range(len(sec.header))) + "|\n")
                for row in sec.rows:
                    out.write("| " + " | ".join(md_escape(c) for c in row) + " |\n")
                out.write("\n")
    if notes:
        out.write("## notes\n\n" + "".join(f"- {md_escape(n)}\n" for n in notes))
