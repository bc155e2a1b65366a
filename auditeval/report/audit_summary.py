"""The audit's summary view for a terminal: what a person reads first, in a screen or two.

Every block is a list of :class:`Line` (text + a status word for colour) within ``width``,
laid out by :mod:`.textgrid` (no engine name, variant or topic id is ever split). Numbers
are traceable to their exact variant string by the profile + departing-axes form that
``eval`` uses: the header lists the chosen profile's every axis and, per reference, the axes
on which its profile departs from it; a reference's value is its measure under its own
profile, a sensitivity value the measure under the chosen profile with the one axis named.
The full tables (every per-topic evidence line, every variant string) are the ``full`` view
(:mod:`.audit_text`) and the other formats.

Blocks: header (inputs with shortened SHA-256, profiles, references and their status), the
agreement matrix (reference x measure: ``=`` or the largest |difference| from the chosen
profile over the runs, and the attributed axes), the differences one axis at a time (old ->
new, what moves, the largest per-topic evidence line), sensitivity (axis value x measure),
the tie envelope (one line per run x measure), diagnostics, notes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from ..audit.report import AgreementRow, Attribution, AuditReport
from .audit_tables import BAD, WARN, fmt, fmt_delta, verdict
from .textgrid import grid, wrap

SHA_SHOWN = 12  # hex digits of an input's SHA-256 in the header (the full hash: --format json)
NATIVE_PREFIX = "native ("


@dataclass
class Line:
    text: str
    status: str = ""  # a status word (BAD / WARN colour), "title", "dim" or ""


def _grid(headers, rows, width, status=None, **kw) -> list[Line]:
    return [Line(t, "dim" if i < 0 and t.startswith("─") else (status[i] if status and i >= 0 else ""))
            for t, i in grid(headers, rows, width, **kw)]


def _para(text: str, width: int, indent: int = 2, first: str = "", status: str = "") -> list[Line]:
    return [Line(x, status) for x in wrap(text, width, indent=indent, first=first)]


def _title(text: str, width: int) -> list[Line]:
    return [Line("")] + [Line(x, "title") for x in wrap(text, width, indent=2)]


def _n(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def _status_word(status: str) -> str:
    return {"timeout": "timed out"}.get(status, status)


# ----------------------------------------------------------------------------- header
def header(rep: AuditReport, width: int) -> list[Line]:
    out = _para(f"auditeval audit · chosen profile {rep.profile} · {_n(len(rep.runs), 'run')} · "
                f"{_n(len(rep.measures), 'measure')} · {rep.seconds:.1f} s", width, status="title")
    out += _para(verdict(rep), width, status="MISMATCH" if rep.exit_status else "ok")
    q = rep.diagnostics.get("qrels", {})
    facts = {"qrels": f"{q.get('judgments', '?')} judgments"}
    for name in rep.runs:
        facts[name] = f"{rep.diagnostics.get(name, {}).get('lines', '?')} lines"
    rows = [[f.name, f.source, f.sha256[:SHA_SHOWN] or "-", facts.get(f.name, "")] for f in rep.inputs]
    if rows:
        out += _title("Inputs (sha256 of the file's bytes, first 12 hex digits)", width)
        out += _grid(["input", "file", "sha256", "read"], rows, width, wrap_cols=[1], right=[3])
    out += profiles(rep, width)
    out += references(rep, width)
    return out


def profiles(rep: AuditReport, width: int) -> list[Line]:
    """The chosen profile's axes, and each reference profile's departures from them: a value's
    variant string is its measure with these axes (those the measure reads)."""
    read = _read_axes(rep)
    out = _title("Profiles, on the axes the measures read (a value's variant: its measure under its engine's "
                 "profile)", width)
    base = {a: v for a, v in rep.profile_axes.items() if a in read}
    used = {r.engine for r in rep.agreement}
    same = ", ".join(x.name for x in rep.engines if x.profile == rep.profile and x.name in used)
    out += _para(" ".join(f"{a}={v}" for a, v in base.items()), width, indent=4, first=f"  {rep.profile} (chosen; "
                 f"{'native' + (', ' + same if same else '')}): ")
    seen = {rep.profile}
    for e in rep.engines:
        if e.profile in seen or not e.axes or e.name not in used:
            continue
        seen.add(e.profile)
        d = [f"{a}={v}" for a, v in e.axes.items() if a in base and base[a] != v]
        engines = ", ".join(x.name for x in rep.engines if x.profile == e.profile and x.name in used)
        out += _para(("departs on " + " ".join(d)) if d else "same axes", width, indent=4,
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
    for e in rep.engines:
        what = e.engine if e.status == "ok" else (e.message or e.engine)
        rows.append([e.name, _status_word(e.status), f"{e.seconds:.1f}", what])
        status.append("" if e.status == "ok" else e.status)
    out = _title("References (their profiles: above)", width)
    out += _grid(["engine", "status", "s", "version / reason"], rows, width, status, wrap_cols=[3], right=[2], inline=1)
    reasons: dict[str, list[str]] = {}
    for e in rep.engines:
        for u in e.unsupported:
            measure, reason = u.split(": ", 1)
            if not reason.endswith(f"does not compute {measure.split(' ')[0]}"):  # the matrix's '-'
                reasons.setdefault(f"{e.name}: {reason}", []).append(measure)
    for text, ms in reasons.items():
        out += _para(f"{text} ({', '.join(ms)})", width, indent=4, first="  not computed: ", status="unsupported")
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
        return _status_word(s), [], s
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
        return (_status_word(failed[0]), axes, failed[0]) if failed else ("refused", axes, "")
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
    out = _title(f"Agreement with the chosen profile {rep.profile}: per reference and measure, '=' or the largest "
                 "|reference - chosen| over the runs, and the axes that explain it", width)
    if not rows:
        return out + [Line("  (no reference computed anything)")]
    out += _grid(["reference", *rep.measures, "axes"], rows, width, status, wrap_cols=[n + 1], right=range(1, n + 1),
                 chunk=True, gap=1)
    marks = "".join(c for r in rows for c in r[1:n + 1] if c[-1:] in "~!r" and c not in ("refused",))
    legend = ["each reference's own values first reproduced natively (doubles to 1e-12, binaries as printed)"]
    legend += [text for mark, text in [("-", "- not computed"), ("~", "~ reproduced only with another axis value "
               "or within the tie envelope (below)"), ("!", "! failed on some run"),
               ("r", "r refused by the tool and the native engine alike on some run")]
               if mark in marks or (mark == "-" and any("-" in r[1:n + 1] for r in rows))]
    if chosen:
        legend.append(f"@{rep.profile}: asked to compute under the chosen profile")
    return out + _para("; ".join(legend), width, indent=2, first="  ", status="dim")


def explained(rep: AuditReport, width: int) -> list[Line]:
    """Agreement rows reproduced only with an explanation, and anything unexplained."""
    out: list[Line] = []
    rows = [r for r in rep.agreement if r.status in ("explained", "MISMATCH")]
    bad = [a for a in rep.attributions if not a.explained]
    if not rows and not bad:
        return out
    out += _title("Disagreements with a reference's own profile (in full: --detail)", width)
    groups: dict[tuple[str, str, str], list[tuple[AgreementRow, str]]] = {}
    for r in rows:
        what, _, why = r.detail.rpartition("; ")
        groups.setdefault((r.status, r.engine, _NUM.sub("N", why)), []).append((r, what.split("; ")[0]))
    for (status, engine, why), items in groups.items():
        why = why if len(items) > 1 else items[0][0].detail.rpartition("; ")[2]
        out += _para(why, width, indent=4, first=f"  {status}: {engine}: ", status=status)
        out += _para("; ".join(f"{r.run} {r.measure}: {what}" for r, what in items), width, indent=6, first="    on ")
    for a in bad:
        out += _para(f"{a.a} ({fmt(a.value_a)}) vs {a.b} ({fmt(a.value_b)}): no axis flips reproduce both sides", width,
                     indent=4, first=f"  UNEXPLAINED: {a.run} {a.measure}: ", status="unexplained")
    return out


# ----------------------------------------------------------------------------- differences
_CHANGE = re.compile(r"\((\S+) (not evaluated|-?[\d.]+) -> (not evaluated|-?[\d.]+)\)$")


def _size(line: str) -> float:
    m = _CHANGE.search(line)
    if not m:
        return -1.0
    if "not evaluated" in (m.group(2), m.group(3)):
        return float("inf")
    return abs(float(m.group(3)) - float(m.group(2)))


def _evidence(rep: AuditReport, axis: str) -> str:
    best, size = "", -2.0
    for a in rep.attributions:
        for line in a.evidence:
            if line.startswith(f"{axis}: ") and " more topic(s) moved" not in line and _size(line) > size:
                best, size = f"{a.run} {a.measure}, {line[len(axis) + 2:]}", _size(line)
    return best


def _moves(effects, runs: list[str], measures: list[str]) -> tuple[str, str, str]:
    """(what moves, what does not, refusals) of one axis value's effects."""
    moved = [e for e in effects if not e.error and (e.topics_moved or e.delta)]
    errors: dict[str, list[str]] = {}
    for e in effects:
        if e.error:
            errors.setdefault(e.error, []).append((e.run, e.measure))
    still = [m for m in measures if not any(e.measure == m and (e in moved or e.error) for e in effects)
             and any(e.measure == m for e in effects)]
    if len(runs) <= 3:
        parts = []
        for run in runs:
            mine = [f"{e.measure} {fmt_delta(e.delta)} ({e.topics_moved})" for e in moved if e.run == run]
            if mine:
                parts.append(f"{run}: " + ", ".join(mine))
        text = "; ".join(parts)
    else:
        parts = []
        for m in measures:
            mine = [e for e in moved if e.measure == m]
            if mine:
                top = max(mine, key=lambda e: abs(e.delta or 0))
                parts.append(f"{m} on {len(mine)}/{len(runs)} runs, up to {fmt_delta(top.delta)} ({top.run}, "
                             f"{_n(top.topics_moved, 'topic')})")
        text = "; ".join(parts)
    refusals = "; ".join(f"{_where(where, runs, measures)}: {err}" for err, where in errors.items())
    return text, " ".join(still), refusals


def _where(pairs: list[tuple[str, str]], runs: list[str], measures: list[str]) -> str:
    """'run (every measure)' or 'run: M1 M2' per run of (run, measure) pairs."""
    parts = []
    for run in runs:
        ms = [m for r, m in pairs if r == run]
        if ms:
            parts.append(f"{run} (every measure)" if len(ms) == len(measures) else f"{run}: {' '.join(ms)}")
    return ", ".join(parts)


def differences(rep: AuditReport, width: int) -> list[Line]:
    if not rep.conv_diff:
        return []
    out = _title(f"Differences one axis at a time from {rep.profile} (change (topics moved) per run and measure)",
                 width)
    inert = []
    for c in rep.conv_diff:
        if all(not e.error and not e.topics_moved and not e.delta for e in c.effects):
            others = sorted({v for v in c.settings.values() if v != c.base})
            inert.append(f"{c.axis} {c.base} -> {' / '.join(others)}")
            continue
        by_val: dict[str, list[str]] = {}
        for eng, val in c.settings.items():
            if not eng.startswith(NATIVE_PREFIX):
                by_val.setdefault(val, []).append(eng)
        groups: dict[tuple, list[str]] = {}
        for val in by_val:
            if val == c.base:
                continue
            eff = [e for e in c.effects if e.to_value == val]
            key = tuple((e.run, e.measure, e.delta, e.topics_moved, e.error) for e in eff)
            groups.setdefault(key, []).append(val)
        for vals in groups.values():
            holders = "; ".join(f"{v}: {', '.join(by_val[v])}" for v in vals)
            out += _para(f"({holders})", width, indent=4, first=f"  {c.axis} {c.base} -> {' / '.join(vals)} ")
            moves, still, refusals = _moves([e for e in c.effects if e.to_value == vals[0]], rep.runs, rep.measures)
            if moves:
                out += _para(moves, width, indent=6, first="    moves ")
            if refusals:
                out += _para(refusals, width, indent=6, first="    refused ", status="explained")
            if still:
                out += _para(still, width, indent=6, first="    no change ", status="dim")
        ev = _evidence(rep, c.axis)
        if ev:
            out += _para(ev, width, indent=6, first="    e.g. ")
    if inert:
        out += _para(", ".join(inert) + " (the engines: Profiles above)", width, indent=4,
                     first="  no change on this input: ", status="dim")
    return out


# ----------------------------------------------------------------------------- sensitivity
def sensitivity(rep: AuditReport, width: int) -> list[Line]:
    swaps = {(w.measure, w.axis, w.value) for w in rep.swaps if w.order_changed}
    keys = list(dict.fromkeys((s.axis, s.value) for s in rep.sensitivity if not s.is_base))
    rows, inert = [], []
    same: dict[str, list[str]] = {}
    for axis, value in keys:
        mine = [s for s in rep.sensitivity if (s.axis, s.value) == (axis, value) and not s.is_base]
        cells = []
        for m in rep.measures:
            ms = [s for s in mine if s.measure == m]
            if not ms:
                cells.append("")
                continue
            deltas = [s.delta for s in ms if not s.error and s.delta]
            if deltas:
                text = fmt_delta(max(deltas, key=abs))
            elif any(s.error for s in ms):
                text = "refused"
            else:
                text = "."
            cells.append(text + ("*" if (m, axis, value) in swaps else ""))
        if all(c in ("", ".") for c in cells):
            inert.append(f"{axis}={value}")
        elif rows and rows[-1][1:] == cells and rows[-1][0].split("=", 1)[0] == axis:
            same.setdefault(rows[-1][0], []).append(f"{axis}={value}")  # the same change as the row above
        else:
            rows.append([f"{axis}={value}", *cells])
    out = _title(f"Sensitivity: each axis value alone from {rep.profile}; the change of largest size over the runs "
                 "('.' none, * the runs' order changes, blank: the measure does not read the axis)", width)
    n = len(rep.measures)
    for r in rows:
        if r[0] in same:
            r[0] += f" (+{len(same[r[0]])})"
    if rows:
        out += _grid(["axis=value", *rep.measures], rows, width, right=range(1, n + 1), chunk=True, gap=1)
    for key, also in same.items():
        out += _para(" ".join(also), width, indent=4, first=f"  {key} (+{len(also)}): the same change under ")
    if inert:
        out += _para(" ".join(inert), width, indent=4, first="  no change on this input: ", status="dim")
    return out


# ----------------------------------------------------------------------------- ties, diagnostics, notes
def ties(rep: AuditReport, width: int) -> list[Line]:
    rows, flat = [], {}
    for t in rep.ties:
        if t.topic != "all":
            continue
        if t.minimum is not None and t.maximum is not None and t.maximum - t.minimum < 5e-5:
            flat.setdefault(t.run, []).append(t.measure)
            continue
        rows.append([t.run, t.measure, fmt(t.value), fmt(t.minimum), fmt(t.maximum), fmt(t.expected), t.method,
                     t.tied_orderings])
    out = _title(f"Tie envelope under {rep.profile}: the mean over every order of tied documents (widest topics: "
                 "--detail)", width)
    if rows:
        out += _grid(["run", "measure", "value", "min", "max", "expected", "method", "orderings"], rows, width,
                     wrap_cols=[6], right=[2, 3, 4, 5, 7], keys=2)
    if flat:
        text = "; ".join(f"{run}: {' '.join(ms)}" for run, ms in flat.items())
        out += _para(text, width, indent=4, first="  narrower than 0.00005 (or none): ", status="dim")
    return out


def diagnostics(rep: AuditReport, width: int) -> list[Line]:
    out = _title("Input diagnostics (every fact: --detail)", width)
    q = rep.diagnostics.get("qrels")
    if q:
        grades = ", ".join(f"{g}: {n}" for g, n in q.get("grades", {}).items())
        out += _para(f"{q.get('topics')} topics, {q.get('judgments')} judgments (grades {grades}), "
                     f"{q.get('negative_grades', 0)} negative, {q.get('duplicate_judgments', 0)} duplicate, "
                     f"{len(q.get('topics_without_relevant', []))} topic(s) without a relevant document", width,
                     indent=4, first="  qrels: ")
    rows = []
    for name in rep.runs:
        d = rep.diagnostics.get(name, {})
        if "error" in d:
            rows.append([name, d["error"], "", "", "", "", "", ""])
            continue
        dep = d.get("depth", {})
        rows.append([name, str(d.get("topics", "")), f"{dep.get('min', '?')}-{dep.get('max', '?')}",
                     f"{d.get('tied_blocks', 0)}/{d.get('mixed_blocks', 0)}", str(d.get("topics_tied_in_top10", 0)),
                     f"{100 * d.get('unjudged_top10_share', 0):.0f}%", str(d.get("float32_collapses", 0)),
                     str(d.get("duplicate_lines", 0))])
    if rows:
        out += _grid(["run", "topics", "depth", "tied/mixed", "tied@10", "unjudged@10", "float32", "dups"], rows, width,
                     wrap_cols=[1], right=range(1, 8))
    return out


_NUM = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?![\w.])")  # standalone numbers (not the 2 of q2)
_SETTING = re.compile(r"\w+=[\w.-]+")


def notes(rep: AuditReport, width: int) -> list[Line]:
    """Every note; notes that say the same of several inputs (only numbers differ) once, with
    each input's numbers."""
    if not rep.notes:
        return []
    names = {f.source: f.name for f in rep.inputs}
    groups: dict[str, list[tuple[str, str]]] = {}
    for n in rep.notes:
        src = next((s for s in names if n.startswith(f"{s}: ")), None)
        body = n[len(src) + 2:] if src else n
        key = _NUM.sub("#", body) + "|" + " ".join(_SETTING.findall(body)) + f"|{src is None}"  # depth=10 != depth=100
        groups.setdefault(key, []).append((names.get(src, ""), body))
    out = _title("Notes (one that holds for several inputs is given once: 'also' names the others, with their "
                 "numbers where they differ)", width)
    for items in groups.values():
        name, body = items[0]
        if len(items) > 1:
            first = _NUM.findall(body)
            rest = []
            for nm, b in items[1:]:
                nums = [x for x, y in zip(_NUM.findall(b), first, strict=False) if x != y]
                rest.append(f"{nm}{' (' + '/'.join(nums) + ')' if nums else ''}")
            body += f"; also {', '.join(rest)}"
        out += _para(body, width, indent=4, first=f"  - {name + ': ' if name else ''}")
    return out


def summary(rep: AuditReport, width: int) -> list[Line]:
    out = header(rep, width) + agreement(rep, width) + explained(rep, width) + differences(rep, width)
    out += sensitivity(rep, width) + ties(rep, width) + diagnostics(rep, width)
    if rep.official:
        rows = [[o.dataset, o.measure, o.official, o.status, o.detail] for o in rep.official]
        out += _title("Official-measure check (ir_datasets)", width)
        out += _grid(["dataset", "measure", "official", "status", "detail"], rows, width,
                     [("departs" if o.status == "departs" else "") for o in rep.official], wrap_cols=[4])
    out += notes(rep, width)
    out += [Line("")] + _para("Full tables (every per-topic evidence line, every variant string): --detail; "
                              "also --format json|markdown|html|latex", width, status="dim")
    return out


STATUS_WORDS = BAD | WARN
