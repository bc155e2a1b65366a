"""Pool bias: leave one group of systems out of the pool (Zobel 1998; Buckley et al. 2007).

For each group ``g`` (a family of runs: one team, one model family; default one group per
run), the pairs only ``g``'s runs put into the depth-k pool are its *unique contributions*.
Removing them from the qrels (treated as unjudged: ``NONPOOL``) simulates a pool built
without ``g``; every run is re-evaluated on those frozen labels (:mod:`.frozen_labels`). Reported:

* the classic count of unique relevant documents ``g`` contributed (grade >= ``rel``);
* per group its largest score penalty: max over ``g``'s runs of full - reduced score;
* pairwise ranking swaps: pairs (a, b) with (full_a - full_b) * (reduced_a - reduced_b) < 0;
* which swaps fall within bootstrap noise: the pair's swap probability on the full qrels
  (:func:`auditeval.stats.swap_probabilities`, paired topic bootstrap over the topics every
  run is evaluated on) is at least ``alpha``.

The full scores are ``eval``'s under the measure's variant string (:meth:`BiasReport.variants`);
the scores without group ``g`` are against other qrels and are printed under
:meth:`BiasReport.reduced_variant`: that string plus ``|qrels=without(g:-J/N)``
(:class:`auditeval.results.subset.QrelsChange`: ``J`` of the ``N`` judgments removed; the
topics evaluated stay those of the full qrels), so they never pass as ``eval``'s numbers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from auditeval.engine import measure_on
from auditeval.io.files import read_text
from auditeval.pooling.frozen_labels import (
    Judged,
    QrelsKeys,
    emptied_topics,
    hidden_mask,
    judge_runs,
    relabel,
)
from auditeval.pooling.pools import build_pools
from auditeval.pooling.rankings import Engine, variant_of
from auditeval.results.subset import QrelsChange
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import InputError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run


def read_groups(path: str | Path, runs: Sequence[str]) -> tuple[dict[str, str], list[str]]:
    """``run,group`` lines (``#`` comments and blank lines skipped; a ``run,group`` header is
    allowed) -> ({run: group}, notes). Runs not listed form a group of their own."""
    known = set(runs)
    groups: dict[str, str] = {}
    name = str(path)
    text = read_text(path)  # the checked opener: path[:line]: reason
    for i, line in enumerate(text.splitlines(), 1):
        s = line.strip()
        if not s or s.startswith("#"):
            continue
        parts = [x.strip() for x in s.split(",")]
        if len(parts) != 2 or not all(parts):
            raise InputError(name, i, f"expected 'run,group', found {s!r}")
        run, group = parts
        if i == 1 and (run, group) == ("run", "group") and "run" not in known:
            continue
        if run not in known:
            raise InputError(name, i, f"run {run!r} is not among the runs given ({', '.join(sorted(known))})")
        if run in groups:
            raise InputError(name, i, f"run {run!r} listed twice")
        groups[run] = group
    notes = []
    alone = [r for r in runs if r not in groups]
    if alone:
        notes.append(f"{name}: {len(alone)} run(s) not listed form a group each: {', '.join(alone)}")
        groups.update({r: r for r in alone})
    return groups, notes


@dataclass(eq=False)
class BiasReport:
    runs: list[str]
    groups: list[str]
    group_of: np.ndarray  # group index per run
    pool_variant: str
    measures: list[Measure]
    variants: list[str]
    full: np.ndarray  # (M, S) scores on the full qrels
    reduced: np.ndarray  # (M, G, S) scores without each group's unique contributions
    swap_prob: np.ndarray  # (M, S, S)
    unique_pairs: np.ndarray  # (G,) pool pairs only the group contributed
    unique_judged: np.ndarray  # (G,) of those, judged in the qrels
    unique_relevant: np.ndarray  # (G,) of those, relevant (grade >= rel)
    rel: int
    alpha: float
    trials: int
    seed: int
    bootstrap_topics: int
    judgments: int = 0  # judgments in the (deduplicated) qrels
    notes: list[str] = field(default_factory=list)

    def qrels_change(self, g: int) -> QrelsChange:
        """The qrels the scores without group ``g`` are computed against."""
        return QrelsChange("without", self.groups[g], int(self.unique_judged[g]), self.judgments,
                           f"the judgments only group {self.groups[g]!r} put into the pool removed (unjudged)")

    def reduced_variant(self, m: int, g: int) -> str:
        """The variant text of measure ``m``'s scores without group ``g``:
        ``variants[m]|qrels=without(g:-J/N)``."""
        return self.qrels_change(g).variant(self.variants[m])

    def members(self, g: int) -> np.ndarray:
        return np.flatnonzero(self.group_of == g)

    def to_frame(self):
        """Tidy pandas DataFrame: one row per (measure, left-out group, run): the run's score
        on the full qrels and without the group's unique judgments, with the variant."""
        import pandas as pd

        rows = [{"run": run, "group": group, "own_group": self.groups[int(self.group_of[s])] == group,
                 "measure": str(m), "variant": self.variants[i], "full": float(self.full[i, s]),
                 "variant_reduced": self.reduced_variant(i, g),
                 "reduced": float(self.reduced[i, g, s]), "penalty": float(self.full[i, s] - self.reduced[i, g, s])}
                for i, m in enumerate(self.measures) for g, group in enumerate(self.groups)
                for s, run in enumerate(self.runs)]
        return pd.DataFrame(rows, columns=["run", "group", "own_group", "measure", "variant", "full",
                                           "variant_reduced", "reduced", "penalty"])

    def largest_penalty(self, m: int, g: int) -> tuple[int, float]:
        """(run index, full - reduced) of the group's run that loses most."""
        idx = self.members(g)
        pen = self.full[m, idx] - self.reduced[m, g, idx]
        k = int(np.argmax(pen))
        return int(idx[k]), float(pen[k])

    def swaps(self, m: int, g: int) -> list[tuple[int, int]]:
        """Pairs (a, b), a < b, whose order reverses without the group's unique pairs."""
        f, r = self.full[m], self.reduced[m, g]
        a, b = np.triu_indices(len(self.runs), 1)
        rev = (f[a] - f[b]) * (r[a] - r[b]) < 0
        return list(zip(a[rev].tolist(), b[rev].tolist(), strict=True))


@dataclass(frozen=True)
class BiasShared:
    """What each run's task reads: the qrels keys, each group's hidden judgments, the measure,
    the convention, and whether to list the topics a group's removal empties (first measure)."""

    q: QrelsKeys
    hidden: list[np.ndarray]
    measure: Measure
    conv: Convention
    lost: bool


@dataclass
class BiasPart:
    """One run under one measure: the full score and per-topic values, the score without
    each group, and the topics each group's removal leaves without a judgment."""

    full: float
    per_topic: dict[str, float]
    reduced: np.ndarray
    lost: list[list[str]]


def bias_run(shared: BiasShared, j: Judged) -> BiasPart:
    """One run's full and leave-one-group-out scores (:func:`auditeval.engine.measure_on` on
    the run's lists and on their frozen relabellings)."""
    s = shared
    pt, agg = measure_on(j.p, s.measure, s.conv)
    reduced = np.array([measure_on(relabel(j, s.q, h), s.measure, s.conv)[1] for h in s.hidden], dtype=np.float64)
    lost = [emptied_topics(j, h) if s.lost else [] for h in s.hidden]
    return BiasPart(agg, dict(zip(j.p.topics.tolist(), pt.tolist(), strict=True)), reduced, lost)


def pool_bias(
    qrels: Qrels,
    runs: Sequence[Run],
    depth: int,
    conv: Convention,
    measures: Sequence[Measure],
    groups: dict[str, str] | None = None,
    trials: int = 1000,
    seed: int = 0,
    alpha: float = 0.05,
    backend=None,  # noqa: ANN001 - an auditeval.execution Backend
) -> BiasReport:
    """Leave each group out (see the module docstring). Each run's re-evaluations are one
    task (:func:`bias_run`; on ``backend`` when given: ``share(value)`` and ``map(fn, shared,
    items, labels)`` in item order, :mod:`auditeval.execution`); the report does not depend on it."""
    from auditeval.stats import swap_probabilities

    names = [r.name for r in runs]
    groups = groups or {n: n for n in names}
    labels = list(dict.fromkeys(groups[n] for n in names))
    group_of = np.array([labels.index(groups[n]) for n in names], np.int64)
    engine = Engine(qrels)
    pools = build_pools(runs, depth, conv, qrels, engine=engine)
    notes = list(pools.notes)
    q = QrelsKeys.of(qrels, pools.space, conv.dups)
    n_g, n_s, n_m = len(labels), len(runs), len(measures)
    hidden = []
    u_pairs, u_judged, u_rel = (np.zeros(n_g, np.int64) for _ in range(3))
    for g in range(n_g):
        uk = pools.unique_keys(group_of == g)
        h = hidden_mask(q, uk)
        hidden.append(h)
        u_pairs[g], u_judged[g], u_rel[g] = len(uk), int(h.sum()), int((q.grade[h] >= conv.rel).sum())
    full = np.zeros((n_m, n_s))
    reduced = np.zeros((n_m, n_g, n_s))
    swap = np.zeros((n_m, n_s, n_s))
    n_boot = 0
    for mi, m in enumerate(measures):
        judged = judge_runs(engine, runs, m, conv, pools.space, q)
        shared = BiasShared(q, hidden, m, conv, mi == 0)
        if backend is None:
            parts = [bias_run(shared, j) for j in judged]
        else:
            parts = list(backend.map(bias_run, backend.share(shared), judged, [f"{m} on {j.run}" for j in judged]))
        per_topic = []
        for si, (j, part) in enumerate(zip(judged, parts, strict=True)):
            full[mi, si] = part.full
            per_topic.append(part.per_topic)
            reduced[mi, :, si] = part.reduced
            for g, lost in enumerate(part.lost):
                if lost:
                    notes.append(f"without group {labels[g]!r}, run {j.run!r} keeps {len(lost)} topic(s) with no "
                                 f"judgment left (evaluated, all unjudged): {', '.join(lost[:5])}")
        common = sorted(set.intersection(*(set(d) for d in per_topic)), key=lambda s: s.encode("utf-8"))
        if len(common) < max(len(d) for d in per_topic):
            notes.append(f"{m}: bootstrap over the {len(common)} topic(s) every run is evaluated on")
        n_boot = len(common)
        if common:
            scores = np.array([[d[t] for t in common] for d in per_topic])
            swap[mi] = swap_probabilities(scores, trials, seed)
    return BiasReport(
        runs=names, groups=labels, group_of=group_of, pool_variant=pools.variant, measures=list(measures),
        variants=[variant_of(m, conv) for m in measures], full=full, reduced=reduced, swap_prob=swap,
        unique_pairs=u_pairs, unique_judged=u_judged, unique_relevant=u_rel, rel=conv.rel,
        alpha=alpha, trials=trials, seed=seed, bootstrap_topics=n_boot, judgments=len(q.key),
        notes=list(dict.fromkeys(notes)),
    )
