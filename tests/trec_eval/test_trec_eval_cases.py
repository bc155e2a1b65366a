"""``auditeval trec-eval`` against three trec_eval builds on the edge cases of ``tests/cases``
(one convention per folder; each folder's README.md gives the numbers every tool printed):
standard output, standard error and exit status must be equal. The builds' outputs are made
here, by running the programs compiled from ``third_party/trec_eval`` in the case folder with the
file names as the drop-in sees them. Where a build crashes (a signal, as 9.0.x does on ids
starting with ``#``) the drop-in must fail cleanly instead (non-zero exit, a message, no
traceback).

``tests/cases/CASES`` lists ``folder qrels run flags``; FLAGS with dots (``q.c.all_trec`` =
``-q -c -m all_trec``, ``q.M5.all_trec`` = ``-q -M5 -m all_trec``).
"""

from __future__ import annotations

import io
import subprocess
from functools import cache
from pathlib import Path

import pytest
from paths import CASES as CASES_DIR

from auditeval.trec_eval import main

VERSIONS = ("9.0.8", "9.0.8-double", "10.0")


def _flags(dotted: str) -> list[str]:
    out = []
    for part in dotted.split("."):
        if part == "all_trec":
            out += ["-m", "all_trec"]
        else:
            out.append("-" + part)
    return out


def _collect() -> list[tuple[str, str, str, str, str]]:
    found = []
    for line in (CASES_DIR / "CASES").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            folder, qrels, run, flags = line.split()
            found += [(folder, qrels, run, v, flags) for v in VERSIONS]
    return found


CASES = _collect()


@cache
def _reference(binary: Path, folder: str, args: tuple[str, ...]) -> tuple[int, str, str]:
    """``(exit status, stdout, stderr)`` of a trec_eval build run in the case folder; a crash
    by signal N is the shell's 128 + N."""
    res = subprocess.run([str(binary), *args], cwd=CASES_DIR / folder, capture_output=True, timeout=60)
    code = res.returncode if res.returncode >= 0 else 128 - res.returncode
    return code, res.stdout.decode("latin-1"), res.stderr.decode("latin-1")


@pytest.mark.parametrize(("folder", "qrels", "run", "version", "flags"), CASES,
                         ids=[f"{c[0]}/{c[1]}+{c[2]}.{c[3]}.{c[4]}" for c in CASES])
def test_case(monkeypatch, trec_eval_bins, folder, qrels, run, version, flags) -> None:
    args = (*_flags(flags), qrels, run)
    exp_code, exp_out, exp_err = _reference(trec_eval_bins[version], folder, args)
    monkeypatch.chdir(CASES_DIR / folder)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", version, *args], stdout=out, stderr=err)
    if exp_code >= 128:  # the build crashed: a clean error instead
        assert code != 0 and err.getvalue().strip(), "expected a clean error where trec_eval crashes"
        assert "Traceback" not in err.getvalue()
        return
    assert out.getvalue() == exp_out
    assert err.getvalue() == exp_err
    assert code == exp_code


def test_cases_found() -> None:
    assert len(CASES) > 200


def test_stdin_results(monkeypatch, trec_eval_bins) -> None:
    where = CASES_DIR / "01_tie_breaking"
    monkeypatch.chdir(where)
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO((where / "run").read_bytes())))
    out = io.StringIO()
    code = main(["--as", "10.0", "-q", "-m", "all_trec", "qrels", "-"], stdout=out, stderr=io.StringIO())
    assert code == 0
    assert out.getvalue() == _reference(trec_eval_bins["10.0"], "01_tie_breaking", ("-q", "-m", "all_trec", "qrels", "run"))[1]


# ------------------------------------------------------------------ measure parameters
# Expected values: the trec_eval numbers quoted in each case folder's README.md.
PARAMS = [
    ("10_ndcg", "9.0.8", ["-m", "ndcg.1=1,2=3,3=7"], "ndcg_1=1,2=3,3=7      \tall\t0.4720\n"),
    ("10_ndcg", "10.0", ["-m", "ndcg.1=0.5,2=0.8,3=0.9"], "ndcg_1=0.5,2=0.8,3=0.9\tall\t0.0000\n"),
    ("10_ndcg", "10.0", ["-m", "ndcg_rel.1=5,2=8,3=9", "-m", "Rndcg.1=5,2=8,3=9"],
     "ndcg_rel_1=5,2=8,3=9  \tall\t0.4211\nRndcg_1=5,2=8,3=9     \tall\t0.3033\n"),
    ("10_ndcg", "10.0", ["-m", "ndcg.0=-1"], "ndcg_0=-1             \tall\t0.3133\n"),
    ("10_ndcg", "9.0.8", ["-m", "ndcg_cut.3,10", "-m", "ndcg"],
     "ndcg                  \tall\t0.4778\nndcg_cut_3            \tall\t0.4050\nndcg_cut_10           \tall\t0.4778\n"),
    ("13_rbp", "10.0", ["-q", "-m", "rbp.p=0.8"],
     "rbp_p=0.8             \t1\t0.2640\nrbp_p=0.8             \t2\t0.1600\nrbp_p=0.8             \t3\t0.3280\n"
     "rbp_p=0.8             \tall\t0.2507\n"),
    ("12_recall_rprec_bpref_rr_success_p", "9.0.8", ["-m", "map", "-m", "bpref", "-m", "P.10,3"],
     "map                   \tall\t0.3021\nbpref                 \tall\t0.7969\n"
     "P_3                   \tall\t0.2500\nP_10                  \tall\t0.1000\n"),
    # R = 3 relevant at ranks 2, 5, 8 of 10 (ret 10, relret 3, nonrelret 7).
    # 11pt_avg at levels 0.2, 0.5: count (long)(0.6+0.9) = 1 -> 0.5; (long)(1.5+0.9) = 2 -> 0.4;
    # lround(0.6) = 1, lround(1.5) = 2 in 10.0 likewise: mean 0.45 in both.
    ("08_iprec_11pt", "9.0.8", ["-m", "11pt_avg.0.2,0.5"], "11pt_avg_0.2,0.5      \tall\t0.4500\n"),
    ("08_iprec_11pt", "10.0", ["-m", "11pt_avg.0.2,0.5"], "11pt_avg_0.2,0.5      \tall\t0.4500\n"),
    # -J with -M: trec_eval truncates first, then drops unjudged docs (form_res_rels.c).
    # Ranking u1 a(R) u2 b(N) c(R), R = 3: -M3 keeps u1 a u2, -J leaves [a]: num_ret 1,
    # AP = (1/1)/3 = 0.3333, P_5 = 1/5. (The other order would keep a b c: AP 0.5556.)
    *[
        ("04_unjudged", v, ["-J", "-M3", "-m", "num_ret", "-m", "map", "-m", "P.5"],
         "num_ret               \tall\t1\nmap                   \tall\t0.3333\nP_5                   \tall\t0.2000\n")
        for v in ("9.0.8", "9.0.8-double", "10.0")
    ],
    # utility a=1 b=-1 c=0 d=1: 3 - 7 + 0 + 1 * (N + relret - ret - R); N = 0: -14; -N 100: 86.
    ("08_iprec_11pt", "9.0.8", ["-m", "utility.1,-1,0,1"], "utility_1,-1,0,1      \tall\t-14.0000\n"),
    ("08_iprec_11pt", "10.0", ["-N", "100", "-m", "utility.1,-1,0,1"], "utility_1,-1,0,1      \tall\t86.0000\n"),
]


@pytest.mark.parametrize(("folder", "version", "flags", "expected"), PARAMS, ids=[" ".join(p[2]) for p in PARAMS])
def test_measure_parameters(monkeypatch, folder, version, flags, expected) -> None:
    monkeypatch.chdir(CASES_DIR / folder)
    out, err = io.StringIO(), io.StringIO()
    assert main(["--as", version, *flags, "qrels", "run"], stdout=out, stderr=err) == 0, err.getvalue()
    assert out.getvalue() == expected


def test_parameter_names_and_order(monkeypatch) -> None:
    """Cut-offs sorted, float cut-offs as %3.2f, parameter strings kept as typed; table order."""
    monkeypatch.chdir(CASES_DIR / "10_ndcg")
    out = io.StringIO()
    argv = ["-m", "success.5,2", "-m", "utility.2,-1,0,0", "-m", "Rprec_mult.0.35,0.2", "-m", "iprec_at_recall..25,.10",
            "-m", "P.5,7,3", "qrels", "run"]
    assert main(argv, stdout=out, stderr=io.StringIO()) == 0
    names = [ln.split("\t")[0].rstrip() for ln in out.getvalue().splitlines()]
    assert names == ["iprec_at_recall_0.10", "iprec_at_recall_0.25", "P_3", "P_5", "P_7", "Rprec_mult_0.20",
                     "Rprec_mult_0.35", "utility_2,-1,0,0", "success_2", "success_5"]


ERRORS = [
    (["-m", "rbp"], "9.0.8", 1, "trec_eval: illegal measure 'rbp'\n"),
    (["-m", "foo.5"], "10.0", 1, "trec_eval: illegal measure 'foo'\n"),
    (["-m", "P."], "10.0", 1, "trec_eval: improper measure in parameter 'P'\ntrec_eval: illegal measure 'P'\n"),
    (["-m", "P.0,5"], "10.0", 2, "trec_eval: Negative cutoff detected\ntrec_eval: Cannot initialize measure 'P'\n"),
    (["-m", "P.5,5"], "10.0", 2, "trec_eval: duplicate cutoffs detected\ntrec_eval: Cannot initialize measure 'P'\n"),
    (["-m", "ndcg.1=2,,"], "10.0", 2,
     "trec_eval: malformed pair parameters in '1=2,,'\ntrec_eval: Cannot initialize measure 'ndcg'\n"),
]


@pytest.mark.parametrize(("flags", "version", "code", "message"), ERRORS, ids=[" ".join(e[0]) for e in ERRORS])
def test_errors(monkeypatch, flags, version, code, message) -> None:
    monkeypatch.chdir(CASES_DIR / "10_ndcg")
    out, err = io.StringIO(), io.StringIO()
    assert main(["--as", version, *flags, "qrels", "run"], stdout=out, stderr=err) == code
    assert (out.getvalue(), err.getvalue()) == ("", message)


def test_usage_and_version() -> None:
    err = io.StringIO()
    assert main(["qrels"], stdout=io.StringIO(), stderr=err) == 1
    assert err.getvalue().startswith("Usage: trec_eval")
    err = io.StringIO()
    assert main(["--as", "10.0", "-v"], stdout=io.StringIO(), stderr=err) == 0
    assert err.getvalue() == "trec_eval version 10.0-rc3\n"


def test_variants_column(monkeypatch) -> None:
    monkeypatch.chdir(CASES_DIR / "04_unjudged")
    out = io.StringIO()
    assert main(["--as", "10.0", "--variants", "-J", "-c", "-M5", "-l2", "-m", "map", "qrels", "run"], stdout=out) == 0
    name, topic, value, variant = out.getvalue().rstrip("\n").split("\t")
    assert (name.rstrip(), topic) == ("map", "all")
    assert variant.startswith("AP|")
    for axis in ("unjudged=drop", "topics=qrels", "depth=5", "rel=2", "sim=float64", "ties=docno-desc"):
        assert axis in variant.split("|")
