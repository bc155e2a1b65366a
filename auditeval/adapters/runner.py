"""Run reference tools concurrently, each in its own process with a time limit.

Scheduling: at most ``jobs`` references run at once (default: the cores this process may
use), longest expected cost first (LPT, Graham 1969: the longest jobs start first so the
short ones fill the gaps at the end). A reference's expected cost is
:func:`expected_seconds`, from the cost each adapter declares (:attr:`Adapter.cost`: CPU
seconds per 100,000 run lines, and :attr:`Adapter.startup`). One worker thread starts and
waits for each reference's processes (a Python child, ``python .../adapters/tools.py``, for
the Python tools; the binary itself for trec_eval); the native engine works in the parent
meanwhile.

Each child runs in its own session (``start_new_session``: a terminal's Ctrl-C reaches only
the parent) and is reaped with :func:`os.wait4`, which gives that child's own CPU time (user
+ system, with the descendants it waited for): :attr:`Outcome.cpu_seconds`.
:meth:`Running.stop` (the audit calls it on KeyboardInterrupt) kills every child's process
group and cancels the references not started.

Nothing a reference does can fail the audit: a missing tool, a crash (exit status and the
tail of stderr) or a timeout becomes a :class:`Outcome` with a status and a message, and no
value.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import tempfile
import threading
import time
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditeval.adapters.base import Adapter
from auditeval.adapters.trec_eval import TrecEvalBinary, parse_output
from auditeval.adapters.trec_names import batches

STDERR_TAIL = 600  # characters of stderr kept when a reference fails
BYTES_PER_LINE = 50.7  # of a TREC run file (robust03: 5,069,275 bytes for 100,000 lines): line estimate
POLL = 0.02  # seconds between checks of a running child (exit, time limit, stop)


@dataclass(frozen=True)
class Request:
    key: str  # unique within one reference
    run_file: str  # the file the tool reads (original or rewritten)
    tool: str  # the tool's measure spelling (adapter-specific)
    options: tuple[str, ...]
    run_label: str = ""  # the run as the report names it (messages say it instead of the temporary file)
    empty_topics: tuple[str, ...] = ()  # topics of an in-memory run with no result, which no file can hold


@dataclass
class Outcome:
    """What one reference returned: ``values[key] = {"topics": {t: v}, "aggregate": v}``.

    ``status``: ``ok``, ``not installed``, ``failed`` (crash: exit status + stderr tail) or
    ``timeout``. Values of a binary are the printed text (``"0.1234"``), of a Python tool floats.
    """

    adapter: str
    engine: str
    status: str = "ok"
    message: str = ""
    values: dict[str, dict[str, Any]] = field(default_factory=dict)
    seconds: float = 0.0  # wall time, from the reference's start
    cpu_seconds: float = 0.0  # its child processes' own CPU time (user + system, os.wait4)


def _tail(text: str) -> str:
    """What a report shows of a tool's stderr: a Python traceback's last line (the exception,
    which says what went wrong), otherwise the last ``STDERR_TAIL`` characters."""
    text = (text or "").strip()
    if "Traceback (most recent call last)" in text:
        last = [ln.strip() for ln in text.splitlines() if ln.strip()][-1]
        return f"{last} (Python traceback, last line)"
    return text[-STDERR_TAIL:] if len(text) > STDERR_TAIL else text


def _jobs(requests: list[Request]) -> list[dict[str, Any]]:
    """One job per run file; ``empty``: the run's empty topics (a tool that takes a dict run,
    pytrec_eval, gets them as empty rankings, as its own dict API evaluates them)."""
    by_run: dict[str, list[dict[str, Any]]] = {}
    empty: dict[str, set[str]] = {}
    for r in requests:
        by_run.setdefault(r.run_file, []).append({"key": r.key, "tool": r.tool, "options": list(r.options)})
        empty.setdefault(r.run_file, set()).update(r.empty_topics)
    return [{"run": run, "requests": reqs, "empty": sorted(empty[run])} for run, reqs in by_run.items()]


class Stopped(Exception):
    """The audit was interrupted: the child was killed, or never started."""


class Children:
    """The live child processes of one audit, by pid (each leads its own process group)."""

    def __init__(self) -> None:
        self.lock = threading.Lock()
        self.live: set[int] = set()
        self.stopped = False

    def spawn(self, cmd: list[str], stdout, stderr) -> subprocess.Popen:
        with self.lock:
            if self.stopped:
                raise Stopped
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=stdout, stderr=stderr,
                                    start_new_session=True)
            self.live.add(proc.pid)
        return proc

    def reaped(self, pid: int) -> None:
        with self.lock:
            self.live.discard(pid)

    def stop(self) -> None:
        """Kill every live child's process group; no child starts afterwards."""
        with self.lock:
            self.stopped = True
            pids = list(self.live)
        for pid in pids:
            _kill_group(pid)


def _kill_group(pid: int) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)  # the child leads its session's group: its descendants go too
    except (ProcessLookupError, PermissionError):
        pass


@dataclass
class Finished:
    returncode: int | None  # None: killed at the time limit
    stdout: str
    stderr: str
    cpu_seconds: float


def _call(children: Children, cmd: list[str], timeout: float) -> Finished:
    """Run ``cmd`` to its end or its time limit; its own CPU time from ``os.wait4``.

    Output goes to temporary files (no pipe to drain), so the waiting is a poll of
    ``os.wait4(pid, WNOHANG)`` every ``POLL`` s, which also notices :meth:`Children.stop`.
    """
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = children.spawn(cmd, out, err)
        deadline = time.monotonic() + timeout
        timed_out = False
        try:
            while True:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
                if pid:
                    break
                if children.stopped:
                    _kill_group(proc.pid)
                    os.wait4(proc.pid, 0)
                    raise Stopped
                if time.monotonic() > deadline:
                    timed_out = True
                    _kill_group(proc.pid)
                    pid, status, usage = os.wait4(proc.pid, 0)
                    break
                time.sleep(POLL)
        finally:
            children.reaped(proc.pid)
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here: Popen must not wait again
        out.seek(0)
        err.seek(0)
        return Finished(None if timed_out else proc.returncode, out.read().decode("utf-8", "replace"),
                        err.read().decode("utf-8", "replace"), usage.ru_utime + usage.ru_stime)


def _run_python(a: Adapter, qrels: str, requests: list[Request], timeout: float, children: Children) -> Outcome:
    out = Outcome(a.name, a.engine())
    with tempfile.TemporaryDirectory(prefix="auditeval-ref-") as d:
        spec = {"adapter": a.name, "qrels": qrels, "jobs": _jobs(requests), "provider": getattr(a, "provider", None)}
        spec_path, result_path = Path(d, "spec.json"), Path(d, "result.json")
        spec_path.write_text(json.dumps(spec))
        cmd = a.child_command(str(spec_path), str(result_path))
        res = _call(children, cmd, timeout)
        out.cpu_seconds = res.cpu_seconds
        if res.returncode is None:
            out.status, out.message = "timeout", f"timeout after {timeout:g} s; stderr: {_tail(res.stderr)}"
            return out
        if res.returncode != 0 or not result_path.is_file():
            out.status, out.message = "failed", f"exit status {res.returncode}; stderr: {_tail(res.stderr)}"
            return out
        out.values = json.loads(result_path.read_text())
    errors = [v["error"] for v in out.values.values() if isinstance(v, dict) and "error" in v]
    if errors and len(errors) == len(out.values):  # every value failed: the tool does not work here
        first = errors[0]
        same = all(e == first for e in errors)
        out.status, out.message = "failed", first if same else f"{len(errors)} values failed; first: {first}"
    elif errors:
        out.message = f"{len(errors)} of {len(out.values)} values failed; first: {errors[0]}"
    return out


def _run_binary(a: TrecEvalBinary, qrels: str, requests: list[Request], timeout: float, children: Children) -> Outcome:
    out = Outcome(a.name, a.engine())
    deadline = time.monotonic() + timeout
    groups: dict[tuple[str, tuple[str, ...]], list[Request]] = {}
    for r in requests:
        groups.setdefault((r.run_file, r.options), []).append(r)
    failed: list[str] = []
    done = 0
    jobs = []  # one per (run, options, batch): a measure family takes one parameter string per invocation
    for (run_file, options), reqs in groups.items():
        for batch, idx in batches([r.tool.split()[0] for r in reqs]):
            jobs.append((run_file, options, batch, [reqs[i] for i in idx]))
    for run_file, options, batch, reqs in jobs:
        cmd = a.commands(qrels, run_file, options, batch)
        left = deadline - time.monotonic()
        res = _call(children, cmd, max(left, 0.01))
        out.cpu_seconds += res.cpu_seconds
        if res.returncode is None:
            out.status, out.message = "timeout", f"timeout after {timeout:g} s; stderr: {_tail(res.stderr)}"
            out.values = {}
            return out
        if res.returncode != 0:
            shown = [f"[{reqs[0].run_label}]" if x == run_file and reqs[0].run_label else x for x in cmd[1:]]
            msg = f"exit status {res.returncode} on {' '.join(shown)}; stderr: {_tail(res.stderr)}"
            for r in reqs:
                out.values[r.key] = {"error": msg}
            failed.append(msg)
            continue
        done += 1
        printed = parse_output(res.stdout)
        for r in reqs:
            vals = dict(printed.get(r.tool.split()[1], {}))
            agg = vals.pop("all", None)
            out.values[r.key] = {"topics": vals, "aggregate": agg}
    if failed:  # failed only when no invocation worked; a refused run is that run's (per value) error
        what = f"{len(failed)} of {len(jobs)} invocation(s) exited non-zero; first: {failed[0]}"
        out.status, out.message = ("ok", what) if done else ("failed", failed[0] if len(failed) == 1 else what)
    return out


def run_one(a: Adapter, qrels: str, requests: list[Request], children: Children | None = None) -> Outcome:
    """One reference to its end (its time limit: ``a.timeout``); raises :class:`Stopped` when
    ``children`` is stopped meanwhile."""
    children = children if children is not None else Children()
    t0 = time.perf_counter()
    reason = a.available()
    if reason is not None:
        out = Outcome(a.name, a.name, status="not installed" if reason.startswith("not installed") else "unsupported",
                      message=reason)
    elif not requests:
        out = Outcome(a.name, a.engine())
    elif isinstance(a, TrecEvalBinary):
        out = _run_binary(a, qrels, requests, a.timeout, children)
    else:
        out = _run_python(a, qrels, requests, a.timeout, children)
    out.seconds = time.perf_counter() - t0
    return out


# ------------------------------------------------------------------------------ scheduling
def run_lines(path: str, _cache: dict[str, float] = {}) -> float:  # noqa: B006 - a per-process cache
    """Estimated lines of a run file: its size / ``BYTES_PER_LINE`` (0 when it cannot be read)."""
    if path not in _cache:
        try:
            _cache[path] = os.path.getsize(path) / BYTES_PER_LINE
        except OSError:
            _cache[path] = 0.0
    return _cache[path]


def expected_seconds(a: Adapter, requests: list[Request]) -> float:
    """Expected CPU seconds of reference ``a`` on ``requests``:
    ``a.startup + a.cost * sum over the run files it reads of lines / 100,000`` (each file once:
    the tools parse a run once and compute every requested measure on it). ``a.startup`` counts
    once per invocation for a binary (one per run, option set and measure batch)."""
    files = list(dict.fromkeys(r.run_file for r in requests))
    lines = sum(run_lines(f) for f in files)
    calls = 1
    if isinstance(a, TrecEvalBinary):
        groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for r in requests:
            groups.setdefault((r.run_file, r.options), []).append(r.tool.split()[0])
        calls = sum(len(batches(names)) for names in groups.values())
    return a.startup * calls + a.cost * lines / 1e5


def cores() -> int:
    """The cores this process may run on (its CPU affinity where the OS tells, else ``os.cpu_count()``)."""
    try:
        return max(len(os.sched_getaffinity(0)), 1)
    except (AttributeError, OSError):
        return max(os.cpu_count() or 1, 1)


Event = Callable[[str, str, "Outcome | None"], None]  # (adapter name, "start" | "end", outcome at "end")


class Running:
    """References under way: :meth:`results` waits for them, :meth:`stop` ends them.

    A Python reference expected to cost more than half an even share of the whole
    (``sum / jobs / 2``) and reading several runs is split into one child per run, so that one
    slow tool on many runs (cwl_eval: 273-350 s of CPU on 12 robust03 runs, 70% of all) does
    not leave the other cores idle; its pieces' values are merged into one :class:`Outcome`.
    Half, not a whole share: the declared costs are rough (ranx's numba compiles on a cold
    cache: expected 171 s on 12 robust03 runs, 16 s with a warm one), and an overestimate of
    the others raised the share above cwl_eval's 341 s, which then ran as one 280 s child
    beside idle cores (the 12-run audit at 1.26 of its goal's denominator). A split costs
    each extra child its interpreter start-up (about a second).
    """

    def __init__(self, tasks: list[tuple[Adapter, str, list[Request]]], jobs: int | None = None,
                 on_event: Event | None = None):
        self.tasks = tasks
        self.jobs = max(1, min(jobs or cores(), max(len(tasks), 1)))
        self.expected = [expected_seconds(a, reqs) for a, _, reqs in tasks]
        share = sum(self.expected) / self.jobs / 2
        self.pieces: list[tuple[int, list[Request], float]] = []  # (task, its requests, expected)
        for i, (a, _, reqs) in enumerate(tasks):
            files = list(dict.fromkeys(r.run_file for r in reqs))
            if self.expected[i] > share and len(files) > 1 and not isinstance(a, TrecEvalBinary):
                for f in files:
                    part = [r for r in reqs if r.run_file == f]
                    self.pieces.append((i, part, expected_seconds(a, part)))
            else:
                self.pieces.append((i, reqs, self.expected[i]))
        # LPT: the pool's queue is first in, first out, so submitting longest first starts them first
        self.order = sorted(range(len(self.pieces)), key=lambda k: -self.pieces[k][2])
        self.left = [sum(1 for p in self.pieces if p[0] == i) for i in range(len(tasks))]
        self.began = [False] * len(tasks)
        self.done: dict[int, tuple[Outcome, float, float]] = {}  # piece -> (outcome, start, end)
        self.lock = threading.Lock()
        self.children = Children()
        self.on_event = on_event
        self.pool = ThreadPoolExecutor(max_workers=self.jobs, thread_name_prefix="auditeval-ref")
        self.futures: dict[int, Future] = {k: self.pool.submit(self._one, k) for k in self.order}

    def _one(self, k: int) -> None:
        i, reqs, _ = self.pieces[k]
        a, q, _ = self.tasks[i]
        with self.lock:
            first, self.began[i] = not self.began[i], True
        if first and self.on_event is not None:
            self.on_event(a.name, "start", None)
        t0 = time.perf_counter()
        out = None
        try:
            out = run_one(a, q, reqs, self.children)
        finally:
            with self.lock:
                if out is not None:
                    self.done[k] = (out, t0, time.perf_counter())
                self.left[i] -= 1
                last = self.left[i] == 0
            if self.on_event is not None and (last or out is None):
                self.on_event(a.name, "end", self._merged(i) if last and out is not None else None)

    def _merged(self, i: int) -> Outcome:
        """One outcome of task ``i`` from its pieces (all done): values united, CPU summed, wall
        from the first start to the last end; a failed piece's status and message kept."""
        done = [self.done[k] for k in range(len(self.pieces)) if self.pieces[k][0] == i and k in self.done]
        outs = [d[0] for d in done]
        if len(outs) == 1:
            return outs[0]
        m = Outcome(outs[0].adapter, outs[0].engine)
        for o in outs:
            m.values.update(o.values)
            m.cpu_seconds += o.cpu_seconds
        bad = [o for o in outs if o.status != "ok"]
        msgs = [f"{o.status}: {o.message}" if o.status != "ok" else o.message for o in outs if o.message]
        if bad and len(bad) == len(outs):
            m.status, m.message = bad[0].status, bad[0].message
        elif msgs:
            m.message = f"one child per run ({len(outs)}); " + "; ".join(dict.fromkeys(msgs))
        m.seconds = max(d[2] for d in done) - min(d[1] for d in done)
        return m

    def results(self) -> list[Outcome]:
        """Every outcome, in the order of the tasks; the pool is shut down afterwards."""
        for f in self.futures.values():
            f.result()
        outs = [self._merged(i) for i in range(len(self.tasks))]
        self.pool.shutdown()
        return outs

    def stop(self) -> None:
        """Kill every running child (its whole process group), cancel the references not yet
        started; returns at once (the worker threads notice within ``POLL`` s)."""
        self.children.stop()
        self.pool.shutdown(wait=False, cancel_futures=True)


def start(tasks: list[tuple[Adapter, str, list[Request]]], jobs: int | None = None,
          on_event: Event | None = None) -> Running:
    """Start the references (at most ``jobs`` at once, longest expected first); the caller
    collects :meth:`Running.results` when it needs them and calls :meth:`Running.stop` on an
    interrupt."""
    return Running(tasks, jobs, on_event)
