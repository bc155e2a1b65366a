"""The engine's lists of many runs against one qrels, and the integer key space of pairs.

* :class:`Engine`: one :class:`~auditeval.engine.StagedRun` per run for one qrels, so a
  run's depth-k pool ranking and every evaluation of it share the join and the sort. Values
  on (relabelled) lists come from the engine's :func:`~auditeval.engine.measure_on`, which
  applies every spec wrapper as ``auditeval eval`` does.
* :func:`pool_convention` is the convention a depth-k pool is ranked under: the profile's
  tie rule, score precision, duplicate and self-hit rules, with ``depth=K``,
  ``topics=run`` (every run topic, judged or not) and ``unjudged=nonrel`` (nothing dropped).
* :class:`KeySpace` codes (topic, document) pairs as int64 keys ``topic * n_docs + doc``
  (topics in byte order, as trec_eval's strcmp), so pools are sorted int64 arrays and
  every set operation is a numpy one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import pyarrow as pa

from auditeval.engine import Prepared, StagedRun
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.conventions import AXES, Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run, qrels_table
from auditeval.vocab.variant import Variant, fold

# Axes that decide which documents make a run's top k (and so the pool).
POOL_AXES = ("depth", "dups", "self_hits", "sim", "ties")

NO_QRELS = Qrels(qrels_table([], [], []), source="<no qrels>")


class Engine:
    """The engine's ranked, judged lists of several runs against one qrels (none: an empty
    qrels, for pools alone). Holds one :class:`StagedRun` per run while it lives."""

    def __init__(self, qrels: Qrels | None = None):
        self.qrels = NO_QRELS if qrels is None else qrels
        self._staged: dict[int, StagedRun] = {}

    def prepared(self, run: Run, conv: Convention, measure: Measure | None = None) -> Prepared:
        s = self._staged.get(id(run))
        if s is None or s.run is not run:
            s = self._staged[id(run)] = StagedRun(self.qrels, run)
        return s.prepared(conv, measure)

    def for_measure(self, run: Run, measure: Measure, conv: Convention) -> Prepared:
        """The lists for evaluating ``measure`` (its convention-like parameters folded in)."""
        return self.prepared(run, fold(measure, conv)[1], measure)


def pool_convention(conv: Convention, depth: int) -> Convention:
    """The profile's ranking rules with ``depth``, every run topic kept, nothing dropped."""
    return conv.replace(depth=depth, topics="run", unjudged="nonrel")


def pool_variant(conv: Convention, depth: int) -> str:
    """``pool|depth=K|dups=...|self_hits=...|sim=...|ties=...``: what made the pool."""
    c = pool_convention(conv, depth)
    return "|".join(["pool"] + [f"{a}={AXES[a].format(getattr(c, a))}" for a in POOL_AXES])


def variant_of(measure: Measure, conv: Convention) -> str:
    return str(Variant.of(measure, conv))


@dataclass(eq=False)
class KeySpace:
    """(topic, doc) pairs as int64 keys: ``topic_code * n_docs + doc_code``.

    ``topics``: every topic id, byte order; ``docs``: the doc dictionary (Arrow strings).
    """

    topics: list[str]
    docs: pa.Array

    @classmethod
    def build(cls, topic_ids: Sequence[str], doc_arrays: Sequence[pa.Array | pa.ChunkedArray]) -> KeySpace:
        topics = sorted(set(topic_ids), key=lambda s: s.encode("utf-8"))
        chunks = [c for a in doc_arrays for c in (a.chunks if isinstance(a, pa.ChunkedArray) else [a])]
        docs = pc.unique(pa.chunked_array(chunks, pa.string())) if chunks else pa.array([], pa.string())
        if isinstance(docs, pa.ChunkedArray):
            docs = docs.combine_chunks()
        return cls(topics, docs)

    @property
    def n_docs(self) -> int:
        return max(len(self.docs), 1)

    def topic_codes(self, ids: Sequence[str]) -> np.ndarray:
        code = {t: i for i, t in enumerate(self.topics)}
        return np.array([code[t] for t in ids], dtype=np.int64)

    def doc_codes(self, docs: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Code of each doc; -1 for a doc outside the dictionary."""
        if len(docs) == 0:
            return np.zeros(0, np.int64)
        return pc.fill_null(pc.index_in(docs, value_set=self.docs), -1).to_numpy().astype(np.int64)

    def keys(self, tcode: np.ndarray, dcode: np.ndarray) -> np.ndarray:
        """Keys of pairs; -1 where the doc is outside the dictionary."""
        return np.where(dcode >= 0, tcode * self.n_docs + dcode, -1)

    def encode(self, topics: pa.Array | pa.ChunkedArray, docs: pa.Array | pa.ChunkedArray) -> np.ndarray:
        """Keys of string pairs (topics must be known; unknown docs give -1)."""
        tvals = pa.array(self.topics, pa.string())
        tcode = pc.fill_null(pc.index_in(topics, value_set=tvals), -1).to_numpy().astype(np.int64)
        keys = self.keys(tcode, self.doc_codes(docs))
        return np.where(tcode >= 0, keys, -1)

    def decode(self, keys: np.ndarray) -> tuple[list[str], list[str]]:
        """Topic and doc ids of keys (lists of str, in key order)."""
        keys = np.asarray(keys, np.int64)
        t = keys // self.n_docs
        d = keys % self.n_docs
        topics = np.array(self.topics, dtype=object)[t].tolist() if len(keys) else []
        return topics, self.docs.take(pa.array(d)).to_pylist()

    def topic_of(self, keys: np.ndarray) -> np.ndarray:
        return np.asarray(keys, np.int64) // self.n_docs


def in_sorted(values: np.ndarray, sorted_set: np.ndarray) -> np.ndarray:
    """Mask: which ``values`` occur in the sorted unique array ``sorted_set``."""
    if len(sorted_set) == 0 or len(values) == 0:
        return np.zeros(len(values), bool)
    pos = np.minimum(np.searchsorted(sorted_set, values), len(sorted_set) - 1)
    return sorted_set[pos] == values
