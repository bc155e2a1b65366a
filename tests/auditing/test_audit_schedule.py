"""Scheduling of the audit's references: the cap on references at once, longest expected cost
first, each reference's own CPU time, ``--quick``, and Ctrl-C.

The references here are a test-only adapter (:class:`Fake`) whose child process sleeps or burns
CPU for a known time and writes when it started and ended, so every figure is checked against
what the child did, not against the scheduler's own record.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from auditeval.adapters import ADAPTERS
from auditeval.adapters.base import Adapter
from auditeval.adapters.pytrec_eval import PytrecEval
from auditeval.adapters.runner import Request, run_one, start
from auditeval.auditing.core import QUICK_FACTOR, audit
from auditeval.render.audit import render_audit

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]  # not paths.REPO: the Ctrl-C driver imports this file alone

# the fake tool: python -c CHILD MODE SECONDS LOG RESULT
CHILD = r"""
import json, os, subprocess, sys, time
mode, sec, log, result = sys.argv[1], float(sys.argv[2]), sys.argv[3], sys.argv[4]
pids = [os.getpid()]
if mode == "tree":  # a grandchild too: the process group, not only the child, must go
    pids.append(subprocess.Popen([sys.executable, "-c", "import time; time.sleep(120)"]).pid)
rec = {"start": time.time(), "pids": pids}
with open(log + ".start", "w") as fh:
    json.dump(rec, fh)
if mode.startswith("burn"):
    t = time.process_time()
    while time.process_time() - t < sec:
        pass
else:
    time.sleep(sec)
rec["end"] = time.time()
with open(log, "w") as fh:
    json.dump(rec, fh)
values = {}
if mode == "burnv":  # one value per request, its run file's name as the aggregate
    with open(sys.argv[5]) as fh:
        spec = json.load(fh)
    values = {r["key"]: {"topics": {}, "aggregate": os.path.basename(j["run"])} for j in spec["jobs"]
              for r in j["requests"]}
with open(result, "w") as fh:
    json.dump(values, fh)
"""


class Fake(Adapter):
    """A reference that computes nothing: its child sleeps (``sleep``), burns CPU (``burn``) or
    sleeps beside a grandchild (``tree``) for ``seconds``, and logs its start and end."""

    profile = "trec_eval-9.0.8"

    def __init__(self, name: str, cost: float, mode: str = "sleep", seconds: float = 0.3, log: str = "",
                 computes: tuple[str, ...] = ("AP",)):
        self.name, self.cost, self.startup = name, cost, 0.0
        self.mode, self.seconds, self.log, self.computes = mode, seconds, log, computes

    def tool_measure(self, m, conv):
        return str(m) if str(m) in self.computes else None

    def child_command(self, spec: str, result: str) -> list[str]:
        log = self.log or str(Path(result).with_name("log"))
        return [sys.executable, "-c", CHILD, self.mode, str(self.seconds), log, result, spec]


def _logged(log_dir: Path, name: str) -> dict:
    return json.loads((log_dir / name).read_text())


def _alive(pid: int) -> bool:
    """True while ``pid`` exists and is not a zombie."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (FileNotFoundError, ProcessLookupError):
        return False
    return state != "Z"


def test_at_most_jobs_at_once_longest_first(tmp_path: Path) -> None:
    costs = {"a": 1.0, "b": 4.0, "c": 2.0, "d": 3.0, "e": 0.5}
    fakes = [Fake(n, c, seconds=0.4, log=str(tmp_path / n)) for n, c in costs.items()]
    run = tmp_path / "run"
    run.write_text("1 Q0 d 1 1.0 r\n" * 2000)  # 2000 lines: expected = cost * 0.02
    started: list[str] = []
    lock = threading.Lock()

    def event(name: str, what: str, outcome) -> None:
        with lock:
            if what == "start":
                started.append(name)

    running = start([(f, "q", [Request("k", str(run), "AP", ())]) for f in fakes], jobs=2, on_event=event)
    outs = running.results()
    assert [o.adapter for o in outs] == list(costs)  # outcomes in the tasks' order
    assert all(o.status == "ok" for o in outs)
    assert started[:2] == ["b", "d"]  # cost 4 and 3 start first (LPT)
    assert started == ["b", "d", "c", "a", "e"]
    # from the children's own clocks: never more than two alive at once
    spans = [(_logged(tmp_path, n)["start"], _logged(tmp_path, n)["end"]) for n in costs]
    for s, _ in spans:
        assert sum(1 for s2, e2 in spans if s2 <= s < e2) <= 2
    # and the pair started first ran side by side: both started before either ended
    b, d = _logged(tmp_path, "b"), _logged(tmp_path, "d")
    assert max(b["start"], d["start"]) < min(b["end"], d["end"])
    # the expected cost of b: 4.0 s per 100,000 lines; the file has 2000 lines of 15 bytes, estimated
    # as 30,000 / 50.7 = 591.7 lines -> 4.0 * 591.7 / 1e5 = 0.02367 s
    assert running.expected[1] == pytest.approx(4.0 * 30000 / 50.7 / 1e5)


def test_cpu_seconds_of_the_child(tmp_path: Path) -> None:
    req = [Request("k", "r", "AP", ())]
    burn = run_one(Fake("burn", 1.0, mode="burn", seconds=0.5), "q", req)
    assert burn.status == "ok"
    assert burn.cpu_seconds >= 0.5  # the child burnt 0.5 s of its own process time, plus start-up
    assert burn.seconds >= burn.cpu_seconds * 0.5
    nap = run_one(Fake("nap", 1.0, mode="sleep", seconds=0.6), "q", req)
    assert nap.seconds >= 0.6
    assert 0 < nap.cpu_seconds < 0.5  # interpreter start-up only: a sleep costs no CPU


def test_timeout_kills_the_whole_group(tmp_path: Path) -> None:
    slow = Fake("slow", 1.0, mode="tree", seconds=60, log=str(tmp_path / "slow"))
    slow.timeout = 1.0
    t0 = time.monotonic()
    out = run_one(slow, "q", [Request("k", "r", "AP", ())])
    assert out.status == "timeout" and "timeout after 1 s" in out.message
    assert time.monotonic() - t0 < 5
    pids = json.loads((tmp_path / "slow.start").read_text())["pids"]
    deadline = time.monotonic() + 2
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(p) for p in pids)


def _files(tmp_path: Path) -> tuple[str, str]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r.write_text("1 Q0 a 1 2.0 x\n1 Q0 b 2 1.0 x\n2 Q0 c 1 1.0 x\n")
    return str(q), str(r)


def test_quick_leaves_out_the_costly_reference(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    cheap = Fake("fake:cheap", PytrecEval.cost, seconds=0.0, computes=("AP",))
    costly = Fake("fake:costly", PytrecEval.cost * QUICK_FACTOR * 2, seconds=0.0, computes=("AP", "P@10"))
    monkeypatch.setitem(ADAPTERS, "fake:cheap", cheap)
    monkeypatch.setitem(ADAPTERS, "fake:costly", costly)
    q, r = _files(tmp_path)
    rep = audit(q, r, measures=["AP", "P@10"], against=["fake:cheap", "fake:costly"], progress=False, quick=True)
    assert rep.left_out == ["fake:costly"]
    eng = {e.name: e for e in rep.engines}
    assert eng["fake:cheap"].status == "ok"
    assert eng["fake:costly"].status == "left out"
    assert "the only reference computing P@10" in eng["fake:costly"].message
    assert "is also checked by fake:cheap" in eng["fake:costly"].message  # same profile
    assert {row.engine for row in rep.agreement} == {"fake:cheap"}
    text = render_audit(rep, "text", width=200)
    assert "left out by --quick: fake:costly" in text
    assert json.loads(render_audit(rep, "json"))["left_out"] == ["fake:costly"]
    # without --quick both run
    full = audit(q, r, measures=["AP", "P@10"], against=["fake:cheap", "fake:costly"], progress=False)
    assert full.left_out == [] and {row.engine for row in full.agreement} == {"fake:cheap", "fake:costly"}


DRIVER = r"""
import sys
sys.path.insert(0, {tests!r})
from test_audit_schedule import Fake
from auditeval.adapters import ADAPTERS
ADAPTERS["fake:slow"] = Fake("fake:slow", 5.0, mode="tree", seconds=120, log={log!r})
ADAPTERS["fake:queued"] = Fake("fake:queued", 1.0, mode="sleep", seconds=120, log={log2!r})
sys.argv = ["auditeval", "audit", {q!r}, {r!r}, "-m", "AP", "--against", "fake:slow,fake:queued", "--jobs", "1"]
from auditeval.cli.main import entry
entry()
"""


def test_ctrl_c_kills_every_child_and_exits_130(tmp_path: Path) -> None:
    q, r = _files(tmp_path)
    log, log2 = tmp_path / "slow", tmp_path / "queued"
    script = tmp_path / "driver.py"
    script.write_text(DRIVER.format(tests=str(Path(__file__).resolve().parent), log=str(log), log2=str(log2), q=q, r=r))
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, str(script)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    started = Path(str(log) + ".start")
    deadline = time.monotonic() + 60
    while not started.is_file() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.05)
    assert started.is_file(), proc.stderr.read() if proc.poll() is not None else "the slow reference never started"
    time.sleep(0.2)
    pids = json.loads(started.read_text())["pids"]
    assert all(_alive(p) for p in pids)
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert proc.returncode == 130
    assert err.decode() == "auditeval: interrupted\n"
    assert out == b""
    deadline = t0 + 1.0  # every child gone within a second of Ctrl-C
    while any(_alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.02)
    assert not any(_alive(p) for p in pids)
    assert not Path(str(log2) + ".start").exists()  # the queued reference (--jobs 1) never started


def test_closed_stdout_ends_quietly(tmp_path: Path) -> None:
    """``auditeval ... | head -c 0``: a closed pipe is exit status 0 and nothing on stderr."""
    q, r = _files(tmp_path)
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    proc = subprocess.Popen([sys.executable, "-m", "auditeval", "eval", q, r, "-m", "AP"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, env=env)
    proc.stdout.close()  # the reader is gone before the command writes
    err = proc.stderr.read()
    assert proc.wait(timeout=60) == 0
    assert err == b""


def test_reference_board_states() -> None:
    """The terminal display: waiting -> running -> done with wall and CPU seconds, or the failure."""
    import io

    from auditeval.adapters.runner import Outcome
    from auditeval.render.progress import ReferenceBoard, audit_progress

    assert audit_progress(io.StringIO()) is None  # not a terminal: no display at all
    bar = audit_progress(io.StringIO(), True)
    board = ReferenceBoard(bar, [("slow", 12.4), ("fast", 0.8)])
    fields = lambda name: bar.tasks[board.task[name]].fields["state"]  # noqa: E731
    assert fields("slow") == "waiting (expected ~12 s CPU)"
    board.event("slow", "start")
    assert fields("slow") == "running" and bar.tasks[board.task["slow"]].started
    board.event("slow", "end", Outcome("slow", "slow", seconds=3.26, cpu_seconds=2.5))
    assert fields("slow") == "done: 3.3 s, CPU 2.5 s" and bar.tasks[board.task["slow"]].finished
    board.event("fast", "start")
    board.event("fast", "end", Outcome("fast", "fast", status="timeout", seconds=1.0))
    assert fields("fast") == "timeout after 1.0 s"


def _three_runs(tmp_path: Path) -> list[str]:
    """Three run files r1, r2, r3 of 1,000 lines each (what the schedule's cost reads)."""
    runs = []
    for n in ("r1", "r2", "r3"):
        (tmp_path / n).write_text("1 Q0 d 1 1.0 r\n" * 1000)
        runs.append(str(tmp_path / n))
    return runs


def test_a_dominant_reference_is_split_per_run(tmp_path: Path) -> None:
    """One reference expected to cost more than an even share, on three runs: one child per
    run, spread over the cores; one outcome with every run's values and the CPU of all three."""
    runs = _three_runs(tmp_path)
    heavy = Fake("heavy", 10.0, mode="burnv", seconds=0.4)
    light = Fake("light", 1.0, mode="sleep", seconds=0.1)
    events: list[tuple[str, str]] = []
    tasks = [(heavy, "q", [Request(f"{i}|AP", f, "AP", ()) for i, f in enumerate(runs)]),
             (light, "q", [Request("0|AP", runs[0], "AP", ())])]
    running = start(tasks, jobs=2, on_event=lambda name, what, out: events.append((name, what)))
    assert [(i, len(reqs)) for i, reqs, _ in running.pieces] == [(0, 1), (0, 1), (0, 1), (1, 1)]
    h, li = running.results()
    assert h.status == "ok" and li.status == "ok"
    assert {k: v["aggregate"] for k, v in h.values.items()} == {"0|AP": "r1", "1|AP": "r2", "2|AP": "r3"}
    assert h.cpu_seconds >= 3 * 0.4  # three children, each burnt 0.4 s of its own CPU
    assert events[0] == ("heavy", "start")  # its pieces are the longest: they start first
    assert events.count(("heavy", "start")) == 1 and events.count(("heavy", "end")) == 1


def test_a_reference_above_half_a_share_is_split_when_others_are_overestimated(tmp_path: Path) -> None:
    """The 12-run audit's case: cwl_eval (341 s expected) under an even share (409 s) because
    ranx's cold-cache cost (171 s) is declared; it ran as one child while a core idled. Here:
    ``slow`` reads 3 runs of 1,000 lines at cost 10 (0.3 s expected), ``over`` one run at cost
    40 (0.4 s): the share on 2 cores is 0.35 s, half of it 0.175 s; ``slow`` is split (one child
    per run), ``over`` (one file) cannot be; a reference under half a share stays whole."""
    runs = _three_runs(tmp_path)
    slow = Fake("slow", 10.0, mode="burnv", seconds=0.05)
    over = Fake("over", 40.0, mode="sleep", seconds=0.05)
    small = Fake("small", 1.0, mode="sleep", seconds=0.05)  # 0.03 s on its 3 runs: stays one child
    tasks = [(slow, "q", [Request(f"{i}|AP", f, "AP", ()) for i, f in enumerate(runs)]),
             (over, "q", [Request("0|AP", runs[0], "AP", ())]),
             (small, "q", [Request(f"{i}|AP", f, "AP", ()) for i, f in enumerate(runs)])]
    running = start(tasks, jobs=2)
    assert sorted((i, len(reqs)) for i, reqs, _ in running.pieces) == [(0, 1), (0, 1), (0, 1), (1, 1), (2, 3)]
    outs = running.results()
    assert [o.status for o in outs] == ["ok", "ok", "ok"]
    assert {k: v["aggregate"] for k, v in outs[0].values.items()} == {"0|AP": "r1", "1|AP": "r2", "2|AP": "r3"}
