"""The three headline benchmarks in one run, their ratios side by side in one table.

1. **Start-up** (``startup.py``): ``auditeval trec-eval examples/qrels.txt examples/bm25.txt``
   against the floor ``python -c "import numpy, pyarrow"``; goal <= 2x.
2. **7M lines** (``bench.py``): ``auditeval trec-eval --as 10.0`` with the five measures against
   the trec_eval 10.0 binary on the MS MARCO-sized run (6,980 x 1,000) under two id shapes:
   mixed newswire ids (``D3312019`` / ``LA052390-0089``, ``--ids string``) and short ids
   (``D`` + 7 digits, ``--ids short``); goals: wall <= 0.35x and peak memory <= 1.0x.
3. **The audit** (``audit_bench.py --robust03``): the default references on the first 1 and
   12 robust03 runs; goal ``wall / (references' own CPU / cores + native engine) <= 1.2``.

Each measurement runs in a child process; the start-up and 7M figures are minimums over
``--repeat`` interleaved rounds (the least disturbed run on a shared machine), the audit runs
once per size (it takes minutes). ``--quick``: 500 topics instead of 6,980, the audit on 1 run.

Usage::

    python benchmarks/ratios.py            # about 10 minutes on 2 cores
    python benchmarks/ratios.py --quick    # about 2 minutes
"""

from __future__ import annotations

import argparse
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from audit_bench import robust03_once  # noqa: E402
from bench import run_child, tools_for, trec_eval_binaries  # noqa: E402
from provenance import Provenance, table  # noqa: E402
from startup import commands, prepare_bytecode  # noqa: E402


def startup(rounds: int, binary: str | None) -> tuple[float, float, float]:
    """(floor, drop-in, --help) minimum wall seconds over ``rounds`` interleaved rounds, auditeval's
    bytecode compiled as ``pip install`` leaves it (``startup.prepare_bytecode``)."""
    prepare_bytecode()
    cmds = commands(binary)
    names = ["python -c 'import numpy, pyarrow' (floor)", "auditeval trec-eval QRELS RUN", "auditeval --help"]
    walls: dict[str, list[float]] = {n: [] for n in names}
    for _ in range(rounds):
        for n in names:
            wall, _peak, status, _out, err, _cpu = run_child(cmds[n], 120)
            if status != 0:
                raise SystemExit(f"{n}: exit {status}: {err.strip()[:300]}")
            walls[n].append(wall)
    return tuple(min(walls[n]) for n in names)  # type: ignore[return-value]


def large(ids: str, topics: int, repeat: int, bins: dict[str, str]) -> tuple[float, float, int, int]:
    """(auditeval wall, binary wall, auditeval peak KiB, binary peak KiB), minimums, on the run
    with ``ids`` (generated when missing)."""
    suffix = ("" if topics == 6980 else f".{topics}") + {"string": ".strid", "short": ".shortid"}[ids]
    qrels, run = HERE / "data" / f"qrels.msmarco-like{suffix}.txt", HERE / "data" / f"run.msmarco-like{suffix}.txt"
    if not (qrels.exists() and run.exists()):
        subprocess.run([sys.executable, str(HERE / "generate_run.py"), "--topics", str(topics), "--ids", ids], check=True)
    tools = tools_for(qrels, run, False, {"trec_eval-10.0": bins["trec_eval-10.0"]}, {"auditeval", "trec_eval-10.0"})
    for r in range(repeat):
        for t in tools:
            wall, peak, code, _out, err, _cpu = run_child(t.argv, 900)
            if code != 0:
                raise SystemExit(f"{t.name} on {run.name}: exit {code}: {err.strip()[-300:]}")
            t.times.append(wall)
            t.peaks.append(peak)
            print(f"  [{ids} ids {r + 1}/{repeat}] {t.name}: {wall:.2f} s, {peak / 1024:,.0f} MB", file=sys.stderr)
    ours, theirs = tools
    return min(ours.times), min(theirs.times), min(ours.peaks), min(theirs.peaks)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--quick", action="store_true", help="500 topics; the audit on 1 run")
    ap.add_argument("--repeat", type=int, default=3, help="rounds of the 7M-line runs (start-up: 4x as many)")
    args = ap.parse_args(argv)
    prov = Provenance()
    bins = trec_eval_binaries(None)
    if "trec_eval-10.0" not in bins:
        print("no trec_eval 10.0 binary in .bin/trec_eval (bash ../shared/tools/build-trec-eval .bin/trec_eval)",
              file=sys.stderr)
        return 2
    rows: list[tuple[str, str, str, str]] = []
    floor, drop, helps = startup(4 * args.repeat, bins["trec_eval-10.0"])
    rows.append(("start-up: small drop-in call / floor", f"{drop * 1e3:.0f} ms / {floor * 1e3:.0f} ms",
                 f"{drop / floor:.2f}x", "<= 2x"))
    rows.append(("start-up: `auditeval --help` / floor", f"{helps * 1e3:.0f} ms / {floor * 1e3:.0f} ms",
                 f"{helps / floor:.2f}x", "-"))
    topics = 500 if args.quick else 6980
    for ids, label in (("string", "mixed ids"), ("short", "short ids")):
        w, bw, p, bp = large(ids, topics, args.repeat, bins)
        rows.append((f"{topics:,} x 1,000 lines, {label}: wall / trec_eval 10.0", f"{w:.2f} s / {bw:.2f} s",
                     f"{w / bw:.2f}x", "<= 0.35x"))
        rows.append((f"{topics:,} x 1,000 lines, {label}: peak memory / trec_eval 10.0",
                     f"{p / 1024:,.0f} MB / {bp / 1024:,.0f} MB", f"{p / bp:.2f}x", "<= 1.0x"))
    for n in (1,) if args.quick else (1, 12):
        row = robust03_once(n)
        if row is None:
            return 2
        _, wall, _cpu, ref_cpu, native, jobs, ratio, nrefs = row
        rows.append((f"audit, {n} robust03 run(s), {nrefs} references: wall / (their CPU / {jobs} + native)",
                     f"{wall:.1f} s / ({ref_cpu:.1f} s / {jobs} + {native:.1f} s)", f"{ratio:.2f}", "<= 1.2"))
    prov.report(table(["benchmark", "measured", "ratio", "goal"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
