"""One-off check on real data: every path of ``tests/project/test_variant_paths.py`` on the 12 robust03 runs.

The property test draws small random inputs; this runs the same path checks (each path's printed
(variant string, value) pairs parsed back and evaluated with ``auditeval.evaluate`` alone) on
the real TREC 2003 Robust runs, as pairs (A, B), each cut to its top ``--depth`` documents per
topic (default 100, so that the audit and verify paths finish in minutes), under each profile.

Usage::

    python benchmarks/robust03_paths.py [--depth 100] [--profiles trec_eval-9.0.8,trec_eval-10.0]

Prints a line per pair, profile and path as it goes (to stderr), then, under the provenance line,
the table of them all: whether each agreed and its seconds; exits 1 if any path disagreed.
"""

from __future__ import annotations

import argparse
import gzip
import sys
import tempfile
import time
import traceback
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SHARED = ROOT.parent / "shared" / "data" / "robust03"
sys.path.insert(0, str(ROOT / "tests"))
sys.path.insert(0, str(ROOT / "benchmarks"))

import test_variant_paths as tvp  # noqa: E402
from provenance import Provenance, table  # noqa: E402

PATHS = ["test_eval_json", "test_evaluate_api_round_trip", "test_audit_native_sensitivity_ties", "test_compare_json",
         "test_card_json", "test_verify_json", "test_reproduce_rmse", "test_pool_bias_growth_coverage",
         "test_ir_measures_provider", "test_pyterrier_frames"]


def top(path: Path, depth: int, tag: str) -> list[str]:
    """The run's lines, its top ``depth`` per topic by file order (robust03 runs are ranked), tag renamed."""
    out, seen = [], {}
    for line in gzip.decompress(path.read_bytes()).decode().splitlines():
        f = line.split()
        seen[f[0]] = seen.get(f[0], 0) + 1
        if seen[f[0]] <= depth:
            out.append(" ".join([*f[:5], tag]))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=100)
    ap.add_argument("--profiles", default="trec_eval-9.0.8,trec_eval-10.0,ir_measures-0.4")
    ap.add_argument("--paths", default=",".join(PATHS))
    ap.add_argument("--pair", default="", help="only the pair holding this run (e.g. aplrob03a)")
    args = ap.parse_args(argv)
    prov = Provenance()
    qrels = (SHARED / "qrels.robust03.txt").read_text().splitlines()
    runs = sorted((SHARED / "runs").glob("input.*.gz"))
    pairs = [(runs[i], runs[i + 1]) for i in range(0, len(runs) - 1, 2)]
    if args.pair:
        pairs = [p for p in pairs if f"input.{args.pair}.gz" in (p[0].name, p[1].name)]
    tvp._BASE_DIR[:] = [Path(tempfile.mkdtemp(prefix="robust03-paths-"))]
    bad, rows = 0, []
    for a, b in pairs:
        for profile in args.profiles.split(","):
            case = tvp.Case(qrels, {"A": top(a, args.depth, "A"), "B": top(b, args.depth, "B")}, profile, [])
            for name in args.paths.split(","):
                t0 = time.perf_counter()
                try:
                    getattr(tvp, name).hypothesis.inner_test(case)
                    status = "ok"
                except Exception as exc:  # noqa: BLE001 - reported, counted
                    bad += 1
                    status = f"DIFFERS: {type(exc).__name__}: {str(exc)[:300]}"
                    traceback.print_exc(limit=2)
                row = (a.name[6:-3], b.name[6:-3], profile, name, f"{time.perf_counter() - t0:.1f} s", status)
                rows.append(row)
                print(*row, file=sys.stderr, flush=True)
    prov.report(table(["run A", "run B", "profile", "path", "time", "status"], rows, "llllrl"),
                f"{bad} path(s) disagreed")
    return 1 if bad else 0


if __name__ == "__main__":
    raise SystemExit(main())
