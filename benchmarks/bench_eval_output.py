"""Wall time of ``auditeval eval -q`` per output format on the 7M-line benchmark run.

The bar: per-topic text no slower than JSON by more than 2x. Each format runs in
its own process (interpreter start-up, reading, evaluating, tie notes and writing all count),
output to a file; formats interleaved, the minimum of ``--repeat`` rounds is reported.

    python benchmarks/bench_eval_output.py [--repeat 3] [--qrels Q --run R]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from provenance import Provenance, table  # noqa: E402

FORMATS = ("text", "tsv", "json")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qrels", default=str(HERE / "data" / "qrels.msmarco-like.txt"))
    ap.add_argument("--run", default=str(HERE / "data" / "run.msmarco-like.txt"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    prov = Provenance()
    if not Path(args.run).exists():
        subprocess.run([sys.executable, str(HERE / "generate_run.py")], check=True)
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    times: dict[str, list[float]] = {f: [] for f in FORMATS}
    sizes: dict[str, int] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(args.repeat):
            for fmt in FORMATS:
                out = Path(tmp) / f"out.{fmt}"
                cmd = [sys.executable, "-m", "auditeval", "eval", args.qrels, args.run, "-q", "--format", fmt]
                t0 = time.perf_counter()
                with out.open("w") as fh:
                    subprocess.run(cmd, stdout=fh, stderr=subprocess.DEVNULL, env=env, check=True)
                times[fmt].append(time.perf_counter() - t0)
                sizes[fmt] = sum(1 for _ in out.open())
    best = {f: min(t) for f, t in times.items()}
    rows = [(f, f"{best[f]:.2f}", ", ".join(f"{t:.2f}" for t in times[f]), f"{sizes[f]:,}") for f in FORMATS]
    prov.report(table(["format", f"best of {args.repeat} (s)", "runs (s)", "lines"], rows),
                f"text / json = {best['text'] / best['json']:.2f} (bar: <= 2)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
