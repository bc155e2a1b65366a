"""A note when tied scores can change a measure: the tie rule (axis ``ties``) then decides.

Tied block: consecutive ranked documents of one topic with equal scores (as the ``sim``
axis stores them: float32 under trec_eval 9 / pytrec_eval). A block is *mixed* when its
documents are not interchangeable for the measure: a relevant and a non-relevant one
(grade >= ``rel`` or not) for binary measures, different grades (unjudged read as 0) for
graded ones (nDCG, RBP, ...), two documents one of which is relevant for measures that read
which documents are where (spec ``reads_ids``: Compat, the intent-aware measures). A topic counts for a measure when a mixed block

* straddles the cut-off k (ranks k and k+1 in one block) for measures that count the top k
  as a set (spec ``ties_effect="set-at-k"``: P, R, Success, RelP, Judged, Unj), or
* starts within the top k for the other cut measures (AP@k, nDCG@k, RR@k: the order inside
  the top k matters), or
* exists anywhere in the ranking for uncut measures,

and, for measures only the block holding the first relevant document can change (spec
``ties_effect="first-relevant"``: RR), is that block.

Measures whose variant does not read ``ties`` (order-free counts) never get a note. The
count is an upper bound on the topics whose value another tie rule changes; the exact
range per topic is the audit's tie envelope.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from auditeval.engine import Prepared, staged_for, tied_blocks
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import fold, variant_axes


def tie_counts(qrels: Qrels, run: Run, measures: Sequence[tuple[str, Measure]], conv: Convention) -> list[tuple[str, int, int]]:
    """(label, topics where ties can change the measure, topics evaluated) per measure."""
    return [(label, n, of) for label, n, of, _ in tie_summary(qrels, run, measures, conv, ranges=False)]


def tie_summary(
    qrels: Qrels, run: Run, measures: Sequence[tuple[str, Measure]], conv: Convention, ranges: bool = True,
    cache: dict | None = None,
) -> list[tuple[str, int, int, tuple[float, float] | None]]:
    """Per measure: (label, topics ties can change, topics evaluated, range of the mean).

    The range is the exact minimum and maximum of the aggregate over every ordering of the
    tied documents (:func:`auditeval.auditing.tie_envelope.envelope`), for the measures whose envelope
    is exact (P, R, AP, nDCG, RR) and that ties can change; None otherwise. ``cache``: the
    dict given to :func:`auditeval.api.evaluate` for this run, to reuse its stages."""
    staged = staged_for(qrels, run, cache)
    seen: list[_Blocks] = []
    out = []
    for label, m in measures:
        m2, c2 = fold(m, conv)
        axes = variant_axes(m2, c2.depth, c2.topics, c2.rel)
        if "ties" not in axes:
            continue
        p = staged.prepared(c2, m2)
        b = next((x for x in seen if x.p is p), None)
        if b is None:
            b = _Blocks(p, run)
            seen.append(b)
        if len(b.first) == 0:
            out.append((label, 0, b.p.n_topics, None))
            continue
        mixed = b.with_relevant(c2.rel) if SPECS[m2.name].reads_ids else b.mixed(c2.rel if "rel" in axes else None)
        effect = SPECS[m2.name].ties_effect
        if effect == "first-relevant":  # only the block of the first relevant document matters
            mixed = mixed & b.holds_first_relevant(c2.rel)
        k = m2.cutoff if isinstance(m2.cutoff, int) else None
        if k is None:
            hit = mixed
        elif effect == "set-at-k":
            hit = mixed & (b.rank_first <= k) & (b.rank_last > k)
        else:
            hit = mixed & (b.rank_first <= k)
        n = int(unique(b.topic_first[hit]).size)
        out.append((label, n, b.p.n_topics, _range(p, run, m, conv) if ranges and n else None))
    return out


def _range(p, run: Run, m: Measure, conv: Convention) -> tuple[float, float] | None:
    from auditeval.auditing.tie_envelope import envelope, exact_envelope

    if not exact_envelope(fold(m, conv)[0]) or m.param("gains") is not None:
        return None
    env = envelope(p, run, m, conv)
    lo, hi = env.agg[1], env.agg[2]
    return None if lo is None or hi is None else (float(lo), float(hi))


class _Blocks:
    """Tied blocks of one prepared ranking, and which of them mix relevance (cached)."""

    def __init__(self, p: Prepared, run: Run):
        self.p = p
        n = len(p.grade)
        topic = p.row_topic
        blocks = tied_blocks(p, run, p.convention.sim)  # the engine's blocks (its float32 rule)
        self.first = blocks.start
        self.start = np.zeros(n, bool)
        self.start[self.first] = True
        size = np.diff(np.append(self.first, n))
        self.rank_first = p.rank[self.first] if n else np.zeros(0, np.int64)
        self.rank_last = self.rank_first + size - 1
        self.topic_first = topic[self.first] if n else np.zeros(0, np.int32)
        self._mixed: dict = {}

    def mixed(self, rel: int | None) -> np.ndarray:
        """Blocks holding a relevant and a non-relevant document (``rel`` given) or two grades."""
        if rel not in self._mixed:
            g = self.p.rel_mask(rel).view(np.int8) if rel is not None else np.maximum(self.p.grade, 0)
            m = np.minimum.reduceat(g, self.first) != np.maximum.reduceat(g, self.first)
            self._mixed[rel] = m
        return self._mixed[rel]

    def with_relevant(self, rel: int) -> np.ndarray:
        """Blocks of two or more documents holding a relevant one: for measures that read which
        documents are where (spec ``reads_ids``: Compat, the intent-aware ones), two relevant
        documents of one grade are not interchangeable either."""
        key = ("ids", rel)
        if key not in self._mixed:
            g = self.p.rel_mask(rel).view(np.int8)
            size = np.diff(np.append(self.first, len(self.p.grade)))
            self._mixed[key] = (size >= 2) & (np.maximum.reduceat(g, self.first) > 0)
        return self._mixed[key]

    def holds_first_relevant(self, rel: int) -> np.ndarray:
        mask = self.p.rel_mask(rel)
        rows = np.flatnonzero(mask)
        out = np.zeros(len(self.first), bool)
        if len(rows):
            topic = self.p.row_topic
            is_first = np.ones(len(rows), bool)
            is_first[1:] = topic[rows[1:]] != topic[rows[:-1]]
            block = np.cumsum(self.start) - 1
            out[block[rows[is_first]]] = True
        return out


def _span(lo: float, hi: float) -> str:
    """``[lo, hi]`` to 4 decimals, or to as many more (up to 8) as it takes to tell them apart."""
    for d in range(4, 9):
        a, b = f"{lo:.{d}f}", f"{hi:.{d}f}"
        if a != b:
            break
    return f"[{a}, {b}]"


def tie_note(run_name: str, counts: list[tuple], ties: str) -> str | None:
    """One note per run naming each measure that ties can change, or None. ``counts`` rows are
    (label, topics, of) or (label, topics, of, range); measures without a range are grouped
    by topic count, a range is printed as ``mean in [lo, hi] over tie orders``."""
    groups: dict[tuple[int, int], list[str]] = {}
    parts = []
    for label, c, t, *rest in counts:
        if not c:
            continue
        rng = rest[0] if rest else None
        if rng is not None:
            parts.append(f"{label} in {c} of {t} topic(s) (mean in {_span(*rng)} over tie orders)")
        else:
            groups.setdefault((c, t), []).append(label)
    parts += [f"{', '.join(labels)} in {c} of {t} topic(s)" for (c, t), labels in groups.items()]
    if not parts:
        return None
    return (
        f"{run_name}: tied scores mix documents of different relevance where the order matters for "
        + "; ".join(parts)
        + f" (ordered by ties={ties}; another tie rule can change these values)"
    )
