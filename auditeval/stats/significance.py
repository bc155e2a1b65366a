"""Paired significance tests and effect sizes over per-topic differences ``d = x - y``.

All functions take ``diffs`` of shape ``(P, T)`` (pairs x topics) and return one value per
pair, so every pair of a comparison is tested in one array operation.

* Randomization (Fisher) test, two-sided, statistic ``|sum d_t s_t|`` over sign flips
  ``s in {-1, +1}^T`` (Smucker, Allan & Carterette 2007). *Exact* when ``T <= EXACT_MAX``:
  all ``2^T`` flips enumerated as the outer sum of the subset sums of two halves (meet in the
  middle), ``p = #{|S| >= |S_obs|} / 2^T``. *Sampled* otherwise: ``trials`` flip vectors from
  the stream ``generator(seed, "randomization", label)``, shared by all pairs,
  ``p = (1 + #{|S_b| >= |S_obs|}) / (trials + 1)`` (Phipson & Smyth 2010: never 0).
  A null statistic within ``TIE_TOL * sum(|x| + |y|)`` of ``|S_obs|`` counts as extreme, so
  rounding of the sums never decides (the observed flip is always counted).
* Paired t-test: ``t = mean(d) / (sd(d) / sqrt(T))``, ``sd`` with ``T - 1`` degrees of
  freedom, ``p = 2 P(t_{T-1} > |t|)`` (as ``scipy.stats.ttest_rel``); interval
  ``mean(d) +- t_{T-1, (1+L)/2} sd(d) / sqrt(T)``.
* Wilcoxon signed-rank, zeros dropped: exact null by enumeration for up to ``EXACT_MAX``
  non-zero differences (ties included), else ``scipy.stats.wilcoxon`` (exact without ties up
  to 50 differences, else the normal approximation); see :func:`wilcoxon`.
* Sign test: ``p = min(1, 2 F(min(wins, losses); wins + losses, 1/2))`` (binomial CDF ``F``;
  equal to ``scipy.stats.binomtest``'s two-sided p for p = 1/2); ties are left out.
* Effect size: standardized mean difference ``d_z = mean(d) / sd(d)`` (Cohen's paired d,
  the effect Sakai's topic-set-size designs take); wins / ties / losses count ``d > 0``,
  ``d == 0``, ``d < 0``.
"""

from __future__ import annotations

import warnings
from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np
from scipy import special

from auditeval.stats.rng import blocks, generator

EXACT_MAX = 20
TIE_TOL = 1e-12


def _flip_sums(d: np.ndarray) -> np.ndarray:
    """``(P, 2^k)`` sums of ``d * s`` for every flip ``s`` (bit j of the index flips topic j)."""
    k = d.shape[-1]
    bits = (np.arange(1 << k, dtype=np.int64)[:, None] >> np.arange(k)) & 1
    signs = 1.0 - 2.0 * bits  # (2^k, k)
    return (signs[None, :, :] * d[:, None, :]).sum(axis=-1)


def randomization_exact(diffs: np.ndarray, scale: np.ndarray | None = None) -> np.ndarray:
    """Exact two-sided randomization p-values by enumerating all ``2^T`` sign flips."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    n = diffs.shape[-1]
    if n > 2 * 13:
        raise ValueError(f"exact enumeration of 2^{n} flips is too large")
    scale = np.abs(diffs).sum(-1) if scale is None else scale
    half = n // 2
    out = np.empty(diffs.shape[0])
    for p in range(diffs.shape[0]):  # one pair at a time bounds memory to 2^T doubles
        a = _flip_sums(diffs[p:p + 1, :half])[0]
        b = _flip_sums(diffs[p:p + 1, half:])[0]
        obs = abs(a[0] + b[0])
        total = np.abs(a[:, None] + b[None, :])
        out[p] = np.count_nonzero(total >= obs - TIE_TOL * scale[p]) / float(1 << n)
    return out


def flips(rng: np.random.Generator, n_topics: int, trials: int) -> Iterator[np.ndarray]:
    """Blocks of flip bits, ``(block, n_topics)`` int64 (1: the topic's sign flips), drawn in
    order: ``rng.integers(0, 2, (block, n_topics))`` per block of :func:`~auditeval.stats.rng.blocks`."""
    for _, c in blocks(trials):
        yield rng.integers(0, 2, size=(c, n_topics))


def flip_block(scores: np.ndarray, bits: np.ndarray) -> np.ndarray:
    """``(S, c)``: ``sum_t s_bt x_st`` for the ``c`` flip vectors ``bits`` ``(c, T)`` (one block of
    :func:`flips`); ``scores`` C-contiguous float64. Gathered from ``[x, -x]`` (index
    ``t + T * bit``) and summed pairwise over topics. A task function (``shared, item``)."""
    n_sys, n_top = scores.shape
    both = np.concatenate([scores, -scores], axis=1)
    idx = np.arange(n_top) + n_top * bits.astype(np.int64, copy=False)
    # one gather of every system, as before the blocks were tasks: numpy sums a (1, c, T)
    # gather in another order than a (k >= 2, c, T) one, so cutting it by systems could
    # change the last bit
    return both[:, idx].sum(axis=-1)


def signed_sums(scores: np.ndarray, trials: int, rng: np.random.Generator) -> np.ndarray:
    """``(S, trials)``: ``sum_t s_bt x_st`` for random flips ``s_b`` shared by all systems
    (:func:`flip_block` over the blocks of :func:`flips`). A pair's flip statistic is the
    difference of its two systems' rows.
    """
    scores = np.ascontiguousarray(scores, dtype=np.float64)
    n_sys, n_top = scores.shape
    out = np.empty((n_sys, trials))
    for (start, c), bits in zip(blocks(trials), flips(rng, n_top, trials), strict=True):
        out[:, start:start + c] = flip_block(scores, bits)
    return out


def randomization_sampled(observed: np.ndarray, null: np.ndarray, scale: np.ndarray) -> np.ndarray:
    """``(1 + #{|null| >= |observed|}) / (B + 1)`` per pair; ``null`` is ``(P, B)``."""
    hits = (np.abs(null) >= np.abs(observed)[:, None] - TIE_TOL * scale[:, None]).sum(axis=-1)
    return (1.0 + hits) / (null.shape[-1] + 1.0)


def randomization_test(x: np.ndarray, y: np.ndarray, trials: int = 10000, seed: int = 0, label: str = "",
                       exact_max: int = EXACT_MAX) -> tuple[float, str]:
    """Two-sided paired randomization test of two runs: ``(p, "exact" | "sampled")``."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    scale = np.array([np.abs(x).sum() + np.abs(y).sum()])
    if x.size <= exact_max:
        return float(randomization_exact((x - y)[None], scale)[0]), "exact"
    rng = generator(seed, "randomization", *((label,) if label else ()))
    sums = signed_sums(np.stack([x, y]), trials, rng)
    obs = np.array([x.sum() - y.sum()])
    return float(randomization_sampled(obs, (sums[0] - sums[1])[None], scale)[0]), "sampled"


def paired_t(diffs: np.ndarray, level: float = 0.95) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(t, p, interval (P, 2))`` of the paired t-test (``T - 1`` degrees of freedom)."""
    diffs = np.atleast_2d(diffs)
    n = diffs.shape[-1]
    mean = diffs.mean(-1)
    se = diffs.std(-1, ddof=1) / np.sqrt(n)
    with np.errstate(divide="ignore", invalid="ignore"):
        t = mean / se
    p = 2 * special.stdtr(n - 1, -np.abs(t))
    half = special.stdtrit(n - 1, (1 + level) / 2) * se
    return t, p, np.stack([mean - half, mean + half], axis=-1)


def midranks(v: np.ndarray) -> np.ndarray:
    """Ranks 1..n of ``v``, ties sharing their mean rank (``scipy.stats.rankdata`` "average")."""
    _, inverse, counts = np.unique(v, return_inverse=True, return_counts=True)
    return (np.cumsum(counts) - (counts - 1) / 2.0)[inverse]


def wilcoxon(diffs: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``(W, p)`` of the two-sided Wilcoxon signed-rank test per pair (zeros dropped).

    ``W = min(W+, W-)`` over the midranks of the ``n`` non-zero ``|d|``. With
    ``n <= EXACT_MAX`` the null is enumerated exactly (all ``2^n`` sign flips of the signed
    midranks, so ties are exact); otherwise ``scipy.stats.wilcoxon`` with ``method="exact"``
    (no ties, ``n <= 50``) or ``"asymptotic"``. NaN where every difference is 0.

    The scipy rows go in two calls (one per method) along ``axis=-1``, zeros kept:
    ``zero_method="wilcox"`` drops them row by row, so each p-value is bit for bit the one a
    call on that row's non-zero differences alone gives (``tests/stats/test_stats_machinery.py``
    checks it against that call), without scipy's per-call cost: a call per pair was 12 of
    the 45 CPU seconds of ``compare`` over 19,900 pairs.
    """
    diffs = np.atleast_2d(np.asarray(diffs, dtype=np.float64))
    w = np.full(diffs.shape[0], np.nan)
    p = np.full(diffs.shape[0], np.nan)
    a = np.sort(np.abs(diffs), axis=-1)
    n = np.count_nonzero(a, axis=-1)
    ties = ((a[:, 1:] == a[:, :-1]) & (a[:, 1:] != 0)).any(-1)  # among the non-zero |d|
    for k in np.flatnonzero((n > 0) & (n <= EXACT_MAX)):
        nz = diffs[k][diffs[k] != 0]
        r = midranks(np.abs(nz))
        w_plus = r[nz > 0].sum()
        w[k] = min(w_plus, r.sum() - w_plus)
        p[k] = randomization_exact((r * np.sign(nz))[None])[0]
    big = n > EXACT_MAX
    exact = big & ~ties & (n <= 50)
    for rows, method in ((exact, "exact"), (big & ~exact, "asymptotic")):
        if rows.any():
            from scipy import stats as sps  # imported here: a second of start-up, rarely needed

            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                res = sps.wilcoxon(diffs[rows], zero_method="wilcox", method=method, axis=-1)
            w[rows], p[rows] = res.statistic, res.pvalue
    return w, p


def sign_test(diffs: np.ndarray) -> np.ndarray:
    """Two-sided sign-test p-values (ties dropped; 1 when every difference is 0)."""
    diffs = np.atleast_2d(diffs)
    wins = (diffs > 0).sum(-1)
    losses = (diffs < 0).sum(-1)
    n = wins + losses
    p = np.minimum(1.0, 2 * special.bdtr(np.minimum(wins, losses), n, 0.5))
    return np.where(n == 0, 1.0, p)


@dataclass(frozen=True)
class Effects:
    """Per pair: mean difference with t interval, standardized effect, wins/ties/losses."""

    mean: np.ndarray
    interval: np.ndarray  # (P, 2), paired t
    d_z: np.ndarray
    wins: np.ndarray
    ties: np.ndarray
    losses: np.ndarray


def effects(diffs: np.ndarray, level: float = 0.95) -> Effects:
    diffs = np.atleast_2d(diffs)
    sd = diffs.std(-1, ddof=1)
    mean = diffs.mean(-1)
    with np.errstate(divide="ignore", invalid="ignore"):
        d_z = mean / sd
    _, _, ci = paired_t(diffs, level)
    return Effects(mean, ci, d_z, (diffs > 0).sum(-1), (diffs == 0).sum(-1), (diffs < 0).sum(-1))
