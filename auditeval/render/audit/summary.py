"""The audit's summary view for a terminal: what a person reads first, in a screen or two.

Every block is a list of :class:`Line` (text + a status word for colour) within ``width``,
laid out by :mod:`auditeval.render.textgrid` (no engine name, variant or topic id is ever split). Numbers
are traceable to their exact variant string by the profile + departing-axes form that
``eval`` uses: the header lists the chosen profile's every axis and, per reference, the axes
on which its profile departs from it; a reference's value is its measure under its own
profile, a sensitivity value the measure under the chosen profile with the one axis named.
The full tables (every per-topic evidence line, every variant string) are the ``full`` view
(:mod:`.text`) and the other formats.

Blocks here: header (inputs with shortened SHA-256, profiles, references and their status)
and the agreement matrix (reference x measure: ``=`` or the largest |difference| from the
chosen profile over the runs, and the attributed axes); then, from :mod:`.compact`,
the differences one axis at a time (old -> new, what moves, the largest per-topic evidence
line), sensitivity (axis value x measure), the tie envelope (one line per run x measure),
diagnostics and notes.
"""

from __future__ import annotations

from auditeval.render.audit.compact import (
    NATIVE_PREFIX,
    Line,
    diagnostics,
    differences,
    explained,
    notes,
    para,
    plural,
    sensitivity,
    status_word,
    table,
    ties,
    title,
)
from auditeval.render.audit.tables import BAD, fmt_delta, verdict
from auditeval.results.audit import AgreementRow, Attribution, AuditReport

SHA_SHOWN = 12  # hex digits of an input's SHA-256 in the header (the full hash: --format json)


# ----------------------------------------------------------------------------- header
def header(rep: AuditReport, width: int) -> list[Line]:
    # the verdict first: a failed, timed-out or refusing reference is never read as a clean audit
    out = para(verdict(rep), width, status="MISMATCH" if rep.exit_status else "ok")
    out += para(f"auditeval audit · chosen profile {rep.profile} · {plural(len(rep.runs), 'run')} · "
                f"{plural(len(rep.measures), 'measure')} · {rep.seconds:.1f} s", width, status="title")
    q = rep.diagnostics.get("qrels", {})
    facts = {"qrels": f"{q.get('judgments', '?')} judgments"}
    for name in rep.runs:
        facts[name] = f"{rep.diagnostics.get(name, {}).get('lines', '?')} lines"
    rows = [[f.name, f.source, f.sha256[:SHA_SHOWN] or "-", facts.get(f.name, "")] for f in rep.inputs]
    if rows:
        out += title("Inputs (sha256 of the file's bytes, first 12 hex digits)", width)
        out += table(["input", "file", "sha256", "read"], rows, width, wrap_cols=[1], right=[3])
    out += profiles(rep, width)
    out += references(rep, width)
    return out


def profiles(rep: AuditReport, width: int) -> list[Line]:
    """The chosen profile's axes, and each reference profile's departures from them: a value's
    variant string is its measure with these axes (those the measure reads)."""
    read = _read_axes(rep)
    out = title("Profiles, on the axes the measures read (a value's variant: its measure under its engine's "
                 "profile)", width)
    base = {a: v for a, v in rep.profile_axes.items() if a in read}
    used = {r.engine for r in rep.agreement}
    same = ", ".join(x.name for x in rep.engines if x.profile == rep.profile and x.name in used)
    out += para(" ".join(f"{a}={v}" for a, v in base.items()), width, indent=4, first=f"  {rep.profile} (chosen; "
                 f"{'native' + (', ' + same if same else '')}): ")
    seen = {rep.profile}
    for e in rep.engines:
        if e.profile in seen or not e.axes or e.name not in used:
            continue
        seen.add(e.profile)
        d = [f"{a}={v}" for a, v in e.axes.items() if a in base and base[a] != v]
        engines = ", ".join(x.name for x in rep.engines if x.profile == e.profile and x.name in used)
        out += para(("departs on " + " ".join(d)) if d else "same axes", width, indent=4,
                     first=f"  {e.profile} ({engines}): ")
    return out


def _read_axes(rep: AuditReport) -> set[str]:
    """Axes named in any variant string of the report (those the audited measures read)."""
    out: set[str] = set()
    for v in {r.variant for r in rep.agreement} | {s.variant for s in rep.sensitivity}:
        out.update(p.split("=", 1)[0] for p in v.split("|")[1:])
    return out


def references(rep: AuditReport, width: int) -> list[Line]:
    rows, status = [], []
    idle = [e.name for e in rep.engines if e.status == "nothing to compute"]
    for e in rep.engines:
        if e.status == "nothing to compute":  # one line below the table for all of them
            continue
        what = e.engine if e.status == "ok" else (e.message or e.engine)
        if e.status == "ok" and e.message and e.name != "native":  # ok, yet some invocation refused its input
            what += f"; {e.message}"
        ran = e.name != "native" and e.status not in ("left out", "not installed", "unsupported")
        rows.append([e.name, status_word(e.status), "-" if e.status == "left out" else f"{e.seconds:.1f}",
                     f"{e.cpu_seconds:.1f}" if ran else "-", what])
        status.append("" if e.status == "ok" else e.status)
    out = title("References (their profiles: above; s: wall seconds, cpu s: their processes' own CPU)", width)
    out += table(["engine", "status", "s", "cpu s", "version / reason"], rows, width, status, wrap_cols=[4],
                 right=[2, 3], inline=1)
    cpu = sum(e.cpu_seconds for e in rep.engines if e.name != "native")
    if rep.jobs:
        out += para(f"at most {rep.jobs} at once, longest expected first; their CPU in all {cpu:.1f} s; "
                    f"the native engine's own time {rep.native_seconds:.1f} s of {rep.seconds:.1f} s", width,
                    indent=4, first="  scheduled: ")
    if rep.left_out:
        out += para(f"{', '.join(rep.left_out)} (each one's row says what only it would check)", width, indent=4,
                    first="  left out by --quick: ", status="unsupported")
    reasons: dict[str, list[str]] = {}
    for e in rep.engines:
        for u in e.unsupported:
            measure, reason = u.split(": ", 1)
            if not reason.endswith(f"does not compute {measure.split(' ')[0]}"):  # the matrix's '-'
                reasons.setdefault(f"{e.name}: {reason}", []).append(measure)
    for text, ms in reasons.items():
        out += para(f"{text} ({', '.join(ms)})", width, indent=4, first="  not computed: ", status="unsupported")
    if idle:
        out += para(f"{', '.join(idle)} (they compute none of the requested measures)", width, indent=4,
                    first="  not run: ")
    return out


# ----------------------------------------------------------------------------- agreement
def _own(rows: list[AgreementRow]) -> tuple[list[AgreementRow], list[AgreementRow]]:
    """Agreement rows under each reference's own profile, and those under the chosen one."""
    chosen = [r for r in rows if r.detail.startswith(("emulated:", "native options;"))]
    return [r for r in rows if r not in chosen], chosen


def _versus_native(rep: AuditReport) -> dict[tuple[str, str, str], Attribution]:
    """(engine, run, measure) -> the attribution between the chosen profile's group and it."""
    out = {}
    for a in rep.attributions:
        sides = (a.a.split(", "), a.b.split(", "))
        for mine, other in (sides, sides[::-1]):
            if any(x.startswith(NATIVE_PREFIX) for x in mine):
                for eng in other:
                    out[(eng, a.run, a.measure)] = a
    return out


def _axes_of(a: Attribution) -> list[str]:
    flips = a.a_to_b or a.b_to_a
    return [f.split("=", 1)[0] for f in flips[0]] if flips else []


def _cell(rows: list[AgreementRow], vs: dict, chosen: bool) -> tuple[str, list[str], str]:
    """(cell text, attributed axes, status) of one reference x measure over the runs."""
    statuses = {r.status for r in rows}
    if not rows:
        return "-", [], ""
    if "MISMATCH" in statuses:
        return "MISMATCH", [], "MISMATCH"
    live = [r for r in rows if r.status in ("match", "explained")]
    if not live:
        s = sorted(statuses)[0]
        return status_word(s), [], s
    flag = "~" if "explained" in statuses else ""
    if len(live) < len(rows):
        flag += "!"
    if chosen:
        return "=" + flag, [], "explained" if flag else ""
    deltas, axes, refused = [], [], 0
    for r in live:
        att = vs.get((r.engine, r.run, r.measure))
        if att is None:  # the same value as the chosen profile's (or refused by both alike)
            if r.native is None:
                refused += 1
            else:
                deltas.append(0.0)
            continue
        axes += [x for x in _axes_of(att) if x not in axes]
        if not att.explained:
            return "UNEXPLAINED", axes, "unexplained"
        if att.value_a is None or att.value_b is None:
            refused += 1
        else:
            deltas.append(abs(att.value_b - att.value_a))
    if refused:
        flag += "r"
    if not deltas:  # no run with a number on both sides: a failure says more than a refusal
        failed = sorted(statuses - {"match", "explained"})
        return (status_word(failed[0]), axes, failed[0]) if failed else ("refused", axes, "")
    big = max(deltas)
    text = fmt_delta(big).lstrip("+") if big else "="
    return text + flag, axes, "explained" if "~" in flag or "!" in flag else ""


def agreement(rep: AuditReport, width: int) -> list[Line]:
    own, chosen = _own(rep.agreement)
    vs = _versus_native(rep)
    engines = list(dict.fromkeys(r.engine for r in rep.agreement))
    rows, status = [], []
    n = len(rep.measures)
    for label, pool, is_chosen in [("", own, False), (f" @{rep.profile}", chosen, True)]:
        for eng in engines:
            mine = [r for r in pool if r.engine == eng]
            if not mine:
                continue
            cells, axes, worst = [], [], ""
            for m in rep.measures:
                text, ax, st = _cell([r for r in mine if r.measure == m], vs, is_chosen)
                cells.append(text)
                axes += [x for x in ax if x not in axes]
                worst = st if st in BAD else (worst or st)
            rows.append([eng + label, *cells, " ".join(axes)])
            status.append(worst)
    out = title(f"Agreement with the chosen profile {rep.profile}: per reference and measure, '=' or the largest "
                 "|reference - chosen| over the runs, and the axes that explain it", width)
    if not rows:
        return out + [Line("  (no reference computed anything)")]
    out += table(["reference", *rep.measures, "axes"], rows, width, status, wrap_cols=[n + 1], right=range(1, n + 1),
                 chunk=True, gap=1)
    marks = "".join(c for r in rows for c in r[1:n + 1] if c[-1:] in "~!r" and c not in ("refused",))
    legend = ["each reference's own values first reproduced natively (doubles to 1e-12, binaries as printed)"]
    legend += [text for mark, text in [("-", "- not computed"), ("~", "~ reproduced only with another axis value "
               "or within the tie envelope (below)"), ("!", "! failed on some run"),
               ("r", "r refused by the tool and the native engine alike on some run")]
               if mark in marks or (mark == "-" and any("-" in r[1:n + 1] for r in rows))]
    if chosen:
        legend.append(f"@{rep.profile}: asked to compute under the chosen profile")
    return out + para("; ".join(legend), width, indent=2, first="  ", status="dim")


def summary(rep: AuditReport, width: int) -> list[Line]:
    out = header(rep, width) + agreement(rep, width) + explained(rep, width) + differences(rep, width)
    out += sensitivity(rep, width) + ties(rep, width) + diagnostics(rep, width)
    if rep.official:
        rows = [[o.dataset, o.measure, o.official, o.status, o.detail] for o in rep.official]
        out += title("Official-measure check (ir_datasets)", width)
        out += table(["dataset", "measure", "official", "status", "detail"], rows, width,
                     [("departs" if o.status == "departs" else "") for o in rep.official], wrap_cols=[4])
    out += notes(rep, width)
    out += [Line("")] + para("Full tables (every per-topic evidence line, every variant string): --detail; "
                              "also --format json|markdown|html|latex", width, status="dim")
    return out
