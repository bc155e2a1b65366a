"""The sweep's variants found from the grid's codes (``engine/sweep_grid.py``) against the plain
loop that resolves every combination (``resolved_grid``: a convention, its fold, its variant
string per combination): the same strings in the same order, the same first combination of
each, the same classes of lists and of kernels, on measures that read different axis sets,
fold parameters (``AP(rel=2)``), read ``ties`` only under a finite depth (``NumRet``), have a
convention check (RBP's gains), under a routed profile, and with the profile's own variant
not in the grid (it is then not moved first)."""

from __future__ import annotations

import numpy as np
import pytest

from auditeval.api import sweep_setup
from auditeval.engine.sweep import read_axes, resolved_grid, sweep_plan
from auditeval.engine.sweep_grid import GridConventions, combination, grid_variants, own_text
from auditeval.io import qrels_from
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure

QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d9": 1, "d8": 3}}

CASES = {
    "every axis": (["AP", "nDCG@10"], "trec_eval-9.0.8", "all"),
    "folded, counts, cut-offs": (["AP(rel=2)", "NumRet", "P@10", "RR@10"], "trec_eval-10.0",
                                 {"ties": "all", "depth": [1, 10, "all"], "rel": "all", "topics": "all",
                                  "absent": "all", "unjudged": "all"}),
    "a convention check": (["RBP(gains={0:0,1:1,2:3})", "Accuracy@1"], "trec_eval-9.0.8",
                           {"rbp_gain": "all", "rbp_p": "all", "rel": "all", "dups": "all"}),
    "routed profile": (["RR@10", "AP", "nDCG@10"], "ir_measures-0.4",
                       {"ties": ["docno-desc", "docno-asc"], "rel": "all", "depth": [10, "all"], "unjudged": "all"}),
    "own variant absent": (["AP"], "trec_eval-9.0.8", {"depth": [5, 10], "ties": ["rank", "docno-asc"]}),
}


@pytest.mark.parametrize("case", CASES)
def test_grid_codes_give_what_resolving_every_combination_gives(case):
    measures, profile, vary = CASES[case]
    q = qrels_from(QRELS)
    s = sweep_setup(q, measures, profile, vary)
    for m, base in zip(s.parsed, s.bases, strict=True):
        want = resolved_grid(m, base, s.values)
        got = grid_variants(m, base, s.values, read_axes(m, s.values), own_text(m, base))
        assert got is not None
        assert got.texts == want.texts and len(set(got.texts)) == len(got.texts)
        assert np.array_equal(got.combos, want.combos)
        assert got.prepare_convs == want.prepare_convs and np.array_equal(got.prepare, want.prepare)
        assert got.n_kernels == want.n_kernels and np.array_equal(got.kernel, want.kernel)
    if case == "own variant absent":  # depth=1000 (the profile's) is not varied over: nothing moves first
        assert not any(t == own_text(s.parsed[0], s.bases[0]) for t in got.texts)
        assert list(got.combos) == sorted(got.combos)


def test_hand_counted_variants_and_classes():
    """AP varied over ties (5 values) x depth (5, all): AP reads both, so 10 variants; the
    profile's own (ties=docno-desc, depth=all: combination 1, depth the fastest) comes first,
    then the others in product order. Lists: one per (ties, depth) = 10 prepare classes;
    kernels: AP's own axes (rel, ap_denom) are the profile's everywhere: 1 class."""
    base = resolve("trec_eval-9.0.8")
    m = parse_measure("AP")
    values = {"ties": ["docno-desc", "docno-asc", "rank", "score-only", "random"], "depth": [5, "all"]}
    got = grid_variants(m, base, values, ("ties", "depth"), own_text(m, base))
    assert got is not None and len(got.texts) == 10 and got.texts[0] == own_text(m, base)
    assert "|depth=all|" in got.texts[0] and "|ties=docno-desc|" in got.texts[0]
    assert "|depth=5|" in got.texts[1] and "|ties=docno-desc|" in got.texts[1]
    assert list(got.combos) == [1, 0, 2, 3, 4, 5, 6, 7, 8, 9]
    assert list(got.prepare) == list(range(10)) and got.n_kernels == 1 and not got.kernel.any()


def test_a_value_listed_twice_falls_back_to_the_loop():
    base = resolve("trec_eval-9.0.8")
    m = parse_measure("AP")
    values = {"rel": [1, 1, 2]}  # vary_values never gives this; a caller of sweep_plan might
    assert grid_variants(m, base, values, ("rel",), own_text(m, base)) is None
    plan = sweep_plan([m], ["AP"], base, values)
    assert list(plan.texts[0]) == resolved_grid(m, base, values).texts and len(plan.texts[0]) == 2


def test_conventions_are_built_on_first_use_and_index_like_a_list():
    base = resolve("trec_eval-9.0.8")
    values = {"ties": ["docno-desc", "rank"], "rel": [1, 2]}
    convs = GridConventions(base, ("ties", "rel"), values, np.array([3, 0, 2], np.intp))
    assert len(convs) == 3 and (convs[0].ties, convs[0].rel) == ("rank", 2)
    assert convs[-1] == convs[2] == combination(base, ("ties", "rel"), values, 2)
    assert [c.rel for c in convs] == [2, 1, 1] and convs[1:] == [convs[1], convs[2]]
    with pytest.raises(IndexError):
        convs[3]
