"""Depth-k pools, judging cost, reuse and marginal cost.

A run's depth-k contribution is the set of (topic, document) pairs in the first k documents
of each of its topics, ranked by the engine under the profile's rules (:func:`pool_convention`:
``ties``, ``sim``, ``dups``, ``self_hits``; trec_eval sorts by score descending, then docno
descending). The pool of a set of runs is the per-topic union of their contributions.

* unpooled cost = sum over runs and topics of min(k, documents the run retrieved for the topic)
  (N x topics x k when every run retrieves k documents);
* pooled cost = |pool|; reuse rate = 1 - pooled / unpooled;
* marginal cost of a system in an order = pairs it adds that no earlier system contributed.

Random orders are evaluated together: for each pooled pair, the step at which it enters the
pool in order ``o`` is ``min`` over the systems that contain it of their position in ``o``
(:meth:`Pools.entry_steps`); every count then follows from that matrix.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np
import pyarrow as pa

from auditeval.pooling.rankings import Engine, KeySpace, pool_convention, pool_variant
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.model import Qrels, Run


@dataclass(eq=False)
class Pools:
    """Depth-k contributions of several runs, as sorted int64 key arrays in one key space."""

    runs: list[str]
    depth: int
    convention: Convention  # the profile's convention (the pool ranks under pool_convention of it)
    space: KeySpace
    contrib: list[np.ndarray]  # per run: sorted unique keys of its top k
    rows: list[np.ndarray]  # per run: ranked rows per topic code (min(k, retrieved)), len n_topics
    notes: list[str] = field(default_factory=list)

    @property
    def variant(self) -> str:
        return pool_variant(self.convention, self.depth)

    @property
    def n_runs(self) -> int:
        return len(self.runs)

    @cached_property
    def keys(self) -> np.ndarray:
        """The pool: sorted unique keys of every contribution."""
        return unique(np.concatenate(self.contrib)) if self.contrib else np.zeros(0, np.int64)

    @cached_property
    def system_sets(self) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """(set_of_key, member, count): pool keys grouped by the set of systems contributing them.

        ``set_of_key[j]`` indexes the distinct system sets; ``member[i, s]``: system ``s`` is in
        set ``i``; ``count[i]``: keys with that set. A few thousand sets for a dozen systems,
        so per-order work runs over sets, not keys."""
        kidx = np.concatenate([np.searchsorted(self.keys, c) for c in self.contrib]) if self.contrib else np.zeros(0, np.int64)
        system = np.repeat(np.arange(self.n_runs), [len(c) for c in self.contrib])
        order = np.argsort(kidx, kind="stable")
        kidx, system = kidx[order], system[order]
        n_words = max(1, -(-self.n_runs // 63))
        bits = np.zeros((len(self.keys), n_words), np.int64)
        if len(kidx):
            starts = np.flatnonzero(np.r_[True, kidx[1:] != kidx[:-1]])
            for w in range(n_words):  # distinct bits per key: their sum is their OR
                val = np.where(system // 63 == w, np.left_shift(1, system % 63), 0).astype(np.int64)
                bits[:, w] = np.add.reduceat(val, starts)
        sets, set_of_key = np.unique(bits, axis=0, return_inverse=True)
        s = np.arange(self.n_runs)
        member = (np.right_shift(sets[:, s // 63], s % 63) & 1).astype(bool)
        count = np.bincount(set_of_key.ravel(), minlength=len(sets)).astype(np.int64)
        return set_of_key.ravel(), member, count

    # ------------------------------------------------------------------ cost
    def per_topic(self) -> tuple[np.ndarray, np.ndarray]:
        """(pooled, unpooled) cost per topic code."""
        n_t = len(self.space.topics)
        pooled = np.bincount(self.space.topic_of(self.keys), minlength=n_t)
        unpooled = np.sum(self.rows, axis=0) if self.rows else np.zeros(n_t, np.int64)
        return pooled.astype(np.int64), np.asarray(unpooled, np.int64)

    @property
    def unpooled(self) -> int:
        return int(sum(int(r.sum()) for r in self.rows))

    @property
    def pooled(self) -> int:
        return len(self.keys)

    @property
    def reuse(self) -> float:
        return 1.0 - self.pooled / self.unpooled if self.unpooled else 0.0

    def unique(self) -> np.ndarray:
        """Per system: pool pairs no other system contributes (its marginal cost if added last)."""
        _, member, count = self.system_sets
        single = member.sum(axis=1) == 1
        return (member[single] * count[single, None]).sum(axis=0).astype(np.int64)

    def unique_keys(self, members: np.ndarray) -> np.ndarray:
        """Sorted pool keys contributed only by systems in the boolean mask ``members``."""
        set_of_key, member, _ = self.system_sets
        inside = ~(member & ~np.asarray(members, bool)).any(axis=1)
        return self.keys[inside[set_of_key]]

    # ------------------------------------------------------------------ orders
    def set_entry_steps(self, orders: np.ndarray, chunk_cells: int = 20_000_000) -> np.ndarray:
        """``E[o, i]``: 1-based step at which the keys of system set ``i`` enter the pool in
        order ``o``: the minimum over the set's systems of their position in ``o``
        (``np.minimum.reduceat`` over the set memberships, in chunks of orders)."""
        orders = np.atleast_2d(np.asarray(orders, np.int64))
        n_o, n = orders.shape
        dtype = np.int8 if n < 127 else np.int16
        pos = np.empty((n_o, n), dtype)
        pos[np.arange(n_o)[:, None], orders] = np.arange(1, n + 1, dtype=dtype)
        _, member, _ = self.system_sets
        set_idx, system = np.nonzero(member)  # by set, every set has a member
        starts = np.flatnonzero(np.r_[True, set_idx[1:] != set_idx[:-1]])
        out = np.empty((n_o, len(member)), dtype)
        step = max(1, chunk_cells // max(len(system), 1))
        for a in range(0, n_o, step):
            out[a : a + step] = np.minimum.reduceat(pos[a : a + step][:, system], starts, axis=1)
        return out

    def entry_steps(self, orders: np.ndarray) -> np.ndarray:
        """``E[o, j]``: 1-based step at which pool key ``j`` enters the pool in order ``o``."""
        return self.set_entry_steps(orders)[:, self.system_sets[0]]

    def marginal(self, orders: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """(added (O, N): new pairs added at each step, by_system (O, N): each system's marginal cost)."""
        orders = np.atleast_2d(np.asarray(orders, np.int64))
        n_o, n = orders.shape
        e = self.set_entry_steps(orders).astype(np.int64)
        _, _, count = self.system_sets
        flat = (e - 1) + n * np.arange(n_o)[:, None]
        weights = np.broadcast_to(count, e.shape)
        added = np.bincount(flat.ravel(), weights=weights.ravel(), minlength=n_o * n).reshape(n_o, n)
        added = np.rint(added).astype(np.int64)
        by_system = np.empty_like(added)
        by_system[np.arange(n_o)[:, None], orders] = added
        return added, by_system


def random_orders(n_systems: int, n_orders: int, seed: int) -> np.ndarray:
    """(n_orders, n_systems) random permutations from ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    return np.argsort(rng.random((n_orders, n_systems)), axis=1)


def build_pools(
    runs: Sequence[Run], depth: int, conv: Convention, qrels: Qrels | None = None, engine: Engine | None = None
) -> Pools:
    """Rank each run under :func:`pool_convention` and code its top ``depth`` as keys.

    The key space also holds the documents of ``qrels``, so judgments can be looked up in it
    (pairs whose doc is outside the space are outside every pool). ``engine`` (for ``qrels``) lets later evaluations share the ranking."""
    pconv = pool_convention(conv, depth)
    engine = engine or Engine(qrels)
    notes: list[str] = []
    preps = []
    for run in runs:
        p = engine.prepared(run, pconv)
        preps.append(p)
        notes.extend(n for n in p.notes if "below depth" not in n and "without judgments" not in n)
    topic_ids = [str(t) for p in preps for t in p.topics]
    docs = [run.table.column("doc").take(pa.array(p.run_row)) for run, p in zip(runs, preps, strict=True)]
    more = []
    if qrels is not None:
        topic_ids += qrels.table.column("topic").unique().to_pylist()
        more.append(qrels.table.column("doc"))
    space = KeySpace.build(topic_ids, [*docs, *more])
    contrib, rows = [], []
    for p, d in zip(preps, docs, strict=True):
        tmap = space.topic_codes([str(t) for t in p.topics])
        keys = space.keys(tmap[p.row_topic], space.doc_codes(d))
        contrib.append(unique(keys))
        per_topic = np.zeros(len(space.topics), np.int64)
        per_topic[tmap] = p.num_ret
        rows.append(per_topic)
    names = [r.name for r in runs]
    return Pools(names, depth, conv, space, contrib, rows, list(dict.fromkeys(notes)))
