"""Attribution: which axes explain a difference between two engines.

For two conventions A and B (two engines' profiles, or a profile and the chosen one), the
axes that can matter are those the measure reads (its variant axes) on which A and B
differ. :func:`minimal_flips` searches their subsets, smallest first, for the sets S such
that A with S set to B's values reproduces B's per-topic values natively (to 1e-12); the
search runs both ways (A -> B and B -> A). Then per axis of the first minimal set, the
topics that axis alone moves are described by :mod:`.evidence`.

:func:`compare` gives topics moved and the largest per-topic change between two results;
:func:`axis_values` the values the sensitivity sweep tries per axis.
"""

from __future__ import annotations

from itertools import combinations
from typing import Any

import numpy as np

from auditeval.auditing import evidence
from auditeval.auditing.native import Native, TopicValues, same
from auditeval.vocab.conventions import AXES, Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import fold, variant_axes

MAX_AXES = 8  # largest difference searched exhaustively (2^8 - 1 subsets)
EVIDENCE_TOPICS = 3


def differing_axes(m: Measure, ca: Convention, cb: Convention) -> list[str]:
    """Axes ``m`` reads (under either convention) on which ``ca`` and ``cb`` differ."""
    m2, a2 = fold(m, ca)
    _, b2 = fold(m, cb)
    read = set(variant_axes(m2, a2.depth, a2.topics, a2.rel)) | set(variant_axes(m2, b2.depth, b2.topics, b2.rel))
    return [ax for ax in AXES if ax in read and getattr(a2, ax) != getattr(b2, ax)]


def flip(c: Convention, axes: tuple[str, ...] | list[str], to: Convention) -> Convention:
    return c.replace(**{a: getattr(to, a) for a in axes})


def minimal_flips(nat: Native, ri: int, m: Measure, ca: Convention, cb: Convention) -> list[tuple[str, ...]]:
    """Smallest axis sets S with native(A + S from B) == native(B); [] if none (or too many axes)."""
    target = nat.get(ri, m, cb)
    axes = differing_axes(m, ca, cb)
    if len(axes) > MAX_AXES:
        axes = axes[:MAX_AXES]
    for size in range(1, len(axes) + 1):
        found = [s for s in combinations(axes, size) if same(nat.get(ri, m, flip(ca, s, cb)), target)]
        if found:
            return found
    return []


def compare(a: TopicValues, b: TopicValues, tol: float = 1e-12) -> tuple[int, str, float | None]:
    """(topics moved, topic with the largest change, that change b - a) between two results.

    String values (relstring) move when they differ; the topic is the first that moved and the
    change ``None`` (no difference of strings)."""
    if not (a.ok and b.ok):
        return 0, "", None
    if a.is_text or b.is_text:
        da, db = a.as_dict(), b.as_dict()
        moved_t = [t for t in dict.fromkeys([*da, *db]) if da.get(t) != db.get(t)]
        return len(moved_t), (str(moved_t[0]) if moved_t else ""), (None if moved_t else 0.0)
    if len(a.topics) == len(b.topics) and np.array_equal(a.topics, b.topics):
        diff = b.values - a.values
        changed = np.abs(diff) > tol
        if not changed.any():
            return 0, "", 0.0
        i = int(np.argmax(np.abs(diff)))
        return int(changed.sum()), str(a.topics[i]), float(diff[i])
    da, db = a.as_dict(), b.as_dict()
    moved = len(set(da) ^ set(db))
    common = [t for t in da if t in db]
    if not common:
        return moved, "", None
    va = np.array([da[t] for t in common])
    vb = np.array([db[t] for t in common])
    diff = vb - va
    changed = np.abs(diff) > tol
    moved += int(changed.sum())
    if not changed.any():
        return moved, "", 0.0
    i = int(np.argmax(np.abs(diff)))
    return moved, str(common[i]), float(diff[i])


def topic_evidence(nat: Native, ri: int, m: Measure, ca: Convention, flips: tuple[str, ...], cb: Convention,
                   limit: int = EVIDENCE_TOPICS) -> list[str]:
    """Evidence lines for each axis of ``flips`` (A -> A with that axis from B)."""
    base = nat.get(ri, m, ca)
    out: list[str] = []
    for axis in flips:
        c1 = flip(ca, (axis,), cb)
        alone = nat.get(ri, m, c1)
        together = same(base, alone) and len(flips) > 1
        if together:  # the axis matters only together with the others of the set
            c1 = flip(ca, flips, cb)
            alone = nat.get(ri, m, c1)
            others = ", ".join(x for x in flips if x != axis)
            out.append(f"{axis}: moves no topic alone here; together with {others} it does (below: the topics "
                       f"where {axis} itself shows)")
        if not (base.ok and alone.ok):
            out.append(f"{axis}: {base.error or alone.error}")
            continue
        da, db = base.as_dict(), alone.as_dict()
        topics = sorted(set(da) | set(db), key=lambda t: (-_gap(da.get(t), db.get(t)), t))  # largest change first
        topics = [t for t in topics if _gap(da.get(t), db.get(t)) > 1e-12]
        if not topics and axis == "gm_floor":  # per-topic values equal; the floor acts in the aggregate
            ca2, cb2 = fold(m, ca)[1], fold(m, c1)[1]
            low = [t for t, v in da.items() if v < max(ca2.gm_floor, cb2.gm_floor)]
            out += [f"gm_floor: topic {t}: {m} {da[t]:.4g} is floored at {ca2.gm_floor!r} vs {cb2.gm_floor!r} before "
                    "the geometric mean" for t in low[:limit]]
            continue
        if not topics:
            continue
        pa_, pb = nat.prepared(ri, ca, m), nat.prepared(ri, c1, m)
        run = nat.runs[ri]
        if together:  # only the topics where this axis's own describer finds its effect
            topics = [t for t in topics if evidence.describe(axis, t, run, pa_, pb, fold(m, ca)[1], fold(m, c1)[1])]
        for t in topics[:limit]:
            out.append(f"{axis}: " + evidence.explain(axis, t, run, pa_, pb, fold(m, ca)[1], fold(m, c1)[1],
                                                       da.get(t), db.get(t), str(m)))
        if len(topics) > limit:
            out.append(f"{axis}: ... {len(topics) - limit} more topic(s) moved")
    return out


def _gap(a: float | None, b: float | None) -> float:
    if a is None or b is None:
        return np.inf
    return abs(a - b)


def axis_values(axis: str, base: Convention, max_grade: int) -> list[Any]:
    """Values the sensitivity sweep tries for ``axis`` (the base value first)."""
    ax = AXES[axis]
    mine = getattr(base, axis)
    if ax.kind == "enum":
        vals = list(ax.values)
    elif axis == "rel":
        vals = list(range(1, max(max_grade, 1) + 1))
    elif axis == "depth":
        vals = ["all", 1000, 100, 10]
    elif axis == "gm_floor":
        vals = [1e-05, 0.001]
    elif axis == "rbp_p":
        vals = [0.5, 0.8, 0.9, 0.95]
    else:  # pragma: no cover - every numeric axis is listed above
        vals = [mine]
    return [mine] + [v for v in vals if v != mine]
