"""Differential test: random qrels, runs and flags through the eight real trec_eval builds
(8.0, 8.1, 9.0.5, 9.0.6, 9.0.7, 9.0.8, 9.0.8-double, 10.0) and
``auditeval trec-eval --as V`` (in process); stdout, stderr and exit status must be equal.

Cases come from :mod:`trec_eval_diff` (seeded, deterministic: ties, float32-collapsing
scores, missing and extra topics, graded and negative judgments, shallow runs, duplicates,
``nan`` scores, ``-c -J -M -l -q -n``, ``all_trec`` and parameterised measures). The
binaries are built by ``.ci/run`` (or the ``trec_eval_bins`` fixture) into ``.bin/trec_eval``.

``AUDITEVAL_DIFF_CASES=N`` runs N cases instead of the default 400 (about 5 s);
``AUDITEVAL_DIFF_SEED=S`` starts at seed S. At scale::

    AUDITEVAL_DIFF_CASES=20000 python -m pytest -q tests/trec_eval/test_trec_eval_differential.py

The failure message lists every differing seed with its command line and diff; replay one
with ``trec_eval_diff.make_case(seed)``.
"""

from __future__ import annotations

import os

import pytest
from trec_eval_diff import VERSIONS, difference, make_case, run_case

pytestmark = pytest.mark.slow

N_CASES = int(os.environ.get("AUDITEVAL_DIFF_CASES", "400"))
FIRST_SEED = int(os.environ.get("AUDITEVAL_DIFF_SEED", "0"))


def test_random_cases_equal_the_binaries(trec_eval_bins, tmp_path) -> None:
    failures = []
    exits: dict[int, int] = {}
    per_version: dict[str, int] = {}
    for seed in range(FIRST_SEED, FIRST_SEED + N_CASES):
        case = make_case(seed)
        real, mine = run_case(case, trec_eval_bins, tmp_path)
        exits[real[2]] = exits.get(real[2], 0) + 1
        per_version[case.version] = per_version.get(case.version, 0) + 1
        why = difference(case, real, mine)
        if why is not None:
            failures.append(f"{case.describe()}: {why}")
    assert not failures, f"{len(failures)} of {N_CASES} cases differ:\n" + "\n\n".join(failures[:20])
    assert set(per_version) == set(VERSIONS) or N_CASES < 100, per_version
    # the generator reaches the outcomes that matter: values, exit 4 stops, crashes
    assert exits.get(0, 0) > N_CASES // 2
    if N_CASES >= 400:
        assert exits.get(4, 0) > 10 and exits.get(-11, 0) >= 1, exits


def test_generator_is_deterministic() -> None:
    a, b = make_case(123), make_case(123)
    assert (a.qrels, a.run, a.flags, a.version) == (b.qrels, b.run, b.flags, b.version)
    assert make_case(124).run != a.run
