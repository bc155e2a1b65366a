"""Wall time and peak memory of auditeval and other evaluators on one large run, side by side.

Every tool runs in its own child process (a fresh interpreter or the binary itself), so
imports, parsing and evaluation are all counted, and each peak RSS is that child's own
(``os.wait4`` resource usage, ``ru_maxrss``; Linux carries a parent's RSS into its
child's high-water mark across fork and exec, so this script imports nothing heavy). Each measurement is repeated ``--repeat``
times; the table shows the smallest wall time and the smallest peak (the machine is
shared: the minimum is the least disturbed run), each run in brackets.

Tools: ``auditeval trec-eval --as 10.0`` (the CLI; ``--as`` picks the build it behaves as),
the real trec_eval binaries (10.0 and 9.0.8, built by ``../shared/tools/build-trec-eval``
into ``.bin/trec_eval``; ``.ci/run`` builds them, else this script does; or ``--trec-eval
PATH`` for another one), pytrec_eval (its ``parse_qrel``/``parse_run`` readers +
``RelevanceEvaluator``), ir_measures (``read_trec_*`` + ``calc_aggregate``) and ranx
(``Qrels``/``Run.from_file`` + ``evaluate``), for the five measures
``map ndcg_cut.10 P.10 recall.1000 recip_rank``, then ``-m all_trec`` for the tools that
have it (auditeval trec-eval, trec_eval, pytrec_eval with every supported measure).

Usage::

    python benchmarks/bench.py            # 6,980 x 1,000 MS MARCO dev-sized run (generated if missing)
    python benchmarks/bench.py --quick    # 500 topics, to smoke-test
    python benchmarks/bench.py --repeat 5 --only auditeval,pytrec_eval --no-all-trec
    python benchmarks/bench.py --ids string   # the same run with D3312019 / LA052390-0089 doc ids
    python benchmarks/bench.py --ids long     # ClueWeb09 ids (--ids variable: D + 1-7 digits)
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

from provenance import Provenance, table  # noqa: E402

OTHER_PACKAGES = ("pandas", "pytrec-eval-terrier", "ir-measures", "ranx", "numba")

FIVE_TREC = ["map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"]
ID_SUFFIXES = {"numeric": "", "string": ".strid", "short": ".shortid", "variable": ".varid", "long": ".longid"}
"""generate_run.py's ``--ids`` and the file names' suffixes (its ``SUFFIXES``; not imported: it loads numpy)."""

# --------------------------------------------------------------------------- child programs
# Each prints "map <value>" (the mean AP over topics) so the table can show the tools agree.
PYTREC = r"""
import sys, pytrec_eval
qrels_path, run_path, measures = sys.argv[1], sys.argv[2], sys.argv[3]
with open(qrels_path) as f:
    qrels = pytrec_eval.parse_qrel(f)
with open(run_path) as f:
    run = pytrec_eval.parse_run(f)
ms = pytrec_eval.supported_measures if measures == "all_trec" else set(measures.split(","))
res = pytrec_eval.RelevanceEvaluator(qrels, ms).evaluate(run)
vals = [v["map"] for v in res.values()]
print("map", sum(vals) / len(vals), "measures", len(next(iter(res.values()))))
"""

IR_MEASURES = r"""
import sys, ir_measures
from ir_measures import AP, nDCG, P, R, RR
qrels = ir_measures.read_trec_qrels(sys.argv[1])
run = ir_measures.read_trec_run(sys.argv[2])
agg = ir_measures.calc_aggregate([AP, nDCG@10, P@10, R@1000, RR], qrels, run)
print("map", agg[AP])
"""

RANX = r"""
import sys
from ranx import Qrels, Run, evaluate
qrels = Qrels.from_file(sys.argv[1], kind="trec")
run = Run.from_file(sys.argv[2], kind="trec")
res = evaluate(qrels, run, ["map", "ndcg@10", "precision@10", "recall@1000", "mrr"])
print("map", res["map"])
"""

AUDITEVAL_CLI = "import sys; sys.argv[0] = 'auditeval'; from auditeval.cli.main import entry; entry()"


@dataclass
class Tool:
    name: str
    label: str  # what is measured
    argv: list[str] | None  # None: not available
    note: str = ""
    times: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)  # KiB
    cpus: list[float] = field(default_factory=list)  # user + system seconds
    map_value: str = ""
    failed: str = ""

    @property
    def best(self) -> float:
        return min(self.times)

    @property
    def peak(self) -> int:
        return min(self.peaks)


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    return env


def run_child(argv: list[str], timeout: float | None = None) -> tuple[float, int, int, str, str, float]:
    """(wall seconds, peak RSS KiB, exit status, stdout, stderr, CPU seconds) of one child process.

    CPU seconds (user + system, ``os.wait4``) suffer less than wall time from other jobs on
    shared cores (they still pay for caches and frequency); Arrow's reader threads add theirs.

    Killed after ``timeout`` seconds (exit status -9)."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(), cwd=str(ROOT))
    timer = threading.Timer(timeout, proc.kill) if timeout else None
    if timer:
        timer.start()
    # read the pipes before reaping the child (outputs are small)
    out, err = proc.stdout.read(), proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    if timer:
        timer.cancel()
    proc.returncode = os.waitstatus_to_exitcode(status)
    cpu = usage.ru_utime + usage.ru_stime
    return wall, int(usage.ru_maxrss), proc.returncode, out.decode(errors="replace"), err.decode(errors="replace"), cpu


def _map_from(tool: str, out: str) -> str:
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        if tool.startswith(("auditeval", "trec_eval")) and parts[0] == "map" and len(parts) >= 3 and parts[1] == "all":
            return parts[2]
        if not tool.startswith(("auditeval", "trec_eval")) and parts[0] == "map" and len(parts) >= 2:
            return f"{float(parts[1]):.4f}"
    return ""


BIN_DIR = ROOT / ".bin" / "trec_eval"


def trec_eval_binaries(extra: str | None) -> dict[str, str]:
    """name -> path of the trec_eval binaries to measure (built into .bin/trec_eval if missing)."""
    bins = {f"trec_eval-{v}": BIN_DIR / f"trec_eval-{v}" for v in ("10.0", "9.0.8")}
    if not all(p.is_file() for p in bins.values()):
        build = ROOT.parent / "shared" / "tools" / "build-trec-eval"
        if build.is_file():
            subprocess.run(["bash", str(build), str(BIN_DIR)], capture_output=True)
    out = {k: str(p) for k, p in bins.items() if p.is_file()}
    if extra:
        out["trec_eval"] = extra
    return out


def tools_for(
    qrels: Path, run: Path, all_trec: bool, bins: dict[str, str], only: set[str] | None, version: str = "10.0"
) -> list[Tool]:
    py = sys.executable
    five_m = [a for m in FIVE_TREC for a in ("-m", m)]
    ms = ["-m", "all_trec"] if all_trec else five_m
    what = "all_trec" if all_trec else "5 measures"
    out = [
        Tool(
            "auditeval",
            f"auditeval trec-eval --as {version} ({what})",
            [py, "-c", AUDITEVAL_CLI, "trec-eval", "--as", version, *ms, str(qrels), str(run)],
        ),
        *[Tool(name, f"{name} binary ({what})", [path, *ms, str(qrels), str(run)]) for name, path in bins.items()],
    ]
    if not bins:
        out.append(Tool("trec_eval", f"trec_eval binary ({what})", None, "no binary (skipped)"))
    out += [
        Tool(
            "pytrec_eval",
            f"pytrec_eval parse+evaluate ({'all supported measures' if all_trec else '5 measures'})",
            [py, "-c", PYTREC, str(qrels), str(run), "all_trec" if all_trec else ",".join(FIVE_TREC)],
        ),
    ]
    if not all_trec:
        out += [
            Tool("ir_measures", "ir_measures calc_aggregate (5 measures)", [py, "-c", IR_MEASURES, str(qrels), str(run)]),
            Tool("ranx", "ranx from_file+evaluate (5 measures)", [py, "-c", RANX, str(qrels), str(run)]),
        ]
    return [t for t in out if only is None or t.name in only or t.name.split("-")[0] in only]


# --------------------------------------------------------------------------- output
def _fmt_mem(kib: int) -> str:
    return f"{kib / 1024:,.0f} MB"


def table_markdown(title: str, tools: list[Tool], repeat: int, base: str = "trec_eval-10.0") -> str:
    """Markdown table; times and peaks relative to ``base`` (the trec_eval 10.0 binary, else pytrec_eval)."""
    ref = next((t for t in tools if t.name == base and t.times), None)
    if ref is None:
        base = "pytrec_eval"
        ref = next((t for t in tools if t.name == base and t.times), None)
    rows = []
    for t in tools:
        if t.argv is None or t.failed:
            rows.append((t.label, "-", "-", "-", "-", "-", t.note or t.failed))
            continue
        speed = f"{t.best / ref.best:.2f}x" if ref else "-"
        mem = f"{t.peak / ref.peak:.2f}x" if ref else "-"
        runs = ", ".join(f"{x:.2f}" for x in t.times)
        rows.append((t.label, f"{t.best:.2f} s ({runs})", speed, f"{min(t.cpus):.2f} s", _fmt_mem(t.peak), mem,
                     t.map_value))
    head = f"**{title}** (wall time: minimum of {repeat} runs, each in brackets; CPU time: user + system, minimum; peak memory: smallest RSS high-water mark)"
    return head + "\n\n" + table(["tool", "wall time", f"time / {base}", "CPU time", "peak memory",
                                   f"memory / {base}", "map"], rows)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="500-topic run (smoke test)")
    ap.add_argument("--topics", type=int, default=None, help="topics in the generated run (default 6980, --quick 500)")
    ap.add_argument("--qrels", type=Path, help="use this qrels file instead of the generated one")
    ap.add_argument("--run", type=Path, help="use this run file instead of the generated one")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated tool names (auditeval,trec_eval,pytrec_eval,ir_measures,ranx)")
    ap.add_argument("--no-all-trec", action="store_true", help="skip the -m all_trec table")
    ap.add_argument("--trec-eval", default=None, help="another trec_eval binary to measure (besides .bin/trec_eval)")
    ap.add_argument("--ids", choices=tuple(ID_SUFFIXES), default="numeric",
                    help="document ids of the generated run (short: D + 7 digits only; variable: D + 1-7 digits; "
                         "long: ClueWeb09's)")
    ap.add_argument("--as", dest="version", default="10.0", help="trec_eval build auditeval behaves as (--as)")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown to this file")
    ap.add_argument("--timeout", type=float, default=600, help="seconds before a tool is stopped (reported as such)")
    ap.add_argument("--slow-once", default="ranx", help="tools measured once only (comma-separated; default ranx)")
    args = ap.parse_args(argv)
    prov = Provenance(OTHER_PACKAGES)

    if args.qrels and args.run:
        qrels, run = args.qrels, args.run
    else:
        n = args.topics or (500 if args.quick else 6980)
        suffix = ("" if n == 6980 else f".{n}") + ID_SUFFIXES[args.ids]
        qrels = HERE / "data" / f"qrels.msmarco-like{suffix}.txt"
        run = HERE / "data" / f"run.msmarco-like{suffix}.txt"
        if not (qrels.exists() and run.exists()):
            # in a child, as above: numpy and pyarrow stay out of this process
            subprocess.run([sys.executable, str(HERE / "generate_run.py"), "--topics", str(n), "--ids", args.ids], check=True)
    n_lines = sum(1 for _ in open(run, "rb"))
    bins = trec_eval_binaries(args.trec_eval)
    only = {x.strip() for x in args.only.split(",") if x.strip()} or None

    sections = []
    for all_trec in (False, True):
        if all_trec and args.no_all_trec:
            continue
        tools = tools_for(qrels, run, all_trec, bins, only, args.version)
        once = {x.strip() for x in args.slow_once.split(",") if x.strip()}
        for rep in range(args.repeat):
            for t in tools:  # interleaved: load changes hit every tool alike
                if t.argv is None or t.failed or (rep and t.name in once):
                    continue
                wall, peak, code, out, err, cpu = run_child(t.argv, args.timeout)
                if code == -9 and wall >= args.timeout:
                    t.failed = f"stopped after {args.timeout:.0f} s"
                    continue
                if code != 0:
                    t.failed = f"failed (exit {code}): {err.strip().splitlines()[-1] if err.strip() else ''}"
                    continue
                t.times.append(wall)
                t.peaks.append(peak)
                t.cpus.append(cpu)
                t.map_value = _map_from(t.name, out) or t.map_value
                print(f"  [{'all_trec' if all_trec else '5 measures'} {rep + 1}/{args.repeat}] {t.name}: {wall:.2f} s, {peak / 1024:,.0f} MB", file=sys.stderr)
        title = f"{'-m all_trec' if all_trec else '5 measures (map ndcg_cut.10 P.10 recall.1000 recip_rank)'}, {n_lines:,} run lines"
        sections.append(table_markdown(title, tools, args.repeat))
    where = f"Run: `{run.relative_to(ROOT) if run.is_relative_to(ROOT) else run}` ({n_lines:,} lines), qrels: `{qrels.name}`"
    text = prov.report(where, *sections)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
