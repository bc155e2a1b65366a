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

Usage::

    python benchmarks/audit_bench.py [--repeat 3] [--qrels Q --run R]

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

from bench import PYTREC, _env, machine_info  # noqa: E402

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


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--qrels", default=str(HERE / "data" / "qrels.msmarco-like.txt"))
    ap.add_argument("--run", default=str(HERE / "data" / "run.msmarco-like.txt"))
    ap.add_argument("--repeat", type=int, default=3)
    args = ap.parse_args(argv)
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
    print("| tool | wall time (min; runs) | vs pytrec_eval | CPU time (min) | peak RSS |")
    print("|---|---:|---:|---:|---:|")
    for name in tools:
        t = times[name]
        print(f"| {name} | {min(t):.2f} s ({', '.join(f'{x:.2f}' for x in t)}) | {min(t) / base:.2f}x | "
              f"{min(cpus[name]):.2f} s | {max(peaks[name]) / 1024:,.0f} MB |")
    info = machine_info()
    print("\n" + ", ".join(f"{k}: {v}" for k, v in info.items()))
    print(f"\naudit report: {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
