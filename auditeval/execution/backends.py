"""Where the tasks of a command run: in process, on a local process pool, or on a Dask cluster.

One seam for every command that maps work over runs, pairs or orders
(:meth:`Backend.map`). Whatever the backend, results come back **in the order of the items**
(by item index, never by completion order), so every output is the same bytes for
``--jobs 1``, ``--jobs N`` and ``--scheduler ADDRESS``; the task functions are the ones the
serial path calls (:mod:`auditeval.execution.tasks`), so the values are identical by
construction (every random draw is made in the command's process, from streams named by what
they resample, :mod:`auditeval.stats.rng`; tasks receive the drawn blocks).

* :class:`InProcess` (``--jobs 1``, the default): a plain loop, no pool, no pickling.
* :class:`LocalPool` (``--jobs N`` / ``auto`` = the machine's cores): a
  ``ProcessPoolExecutor`` whose workers fork from a server that imported the task functions
  once, or are spawned where there is no fork server (:func:`pool_context`; safe with threads
  and under any parent: nothing of the command's process is inherited but what is pickled). Data shared by every task of a map
  (the qrels, a score matrix) is pickled once to a private temporary file; tasks carry its
  path and each worker loads it once (:func:`shared_value`).
* :class:`DaskCluster` (``--scheduler ADDRESS`` or ``$DASK_SCHEDULER_ADDRESS``): a
  ``distributed.Client``; shared data is scattered to every worker once (``broadcast=True``).

Failure: a task that raises (or whose worker dies) is run once more; when it fails again the
map raises :class:`TaskFailed` naming the item (the run) it belonged to, so nothing is missing
silently. An error auditeval raises on purpose (``path:line: reason``) is the same on a retry
and is reported as it is. At most :attr:`Backend.window` tasks are in flight (each holds one
run), and finished results wait only until the ones before them are done: memory stays
bounded whatever the number of items. Ctrl-C (``KeyboardInterrupt``) cancels the pending
tasks, stops the pool's processes (or cancels the cluster's futures) and is re-raised, so
``auditeval`` exits 130 (:mod:`auditeval.cli.main`).

Test-only: ``AUDITEVAL_TEST_FAIL=LABEL:N`` makes the task of the item labelled ``LABEL``
raise on its first ``N`` attempts (``always``: every attempt), to test the retry and the
report; ``LABEL:exit:N`` makes the worker process die instead (pool workers only; a dead
worker costs every task then in flight one attempt); ``AUDITEVAL_TEST_SLOW=SECONDS`` makes every task sleep first (the Ctrl-C
test). Both are read in the worker and do nothing when unset.
"""

from __future__ import annotations

import os
import pickle
import sys
import tempfile
import time
from collections import deque
from collections.abc import Iterator, Sequence
from typing import Any

from auditeval.execution.malloc import reuse_freed_memory
from auditeval.execution.seam import Progress, Task
from auditeval.vocab.errors import AuditEvalError

SCHEDULER_TIMEOUT = 30.0
"""Seconds ``--scheduler`` waits for the scheduler to answer, then for a first worker (``--scheduler-timeout``)."""


class TaskFailed(AuditEvalError):
    """A task failed twice (raised, or its worker died): names the item it belonged to."""


class RemoteError(AuditEvalError):
    """An error auditeval raised on purpose inside a worker, re-raised with the same text."""


# ----------------------------------------------------------------------------- worker side
_SHARED: dict[str, Any] = {}  # path of a shared file -> its value, once per worker process
_ATTEMPTS: dict[str, int] = {}  # test-only failure injection: attempts seen per label


def shared_value(handle: Any) -> Any:
    """The value behind a shared handle: a :class:`_SharedFile` is loaded once per process."""
    if isinstance(handle, _SharedFile):
        if handle.path not in _SHARED:
            if len(_SHARED) >= 4:  # a long-lived worker keeps the latest few, not every map's data
                _SHARED.pop(next(iter(_SHARED)))
            with open(handle.path, "rb") as fh:
                _SHARED[handle.path] = pickle.load(fh)
        return _SHARED[handle.path]
    return handle


def _inject(label: str, attempt: int) -> None:
    """Test-only failures and delays (see the module docstring)."""
    slow = os.environ.get("AUDITEVAL_TEST_SLOW")
    if slow:
        time.sleep(float(slow))
    spec = os.environ.get("AUDITEVAL_TEST_FAIL")
    if not spec:
        return
    name, _, count = spec.rpartition(":") if ":" in spec else (spec, "", "1")
    how = "raise"
    if name.endswith(":exit"):  # LABEL:exit:N: the worker process dies (pool workers only)
        name, how = name[: -len(":exit")], "exit"
    if name != label:
        return
    if count == "always" or attempt < int(count):
        if how == "exit":
            os._exit(70)
        raise RuntimeError(f"injected failure (AUDITEVAL_TEST_FAIL) on attempt {attempt + 1}")


def _warm() -> None:
    """A pool worker's first task, submitted when the pool is made: the executor starts a worker
    per task it cannot hand to an idle one, so every worker starts at once, while the command
    reads its inputs, instead of after its first map (workers are otherwise started on demand).
    A spawned worker imports the task functions here (:mod:`auditeval.execution.tasks`); a
    forked one has them already (:func:`pool_context`)."""
    import auditeval.execution.tasks  # noqa: F401


def call(fn: Task, shared: Any, item: Any, label: str, attempt: int) -> tuple[str, Any]:
    """Run one task in a worker: ``("ok", result)``, or ``("error", message)`` for an error
    auditeval raises on purpose (sent as text: such exceptions do not all survive pickling);
    anything else propagates and is retried. Freed memory is reused within the task where the
    worker's environment turned that off (:mod:`auditeval.execution.malloc`: a dask worker's)."""
    _inject(label, attempt)
    try:
        with reuse_freed_memory():
            return "ok", fn(shared_value(shared), item)
    except AuditEvalError as exc:
        return "error", str(exc)


ONE_THREAD = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS")
"""Set to 1 in every pool worker (as dask's nanny does for its workers), and pyarrow's CPU pool
to one thread: the pool is the parallelism; N workers each running a machine's worth of
threads would oversubscribe the cores."""


def _worker_start(environ: dict[str, str], cwd: str, path: list[str]) -> None:
    """A pool worker: the command's environment, working directory and import path when it made
    the pool (``environ``, ``cwd``, ``path``: a forked worker would otherwise have its fork
    server's, from when the server started, which may be an earlier pool's; a relative run path
    is read from ``cwd``, a task function imported from ``path``); one thread of numeric work (:data:`ONE_THREAD`); the command's memory
    settings (:func:`~auditeval.execution.malloc.tune_process_memory`: a new process does
    not inherit them, and without them compare's workers spent a fifth of their time faulting
    in fresh pages); pyarrow's pandas probes answered without importing pandas
    (:mod:`auditeval.execution.no_pandas`); ignores Ctrl-C (the parent receives it, cancels and ends the workers)."""
    import signal

    if os.environ != environ:
        os.environ.clear()
        os.environ.update(environ)
    os.chdir(cwd)
    sys.path[:] = path
    for var in ONE_THREAD:
        os.environ.setdefault(var, "1")

    from auditeval.execution.malloc import tune_process_memory
    from auditeval.execution.no_pandas import skip_pandas_probe

    tune_process_memory()
    import pyarrow

    pyarrow.set_cpu_count(1)
    skip_pandas_probe()  # a worker makes no DataFrame: pyarrow's probes need not import pandas
    signal.signal(signal.SIGINT, signal.SIG_IGN)


def _unwrap(outcome: tuple[str, Any]) -> Any:
    kind, value = outcome
    if kind == "error":
        raise RemoteError(value)
    return value


def _failed(label: str, exc: BaseException) -> TaskFailed:
    return TaskFailed(f"{label}: task failed twice, last: {type(exc).__name__}: {exc}")


# ----------------------------------------------------------------------------- backends
class _SharedFile:
    """A handle to data pickled once into the backend's private folder."""

    def __init__(self, path: str):
        self.path = path


class Backend:
    """The seam: :meth:`map` over items, results in item order (see the module docstring)."""

    name = "in-process"
    workers = 1
    notes: tuple[str, ...] = ()  # what choosing the backend decided (``--jobs`` lowered)

    @property
    def window(self) -> int:
        """Tasks in flight at once (bounded memory: each holds one run)."""
        return 2 * self.workers

    def __enter__(self) -> Backend:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        return None

    def release(self) -> None:
        """The command will map no more: what the backend holds may start ending now, while the
        command renders (:meth:`close` still ends it). Default: nothing."""
        return None

    def share(self, value: Any) -> Any:
        """A handle every task of a map receives as ``shared`` (the value itself in process)."""
        return value

    def map(self, fn: Task, shared: Any, items: Sequence[Any], labels: Sequence[str] | None = None,
            progress: Progress | None = None) -> Iterator[Any]:
        """``fn(shared, item)`` for each item, yielded in item order. ``labels``: what names
        each item in a failure report (the run's path); default ``item N``."""
        names = _labels(items, labels)
        flight: deque[tuple[int, int, Any]] = deque()  # (index, attempt, future), in index order
        nxt = 0
        done = 0
        try:
            while nxt < len(items) or flight:
                while nxt < len(items) and len(flight) < self.window:
                    flight.append((nxt, 0, self._submit(fn, shared, items[nxt], names[nxt], 0)))
                    nxt += 1
                k, attempt, fut = flight.popleft()
                while True:
                    try:
                        result = _unwrap(fut.result())
                        break
                    except AuditEvalError:
                        raise
                    except Exception as exc:  # noqa: BLE001 - raised in the task, or its worker died
                        if attempt:
                            raise _failed(names[k], exc) from exc
                        flight = self._recover(exc, flight, fn, shared, items, names)
                        attempt = 1
                        fut = self._submit(fn, shared, items[k], names[k], 1)
                done += 1
                if progress is not None:
                    progress(done, len(items))
                yield result
        except BaseException:
            self._cancel([f for _, _, f in flight])
            raise

    # the three steps a backend whose tasks run elsewhere supplies to :meth:`map`
    def _submit(self, fn: Task, shared: Any, item: Any, label: str, attempt: int) -> Any:
        """A future of ``call(fn, shared, item, label, attempt)``."""
        raise TypeError(f"{type(self).__name__} runs no task elsewhere")

    def _recover(self, exc: Exception, flight: deque, fn: Task, shared: Any, items: Sequence[Any],
                 names: list[str]) -> deque:
        """After a failed task, before its retry: the futures still in flight (default: as they are)."""
        return flight

    def _cancel(self, futures: list[Any]) -> None:
        """Stop the futures still in flight (an error or Ctrl-C ends the map)."""
        for f in futures:
            f.cancel()


class InProcess(Backend):
    """``--jobs 1``: the tasks run one after another in this process (no pool, no pickling)."""

    def map(self, fn: Task, shared: Any, items: Sequence[Any], labels: Sequence[str] | None = None,
            progress: Progress | None = None) -> Iterator[Any]:
        names = _labels(items, labels)
        for k, item in enumerate(items):
            result = None
            for attempt in (0, 1):
                try:
                    result = _unwrap(call(fn, shared, item, names[k], attempt))
                    break
                except AuditEvalError:
                    raise
                except Exception as exc:  # noqa: BLE001 - any failure is retried once, then reported
                    if attempt:
                        raise _failed(names[k], exc) from exc
            if progress is not None:
                progress(k + 1, len(items))
            yield result


PRELOAD = "auditeval.execution.preload"
"""What a local pool's fork server imports before it forks a worker."""


def pool_context() -> Any:
    """How a local pool starts its workers: forked from a server that has imported the task
    functions once (``forkserver``, preloading :data:`PRELOAD`), where the platform has one
    (Linux, macOS); else fresh interpreters (``spawn``). Nothing of the command's own process
    is inherited either way: the server is a fresh interpreter too, and forks only itself.

    A spawned worker imports the engine, numpy and pyarrow on its own: 0.33-0.43 CPU s per
    worker before its first task (``getrusage`` in each worker of a ``sweep --jobs 2``), paid
    while the command reads its inputs, on the same cores; a forked one starts with them
    imported (0.01-0.02 CPU s). The server is started by the pool's first worker and lives as
    long as the command's process: every later pool of that process forks from it."""
    import multiprocessing

    if "forkserver" not in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([PRELOAD])
    return ctx


def _labels(items: Sequence[Any], labels: Sequence[str] | None) -> list[str]:
    return list(labels) if labels is not None else [f"item {k + 1}" for k in range(len(items))]


class LocalPool(Backend):
    """``--jobs N``: a ``ProcessPoolExecutor`` of ``workers`` processes (:func:`pool_context`: forked
    from a server that imported the task functions once, else spawned), kept for the whole
    command (every map of it); shared data goes through one pickle file per map."""

    name = "local"

    def __init__(self, workers: int):
        import threading

        self.workers = workers
        self._ctx = pool_context()
        self._pool = self._executor()
        self._dir = tempfile.TemporaryDirectory(prefix="auditeval-shared-")
        self._n = 0
        self._starter = threading.Thread(target=self._start_workers, name="auditeval-pool-start", daemon=True)
        self._starter.start()

    def _executor(self) -> Any:
        from concurrent.futures import ProcessPoolExecutor

        return ProcessPoolExecutor(max_workers=self.workers, mp_context=self._ctx, initializer=_worker_start,
                                   initargs=(dict(os.environ), os.getcwd(), list(sys.path)))

    def _start_workers(self) -> None:
        """Every worker started now, by a thread of its own: its start-up overlaps the command's
        (reading the qrels, a sweep's plan) instead of following its first map, and the command
        does not wait for it (a fork server answers its first request once its imports are done)."""
        try:
            for _ in range(self.workers):
                self._pool.submit(_warm)
        except RuntimeError:  # the pool was shut down meanwhile (the command failed or was interrupted)
            pass

    def _started(self) -> None:
        """Wait for :meth:`_start_workers` (every process it starts is then known to the pool)."""
        self._starter.join(timeout=60)

    def share(self, value: Any) -> Any:
        self._n += 1
        path = os.path.join(self._dir.name, f"shared-{self._n}.pickle")
        with open(path, "wb") as fh:
            pickle.dump(value, fh, protocol=pickle.HIGHEST_PROTOCOL)
        return _SharedFile(path)

    def _restart(self) -> None:
        """A worker died: the executor is broken; a new one takes the remaining tasks."""
        self._started()
        self._pool.shutdown(wait=False, cancel_futures=True)
        self._pool = self._executor()

    def _submit(self, fn: Task, shared: Any, item: Any, label: str, attempt: int) -> Any:
        return self._pool.submit(call, fn, shared, item, label, attempt)

    def _recover(self, exc: Exception, flight: deque, fn: Task, shared: Any, items: Sequence[Any],
                 names: list[str]) -> deque:
        """A dead worker breaks the executor: a new one, and the other tasks in flight (which died
        with it) resubmitted at their attempt."""
        from concurrent.futures.process import BrokenProcessPool

        if not isinstance(exc, BrokenProcessPool):
            return flight
        self._restart()
        return deque((j, a, self._submit(fn, shared, items[j], names[j], a)) for j, a, _ in flight)

    def release(self) -> None:
        """The workers are told to exit and do so while the command renders (their exit was
        0.02-0.08 s of a 12-run sweep's serial end when the command waited for it after the view)."""
        self._started()
        self._pool.shutdown(wait=False)

    def close(self) -> None:
        self._started()
        self._pool.shutdown(wait=True, cancel_futures=True)
        self._dir.cleanup()

    def stop(self) -> None:
        """Ctrl-C: cancel what waits, end the worker processes now (their ids, not by name)."""
        self._started()
        procs = list(getattr(self._pool, "_processes", {}).values())
        self._pool.shutdown(wait=False, cancel_futures=True)
        for p in procs:
            if p.is_alive():
                p.terminate()
        for p in procs:
            p.join(timeout=5)
        self._dir.cleanup()

    def __exit__(self, exc_type: object, *rest: object) -> None:
        if exc_type is not None and issubclass(exc_type, KeyboardInterrupt):  # type: ignore[arg-type]
            self.stop()
        else:
            self.close()


class DaskCluster(Backend):
    """``--scheduler ADDRESS``: tasks are futures on a ``dask.distributed`` cluster; shared
    data is scattered to every worker once; dask's ``retries=1`` runs a failed task once more
    (a dead worker's tasks are rescheduled by the scheduler)."""

    name = "dask"

    def __init__(self, address: str, timeout: float = SCHEDULER_TIMEOUT):
        """Connect to ``address`` and wait for a worker, each within ``timeout`` seconds: a
        malformed address, a scheduler that does not answer and one without a worker are one
        :class:`AuditEvalError` each, before any task is sent (a map would otherwise wait forever)."""
        try:
            from distributed import Client
        except ImportError as exc:
            raise AuditEvalError("--scheduler needs dask.distributed: pip install 'auditeval[scale]'") from exc
        check_address(address)
        try:
            self._client = Client(address, timeout=timeout)
        except (OSError, TimeoutError, ValueError) as exc:
            raise AuditEvalError(f"--scheduler {address}: cannot connect within {timeout:g} s "
                                 f"(--scheduler-timeout): {type(exc).__name__}: {exc}") from None
        try:
            self._client.wait_for_workers(1, timeout=timeout)
        except (OSError, TimeoutError) as exc:
            self._client.close()
            raise AuditEvalError(f"--scheduler {address}: the scheduler answers but no worker joined it within "
                                 f"{timeout:g} s (--scheduler-timeout); start workers with "
                                 f"'dask worker {address}'") from exc
        self.address = address
        self.workers = max(1, sum(w.get("nthreads", 1) for w in self._client.scheduler_info()["workers"].values()))

    @property
    def window(self) -> int:
        """More in flight than on a local pool: each task's round trip through the scheduler
        costs milliseconds, hidden only when every worker has the next task queued."""
        return 8 * self.workers

    def share(self, value: Any) -> Any:
        return self._client.scatter(value, broadcast=True, hash=False)

    def _cancel(self, futures: list[Any]) -> None:
        self._client.cancel(futures, force=True)

    def _submit(self, fn: Task, shared: Any, item: Any, label: str, attempt: int) -> Any:
        # pure=False: a retry is a new task, not the cached failure of the first attempt
        return self._client.submit(call, fn, shared, item, label, attempt, pure=False)

    def close(self) -> None:
        self._client.close()


def check_address(address: str) -> None:
    """A scheduler address as ``distributed`` reads it (``tcp://HOST:PORT``, ``HOST:PORT``,
    ``tls://...``), with a port in 1-65535; else an :class:`AuditEvalError` naming it."""
    from distributed.comm.addressing import get_address_host_port

    try:
        host, port = get_address_host_port(address)
    except ValueError as exc:
        raise AuditEvalError(f"--scheduler {address}: not a scheduler address ({exc}); give tcp://HOST:PORT") from None
    if not host or not 0 < int(port) < 65536:
        raise AuditEvalError(f"--scheduler {address}: not a scheduler address (host {host!r}, port {port}); "
                             "give tcp://HOST:PORT with a port in 1-65535")


# ----------------------------------------------------------------------------- choosing
def cores() -> int:
    """The cores this process may use (its CPU affinity where the OS says)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_count(jobs: int | str | None, tasks: int | None = None) -> tuple[int, str | None]:
    """Local workers for ``--jobs``: the number asked (``"auto"``: :func:`cores`), at most the
    cores and the command's ``tasks`` (when it knows them): more processes than either only
    start interpreters that wait. A note when an explicit number was lowered."""
    have = cores()
    want = have if jobs == "auto" else int(jobs or 1)
    n = max(1, min(want, have, want if tasks is None else tasks))
    if jobs == "auto" or n == want:
        return n, None
    why = [f"{have} core(s)"] + ([] if tasks is None else [f"{tasks} task(s)"])
    where = "in this process" if n == 1 else f"on {n} worker processes"
    return n, f"--jobs {want}: the tasks run {where} (this machine has {' and the command has '.join(why)})"


def backend_for(jobs: int | str | None = None, scheduler: str | None = None, tasks: int | None = None,
                timeout: float = SCHEDULER_TIMEOUT) -> Backend:
    """The backend a command's ``--jobs`` / ``--scheduler`` choose: a scheduler address
    (or ``$DASK_SCHEDULER_ADDRESS``) wins (checked within ``timeout``, :class:`DaskCluster`);
    else :func:`worker_count` workers (``jobs`` 1 or None, or one task: in process). The
    backend's ``notes`` say when ``--jobs`` was lowered."""
    address = scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None
    if address:
        return DaskCluster(address, timeout)
    n, note = worker_count(jobs, tasks)
    be: Backend = LocalPool(n) if n > 1 else InProcess()
    be.notes = (note,) if note else ()
    return be
