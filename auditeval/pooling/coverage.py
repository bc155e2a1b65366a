"""Coverage of runs by existing judgments, and the pairs still to judge.

* ``Judged@k`` per run comes from the engine (its variant names the ``judged_denom`` and
  ``negatives`` conventions: trec_eval 10 ``judged`` divides by k; a negative-grade qrels
  entry under ``negatives=pooled`` is pooled but not judged).
* unjudged pairs in a run's top k: pairs of its depth-k contribution without a label, over
  every run topic (topics without any judgment included);
* to do: the union of those pairs over the runs, the judgments a pool still needs.

A pair counts as judged when the qrels (or the store) hold a label for it; a negative qrels
grade counts as judged only under ``negatives=nonrel`` (as the engine reads it).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np
import pyarrow as pa

from auditeval.engine import measure_on
from auditeval.pooling.pools import Pools, build_pools
from auditeval.pooling.rankings import Engine, in_sorted, variant_of
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import parse_measure


def judged_keys(pools: Pools, qrels: Qrels | None, conv: Convention, extra: Sequence[tuple[pa.Array, pa.Array]] = ()) -> np.ndarray:
    """Sorted keys of the pairs that hold a label (qrels entries per ``negatives``; ``extra`` pairs)."""
    parts = []
    if qrels is not None:
        t = qrels.table
        keys = pools.space.encode(t.column("topic"), t.column("doc"))
        if conv.negatives == "pooled":
            keys = keys[t.column("grade").to_numpy() >= 0]
        parts.append(keys)
    for topics, docs in extra:
        parts.append(pools.space.encode(topics, docs))
    if not parts:
        return np.zeros(0, np.int64)
    k = unique(np.concatenate(parts))
    return k[k >= 0]


def todo_keys(pools: Pools, judged: np.ndarray) -> np.ndarray:
    """Pool keys without a label, sorted (by topic, then doc dictionary code)."""
    return pools.keys[~in_sorted(pools.keys, judged)]


def todo_pairs(pools: Pools, judged: np.ndarray) -> tuple[list[str], list[str]]:
    """The unlabelled pool pairs as (topics, docs), sorted by topic (byte order) then doc id."""
    topics, docs = pools.space.decode(todo_keys(pools, judged))
    order = sorted(range(len(topics)), key=lambda i: (topics[i].encode("utf-8"), docs[i].encode("utf-8")))
    return [topics[i] for i in order], [docs[i] for i in order]


@dataclass(eq=False)
class Coverage:
    runs: list[str]
    depth: int
    pool_variant: str
    judged_measure: str
    judged_variant: str
    judged_at_k: list[float | None]  # engine Judged@k aggregate per run (None: no evaluated topic)
    unjudged: np.ndarray  # per run: pairs of its top k without a label
    contributed: np.ndarray  # per run: pairs in its top k
    todo: tuple[list[str], list[str]]
    notes: list[str] = field(default_factory=list)

    def to_frame(self):
        """Tidy pandas DataFrame: one row per run: pool pairs of its top ``depth``, how many
        have no label, and its Judged@k with the variant."""
        import pandas as pd

        return pd.DataFrame({"run": self.runs, "depth": self.depth, "contributed": self.contributed,
                             "unjudged": self.unjudged, "measure": self.judged_measure,
                             "variant": self.judged_variant, "value": self.judged_at_k})


def pool_coverage(qrels: Qrels, runs: Sequence[Run], depth: int, conv: Convention) -> Coverage:
    engine = Engine(qrels)
    pools = build_pools(runs, depth, conv, qrels, engine=engine)
    judged = judged_keys(pools, qrels, conv)
    m: Measure = parse_measure(f"Judged@{depth}")
    values: list[float | None] = []
    notes = list(pools.notes)
    for run in runs:
        p = engine.for_measure(run, m, conv)
        values.append(measure_on(p, m, conv)[1] if p.n_topics else None)
        notes.extend(n for n in p.notes if "without judgments not evaluated" in n)
    unjudged = np.array([int((~in_sorted(c, judged)).sum()) for c in pools.contrib], np.int64)
    return Coverage(
        runs=pools.runs, depth=depth, pool_variant=pools.variant, judged_measure=str(m),
        judged_variant=variant_of(m, conv), judged_at_k=values, unjudged=unjudged,
        contributed=np.array([len(c) for c in pools.contrib], np.int64), todo=todo_pairs(pools, judged),
        notes=list(dict.fromkeys(notes)),
    )
