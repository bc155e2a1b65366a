"""``auditeval trec-eval`` prints exactly what trec_eval 9.0.8 and 10.0 print, on whole
robust03-shaped runs: ``-q -m all_trec`` on every run and, on three runs, with ``-J``,
``-M100`` and ``-l2`` too. The builds run at test time (``trec_eval_bins``) on the seeded
collection (core tier) and on the 12 TREC 2003 Robust runs (real-data tier). Both sides read
the uncompressed run (trec_eval 9 cannot read gzip). ``main`` runs in-process.
"""

from __future__ import annotations

import difflib
import io
import subprocess

import pytest
from paths import ROBUST03_RUNS
from synthetic import RUNS as SYNTHETIC

from auditeval.trec_eval import main

FLAGS = {"q.all_trec": [], "q.J.all_trec": ["-J"], "q.M100.all_trec": ["-M100"], "q.l2.all_trec": ["-l2"]}
VERSIONS = ("9.0.8", "10.0")
TIERS = {"robust03_like": ([r.name for r in SYNTHETIC], ("synTies", "synMissing", "synShallow")),
         "robust03": (ROBUST03_RUNS, ("MU03rob01", "uic0301", "humR03dc"))}

CASES = [(tier, run, v, "q.all_trec") for tier, (runs, _) in TIERS.items() for run in runs for v in VERSIONS] + [
    (tier, run, v, f) for tier, (_, flagged) in TIERS.items() for run in flagged for v in VERSIONS
    for f in FLAGS if f != "q.all_trec"
]


def run_trec_eval(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def first_diffs(expected: str, got: str, n: int = 20) -> str:
    diff = list(difflib.unified_diff(expected.splitlines(), got.splitlines(), "trec_eval", "auditeval", n=0, lineterm=""))
    return f"{sum(1 for d in diff if d[:1] in '+-') - 2} differing lines; first:\n" + "\n".join(diff[:n])


@pytest.mark.parametrize(("tier", "run", "version", "flags"), CASES, ids=[f"{t}-{r}-{v}-{f}" for t, r, v, f in CASES])
def test_parity_with_the_build(request, trec_eval_bins, tier: str, run: str, version: str, flags: str) -> None:
    data = request.getfixturevalue(tier)
    args = ["-q", *FLAGS[flags], "-m", "all_trec", str(data.qrels), str(data.plain(run))]
    ref = subprocess.run([str(trec_eval_bins[version]), *args], capture_output=True, text=True, timeout=120)
    code, got, err = run_trec_eval(["--as", version, *args])
    assert got == ref.stdout, first_diffs(ref.stdout, got)
    assert (code, err) == (ref.returncode, ref.stderr)
    if tier == "robust03":
        assert code == 0 and len(got.splitlines()) > 1000  # the real runs all evaluate
