"""Two sets of values that should be the same, compared as ``diff`` compares two tools' outputs,
and their differences explained by axis.

A side is a tool's output file (any format :func:`.tool_output.read_output` reads), a
:class:`~.tool_output.ToolOutput`, or a :class:`~auditeval.results.values.ResultSet`
(:func:`.tool_output.from_result_set`: full precision). Values are aligned by run, measure
and topic and compared at the coarser side's printed precision (:func:`.diff.diff_outputs`).

**Explanation**, per differing measure:

* two result sets carry their variant strings: the axes on which the two sides' variant
  strings differ (:func:`.claim_check.axes_between`); equal variant strings with different
  values mean the inputs or the engines differ, and the message says so;
* a tool's output, given the qrels and the run, is explained by the variant search
  (:func:`.diff.explain`: the candidates reproducing each side, the axes between them);
* with a stated profile (+ settings), each side's departure from its variant string for the
  measure: the axes, or "the stated variant".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from auditeval.results.values import ResultSet, variant_text
from auditeval.verify.claim_check import Point, axes_between, point_of_variant
from auditeval.verify.diff import DiffResult, diff_outputs, explain
from auditeval.verify.tool_output import ToolOutput, canonical, from_result_set, read_output
from auditeval.vocab.conventions import resolve
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.variant import Variant, parse_measure

N_SHOWN = 10  # differing values listed per measure


@dataclass
class Comparison:
    """The aligned differences of two sides and, per differing measure, its explanation lines."""

    result: DiffResult
    why: dict[str, list[str]] = field(default_factory=dict)
    variants: tuple[dict[str, set[str]], dict[str, set[str]]] = ({}, {})  # per side: measure -> variant strings

    @property
    def equal(self) -> bool:
        return self.result.verdict()[0] == 0

    def lines(self) -> list[str]:
        return report_lines(self)


def side(x: Any, name: str) -> tuple[ToolOutput, dict[str, set[str]]]:
    """A side as a tool output and, for a result set, its variant strings per measure key."""
    if isinstance(x, ToolOutput):
        return x, {}
    if isinstance(x, ResultSet):
        out = from_result_set(x, name)
        variants: dict[str, set[str]] = {}
        for v in x.values:
            key = (canonical(v.measure, "auditeval") or (v.measure, ()))[0]
            variants.setdefault(key, set()).add(variant_text(v.variant))
        return out, variants
    return read_output(x), {}


def compare(a: Any, b: Any, profile: str | None = None, settings: tuple[str, ...] = (), qrels: Any = None,
            run: Any = None, departures: int = 1) -> Comparison:
    """Align ``a`` and ``b`` and explain every differing measure (see the module docstring)."""
    (ta, va), (tb, vb) = side(a, "A"), side(b, "B")
    res = diff_outputs(ta, tb)
    cmp = Comparison(res, variants=(va, vb))
    if res.differences and qrels is not None and run is not None and not (va and vb):
        from auditeval.io import qrels_from, run_from

        explain(qrels_from(qrels), run_from(run), res, departures)
    for m in res.differing_measures:
        cmp.why[m] = _why(cmp, m, profile, settings)
    return cmp


def _stated(m_key: str, profile: str, settings: tuple[str, ...]) -> Point | None:
    try:
        m = parse_measure(m_key)
    except AuditEvalError:
        return None
    conv = resolve(profile, list(settings) or None, m)
    return Point(profile, str(Variant.of(m, conv)), m, conv, float("nan"))


def _why(cmp: Comparison, m: str, profile: str | None, settings: tuple[str, ...]) -> list[str]:
    va, vb = (side.get(m, set()) for side in cmp.variants)
    stated = _stated(m, profile, settings) if profile is not None else None
    out = []
    if va and vb:
        if va == vb:
            out.append(f"the same variant string on both sides ({sorted(va)[0]}): the conventions agree, so "
                       "the inputs (qrels, run) or the engines differ")
        else:
            pa, pb = point_of_variant(sorted(va)[0]), point_of_variant(sorted(vb)[0])
            out.append("axes A -> B: " + "; ".join(axes_between(pa, pb)))
    ex = cmp.result.explanations.get(m)
    if ex is not None:
        out.append(f"explained by (axis: A -> B): {ex.summary()}")
    if stated is not None:
        for name, variants, cands in (("A", va, ex.a if ex else []), ("B", vb, ex.b if ex else [])):
            seen = variants or {c.variant for c in cands}
            if stated.variant in seen:
                out.append(f"{name}: the stated variant ({stated.label})")
            elif seen:
                first = next((c for c in cands), None)
                p = point_of_variant(sorted(variants)[0]) if variants else Point(
                    first.label, first.variant, stated.measure, first.convention, float("nan"))
                out.append(f"{name} departs from {stated.label}: " + "; ".join(axes_between(stated, p)))
    return out


def report_lines(cmp: Comparison) -> list[str]:
    """The verdict, then per differing measure its count, aggregates, explanation and the first
    aligned differing values, then the notes."""
    res = cmp.result
    _, head = res.verdict()
    lines = [re.sub(r" \(exit \d\)$", "", head), f"A: {res.a.path} ({res.a.format}); B: {res.b.path} ({res.b.format})"]
    for m in res.differing_measures:
        ds = [d for d in res.differences if d.measure == m]
        agg = next((d for d in ds if d.topic == "all"), None)
        lines.append(f"{m}: {len(ds)} value(s) differ" + (f"; all: A {_shown(agg.a)}, B {_shown(agg.b)}" if agg else ""))
        lines += [f"  {w}" for w in cmp.why.get(m, [])]
        for d in ds[:N_SHOWN]:
            lines.append(f"    {d.topic}: A {_shown(d.a)}, B {_shown(d.b)}")
        if len(ds) > N_SHOWN:
            lines.append(f"    ... and {len(ds) - N_SHOWN} more")
    for side_name, ms in (("A", res.only_a), ("B", res.only_b)):
        if ms:
            lines.append(f"only in {side_name}: {', '.join(ms)}")
    lines += [f"note: {n}" for n in res.notes]
    return lines


def _shown(e) -> str:
    if e is None:
        return "(absent)"
    if isinstance(e.value, str) or e.decimals is None:
        return str(e.value) if isinstance(e.value, str) else repr(e.value)
    return f"{e.value:.{e.decimals}f}"
