"""Agreement: a reference tool's values against the native engine under the same variant.

Doubles (Python tools) must agree per topic to 1e-12 and in the aggregate to 1e-12; printed
text (trec_eval binaries, 4 decimals) must equal the native value printed the same way, per
topic and in the aggregate. Per-topic values of geometric-mean measures compare floored
(``max(x, gm_floor)``: pytrec_eval returns their logs, the adapter takes exp).

A disagreement is then explained, if possible, in one of two ways:

1. one axis set to another value reproduces the tool exactly: the tool does not behave as its
   profile says on this input, and the report names the axis and value;
2. every topic that differs lies inside its tie envelope (:mod:`.tie_envelope`) under the profile:
   the tool orders tied documents by a rule none of the named ``ties`` values describes
   (ranx's unstable numba quicksort is one).

Otherwise it is a ``MISMATCH`` and the audit exits 1.

A measure with topics of no value (spec ``agg="mean-defined"``: the native engine leaves them
out) agrees on such a topic with a tool that reports NaN there (pyndeval's nNRBP, 0 / 0 where
the ideal's NRBP is 0); the tool's mean, NaN as it averages those in, is then said, not compared.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from auditeval.adapters.base import Adapter
from auditeval.auditing.attribution import axis_values
from auditeval.auditing.defects import DEFECTS, Evidence, known_defect
from auditeval.auditing.native import Native, TopicValues, floor_for
from auditeval.auditing.tie_envelope import envelope
from auditeval.vocab.conventions import AXES, Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import fold, variant_axes

TOL = 1e-12


def printed(x: float, digits: int) -> str:
    return f"{x:.{digits}f}"


def like(x: float, text: str, digits: int) -> str:
    """``x`` printed as the tool printed ``text``: with its number of decimals (trec_eval
    prints counts such as ``num_rel_ret`` as integers, ``10``, and rates with 4 decimals)."""
    if isinstance(text, str) and text.lstrip("-").isdigit():
        return printed(x, 0)
    if x != x and isinstance(text, str) and text.lstrip("-") == "nan":  # C's printf says -nan for 0/0
        return text
    return printed(x, digits)


def matches(a: Adapter, tool: dict[str, Any], tv: TopicValues, m: Measure, conv: Convention) -> tuple[bool, str, int, float | None]:
    """(agree, detail, topics compared, largest per-topic difference) of a tool value and a native one."""
    if not tv.ok:
        return False, f"native engine refuses: {tv.error}", 0, None
    topics = tool.get("topics", {})
    mine = tv.as_dict()
    floor = floor_for(m, conv)
    if floor is not None:
        mine = {t: max(v, floor) for t, v in mine.items()}
    undefined = _undefined_both(m, topics, mine)
    topics = {t: v for t, v in topics.items() if t not in undefined}
    only_tool = sorted(set(topics) - set(mine))
    only_native = sorted(set(mine) - set(topics))
    if a.exposes_per_topic:
        if only_tool or only_native:
            return False, _topic_sets(only_tool, only_native), len(mine), None
        theirs = np.array([float(topics[t]) for t in mine]) if mine else np.zeros(0)
        ours = np.array(list(mine.values()), dtype=np.float64)
        diffs = np.abs(theirs - ours)
        both_nan = np.isnan(theirs) & np.isnan(ours)  # -nan where trec_eval divides 0 by 0: the same
        worst = float(np.nanmax(diffs)) if len(diffs) and not np.isnan(diffs).all() else float("nan")
        bad = int(((diffs > TOL) | (np.isnan(diffs) & ~both_nan)).sum())  # one side NaN: they differ
        agg_t, agg_n = tool.get("aggregate"), tv.aggregate
        if undefined and agg_t is not None and float(agg_t) != float(agg_t):
            agg_t = None  # the tool's mean averages in its NaN topics: said below, not compared
        agg_bad = agg_t is not None and agg_n is not None and not abs(float(agg_t) - agg_n) <= TOL
        agg_bad = agg_bad and not (float(agg_t) != float(agg_t) and agg_n != agg_n)  # NaN both sides: agree
        if bad or agg_bad:
            largest = f"largest {worst:.3g}" if worst == worst and worst > TOL else "each a NaN on one side"
            detail = f"{bad} topic(s) differ by more than {TOL:g} ({largest})" if bad else ""
            if agg_bad:
                detail += ("; " if detail else "") + f"aggregate {float(agg_t)!r} vs {agg_n!r}"
            detail += _impossible(m, topics)
            return False, detail, len(mine), worst if worst == worst else None
        return (True, f"{len(mine)} topics, doubles to {TOL:g}" + _undefined_detail(undefined, tool), len(mine),
                worst if worst == worst else None)
    digits = a.printed_digits or 4
    topics = {t: v if isinstance(v, str) else printed(float(v), digits) for t, v in topics.items()}
    topics_shown = set(topics)
    if m.name in a.summary_only and not topics:  # nothing per topic to compare: the aggregate alone
        agg_t = tool.get("aggregate")
        if agg_t is not None and tv.aggregate is not None and like(tv.aggregate, agg_t, digits) != agg_t:
            return False, f"aggregate {agg_t} vs {like(tv.aggregate, agg_t, digits)}", len(mine), None
        return True, f"aggregate only, as printed ({agg_t}; the tool prints no per-topic value)", len(mine), None
    if floor is None:  # trec_eval prints per-topic values of every measure but the gm_* ones
        if only_tool or only_native:
            return False, _topic_sets(only_tool, only_native), len(mine), None
        bad = [t for t in mine if like(mine[t], topics[t], digits) != topics[t]]
    else:
        bad = [t for t in topics_shown if t in mine and like(mine[t], topics[t], digits) != topics[t]]
    agg_t = tool.get("aggregate")
    if a.mean_of_printed and agg_t is not None and tv.aggregate is not None:
        # the mean of values rounded to `digits` decimals lies within half a unit of the exact mean
        agg_bad = abs(float(agg_t) - tv.aggregate) > 0.5 * 10.0 ** -digits + TOL
        agg_t = printed(float(agg_t), digits + 2)
    else:
        agg_bad = agg_t is not None and tv.aggregate is not None and like(tv.aggregate, agg_t, digits) != agg_t
    if bad or agg_bad:
        detail = (f"{len(bad)} topic(s) differ as printed (e.g. topic {bad[0]}: {topics[bad[0]]} vs "
                  f"{like(mine[bad[0]], topics[bad[0]], digits)})") if bad else ""
        if agg_bad:
            detail += ("; " if detail else "") + f"aggregate {agg_t} vs {like(tv.aggregate, agg_t, digits)}"
        return False, detail, len(mine), None
    ints = bool(topics) and all(isinstance(v, str) and v.lstrip("-").isdigit() for v in topics.values())
    return True, f"{len(mine)} topics, as printed ({'integers' if ints else f'{digits} dp'})", len(mine), None


def _undefined_both(m: Measure, topics: dict[str, Any], mine: dict[str, float]) -> list[str]:
    """Topics of a ``mean-defined`` measure with no native value where the tool reports NaN."""
    spec = SPECS.get(m.name)
    if spec is None or spec.agg != "mean-defined":
        return []
    return sorted(t for t in set(topics) - set(mine) if _is_nan(topics[t]))


def _is_nan(v: Any) -> bool:
    try:
        return float(v) != float(v)
    except (TypeError, ValueError):
        return False


def _undefined_detail(undefined: list[str], tool: dict[str, Any]) -> str:
    if not undefined:
        return ""
    agg = tool.get("aggregate")
    mean = "; its mean is NaN (it averages them in)" if agg is not None and _is_nan(agg) else ""
    return f"; {len(undefined)} topic(s) without a value on both sides (the tool's NaN, e.g. {undefined[0]}){mean}"


def _bounded(m: Measure) -> bool:
    """Every per-topic value of ``m`` lies in [0, 1] whatever the conventions (spec ``bounded``)."""
    spec = SPECS.get(m.name)
    return spec is not None and spec.bounded


def _impossible(m: Measure, topics: dict[str, Any]) -> str:
    """``; N value(s) outside [0, 1] ...`` when the tool reports impossible values of ``m``."""
    if not _bounded(m):
        return ""
    vals = [(t, float(v)) for t, v in topics.items()]
    nan = [t for t, v in vals if v != v]
    out = [(t, v) for t, v in vals if v == v and not 0.0 <= v <= 1.0]
    parts = []
    if out:
        t, v = max(out, key=lambda x: abs(x[1] - 0.5))
        parts.append(f"{len(out)} value(s) outside [0, 1] (topic {t}: {v:.4g})")
    if nan:
        parts.append(f"NaN for {len(nan)} topic(s) (e.g. {nan[0]})")
    return f"; the tool reports {' and '.join(parts)}, impossible for {m.name}" if parts else ""


def _tool_defect(a: Adapter, topics: dict[str, Any], tv: TopicValues, m: Measure) -> str:
    """The explanation when every differing topic is one where the tool reports NaN or, for a
    measure bounded by [0, 1], a value outside it, while the native value is a number: the
    tool's own defect (ir_measures' trectools provider gives NaN nDCG@k where DCG@k is 0)."""
    mine = tv.as_dict()
    differ = [t for t, v in topics.items() if not abs(float(v) - mine[t]) <= TOL]
    broken = [t for t in differ if float(topics[t]) != float(topics[t])
              or (_bounded(m) and not 0.0 <= float(topics[t]) <= 1.0)]
    if not differ or len(broken) != len(differ) or any(mine[t] != mine[t] for t in broken):
        return ""
    natives = sorted({round(mine[t], 6) for t in broken})
    shown = f"{natives[0]:g}" if len(natives) == 1 else f"{natives[0]:g} to {natives[-1]:g}"
    return (f"tool defect: {a.name}'s impossible values stand where the native engine has {shown} "
            f"({len(broken)} topic(s), e.g. {broken[0]}); every other topic agrees")


def _empty_topics_absent(nat: Native, ri: int, a: Adapter, tool: dict[str, Any], m: Measure, conv: Convention) -> str:
    """The explanation when the tool lacks exactly some of the run's empty topics (an in-memory
    run's topic with no result: a TREC file cannot hold a topic without lines, so a tool that
    reads the file never sees it) and agrees on every other topic; else ''."""
    empty = set(nat.runs[ri].empty_topics)
    tv = nat.get(ri, m, conv)
    if not empty or not tv.ok:
        return ""
    theirs = set(tool.get("topics", {}))
    lacking = [t for t in tv.topics.tolist() if t not in theirs]
    if not lacking or not set(lacking) <= empty:
        return ""
    keep = np.array([t in theirs for t in tv.topics.tolist()], dtype=bool)
    rest = TopicValues(tv.variant, tv.topics[keep], tv.values[keep], None)
    ok, detail, n, _ = matches(a, {"topics": tool.get("topics", {}), "aggregate": None}, rest, m, conv)
    if not ok:
        return ""
    return (f"{len(lacking)} topic(s) empty in the run ({', '.join(lacking[:5])}) are not in the file {a.name} read "
            f"(a TREC run file cannot hold a topic with no lines; the native engine evaluates them as empty rankings, "
            f"as pytrec_eval's dict API does); the other {n} topic(s) agree ({detail})")


def _known_defect(nat: Native, ri: int, a: Adapter, topics: dict[str, Any], tv: TopicValues, m: Measure,
                  conv: Convention) -> str:
    """A known defect of the tool (:mod:`.defects`) that accounts for every differing topic, or ''."""
    if not any(d.tool == a.name and d.measure == m.name for d in DEFECTS):
        return ""
    p = nat.prepared(ri, conv, m)
    rel = fold(m, conv)[1].rel
    order = tv.topics.tolist()
    idx = {t: i for i, t in enumerate(p.topics.tolist())}
    at = np.array([idx[t] for t in order], dtype=np.int64)
    ev = Evidence(order, np.array([float(topics[t]) for t in order]), np.asarray(tv.values, dtype=np.float64),
                  p.num_rel(rel)[at], p.num_judged_nonrel(rel)[at])
    return known_defect(a.name, m.name, ev)


def _topic_sets(only_tool: list[str], only_native: list[str]) -> str:
    parts = []
    if only_tool:
        parts.append(f"{len(only_tool)} topic(s) only in the tool ({', '.join(only_tool[:5])})")
    if only_native:
        parts.append(f"{len(only_native)} topic(s) only in the native engine ({', '.join(only_native[:5])})")
    return "; ".join(parts)


def explain(nat: Native, ri: int, a: Adapter, tool: dict[str, Any], m: Measure, conv: Convention,
            max_grade: int) -> tuple[Convention | None, str]:
    """(convention that reproduces the tool, or None; explanation or '') for a disagreement."""
    absent = _empty_topics_absent(nat, ri, a, tool, m, conv)
    if absent:
        return None, absent
    m2, c2 = fold(m, conv)
    for axis in variant_axes(m2, c2.depth, c2.topics, c2.rel):
        if axis == "rel" and m.param("rel") is not None:
            continue
        for value in axis_values(axis, conv, max_grade)[1:]:
            c1 = conv.replace(**{axis: value})
            ok, _, _, _ = matches(a, tool, nat.get(ri, m, c1), m, c1)
            if ok:
                return c1, (f"reproduced natively with {axis}={AXES[axis].format(value)} instead of the profile's "
                            f"{AXES[axis].format(getattr(conv, axis))}: {a.name} does not behave as its profile says here")
    tv = nat.get(ri, m, conv)
    topics = tool.get("topics", {})
    if not tv.ok or not a.exposes_per_topic or set(topics) != set(tv.topics.tolist()):
        return None, ""
    defect = _known_defect(nat, ri, a, topics, tv, m, conv) or _tool_defect(a, topics, tv, m)
    if defect:
        return None, defect
    env = envelope(nat.prepared(ri, conv, m), nat.runs[ri], m, conv)
    idx = {t: i for i, t in enumerate(env.topics.tolist())}
    floor = floor_for(m, conv)
    outside, moved = [], 0
    for t, v in topics.items():
        i = idx[t]
        lo, hi, base = env.minimum[i], env.maximum[i], env.value[i]
        if floor is not None:
            lo, hi, base = max(lo, floor), max(hi, floor), max(base, floor)
        if abs(float(v) - base) > TOL:
            moved += 1
            if not (lo - TOL <= float(v) <= hi + TOL):
                outside.append(t)
    if moved and not outside:
        return None, (f"ties: {moved} topic(s) differ and every one lies within its tie envelope: {a.name} orders tied "
                      "documents by none of the named tie rules (e.g. an unstable sort)")
    return None, ""
