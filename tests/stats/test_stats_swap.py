"""swap_probabilities and topic_matrix (the interface the pooling helper codes against)."""

from __future__ import annotations

import numpy as np
import pytest

import auditeval as ae
from auditeval.stats import measure_matrix, swap_probabilities, topic_matrix
from auditeval.stats.rng import generator, words


def test_swap_two_topics_closed_form():
    # d = x - y = [1, -0.5]; of the 4 equally likely resamples only (t2, t2) reverses: 1/4
    s = swap_probabilities(np.array([[1.0, 0.0], [0.0, 0.5]]), trials=100_000, seed=3)
    assert s[0, 0] == s[1, 1] == 0.0
    assert s[0, 1] == s[1, 0]
    assert abs(s[0, 1] - 0.25) < 0.006  # sd 0.0014


def test_swap_three_topics_with_ties_closed_form():
    # d = [1, 0, -0.5]: of 27 resamples 7 have a negative mean, 4 a zero mean (half each):
    # (7 + 4 / 2) / 27 = 1/3
    s = swap_probabilities(np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.5]]), trials=100_000, seed=1)
    assert abs(s[0, 1] - 1 / 3) < 0.007  # sd 0.0015


def test_swap_tied_pair_is_a_coin_flip_and_distinct_pairs_never_swap():
    scores = np.array([[0.2, 0.4, 0.6], [0.4, 0.2, 0.6], [0.9, 0.9, 0.9]])
    s = swap_probabilities(scores, trials=500, seed=0)
    assert s[0, 1] == 0.5  # equal means on the full sample
    assert s[0, 2] == s[1, 2] == 0.0  # system 3 beats both on every topic


def test_swap_reproducible_and_seed_dependent():
    rng = np.random.default_rng(7)
    scores = rng.random((5, 30))
    a = swap_probabilities(scores, trials=3000, seed=11)
    b = swap_probabilities(scores, trials=3000, seed=11)
    c = swap_probabilities(scores, trials=3000, seed=12)
    assert a.tobytes() == b.tobytes()
    assert not np.array_equal(a, c)
    assert np.array_equal(a, a.T)


def test_stream_labels_are_stable():
    # blake2b-128 of "bootstrap" as four little-endian words: fixed forever (documented)
    assert words(("bootstrap",)) == words(("bootstrap",))
    assert words(("bootstrap", "AP")) != words(("bootstrap", "nDCG"))
    assert generator(0, "bootstrap").integers(0, 1 << 30) == generator(0, "bootstrap").integers(0, 1 << 30)
    with pytest.raises(ValueError):
        generator(-1)


def _results():
    qrels = {"1": {"a": 1, "b": 0}, "2": {"c": 1}, "3": {"d": 1}}
    r1 = ae.run_from({"1": {"a": 2.0, "b": 1.0}, "2": {"x": 1.0, "c": 0.5}, "3": {"d": 1.0}}, name="r1")
    r2 = ae.run_from({"1": {"b": 2.0, "a": 1.0}, "2": {"c": 1.0}}, name="r2")  # no topic 3
    return ae.evaluate(qrels, [r1, r2], ["AP", "P@1"])


def test_topic_matrix_hand_values_and_dropped_topic():
    res = _results()
    runs, topics, scores = topic_matrix(res, "AP")
    assert runs == ["r1", "r2"]
    assert topics == ["1", "2"]  # topic 3 is not evaluated for r2 (trec_eval skips it)
    # r1: topic 1 rel at rank 1 -> AP 1; topic 2 rel at rank 2 -> 1/2
    # r2: topic 1 rel at rank 2 -> 1/2; topic 2 rel at rank 1 -> 1
    np.testing.assert_array_equal(scores, [[1.0, 0.5], [0.5, 1.0]])
    m = measure_matrix(res, "P@1")
    np.testing.assert_array_equal(m.scores, [[1.0, 0.0], [0.0, 1.0]])
    assert m.dropped == {"3": ["r2"]}
    assert str(m.variant).startswith("P@1|")
    assert "topic 3 left out" in m.notes()[0]


def test_topic_matrix_unknown_measure():
    with pytest.raises(ae.AuditEvalError):
        topic_matrix(_results(), "nDCG")
