"""``auditeval trec-eval`` prints exactly what trec_eval 9.0.8 and 10.0 print on the 12
TREC 2003 Robust runs (``../shared/reference/robust03``), for ``-q -m all_trec`` and, on
three runs, with ``-J``, ``-M100`` and ``-l2`` too. ``main`` runs in-process.
"""

from __future__ import annotations

import difflib
import gzip
import io
from pathlib import Path

import pytest

from auditeval.trec_eval import main

SHARED = Path(__file__).resolve().parents[1].parent / "shared"
DATA = SHARED / "data" / "robust03"
REF = SHARED / "reference" / "robust03"
RUNS = sorted(p.name[len("input."):-len(".gz")] for p in (DATA / "runs").glob("input.*.gz"))
FLAGGED = ("MU03rob01", "uic0301", "humR03dc")
FLAGS = {"q.all_trec": [], "q.J.all_trec": ["-J"], "q.M100.all_trec": ["-M100"], "q.l2.all_trec": ["-l2"]}
VERSIONS = ("9.0.8", "10.0")

CASES = [(run, v, "q.all_trec") for run in RUNS for v in VERSIONS] + [
    (run, v, f) for run in FLAGGED for v in VERSIONS for f in FLAGS if f != "q.all_trec"
]


def run_trec_eval(argv: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(argv, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def first_diffs(expected: str, got: str, n: int = 20) -> str:
    diff = list(difflib.unified_diff(expected.splitlines(), got.splitlines(), "trec_eval", "auditeval", n=0, lineterm=""))
    return f"{sum(1 for d in diff if d[:1] in '+-') - 2} differing lines; first:\n" + "\n".join(diff[:n])


@pytest.mark.parametrize(("run", "version", "flags"), CASES, ids=[f"{r}-{v}-{f}" for r, v, f in CASES])
def test_robust03_parity(run: str, version: str, flags: str) -> None:
    ref = REF / f"input.{run}.te{version}.{flags}.txt.gz"
    expected = gzip.decompress(ref.read_bytes()).decode()
    argv = ["--as", version, "-q", *FLAGS[flags], "-m", "all_trec", str(DATA / "qrels.robust03.txt"), str(DATA / "runs" / f"input.{run}.gz")]
    code, got, err = run_trec_eval(argv)
    assert got == expected, first_diffs(expected, got)
    assert (code, err) == (0, "")
