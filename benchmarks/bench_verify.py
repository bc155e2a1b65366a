"""Time ``verify`` (claims) and ``diff`` attribution on the robust03 runs in ../shared.

    python benchmarks/bench_verify.py [--runs MU03rob01 uic0301] [--repeat 3]

Prints, under the provenance line, a table of the variants searched per run and claim with the
CPU and wall time of the search (the minimum over the repeats; qrels and run read once, outside
the timing), then a table of the time of explaining the trec_eval 9.0.8 vs 10.0 differences of
each run.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from provenance import Provenance, table

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
    prov = Provenance()
    qrels = read_qrels(SHARED / "data/robust03/qrels.robust03.txt")
    searches, diffs = [], []
    with tempfile.TemporaryDirectory() as tmp:
        for name in args.runs:
            path = Path(tmp) / f"{name}.txt"
            path.write_bytes(gzip.decompress((SHARED / "data/robust03/runs" / f"input.{name}.gz").read_bytes()))
            run = read_run(path)
            for claim in CLAIMS:
                best = min((_timed(lambda c=claim, r=run: verify_claim(qrels, r, parse_claim(c), {}))
                            for _ in range(args.repeat)), key=lambda x: x[1])
                searches.append((name, claim, f"{best[0].searched:,}", f"{best[1]:.2f} s", f"{best[2]:.2f} s"))
            outs = []
            for v in ("9.0.8", "10.0"):
                p = Path(tmp) / f"{name}.{v}.txt"
                ref = SHARED / "reference/robust03" / f"input.{name}.te{v}.q.all_trec.txt.gz"
                p.write_bytes(gzip.decompress(ref.read_bytes()))
                outs.append(read_output(p))
            res = diff_outputs(*outs)
            _, cpu, wall = _timed(lambda r=res, rn=run: explain(qrels, rn, r))
            diffs.append((name, len(res.differing_measures), f"{cpu:.2f} s", f"{wall:.2f} s"))
    prov.report(
        f"verify, minimum CPU of {args.repeat}:",
        table(["run", "claim", "variants searched", "CPU", "wall"], searches, "llrrr"),
        "diff, trec_eval 9.0.8 against 10.0 (`-q -m all_trec`), explained:",
        table(["run", "measures explained", "CPU", "wall"], diffs),
    )

if __name__ == "__main__":
    main()
