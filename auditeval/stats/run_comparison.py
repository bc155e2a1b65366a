"""Everything ``auditeval compare`` reports for one measure, as plain JSON-ready data.

:func:`analyze` takes a :class:`~auditeval.stats.matrix.MeasureMatrix` (and optionally the
same runs under a second qrels) and returns a dict; every renderer (text, Markdown, JSON,
LaTeX, plots) reads only that dict. Streams (see :mod:`auditeval.stats.rng`), all named by
the measure's variant string so measures never share or shift draws:

* ``("bootstrap", variant)``: topic resamples, shared by all runs (means, rank intervals,
  swap probabilities, every pair's intervals and reversal rate);
* ``("randomization", variant)``: sign flips, shared by all pairs (sampled test only);
* ``("subsets", variant)``: topic permutations of the subset curve.

Pair replicates are differences of the runs' replicate means (the same resamples), so a
pair's reversal rate is exactly its swap probability.

Every statistic is over the *paired* topics (those every run has). Where that is fewer than a
run's own topics (those ``eval`` averages it over), the number is not the full-set number and
says so (:mod:`auditeval.results.subset`): the measure's ``variant`` carries
``|subset=paired(K/N:...)`` (``N`` = topics some run is evaluated on; ``variant_full`` is the
plain string, ``subset`` the record with every dropped id), and each system row carries its
own ``variant`` (marked only when that run lost topics), ``topics``, ``topics_full``,
``dropped``, ``mean_full`` (the aggregate ``eval`` prints for it) and a note.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from itertools import chain

import numpy as np

from auditeval.stats import bootstrap as bs
from auditeval.stats import corrections, ranks, significance, topic_diagnostics, topicset
from auditeval.stats.matrix import MeasureMatrix
from auditeval.stats.qrels_agreement import agreement
from auditeval.stats.rng import blocks, generator
from auditeval.stats.rng import settings as rng_settings
from auditeval.vocab.errors import EvaluationError

TESTS = ("randomization", "t", "wilcoxon", "sign")
CURVE_POINTS = 25


@dataclass(frozen=True)
class Settings:
    trials: int = 10000
    seed: int = 0
    level: float = 0.95
    correction: str = "holm"
    threshold: float = ranks.THRESHOLD
    baseline: str | None = None
    min_diff: float = 0.05
    power: float = 0.8
    ci_width: float = 0.1
    subset_trials: int = 1000
    floor: float = topic_diagnostics.FLOOR
    near: float = topic_diagnostics.NEAR
    strata_source: str | None = None


def _f(x) -> float | None:
    """A JSON number; None for NaN and infinities (e.g. d_z of a constant difference)."""
    x = float(x)
    return x if np.isfinite(x) else None


def _floats(a: np.ndarray) -> list:
    """:func:`_f` of every element, as (nested) lists: Python floats, None where not finite."""
    a = np.asarray(a, dtype=np.float64)
    out = a.astype(object)
    out[~np.isfinite(a)] = None
    return out.tolist()


def _show(x: float | None) -> str:
    return "-" if x is None else f"{x:.4f}"


def _strata_notes(topics: list[str], strata: dict[str, str] | None, source: str | None) -> list[str]:
    if not strata:
        return []
    extra = sorted(set(strata) - set(topics))
    if not extra:
        return []
    shown = ", ".join(extra[:10]) + (" ..." if len(extra) > 10 else "")
    return [f"{source}: {len(extra)} topic(s) with a stratum are not among the evaluated topics, unused: {shown}"]


def _pairs(runs: list[str], baseline: str | None) -> list[tuple[int, int]]:
    if baseline is None:
        return [(i, j) for i in range(len(runs)) for j in range(i + 1, len(runs))]
    b = runs.index(baseline)
    return [(i, b) for i in range(len(runs)) if i != b]


def analyze(mm: MeasureMatrix, s: Settings, strata: dict[str, str] | None = None,
            mm_b: MeasureMatrix | None = None, qrels_b: str = "", backend=None) -> dict:  # noqa: ANN001
    """The full comparison of one measure (see the module docstring). ``backend``: where the
    blocks run (:mod:`auditeval.execution`; None: here, the same block functions in a loop):
    resample and sign-flip blocks (:func:`resample_block`), swap-matrix rows
    (:func:`swap_task`), pair blocks (:func:`pair_block`), subset-curve blocks
    (:func:`~auditeval.stats.topicset.subset_block`). Every draw is made here, from its one
    named stream in order; tasks only compute on the drawn indices, so the result does not
    depend on the backend, bit for bit."""
    x = mm.scores
    n_sys, n_top = x.shape
    if n_top < 2:
        raise EvaluationError(f"{mm.measure}: statistics over topics need at least 2 topics evaluated for every run, "
                              f"got {n_top}")
    codes = bs.stratum_codes(mm.topics, strata, s.strata_source or "strata") if strata else None
    pairs = _pairs(mm.runs, s.baseline)
    reps, sums = resample(x, s, mm.variant, codes, bool(pairs) and n_top > significance.EXACT_MAX, backend,
                          mm.measure)
    obs = x.mean(axis=1)
    a = (1 - s.level) / 2
    sys_ci = np.quantile(reps, [a, 1 - a], axis=1).T
    rk = ranks.rank_intervals(obs, reps, s.level)
    shared = PairShared(x, reps, sums, s.level)
    handle = backend.share(shared) if backend is not None else shared  # once: the swap blocks, then the pairs
    swaps = _swaps(handle, obs, s.trials, backend, mm.measure)
    diag = topic_diagnostics.diagnose(x, s.floor, s.near)
    boot_method = "paired bootstrap" + (f", stratified by {s.strata_source} ({len(set(codes.tolist()))} strata)"
                                        if codes is not None else "")
    union = mm.subset()
    per_run = {r: mm.subset(r) for r in mm.runs}
    run_notes = [per_run[r].note(f"{r} {mm.measure} mean") + f" (eval: {_show(mm.full_means.get(r))} over "
                 f"{len(per_run[r].full)} topics)" for r in mm.runs if per_run[r].is_subset]
    out: dict = {
        "measure": mm.measure, "variant": union.variant(mm.variant), "variant_full": mm.variant,
        "engine": mm.engine, "topics": n_top, "subset": union.as_dict(),
        "runs": mm.runs, "notes": mm.notes() + run_notes + _strata_notes(mm.topics, strata, s.strata_source),
        "bootstrap": {"method": boot_method, "trials": s.trials, "seed": s.seed, "level": s.level,
                      "stream": "generator(seed, 'bootstrap', variant)", **rng_settings()},
        "systems": [
            {"run": r, "mean": _f(obs[k]), "variant": per_run[r].variant(mm.variant), "topics": n_top,
             "topics_full": len(per_run[r].full), "dropped": list(per_run[r].dropped),
             "mean_full": _f(mm.full_means[r]) if mm.full_means.get(r) is not None else None,
             "ci": [_f(sys_ci[k, 0]), _f(sys_ci[k, 1])], "rank": int(rk.rank[k]),
             "rank_interval": [int(rk.low[k]), int(rk.high[k])], "rank_median": int(rk.median[k]),
             "mean_discriminating": _f(diag.filtered_means[k])}
            for k, r in enumerate(mm.runs)
        ],
        "swap": {"matrix": swaps.round(6).tolist(), "threshold": s.threshold,
                 "not_distinguishable": [[mm.runs[i], mm.runs[j], _f(swaps[i, j])]
                                         for i, j in ranks.indistinguishable(swaps, s.threshold)]},
    }
    out["pairs"] = _pair_stats(handle, pairs, n_top, mm, s, backend) if pairs else {"family": "none", "rows": []}
    out["topicset"] = _topicset(x, pairs, mm, s, backend)
    out["diagnostics"] = {
        "floor": s.floor, "near": s.near, "bounded": diag.bounded,
        "median_spread": _f(np.median(diag.spread)),
        "below_floor": [t for t, b in zip(mm.topics, diag.below_floor, strict=True) if b],
        "near_zero": [t for t, b in zip(mm.topics, diag.near_zero, strict=True) if b],
        "near_one": [t for t, b in zip(mm.topics, diag.near_one, strict=True) if b],
        "kept": diag.kept, "tau_filtered": _f(diag.tau_filtered),
        "per_topic": {t: [_f(v) for v in diag.quantiles[k]] for k, t in enumerate(mm.topics)},
    }
    ref = mm.runs.index(s.baseline) if s.baseline else int(np.lexsort((np.arange(n_sys), rk.rank))[0])
    out["topic_diffs"] = {"reference": mm.runs[ref], "sorted": {
        r: [float(v) for v in np.sort(x[k] - x[ref])[::-1]] for k, r in enumerate(mm.runs) if k != ref}}
    if mm_b is not None:
        out["agreement"] = _agreement(mm, mm_b, swaps, s, qrels_b)
    return out


class Drawn(Sequence):
    """Blocks drawn from their streams in order, on demand (``items`` of a backend's map, which
    asks for them in index order and again only for a task still in flight): a block is kept
    until :meth:`release` (its result is in), so at most the map's window is held at once."""

    def __init__(self, draws: Iterator, n: int):
        self._draws, self._n, self._kept, self._next = draws, n, {}, 0

    def __len__(self) -> int:
        return self._n

    def __getitem__(self, k: int):  # noqa: ANN204
        if not 0 <= k < self._n:
            raise IndexError(k)
        while self._next <= k:
            self._kept[self._next] = next(self._draws)
            self._next += 1
        return self._kept[k]

    def release(self, k: int) -> None:
        self._kept.pop(k, None)


def resample_block(scores: np.ndarray, item: tuple[str, np.ndarray]) -> np.ndarray:
    """One block of drawn resamples: ``("means", idx)`` -> :func:`~auditeval.stats.bootstrap.replicate_block`,
    ``("flips", bits)`` -> :func:`~auditeval.stats.significance.flip_block`, ``(S, c)``.
    A task function (``shared``: the C-contiguous float64 score matrix)."""
    kind, drawn = item
    return bs.replicate_block(scores, drawn) if kind == "means" else significance.flip_block(scores, drawn)


def resample(x: np.ndarray, s: Settings, variant: str, codes: np.ndarray | None, flips: bool,
             backend=None, measure: str = "") -> tuple[np.ndarray, np.ndarray | None]:  # noqa: ANN001
    """``(reps, sums)``: the bootstrap replicate means ``(S, trials)`` (stream ``("bootstrap",
    variant)``) and, when ``flips``, the sampled sign-flip sums (``("randomization", variant)``;
    else None): exactly :func:`~auditeval.stats.bootstrap.replicate_means` and
    :func:`~auditeval.stats.significance.signed_sums`. The blocks are drawn here, in order;
    :func:`resample_block` computes each, on ``backend`` when given (the scores shared once)."""
    xc = np.ascontiguousarray(x, dtype=np.float64)
    n_sys, n_top = xc.shape
    spans = list(blocks(s.trials))
    means = bs.resamples(generator(s.seed, "bootstrap", variant), n_top, s.trials, codes)
    draws = (("means", idx) for idx in means)
    kinds = [("means", a, c) for a, c in spans]
    if flips:
        bits = significance.flips(generator(s.seed, "randomization", variant), n_top, s.trials)
        draws = chain(draws, (("flips", b) for b in bits))
        kinds += [("flips", a, c) for a, c in spans]
    items = Drawn(draws, len(kinds))
    reps = np.empty((n_sys, s.trials))
    sums = np.empty((n_sys, s.trials)) if flips else None
    if backend is None:
        parts = (resample_block(xc, items[k]) for k in range(len(items)))
    else:
        labels = [f"{measure} {'bootstrap' if kind == 'means' else 'sign flips'} trials {a + 1}-{a + c}"
                  for kind, a, c in kinds]
        parts = backend.map(resample_block, backend.share(xc), items, labels)
    for k, part in enumerate(parts):
        kind, a, c = kinds[k]
        (reps if kind == "means" else sums)[:, a:a + c] = part
        items.release(k)
    return reps, sums


def swap_task(shared: PairShared, item: tuple[int, int, np.ndarray]) -> np.ndarray:
    """Rows ``start:stop`` of twice the swap counts (:func:`~auditeval.stats.bootstrap.swap_block`
    on the shared replicate means). A task function."""
    return bs.swap_block(shared.reps, item)


def _swaps(handle, obs: np.ndarray, trials: int, backend=None, measure: str = "") -> np.ndarray:  # noqa: ANN001
    """The swap matrix (:func:`~auditeval.stats.bootstrap.swap_matrix`) by blocks of
    :data:`~auditeval.stats.bootstrap.SWAP_ROWS` systems; integer counts, added exactly."""
    rows = bs.swap_rows(obs.size)
    items = [(a, b, obs) for a, b in rows]
    if backend is None:
        parts = [swap_task(handle, it) for it in items]
    else:
        labels = [f"{measure} swap rows {a + 1}-{b}" for a, b in rows]
        parts = list(backend.map(swap_task, handle, items, labels))
    return bs.swap_from_counts(np.concatenate(parts), trials)


PAIR_BLOCK = 512
"""Pairs per task (:func:`pair_block`): a fixed constant, so the blocks never depend on the
backend or the number of workers (a pair's numbers do not depend on its block). 512 rather than
2,048: 1.5 instead of 2.3 CPU ms a pair at 10,000 trials (a block's (P, trials) arrays are a
quarter the size), a quarter of the memory, and 4,950 pairs make 10 tasks instead of 3."""


@dataclass(frozen=True)
class PairShared:
    """What every pair block reads: the (S, T) scores, the (S, B) bootstrap replicate means,
    the (S, B) sampled flip sums (None when the test is exact) and the level."""

    x: np.ndarray
    reps: np.ndarray
    sums: np.ndarray | None
    level: float


def pair_block(shared: PairShared, pairs: np.ndarray) -> dict[str, np.ndarray]:
    """Every per-pair statistic of the pairs ``(P, 2)`` (run indices a, b), as arrays over the
    pairs; each is computed row by row along the topic or replicate axis, so a pair's numbers
    do not depend on the other pairs of its block (the multiple-comparison correction, which
    reads the whole family, is applied after the blocks: :func:`_pair_stats`)."""
    x, reps = shared.x, shared.reps
    ia, ib = pairs[:, 0], pairs[:, 1]
    d = x[ia] - x[ib]
    iv = bs.summarize(d, reps[ia] - reps[ib], shared.level)
    scale = np.abs(x[ia]).sum(-1) + np.abs(x[ib]).sum(-1)
    if shared.sums is None:
        p_rand = significance.randomization_exact(d, scale)
    else:
        obs = x[ia].sum(-1) - x[ib].sum(-1)
        p_rand = significance.randomization_sampled(obs, shared.sums[ia] - shared.sums[ib], scale)
    t, p_t, _ = significance.paired_t(d, shared.level)
    _, p_w = significance.wilcoxon(d)
    eff = significance.effects(d, shared.level)
    return {"observed": iv.observed, "median": iv.median, "percentile": iv.percentile, "bca": iv.bca,
            "reversal_rate": iv.reversal_rate, "median_topic_diff": np.median(d, axis=-1), "t": t,
            "randomization": p_rand, "t_p": p_t, "wilcoxon": p_w, "sign": significance.sign_test(d),
            "interval": eff.interval, "d_z": eff.d_z, "wins": eff.wins, "ties": eff.ties, "losses": eff.losses}


def pair_blocks(pairs: list[tuple[int, int]]) -> list[np.ndarray]:
    """The pairs in blocks of :data:`PAIR_BLOCK`, each ``(P, 2)`` int64."""
    arr = np.array(pairs, dtype=np.int64).reshape(-1, 2)
    return [arr[k:k + PAIR_BLOCK] for k in range(0, len(arr), PAIR_BLOCK)]


def _pair_stats(handle, pairs: list[tuple[int, int]], n_top: int, mm: MeasureMatrix, s: Settings,
                backend=None) -> dict:  # noqa: ANN001 - an auditeval.execution Backend
    """Every pair's row: :func:`pair_block` over blocks of pairs (on ``backend`` when given:
    anything with ``share(value)`` and ``map(fn, shared, items, labels)`` yielding in item
    order, :mod:`auditeval.execution`; ``handle``: the :class:`PairShared`, as shared there),
    then the correction over the whole family."""
    if n_top <= significance.EXACT_MAX:
        rand_method = f"exact (all 2^{n_top} sign flips)"
    else:
        rand_method = f"sampled ({s.trials} sign flips, stream generator(seed, 'randomization', variant))"
    blocks_ = pair_blocks(pairs)
    if backend is None:
        parts = [pair_block(handle, b) for b in blocks_]
    else:
        labels = [f"{mm.measure} pairs {k * PAIR_BLOCK + 1}-{k * PAIR_BLOCK + len(b)}" for k, b in enumerate(blocks_)]
        parts = list(backend.map(pair_block, handle, blocks_, labels))
    got = {k: np.concatenate([p[k] for p in parts]) for k in parts[0]}
    raw = {"randomization": got["randomization"], "t": got["t_p"], "wilcoxon": got["wilcoxon"], "sign": got["sign"]}
    adj = {k: corrections.adjust(v, s.correction) for k, v in raw.items()}
    f = {k: _floats(v) for k, v in got.items() if k not in ("wins", "ties", "losses")}
    n = {k: got[k].astype(np.int64).tolist() for k in ("wins", "ties", "losses")}
    p_raw, p_adj = {k: _floats(v) for k, v in raw.items()}, {k: _floats(v) for k, v in adj.items()}
    runs = mm.runs
    rows = []
    for k, (i, j) in enumerate(pairs):  # the rows' numbers made Python objects column by column (_floats)
        rows.append({
            "a": runs[i], "b": runs[j], "mean_diff": f["observed"][k],
            "boot_median": f["median"][k], "median_topic_diff": f["median_topic_diff"][k],
            "percentile": f["percentile"][k], "bca": f["bca"][k], "t_interval": f["interval"][k],
            "reversal_rate": f["reversal_rate"][k], "d_z": f["d_z"][k], "t": f["t"][k],
            "wins": n["wins"][k], "ties": n["ties"][k], "losses": n["losses"][k],
            "p": {name: p_raw[name][k] for name in TESTS},
            "p_adjusted": {name: p_adj[name][k] for name in TESTS},
        })
    family = f"{len(pairs)} runs vs baseline {s.baseline}" if s.baseline else f"all {len(pairs)} pairs"
    return {"family": family, "correction": s.correction, "level": s.level, "rows": rows,
            "methods": {"randomization": f"two-sided paired randomization test, {rand_method}",
                        "t": "paired t-test (two-sided)",
                        "wilcoxon": "Wilcoxon signed-rank (zeros dropped; exact for <= 20 non-zero, else scipy)",
                        "sign": "two-sided sign test (ties dropped)"}}


def _topicset(x: np.ndarray, pairs: list[tuple[int, int]], mm: MeasureMatrix, s: Settings,
              backend=None) -> dict:  # noqa: ANN001
    n_top = x.shape[1]
    alpha = 1 - s.level
    res: dict = {"alpha": alpha, "power": s.power, "min_diff": s.min_diff, "ci_width": s.ci_width,
                 "topics": n_top, "method": "Sakai 2016 topic set size design (exact noncentral t)"}
    if pairs and n_top > 1:
        d = np.stack([x[i] - x[j] for i, j in pairs])
        var = d.var(axis=-1, ddof=1)
        k = int(np.argmax(var))
        sigma2 = float(var[k])
        res.update({
            "sigma2": sigma2, "sigma2_pair": [mm.runs[pairs[k][0]], mm.runs[pairs[k][1]]],
            "sigma2_rule": "largest variance of per-topic differences over the pairs (conservative)",
            "t_test_topics": topicset.topics_for_t_test(sigma2, s.min_diff, alpha, s.power),
            "ci_width_topics": topicset.topics_for_ci_width(sigma2, s.ci_width, alpha),
            "detectable_diff": _f(topicset.detectable_difference(sigma2, n_top, alpha, s.power)),
        })
    if x.shape[0] > 1:
        c = topicset.subset_curve(x, s.subset_trials, s.seed, mm.variant, points=CURVE_POINTS, backend=backend)
        res["curve"] = {"sizes": c.sizes.tolist(), "agreement": [_f(v) for v in c.agreement], "pairs": c.pairs,
                        "trials": c.trials, "seed": s.seed, "stream": "generator(seed, 'subsets', variant)"}
    return res


def _agreement(mm: MeasureMatrix, mm_b: MeasureMatrix, swaps: np.ndarray, s: Settings, qrels_b: str) -> dict:
    return agreement_between(mm, mm_b, s.trials, s.seed, s.threshold, qrels_b, swaps)


def agreement_between(mm: MeasureMatrix, mm_b: MeasureMatrix, trials: int = 10000, seed: int = 0,
                      threshold: float = ranks.THRESHOLD, qrels_b: str = "", swaps: np.ndarray | None = None) -> dict:
    """Agreement of the run orderings under qrels A (``mm``) and B (``mm_b``), as a dict.

    On the topics evaluated under both. A's swap probabilities come from ``swaps`` when given
    for exactly those topics, else from the stream ``("bootstrap", variant, "agreement")``.
    """
    if mm_b.runs != mm.runs:
        raise ValueError("agreement needs the same runs under both qrels")
    in_b = set(mm_b.topics)
    common = [t for t in mm.topics if t in in_b]
    if not common:
        raise ValueError("no topic is evaluated under both qrels")
    pos_a = {t: k for k, t in enumerate(mm.topics)}
    pos_b = {t: k for k, t in enumerate(mm_b.topics)}
    xa = mm.scores[:, [pos_a[t] for t in common]]
    xb = mm_b.scores[:, [pos_b[t] for t in common]]
    notes = []
    if len(common) != len(mm.topics) or len(common) != len(mm_b.topics):
        notes.append(f"agreement on the {len(common)} topics evaluated under both qrels "
                     f"({len(mm.topics)} under A, {len(mm_b.topics)} under B)")
        swaps = None
    if swaps is None:
        swaps = bs.swap_probabilities_labelled(xa, trials, seed, ("bootstrap", mm.variant, "agreement"))
    ag = agreement(xa.mean(1), xb.mean(1), swaps, threshold)
    return {"qrels_b": qrels_b, "variant_b": mm_b.variant, "topics": len(common), "tau": ag.tau, "rho": ag.rho,
            "same_order": ag.same_order, "pairs": ag.pairs, "threshold": ag.threshold,
            "disagreements": [{"a": mm.runs[g.a], "b": mm.runs[g.b], "swap": g.swap, "within_noise": g.within_noise}
                              for g in ag.disagreements],
            "notes": notes}
