"""The audit report as titled tables of plain strings: what every audit renderer shows.

:func:`sections` turns an :class:`~auditeval.results.audit.AuditReport` into
:class:`Section` objects (title, column headers, rows of raw text, a status per row). The
renderers only lay these out and escape every cell for their format, so all formats show
the same numbers. Cells hold raw, unescaped text (ids come from user files).

With ``legend=True`` (terminal and LaTeX) each variant string becomes a short label
(``V1``) and :func:`legend` lists, per label, the measure and only the axes on which that
variant differs from the chosen profile's variant of the same measure.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from auditeval.results.audit import AuditReport

BAD = {"MISMATCH", "failed", "timeout", "unexplained"}
WARN = {"explained", "not installed", "unsupported", "nothing to compute", "departs"}


@dataclass
class Section:
    key: str
    title: str
    headers: list[str]
    rows: list[list[str]] = field(default_factory=list)
    status: list[str] = field(default_factory=list)  # per row: "", or a status word (colour)
    intro: str = ""


def fmt(x: float | str | None, digits: int = 4) -> str:
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    return f"{x:.{digits}f}"


def fmt_delta(x: float | None) -> str:
    if x is None:
        return "-"
    if x == 0:
        return "0"
    return f"{x:+.4f}" if abs(x) >= 5e-5 else f"{x:+.1e}"


class Variants:
    """Short labels for variant strings (or the strings themselves)."""

    def __init__(self, rep: AuditReport, legend: bool):
        self.legend_on = legend
        self.labels: dict[str, str] = {}
        self.base: dict[str, str] = {}  # measure -> variant under the chosen profile
        for s in rep.sensitivity:
            if s.is_base:
                self.base.setdefault(s.measure.split("|")[0], s.variant)

    def __call__(self, v: str) -> str:
        if not self.legend_on or not v:
            return v
        if v not in self.labels:
            self.labels[v] = f"V{len(self.labels) + 1}"
        return self.labels[v]

    def legend(self) -> list[tuple[str, str, str]]:
        """(label, measure, axes that differ from the chosen profile's variant or 'as chosen')."""
        out = []
        for v, lab in self.labels.items():
            parts = v.split("|")
            measure = parts[0]
            base = self.base.get(measure, "")
            base_axes = dict(p.split("=", 1) for p in base.split("|")[1:]) if base else {}
            axes = dict(p.split("=", 1) for p in parts[1:])
            diff = [f"{k}={val}" for k, val in axes.items() if base_axes.get(k) != val]
            out.append((lab, measure, " ".join(diff) if diff else "as chosen profile"))
        return out


def sections(rep: AuditReport, legend: bool = False) -> tuple[list[Section], Variants]:
    """The report's sections in the order every renderer shows them (``swaps`` and ``official``
    only when the report holds them), and the variant labeller that named their variants
    (its labels numbered in the order the sections use them)."""
    V = Variants(rep, legend)  # noqa: N806 - a callable used like a function
    out = [
        _inputs(rep), _engines(rep), _unsupported(rep), _agreement(rep, V), _conv_diff(rep),
        _conv_effect(rep, V), _attribution(rep), _evidence(rep), _sensitivity(rep, V), _swaps(rep),
        _ties(rep, V), _diagnostics(rep), _official(rep), _notes(rep),
    ]
    return [x for x in out if x is not None], V


def _inputs(rep: AuditReport) -> Section:
    """Each input file and the SHA-256 of its bytes."""
    s = Section("inputs", "Inputs (SHA-256 of each file's bytes)", ["input", "file", "sha256"])
    for f in rep.inputs:
        s.rows.append([f.name, f.source, f.sha256 or "-"])
        s.status.append("")
    return s


def _engines(rep: AuditReport) -> Section:
    """Each engine: version, profile, status, wall and CPU seconds, what it computes or why not."""
    s = Section("engines", "Engines (seconds: wall; cpu seconds: the reference's processes' own CPU)",
                ["engine", "version", "profile", "status", "seconds", "cpu seconds", "computes / note"])
    for e in rep.engines:
        note = e.message or (", ".join(e.computes) if e.computes else "")
        s.rows.append([e.name, e.engine, e.profile, e.status, f"{e.seconds:.1f}",
                       "-" if e.name == "native" else f"{e.cpu_seconds:.1f}", note])
        s.status.append(e.status if e.status != "ok" else "")
    return s


def _unsupported(rep: AuditReport) -> Section:
    """What each reference did not compute, measures grouped by the reason it gives."""
    s = Section("unsupported", "Not computed (each reference says why)", ["engine", "measures", "reason"])
    for e in rep.engines:
        groups: dict[str, list[str]] = {}
        for u in e.unsupported:
            measure, reason = u.split(": ", 1)
            groups.setdefault(reason.replace(f"compute {measure.split(' ')[0]}", "compute it"), []).append(measure)
        for reason, ms in groups.items():
            s.rows.append([e.name, ", ".join(ms), reason])
            s.status.append("")
    return s


def _agreement(rep: AuditReport, V: Variants) -> Section:  # noqa: N803 - the labeller, called like a function
    """Each reference's value beside the native engine's under the same variant."""
    s = Section("agreement", "Agreement: each reference beside the native engine under the same variant (its own "
                "profile; rows marked emulated / native options: the chosen profile)",
                ["run", "measure", "engine", "value", "native", "status", "variant", "detail"])
    for r in rep.agreement:
        s.rows.append([r.run, r.measure, r.engine, fmt(r.value), fmt(r.native), r.status, V(r.variant), r.detail])
        s.status.append("" if r.status == "match" else r.status)
    return s


def _conv_diff(rep: AuditReport) -> Section:
    """The axes on which the engines' settings differ: per axis, each setting and its engines."""
    s = Section("conv_diff", "Convention diff: axes on which the engines' settings differ",
                ["axis", "setting", "engines"])
    for c in rep.conv_diff:
        by_val: dict[str, list[str]] = {}
        for eng, val in c.settings.items():
            by_val.setdefault(val, []).append(eng)
        for i, (val, engs) in enumerate(by_val.items()):
            s.rows.append([c.axis if i == 0 else "", val + (" (chosen)" if val == c.base else ""), ", ".join(engs)])
            s.status.append("")
    return s


def _conv_effect(rep: AuditReport, V: Variants) -> Section:  # noqa: N803 - the labeller, called like a function
    """What each differing axis alone changes from the chosen profile (values that change nothing grouped per run)."""
    s = Section("conv_effect", "What each differing axis alone changes (from the chosen profile)",
                ["axis", "value", "run", "measure", "aggregate", "delta", "topics moved", "variant"])
    for c in rep.conv_diff:
        still: dict[tuple[str, str], list[str]] = {}
        for e in c.effects:
            if not e.error and e.topics_moved == 0 and not e.delta:
                still.setdefault((e.to_value, e.run), []).append(e.measure)
                continue
            s.rows.append([c.axis, e.to_value, e.run, e.measure, fmt(e.aggregate), e.error or fmt_delta(e.delta),
                           str(e.topics_moved), V(e.variant)])
            s.status.append("")
        for (value, run), ms in still.items():
            s.rows.append([c.axis, value, run, ", ".join(ms), "(no change)", "0", "0", ""])
            s.status.append("")
    return s


def _attribution(rep: AuditReport) -> Section:
    """The smallest axis flips that reproduce each side of a difference natively."""
    s = Section("attribution", "Attribution: the smallest axis flips that reproduce each side natively",
                ["run", "measure", "A", "B", "A -> B", "B -> A", "topics", "verdict"])
    for a in rep.attributions:
        s.rows.append([a.run, a.measure, f"{a.a} ({fmt(a.value_a)})", f"{a.b} ({fmt(a.value_b)})",
                       " or ".join(" + ".join(x) for x in a.a_to_b) or "none", " or ".join(" + ".join(x) for x in a.b_to_a) or "none",
                       str(a.topics_differing), "explained" if a.explained else "unexplained"])
        s.status.append("" if a.explained else "unexplained")
    return s


def _evidence(rep: AuditReport) -> Section:
    """The per-topic evidence of each attribution."""
    s = Section("evidence", "Evidence per topic", ["run", "measure", "A", "B", "evidence"])
    for a in rep.attributions:
        for line in a.evidence:
            s.rows.append([a.run, a.measure, a.a, a.b, line])
            s.status.append("")
    return s


def _sensitivity(rep: AuditReport, V: Variants) -> Section:  # noqa: N803 - the labeller, called like a function
    """One axis at a time from the chosen profile (values that change nothing listed together)."""
    s = Section("sensitivity", f"Sensitivity: one axis at a time from {rep.profile}",
                ["run", "measure", "axis", "value", "aggregate", "delta", "topics", "largest change", "variant"],
                intro="Values that change nothing on this input are listed together per run and measure.")
    inert: dict[tuple[str, str], list[str]] = {}
    for r in rep.sensitivity:
        key = (r.run, r.measure)
        if not r.is_base and not r.error and r.topics_changed == 0 and not r.delta:
            inert.setdefault(key, []).append(f"{r.axis}={r.value}")
            continue
        big = f"{fmt_delta(r.largest_change)} (topic {r.largest_topic})" if r.largest_topic else "-"
        if r.is_base:
            if any(x.is_base and (x.run, x.measure) == key for x in rep.sensitivity[:rep.sensitivity.index(r)]):
                continue
            s.rows.append([r.run, r.measure, "(chosen)", rep.profile, fmt(r.aggregate), "", "", "", V(r.variant)])
        else:
            s.rows.append([r.run, r.measure, r.axis, r.value, r.error or fmt(r.aggregate), fmt_delta(r.delta),
                           str(r.topics_changed), big, V(r.variant)])
        s.status.append("")
    for (run, measure), vals in inert.items():
        s.rows.append([run, measure, "(no change)", " ".join(vals), "", "0", "0", "", ""])
        s.status.append("")
    return s


def _swaps(rep: AuditReport) -> Section | None:
    """Axis values that swap the order of runs (None when no run was compared)."""
    if not rep.swaps:
        return None
    s = Section("swaps", "Run order: axis values that swap runs", ["measure", "axis", "value", "order changes", "pairs swapped"])
    for w in rep.swaps:
        s.rows.append([w.measure, w.axis, w.value, "yes" if w.order_changed else "no", ", ".join(w.swapped)])
        s.status.append("explained" if w.order_changed else "")
    return s


def _ties(rep: AuditReport, V: Variants) -> Section:  # noqa: N803 - the labeller, called like a function
    """The tie envelope rows: min / max / expected over orderings of tied documents."""
    s = Section("ties", "Tie envelope: min / max / expected over orderings of tied documents",
                ["run", "measure", "topic", "value", "min", "max", "expected", "method", "orderings", "variant"],
                intro="'all' is the aggregate over topics; topics listed are the widest envelopes.")
    for t in rep.ties:
        s.rows.append([t.run, t.measure, t.topic, fmt(t.value), fmt(t.minimum), fmt(t.maximum), fmt(t.expected),
                       t.method, t.tied_orderings, V(t.variant)])
        s.status.append("")
    return s


def _diagnostics(rep: AuditReport) -> Section:
    """The input diagnostics, one row per fact."""
    s = Section("diagnostics", "Input diagnostics", ["input", "fact", "value"])
    for name, facts in rep.diagnostics.items():
        for k, v in facts.items():
            s.rows.append([name, k, _fact(v)])
            s.status.append("")
    return s


def _official(rep: AuditReport) -> Section | None:
    """The official-measure check of an ir_datasets qrels (None when there was none)."""
    if not rep.official:
        return None
    s = Section("official", "Official-measure check (ir_datasets)", ["dataset", "measure", "official", "status", "detail"])
    for o in rep.official:
        s.rows.append([o.dataset, o.measure, o.official, o.status, o.detail])
        s.status.append("departs" if o.status == "departs" else "")
    return s


def _notes(rep: AuditReport) -> Section:
    """Every note of the report."""
    s = Section("notes", "Notes", ["note"])
    for n in rep.notes:
        s.rows.append([n])
        s.status.append("")
    return s


def _failures(rep: AuditReport) -> str:
    """What was not checked: each failed or timed-out reference, and the values refused."""
    parts = [f"{e.name} {'timed out' if e.status == 'timeout' else 'failed'}" for e in rep.failed_engines]
    failed = {e.name for e in rep.failed_engines}
    refused = [r for r in rep.unchecked if r.engine not in failed]
    if refused:
        parts.append(f"{len(refused)} value(s) refused ({', '.join(dict.fromkeys(r.engine for r in refused))})")
    if not parts:
        parts.append("no reference computed any requested measure")
    return "; ".join(parts)


def verdict(rep: AuditReport) -> str:
    """The report's first line: never reassuring when a reference failed, timed out or refused
    (the exit statuses: :mod:`auditeval.results.audit`)."""
    status = rep.exit_status
    bad = rep.unexplained
    n = len(rep.checked)
    if bad:
        more = f"; also {_failures(rep)}" if rep.unchecked or rep.failed_engines else ""
        return f"UNEXPLAINED: {len(bad)} disagreement(s) not explained by any convention{more} (exit {status})"
    if status == 3:
        return f"NOTHING CHECKED: no reference value was compared: {_failures(rep)} (exit {status})"
    if status == 4:
        return (f"INCOMPLETE: {n} reference value(s) reproduced, but {_failures(rep)}; "
                f"{len(rep.unchecked)} value(s) not checked (exit {status})")
    return f"every difference explained: {n} reference value(s) reproduced, {len(rep.attributions)} attribution(s) (exit 0)"


def _fact(v) -> str:
    if isinstance(v, float):
        return f"{v:.4f}" if abs(v) < 1e6 else repr(v)
    if isinstance(v, list):
        shown = ", ".join(str(x) for x in v[:10])
        return f"{len(v)}: {shown}{' ...' if len(v) > 10 else ''}" if v else "0"
    if isinstance(v, dict):
        return ", ".join(f"{k}: {_fact(x)}" for k, x in v.items()) or "-"
    return str(v)
