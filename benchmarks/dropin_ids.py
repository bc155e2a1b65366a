"""The drop-in against the trec_eval 10.0 binary on three document-id shapes, side by side.

``auditeval trec-eval --as 10.0 -m map -m ndcg_cut.10 -m P.10 -m recall.1000 -m recip_rank
QRELS RUN`` and the binary with the same flags, on the MS MARCO-sized run (6,980 topics x 1,000
documents, ``generate_run.py``, generated when missing) under three id shapes of the same
documents, one to one (every measure has the same value under each):

* ``variable``: ``D`` + the passage number unpadded (``D67032``: 1 to 7 digits);
* ``short``: ``D`` + 7 digits (``D0067032``);
* ``long``: the ClueWeb09 shape (``clueweb09-en0001-37-12345``, 25 bytes).

Each command is a child process measured as ``bench.py`` does (:func:`bench.run_child`: wall
time, ``ru_maxrss`` from ``os.wait4``, user + system CPU); the two tools alternate, ``--repeat``
rounds per shape; the table gives the smallest wall time (each run in brackets), the smallest
CPU time and the smallest peak, the drop-in's ratios to the binary, the 1-minute load average
over the shape's rounds, and whether the two printed the same bytes (every round is compared).
The binary is built by ``auditeval references build 10.0`` (its cache folder) unless
``--trec-eval PATH`` names one. auditeval runs as ``pip install`` leaves it: its bytecode is
compiled first (``startup.prepare_bytecode``; else a checkout under ``PYTHONDONTWRITEBYTECODE``
compiles every module in every run, 0.1-0.2 s).

Usage::

    python benchmarks/dropin_ids.py                 # 3 shapes x 3 rounds (about 3 minutes on 2 cores)
    python benchmarks/dropin_ids.py --repeat 5 --ids short,long
    python benchmarks/dropin_ids.py --topics 500    # a smoke test
    python benchmarks/dropin_ids.py --ids string    # bench.py's mixed newswire ids (D3312019 / LA052390-0089)
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from bench import AUDITEVAL_CLI, FIVE_TREC, _env, run_child  # noqa: E402
from provenance import Provenance, table  # noqa: E402
from startup import prepare_bytecode  # noqa: E402

SHAPES = {  # --ids of generate_run.py -> (label, an id of the shape)
    "variable": ("variable: `D` + 1-7 digits", "D67032"),
    "short": ("short: `D` + 7 digits", "D0067032"),
    "long": ("long: ClueWeb09", "clueweb09-en0001-37-12345"),
    "string": ("mixed: `D3312019` / `LA052390-0089`", "LA052390-0089"),  # bench.py's --ids string; not by default
}
DEFAULT_SHAPES = ("variable", "short", "long")
SUFFIXES = {"variable": ".varid", "short": ".shortid", "long": ".longid", "string": ".strid"}  # generate_run.SUFFIXES
GOALS = (0.25, 0.9)  # wall, peak: at most these ratios to the binary


@dataclass
class Measured:
    """One tool's rounds on one shape."""

    walls: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)  # KiB
    cpus: list[float] = field(default_factory=list)
    outputs: set[bytes] = field(default_factory=set)


def binary(path: str | None) -> str:
    """The trec_eval 10.0 binary: ``path``, else the one ``auditeval references build 10.0``
    builds (or finds built) in its cache folder."""
    if path:
        return path
    proc = subprocess.run([sys.executable, "-m", "auditeval", "references", "build", "10.0", "--format", "json"],
                          capture_output=True, text=True, env=_env(), cwd=str(ROOT))
    try:
        ref = json.loads(proc.stdout)["references"][0]
    except (ValueError, KeyError, IndexError):
        raise SystemExit(f"auditeval references build 10.0 failed: {proc.stderr.strip()[-300:]}") from None
    if ref.get("status") != "ready":
        raise SystemExit(f"trec_eval 10.0 is not ready: {ref}")
    return ref["where"]


def inputs(ids: str, topics: int) -> tuple[Path, Path]:
    """(qrels, run) of the shape, generated in a child when missing (numpy stays out of here)."""
    suffix = ("" if topics == 6980 else f".{topics}") + SUFFIXES[ids]
    qrels, run = HERE / "data" / f"qrels.msmarco-like{suffix}.txt", HERE / "data" / f"run.msmarco-like{suffix}.txt"
    if not (qrels.exists() and run.exists()):
        subprocess.run([sys.executable, str(HERE / "generate_run.py"), "--topics", str(topics), "--ids", ids],
                       check=True)
    return qrels, run


def _stdout_of(argv: list[str], timeout: float) -> tuple[float, int, float, bytes]:
    """run_child with the child's stdout kept as bytes (compared between the tools)."""
    wall, peak, code, out, err, cpu = run_child(argv, timeout)
    if code != 0:
        raise SystemExit(f"{argv[0]} ... exited {code}: {err.strip()[-300:]}")
    return wall, peak, cpu, out.encode()


def measure(ids: str, topics: int, repeat: int, te: str, timeout: float) -> tuple[dict[str, Measured], str]:
    """Both tools on one shape, interleaved; and the load average range over its rounds."""
    qrels, run = inputs(ids, topics)
    five = [a for m in FIVE_TREC for a in ("-m", m)]
    argv = {
        "auditeval": [sys.executable, "-c", AUDITEVAL_CLI, "trec-eval", "--as", "10.0", *five, str(qrels), str(run)],
        "trec_eval 10.0": [te, *five, str(qrels), str(run)],
    }
    got = {name: Measured() for name in argv}
    loads = [os.getloadavg()[0]]
    for r in range(repeat):
        for name, cmd in argv.items():
            wall, peak, cpu, out = _stdout_of(cmd, timeout)
            m = got[name]
            m.walls.append(wall)
            m.peaks.append(peak)
            m.cpus.append(cpu)
            m.outputs.add(out)
            loads.append(os.getloadavg()[0])
            print(f"  [{ids} {r + 1}/{repeat}] {name}: {wall:.2f} s, {peak / 1024:,.0f} MB", file=sys.stderr)
    return got, f"{min(loads):.1f}-{max(loads):.1f}"


def rows_of(ids: str, got: dict[str, Measured], load: str) -> list[tuple]:
    """The shape's two table rows: the drop-in (with its ratios) and the binary."""
    ours, theirs = got["auditeval"], got["trec_eval 10.0"]
    same = "yes" if len(ours.outputs | theirs.outputs) == 1 else "NO"
    wall_r, peak_r = min(ours.walls) / min(theirs.walls), min(ours.peaks) / min(theirs.peaks)
    label = SHAPES[ids][0]
    out = []
    for name, m in (("auditeval trec-eval --as 10.0", ours), ("trec_eval 10.0 binary", theirs)):
        runs = ", ".join(f"{w:.2f}" for w in m.walls)
        mine = m is ours
        out.append((
            label, name, f"{min(m.walls):.2f} s ({runs})", f"**{wall_r:.2f}x**" if mine else "1x", f"{min(m.cpus):.2f} s",
            f"{min(m.peaks) / 1024:,.0f} MB", f"**{peak_r:.2f}x**" if mine else "1x", load, same if mine else "",
        ))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--ids", default=",".join(DEFAULT_SHAPES),
                    help="comma-separated shapes: variable,short,long (default), string (bench.py's mixed ids)")
    ap.add_argument("--topics", type=int, default=6980)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--trec-eval", default=None, help="the trec_eval 10.0 binary (default: auditeval's build)")
    ap.add_argument("--timeout", type=float, default=600)
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown to this file")
    args = ap.parse_args(argv)
    shapes = [s.strip() for s in args.ids.split(",") if s.strip()]
    if unknown := [s for s in shapes if s not in SHAPES]:
        ap.error(f"unknown --ids {', '.join(unknown)} (choose from {', '.join(SHAPES)})")
    prov = Provenance()
    prepare_bytecode()
    te = binary(args.trec_eval)
    rows = []
    for ids in shapes:
        got, load = measure(ids, args.topics, args.repeat, te, args.timeout)
        rows += rows_of(ids, got, load)
    title = (f"**{args.topics:,} x 1,000 lines, 5 measures** (wall: minimum of {args.repeat} interleaved rounds, each "
             f"in brackets; CPU: user + system, minimum; peak: smallest `ru_maxrss`; goals: wall <= {GOALS[0]}x, "
             f"peak <= {GOALS[1]}x the binary's)")
    text = prov.report(title + "\n\n" + table(
        ["ids", "tool", "wall", "wall / binary", "CPU", "peak memory", "peak / binary", "load", "same bytes"], rows))
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
