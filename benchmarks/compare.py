"""Time ``auditeval compare`` as a whole process on robust03 (12 runs x 100 topics).

    python benchmarks/compare.py [--repeat 3] [--trials 10000]

Prints, under the provenance line, a table of the wall and CPU (user + sys) time of each repeat
and their medians. Target: 4 measures, 10,000 trials, all runs, under 5 s for the whole process.
"""

from __future__ import annotations

import argparse
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "benchmarks"))

from provenance import Provenance, table  # noqa: E402

DATA = ROOT.parent / "shared" / "data" / "robust03"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trials", type=int, default=10000)
    args = ap.parse_args()
    prov = Provenance()
    runs = sorted(str(p) for p in (DATA / "runs").glob("*.gz"))
    cmd = [sys.executable, "-m", "auditeval", "compare", str(DATA / "qrels.robust03.txt"), *runs,
           "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "-m", "RR", "--trials", str(args.trials)]
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    walls, cpus = [], []
    for k in range(args.repeat):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        t = time.perf_counter()
        subprocess.run(cmd, env=env, check=True, stdout=subprocess.DEVNULL)
        wall = time.perf_counter() - t
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        walls.append(wall)
        cpus.append(cpu)
        print(f"repeat {k + 1}: wall {wall:.2f} s, cpu {cpu:.2f} s", file=sys.stderr)
    rows = [(f"repeat {k + 1}", f"{w:.2f} s", f"{c:.2f} s") for k, (w, c) in enumerate(zip(walls, cpus, strict=True))]
    rows.append(("median", f"{statistics.median(walls):.2f} s", f"{statistics.median(cpus):.2f} s"))
    prov.report(f"`auditeval compare`, {len(runs)} robust03 runs, 4 measures, {args.trials:,} trials:",
                table(["", "wall", "CPU"], rows))


if __name__ == "__main__":
    main()
