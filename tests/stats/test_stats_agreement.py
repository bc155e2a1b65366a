"""Judgment-set agreement on robust03: a qrels copy with labels flipped at a known rate."""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import auditeval as ae
from auditeval.stats.matrix import measure_matrix
from auditeval.stats.qrels_agreement import agreement
from auditeval.stats.run_comparison import agreement_between
from auditeval.vocab.model import Qrels


def test_agreement_hand_case():
    means_a = np.array([0.5, 0.4, 0.3])
    means_b = np.array([0.5, 0.3, 0.4])  # the last two swap places
    swaps = np.array([[0, 0.0, 0.0], [0.0, 0, 0.2], [0.0, 0.2, 0]])
    ag = agreement(means_a, means_b, swaps)
    assert ag.same_order == pytest.approx(2 / 3)
    assert ag.tau == pytest.approx(1 / 3)  # (2 concordant - 1 discordant) / 3
    assert ag.rho == pytest.approx(0.5)  # 1 - 6 * 2 / (3 * 8)
    assert [(g.a, g.b, g.within_noise) for g in ag.disagreements] == [(1, 2, True)]
    ag = agreement(means_a, means_b, swaps, threshold=0.25)
    assert [g.within_noise for g in ag.disagreements] == [False]


def _flipped(q: Qrels, rate: float, seed: int) -> Qrels:
    """A copy with each label flipped (relevant <-> 0 / 1) with probability ``rate``."""
    grade = q.table.column("grade").to_numpy()
    flip = np.random.default_rng(seed).random(grade.size) < rate
    new = np.where(flip, np.where(grade > 0, 0, 1), grade)
    table = q.table.set_column(q.table.schema.get_field_index("grade"), "grade", pa.array(new, pa.int64()))
    return Qrels(table, source=f"{q.source} flipped at {rate}")


@pytest.fixture(scope="module")
def robust03(robust03):
    d = robust03.dir
    runs = [ae.read_run(p) for p in sorted((d / "runs").glob("*.gz"))]
    return ae.read_qrels(d / "qrels.robust03.txt"), runs


def test_agreement_degrades_with_the_flip_rate(robust03):
    qrels, runs = robust03
    base = measure_matrix(ae.evaluate(qrels, runs, ["P@10"]), "P@10")
    same = agreement_between(base, base, trials=2000, seed=0)
    assert same["tau"] == pytest.approx(1.0) and same["same_order"] == 1.0 and same["disagreements"] == []
    got = {}
    for rate in (0.02, 0.1, 0.5):
        mm = measure_matrix(ae.evaluate(_flipped(qrels, rate, seed=1), runs, ["P@10"]), "P@10")
        got[rate] = agreement_between(base, mm, trials=2000, seed=0)
    taus = [got[r]["tau"] for r in (0.02, 0.1, 0.5)]
    shares = [got[r]["same_order"] for r in (0.02, 0.1, 0.5)]
    assert 1.0 > taus[0] > taus[1] > taus[2], taus
    assert 1.0 > shares[0] > shares[1] > shares[2], shares
    # at 50% every label is a coin flip: the ordering is unrelated to the original one
    assert abs(taus[2]) < 0.5
    # a few flipped labels only reorder runs the original qrels could not tell apart anyway
    small = got[0.02]["disagreements"]
    assert small and all(g["within_noise"] for g in small)
    assert sum(not g["within_noise"] for g in got[0.5]["disagreements"]) > 0


def test_kendall_spearman_midranks_match_scipy():
    from scipy import stats as sps

    from auditeval.stats.qrels_agreement import kendall_tau_b, spearman_rho
    from auditeval.stats.ranks import competition_ranks
    from auditeval.stats.significance import midranks

    rng = np.random.default_rng(8)
    for _ in range(20):
        x = rng.integers(0, 5, 9).astype(float)  # many ties
        y = rng.integers(0, 5, 9).astype(float)
        assert kendall_tau_b(x, y) == pytest.approx(sps.kendalltau(x, y).statistic, rel=1e-12)
        assert spearman_rho(x, y) == pytest.approx(sps.spearmanr(x, y).statistic, rel=1e-12)
        np.testing.assert_array_equal(midranks(x), sps.rankdata(x))
    m = rng.integers(0, 4, (6, 50)).astype(float)
    np.testing.assert_array_equal(competition_ranks(m), sps.rankdata(-m, method="min", axis=0))


def test_competition_ranks_sorted_equal_the_pairwise_definition():
    """Ranks by sorting each column equal ``1 + #{strictly higher}`` counted pair by pair, on
    heavy ties, distinct means, -0.0 beside 0.0, one system, and with a NaN (then the
    definition itself: a NaN is higher than nothing and nothing is higher than it)."""
    from auditeval.stats.ranks import competition_ranks

    def pairwise(m: np.ndarray) -> np.ndarray:
        return 1 + (m[None, :, :] > m[:, None, :]).sum(axis=1)

    rng = np.random.default_rng(12)
    cases = [rng.integers(0, 3, (40, 300)).astype(float), rng.random((200, 100)), rng.random((1, 7)),
             np.array([[0.0, -0.0, 1.0], [-0.0, 0.0, 1.0], [0.5, 0.0, 1.0]]), rng.random((5, 0))]
    with_nan = rng.random((6, 20))
    with_nan[2, 3] = np.nan
    for m in [*cases, with_nan]:
        np.testing.assert_array_equal(competition_ranks(m), pairwise(m))
    assert competition_ranks(with_nan)[2, 3] == 1
