"""Freed memory reused within a task under dask's malloc environment (``execution/malloc.py``).

Counted, not timed: the page faults (``ru_minflt``) of a child process that allocates and frees
a 0.8 MB array 1,000 times. Every fresh ``mmap`` faults its ~200 pages in; a reused heap
block faults once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

CHILD = r"""
import json, resource, sys
import numpy as np
from auditeval.execution.malloc import reuse_freed_memory

def faults(n=1000):
    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(n):
        a = np.ones(100_000)  # 800,000 bytes, written: every page touched
        del a
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before

out = {"plain": faults()}
with reuse_freed_memory():
    out["task"] = faults()
    with reuse_freed_memory():  # a second task overlapping the first (a worker with two threads)
        pass
    out["after_inner"] = faults()
out["restored"] = faults()
print(json.dumps(out))
"""


def _faults(env: dict[str, str]) -> dict[str, int]:
    full = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_")} | env
    done = subprocess.run([sys.executable, "-c", CHILD], env=full, capture_output=True, text=True, check=True)
    return json.loads(done.stdout)


def test_a_fixed_trim_threshold_makes_every_array_fault_and_a_task_reuses_blocks():
    got = _faults({"MALLOC_TRIM_THRESHOLD_": "65536"})  # what dask's nanny exports
    assert got["plain"] > 100_000  # ~195 pages x 1,000 arrays: the mmap threshold is frozen at 128 KiB
    assert got["task"] < got["plain"] / 20  # one block, reused
    assert got["after_inner"] < got["plain"] / 20  # the inner task's end did not restore
    assert got["restored"] > 100_000  # the environment's thresholds are back after the last task


def test_nothing_changes_without_a_threshold_in_the_environment_or_when_asked():
    default = _faults({})
    assert max(default.values()) < 20_000  # glibc raises its mmap threshold by itself
    kept = _faults({"MALLOC_TRIM_THRESHOLD_": "65536", "AUDITEVAL_KEEP_MALLOC": "1"})
    assert min(kept.values()) > 100_000  # AUDITEVAL_KEEP_MALLOC=1: the environment's choice stands
