"""Pool-growth stability: does the order of systems survive the pool growing as they arrive?

Simulation (frozen labels, in the spirit of Zobel 1998 and Voorhees 2018): draw random
addition orders of the systems; in order ``o`` after ``s`` systems the pool is the union of
their depth-k contributions, and the qrels are the judgments of the pairs in that pool (pairs
outside it are unjudged, so non-relevant under ``unjudged=nonrel``). At each step every
system added so far is evaluated on those labels. A pair (a, b) *reverses at a step* when
both are present and (score_a - score_b) * (final_a - final_b) < 0, the final scores being
those on the whole simulated pool (all systems). Reported per pair: the share of orders in
which it reverses at some step, the mean number of such steps, and the final gap.

The final scores are against the simulated pool's qrels, not the qrels given: they are printed
under :meth:`GrowthReport.final_variant`, the measure's variant string plus
``|qrels=pool(K,#H:-J/N)`` (``H`` hashes the pool string) (:class:`auditeval.results.subset.QrelsChange`: the ``J`` of
the ``N`` judgments outside the depth-k pool of all the runs removed). A user comparing with
``eval`` reads ``qrels_final``: the same runs on the qrels given, under the plain variant string
(equal to ``eval``'s means); with every judgment inside the pool (``J`` = 0) the two agree.

Speed: the step at which each judged pair enters the pool (:meth:`~.pools.Pools.set_entry_steps`) is
computed once for all orders; each run's relevant ranked rows are extracted once from the
engine's lists (:mod:`.frozen_labels`) and, for AP, P, R, RR and Success under ``unjudged=nonrel``
(ranks never move), every (order, step) is evaluated from them at once. These sums add the
same terms in the same order as the engine's measure functions (the engine's
:func:`~auditeval.engine.growth_means`), so the values are
bit-identical (``tests/pooling/test_pool_robust03.py::test_growth_fast_sums_equal_the_engine_path`` compares with the engine). Other measures (or
``unjudged=drop``) are evaluated by the engine on relabelled lists, once per distinct set of
systems: exact, slower.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from auditeval.engine import growth_means, measure_on
from auditeval.pooling.frozen_labels import Judged, QrelsKeys, judge_runs, relabel
from auditeval.pooling.pools import build_pools, random_orders
from auditeval.pooling.rankings import Engine, in_sorted, variant_of
from auditeval.results.subset import QrelsChange, pool_what
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import SPECS


@dataclass(eq=False)
class GrowthReport:
    runs: list[str]
    measure: Measure
    variant: str
    pool_variant: str
    orders: np.ndarray  # (O, S) system indices in order of addition
    scores: np.ndarray  # (O, S, S): order, step (0-based: after step+1 systems), run; NaN before the run is added
    seed: int
    method: str  # "frozen-label sums" or "engine on relabelled lists"
    notes: list[str] = field(default_factory=list)
    qrels_final: np.ndarray | None = None  # (S,) every run on the qrels given (eval's means)
    outside: int = 0  # judgments outside the pool of all the runs
    judgments: int = 0  # judgments in the (deduplicated) qrels

    @property
    def final(self) -> np.ndarray:
        """(S,) every run on the pool of all the runs (frozen labels): see :meth:`final_variant`."""
        return self.scores[0, -1]

    def qrels_change(self) -> QrelsChange:
        """The qrels the simulated scores are computed against at the last step."""
        return QrelsChange("pool", pool_what(self.pool_variant), self.outside, self.judgments,
                           "judgments outside the depth-k pool of all the runs removed (unjudged)")

    def final_variant(self) -> str:
        """``variant|qrels=pool(...:-J/N)``: the variant text of :attr:`final`."""
        return self.qrels_change().variant(self.variant)

    def to_frame(self):
        """Tidy pandas DataFrame: one row per (order, step, run present at that step): the
        run's score on the pool of the first ``systems`` systems of that order."""
        import pandas as pd

        o, k, s = np.nonzero(~np.isnan(self.scores))
        return pd.DataFrame({"order": o, "systems": k + 1, "run": np.array(self.runs, dtype=object)[s],
                             "measure": str(self.measure), "variant": self.variant, "value": self.scores[o, k, s]})

    def pairs(self) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
        """(a, b, share of orders reversing at some step, mean reversed steps), pairs a < b."""
        n = len(self.runs)
        a, b = np.triu_indices(n, 1)
        d = self.scores[:, :, a] - self.scores[:, :, b]  # NaN where a run is absent
        f = self.final[a] - self.final[b]
        with np.errstate(invalid="ignore"):
            rev = (d * f) < 0
        return a, b, rev.any(axis=1).mean(axis=0), rev.sum(axis=1).mean(axis=0)

    def reversed_share_by_step(self) -> np.ndarray:
        """Per step: the mean over orders of the share of present pairs that are reversed."""
        n = len(self.runs)
        a, b = np.triu_indices(n, 1)
        d = self.scores[:, :, a] - self.scores[:, :, b]
        f = self.final[a] - self.final[b]
        present = ~np.isnan(d)
        with np.errstate(invalid="ignore"):
            rev = ((d * f) < 0).sum(axis=2)
        n_present = present.sum(axis=2)
        return np.where(n_present > 0, rev / np.maximum(n_present, 1), 0.0).mean(axis=0)


def pool_growth(
    qrels: Qrels,
    runs: Sequence[Run],
    depth: int,
    conv: Convention,
    measure: Measure,
    n_orders: int = 500,
    seed: int = 0,
    orders: np.ndarray | None = None,
    via_engine: bool = False,
    backend=None,  # noqa: ANN001 - an auditeval.execution Backend
) -> GrowthReport:
    """Simulate pool growth over ``n_orders`` random orders (or the given ``orders``);
    ``via_engine=True`` evaluates every step through the engine even where the fast sums apply.
    The orders are drawn here, once (one stream: ``random_orders(n, n_orders, seed)``), then
    evaluated in blocks of :data:`ORDER_BLOCK` (:func:`growth_block`; on ``backend`` when
    given: ``share(value)`` and ``map(fn, shared, items, labels)`` in item order,
    :mod:`auditeval.execution`); every order's scores are its own, so the blocks do not change them."""
    engine = Engine(qrels)
    pools = build_pools(runs, depth, conv, qrels, engine=engine)
    q = QrelsKeys.of(qrels, pools.space, conv.dups)
    judged = judge_runs(engine, runs, measure, conv, pools.space, q)
    del engine  # the staged stages are no longer needed: only the lists are
    n = len(runs)
    orders = random_orders(n, n_orders, seed) if orders is None else np.atleast_2d(np.asarray(orders, np.int64))
    e_set = pools.set_entry_steps(orders)
    set_of_key, _, _ = pools.system_sets
    in_pool = in_sorted(q.key, pools.keys)
    q_set = np.full(len(q.key), -1, np.int64)
    q_set[in_pool] = set_of_key[np.searchsorted(pools.keys, q.key[in_pool])]
    notes = list(pools.notes)
    outside = int((~in_pool).sum())
    if outside:
        notes.append(f"{outside} judged pair(s) lie outside the depth-{depth} pool of these runs: "
                     "never judged in the simulation")
    c2 = judged[0].conv if judged else conv
    fast = SPECS[measure.name].growth_sum and c2.unjudged == "nonrel" and not via_engine
    pos = np.empty_like(orders)
    pos[np.arange(len(orders))[:, None], orders] = np.arange(1, n + 1)
    shared = GrowthShared(judged, q, q_set, pools.system_sets[1], n, bool(fast))
    blocks = [(orders[k:k + ORDER_BLOCK], e_set[k:k + ORDER_BLOCK], pos[k:k + ORDER_BLOCK])
              for k in range(0, len(orders), ORDER_BLOCK)]
    if backend is None:
        parts = [growth_block(shared, b) for b in blocks]
    else:
        labels = [f"orders {k * ORDER_BLOCK + 1}-{k * ORDER_BLOCK + len(b[0])}" for k, b in enumerate(blocks)]
        parts = list(backend.map(growth_block, backend.share(shared), blocks, labels))
    scores = np.concatenate(parts, axis=0) if parts else np.empty((0, n, n))
    method = "frozen-label sums" if fast else "engine on relabelled lists"
    steps = np.arange(1, n + 1)
    absent = pos[:, None, :] > steps[None, :, None]
    scores[absent] = np.nan
    notes.extend(_emptied_note(judged, q, q_set, e_set, n))
    qrels_final = np.array([measure_on(j.p, j.measure, j.conv)[1] for j in judged])
    return GrowthReport([r.name for r in runs], measure, variant_of(measure, conv), pools.variant, orders,
                        scores, seed, method, notes, qrels_final, outside, len(q.key))


ORDER_BLOCK = 64
"""Orders per task (:func:`growth_block`): a fixed constant, whatever the backend."""


@dataclass(frozen=True)
class GrowthShared:
    """What every block of orders reads: each run's judged lists, the qrels keys, the system
    set of each qrels entry, the set membership matrix, the number of runs, the fast path."""

    judged: list[Judged]
    q: QrelsKeys
    q_set: np.ndarray
    member: np.ndarray
    n: int
    fast: bool


def growth_block(shared: GrowthShared, block: tuple[np.ndarray, np.ndarray, np.ndarray]) -> np.ndarray:
    """``(O_b, n, n)`` scores of the block's orders ``(orders, entry steps, positions)``: the
    frozen-label sums per run, or the engine on relabelled lists."""
    orders, e_set, pos = block
    s = shared
    if s.fast:
        r_cache: dict[bytes, np.ndarray] = {}
        return np.stack([_fast_scores(j, s.q, s.q_set, e_set, s.n, r_cache, pos[:, i])
                         for i, j in enumerate(s.judged)], axis=2)
    return _engine_scores(s.judged, s.q, s.q_set, s.member, orders)


def _visible_steps(q_set: np.ndarray, e_set: np.ndarray, qidx: np.ndarray, n: int) -> np.ndarray:
    """(O, len(qidx)) step at which each qrels entry enters the pool (n + 1: never)."""
    s = q_set[qidx]
    return np.where(s >= 0, e_set[:, np.maximum(s, 0)], np.asarray(n + 1, e_set.dtype))


def _step_counts(e: np.ndarray, topic: np.ndarray, n_t: int, n: int) -> np.ndarray:
    """(O, n_t, n): entries of each topic in the pool after each step (from entry steps ``e``)."""
    n_o = e.shape[0]
    ids = ((np.arange(n_o)[:, None] * n_t + topic[None, :]) * (n + 1) + (e.astype(np.int64) - 1)).ravel()
    c = np.bincount(ids, minlength=n_o * n_t * (n + 1)).reshape(n_o, n_t, n + 1)[:, :, :n]
    return np.cumsum(c, axis=2)


def _fast_scores(j: Judged, q: QrelsKeys, q_set: np.ndarray, e_set: np.ndarray, n: int,
                 r_cache: dict[bytes, np.ndarray], run_pos: np.ndarray) -> np.ndarray:
    """(O, n) aggregate of the measure after each step, from the run's relevant rows; NaN
    at steps before the run joins (``run_pos``: its 1-based position in each order).

    Relevant rows that never enter the pool are dropped first: they add no term and no
    count (ranks come from the full list, so nothing else moves)."""
    p, m, c = j.p, j.measure, j.conv
    k = None if m.cutoff is None else int(m.cutoff)
    n_t = p.n_topics
    row_q = np.full(len(p.grade), -1, np.int64)
    row_q[j.judged_rows] = j.row_q
    rows, t, r = p.rows_where(p.rel_mask(c.rel), k)
    rq = row_q[rows]  # relevant rows are judged: rq >= 0
    pooled = q_set[rq] >= 0
    t, r, rq = t[pooled], r[pooled], rq[pooled]
    e_rows = _visible_steps(q_set, e_set, rq, n)
    hits_by_step = _step_counts(e_rows, t, n_t, n)
    key = j.q_pos.tobytes() + str(c.rel).encode()
    if key not in r_cache:  # R after each step: shared by runs evaluated on the same topics
        rel_q = np.flatnonzero((j.q_pos >= 0) & (q.grade >= c.rel) & (q_set >= 0))
        r_cache[key] = _step_counts(_visible_steps(q_set, e_set, rel_q, n), j.q_pos[rel_q], n_t, n)
    r_by_step = r_cache[key]
    return growth_means(m, c, t, r, e_rows, hits_by_step, r_by_step, run_pos, n_t, n)


def _engine_scores(judged: list[Judged], q: QrelsKeys, q_set: np.ndarray, member: np.ndarray,
                   orders: np.ndarray) -> np.ndarray:
    """Engine evaluation on relabelled lists, once per distinct set of systems in the pool."""
    n_o, n = orders.shape
    out = np.empty((n_o, n, n))
    cache: dict[bytes, np.ndarray] = {}
    for o in range(n_o):
        chosen = np.zeros(n, bool)
        for s in range(n):
            chosen[orders[o, s]] = True
            key = chosen.tobytes()
            if key not in cache:
                seen = (member & chosen).any(axis=1)
                hidden = (q_set < 0) | ~seen[np.maximum(q_set, 0)]
                cache[key] = np.array([measure_on(relabel(j, q, hidden), j.measure, j.conv)[1] for j in judged])
            out[o, s] = cache[key]
    return out


def _emptied_note(judged: list[Judged], q: QrelsKeys, q_set: np.ndarray, e_set: np.ndarray, n: int) -> list[str]:
    """Say when some evaluated topic had no judgment in the grown pool yet (kept, all unjudged)."""
    if not judged:
        return []
    j = judged[0]
    valid = np.flatnonzero(j.q_pos >= 0)
    topics_with_qrels = unique(j.q_pos[valid])
    # step at which each topic gets its first judgment, per order: min over the system sets of
    # its pooled entries (distinct (topic, set) pairs: few, whatever the number of entries)
    n_sets = e_set.shape[1]
    pooled = valid[q_set[valid] >= 0]
    u = unique(j.q_pos[pooled] * n_sets + q_set[pooled])
    ut, us = u // n_sets, u % n_sets
    first = np.full((e_set.shape[0], len(topics_with_qrels)), n + 1, np.int64)
    if len(u):
        starts = np.flatnonzero(np.r_[True, ut[1:] != ut[:-1]])
        first[:, np.searchsorted(topics_with_qrels, ut[starts])] = np.minimum.reduceat(e_set[:, us], starts, axis=1)
    e = e_set
    late = (first > 1).any(axis=1)
    if not late.any():
        return []
    return [f"{int(late.sum())} of {e.shape[0]} order(s) begin with topic(s) of run {j.run!r} that have no judgment "
            f"in the pool yet (for up to {int(first.max()) - 1} step(s)); such topics stay evaluated, every document "
            "unjudged (the engine on those qrels would not evaluate them under topics=both)"]
