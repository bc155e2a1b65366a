"""The execution seam (``auditeval.execution``): the same bytes whatever runs the tasks.

Every wired command (eval, sweep, compare, card, verify --table, pool bias, pool growth, and
the audit's native per-run analyses) prints the same stdout in every format for ``--jobs 1``
(in process), a local pool of two spawned processes and a two-worker
``dask.distributed.LocalCluster`` (``--scheduler``), on examples/ and three robust03 runs
cut to their first 100 lines per topic. Compare's pair blocks and growth's blocks of orders
are made tiny here (``PAIR_BLOCK``, ``ORDER_BLOCK``: the blocks are cut in the parent), so
several blocks travel. The values themselves are checked against the plain-Python model
(``tests/plain_model.py``). Failures: a task that raises once is retried (same output); one
that always raises, or kills its worker, is reported with its run; bad input is the same
``path:line: reason`` on every backend; Ctrl-C on a pool stops it (exit 130, no worker left).

One pool (two spawned workers) serves the whole module: ``cli.common.backend`` is pointed at
it for ``--jobs 2`` (a pool per command would spend most of this file starting processes);
``test_jobs_flag_builds_its_own_pool`` runs the flag as given.
"""

from __future__ import annotations

import gzip
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import plain_model as pm
import pytest
from cli_helpers import run_cli
from paths import REPO

from auditeval.cli import common
from auditeval.execution import DaskCluster, InProcess, LocalPool, TaskFailed, backend_for
from auditeval.execution.backends import Backend

pytestmark = pytest.mark.slow

ROOT = REPO
EX = ROOT / "examples"
RUNS = ("synDistinct", "synTies", "synMissing")
PY = sys.executable


class _Kept(Backend):
    """The module's pool under ``--jobs 2``: closing a command does not stop it."""

    name = "local"

    def __init__(self, pool: LocalPool):
        self.pool = pool
        self.workers = pool.workers

    def share(self, value):
        return self.pool.share(value)

    seen: list[tuple[str, int]] = []  # (task function, items) of every map, for the tests to check

    def map(self, fn, shared, items, labels=None, progress=None):
        _Kept.seen.append((fn.__name__, len(items)))
        return self.pool.map(fn, shared, items, labels, progress)


@pytest.fixture(scope="module")
def cluster():
    from distributed import LocalCluster

    c = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None, host="127.0.0.1")
    yield c
    c.close()


@pytest.fixture(scope="module")
def pool():
    p = LocalPool(2)
    yield p
    p.close()


@pytest.fixture
def backends(cluster, pool, monkeypatch):
    """``--jobs 2`` -> the module's pool; ``--scheduler`` -> a client of the cluster."""
    chosen = common.backend

    def backend(args, *rest, **kwargs):
        if getattr(args, "jobs", 1) == 2 and not getattr(args, "scheduler", None):
            return _Kept(pool)
        return chosen(args, *rest, **kwargs)

    monkeypatch.setattr(common, "backend", backend)
    return [[], ["--jobs", "2"], ["--scheduler", cluster.scheduler_address]]


@pytest.fixture(scope="module")
def robust(robust03_like, tmp_path_factory):
    """The robust03-shaped qrels and three runs on their first 12 topics, each run cut to its
    first 50 lines per topic (plain files): small enough for three backends per command."""
    d = tmp_path_factory.mktemp("robust")
    lines = robust03_like.qrels.read_text().splitlines(keepends=True)
    topics = sorted({ln.split()[0] for ln in lines})[:12]
    (d / "qrels.txt").write_text("".join(ln for ln in lines if ln.split()[0] in topics))
    out = []
    for name in RUNS:
        kept, seen = [], {}
        for line in gzip.open(robust03_like.run(name), "rt"):
            t = line.split()[0]
            seen[t] = seen.get(t, 0) + 1
            if t in topics and seen[t] <= 50:
                kept.append(line)
        path = d / f"{name}.txt"
        path.write_text("".join(kept))
        out.append(str(path))
    return str(d / "qrels.txt"), out


def _same_everywhere(backends, *argv):
    """stdout of ``auditeval ARGV`` for every backend: all exit 0 and equal, byte for byte."""
    got = [run_cli(*argv, *extra) for extra in backends]
    for (code, _out, err), extra in zip(got, backends, strict=True):
        assert code == 0, (extra, err)
    assert got[1][1] == got[0][1]
    assert got[2][1] == got[0][1]
    assert got[1][2] == got[0][2] and got[2][2] == got[0][2]  # the notes too
    return got[0][1]


# ----------------------------------------------------------------------------- the commands
@pytest.mark.parametrize("fmt", ["text", "tsv", "json"])
def test_eval_same_bytes(backends, robust, fmt):
    qrels, runs = robust
    out = _same_everywhere(backends, "eval", qrels, *runs, "-q", "--format", fmt, "-m", "AP P@10 nDCG@10 RR")
    if fmt == "tsv":  # and the numbers are the plain model's (an independent reading of the files)
        rows = [r for r in (ln.split("\t") for ln in out.splitlines()[1:]) if len(r) > 4]
        ap = {(r[0], r[2]): float(r[3]) for r in rows if r[1] == "AP" and r[2] != "all"}
        for path, tag in zip(runs, RUNS, strict=True):
            model = pm.per_topic(qrels, path, "AP", pm.profile("trec_eval-9.0.8"))
            assert {t: ap[(tag, t)] for t in model} == pytest.approx(model, abs=1e-12)


def test_eval_examples_same_bytes(backends):
    _same_everywhere(backends, "eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(EX / "rerank.txt"), "-q")


@pytest.mark.parametrize("fmt", ["text", "tsv", "json"])
def test_sweep_same_bytes(backends, robust, fmt):
    qrels, runs = robust
    _same_everywhere(backends, "sweep", qrels, *runs, "-m", "AP nDCG@10 P@10 RR", "--vary", "ties", "--vary", "depth",
                     "--vary", "rel", "-q", "--format", fmt)


@pytest.mark.parametrize("fmt", ["text"])
def test_compare_same_bytes_over_many_pair_blocks(backends, robust, fmt, monkeypatch):
    import auditeval.stats.run_comparison as sc

    qrels, runs = robust
    args = ("compare", qrels, *runs, str(EX / "bm25.txt"), "-m", "AP P@10", "--trials", "300", "--format", fmt)
    code, whole, _ = run_cli(*args)  # every pair in one block, in process
    assert code == 0
    monkeypatch.setattr(sc, "PAIR_BLOCK", 2)  # 3 blocks of the 3 pairs of 3 paired runs (bm25 shares no topic)
    assert _same_everywhere(backends, *args) == whole


@pytest.fixture(scope="module")
def synthetic(tmp_path_factory):
    """25 topics (more than the exact randomization test's 20: sampled sign flips) and four runs
    of 30 random documents per topic, 0-2 grades."""
    d = tmp_path_factory.mktemp("synthetic")
    rng = np.random.default_rng(18)
    topics = [f"T{k:02d}" for k in range(25)]
    (d / "qrels.txt").write_text("".join(f"{t} 0 D{j} {int(rng.integers(0, 3))}\n" for t in topics for j in range(30)))
    runs = []
    for r in range(4):
        lines = [f"{t} Q0 D{j} {k + 1} {30 - k} run{r}\n" for t in topics
                 for k, j in enumerate(rng.permutation(30)[:20])]
        (d / f"run{r}.txt").write_text("".join(lines))
        runs.append(str(d / f"run{r}.txt"))
    return str(d / "qrels.txt"), runs


@pytest.mark.parametrize("fmt", ["json", "markdown"])
def test_compare_same_bytes_over_many_resample_swap_and_subset_blocks(backends, synthetic, fmt, monkeypatch,
                                                                       tmp_path):
    """Bootstrap and sign-flip blocks, swap-matrix rows and subset-curve blocks travel too, several
    each: ``CHUNK`` is cut to 64 trials in this process only (it names the draws, so the in-process
    reference is made with it; the workers never draw, so they never read it), the swap rows to 1
    system, the subset blocks to 2 pairs, the pair blocks to 2 pairs."""
    import auditeval.stats.bootstrap as bs
    import auditeval.stats.rng as rng
    import auditeval.stats.run_comparison as sc
    import auditeval.stats.topicset as ts

    qrels, runs = synthetic
    strata = tmp_path / "strata.csv"
    strata.write_text("".join(f"T{k:02d},{'ab'[k % 2]}\n" for k in range(25)))
    args = ("compare", qrels, *runs, "-m", "AP P@10", "--trials", "301", "--strata", str(strata), "--format", fmt)
    monkeypatch.setattr(rng, "CHUNK", 64)  # 5 blocks of 301 trials; the subset curve's 1000: 16
    code, whole, _ = run_cli(*args)  # in process, the default blocks of systems and pairs
    assert code == 0
    monkeypatch.setattr(bs, "SWAP_ROWS", 1)
    monkeypatch.setattr(ts, "SUBSET_PAIRS", 2)
    monkeypatch.setattr(sc, "PAIR_BLOCK", 2)
    _Kept.seen.clear()
    assert _same_everywhere(backends, *args) == whole
    per_measure = [("resample_block", 10), ("swap_task", 4), ("pair_block", 3), ("subset_block", 16 * 3)]
    # JSON: each measure's pair rows encoded on the backend too, a block of 6 rows each
    written = [("items_text", 1)] * 2 if fmt == "json" else []
    assert _Kept.seen[-8 - len(written):] == per_measure * 2 + written


def test_compare_pairs_are_hand_checkable(backends, robust):
    """The per-pair numbers that need no resampling, against numpy on the eval TSV."""
    qrels, runs = robust
    out = _same_everywhere(backends, "compare", qrels, *runs, "-m", "AP", "--trials", "200", "--format", "json")
    code, tsv, _ = run_cli("eval", qrels, *runs, "-m", "AP", "-q", "--format", "tsv")
    per: dict[str, dict[str, float]] = {}
    for r in [r for r in (ln.split("\t") for ln in tsv.splitlines()[1:]) if len(r) > 4]:
        if r[2] != "all":
            per.setdefault(r[0], {})[r[2]] = float(r[3])
    rows = json.loads(out)["measures"][0]["pairs"]["rows"]
    assert len(rows) == 3
    for row in rows:
        common_t = sorted(set.intersection(*(set(p) for p in per.values())))  # paired over every run's topics
        d = np.array([per[row["a"]][t] - per[row["b"]][t] for t in common_t])
        assert row["mean_diff"] == pytest.approx(d.mean(), abs=1e-12)
        assert (row["wins"], row["ties"], row["losses"]) == ((d > 0).sum(), (d == 0).sum(), (d < 0).sum())


@pytest.mark.parametrize("fmt", ["json"])
def test_card_same_bytes(backends, robust, fmt):
    qrels, runs = robust
    _same_everywhere(backends, "card", qrels, *runs, "--baseline", runs[1], "-m", "AP P@10", "--format", fmt)


@pytest.mark.parametrize("fmt", ["json"])
def test_verify_table_same_bytes(backends, robust, tmp_path, fmt):
    qrels, runs = robust
    table = tmp_path / "table.csv"
    table.write_text(f"run,measure,value\n{Path(runs[0]).name},P@10,0.5\n{Path(runs[1]).name},AP,0.2\n"
                     f"{Path(runs[0]).name},AP,0.2\n")
    extra = ["--json"] if fmt == "json" else []
    got = [run_cli("verify", qrels, *runs[:2], "--table", str(table), "--departures", "1", *extra, *b) for b in backends]
    assert {g[0] for g in got} <= {0, 1}
    assert got[1] == got[0] and got[2] == got[0]


@pytest.mark.parametrize(("what", "fmt"), [("bias", "json"), ("growth", "text")])
def test_pool_same_bytes(backends, robust, what, fmt, monkeypatch):
    import auditeval.pooling.growth as pg

    qrels, runs = robust
    extra = ["--trials", "200"] if what == "bias" else ["--orders", "40"]
    args = ("pool", what, qrels, *runs, "--depth", "20", "--format", fmt, *extra)
    code, whole, _ = run_cli(*args)
    assert code == 0
    monkeypatch.setattr(pg, "ORDER_BLOCK", 7)  # 6 blocks of the 40 orders
    assert _same_everywhere(backends, *args) == whole


def test_audit_native_analyses_same_report(cluster, pool, robust):
    """The audit's diagnostics and tie envelope, per run on each backend (no reference: the
    native side alone); the JSON report equal but for its clocks."""
    from auditeval.auditing.core import audit
    from auditeval.render.audit import render

    qrels, runs = robust

    def report(backend):
        rep = audit(qrels, runs, measures=["AP", "P@10", "nDCG@10"], against=[], backend=backend)
        doc = json.loads(render(rep, "json"))
        return _without_clocks(doc)

    with DaskCluster(cluster.scheduler_address) as dask:
        got = [report(None), report(_Kept(pool)), report(dask)]
    assert got[0]["ties"] and got[0]["diagnostics"]
    assert got[1] == got[0] and got[2] == got[0]


def _without_clocks(x):
    if isinstance(x, dict):
        return {k: _without_clocks(v) for k, v in x.items() if "seconds" not in k}
    if isinstance(x, list):
        return [_without_clocks(v) for v in x]
    return x


# ----------------------------------------------------------------------------- the seam itself
def test_results_in_item_order_with_progress(cluster, pool):
    import operator

    items = list(range(25))
    with DaskCluster(cluster.scheduler_address) as dask:
        for be in (InProcess(), _Kept(pool), dask):
            seen = []
            got = list(be.map(operator.add, be.share(100), items, progress=lambda d, n, seen=seen: seen.append((d, n))))
            assert got == [100 + i for i in items]
            assert seen == [(k, 25) for k in range(1, 26)]


def test_jobs_option_values():
    assert common.jobs_value("auto") == "auto"
    assert common.jobs_value("3") == 3
    for bad in ("0", "-1", "x"):
        with pytest.raises(Exception, match="--jobs"):
            common.jobs_value(bad)
    assert isinstance(backend_for(1), InProcess)
    assert isinstance(backend_for(None), InProcess)


def test_jobs_are_capped_at_the_cores_and_the_tasks(monkeypatch):
    """``--jobs N`` starts at most as many workers as there are cores and tasks; a note names
    what lowered it (``auto`` is the cores, capped by the tasks, without a note)."""
    from auditeval.execution import backends

    monkeypatch.setattr(backends, "cores", lambda: 2)
    assert backends.worker_count(999, 2) == (2, "--jobs 999: the tasks run on 2 worker processes (this machine "
                                                "has 2 core(s) and the command has 2 task(s))")
    assert backends.worker_count(4) == (2, "--jobs 4: the tasks run on 2 worker processes (this machine has 2 core(s))")
    assert backends.worker_count(2, 1) == (1, "--jobs 2: the tasks run in this process (this machine has 2 core(s) "
                                              "and the command has 1 task(s))")
    assert backends.worker_count(2, 5) == (2, None) and backends.worker_count(1, 0) == (1, None)
    assert backends.worker_count("auto", 1) == (1, None) and backends.worker_count("auto") == (2, None)
    be = backend_for(3, tasks=1)
    assert isinstance(be, InProcess) and be.notes == (backends.worker_count(3, 1)[1],)


def test_scheduler_from_environment(cluster, monkeypatch):
    args = ("eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), "--format", "tsv")
    expected = run_cli(*args)
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", cluster.scheduler_address)
    with backend_for(1) as be:
        assert isinstance(be, DaskCluster)
    assert run_cli(*args) == expected


def test_jobs_flag_builds_its_own_pool():
    args = ("eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(EX / "rerank.txt"), "-q", "--format", "tsv")
    got = [run_cli(*args, "--jobs", j) for j in ("1", "2")]
    assert got[0][0] == 0 and got[1] == got[0]


# ----------------------------------------------------------------------------- failures
LABELS = ["run-a", "run-b", "run-c", "run-d"]


def _add_all(be):
    import operator

    return list(be.map(operator.add, be.share(10), [1, 2, 3, 4], LABELS))


def _worker_env(dask, value: str | None) -> None:
    """Set (None: remove) ``AUDITEVAL_TEST_FAIL`` in every worker of the cluster (``exec`` of
    a line: a bound method of ``os.environ`` would travel as a copy of the mapping)."""
    line = (f"import os; os.environ['AUDITEVAL_TEST_FAIL'] = {value!r}" if value is not None
            else "import os; os.environ.pop('AUDITEVAL_TEST_FAIL', None)")
    dask._client.run(exec, line, {})


def test_a_task_failing_once_is_retried(cluster, monkeypatch):
    monkeypatch.setenv("AUDITEVAL_TEST_FAIL", "run-b:1")
    assert _add_all(InProcess()) == [11, 12, 13, 14]
    with LocalPool(2) as fresh:  # made now: its workers see the variable
        assert _add_all(fresh) == [11, 12, 13, 14]
    with DaskCluster(cluster.scheduler_address) as dask:
        _worker_env(dask, "run-b:1")
        try:
            assert _add_all(dask) == [11, 12, 13, 14]
            check = "import os; assert os.environ['AUDITEVAL_TEST_FAIL']"  # raises on a worker without it
            assert list(dask._client.run(exec, check, {}).values()) == [None, None]
        finally:
            _worker_env(dask, None)


def test_a_task_failing_twice_is_reported_with_its_run(cluster, monkeypatch, robust):
    monkeypatch.setenv("AUDITEVAL_TEST_FAIL", "run-c:always")
    message = "run-c: task failed twice, last: RuntimeError: injected failure (AUDITEVAL_TEST_FAIL) on attempt 2"
    with pytest.raises(TaskFailed) as got:
        _add_all(InProcess())
    assert str(got.value) == message
    with DaskCluster(cluster.scheduler_address) as dask:
        _worker_env(dask, "run-c:always")
        try:
            with pytest.raises(TaskFailed) as got:
                _add_all(dask)
            assert str(got.value) == message
        finally:
            _worker_env(dask, None)
    qrels, runs = robust  # on the command line: one error line naming the run's file, exit 2
    monkeypatch.setenv("AUDITEVAL_TEST_FAIL", f"{runs[2]}:always")
    assert run_cli("eval", qrels, *runs) == (2, "", f"auditeval: error: {runs[2]}: task failed twice, last: "
                                             "RuntimeError: injected failure (AUDITEVAL_TEST_FAIL) on attempt 2\n")


def test_a_dead_worker_is_replaced_and_its_task_retried(monkeypatch):
    monkeypatch.setenv("AUDITEVAL_TEST_FAIL", "run-a:exit:1")
    with LocalPool(2) as fresh:
        assert _add_all(fresh) == [11, 12, 13, 14]
    monkeypatch.setenv("AUDITEVAL_TEST_FAIL", "run-a:exit:always")
    with LocalPool(2) as fresh, pytest.raises(TaskFailed, match="^run-a: task failed twice, last: BrokenProcessPool"):
        _add_all(fresh)


def test_bad_input_is_the_same_error_on_every_backend(backends, robust, tmp_path):
    qrels, runs = robust
    bad = tmp_path / "bad.txt"
    bad.write_text("303 Q0 D1 1 2.5 tag\n303 Q0 D2 1.5 tag\n")
    got = [run_cli("eval", qrels, runs[0], str(bad), *b) for b in backends]
    assert got[0] == (2, "", f"auditeval: error: {bad}:2: run line has 5 fields, expected 6 (topic Q0 docno rank score tag)\n")
    assert got[1] == got[0] and got[2] == got[0]


def test_a_later_pool_runs_in_the_environment_and_folder_it_was_made_in(tmp_path, monkeypatch):
    """The workers of every pool of a process fork from one server, started by its first pool;
    each pool's workers still read the environment and the working folder of the moment the
    pool was made (a relative run path is read where the command was started)."""
    monkeypatch.delenv("AUDITEVAL_PROBE", raising=False)
    with LocalPool(2) as first:
        assert list(first.map(os.getenv, first.share("AUDITEVAL_PROBE"), ["unset"])) == ["unset"]
    (tmp_path / "marker.txt").write_text("")
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("AUDITEVAL_PROBE", "set")
    with LocalPool(2) as later:
        assert list(later.map(os.getenv, later.share("AUDITEVAL_PROBE"), ["unset"] * 4)) == ["set"] * 4
        assert list(later.map(os.access, later.share("marker.txt"), [os.R_OK] * 4)) == [True] * 4


def test_released_workers_end_before_the_pool_is_closed():
    """``release``: the command maps no more, and the workers exit while it renders."""
    import operator

    with LocalPool(2) as pool:
        assert list(pool.map(operator.add, pool.share(1), [1, 2, 3])) == [2, 3, 4]
        pool._started()
        procs = list(pool._pool._processes.values())
        assert len(procs) == 2 and all(p.is_alive() for p in procs)
        pool.release()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and any(p.is_alive() for p in procs):
            time.sleep(0.05)
        assert not any(p.is_alive() for p in procs)
        with pytest.raises(RuntimeError, match="after shutdown"):
            list(pool.map(operator.add, pool.share(1), [1]))


def test_workers_fork_from_a_server_that_imported_the_tasks_where_the_platform_has_one():
    import multiprocessing

    from auditeval.execution.backends import PRELOAD, pool_context

    has = "forkserver" in multiprocessing.get_all_start_methods()
    assert pool_context().get_start_method() == ("forkserver" if has else "spawn")
    code = f"import sys, {PRELOAD}; print('auditeval.execution.tasks' in sys.modules, 'pandas' in sys.modules)"
    assert subprocess.run([PY, "-c", code], capture_output=True, text=True, check=True).stdout == "True False\n"


def _children(pid: int) -> list[int]:
    out = []
    for task in Path(f"/proc/{pid}/task").iterdir():
        kids = (task / "children").read_text().split()
        out.extend(int(k) for k in kids)
    return out


def _pool_processes(pid: int) -> tuple[list[int], list[int]]:
    """``(workers, servers)`` of the command ``pid``'s pool: its fork server's children, or its
    spawned children (beside the resource tracker, which is neither)."""
    workers, servers = [], []
    for k in _children(pid):
        try:
            cmd = Path(f"/proc/{k}/cmdline").read_bytes()
            if b"forkserver" in cmd:
                servers.append(k)
                workers.extend(_children(k))
            elif b"spawn_main" in cmd:
                workers.append(k)
        except (FileNotFoundError, ProcessLookupError):  # ended while we looked
            continue
    return workers, servers


def _gone(pid: int) -> bool:
    return not Path(f"/proc/{pid}").exists() or "Z" in Path(f"/proc/{pid}/stat").read_text().split()[2]


def test_ctrl_c_stops_the_pool(robust):
    qrels, runs = robust
    env = {**os.environ, "PYTHONPATH": str(ROOT), "AUDITEVAL_TEST_SLOW": "60"}
    proc = subprocess.Popen([PY, "-m", "auditeval", "eval", qrels, *runs, "--jobs", "2"], env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 30
    workers: list[int] = []
    servers: list[int] = []
    while time.monotonic() < deadline and len(workers) < 2:
        time.sleep(0.2)
        workers, servers = _pool_processes(proc.pid)
    assert len(workers) == 2
    time.sleep(0.5)  # the tasks are sleeping in the workers
    t0 = time.monotonic()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=30)
    assert time.monotonic() - t0 < 15  # not the 60 s the tasks sleep
    assert proc.returncode == 130
    assert out == "" and err == "auditeval: interrupted\n"
    assert all(map(_gone, workers))  # ended by the command before it exits
    deadline = time.monotonic() + 10  # the fork server ends when it sees its parent gone
    while time.monotonic() < deadline and not all(map(_gone, servers)):
        time.sleep(0.1)
    assert all(map(_gone, servers))
