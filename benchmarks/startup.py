"""Start-up: a small ``auditeval trec-eval`` call and ``auditeval --help`` beside the floor
(``python -c "import numpy, pyarrow"``, what any Arrow-based evaluator must load) and the C binary.

Scripts call trec_eval once per run over hundreds of runs, so the drop-in's fixed cost is what
such a user pays. Each command runs in its own child process (``bench.run_child``: wall time,
CPU time and peak RSS from ``os.wait4``), interleaved, ``--repeat`` rounds; the table gives the
minimum (the least disturbed run) and each command's ratio to the floor. Goal: the drop-in call
within 2x the floor.

auditeval is timed as installed: ``pip install`` compiles every module's bytecode, as it did
numpy's and pyarrow's, so this script compiles the package (``compileall``) before timing.
``--no-bytecode`` times the other case, a source checkout under ``PYTHONDONTWRITEBYTECODE=1``
(set on the machines these figures come from): every call then compiles auditeval's ~100
modules from source.

Usage::

    python benchmarks/startup.py              # 10 rounds on examples/qrels.txt + examples/bm25.txt
    python benchmarks/startup.py --repeat 20
    python benchmarks/startup.py --no-bytecode   # a source checkout that cannot write .pyc
"""

from __future__ import annotations

import argparse
import compileall
import os
import shutil
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench import ROOT, run_child, trec_eval_binaries  # noqa: E402
from provenance import Provenance, table  # noqa: E402


def commands(binary: str | None) -> dict[str, list[str]]:
    py = sys.executable
    q, r = str(ROOT / "examples" / "qrels.txt"), str(ROOT / "examples" / "bm25.txt")
    out = {
        "python -c 'import numpy, pyarrow' (floor)": [py, "-c", "import numpy, pyarrow"],
        "auditeval trec-eval QRELS RUN": [py, "-m", "auditeval", "trec-eval", q, r],
        "auditeval trec-eval -q -m all_trec QRELS RUN": [py, "-m", "auditeval", "trec-eval", "-q", "-m", "all_trec", q, r],
        "auditeval --help": [py, "-m", "auditeval", "--help"],
        "python -c 'import auditeval'": [py, "-c", "import auditeval"],
    }
    if binary:
        out["trec_eval 10.0 binary QRELS RUN"] = [binary, q, r]
    return out


def prepare_bytecode(no_bytecode: bool = False) -> None:
    """auditeval as ``pip install`` leaves it (every module's bytecode compiled), or with
    ``no_bytecode`` as a source checkout that may not write any (children inherit the variable)."""
    package = ROOT / "auditeval"
    if no_bytecode:
        for cache in package.rglob("__pycache__"):
            shutil.rmtree(cache)
        os.environ["PYTHONDONTWRITEBYTECODE"] = "1"
    elif not compileall.compile_dir(str(package), quiet=1):
        raise SystemExit("compileall failed on auditeval/")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeat", type=int, default=10)
    ap.add_argument("--no-bytecode", action="store_true",
                    help="remove auditeval's __pycache__ and time with PYTHONDONTWRITEBYTECODE=1")
    args = ap.parse_args(argv)
    prov = Provenance()
    prepare_bytecode(args.no_bytecode)
    binary = trec_eval_binaries(None).get("trec_eval-10.0")
    cmds = commands(binary)
    walls: dict[str, list[float]] = {k: [] for k in cmds}
    cpus: dict[str, list[float]] = {k: [] for k in cmds}
    peaks: dict[str, list[int]] = {k: [] for k in cmds}
    for _ in range(args.repeat):
        for name, cmd in cmds.items():
            wall, peak, status, _out, err, cpu = run_child(cmd, timeout=120)
            if status != 0:
                print(f"{name}: exit {status}: {err.strip()[:300]}", file=sys.stderr)
                return 1
            walls[name].append(wall)
            cpus[name].append(cpu)
            peaks[name].append(peak)
    floor = min(walls[next(iter(cmds))])
    how = "auditeval from source, no bytecode" if args.no_bytecode else "auditeval's bytecode compiled"
    rows = [(name, f"{min(walls[name]) * 1000:.0f} ms", f"{min(walls[name]) / floor:.2f}x",
             f"{min(cpus[name]) * 1000:.0f} ms", f"{min(peaks[name]) / 1024:.0f} MB") for name in cmds]
    prov.report(f"{args.repeat} rounds, minimum, {how}:",
                table(["command", "wall (min)", "/ floor", "CPU (min)", "peak memory"], rows))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
