"""Run reference tools concurrently, each in its own process with a time limit.

One thread per reference starts and waits for that reference's processes (a Python child,
``python .../adapters/tools.py``, for the Python tools; the binary itself for
trec_eval), so an audit takes about as long as its slowest reference, and the native
engine works in the parent meanwhile. Nothing a reference does can fail the audit: a
missing tool, a crash (exit status and the tail of stderr) or a timeout becomes a
:class:`Outcome` with a status and a message, and no value.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditeval.adapters.base import Adapter
from auditeval.adapters.trec_eval import TrecEvalBinary, parse_output
from auditeval.adapters.trec_names import batches

STDERR_TAIL = 600  # characters of stderr kept when a reference fails


@dataclass(frozen=True)
class Request:
    key: str  # unique within one reference
    run_file: str  # the file the tool reads (original or rewritten)
    tool: str  # the tool's measure spelling (adapter-specific)
    options: tuple[str, ...]
    run_label: str = ""  # the run as the report names it (messages say it instead of the temporary file)


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
    seconds: float = 0.0


def _tail(text: str) -> str:
    """What a report shows of a tool's stderr: a Python traceback's last line (the exception,
    which says what went wrong), otherwise the last ``STDERR_TAIL`` characters."""
    text = (text or "").strip()
    if "Traceback (most recent call last)" in text:
        last = [ln.strip() for ln in text.splitlines() if ln.strip()][-1]
        return f"{last} (Python traceback, last line)"
    return text[-STDERR_TAIL:] if len(text) > STDERR_TAIL else text


def _jobs(requests: list[Request]) -> list[dict[str, Any]]:
    by_run: dict[str, list[dict[str, Any]]] = {}
    for r in requests:
        by_run.setdefault(r.run_file, []).append({"key": r.key, "tool": r.tool, "options": list(r.options)})
    return [{"run": run, "requests": reqs} for run, reqs in by_run.items()]


def _run_python(a: Adapter, qrels: str, requests: list[Request], timeout: float) -> Outcome:
    out = Outcome(a.name, a.engine())
    with tempfile.TemporaryDirectory(prefix="auditeval-ref-") as d:
        spec = {"adapter": a.name, "qrels": qrels, "jobs": _jobs(requests), "provider": getattr(a, "provider", None)}
        spec_path, result_path = Path(d, "spec.json"), Path(d, "result.json")
        spec_path.write_text(json.dumps(spec))
        # -P: the script's folder (this package) is not put on the import path, where its
        # pytrec_eval.py and ranx.py would shadow the tools themselves
        cmd = [sys.executable, "-P", str(Path(__file__).with_name("tools.py")), str(spec_path), str(result_path)]
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired as exc:
            out.status, out.message = "timeout", f"timeout after {timeout:g} s; stderr: {_tail(_text(exc.stderr))}"
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


def _text(b: bytes | str | None) -> str:
    return b.decode("utf-8", "replace") if isinstance(b, bytes) else (b or "")


def _run_binary(a: TrecEvalBinary, qrels: str, requests: list[Request], timeout: float) -> Outcome:
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
        try:
            res = subprocess.run(cmd, capture_output=True, text=True, timeout=max(left, 0.01))
        except subprocess.TimeoutExpired as exc:
            out.status, out.message = "timeout", f"timeout after {timeout:g} s; stderr: {_tail(_text(exc.stderr))}"
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


def run_one(a: Adapter, qrels: str, requests: list[Request]) -> Outcome:
    t0 = time.perf_counter()
    reason = a.available()
    if reason is not None:
        out = Outcome(a.name, a.name, status="not installed" if reason.startswith("not installed") else "unsupported",
                      message=reason)
    elif not requests:
        out = Outcome(a.name, a.engine())
    elif isinstance(a, TrecEvalBinary):
        out = _run_binary(a, qrels, requests, a.timeout)
    else:
        out = _run_python(a, qrels, requests, a.timeout)
    out.seconds = time.perf_counter() - t0
    return out


def start(tasks: list[tuple[Adapter, str, list[Request]]]) -> tuple[ThreadPoolExecutor, list[Future]]:
    """Start every reference at once; the caller collects ``future.result()`` when it needs them."""
    pool = ThreadPoolExecutor(max_workers=max(len(tasks), 1), thread_name_prefix="auditeval-ref")
    return pool, [pool.submit(run_one, a, q, reqs) for a, q, reqs in tasks]
