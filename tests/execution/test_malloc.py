"""Freed memory reused within a task under dask's malloc environment (``execution/malloc.py``).

Counted, not timed: the page faults (``ru_minflt``) of a child process that allocates and frees
a 0.8 MB array 1,000 times. Every fresh ``mmap`` faults its ~200 pages in; a reused heap
block faults once."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

CHILD = r"""
import json, resource, sys, time
import numpy as np
from auditeval.execution.malloc import HOLD_SECONDS, reuse_freed_memory

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
with reuse_freed_memory():  # the next task, at once (a one-thread worker's next): nothing restored between
    out["next_task"] = faults()
out["held"] = faults(200)  # within HOLD_SECONDS of the last task's end: still held
time.sleep(HOLD_SECONDS + 0.5)
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
    assert got["next_task"] < got["plain"] / 20  # nor the end of the last one, with a task right after
    assert got["held"] < got["plain"] / 20
    assert got["restored"] > 100_000  # the environment's thresholds are back HOLD_SECONDS after the last task


def test_nothing_changes_without_a_threshold_in_the_environment_or_when_asked():
    default = _faults({})
    assert max(default.values()) < 20_000  # glibc raises its mmap threshold by itself
    kept = _faults({"MALLOC_TRIM_THRESHOLD_": "65536", "AUDITEVAL_KEEP_MALLOC": "1"})
    assert min(v for k, v in kept.items() if k != "held") > 100_000  # AUDITEVAL_KEEP_MALLOC=1: the environment's choice stands
    assert kept["held"] > 20_000  # (200 arrays)


def _big_array_faults(_shared: object, n: int) -> int:
    """A task: page faults of ``n`` rounds of eight 10 MB arrays made, written and freed."""
    import resource

    import numpy as np

    before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
    for _ in range(n):
        arrays = [np.ones(1_250_000) for _ in range(8)]
        del arrays
    return resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before


def test_pool_workers_keep_freed_memory_as_the_command_does():
    """A spawned pool worker gets the command's memory settings (``tune_process_memory``):
    freed memory stays in the heap for the next arrays. Without them glibc trims the heap
    once 64 MB lie free at its top, so every round of eight 10 MB arrays faults its pages in
    again (compare's workers spent a fifth of their CPU in the kernel so). Counted: 30 rounds
    fault about 20,000 pages in a tuned process (the first round), over 100,000 in a plain one."""
    from auditeval.execution import LocalPool

    env = {k: v for k, v in os.environ.items() if not k.startswith("MALLOC_") and k != "NUMPY_MADVISE_HUGEPAGE"}
    old = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        with LocalPool(1) as pool:
            worker = list(pool.map(_big_array_faults, None, [30]))[0]
    finally:
        os.environ.clear()
        os.environ.update(old)
    plain = subprocess.run([sys.executable, "-c", "import test_malloc as t; print(t._big_array_faults(None, 30))"],
                           env=env | {"PYTHONPATH": os.path.dirname(__file__)}, capture_output=True, text=True,
                           check=True)
    assert worker < 40_000 < 80_000 < int(plain.stdout)
