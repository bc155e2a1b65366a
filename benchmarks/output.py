"""``auditeval sweep``'s output side by side: formats x backends x run counts, wall, peak memory
and bytes/s, and the writers alone.

Each configuration runs ``auditeval sweep QRELS RUN... -m AP -m nDCG@10 --vary all --format F``
as its own process, its stdout read through a pipe by this script (bytes counted, dropped);
wall is until the process is reaped, peak memory its ``ru_maxrss`` from ``wait4`` (the
command's own process: a local pool's workers fork from a server, not from the command, and a
dask cluster's are elsewhere); the peak of all its processes' summed PSS is read in one more
round of every configuration, untimed (:class:`tree_peak.TreePeak`). Configurations are interleaved, round after
round (``--repeat``), so a change in the machine's load hits them alike; the table gives medians,
``--jobs 2`` / ``--jobs 1`` per format and run count, and the load average around the rounds.
Every backend's output is checked to be the same bytes (a SHA-256 per format and run count).

``--writers``: the TSV and JSON writers alone, in process, on one computed sweep (all the runs
given): the view written to ``/dev/null`` through a UTF-8 stdout-like stream, MB/s of output.
The provenance line (:mod:`provenance`: time, commit, machine, load at the start and the end,
versions, command) follows the tables.

    python benchmarks/output.py [--counts 1,4,12] [--formats text,tsv,json] [--jobs 1,2]
                                [--dask] [--repeat 3] [--writers] [--data DIR]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from provenance import Provenance  # noqa: E402
from tree_peak import TreePeak  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "robust03"
MEASURES = ("-m", "AP", "-m", "nDCG@10")


def run_once(argv: list[str], env: dict[str, str], tree: bool = False) -> tuple[float, int, int, str, int]:
    """Wall seconds, peak RSS of the command's process (KB), output bytes and their SHA-256, and
    with ``tree`` the peak of the summed PSS of every process of the command (bytes:
    :class:`tree_peak.TreePeak`; its sampling costs CPU, so the timed rounds go without it), else 0."""
    t0 = time.perf_counter()
    p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env)
    sampler = TreePeak(p.pid, interval=0.02, pss=True) if tree else None
    digest, size = hashlib.sha256(), 0
    while chunk := p.stdout.read(1 << 20):
        digest.update(chunk)
        size += len(chunk)
    _, status, usage = os.wait4(p.pid, 0)
    wall = time.perf_counter() - t0
    p.returncode = os.waitstatus_to_exitcode(status)
    if p.returncode:
        raise SystemExit(f"{' '.join(argv)}: exit {p.returncode}")
    return wall, usage.ru_maxrss, size, digest.hexdigest(), sampler.stop()[0] if sampler else 0


def sweep_argv(data: Path, n_runs: int, fmt: str, backend: list[str]) -> list[str]:
    runs = sorted(str(p) for p in (data / "runs").iterdir())[:n_runs]
    return [sys.executable, "-m", "auditeval", "sweep", str(data / "qrels.robust03.txt"), *runs, *MEASURES,
            "--vary", "all", "--format", fmt, *backend]


def commands(args: argparse.Namespace, scheduler: str | None) -> None:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    backends = {f"--jobs {j}": ["--jobs", j] for j in args.jobs.split(",")}
    if scheduler:
        backends["dask (2 workers)"] = ["--scheduler", scheduler]
    configs = [(n, fmt, name) for n in map(int, args.counts.split(",")) for fmt in args.formats.split(",")
               for name in backends]
    got: dict[tuple, list[tuple[float, int, int, str, int]]] = {c: [] for c in configs}
    loads = [os.getloadavg()[0]]
    for _ in range(args.repeat):
        for c in configs:
            got[c].append(run_once(sweep_argv(args.data, c[0], c[1], backends[c[2]]), env))
            loads.append(os.getloadavg()[0])
    trees = {c: run_once(sweep_argv(args.data, c[0], c[1], backends[c[2]]), env, tree=True)[4] for c in configs}
    print(f"load average (1 min) over the rounds: median {statistics.median(loads):.1f}, "
          f"min {min(loads):.1f}, max {max(loads):.1f}; {os.cpu_count()} cores\n")
    print("| runs | format | backend | output | wall (median) | walls | vs --jobs 1 | peak memory | "
          "peak, all processes (PSS, a round of its own) | output/s |")
    print("|---:|---|---|---:|---:|---|---:|---:|---:|---:|")
    for c in configs:
        walls = [w for w, *_ in got[c]]
        med = statistics.median(walls)
        base = statistics.median(w for w, *_ in got[(c[0], c[1], next(iter(backends)))])
        size = got[c][0][2]
        peak = statistics.median(m for _, m, _, _, _ in got[c])
        tree = trees[c]
        print(f"| {c[0]} | {c[1]} | {c[2]} | {size / 1e6:.1f} MB | {med:.2f} s | "
              f"{' '.join(f'{w:.2f}' for w in walls)} | {med / base:.2f}x | {peak / 1024:.0f} MB | "
              f"{tree / 2**20:.0f} MB | {size / med / 1e6:.1f} MB/s |")
    for n in map(int, args.counts.split(",")):
        for fmt in args.formats.split(","):
            digests = {d for name in backends for *_, d, _ in got[(n, fmt, name)]}
            print(f"\n{n} run(s), {fmt}: {'same bytes on every backend and round' if len(digests) == 1 else 'DIFFERENT BYTES'}",
                  end="")
    print()


def writers(args: argparse.Namespace) -> None:
    """The views written from one computed sweep, in process: MB/s of output."""
    import io

    sys.path.insert(0, str(ROOT))
    from auditeval.cli.sweep import parse_vary
    from auditeval.execution.backends import InProcess
    from auditeval.execution.tasks import sweep_runs
    from auditeval.io import qrels_from
    from auditeval.render import sweep_out, sweep_text
    from auditeval.render.terminal import control_safe
    from auditeval.vocab.conventions import DEFAULT_PROFILE

    class Counting(io.RawIOBase):
        """A binary sink that counts what it is given (``/dev/null`` with a tally)."""

        size = 0

        def writable(self) -> bool:
            return True

        def write(self, data) -> int:
            self.size += len(data)
            return len(data)

    runs = sorted(str(p) for p in (args.data / "runs").iterdir())[: max(map(int, args.counts.split(",")))]
    qrels = qrels_from(str(args.data / "qrels.robust03.txt"))
    print("| runs | view | output | write (median) | writes | output/s |")
    print("|---:|---|---:|---:|---|---:|")
    for per_topic in (False, True):  # -q: the first run only (12 runs are 10 GB of TSV)
        res = sweep_runs(InProcess(), qrels, runs if not per_topic else runs[:1], ["AP", "nDCG@10"],
                         DEFAULT_PROFILE, parse_vary(["all"]), per_topic=per_topic)
        for fmt in ("text", "tsv", "json") if not per_topic else ("tsv", "json"):
            times, size = [], 0
            for _ in range(args.repeat):
                sink = Counting()
                stream = control_safe(io.TextIOWrapper(io.BufferedWriter(sink, 1 << 16), encoding="utf-8"))
                t0 = time.perf_counter()
                if fmt == "text":
                    sweep_text.render_text(res, stream, 100)
                else:
                    getattr(sweep_out, f"render_{fmt}")(res, stream, per_topic)
                stream.flush()
                times.append(time.perf_counter() - t0)
                size = sink.size
            med = statistics.median(times)
            print(f"| {len(res.blocks['AP'].runs)} | {fmt}{' -q' if per_topic else ''} | {size / 1e6:.1f} MB | {med:.3f} s | "
                  f"{' '.join(f'{t:.3f}' for t in times)} | {size / med / 1e6:.0f} MB/s |")
        del res


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--data", type=Path, default=DATA, help="a folder with qrels.robust03.txt and runs/")
    ap.add_argument("--counts", default="1,4,12", help="run counts (the first runs in name order)")
    ap.add_argument("--formats", default="text,tsv,json")
    ap.add_argument("--jobs", default="1,2", help="the --jobs values compared (the first is the base)")
    ap.add_argument("--dask", action="store_true", help="also a two-worker dask LocalCluster (--scheduler)")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--writers", action="store_true", help="only the writers, in process")
    args = ap.parse_args()
    prov = Provenance()
    if not (args.data / "runs").is_dir():
        raise SystemExit(f"{args.data}: no runs/ folder (the robust03 data)")
    if args.writers:
        writers(args)
        print("\n" + prov.line())
        return 0
    if not args.dask:
        commands(args, None)
        print("\n" + prov.line())
        return 0
    from distributed import LocalCluster

    with LocalCluster(n_workers=2, processes=True, threads_per_worker=1, dashboard_address=None,
                      host="127.0.0.1") as cluster:
        commands(args, cluster.scheduler_address)
    print("\n" + prov.line())
    return 0


if __name__ == "__main__":
    sys.exit(main())
