"""Freed memory reused within a task, where the worker's environment turned that off (glibc).

Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
(``distributed.nanny.pre-spawn-environ``) so that freed memory goes back to the OS promptly.
Setting any glibc malloc threshold also freezes the *mmap* threshold at 128 KiB (glibc
raises it, up to 32 MiB, as large blocks are freed, unless a threshold was set: ``mallopt(3)``,
"dynamic mmap threshold"). A task's NumPy arrays of a 100,000-line run are 0.4-0.8 MB each, so
every one is then a fresh ``mmap`` whose pages fault in as it is written and an ``munmap`` when
it is freed. On ``sweep --vary all`` tasks that is 5x the page faults (40 runs: 709,000
against 124,000) and, over 200 runs on a 2-worker ``LocalCluster``, 160 CPU s in the workers
against 124.5 s on a cluster whose workers kept glibc's defaults (``benchmarks/scale.py``,
2026-12-02 12:15 UTC).

:func:`reuse_freed_memory` gives a task what glibc does by default: while at least one task
runs in the process, ``M_MMAP_THRESHOLD`` is 32 MiB and ``M_TRIM_THRESHOLD`` 64 MiB (glibc's
dynamic ceiling and twice it); when the last one ends the thresholds the environment set are
restored and ``malloc_trim(0)`` hands the freed memory back, so between tasks the worker holds
what its operator asked for. Nothing changes where no threshold is set in the environment
(glibc's defaults already behave so), off glibc, or with ``AUDITEVAL_KEEP_MALLOC=1``.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
"""``mallopt`` parameters (``<malloc.h>``)."""

TASK_MMAP_THRESHOLD = 32 << 20
TASK_TRIM_THRESHOLD = 64 << 20
"""During a task: glibc's ``DEFAULT_MMAP_THRESHOLD_MAX`` on 64-bit, and the trim threshold its
dynamic rule pairs with it (twice the mmap threshold)."""

DEFAULT_THRESHOLD = 128 << 10
"""glibc's mmap and trim thresholds before any adjustment: what is restored for one the
environment does not set."""

_lock = threading.Lock()
_running = 0  # tasks of this process inside reuse_freed_memory


@cache
def _libc() -> Any | None:
    """glibc, when this process runs on it and the environment fixed a malloc threshold."""
    if os.environ.get("AUDITEVAL_KEEP_MALLOC") == "1":
        return None
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ and "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        return None
    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        libc.mallopt  # noqa: B018 - glibc (and musl has no mallopt): AttributeError elsewhere
        libc.malloc_trim  # noqa: B018
        libc.gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return default


@contextmanager
def reuse_freed_memory() -> Iterator[None]:
    """Within: glibc's default reuse of freed blocks (see the module docstring); process-wide,
    counted, so overlapping tasks (a dask worker with several threads) restore once, at the end
    of the last."""
    global _running
    libc = _libc()
    if libc is None:
        yield
        return
    with _lock:
        _running += 1
        if _running == 1:
            libc.mallopt(M_MMAP_THRESHOLD, TASK_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, TASK_TRIM_THRESHOLD)
    try:
        yield
    finally:
        with _lock:
            _running -= 1
            if _running == 0:
                libc.mallopt(M_TRIM_THRESHOLD, _env_int("MALLOC_TRIM_THRESHOLD_", DEFAULT_THRESHOLD))
                libc.mallopt(M_MMAP_THRESHOLD, _env_int("MALLOC_MMAP_THRESHOLD_", DEFAULT_THRESHOLD))
                libc.malloc_trim(0)
