"""Whole-process time of ``auditeval pool growth`` (and ``pool stats``, ``pool bias``) on the
12 TREC 2003 Robust runs x 100 topics in ``../shared/data/robust03``.

    python benchmarks/pool_growth.py [--orders 500] [--repeat 3] [--data DIR]

Each command runs in its own child process (interpreter start-up, imports, reading the
files, the simulation, JSON output); the table gives the minimum and every wall time, the
child's CPU time and its peak RSS (``ru_maxrss`` from ``os.wait4``).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from provenance import Provenance, table  # noqa: E402


def run(argv: list[str]) -> tuple[float, float, int]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    t0 = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "auditeval", *argv], env=env, stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE)
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"failed: auditeval {' '.join(argv)}\n{proc.stderr.read().decode()}")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss // 1024


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--data", default=str(ROOT.parent / "shared" / "data" / "robust03"))
    ap.add_argument("--orders", type=int, default=500)
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    prov = Provenance()
    data = Path(args.data)
    qrels = str(data / "qrels.robust03.txt")
    runs = sorted(str(p) for p in (data / "runs").glob("input.*.gz"))
    jobs = {
        f"pool growth --orders {args.orders}": ["pool", "growth", qrels, *runs, "--orders", str(args.orders), "--format", "json"],
        "pool stats --orders 500": ["pool", "stats", *runs, "--format", "json"],
        "pool bias (AP, 1000 resamples)": ["pool", "bias", qrels, *runs, "--format", "json"],
    }
    rows = []
    for name, argv in jobs.items():
        results = [run(argv) for _ in range(args.repeat)]
        best = min(results)
        walls = ", ".join(f"{w:.2f}" for w, _, _ in results)
        rows.append((name, f"{best[0]:.2f} s", f"{best[1]:.2f} s", f"{max(r[2] for r in results):,} MB", walls))
    prov.report(f"{len(runs)} runs, depth 100, JSON output, minimum of {args.repeat}:",
                table(["command", "wall (min)", "CPU", "peak RSS", "all walls (s)"], rows))

if __name__ == "__main__":
    main()
