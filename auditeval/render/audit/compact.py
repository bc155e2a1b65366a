"""The compact sections of the audit's summary view (:mod:`.summary`), and the line
helpers both use.

* disagreements with a reference's own profile (explained ones grouped by their reason);
* differences one axis at a time from the chosen profile: old -> new setting (and which
  references hold it), what moves per run and measure (or, past 3 runs, the largest change
  per measure), refusals, and the largest per-topic evidence line of the attributions;
* sensitivity as an axis value x measure table (the change of largest size over the runs,
  ``*`` where the runs' order changes), the tie envelope per run x measure (where it is
  visible at 4 decimals), input diagnostics, and the notes (one that holds for several inputs
  once, ``also`` naming the others with their numbers).

Every line is a :class:`Line` within the width (:mod:`auditeval.render.textgrid`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from auditeval.render.audit.tables import fmt, fmt_delta
from auditeval.render.textgrid import grid, wrap
from auditeval.results.audit import AgreementRow, AuditReport

NATIVE_PREFIX = "native ("  # the chosen profile's group in an attribution: "native (PROFILE), ..."


@dataclass
class Line:
    text: str
    status: str = ""  # a status word (BAD / WARN colour), "title", "dim" or ""


def table(headers, rows, width, status=None, **kw) -> list[Line]:
    return [Line(t, "dim" if i < 0 and t.startswith("─") else (status[i] if status and i >= 0 else ""))
            for t, i in grid(headers, rows, width, **kw)]


def para(text: str, width: int, indent: int = 2, first: str = "", status: str = "") -> list[Line]:
    return [Line(x, status) for x in wrap(text, width, indent=indent, first=first)]


def title(text: str, width: int) -> list[Line]:
    return [Line("")] + [Line(x, "title") for x in wrap(text, width, indent=2)]


def plural(k: int, word: str) -> str:
    return f"{k} {word}{'' if k == 1 else 's'}"


def status_word(status: str) -> str:
    return {"timeout": "timed out"}.get(status, status)


def explained(rep: AuditReport, width: int) -> list[Line]:
    """Agreement rows reproduced only with an explanation, and anything unexplained."""
    out: list[Line] = []
    rows = [r for r in rep.agreement if r.status in ("explained", "MISMATCH")]
    bad = [a for a in rep.attributions if not a.explained]
    if not rows and not bad:
        return out
    out += title("Disagreements with a reference's own profile (in full: --detail)", width)
    groups: dict[tuple[str, str, str], list[tuple[AgreementRow, str]]] = {}
    for r in rows:
        what, _, why = r.detail.rpartition("; ")
        groups.setdefault((r.status, r.engine, _NUM.sub("N", why)), []).append((r, what.split("; ")[0]))
    for (status, engine, why), items in groups.items():
        why = why if len(items) > 1 else items[0][0].detail.rpartition("; ")[2]
        out += para(why, width, indent=4, first=f"  {status}: {engine}: ", status=status)
        out += para("; ".join(f"{r.run} {r.measure}: {what}" for r, what in items), width, indent=6, first="    on ")
    for a in bad:
        out += para(f"{a.a} ({fmt(a.value_a)}) vs {a.b} ({fmt(a.value_b)}): no axis flips reproduce both sides", width,
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
                             f"{plural(top.topics_moved, 'topic')})")
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
    out = title(f"Differences one axis at a time from {rep.profile} (change (topics moved) per run and measure)",
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
            out += para(f"({holders})", width, indent=4, first=f"  {c.axis} {c.base} -> {' / '.join(vals)} ")
            moves, still, refusals = _moves([e for e in c.effects if e.to_value == vals[0]], rep.runs, rep.measures)
            if moves:
                out += para(moves, width, indent=6, first="    moves ")
            if refusals:
                out += para(refusals, width, indent=6, first="    refused ", status="explained")
            if still:
                out += para(still, width, indent=6, first="    no change ", status="dim")
        ev = _evidence(rep, c.axis)
        if ev:
            out += para(ev, width, indent=6, first="    e.g. ")
    if inert:
        out += para(", ".join(inert) + " (the engines: Profiles above)", width, indent=4,
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
    out = title(f"Sensitivity: each axis value alone from {rep.profile}; the change of largest size over the runs "
                 "('.' none, * the runs' order changes, blank: the measure does not read the axis)", width)
    n = len(rep.measures)
    for r in rows:
        if r[0] in same:
            r[0] += f" (+{len(same[r[0]])})"
    if rows:
        out += table(["axis=value", *rep.measures], rows, width, right=range(1, n + 1), chunk=True, gap=1)
    for key, also in same.items():
        out += para(" ".join(also), width, indent=4, first=f"  {key} (+{len(also)}): the same change under ")
    if inert:
        out += para(" ".join(inert), width, indent=4, first="  no change on this input: ", status="dim")
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
    out = title(f"Tie envelope under {rep.profile}: the mean over every order of tied documents (widest topics: "
                 "--detail)", width)
    if rows:
        out += table(["run", "measure", "value", "min", "max", "expected", "method", "orderings"], rows, width,
                     wrap_cols=[6], right=[2, 3, 4, 5, 7], keys=2)
    if flat:
        text = "; ".join(f"{run}: {' '.join(ms)}" for run, ms in flat.items())
        out += para(text, width, indent=4, first="  narrower than 0.00005 (or none): ", status="dim")
    return out


def diagnostics(rep: AuditReport, width: int) -> list[Line]:
    out = title("Input diagnostics (every fact: --detail)", width)
    q = rep.diagnostics.get("qrels")
    if q:
        grades = ", ".join(f"{g}: {n}" for g, n in q.get("grades", {}).items())
        out += para(f"{q.get('topics')} topics, {q.get('judgments')} judgments (grades {grades}), "
                     f"{q.get('negative_grades', 0)} negative, {q.get('duplicate_judgments', 0)} duplicate, "
                     + (f"{q['duplicate_subtopic_judgments']} repeated (topic, subtopic, doc), "
                        if "duplicate_subtopic_judgments" in q else "") +
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
        out += table(["run", "topics", "depth", "tied/mixed", "tied@10", "unjudged@10", "float32", "dups"], rows, width,
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
    out = title("Notes (one that holds for several inputs is given once: 'also' names the others, with their "
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
        out += para(body, width, indent=4, first=f"  - {name + ': ' if name else ''}")
    return out
