"""Topic-set size (Sakai 2016, "Topic set size design", Information Retrieval 19(3)).

From the variance ``sigma^2`` of the per-topic differences (``T - 1`` degrees of freedom):

* **Paired t-test design**: the fewest topics ``n`` for which a two-sided paired t-test at
  level ``alpha`` detects a true mean difference ``min_diff`` with probability ``power``:
  ``power(n) = P(|t'| >= t_{alpha/2, n-1})`` with ``t'`` noncentral t, ``n - 1`` degrees of
  freedom, noncentrality ``sqrt(n) min_diff / sigma``. Sakai's Excel tool approximates the
  noncentral t by a normal; this uses the exact noncentral t (``scipy.special.nctdtr``), so ``n``
  can be one topic smaller than Sakai's tables. :func:`detectable_difference` inverts it for
  the current ``n``.
* **CI-width design**: the fewest ``n`` whose expected ``100(1 - alpha)%`` interval width is
  at most ``width``: ``E[W] = 2 t_{alpha/2, n-1} c_n sigma / sqrt(n)``, where
  ``c_n = sqrt(2 / (n - 1)) Gamma(n/2) / Gamma((n - 1)/2)`` is ``E[s] / sigma``.
* **Subset curve**: for each size ``k`` (10 .. T), the share of random ``k``-topic subsets
  (without replacement) on which a pair's order of means equals its order on all topics,
  averaged over the pairs (a subset tie counts half; pairs tied on all topics are left out).
  Each trial draws one random permutation of the topics (``Generator.permuted``, stream
  ``generator(seed, "subsets", label)``) and every size takes its prefix, so one trial gives
  all sizes; each size's subset is uniform.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy.special import gammaln, nctdtr, stdtrit

from auditeval.stats.bootstrap import GATHER_LIMIT
from auditeval.stats.rng import CHUNK, blocks, generator
from auditeval.vocab.arrays import unique

MAX_TOPICS = 100_000


def t_power(n: int | np.ndarray, effect: float, alpha: float = 0.05) -> np.ndarray:
    """Power of the two-sided paired t-test with ``n`` topics and standardized effect."""
    n = np.asarray(n, dtype=np.float64)
    df = n - 1
    crit = stdtrit(df, 1 - alpha / 2)
    nc = np.sqrt(n) * effect
    lower = nctdtr(df, nc, -crit)  # NaN where it underflows (scipy 1.17): then it is 0
    return 1.0 - nctdtr(df, nc, crit) + np.where(np.isnan(lower), 0.0, lower)


def _first(ok, lo: int = 2, hi: int = MAX_TOPICS) -> int | None:
    """Smallest n in [lo, hi] with ok(n) (ok monotone), by doubling then bisection."""
    if not ok(hi):
        return None
    top = lo
    while not ok(top):
        lo, top = top + 1, min(hi, top * 2)
    while lo < top:
        mid = (lo + top) // 2
        if ok(mid):
            top = mid
        else:
            lo = mid + 1
    return top


def topics_for_t_test(sigma2: float, min_diff: float, alpha: float = 0.05, power: float = 0.8) -> int | None:
    """Topics needed by the paired t-test design (``None`` beyond :data:`MAX_TOPICS`)."""
    if sigma2 <= 0:
        return 2
    effect = min_diff / np.sqrt(sigma2)
    return _first(lambda n: float(t_power(n, effect, alpha)) >= power)


def expected_ci_width(n: int, sigma2: float, alpha: float = 0.05) -> float:
    """``E[W]`` of the paired t interval with ``n`` topics (see the module docstring)."""
    c_n = np.sqrt(2.0 / (n - 1)) * np.exp(gammaln(n / 2) - gammaln((n - 1) / 2))
    return float(2 * stdtrit(n - 1, 1 - alpha / 2) * c_n * np.sqrt(sigma2 / n))


def topics_for_ci_width(sigma2: float, width: float, alpha: float = 0.05) -> int | None:
    """Topics needed by the CI-width design (``None`` beyond :data:`MAX_TOPICS`)."""
    if sigma2 <= 0:
        return 2
    return _first(lambda n: expected_ci_width(n, sigma2, alpha) <= width)


def detectable_difference(sigma2: float, n: int, alpha: float = 0.05, power: float = 0.8) -> float:
    """The smallest true difference the paired t-test detects with ``n`` topics at ``power``."""
    if n < 2:
        return float("inf")
    if sigma2 <= 0:
        return 0.0
    lo, hi = 0.0, 1.0
    while float(t_power(n, hi, alpha)) < power:  # power grows with the effect: bracket it
        lo, hi = hi, hi * 2
    for _ in range(60):  # bisection: the bracket shrinks below 1e-15 of the effect
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if float(t_power(n, mid, alpha)) < power else (lo, mid)
    return float(hi * np.sqrt(sigma2))


@dataclass(frozen=True)
class SubsetCurve:
    sizes: np.ndarray  # (K,)
    agreement: np.ndarray  # (K,) share of (trial, pair) with the full-set order
    pairs: int  # pairs with a full-set order
    trials: int


SUBSET_PAIRS = 1024
"""Pairs per :func:`subset_block`: a fixed constant."""


@dataclass(frozen=True)
class SubsetPlan:
    """What every subset block reads: the scores, the pairs with a full-set order (``i``,
    ``j``, the sign ``full`` of ``i`` minus ``j``) and the subset sizes."""

    scores: np.ndarray  # (S, T) C-contiguous float64
    i: np.ndarray
    j: np.ndarray
    full: np.ndarray
    sizes: np.ndarray  # (K,)


def subset_plan(scores: np.ndarray, smallest: int = 10, points: int = 0) -> SubsetPlan:
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n_sys, n_top = scores.shape
    i, j = np.triu_indices(n_sys, k=1)
    full = np.sign(scores[i].sum(-1) - scores[j].sum(-1))
    keep = full != 0
    i, j, full = i[keep], j[keep], full[keep]
    first = min(smallest, n_top)
    sizes = np.arange(first, n_top + 1)
    if points and sizes.size > points:
        sizes = unique(np.linspace(first, n_top, points).round().astype(np.int64))
    return SubsetPlan(scores, i, j, full, sizes)


def permutations(rng: np.random.Generator, n_topics: int, trials: int) -> Iterator[np.ndarray]:
    """Blocks of topic permutations, ``(block, n_topics)``, drawn in order (``Generator.permuted``)."""
    base = np.arange(n_topics)
    for _, c in blocks(trials):
        yield rng.permuted(np.broadcast_to(base, (c, n_topics)), axis=1)


def subset_block(plan: SubsetPlan, item: tuple[np.ndarray, int, int]) -> np.ndarray:
    """``(K,)`` int64: twice the (trial, pair) agreements per size for the permutations ``perm``
    and the kept pairs ``start:stop`` (``item = (perm, start, stop)``). Integer counts, so
    blocks of trials and of pairs add up exactly. A task function (``shared, item``)."""
    perm, start, stop = item
    x, sizes = plan.scores, plan.sizes
    n_sys, n_top = x.shape
    c = perm.shape[0]
    pre = np.empty((n_sys, c, sizes.size))
    step = max(1, GATHER_LIMIT // max(1, c * n_top))
    for s in range(0, n_sys, step):  # bounds memory; no effect on the values (prefix sums along a row)
        pre[s:s + step] = np.cumsum(x[s:s + step][:, perm], axis=-1)[:, :, sizes - 1]
    twice = np.zeros(sizes.size, dtype=np.int64)
    step = max(1, GATHER_LIMIT // max(1, c * sizes.size))
    for p0 in range(start, stop, step):  # bounds memory; no effect on the counts
        p1 = min(stop, p0 + step)
        d = pre[plan.i[p0:p1]] - pre[plan.j[p0:p1]]  # (P, c, K)
        same = np.where((plan.full[p0:p1] > 0)[:, None, None], d > 0, d < 0)
        twice += same.sum(axis=(0, 1)) * 2 + (d == 0).sum(axis=(0, 1))
    return twice


def subset_curve(scores: np.ndarray, trials: int = 1000, seed: int = 0, label: str = "",
                 smallest: int = 10, points: int = 0, backend=None) -> SubsetCurve:  # noqa: ANN001
    """Order agreement on random topic subsets of sizes ``smallest .. T``.

    Every size when ``points`` is 0, else about ``points`` evenly spaced sizes (always
    including ``smallest`` and ``T``). The permutations are drawn here, block after block;
    :func:`subset_block` counts one block of them for :data:`SUBSET_PAIRS` pairs, on
    ``backend`` when given (``share``/``map``, :mod:`auditeval.execution`), else in a loop.
    """
    plan = subset_plan(scores, smallest, points)
    n_top = plan.scores.shape[1]
    rng = generator(seed, "subsets", *((label,) if label else ()))
    n_pairs = plan.i.size
    spans = [(k, min(n_pairs, k + SUBSET_PAIRS)) for k in range(0, n_pairs, SUBSET_PAIRS)]
    items = ((perm, a, b) for perm in permutations(rng, n_top, trials) for a, b in spans)
    if backend is None or not spans:
        parts = [subset_block(plan, it) for it in items]
    else:
        items = list(items)  # the permutations: trials x T, as the serial loop's one block of them
        labels = [f"{label} subsets: trials {k // len(spans) * CHUNK + 1}-{k // len(spans) * CHUNK + perm.shape[0]}, "
                  f"pairs {a + 1}-{b}" for k, (perm, a, b) in enumerate(items)]
        parts = list(backend.map(subset_block, backend.share(plan), items, labels))
    twice = np.sum(parts, axis=0, dtype=np.int64) if parts else np.zeros(plan.sizes.size, dtype=np.int64)
    denom = 2.0 * trials * max(1, n_pairs)
    return SubsetCurve(plan.sizes, twice / denom, int(n_pairs), trials)
