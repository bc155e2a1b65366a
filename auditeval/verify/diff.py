"""Align two tools' output files and report every difference beyond printing precision;
given the qrels and the run, explain each differing measure by the axes that reproduce
each side.

**Equal at printed precision.** With ``d`` the coarser side's digits after the point, two
numbers are equal when ``|a - b| <= 0.5 * 10^-d`` (so ``0.1234`` equals ``0.12344`` but not
``0.1235``: the finer side, rounded to ``d`` digits, must give the coarser one, half-way
cases included). Two full-precision numbers (JSON) are equal within ``1e-12`` relative
(auditeval's per-topic parity standard). Strings (``relstring``) compare exactly.

**Exit status** (:meth:`DiffResult.verdict`, the first line of the output): 0 every value both
sides print agrees; 1 some value differs; 2 bad input; 3 nothing was compared (the files print
no value in common).

A topic one side prints and the other does not is a difference when both print that measure
per topic (trec_eval 10 ``-c -q`` prints missing topics, 9.0.8 does not); when one side
prints only the aggregate, only the aggregates are compared (a note says so); when one side
prints no aggregate (pytrec_eval's JSON), only the per-topic values are. Only values both sides
print count: measures one
side prints and the other does not are listed; they do not count as differences.

**Explanation.** For each differing measure, :func:`explain` evaluates the measure natively
under the candidates of :mod:`.search` (every shipped profile and every single-axis change
of one) and keeps those that reproduce *all* of a side's values for that measure (each at
that side's precision, the topic set included). The explanation is the pair of reproducing
candidates, one per side, whose conventions differ on the fewest of the measure's axes;
axes where a side is reproduced under several values are reported as not mattering here.
Between the simplest reproducing candidate of each side, the audit's attribution
(:func:`auditeval.auditing.attribution.minimal_flips`) gives the smallest sets of axes whose
flip turns one into the other's per-topic values: the same answer reached from the engine
side (for the two trec_eval builds: ``iprec``, not ``sim`` or ``topics``).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from auditeval.auditing.attribution import differing_axes, minimal_flips
from auditeval.auditing.native import Native
from auditeval.verify.search import Candidate, Evaluated, candidates, evaluate_candidates
from auditeval.verify.tool_output import Entry, ToolOutput
from auditeval.vocab.conventions import AXES
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import Variant, parse_measure

FULL_RTOL = 1e-12


def tolerance(da: int | None, db: int | None) -> float | None:
    """Half a unit in the coarser side's last printed digit (None: both full precision)."""
    d = [x for x in (da, db) if x is not None]
    return 0.5 * 10.0 ** -min(d) if d else None


def equal(a: Entry, b: Entry) -> bool:
    if isinstance(a.value, str) or isinstance(b.value, str):
        return a.value == b.value
    x, y = a.value, b.value
    if x != x or y != y:
        return x != x and y != y
    tol = tolerance(a.decimals, b.decimals)
    if tol is None:
        return abs(x - y) <= FULL_RTOL * max(1.0, abs(x), abs(y))
    return abs(x - y) <= tol * (1 + 1e-9)


def matches(value: float, e: Entry) -> bool:
    """Does a full-precision ``value`` print as ``e`` at ``e``'s precision?"""
    return equal(Entry(e.run, e.measure, e.raw, e.topic, float(value), None, None), e)


@dataclass(frozen=True)
class Difference:
    run: str | None
    measure: str
    topic: str
    a: Entry | None
    b: Entry | None

    @property
    def kind(self) -> str:
        return "value" if self.a is not None and self.b is not None else ("only-a" if self.b is None else "only-b")


@dataclass
class Explanation:
    """Why a measure differs: the candidates reproducing each side and the axes between them."""

    measure: str
    a: list[Candidate]
    b: list[Candidate]
    axes: dict[str, tuple[Any, Any]] = field(default_factory=dict)  # axis -> (value for A, value for B)
    immaterial: list[str] = field(default_factory=list)  # axes on which a side is reproduced either way
    profiles: tuple[str, str] = ("", "")  # the simplest reproducing candidate of each side
    profile_axes: list[str] = field(default_factory=list)  # the measure's axes on which those two differ
    flips: list[list[str]] = field(default_factory=list)  # audit attribution: minimal flips from A's to B's
    note: str = ""

    def summary(self) -> str:
        if self.note:
            return self.note
        if not self.axes:
            return "reproduced by one variant on both sides"
        parts = [f"{k}: {AXES[k].format(va)} -> {AXES[k].format(vb)}" for k, (va, vb) in self.axes.items()]
        text = "; ".join(parts) + f". Simplest: {self.profiles[0]} / {self.profiles[1]}"
        rest = [x for x in self.profile_axes if x not in self.axes]
        if rest:
            text += f" (they also differ on {', '.join(rest)}: no effect on these values)"
        return text

    def as_dict(self) -> dict[str, Any]:
        return {
            "measure": self.measure,
            "axes": {k: [AXES[k].format(va), AXES[k].format(vb)] for k, (va, vb) in self.axes.items()},
            "a": [{"label": c.label, "variant": c.variant} for c in self.a[:5]],
            "b": [{"label": c.label, "variant": c.variant} for c in self.b[:5]],
            "immaterial": self.immaterial,
            "profiles": list(self.profiles),
            "profile_axes": self.profile_axes,
            "minimal_flips": self.flips,
            "summary": self.summary(),
            "note": self.note,
        }


@dataclass
class DiffResult:
    a: ToolOutput
    b: ToolOutput
    compared: int = 0
    differences: list[Difference] = field(default_factory=list)
    only_a: list[str] = field(default_factory=list)  # measures only side A prints
    only_b: list[str] = field(default_factory=list)
    explanations: dict[str, Explanation] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    @property
    def differing_measures(self) -> list[str]:
        return list(dict.fromkeys(d.measure for d in self.differences))

    def verdict(self) -> tuple[int, str]:
        """(exit status, first line): 1 some value differs; 3 nothing was compared (the files
        print no value in common: a diff of unrelated files never reads as agreement); 0 else
        (:data:`auditeval.results.audit.EXIT_STATUSES`)."""
        if self.differences:
            return 1, (f"DIFFERENT: {len(self.differences)} of {self.compared} value(s) differ, in "
                       f"{len(self.differing_measures)} measure(s) (exit 1)")
        if self.compared == 0:
            only = f" ({len(self.only_a)} measure(s) only in A, {len(self.only_b)} only in B)" \
                if self.only_a or self.only_b else ""
            return 3, f"NOTHING COMPARED: the two files print no value in common{only} (exit 3)"
        return 0, f"equal: all {self.compared} value(s) both files print agree at printed precision (exit 0)"

    def to_frame(self):
        """Tidy pandas DataFrame: one row per differing value (run, measure, topic, kind,
        value and printed text on each side, the axes that explain the measure)."""
        import pandas as pd

        rows = []
        for d in self.differences:
            ex = self.explanations.get(d.measure)
            rows.append({"run": d.run, "measure": d.measure, "topic": d.topic, "kind": d.kind,
                         "value_a": None if d.a is None else d.a.value, "printed_a": None if d.a is None else d.a.raw,
                         "value_b": None if d.b is None else d.b.value, "printed_b": None if d.b is None else d.b.raw,
                         "explained_by": None if ex is None else ex.summary()})
        return pd.DataFrame(rows, columns=["run", "measure", "topic", "kind", "value_a", "printed_a", "value_b",
                                           "printed_b", "explained_by"])

    def as_dict(self) -> dict[str, Any]:
        def ent(e: Entry | None):
            return None if e is None else {"value": e.value, "raw": e.raw, "decimals": e.decimals, "line": e.line}

        return {
            "a": {"path": self.a.path, "format": self.a.format},
            "b": {"path": self.b.path, "format": self.b.format},
            "compared": self.compared,
            "equal": not self.differences,
            "differing_measures": self.differing_measures,
            "only_a": self.only_a,
            "only_b": self.only_b,
            "differences": [{"run": d.run, "measure": d.measure, "topic": d.topic, "kind": d.kind,
                             "a": ent(d.a), "b": ent(d.b)} for d in self.differences],
            "explanations": {k: v.as_dict() for k, v in self.explanations.items()},
            "notes": self.notes,
        }


def _pair_runs(a: ToolOutput, b: ToolOutput, notes: list[str]) -> list[tuple[str | None, str | None]]:
    ra, rb = a.runs, b.runs
    if len(ra) == 1 and len(rb) == 1:
        if ra[0] is not None and rb[0] is not None and ra[0] != rb[0]:
            notes.append(f"run {ra[0]!r} of {a.path} compared with run {rb[0]!r} of {b.path}")
        return [(ra[0], rb[0])]
    pairs = [(r, r) for r in ra if r in rb]
    for side, runs, other in ((a, ra, rb), (b, rb, ra)):
        for r in runs:
            if r not in other:
                notes.append(f"{side.path}: run {r!r} has no counterpart in the other file; not compared")
    return pairs


def diff_outputs(a: ToolOutput, b: ToolOutput) -> DiffResult:
    """Every per-topic and aggregate difference between two tool outputs."""
    res = DiffResult(a, b, notes=list(a.notes) + list(b.notes))
    for run_a, run_b in _pair_runs(a, b, res.notes):
        ea = {(e.measure, e.topic): e for e in a.entries if e.run == run_a and e.measure != "runid"}
        eb = {(e.measure, e.topic): e for e in b.entries if e.run == run_b and e.measure != "runid"}
        ma, mb = {k[0] for k in ea}, {k[0] for k in eb}
        res.only_a += sorted(ma - mb)
        res.only_b += sorted(mb - ma)
        common = ma & mb
        per_a = {k[0] for k in ea if k[1] != "all"}
        per_b = {k[0] for k in eb if k[1] != "all"}
        summary_only = sorted(m for m in common if (m in per_a) != (m in per_b))
        if summary_only:  # one side printed the aggregate alone: per-topic values have no counterpart
            side = b.path if any(m in per_a for m in summary_only) else a.path
            res.notes.append(f"{side} prints no per-topic values for {len(summary_only)} measure(s) the other "
                             f"prints per topic ({', '.join(summary_only[:5])}{' ...' if len(summary_only) > 5 else ''}): "
                             "only their aggregates are compared")
        agg_a = {k[0] for k in ea if k[1] == "all"}
        agg_b = {k[0] for k in eb if k[1] == "all"}
        topics_only = sorted(m for m in common if (m in agg_a) != (m in agg_b))
        if topics_only:  # one side printed no aggregate (pytrec_eval's JSON): nothing to compare it with
            side = b.path if any(m in agg_a for m in topics_only) else a.path
            res.notes.append(f"{side} prints no aggregate for {len(topics_only)} measure(s) the other "
                             f"aggregates ({', '.join(topics_only[:5])}{' ...' if len(topics_only) > 5 else ''}): "
                             "only their per-topic values are compared")
        for key in sorted(set(ea) | set(eb), key=lambda k: (k[0], k[1] != "all", k[1].encode("utf-8"))):
            if key[0] not in common or (key[1] != "all" and key[0] in summary_only):
                continue
            if key[1] == "all" and key[0] in topics_only:
                continue
            x, y = ea.get(key), eb.get(key)
            if x is not None and y is not None:
                res.compared += 1
                if equal(x, y):
                    continue
            res.differences.append(Difference(run_a if run_a is not None else run_b, key[0], key[1], x, y))
    if res.only_a or res.only_b:
        res.notes.append(f"measures printed by one side only: {len(res.only_a)} in {a.path}, "
                         f"{len(res.only_b)} in {b.path} (listed, not compared; they are no difference, though with no value in common nothing is compared: exit 3)")
    return res


def _reproducing(ev: Evaluated, entries: Sequence[Entry]) -> np.ndarray:
    """Mask of the candidates that reproduce every entry (and the printed topic set)."""
    ok = np.ones(len(ev.candidates), dtype=bool)
    col = {t: i for i, t in enumerate(ev.topics)}
    per_topic = [e for e in entries if e.topic != "all"]
    for e in entries:
        vals = ev.aggregates if e.topic == "all" else (ev.values[:, col[e.topic]] if e.topic in col else None)
        if vals is None:
            return np.zeros(len(ev.candidates), dtype=bool)
        tol = FULL_RTOL * max(1.0, abs(e.value)) if e.decimals is None else 0.5 * 10.0**-e.decimals * (1 + 1e-9)
        ok &= np.abs(vals - e.value) <= tol
    if per_topic:  # the candidate must evaluate exactly the printed topics
        printed = np.zeros(len(ev.topics), dtype=bool)
        printed[[col[e.topic] for e in per_topic]] = True
        ok &= np.isnan(ev.values[:, ~printed]).all(axis=1)
    return ok


def explain(qrels: Qrels, run: Run, res: DiffResult, max_departures: int = 1,
            progress: Callable[[str], None] | None = None) -> None:
    """Attach an :class:`Explanation` to every differing measure (see the module docstring);
    ``progress(measure)`` is called after each."""
    nat = Native(qrels, [run])  # the audit's door to the engine; its StagedRun serves the search too
    cache: dict = {"staged": nat.staged[0]}
    for m_key in res.differing_measures:
        _explain_one(qrels, run, res, m_key, cache, max_departures, nat)
        if progress is not None:
            progress(m_key)


def _explain_one(qrels: Qrels, run: Run, res: DiffResult, m_key: str, cache: dict, max_departures: int,
                 nat: Native) -> None:
    try:
        m = parse_measure(m_key)
    except AuditEvalError:  # a name no table knows cannot be searched
        res.explanations[m_key] = Explanation(m_key, [], [], note="measure unknown to auditeval; not searched")
        return
    if SPECS[m.name].fmt == "str":
        res.explanations[m_key] = Explanation(m_key, [], [], note="string-valued measure; not searched")
        return
    sides = []
    evs: dict[tuple, Evaluated] = {}
    for out in (res.a, res.b):
        ents = [e for e in out.entries if e.measure == m_key and isinstance(e.value, float)]
        declared = ents[0].declared if ents else ()
        if declared not in evs:
            cands = candidates(m, max_departures, qrels)
            # the tool's name fixes these axes (ranx ndcg_burges: gain=exp2)
            cands = [c for c in cands if all(getattr(c.convention, k) == AXES[k].parse(v) for k, v in declared)]
            evs[declared] = evaluate_candidates(qrels, run, m, cands, cache)
            note = evs[declared].error_note(m)
            if note:
                res.notes.append(note)
        ev = evs[declared]
        sides.append([c for c, ok in zip(ev.candidates, _reproducing(ev, ents), strict=True) if ok])
    ra, rb = sides
    ex = Explanation(m_key, ra, rb)
    if not ra or not rb:
        missing = " and ".join(p for p, r in ((res.a.path, ra), (res.b.path, rb)) if not r)
        ex.note = (f"no candidate (profiles with up to {max_departures} changed "
                   f"{'axis' if max_departures == 1 else 'axes'}) reproduces {missing}")
    else:
        axa = [dict(_variant_axes(c, m)) for c in ra]
        axb = [dict(_variant_axes(c, m)) for c in rb]
        n_ax, _, ia, ib = min((sum(x.get(k) != y.get(k) for k in x.keys() | y.keys()), ia + ib, ia, ib)
                              for ia, x in enumerate(axa) for ib, y in enumerate(axb))
        best = (n_ax, 0, ra[ia], rb[ib])
        ex.axes = _axes(best[2], best[3], m)
        # the simplest reproducing candidate of each side (fewest departures, profile order)
        sa, sb = ra[0], rb[0]
        ex.profiles = (sa.label, sb.label)
        ex.profile_axes = list(_axes(sa, sb, m))
        # the audit's attribution between those two: smallest axis sets whose flip turns A's
        # convention into one giving B's per-topic values (to 1e-12)
        ex.flips = [list(f) for f in minimal_flips(nat, 0, m, sa.convention, sb.convention)]
        ex.immaterial = sorted(
            a for a in AXES if a not in ex.axes
            and any(len({getattr(c.convention, a) for c in side}) > 1 for side in (ra, rb))
            and a in {x for x, _ in _variant_axes(best[2], m)}
        )
    res.explanations[m_key] = ex


def _variant_axes(c: Candidate, m) -> tuple:
    return Variant.of(m, c.convention).axes


def _axes(ca: Candidate, cb: Candidate, m) -> dict[str, tuple[Any, Any]]:
    """The measure's axes on which two candidates differ (the audit's :func:`differing_axes`)."""
    return {k: (getattr(ca.convention, k), getattr(cb.convention, k))
            for k in differing_axes(m, ca.convention, cb.convention)}
