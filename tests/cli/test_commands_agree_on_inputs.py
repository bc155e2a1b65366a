"""Side doors: inputs every command must refuse (or handle) the same way, with
``auditeval: error: path:line: reason`` and exit status 2, never a traceback."""

from __future__ import annotations

import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli, run_cli_in
from paths import REPO

pytestmark = pytest.mark.slow

ROOT = REPO


def cli(*argv: str, limit_bytes: int | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    """``auditeval ARGV``: in process (:func:`cli_helpers.run_cli_in`), or under an address-space
    limit in a child process (the limit would bind the test's own process)."""
    if limit_bytes is None:
        return run_cli_in(list(argv), cwd)

    def limit() -> None:
        import resource

        resource.setrlimit(resource.RLIMIT_AS, (limit_bytes, limit_bytes))

    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-m", "auditeval.cli.main", *argv], capture_output=True, text=True,
                          env=env, cwd=cwd, timeout=120, preexec_fn=limit if limit_bytes else None)


# ------------------------------------------------------------------ item 2: huge grades
def test_huge_grades_evaluate_without_allocating_per_grade_value(tmp_path):
    """Grades 10,000,000 and 2,000,000,000 under a 2 GiB address-space limit (trec_eval's level
    list would need 80 MB and 16 GiB). nDCG by hand: topic 1 DCG = 1e7 (d1 at rank 1),
    IDCG = 1e7 + 1/log2(3); topic 2 DCG = 3 + 2e9/log2(3), IDCG = 2e9 + 3/log2(3)."""
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 10000000\n1 0 d2 1\n2 0 d5 2000000000\n2 0 d6 3\n")
    r = tmp_path / "r.txt"
    r.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d3 2 0.5 r\n2 Q0 d6 1 2.0 r\n2 Q0 d5 2 1.0 r\n")
    p = cli("eval", str(q), str(r), "-m", "nDCG", "-m", "G", "-m", "RBP", "-q", "--format", "tsv",
            limit_bytes=2 * 2**30)
    assert p.returncode == 0, p.stderr
    assert "Traceback" not in p.stderr
    l3 = math.log2(3)
    want = {"1": 1e7 / (1e7 + 1 / l3), "2": (3 + 2e9 / l3) / (2e9 + 3 / l3)}
    rows = [line.split("\t") for line in p.stdout.splitlines()[1:] if not line.startswith("#")]
    got = {t: float(v) for _, m, t, v, *_ in rows if m == "nDCG" and t in want}
    assert got.keys() == want.keys(), p.stdout
    for t in want:
        assert abs(got[t] - want[t]) < 1e-12, (t, got[t], want[t])
    assert {m for _, m, *_ in rows} == {"nDCG", "G", "RBP"}


def _num(text: str) -> bool:
    try:
        float(text)
        return True
    except ValueError:
        return False


# ------------------------------------------------------------------ item 6: one rule per input
EX = ROOT / "examples"


def test_an_empty_measure_is_refused_by_every_command_taking_m():
    q, a, b = str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(EX / "rerank.txt")
    for argv in (["eval", q, a], ["sweep", q, a], ["audit", q, a], ["compare", q, a, b], ["reproduce", q, a, b],
                 ["pool", "bias", q, a, b], ["pool", "growth", q, a, b]):
        for empty in ("",) if argv[0] != "eval" else ("", "  "):
            p = cli(*argv, "-m", empty)
            assert p.returncode == 2, (argv, p.stdout)
            assert p.stdout == "" and "Traceback" not in p.stderr
            assert p.stderr.splitlines()[-1].endswith(f"error: argument -m/--measure: no measure given in {empty!r}")


def test_duplicates_under_dups_error_refused_alike_by_eval_sweep_audit(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n1 0 d2 0\n")
    run = tmp_path / "dup.txt"
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d1 2 1.0 r\n1 Q0 d3 3 0.5 r\n")
    want = (f"auditeval: error: {run}:2: duplicate result for topic '1' doc 'd1' (first at line 1); "
            "choose dups=first or dups=last to keep one\n")
    for command in ("eval", "sweep", "audit"):
        p = cli(command, str(q), str(run), "-m", "AP")
        assert (p.returncode, p.stdout, p.stderr) == (2, "", want), command
    import auditeval

    for call in (lambda: auditeval.evaluate(q, run, ["AP"]), lambda: auditeval.sweep(q, run, ["AP"])):
        try:
            call()
        except auditeval.AuditEvalError as exc:
            assert f"auditeval: error: {exc}\n" == want
        else:
            raise AssertionError("accepted a duplicate under dups=error")
    # with dups=first the sweep runs: AP of d1 (the one kept), d3 = 1/1 / R(1) = 1
    p = cli("sweep", str(q), str(run), "-m", "AP", "--set", "dups=first", "--format", "tsv")
    assert p.returncode == 0, p.stderr


# ------------------------------------------------------------------ item 7: --baseline path or tag
def test_baseline_by_path_or_tag_in_card_and_compare():
    q, a, b = str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(EX / "rerank.txt")
    for command, extra in (("card", ["--format", "json"]), ("compare", ["--trials", "200", "--format", "json"])):
        by_path = run_cli(command, q, a, b, "-m", "AP", "--baseline", a, *extra)
        by_tag = run_cli(command, q, a, b, "-m", "AP", "--baseline", "bm25", *extra)
        assert by_path[0] == 0 and by_path == by_tag, command
        code, out, err = run_cli(command, q, a, b, "-m", "AP", "--baseline", "nope", *extra)
        assert (code, out) == (2, "")
        assert err == (f"auditeval: error: --baseline nope: not one of the runs given; name one by its path ({a}, {b}) "
                       "or its label (bm25, rerank)\n")


# ------------------------------------------------------------------ item 8: ir_metadata takes a path
def test_evaluation_block_accepts_a_qrels_path_or_a_qrels():
    import auditeval
    from auditeval.io import read_qrels
    from auditeval.results.ir_metadata import evaluation_block, read_block

    res = auditeval.evaluate(EX / "qrels.txt", EX / "bm25.txt", ["AP"])
    by_path = evaluation_block(res, str(EX / "qrels.txt"))
    by_qrels = evaluation_block(res, read_qrels(EX / "qrels.txt"))
    assert by_path == by_qrels
    q = read_block(by_path)["research goal"]["evaluation"]
    found = [v for v in q.values() if isinstance(v, dict) and "qrels" in v] or [q]
    text = str(found)
    assert str(EX / "qrels.txt") in text and "sha256" in text
    try:
        evaluation_block(res, str(EX / "no_such_qrels.txt"))
    except auditeval.AuditEvalError as exc:
        assert "no_such_qrels.txt" in str(exc)
    else:
        raise AssertionError("a missing qrels file was accepted")


def test_a_sweep_varying_dups_shows_the_refusing_variant_as_a_cell(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n1 0 d2 0\n")
    run = tmp_path / "dup.txt"
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d1 2 1.0 r\n1 Q0 d3 3 0.5 r\n")
    p = cli("sweep", str(q), str(run), "-m", "AP", "--vary", "dups", "--format", "tsv")
    assert p.returncode == 0 and "Traceback" not in p.stderr
    assert "dups=error" in p.stderr and "duplicate result for topic '1' doc 'd1'" in p.stderr
    values = {line.split("\t")[4].split("|")[3]: line.split("\t")[3] for line in p.stdout.splitlines()[1:]}
    assert values == {"dups=first": "1.0", "dups=last": "1.0"}  # d1 (relevant) kept once at rank 1
