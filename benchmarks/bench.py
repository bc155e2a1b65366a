"""Wall time and peak memory of auditeval and other evaluators on one large run, side by side.

Every tool runs in its own child process (a fresh interpreter or the binary itself), so
imports, parsing and evaluation are all counted, and each peak RSS is that child's own
(``os.wait4`` resource usage, ``ru_maxrss``). Each measurement is repeated ``--repeat``
times; the table shows the median wall time and the largest peak.

Tools: ``auditeval trec-eval`` (the CLI), the ``trec_eval`` binary if on PATH (or
``--trec-eval PATH``), pytrec_eval (its ``parse_qrel``/``parse_run`` readers +
``RelevanceEvaluator``), ir_measures (``read_trec_*`` + ``calc_aggregate``) and ranx
(``Qrels``/``Run.from_file`` + ``evaluate``), for the five measures
``map ndcg_cut.10 P.10 recall.1000 recip_rank``, then ``-m all_trec`` for the tools that
have it (auditeval trec-eval, trec_eval, pytrec_eval with every supported measure).

Usage::

    python benchmarks/bench.py            # 6,980 x 1,000 MS MARCO dev-sized run (generated if missing)
    python benchmarks/bench.py --quick    # 500 topics, to smoke-test
    python benchmarks/bench.py --repeat 5 --only auditeval,pytrec_eval --no-all-trec
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))

FIVE_TREC = ["map", "ndcg_cut.10", "P.10", "recall.1000", "recip_rank"]

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

AUDITEVAL_CLI = "import sys; sys.argv[0] = 'auditeval'; from auditeval.cli import entry; entry()"


@dataclass
class Tool:
    name: str
    label: str  # what is measured
    argv: list[str] | None  # None: not available
    note: str = ""
    times: list[float] = field(default_factory=list)
    peaks: list[int] = field(default_factory=list)  # KiB
    map_value: str = ""
    failed: str = ""


def _env() -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + (os.pathsep + env["PYTHONPATH"] if env.get("PYTHONPATH") else "")
    env.setdefault("OMP_NUM_THREADS", str(os.cpu_count() or 1))
    return env


def run_child(argv: list[str], timeout: float | None = None) -> tuple[float, int, int, str, str]:
    """(wall seconds, peak RSS KiB, exit status, stdout, stderr) of one child process.

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
    return wall, int(usage.ru_maxrss), proc.returncode, out.decode(errors="replace"), err.decode(errors="replace")


def _map_from(tool: str, out: str) -> str:
    for line in out.splitlines():
        parts = line.split()
        if not parts:
            continue
        if tool in ("auditeval", "trec_eval") and parts[0] == "map" and len(parts) >= 3 and parts[1] == "all":
            return parts[2]
        if tool not in ("auditeval", "trec_eval") and parts[0] == "map" and len(parts) >= 2:
            return f"{float(parts[1]):.4f}"
    return ""


def tools_for(qrels: Path, run: Path, all_trec: bool, trec_eval_bin: str | None, only: set[str] | None) -> list[Tool]:
    py = sys.executable
    five_m = [a for m in FIVE_TREC for a in ("-m", m)]
    ms = ["-m", "all_trec"] if all_trec else five_m
    what = "all_trec" if all_trec else "5 measures"
    out = [
        Tool("auditeval", f"auditeval trec-eval ({what})", [py, "-c", AUDITEVAL_CLI, "trec-eval", *ms, str(qrels), str(run)]),
        Tool(
            "trec_eval",
            f"trec_eval binary ({what})",
            [trec_eval_bin, *ms, str(qrels), str(run)] if trec_eval_bin else None,
            "" if trec_eval_bin else "not on PATH (skipped)",
        ),
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
    return [t for t in out if only is None or t.name in only]


# --------------------------------------------------------------------------- machine
def machine_info() -> dict[str, str]:
    from importlib import metadata

    info: dict[str, str] = {}
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    try:
        mhz = [ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines() if ln.startswith("cpu MHz")]
        if mhz:
            cpu += f" @ {float(mhz[0]) / 1000:.2f} GHz"
    except (OSError, ValueError):
        pass
    info["CPU"] = cpu
    info["cores"] = f"{os.cpu_count()} logical"
    try:
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal"):
                info["memory"] = f"{int(line.split()[1]) / 1024 / 1024:.1f} GiB"
    except OSError:
        pass
    info["OS"] = f"{platform.system()} {platform.release()}"
    info["Python"] = platform.python_version()
    sys.path.insert(0, str(ROOT))
    import auditeval

    rev = ""
    try:
        rev = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    except OSError:
        pass
    vers = [f"auditeval {auditeval.__version__}" + (f" (git {rev})" if rev else "")]
    for pkg in ("numpy", "pyarrow", "pandas", "pytrec-eval-terrier", "ir-measures", "ranx", "numba"):
        try:
            vers.append(f"{pkg} {metadata.version(pkg)}")
        except metadata.PackageNotFoundError:
            pass
    info["packages"] = ", ".join(vers)
    try:
        info["load average (start)"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass
    return info


# --------------------------------------------------------------------------- output
def _fmt_mem(kib: int) -> str:
    return f"{kib / 1024:,.0f} MB"


def table_markdown(title: str, tools: list[Tool], repeat: int, base: str = "pytrec_eval") -> str:
    ref = next((t for t in tools if t.name == base and t.times), None)
    ref_t = statistics.median(ref.times) if ref else None
    ref_m = max(ref.peaks) if ref else None
    lines = [
        f"**{title}** (wall time: median of {repeat} runs, each in brackets; peak memory: largest RSS high-water mark)",
        "",
        f"| tool | wall time | vs {base} | peak memory | vs {base} | map |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for t in tools:
        if t.argv is None or t.failed:
            lines.append(f"| {t.label} | - | - | - | - | {t.note or t.failed} |")
            continue
        wt = statistics.median(t.times)
        pk = max(t.peaks)
        if not ref_t:
            speed = "-"
        elif t is ref:
            speed = "1x"
        else:
            speed = f"{ref_t / wt:.2f}x faster" if wt <= ref_t else f"{wt / ref_t:.2f}x slower"
        mem = f"{pk / ref_m:.2f}x" if ref_m else "-"
        runs = ", ".join(f"{x:.2f}" for x in t.times)
        lines.append(f"| {t.label} | {wt:.2f} s ({runs}) | {speed} | {_fmt_mem(pk)} | {mem} | {t.map_value} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="500-topic run (smoke test)")
    ap.add_argument("--topics", type=int, default=None, help="topics in the generated run (default 6980, --quick 500)")
    ap.add_argument("--qrels", type=Path, help="use this qrels file instead of the generated one")
    ap.add_argument("--run", type=Path, help="use this run file instead of the generated one")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--only", default="", help="comma-separated tool names (auditeval,trec_eval,pytrec_eval,ir_measures,ranx)")
    ap.add_argument("--no-all-trec", action="store_true", help="skip the -m all_trec table")
    ap.add_argument("--trec-eval", default=None, help="trec_eval binary (default: trec_eval on PATH)")
    ap.add_argument("--out", type=Path, default=None, help="also write the markdown to this file")
    ap.add_argument("--timeout", type=float, default=600, help="seconds before a tool is stopped (reported as such)")
    ap.add_argument("--slow-once", default="ranx", help="tools measured once only (comma-separated; default ranx)")
    args = ap.parse_args(argv)

    if args.qrels and args.run:
        qrels, run = args.qrels, args.run
    else:
        import generate_run

        n = args.topics or (500 if args.quick else 6980)
        suffix = "" if n == 6980 else f".{n}"
        qrels = HERE / "data" / f"qrels.msmarco-like{suffix}.txt"
        run = HERE / "data" / f"run.msmarco-like{suffix}.txt"
        if not (qrels.exists() and run.exists()):
            generate_run.main(["--topics", str(n)])
    n_lines = sum(1 for _ in open(run, "rb"))
    trec_eval_bin = args.trec_eval or shutil.which("trec_eval")
    only = {x.strip() for x in args.only.split(",") if x.strip()} or None

    info = machine_info()
    sections = []
    for all_trec in (False, True):
        if all_trec and args.no_all_trec:
            continue
        tools = tools_for(qrels, run, all_trec, trec_eval_bin, only)
        once = {x.strip() for x in args.slow_once.split(",") if x.strip()}
        for rep in range(args.repeat):
            for t in tools:  # interleaved: load changes hit every tool alike
                if t.argv is None or t.failed or (rep and t.name in once):
                    continue
                wall, peak, code, out, err = run_child(t.argv, args.timeout)
                if code == -9 and wall >= args.timeout:
                    t.failed = f"stopped after {args.timeout:.0f} s"
                    continue
                if code != 0:
                    t.failed = f"failed (exit {code}): {err.strip().splitlines()[-1] if err.strip() else ''}"
                    continue
                t.times.append(wall)
                t.peaks.append(peak)
                t.map_value = _map_from(t.name, out) or t.map_value
                print(f"  [{'all_trec' if all_trec else '5 measures'} {rep + 1}/{args.repeat}] {t.name}: {wall:.2f} s, {peak / 1024:,.0f} MB", file=sys.stderr)
        title = f"{'-m all_trec' if all_trec else '5 measures (map ndcg_cut.10 P.10 recall.1000 recip_rank)'}, {n_lines:,} run lines"
        sections.append(table_markdown(title, tools, args.repeat))
    try:
        info["load average (end)"] = " ".join(f"{x:.2f}" for x in os.getloadavg())
    except OSError:
        pass

    md = [f"Run: `{run.relative_to(ROOT) if run.is_relative_to(ROOT) else run}` ({n_lines:,} lines), qrels: `{qrels.name}`", ""]
    md += ["| machine | |", "|---|---|"] + [f"| {k} | {v} |" for k, v in info.items()] + [""]
    md += [s + "\n" for s in sections]
    text = "\n".join(md)
    print(text)
    if args.out:
        args.out.write_text(text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
