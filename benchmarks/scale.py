"""Past one machine: the same commands on ``--jobs 1``, ``--jobs 2`` and a 2-worker LocalCluster.

Data (deterministic, ``benchmarks/data/scale/``): the real robust03 qrels (100 topics, 128,796
judgments) and synthetic robust03-shaped runs, 100 topics x 1,000 documents each (100,000
lines): per topic a run retrieves a seeded share of the judged documents (relevant ones
score higher on average, by a run-specific margin) and fills the rest with unjudged ids;
scores with 3 decimals (ties occur), lines in rank order.

What is measured (each command a child process ``python -m auditeval ...``, stdout to a
file whose SHA-256 is compared across backends; wall seconds, minimum of ``--repeat``):

* ``sweep RUNS -m 'AP nDCG@10 P@10 RR' --vary VARY`` (the issue: ``--vary all`` on 200 runs);
* ``compare RUNS -m AP --trials T`` over every pair of the runs (200 runs: 19,900 pairs);
* per-task overhead: 400 no-op tasks on each backend, and the pool's start-up;
* memory (``--memory``): ``eval`` of ``--memory-runs`` runs of 100,000 lines on ``--jobs 2``,
  the peak of the summed RSS of the command and its workers (sampled every 0.1 s with psutil).

Each backend runs its commands alone on the machine. A cluster
(``distributed.LocalCluster(n_workers=2, processes=True, threads_per_worker=1)``) is started
before its backend's commands and closed after them (its start-up is reported apart): its
workers stay warm between commands, where ``--jobs 2`` spawns its two workers in every command.
Clusters measured: dask's defaults (``LocalCluster(2)``), workers without the profiler
(:data:`NO_PROFILE`), and (``--backends untrimmed``) workers that keep glibc's malloc defaults
(:data:`NO_TRIM`). Every command runs in the environment this script started with (:data:`ENV`).

Usage::

    python benchmarks/scale.py --quick            # 20 runs, --vary ties,depth,rel, 1,000 trials
    python benchmarks/scale.py --runs 200 --vary all --trials 10000    # the issue's size
    python benchmarks/scale.py --memory --memory-runs 1000             # the memory figure
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "benchmarks"))

from provenance import Provenance, table  # noqa: E402
from tree_peak import TreePeak  # noqa: E402

QRELS = Path("/work/shared/data/robust03/qrels.robust03.txt")
DATA = ROOT / "benchmarks" / "data" / "scale"
MEASURES = "AP nDCG@10 P@10 RR"
UNTRIMMED = "LocalCluster(2), malloc defaults"


# ----------------------------------------------------------------------------- data
def read_qrels(path: Path) -> dict[str, list[tuple[str, int]]]:
    out: dict[str, list[tuple[str, int]]] = {}
    for line in path.read_text().splitlines():
        t, _, d, g = line.split()
        out.setdefault(t, []).append((d, int(g)))
    return out


def make_run(qrels: dict[str, list[tuple[str, int]]], k: int, depth: int, path: Path) -> None:
    """Run ``k``: per topic ``depth`` documents, a seeded share judged, relevant ones ahead."""
    rng = np.random.default_rng(1000 + k)
    margin = rng.uniform(0.2, 1.5)  # how good this run is
    lines = []
    for t in sorted(qrels, key=lambda s: s.encode()):
        judged = qrels[t]
        n_j = min(len(judged), int(depth * rng.uniform(0.2, 0.6)))
        pick = rng.choice(len(judged), n_j, replace=False)
        docs = [judged[i][0] for i in pick] + [f"SYN{t}-{k % 7}-{j:05d}" for j in range(depth - n_j)]
        rel = np.array([judged[i][1] > 0 for i in pick] + [False] * (depth - n_j))
        score = np.round(rng.normal(0.0, 1.0, depth) + margin * rel + 10.0, 3)
        order = np.lexsort((np.arange(depth), -score))
        tag = f"syn{k:04d}"
        lines.extend(f"{t} Q0 {docs[i]} {r + 1} {score[i]:.3f} {tag}\n" for r, i in enumerate(order))
    path.write_text("".join(lines))


def runs(n: int, depth: int = 1000) -> list[str]:
    DATA.mkdir(parents=True, exist_ok=True)
    qrels = None
    out = []
    for k in range(n):
        p = DATA / f"run.{k:04d}.{depth}.txt"
        if not p.exists():
            qrels = qrels or read_qrels(QRELS)
            make_run(qrels, k, depth, p)
        out.append(str(p))
    return out


# ----------------------------------------------------------------------------- timing
ENV = dict(os.environ)
"""The environment the commands run in, as it was when this script started: dask's nanny writes
its ``distributed.nanny.pre-spawn-environ`` (``MALLOC_TRIM_THRESHOLD_=65536``, one OpenMP
thread) into the parent's ``os.environ`` when it spawns a worker (``distributed/nanny.py``), and
every command started after the cluster would inherit it (figures measured before 2026-12-02
12:15 UTC did)."""

NO_TRIM = {"distributed.nanny.pre-spawn-environ.MALLOC_TRIM_THRESHOLD_": None}
"""Dask config for a cluster whose workers keep glibc's malloc defaults: a ``None`` entry is not
exported (``distributed.nanny._get_env_variables``). With ``MALLOC_TRIM_THRESHOLD_`` set, glibc
also stops raising its mmap threshold, so every freed array above 128 KiB is unmapped and the
next one faults its pages in again: on a sweep task, 5x the page faults. auditeval's tasks now
undo this for their own duration (``auditeval/execution/malloc.py``)."""


NO_PROFILE = {"distributed.worker.profile.enabled": False}
"""Dask config for workers without the statistical profiler (a thread sampling the task
thread's stack every 10 ms, for the dashboard): about 5% of a sweep task's CPU here."""


def _env() -> dict[str, str]:
    return {**ENV, "PYTHONPATH": str(ROOT)}


def timed(argv: list[str], repeat: int, memory: bool = False, workers: list[int] | None = None) -> dict:
    """Best wall seconds of ``repeat``, SHA-256 of stdout, CPU seconds (the command's own, and
    with its workers: reaped processes through ``RUSAGE_CHILDREN``, a local pool's forked workers
    sampled (:attr:`tree_peak.TreePeak.forked`), the cluster's ``workers`` by psutil), and the peak
    summed RSS in bytes when ``memory``."""
    import resource

    import psutil

    best: dict = {"wall": float("inf")}
    out_path = DATA / f"stdout.{os.getpid()}.tmp"
    for _ in range(repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        w0 = sum(sum(psutil.Process(w).cpu_times()[:2]) for w in workers or [])
        with open(out_path, "wb") as out:
            t0 = time.perf_counter()
            proc = subprocess.Popen([sys.executable, "-m", "auditeval", *argv], stdout=out,
                                    stderr=subprocess.DEVNULL, env=_env())
            sampler = TreePeak(proc.pid)
            code = proc.wait()
            wall = time.perf_counter() - t0
            peak, own = sampler.stop()
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        w1 = sum(sum(psutil.Process(w).cpu_times()[:2]) for w in workers or [])
        if code != 0:
            raise SystemExit(f"exit {code}: auditeval {' '.join(argv[:3])} ...")
        total = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime) + (w1 - w0) + sampler.forked
        if wall < best["wall"]:
            best = {"wall": wall, "cpu_total": total, "cpu_command": own, "peak_rss_mb": peak / 2**20 if memory else None}
        best["sha256"] = hashlib.sha256(out_path.read_bytes()).hexdigest()
    return best


def overhead(address: str, n: int = 400) -> dict[str, float]:
    """Seconds per no-op task on each backend (after one warm-up map), and the pool's start-up."""
    import operator

    sys.path.insert(0, str(ROOT))
    from auditeval.execution import DaskCluster, InProcess, LocalPool

    out = {}
    t0 = time.perf_counter()
    pool = LocalPool(2)
    list(pool.map(operator.add, 0, [0, 1]))
    out["local pool start-up (2 workers of a new fork server, first task)"] = time.perf_counter() - t0
    for name, be in (("in process", InProcess()), ("local pool", pool), ("dask", DaskCluster(address))):
        list(be.map(operator.add, be.share(0), list(range(20))))
        t0 = time.perf_counter()
        list(be.map(operator.add, be.share(0), list(range(n))))
        out[f"{name}: per task"] = (time.perf_counter() - t0) / n
        be.close()
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=200)
    ap.add_argument("--vary", default="all", help="comma-separated axes, or all (default)")
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--quick", action="store_true", help="20 runs, --vary ties,depth,rel, 1,000 trials")
    ap.add_argument("--only", default="sweep,compare,overhead", help="sweep,compare,overhead (comma-separated)")
    ap.add_argument("--memory", action="store_true", help="only the memory figure (eval on --jobs 2)")
    ap.add_argument("--memory-runs", type=int, default=1000)
    ap.add_argument("--backends", default=DEFAULT_BACKENDS, help=f"comma-separated, of {', '.join(BACKENDS)} "
                    f"(default {DEFAULT_BACKENDS}; each alone on the machine while its commands run)")
    ap.add_argument("--out", help="write the figures as JSON here too")
    a = ap.parse_args(argv)
    prov = Provenance(PACKAGES)
    if a.quick:
        a.runs, a.vary, a.trials = 20, "ties,depth,rel", 1000

    figures: dict = {"runs": a.runs, "vary": a.vary, "trials": a.trials, "cores": os.cpu_count()}
    if a.memory:
        paths = runs(a.memory_runs)
        for backend in (["--jobs", "2"],):
            got = timed(["eval", str(QRELS), *paths, "-m", MEASURES, "--format", "tsv", *backend], 1, True)
            figures["memory"] = {"runs": a.memory_runs, "lines": a.memory_runs * 100_000, **got,
                                 "backend": " ".join(backend)}
            print(f"eval {a.memory_runs} runs x 100,000 lines, {' '.join(backend)}: {got['wall']:.1f} s, "
                  f"peak RSS (command + workers) {got['peak_rss_mb']:.0f} MB", file=sys.stderr, flush=True)
        _write(a.out, figures)
        mem = figures["memory"]
        prov.report(table(["command", "wall", "peak RSS (command + workers)"],
                          [(f"`eval -m '{MEASURES}' --format tsv {mem['backend']}`, {mem['runs']:,} runs x 100,000 "
                            f"lines", f"{mem['wall']:.1f} s", f"{mem['peak_rss_mb']:.0f} MB")]))
        return 0
    paths = runs(a.runs)
    vary = ["--vary", "all"] if a.vary == "all" else [x for v in a.vary.split(",") for x in ("--vary", v)]
    commands = {
        "sweep": ["sweep", str(QRELS), *paths, "-m", MEASURES, *vary],
        "compare": ["compare", str(QRELS), *paths, "-m", "AP", "--trials", str(a.trials), "--format", "json"],
    }
    todo = [w for w in a.only.split(",") if w in commands]
    rows: dict[str, dict] = {what: {} for what in todo}
    for key in a.backends.split(","):
        name, config = BACKENDS[key]
        with local_cluster(config) as cluster:
            extra = (["--scheduler", cluster.scheduler_address] if cluster else
                     ["--jobs", "2"] if key == "jobs2" else [])
            if cluster and key == "cluster":
                figures["cluster_start"] = cluster.started_in
            workers = [w.process.process.pid for w in cluster.workers.values()] if cluster else None
            for what in todo:
                got = rows[what][name] = timed([*commands[what], *extra], a.repeat, workers=workers)
                print(f"{what:8s} {name:32s} {got['wall']:8.2f} s wall, CPU {got['cpu_total']:7.2f} s "
                      f"(command {got['cpu_command']:6.2f} s), stdout sha256 {got['sha256'][:16]}",
                      file=sys.stderr, flush=True)
            if cluster and key == "cluster" and "overhead" in a.only:
                figures["overhead"] = overhead(cluster.scheduler_address)
                for k, v in figures["overhead"].items():
                    print(f"overhead {k}: {v * 1000:.2f} ms", file=sys.stderr, flush=True)
    for what, row in rows.items():
        base = row.get(BACKENDS["jobs1"][0], {}).get("wall")
        for got in row.values():
            got["speedup"] = base / got["wall"] if base else None
        row["same_bytes"] = len({r["sha256"] for r in row.values()}) == 1
        figures[what] = row
    _write(a.out, figures)
    prov.report(*_tables(figures, commands_shown(a)))
    return 0


PACKAGES = ("scipy", "dask", "distributed", "psutil")
"""Versions in the provenance line beyond numpy and pyarrow."""


def commands_shown(a: argparse.Namespace) -> dict[str, str]:
    """The first column of the table: each command as a user would type it, and its size."""
    vary = "--vary all" if a.vary == "all" else " ".join(f"--vary {v}" for v in a.vary.split(","))
    pairs = a.runs * (a.runs - 1) // 2
    return {"sweep": f"`sweep -m '{MEASURES}' {vary}` ({a.runs} runs)",
            "compare": f"`compare -m AP --trials {a.trials} --format json` ({pairs:,} pair{'s' * (pairs != 1)})"}


def _tables(figures: dict, shown: dict[str, str]) -> list[str]:
    """The figures as markdown: wall seconds (CPU of the command and its workers; ``command``: its
    own process) and the speed-up against ``--jobs 1`` per backend; then the per-task overhead."""
    out = []
    done = [w for w in ("sweep", "compare") if w in figures]
    if done:
        names = [k for k in figures[done[0]] if k != "same_bytes"]
        rows = []
        for what in done:
            cells = []
            for name in names:
                got = figures[what][name]
                if got["speedup"] is None or name == BACKENDS["jobs1"][0]:
                    cells.append(f"{got['wall']:.1f} s (CPU {got['cpu_total']:.1f})")
                else:
                    cells.append(f"{got['wall']:.1f} s, {got['speedup']:.2f}x (CPU {got['cpu_total']:.1f}, "
                                 f"command {got['cpu_command']:.1f})")
            rows.append((shown[what], *cells, "yes" if figures[what]["same_bytes"] else "no"))
        header = [f"`{n}`" if n.startswith("--") else n for n in names]
        out.append(table([f"{figures['runs']} runs", *header, "same bytes"], rows, "l" + "r" * len(names) + "c"))
    if "overhead" in figures:
        rows = [(k, f"{v * 1000:.3f} ms" if "per task" in k else f"{v:.2f} s") for k, v in figures["overhead"].items()]
        if "cluster_start" in figures:
            rows.append(("LocalCluster(2) start-up", f"{figures['cluster_start']:.2f} s"))
        out.append(table(["overhead (400 no-op tasks after a warm-up)", "time"], rows))
    return out


BACKENDS: dict[str, tuple[str, dict | None]] = {
    "jobs1": ("--jobs 1", None),
    "jobs2": ("--jobs 2", None),
    "cluster": ("LocalCluster(2)", {}),
    "noprofile": ("LocalCluster(2), profiler off", NO_PROFILE),
    "untrimmed": (UNTRIMMED, NO_TRIM),
}
"""``--backends`` keys -> (the name in the figures, the dask config of its cluster; None: no cluster)."""
DEFAULT_BACKENDS = "jobs1,jobs2,cluster,noprofile"


@contextmanager
def local_cluster(config: dict | None) -> Iterator[Any]:
    """A 2-worker ``LocalCluster`` under the dask ``config`` (None: no cluster), started before
    its commands and closed after them: an idle cluster takes about 8% of 2 cores, so no other
    backend's commands run beside it. Its start-up seconds are ``cluster.started_in``; on exit
    ``os.environ`` is what it was (the nanny exported its pre-spawn environment into it)."""
    if config is None:
        yield None
        return
    import dask
    from distributed import LocalCluster

    t0 = time.perf_counter()
    with dask.config.set(config):
        cluster = LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                               host="127.0.0.1")
    cluster.started_in = time.perf_counter() - t0
    try:
        yield cluster
    finally:
        cluster.close()
        os.environ.clear()
        os.environ.update(ENV)


def _write(path: str | None, figures: dict) -> None:
    if path:
        Path(path).write_text(json.dumps(figures, indent=1) + "\n")


if __name__ == "__main__":
    sys.exit(main())
