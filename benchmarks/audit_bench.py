"""Benchmark: ``auditeval audit`` with pytrec_eval as the reference vs pytrec_eval alone.

Both on the 7M-line MS MARCO-sized run of ``generate_run.py`` with the audit's default
measures (AP, nDCG@10, P@10, R@1000, RR, GMAP, Bpref, 11pt):

* **pytrec_eval alone**: ``parse_qrel`` / ``parse_run`` on the files, then
  ``RelevanceEvaluator(qrels, {map, ndcg_cut.10, P.10, recall.1000, recip_rank, gm_map,
  bpref, 11pt_avg}).evaluate(run)`` in a child process (interpreter start-up included);
* **auditeval audit**: ``auditeval audit QRELS RUN --against pytrec_eval -o FILE`` in a child
  process: pytrec_eval runs in its own process while the native engine computes the
  agreement, diagnostics, sensitivity sweep and tie envelope; the wall time is the whole
  command. The target is at most 1.5x pytrec_eval alone.

The robust03 mode (``--robust03 1,12``) measures the audit with the default references on
the first N robust03 runs (100,000 lines each): its wall time, the sum of the references' own
CPU (``cpu_seconds`` of each engine in the JSON report: their children's user + system time,
from ``os.wait4``), the native engine's own time (``native_seconds``: the audit less its
waiting for references) and the goal ratio ``wall / (references' CPU / cores + native)``: 1.0
means the references kept every core busy beside the native work; the goal is at most 1.2.
``--calibrate`` runs each default reference alone on one robust03 run and prints its CPU
seconds, the figure its adapter declares as ``cost`` (``auditeval/adapters/*.py``).

Usage::

    python benchmarks/audit_bench.py [--repeat 3] [--qrels Q --run R]
    python benchmarks/audit_bench.py --robust03 1,12 [--repeat 1] [--jobs N]
    python benchmarks/audit_bench.py --calibrate

Tools run interleaved; the table gives the minimum and every run's wall time, the CPU time
(the audit's includes its pytrec_eval child) and the peak RSS (the audit parent's; its child's
peak is pytrec_eval's own). On 2 cores the audit's two processes run side by side only
when nothing else loads the machine; under load the wall time tends to their CPU sum.
"""

from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench import PYTREC, _env  # noqa: E402
from provenance import Provenance, table  # noqa: E402

MEASURES = "map,ndcg_cut.10,P.10,recall.1000,recip_rank,gm_map,bpref,11pt_avg"


def run_child(argv: list[str]) -> tuple[float, float, int, int, str]:
    """(wall s, CPU s of the child and the children it waited for, peak RSS KiB, exit status, stderr)."""
    import os
    import subprocess
    import time

    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, env=_env(), cwd=str(HERE.parent))
    err = proc.stderr.read()
    _pid, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    return wall, usage.ru_utime + usage.ru_stime, int(usage.ru_maxrss), os.waitstatus_to_exitcode(status), err.decode()


ROBUST03 = HERE.parent.parent / "shared" / "data" / "robust03"  # ../shared beside the checkout


def robust03_once(n: int, jobs: int | None = None) -> tuple | None:
    """One audit (default references) on the first ``n`` robust03 runs: ``(n, wall, CPU in all,
    references' own CPU, native seconds, jobs, ratio, references)``; None when it failed."""
    import json
    import os

    qrels = str(ROBUST03 / "qrels.robust03.txt")
    runs = sorted(str(p) for p in (ROBUST03 / "runs").iterdir())
    cores = jobs or len(os.sched_getaffinity(0))
    out = Path(tempfile.mkdtemp(prefix="audit-bench-")) / "audit.json"
    cmd = [sys.executable, "-m", "auditeval", "audit", qrels, *runs[:n], "--format", "json", "-o", str(out)]
    if jobs:
        cmd += ["--jobs", str(jobs)]
    wall, cpu, _peak, code, stderr = run_child(cmd)
    if code not in (0, 1):
        print(f"audit on {n} run(s) failed ({code}): {stderr[-2000:]}", file=sys.stderr)
        return None
    rep = json.loads(out.read_text())
    refs = [e for e in rep["engines"] if e["name"] != "native"]
    ref_cpu = sum(e["cpu_seconds"] for e in refs)
    native = rep["native_seconds"]
    ratio = wall / (ref_cpu / cores + native)
    per = ", ".join(f"{e['name']} {e['seconds']:.0f}/{e['cpu_seconds']:.0f}" for e in refs if e["status"] == "ok")
    print(f"{n} run(s): {wall:.1f} s wall, {cpu:.1f} s CPU in all; references' CPU {ref_cpu:.1f} s; "
          f"native {native:.1f} s; ratio {ratio:.2f}; wall/CPU s per reference: {per}", file=sys.stderr)
    return (n, wall, cpu, ref_cpu, native, rep["jobs"], ratio, len(refs))


def robust03(prov: Provenance, counts: list[int], repeat: int, jobs: int | None) -> int:
    """The audit (default references) on the first N robust03 runs, per N in ``counts``."""
    import os

    cores = jobs or len(os.sched_getaffinity(0))
    rows = []
    for n in counts:
        for _ in range(repeat):
            row = robust03_once(n, jobs)
            if row is None:
                return 2
            rows.append(row)
    cells = [(n, f"{wall:.1f} s", f"{cpu:.1f} s", f"{ref_cpu:.1f} s ({nrefs} references)", f"{native:.1f} s",
              f"{njobs} ({cores})", f"{ratio:.2f} (goal <= 1.2)")
             for n, wall, cpu, ref_cpu, native, njobs, ratio, nrefs in rows]
    prov.report(table(["runs", "wall", "CPU in all", "references' own CPU", "native engine", "jobs (cores)",
                       "wall / (refs CPU / cores + native)"], cells, "r" * 7))
    return 0


def calibrate(prov: Provenance) -> int:
    """Each default reference alone on one robust03 run: wall and CPU seconds (its declared
    ``cost`` is the CPU figure per 100,000 lines)."""
    import json

    qrels = str(ROBUST03 / "qrels.robust03.txt")
    run = sorted(str(p) for p in (ROBUST03 / "runs").iterdir())[0]
    out = Path(tempfile.mkdtemp(prefix="audit-bench-")) / "audit.json"
    wall, _, _, code, stderr = run_child([sys.executable, "-m", "auditeval", "audit", qrels, run, "--jobs", "1",
                                          "--format", "json", "-o", str(out)])
    if code not in (0, 1):
        print(f"audit failed ({code}): {stderr[-2000:]}", file=sys.stderr)
        return 2
    rep = json.loads(out.read_text())
    from auditeval.adapters import references

    declared = {a.name: a.cost for a in references()}
    rows = [(f"{e['name']} ({e['status']})", f"{e['seconds']:.1f} s", f"{e['cpu_seconds']:.1f} s",
             f"{declared.get(e['name'], float('nan')):g}") for e in rep["engines"] if e["name"] != "native"]
    prov.report(table([f"reference (one robust03 run, --jobs 1; audit {wall:.0f} s)", "wall", "own CPU",
                       "declared cost"], rows))
    return 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qrels", default=str(HERE / "data" / "qrels.msmarco-like.txt"))
    ap.add_argument("--run", default=str(HERE / "data" / "run.msmarco-like.txt"))
    ap.add_argument("--repeat", type=int, default=None, help="repetitions (default 3; robust03: 1)")
    ap.add_argument("--robust03", metavar="N[,N...]", help="the audit on the first N robust03 runs, default references")
    ap.add_argument("--jobs", type=int, default=None, help="robust03: --jobs of the audit (default: the cores)")
    ap.add_argument("--calibrate", action="store_true", help="each default reference alone on one robust03 run")
    args = ap.parse_args(argv)
    prov = Provenance()
    if args.calibrate:
        return calibrate(prov)
    if args.robust03:
        return robust03(prov, [int(x) for x in args.robust03.split(",")], args.repeat or 1, args.jobs)
    args.repeat = args.repeat or 3
    if not Path(args.run).is_file():
        import subprocess

        subprocess.run([sys.executable, str(HERE / "generate_run.py")], check=True)
    out = Path(tempfile.mkdtemp(prefix="audit-bench-")) / "audit.txt"
    tools = {
        "pytrec_eval parse + evaluate": [sys.executable, "-c", PYTREC, args.qrels, args.run, MEASURES],
        "auditeval audit --against pytrec_eval": [sys.executable, "-m", "auditeval", "audit", args.qrels, args.run,
                                                  "--against", "pytrec_eval", "-o", str(out)],
    }
    times: dict[str, list[float]] = {k: [] for k in tools}
    cpus: dict[str, list[float]] = {k: [] for k in tools}
    peaks: dict[str, list[int]] = {k: [] for k in tools}
    for _ in range(args.repeat):
        for name, cmd in tools.items():
            wall, cpu, peak, code, stderr = run_child(cmd)
            if code not in (0, 1):
                print(f"{name} failed ({code}): {stderr[-2000:]}", file=sys.stderr)
                return 2
            times[name].append(wall)
            cpus[name].append(cpu)
            peaks[name].append(peak)
            print(f"{name}: {wall:.2f} s wall, {cpu:.2f} s CPU, {peak / 1024:.0f} MB", file=sys.stderr)
    base = min(times["pytrec_eval parse + evaluate"])
    rows = [(name, f"{min(t):.2f} s ({', '.join(f'{x:.2f}' for x in t)})", f"{min(t) / base:.2f}x",
             f"{min(cpus[name]):.2f} s", f"{max(peaks[name]) / 1024:,.0f} MB") for name, t in times.items()]
    prov.report(table(["tool", "wall time (min; runs)", "vs pytrec_eval", "CPU time (min)", "peak RSS"], rows),
                f"audit report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
