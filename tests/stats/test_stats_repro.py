"""Bit-for-bit reproducibility: the same seed gives the same bytes across calls and threads."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys

import numpy as np
from paths import REPO

from auditeval.stats.matrix import MeasureMatrix
from auditeval.stats.run_comparison import Settings, analyze

ROOT = REPO

SCRIPT = """
import hashlib, json, sys
import numpy as np
from auditeval.stats.run_comparison import Settings, analyze
from auditeval.stats.matrix import MeasureMatrix
rng = np.random.default_rng(123)
x = rng.beta(0.7, 1.5, size=(6, 60))
mm = MeasureMatrix("AP", "AP|synthetic", "test", [f"r{k}" for k in range(6)], [f"{k:03d}" for k in range(60)], x)
a = analyze(mm, Settings(trials=5000, seed=42, subset_trials=500))
sys.stdout.write(hashlib.sha256(json.dumps(a, sort_keys=True).encode()).hexdigest())
"""


def _start(threads: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT), OMP_NUM_THREADS=threads, OPENBLAS_NUM_THREADS=threads,
               MKL_NUM_THREADS=threads)
    return subprocess.Popen([sys.executable, "-c", SCRIPT], env=env, stdout=subprocess.PIPE, text=True)


def test_same_bytes_with_one_and_two_threads():
    procs = [_start("1"), _start("2")]  # both at once: half the wall time
    one, two = (p.communicate(timeout=120)[0] for p in procs)
    assert [p.returncode for p in procs] == [0, 0]
    assert len(one) == 64 and one == two


def test_same_bytes_across_calls_and_other_measures_do_not_shift_draws():
    rng = np.random.default_rng(5)
    x = rng.random((4, 40))
    runs, topics = [f"r{k}" for k in range(4)], [str(k) for k in range(40)]
    a = analyze(MeasureMatrix("AP", "AP|v", "e", runs, topics, x), Settings(trials=3000, seed=1))
    b = analyze(MeasureMatrix("AP", "AP|v", "e", runs, topics, x), Settings(trials=3000, seed=1))
    c = analyze(MeasureMatrix("AP", "AP|w", "e", runs, topics, x), Settings(trials=3000, seed=1))
    d = analyze(MeasureMatrix("AP", "AP|v", "e", runs, topics, x), Settings(trials=3000, seed=2))

    def h(r):
        return hashlib.sha256(json.dumps(r, sort_keys=True).encode()).hexdigest()

    assert h(a) == h(b)
    assert h(a) != h(c)  # the stream is named by the variant string
    assert h(a) != h(d)
    # a longer run of trials starts with the same resamples (blocks drawn in order)
    from auditeval.stats.bootstrap import replicate_means
    from auditeval.stats.rng import generator

    short = replicate_means(x, 3000, generator(1, "bootstrap", "AP|v"))
    long = replicate_means(x, 7000, generator(1, "bootstrap", "AP|v"))
    assert np.array_equal(short, long[:, :3000])
