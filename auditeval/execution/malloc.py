"""Process memory settings for a command and its pool's workers (:func:`tune_process_memory`),
and freed memory reused within a task where the worker's environment turned that off (glibc).

Dask's nanny starts every worker with ``MALLOC_TRIM_THRESHOLD_=65536``
(``distributed.nanny.pre-spawn-environ``) so that freed memory goes back to the OS promptly.
Setting any glibc malloc threshold also freezes the *mmap* threshold at 128 KiB (glibc
raises it, up to 32 MiB, as large blocks are freed, unless a threshold was set: ``mallopt(3)``,
"dynamic mmap threshold"). A task's NumPy arrays of a 100,000-line run are 0.4-0.8 MB each, so
every one is then a fresh ``mmap`` whose pages fault in as it is written and an ``munmap`` when
it is freed. On ``sweep --vary all`` tasks that is 5x the page faults (40 runs: 709,000
against 124,000) and, over 200 runs on a 2-worker ``LocalCluster``, 160 CPU s in the workers
against 124.5 s on a cluster whose workers kept glibc's defaults (``benchmarks/scale.py``;
the run's provenance is in ``benchmarks/README.md``).

:func:`reuse_freed_memory` gives a task what a command's own process has
(:func:`tune_process_memory`): while tasks run, and for :data:`HOLD_SECONDS` after the last,
blocks up to 32 MiB come from the heap and freed memory stays there for the next array; then the
environment's settings are restored and ``malloc_trim(0)`` hands the freed memory back, so
between commands the worker holds what its operator asked for. Restoring after every task (a
one-thread worker ends its only task every time) made each task fault its memory in afresh:
compare over 200 runs on a 2-worker cluster spent 5.8-7.5 CPU s in the workers' kernel. Nothing
changes where no threshold is set in the environment (glibc's defaults already behave so), off
glibc, or with ``AUDITEVAL_KEEP_MALLOC=1``.

This module imports nothing of auditeval and ``ctypes.util`` only when a task needs it: the
drop-in calls :func:`tune_process_memory` first thing (which, for the drop-in alone, sets
mimalloc's options before pyarrow loads: :func:`one_pass_arrow_pool`).
"""

from __future__ import annotations

import ctypes
import os
import sys
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from typing import Any

M_TRIM_THRESHOLD = -1
M_MMAP_THRESHOLD = -3
M_MMAP_MAX = -4
"""``mallopt`` parameters (``<malloc.h>``)."""


TASK_MMAP_THRESHOLD = 32 << 20
TASK_TRIM_THRESHOLD = 2**31 - 1
"""During a task: blocks up to glibc's largest dynamic mmap threshold (32 MiB on 64-bit) come
from the heap, and freed memory stays there (a command's own process keeps it all:
:func:`tune_process_memory`). Larger blocks stay mapped, with numpy's huge-page hint: a task
runs in a dask worker's thread, whose malloc arena holds at most 64 MiB, so a block served
from the heap there is mapped afresh anyway, in 4 KiB pages."""

DEFAULT_THRESHOLD = 128 << 10
"""glibc's mmap and trim thresholds before any adjustment: what is restored for one the
environment does not set."""

_wake = threading.Condition()  # guards the state below; notified when the last task ends
_running = 0  # tasks of this process inside reuse_freed_memory
_tuned = False  # the task settings are in force
_deadline: float | None = None  # when to restore them (monotonic), once no task runs
_restorer: threading.Thread | None = None


def tune_process_memory() -> None:
    """Process-level memory settings for a command-line run and for its local pool's workers
    (library use keeps the defaults; a dask worker keeps what its nanny set, see
    :func:`reuse_freed_memory`).

    A run allocates and frees many large short-lived numpy arrays (56 MB per column on a
    7-million-line run), and first-touch page faults on fresh memory dominated the system
    time. Two settings, each skipped when its environment variable is set:

    * numpy asks for transparent huge pages on large arrays; where the kernel must compact
      memory to find them (THP ``defrag=madvise``) a fresh 56 MB array costs ~0.1 s instead
      of ~0.02 s (``NUMPY_MADVISE_HUGEPAGE``).
    * glibc maps every block above 32 MB afresh and unmaps it when freed; keeping freed
      blocks in the heap lets the next array reuse them (``MALLOC_MMAP_MAX_``,
      ``MALLOC_TRIM_THRESHOLD_``). Measured: ``-m all_trec`` 7.2-8.7 s -> 4.6-5.0 s. A pool's
      workers without it: compare over 200 runs faulted in 828,000 pages (6.2 CPU s in the
      kernel, a fifth of the workers' time) against 167,000 (0.6 s) in one tuned process.
    """
    if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
        _numpy_hugepage(False)
    if sys.platform.startswith("linux") and not {"MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_"} & set(os.environ):
        try:
            libc = ctypes.CDLL("libc.so.6")
            libc.mallopt(M_MMAP_MAX, 0)  # serve large blocks from the heap
            libc.mallopt(M_TRIM_THRESHOLD, 2**31 - 1)  # keep freed memory for reuse
        except (OSError, AttributeError):  # pragma: no cover - not glibc
            pass
    if sys.argv[1:2] == ["trec-eval"]:  # the drop-in's process (cli/main.py: entry)
        one_pass_arrow_pool()


MIMALLOC_ONE_PASS = {"MIMALLOC_PURGE_DELAY": "10", "MIMALLOC_ARENA_EAGER_COMMIT": "0"}
"""The drop-in's mimalloc options (:func:`one_pass_arrow_pool`)."""


def one_pass_arrow_pool() -> bool:
    """mimalloc (Arrow's default pool) told to hand freed pages back within 10 ms, for the
    trec_eval drop-in's process (whether it was set): the drop-in reads one large file in one
    pass, and Arrow's CSV reader frees its block buffers as it goes, which mimalloc 3 keeps for
    a second by default (``purge_delay`` 1000 ms; and it commits its arenas eagerly). On the
    7M-line run that was 50-80 MB of the drop-in's peak, the more the faster the run (the less
    of that second had passed). Measured side by side (short ids, 3 rounds each): the defaults
    558-582 MB in 1.39-1.65 s; ``MIMALLOC_PURGE_DELAY=10`` and ``MIMALLOC_ARENA_EAGER_COMMIT=0``
    508 MB in 1.58-1.91 s; a delay of 0, 501 MB in 1.81-2.15 s (more system time); Arrow's
    jemalloc pool 558-566 MB. mimalloc reads its options when libarrow loads: they are set
    here, before pyarrow is imported; a variable the environment sets is kept, and nothing is
    set once pyarrow is loaded (False)."""
    if "pyarrow" in sys.modules:
        return False
    for name, value in MIMALLOC_ONE_PASS.items():
        os.environ.setdefault(name, value)
    return True


@cache
def _libc() -> Any | None:
    """glibc, when this process runs on it and the environment fixed a malloc threshold."""
    if os.environ.get("AUDITEVAL_KEEP_MALLOC") == "1":
        return None
    if "MALLOC_TRIM_THRESHOLD_" not in os.environ and "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        return None
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        libc = ctypes.CDLL(name or "libc.so.6")
        libc.mallopt  # noqa: B018 - glibc (and musl has no mallopt): AttributeError elsewhere
        libc.malloc_trim  # noqa: B018
        libc.gnu_get_libc_version  # noqa: B018
    except (OSError, AttributeError):
        return None
    return libc


def _numpy_hugepage(on: bool) -> bool | None:
    """numpy's transparent-huge-page hint set to ``on``; its previous setting (None: no numpy
    hook to set it)."""
    try:
        from numpy._core.multiarray import _set_madvise_hugepage
    except ImportError:  # pragma: no cover - numpy < 2
        try:
            from numpy.core.multiarray import _set_madvise_hugepage
        except ImportError:
            return None
    return bool(_set_madvise_hugepage(on))


def _env_int(name: str, default: int) -> int:
    try:
        return int(os.environ[name])
    except (KeyError, ValueError):
        return default


HOLD_SECONDS = 1.0
"""How long the task settings outlast the last task: a command's tasks follow each other within
milliseconds on a worker, and settings restored (and the heap trimmed) after each one made the
next fault its memory in again (a dask worker of one thread ends its only task every time)."""


@contextmanager
def reuse_freed_memory() -> Iterator[None]:
    """Within: freed blocks reused (see the module docstring): blocks up to 32 MiB served from
    the heap, freed memory kept (:data:`TASK_TRIM_THRESHOLD`). Process-wide, counted:
    :data:`HOLD_SECONDS` after the last task of the process ends with none begun since, the
    environment's settings are restored and ``malloc_trim(0)`` hands the freed memory back (one
    waiting thread per process does it: a timer per task cost 0.15 ms a task)."""
    global _running, _tuned, _deadline
    libc = _libc()
    if libc is None:
        yield
        return
    with _wake:
        _running += 1
        _deadline = None
        if not _tuned:
            libc.mallopt(M_MMAP_THRESHOLD, TASK_MMAP_THRESHOLD)
            libc.mallopt(M_TRIM_THRESHOLD, TASK_TRIM_THRESHOLD)
            _tuned = True
            _start_restorer(libc)
    try:
        yield
    finally:
        with _wake:
            _running -= 1
            if _running == 0:
                _deadline = time.monotonic() + HOLD_SECONDS
                _wake.notify()


def _start_restorer(libc: Any) -> None:
    """The thread that restores the environment's settings once the hold has passed (started
    with the task settings, ended with their restoring; called holding :data:`_wake`)."""
    global _restorer
    if _restorer is None:
        _restorer = threading.Thread(target=_restore_when_idle, args=(libc,), name="auditeval-malloc", daemon=True)
        _restorer.start()


def _restore_when_idle(libc: Any) -> None:
    """Wait until :data:`HOLD_SECONDS` passed since the last task ended with none running, then
    put the environment's malloc settings back and trim the freed memory."""
    global _tuned, _restorer
    with _wake:
        while True:
            if _running == 0 and _deadline is not None:
                left = _deadline - time.monotonic()
                if left <= 0:
                    break
                _wake.wait(left)
            else:
                _wake.wait()
        libc.mallopt(M_TRIM_THRESHOLD, _env_int("MALLOC_TRIM_THRESHOLD_", DEFAULT_THRESHOLD))
        libc.mallopt(M_MMAP_THRESHOLD, _env_int("MALLOC_MMAP_THRESHOLD_", DEFAULT_THRESHOLD))
        libc.malloc_trim(0)
        _tuned = False
        _restorer = None  # the next task starts another
