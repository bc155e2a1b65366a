"""Time ``verify`` (claims) and ``diff`` attribution on the robust03 runs in ../shared.

    python benchmarks/bench_verify.py [--runs MU03rob01 uic0301] [--repeat 3]

Prints, per run and claim, the variants searched and the CPU and wall time of the search
(the minimum over the repeats; qrels and run read once, outside the timing), then the time of
explaining the trec_eval 9.0.8 vs 10.0 differences of each run.
"""

from __future__ import annotations

import argparse
import gzip
import tempfile
import time
from pathlib import Path

from auditeval.io import read_qrels, read_run
from auditeval.verify.claims import parse_claim, verify_claim
from auditeval.verify.diff import diff_outputs, explain
from auditeval.verify.tool_output import read_output

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
CLAIMS = ("MAP=0.3066", "nDCG@10=0.41", "P@10=.52")


def _timed(fn):
    c, w = time.process_time(), time.perf_counter()
    out = fn()
    return out, time.process_time() - c, time.perf_counter() - w


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", nargs="+", default=["MU03rob01", "uic0301"])
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args()
    qrels = read_qrels(SHARED / "data/robust03/qrels.robust03.txt")
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.runs:
            path = Path(tmp) / f"{name}.txt"
            path.write_bytes(gzip.decompress((SHARED / "data/robust03/runs" / f"input.{name}.gz").read_bytes()))
            run = read_run(path)
            for claim in CLAIMS:
                best = min((_timed(lambda c=claim, r=run: verify_claim(qrels, r, parse_claim(c), {}))
                            for _ in range(args.repeat)), key=lambda x: x[1])
                print(f"verify {name:10s} {claim:14s} {best[0].searched:5d} variants  cpu {best[1]:.2f} s  wall {best[2]:.2f} s")
            outs = []
            for v in ("9.0.8", "10.0"):
                p = Path(tmp) / f"{name}.{v}.txt"
                ref = SHARED / "reference/robust03" / f"input.{name}.te{v}.q.all_trec.txt.gz"
                p.write_bytes(gzip.decompress(ref.read_bytes()))
                outs.append(read_output(p))
            res = diff_outputs(*outs)
            _, cpu, wall = _timed(lambda r=res, rn=run: explain(qrels, rn, r))
            print(f"diff   {name:10s} {len(res.differing_measures)} measures explained  cpu {cpu:.2f} s  wall {wall:.2f} s")


if __name__ == "__main__":
    main()
