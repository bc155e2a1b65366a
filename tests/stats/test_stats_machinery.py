"""Bootstrap, tests, corrections, ranks, topic-set size: closed forms, enumeration, scipy."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from scipy import stats as sps

from auditeval.stats import bootstrap as bs
from auditeval.stats import corrections, ranks, significance, topicset
from auditeval.stats.rng import generator


def test_exact_randomization_hand_derived_ten_topics():
    # d = 1 on every topic: only "no flip" and "flip all" reach |sum| = 10 -> 2 / 2^10
    p = significance.randomization_exact(np.ones((1, 10)))
    assert p[0] == 2 / 1024
    # d = (1 x9, -1): flipping set F gives 8 - 2 sum_F d >= 8 iff sum_F d <= 0: F empty,
    # F = {the -1}, or F = {the -1, one of the nine 1s}: 11 sets; <= -8 by symmetry 11 more
    d = np.array([[1.0] * 9 + [-1.0]])
    assert significance.randomization_exact(d)[0] == 22 / 1024


def test_exact_randomization_matches_brute_force_and_scipy():
    rng = np.random.default_rng(5)
    d = np.round(rng.normal(0.02, 0.1, size=(3, 11)), 3)
    p = significance.randomization_exact(d)
    for row, got in zip(d, p, strict=True):
        sums = np.array([abs(np.dot(s, row)) for s in itertools.product((1, -1), repeat=row.size)])
        want = np.mean(sums >= abs(row.sum()) - 1e-12)
        assert got == want
        ref = sps.permutation_test((row, np.zeros_like(row)), lambda x, y, axis: np.mean(x - y, axis=axis),
                                   permutation_type="samples", n_resamples=np.inf, vectorized=True)
        assert got == pytest.approx(ref.pvalue, abs=1e-12)


def test_sampled_randomization_close_to_exact_and_reproducible():
    rng = np.random.default_rng(1)
    x, y = rng.random(18), rng.random(18)
    exact, how = significance.randomization_test(x, y)
    assert how == "exact"
    p1, how1 = significance.randomization_test(x, y, trials=20000, seed=4, exact_max=10)
    p2, _ = significance.randomization_test(x, y, trials=20000, seed=4, exact_max=10)
    assert how1 == "sampled" and p1 == p2
    assert abs(p1 - exact) < 4 * np.sqrt(exact * (1 - exact) / 20000) + 1e-4


def test_paired_t_wilcoxon_sign_match_scipy():
    rng = np.random.default_rng(2)
    x = rng.random((4, 25))
    y = x + rng.normal(0.03, 0.1, size=x.shape)
    d = x - y
    t, p, ci = significance.paired_t(d)
    for k in range(4):
        ref = sps.ttest_rel(x[k], y[k])
        assert t[k] == pytest.approx(ref.statistic, rel=1e-12)
        assert p[k] == pytest.approx(ref.pvalue, rel=1e-10)
        lo, hi = ref.confidence_interval(0.95)
        assert ci[k] == pytest.approx([lo, hi], rel=1e-10)
        w = sps.wilcoxon(x[k], y[k])
        wk, pk = significance.wilcoxon(d[k:k + 1])
        assert (wk[0], pk[0]) == pytest.approx((w.statistic, w.pvalue), rel=1e-12)
        wins, losses = int((d[k] > 0).sum()), int((d[k] < 0).sum())
        assert significance.sign_test(d[k:k + 1])[0] == pytest.approx(sps.binomtest(wins, wins + losses).pvalue,
                                                                     rel=1e-12)


def test_wilcoxon_and_sign_hand_values():
    d = np.arange(1.0, 11.0)[None]  # all ten differences positive: W- = 0
    w, p = significance.wilcoxon(d)
    assert w[0] == 0 and p[0] == pytest.approx(2 / 1024, rel=1e-12)  # exact null: 2 / 2^10
    assert significance.sign_test(d)[0] == pytest.approx(2 / 1024, rel=1e-12)
    # ties and zeros: the enumerated null equals scipy's permutation null on the same ranks
    d = np.array([[0.2, -0.1, 0.1, 0.0, 0.3, 0.2, 0.1, -0.2, 0.4]])
    ref = sps.wilcoxon(d[0], zero_method="wilcox", method=sps.PermutationMethod(n_resamples=np.inf))
    w, p = significance.wilcoxon(d)
    assert w[0] == ref.statistic and p[0] == pytest.approx(ref.pvalue, rel=1e-12)
    e = significance.effects(np.array([[0.1, 0.0, -0.05, 0.1]]))
    assert (e.wins[0], e.ties[0], e.losses[0]) == (2, 1, 1)
    assert e.mean[0] == pytest.approx(0.0375)
    sd = np.sqrt(((0.0625**2) * 2 + 0.0375**2 + 0.0875**2) / 3)
    assert e.d_z[0] == pytest.approx(0.0375 / sd)


def test_wilcoxon_of_a_block_is_scipy_on_each_rows_non_zero_differences_bit_for_bit():
    """The block goes to scipy in one call per method, zeros kept (``zero_method="wilcox"``
    drops them row by row); each row must be exactly what scipy gives on that row's non-zero
    differences alone: ``exact`` without ties and n <= 50, else ``asymptotic`` (n > 20; the
    rows of n <= 20 are enumerated, checked above). Rows of 25-100 topics, 0-70% zeros,
    differences rounded to 1-6 decimals (ties), an all-zero row (NaN)."""
    rng = np.random.default_rng(11)
    methods = set()
    for topics, decimals in ((100, 1), (30, 2), (45, 6), (60, 4), (100, 3)):
        d = np.round(rng.normal(0, 0.3, (300, topics)), decimals)
        d[rng.random(d.shape) < rng.uniform(0, 0.7, (300, 1))] = 0
        d[0] = 0
        w, p = significance.wilcoxon(d)
        assert np.isnan(w[0]) and np.isnan(p[0])
        for k in range(1, len(d)):
            nz = d[k][d[k] != 0]
            if nz.size <= significance.EXACT_MAX:
                continue
            method = "exact" if np.unique(np.abs(nz)).size == nz.size and nz.size <= 50 else "asymptotic"
            methods.add(method)
            ref = sps.wilcoxon(nz, zero_method="wilcox", method=method)
            assert (w[k], p[k]) == (ref.statistic, ref.pvalue), (topics, k, method)
    assert methods == {"exact", "asymptotic"}


def test_bca_and_percentile_match_scipy_bootstrap():
    rng = np.random.default_rng(3)
    x, y = rng.random(40), rng.random(40) * 0.8
    d = x - y
    got = bs.paired_bootstrap(x, y, trials=1999, seed=9, level=0.9)
    for method, mine in (("BCa", got.bca[0]), ("percentile", got.percentile[0])):
        ref = sps.bootstrap((d,), lambda s, axis: np.mean(s, axis=axis), n_resamples=1999, method=method,
                            confidence_level=0.9, rng=generator(9, "bootstrap"), vectorized=True)
        assert mine == pytest.approx([ref.confidence_interval.low, ref.confidence_interval.high], rel=1e-12)
    assert got.observed[0] == pytest.approx(d.mean())


def test_reversal_rate_equals_swap_probability_on_the_same_stream():
    rng = np.random.default_rng(4)
    x, y = rng.random(30), rng.random(30)
    one = bs.paired_bootstrap(x, y, trials=5000, seed=2)
    swap = bs.swap_probabilities(np.stack([x, y]), trials=5000, seed=2)
    assert one.reversal_rate[0] == swap[0, 1]


def test_stratified_resamples_keep_stratum_sizes():
    strata = np.array([0, 0, 0, 1, 1, 2, 2, 2, 2, 2])
    for idx in bs.resamples(generator(0, "x"), 10, 3000, strata):
        counts = np.stack([np.isin(idx, np.flatnonzero(strata == g)).sum(1) for g in range(3)], axis=1)
        assert (counts == [3, 2, 5]).all()
    with pytest.raises(Exception, match="no stratum"):
        bs.stratum_codes(["a", "b"], {"a": "x"}, "strata.csv")


def test_stratified_bootstrap_of_a_constant_within_strata_difference():
    # within each stratum the difference is constant, strata sizes fixed: every resample has
    # the same mean -> no variance at all, unlike the unstratified bootstrap
    x = np.array([1.0, 1.0, 0.0, 0.0])
    y = np.zeros(4)
    codes = np.array([0, 0, 1, 1])
    s = bs.paired_bootstrap(x, y, trials=500, seed=0, strata=codes)
    assert s.percentile[0] == pytest.approx([0.5, 0.5])
    u = bs.paired_bootstrap(x, y, trials=500, seed=0)
    assert u.percentile[0][0] < 0.3 and u.percentile[0][1] > 0.7


def test_corrections_hand_values():
    p = np.array([0.01, 0.04, 0.03, np.nan, 0.005])
    np.testing.assert_allclose(corrections.adjust(p, "bonferroni"), [0.04, 0.16, 0.12, np.nan, 0.02])
    # holm: sorted 0.005*4, 0.01*3, 0.03*2, 0.04*1 -> 0.02, 0.03, 0.06, max(0.06, 0.04)
    np.testing.assert_allclose(corrections.adjust(p, "holm"), [0.03, 0.06, 0.06, np.nan, 0.02])
    # bh: 0.005*4/1, 0.01*4/2, 0.03*4/3, 0.04*4/4 -> 0.02, 0.02, 0.04, 0.04
    np.testing.assert_allclose(corrections.adjust(p, "bh"), [0.02, 0.04, 0.04, np.nan, 0.02])
    np.testing.assert_allclose(corrections.adjust(p[~np.isnan(p)], "bh"),
                               sps.false_discovery_control(p[~np.isnan(p)]))


def test_rank_intervals_and_indistinguishable():
    obs = np.array([0.5, 0.3, 0.31])
    reps = np.array([[0.5, 0.5, 0.5, 0.5], [0.3, 0.32, 0.3, 0.3], [0.31, 0.31, 0.29, 0.35]])
    r = ranks.rank_intervals(obs, reps, level=0.5)
    assert r.rank.tolist() == [1, 3, 2]
    assert r.low.tolist() == [1, 2, 2] and r.high.tolist() == [1, 3, 3]
    sw = bs.swap_matrix(obs, reps)
    assert sw[1, 2] == 0.5 and sw[0, 1] == 0.0
    assert ranks.indistinguishable(sw) == [(1, 2)]


def test_topic_set_size_designs():
    # G*Power / textbook: paired t, d_z = 0.5, alpha 0.05 two-sided, power 0.8 -> 34
    assert topicset.topics_for_t_test(sigma2=0.04, min_diff=0.1) == 34
    n = topicset.topics_for_t_test(sigma2=0.01, min_diff=0.02, power=0.9)
    assert topicset.t_power(n, 0.2) >= 0.9 > topicset.t_power(n - 1, 0.2)
    # normal approximation ((z_a/2 + z_b) / effect)^2 + z_a/2^2 / 2 is within a topic
    approx = ((1.959964 + 1.281552) / 0.2) ** 2 + 1.959964**2 / 2
    assert abs(n - approx) <= 1.5
    delta = topicset.detectable_difference(0.04, 34)
    assert topicset.t_power(34, delta / 0.2) == pytest.approx(0.8, abs=1e-9)
    assert 0.095 < delta <= 0.1
    # E[W] with n = 2: c_2 = sqrt(2) Gamma(1) / Gamma(1/2) = sqrt(2/pi); t_{.025,1} = 12.7062
    assert topicset.expected_ci_width(2, 1.0) == pytest.approx(2 * 12.706204736 * np.sqrt(2 / np.pi) / np.sqrt(2),
                                                              rel=1e-9)
    m = topicset.topics_for_ci_width(0.04, 0.1)
    assert topicset.expected_ci_width(m, 0.04) <= 0.1 < topicset.expected_ci_width(m - 1, 0.04)
    # large n: E[W] -> 2 * 1.96 * sigma / sqrt(n): 0.1 = 3.92 * 0.2 / sqrt(n) -> n ~ 61.5
    assert m in (62, 63, 64)


def test_subset_curve_hand_case():
    # run 0 beats run 1 on every topic: the order holds on every subset
    s = np.vstack([np.full(12, 0.6), np.full(12, 0.4)])
    c = topicset.subset_curve(s, trials=50, seed=0)
    assert c.sizes.tolist() == [10, 11, 12] and (c.agreement == 1).all()
    # one topic +11, eleven topics -1 (full mean difference 0): left out, no pairs
    # d = +1 on 6 topics, -0.5 on 6 topics (full sum 3 > 0); on all 12 topics: 1
    d = np.array([1.0] * 6 + [-0.5] * 6)
    c = topicset.subset_curve(np.vstack([d, np.zeros(12)]), trials=4000, seed=1)
    assert c.agreement[-1] == 1.0
    # size 10 leaves out 2 topics: sum = 3 - (removed); reversed never (min 3 - 2 = 1 > 0)
    assert c.agreement[0] == 1.0
    c = topicset.subset_curve(np.vstack([d, np.zeros(12)]), trials=4000, seed=1, smallest=2)
    # size 2: P(sum > 0) = P(not both -0.5) = 1 - C(6,2)/C(12,2) = 1 - 15/66
    assert abs(c.agreement[0] - (1 - 15 / 66)) < 0.025
