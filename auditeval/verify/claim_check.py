"""One claim held to its run: passes or fails, and a failure explained by its conventions.

A claim (``MAP=0.3066``, :func:`.claims.parse_claim`: read as printed, an interval) is checked

* under a **stated** convention, when one is given: a profile (+ settings, resolved per
  measure as ``eval`` resolves them, :func:`auditeval.vocab.conventions.resolve`) or a
  **locked** variant string (written by ``pytest --auditeval-update``; its axes on the default
  profile). It holds when that variant's aggregate of the claim's first reading lies in the
  printed interval. A profile and a locked variant together also require the profile to
  still give the locked variant string (a profile whose definition moved breaks the lock).
* with nothing stated, by the verify search (:func:`.claims.verify_claim`: every profile with
  up to two changed axes, over the claim's readings): it holds when some variant reproduces
  it; the simplest one is the variant that decided it.

A failure (:meth:`Outcome.message`) is the search's answer: the variants that reproduce the
claim (or the nearest, with their distance to the interval), each with the axes between the
stated variant and it, and the topics whose values move most between the stated variant
(the default profile's when nothing is stated) and the first variant listed. Every value is
the engine's (:func:`.search.evaluate_candidates`); nothing is computed here.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

import numpy as np

from auditeval.api import profile_label
from auditeval.engine import ENGINE
from auditeval.verify.claims import Claim, Found, Verdict, parse_claim, verify_claim
from auditeval.verify.search import Candidate, evaluate_candidates
from auditeval.vocab.conventions import (
    AXES,
    AXIS_ORDER,
    DEFAULT_PROFILE,
    Convention,
    diff,
    load_profile,
    resolve,
)
from auditeval.vocab.errors import InputError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant, parse_variant

N_SHOWN = 5  # variants and topics listed in a failure


@dataclass(frozen=True)
class Stated:
    """The convention a claim states: a profile with settings, and/or a locked variant string."""

    profile: str | None = None
    settings: tuple[str, ...] = ()
    variant: str | None = None

    def __bool__(self) -> bool:
        return self.profile is not None or self.variant is not None


@dataclass(frozen=True)
class Point:
    """The claim's measure under one variant: its label, variant string and aggregate."""

    label: str
    variant: str
    measure: Measure
    convention: Convention
    value: float  # NaN: no value on this input (``why``)
    why: str = ""
    profile: str | None = None  # the profile and settings that give this convention (for eval, card)
    settings: tuple[str, ...] = ()


@dataclass
class Outcome:
    """What checking one claim found (see the module docstring)."""

    claim: Claim
    stated: Point | None  # the stated (or locked) variant's value; None when nothing is stated
    decided: Point | None  # the variant that reproduced the claim; None when it failed
    verdict: Verdict | None = None  # the search (nothing stated, or the stated variant failed)
    reference: Point | None = None  # what the movers are measured from: stated, else the default profile
    movers: list[tuple[str, float, float]] = field(default_factory=list)  # (topic, reference, other)
    mover_label: str = ""  # the variant the movers are measured to
    lock_change: str | None = None  # the profile no longer gives the locked variant string
    engine: str = ENGINE
    notes: list[str] = field(default_factory=list)

    @property
    def passed(self) -> bool:
        return self.decided is not None and self.lock_change is None

    def current(self) -> tuple[str, str] | None:
        """The claim restated at its current value and the variant string to lock (None when
        there is no value): the stated variant's; else the reproducing one (the claim kept as
        printed); else the default profile's."""
        if self.stated is not None:
            p = self.stated
        elif self.decided is not None:
            return self.claim.text, self.decided.variant
        else:
            p = self.reference
        if p is None or math.isnan(p.value):
            return None
        return self.claim.restated(p.value), p.variant

    def message(self) -> str:
        return "\n".join(failure_lines(self))


def check_claim(qrels: Qrels, run: Run, text: str, stated: Stated = Stated(), cache: dict | None = None,
                departures: int = 2, where: str = "claim") -> Outcome:
    """Check the claim ``text`` on ``run`` (see the module docstring); ``cache`` shares the
    engine's stages between claims of the same (qrels, run)."""
    claim = parse_claim(text, where)
    cache = {} if cache is None else cache
    out = Outcome(claim, None, None, notes=list(dict.fromkeys([*qrels.notes, *run.notes])))
    if stated:
        out.stated = out.reference = stated_point(qrels, run, claim, stated, cache, where)
        if stated.profile is not None and stated.variant is not None and stated.variant != out.stated.variant:
            out.lock_change = (f"the locked variant is {stated.variant}; {out.stated.label} now gives "
                               f"{out.stated.variant} (" + "; ".join(axes_between(
                                   point_of_variant(stated.variant), out.stated)) + ")")
        if not math.isnan(out.stated.value) and claim.holds(out.stated.value):
            out.decided = out.stated
            if out.lock_change is None:
                return out
    out.verdict = verify_claim(qrels, run, claim, cache, max(departures, len(stated.settings)))
    out.notes += [n for n in out.verdict.notes if n not in out.notes]
    if not stated and out.verdict.reproduced:
        f = out.verdict.reproduced[0]
        out.decided = _point(f)
        return out
    if out.reference is None:
        out.reference = stated_point(qrels, run, claim, Stated(DEFAULT_PROFILE), cache, where)
    listed = out.verdict.reproduced or out.verdict.nearest
    other = next((f for f in listed if f.candidate.variant != out.reference.variant), None)
    if other is not None and not math.isnan(out.reference.value):
        out.mover_label = other.label
        out.movers = movers(qrels, run, out.reference, _point(other), cache)
    return out


def stated_point(qrels: Qrels, run: Run, claim: Claim, stated: Stated, cache: dict, where: str) -> Point:
    """The claim's first reading under the stated profile (+ settings), or under the locked
    variant string when no profile is stated; its aggregate from the engine (a profile with
    ``print_digits`` rounds it as its tool does)."""
    if stated.profile is not None:
        m = claim.readings[0]
        settings = list(stated.settings) or None
        conv = resolve(stated.profile, settings, m)
        cand = Candidate(profile_label(stated.profile, settings), (), conv, str(Variant.of(m, conv)),
                         load_profile(stated.profile).print_digits)
        named = (stated.profile, tuple(stated.settings))
    else:
        p = point_of_variant(stated.variant, where)
        m, conv = p.measure, p.convention
        if m.name not in {r.name for r in claim.readings}:
            raise InputError(where, None, f"the locked variant's measure {m} is no reading of {claim.measure!r} "
                             f"({', '.join(str(r) for r in claim.readings)})")
        cand = Candidate("the locked variant", (), conv, str(Variant.of(m, conv)))
        named = (DEFAULT_PROFILE, p.settings)
    ev = evaluate_candidates(qrels, run, m, [cand], cache)
    why = next(iter(ev.errors.values()), "")
    if not why and math.isnan(ev.aggregates[0]):
        why = "no aggregate on this input"
    return Point(cand.label, cand.variant, m, conv, float(ev.aggregates[0]), why.splitlines()[0] if why else "",
                 *named)


def point_of_variant(text: str, where: str = "variant") -> Point:
    """A variant string as a point (no value): its measure and its axes on the default profile."""
    try:
        v = parse_variant(text)
    except Exception as exc:  # MeasureSyntaxError, an unknown measure: the locked string is bad input
        raise InputError(where, None, f"locked variant {text!r} does not parse: {str(exc).splitlines()[0]}") from None
    base = resolve(DEFAULT_PROFILE)
    conv = base.replace(**dict(v.axes))
    settings = tuple(f"{a}={AXES[a].format(y)}" for a, (_x, y) in diff(base, conv).items())
    return Point("the locked variant", str(v), v.measure, conv, math.nan, "", DEFAULT_PROFILE, settings)


def _point(f: Found) -> Point:
    c = f.candidate
    return Point(f.label, c.variant, f.measure, c.convention, f.value, "", c.profile, tuple(c.settings))


def axes_between(a: Point, b: Point) -> list[str]:
    """``axis: A -> B`` for every axis on which the two variant strings differ (an axis one of
    them does not read is ``(not read)``), the measure first when the readings differ."""
    va, vb = Variant.of(a.measure, a.convention), Variant.of(b.measure, b.convention)
    out = [f"measure: {va.measure} -> {vb.measure}"] if va.measure != vb.measure else []
    da, db = dict(va.axes), dict(vb.axes)
    for k in AXIS_ORDER:
        if (k in da or k in db) and (k not in da or k not in db or da[k] != db[k]):
            fa = AXES[k].format(da[k]) if k in da else "(not read)"
            fb = AXES[k].format(db[k]) if k in db else "(not read)"
            out.append(f"{k}: {fa} -> {fb}")
    return out


def movers(qrels: Qrels, run: Run, ref: Point, other: Point, cache: dict) -> list[tuple[str, float, float]]:
    """(topic, value under ``ref``, value under ``other``) for the topics either evaluates,
    largest change first (a topic one side does not evaluate: NaN there, listed first)."""
    per = []
    for p in (ref, other):
        ev = evaluate_candidates(qrels, run, p.measure, [Candidate(p.label, (), p.convention, p.variant)], cache)
        per.append(dict(zip(ev.topics, ev.values[0].tolist(), strict=True)))
    topics = sorted(set(per[0]) | set(per[1]), key=lambda s: s.encode("utf-8"))
    rows = [(t, per[0].get(t, math.nan), per[1].get(t, math.nan)) for t in topics]
    rows = [r for r in rows if not (r[1] == r[2] or (math.isnan(r[1]) and math.isnan(r[2])))]
    gap = np.array([math.inf if math.isnan(a - b) else abs(a - b) for _, a, b in rows])
    return [rows[i] for i in np.argsort(-gap, kind="stable")]


def failure_lines(o: Outcome) -> list[str]:
    """The failure's explanation, line by line (see the module docstring)."""
    c = o.claim
    iv = f"[{c.low:.6g}, {c.high:.6g})" + (" (read as a percentage)" if c.percent else "")
    lines = []
    if o.stated is not None:
        got = f"{o.stated.value:.6f}" if not math.isnan(o.stated.value) else f"no value ({o.stated.why})"
        if o.lock_change is not None:
            lines.append(f"{c.text}: lock broken: {o.lock_change}")
        if o.decided is None:
            lines.append(f"{c.text} {iv} not reproduced under {o.stated.label}: {o.stated.measure} = {got}")
        lines.append(f"  stated variant: {o.stated.variant}")
    else:
        lines.append(f"{c.text} {iv} reproduced by no variant searched")
    v = o.verdict
    if v is not None:
        ref = o.reference
        found, what = (v.reproduced, "reproduced by") if v.reproduced else (v.nearest, "the nearest of")
        lines.append(f"{what} the {v.searched} variants searched (profiles with up to 2 changed axes, readings "
                     f"{', '.join(str(m) for m in c.readings)}), simplest first:")
        for i, f in enumerate(found[:N_SHOWN], 1):
            dist = "" if f.distance == 0 else f", distance {f.distance:.6f}"
            lines.append(f"  {i}. {f.label}: {f.value:.6f}{dist}")
            lines.append(f"     variant: {f.candidate.variant}")
            if ref is not None:
                ax = axes_between(ref, _point(f))
                lines.append(f"     axes from {ref.label}: {'; '.join(ax) if ax else 'none (the same variant)'}")
        if len(found) > N_SHOWN:
            lines.append(f"  ... and {len(found) - N_SHOWN} more")
        if not found:
            lines.append("  (no variant could be evaluated on this input)")
    if o.movers:
        lines.append(f"topics that move the value most, {o.reference.label} -> {o.mover_label} "
                     f"({len(o.movers)} topic(s) change):")
        for t, a, b in o.movers[:N_SHOWN]:
            lines.append(f"  {t}: {_num(a)} -> {_num(b)}" + ("" if math.isnan(a - b) else f" ({b - a:+.6f})"))
    lines += [f"note: {n}" for n in o.notes]
    lines.append(f"engine: {o.engine}")
    return lines


def _num(x: float) -> str:
    return "(not evaluated)" if math.isnan(x) else f"{x:.6f}"
