"""auditeval.testing and its pytest plugin, run through pytest's own ``pytester``: claims files
collected as tests (passing, failing, updated), the failure messages checked for the axis they
name, JUnit properties, the assertions, ``assert res_a == res_b`` explained, and a session that
collects no claim importing none of the engine.

Every "true" value is printed by a real trec_eval binary (the ``trec_eval_bins`` fixture), never
computed by auditeval: 9.0.8's ``map``/``P_10``/``ndcg_cut_10``, 10.0's ``-c`` (topics the run
lacks scored 0) and 9.0.8's ``-M 100``.
"""

from __future__ import annotations

import importlib.metadata
import json
import os
import shutil
import subprocess
import sys
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from paths import REPO

from auditeval.testing import (
    ClaimNotReproduced,
    ValuesDiffer,
    assert_reproduces,
    assert_same_values,
)

pytest_plugins = ["pytester"]

ROOT = REPO
EXAMPLES = ROOT / "examples"
TE908_AP = ("AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|"
            "ties=docno-desc|topics=both|unjudged=nonrel")  # trec_eval-9.0.8's AP, as the spec table says


def _plugin() -> list[str]:
    """``-p`` for the plugin unless its entry point is installed (pytest loads it then)."""
    eps = importlib.metadata.entry_points(group="pytest11")
    return [] if any(ep.name == "auditeval" for ep in eps) else ["-p", "auditeval.testing.plugin"]


def _te(binary: Path, qrels: Path, run: Path, *args: str) -> dict[str, str]:
    """trec_eval's summary lines: measure -> the value as printed."""
    out = subprocess.run([str(binary), *args, str(qrels), str(run)], capture_output=True, text=True, check=True)
    return {f[0]: f[2] for f in (ln.split() for ln in out.stdout.splitlines()) if f[1] == "all"}


@pytest.fixture(scope="module")
def te(trec_eval_bins) -> dict[str, dict[str, str]]:
    """The examples' numbers from the real binaries."""
    q = EXAMPLES / "qrels.txt"
    out = {}
    for run in ("bm25", "rerank"):
        r = EXAMPLES / f"{run}.txt"
        out[run] = _te(trec_eval_bins["9.0.8"], q, r, "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10")
        out[run + "-c"] = _te(trec_eval_bins["10.0"], q, r, "-c", "-m", "map")
    return out


@pytest.fixture
def ex(pytester: pytest.Pytester) -> Path:
    """The example qrels and runs copied into the pytester folder."""
    for name in ("qrels.txt", "bm25.txt", "rerank.txt"):
        shutil.copy(EXAMPLES / name, pytester.path / name)
    return pytester.path


def _run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest(*_plugin(), "-p", "no:cacheprovider", *args)


# ---------------------------------------------------------------------------- the shipped example
def test_examples_claims_pass_and_hold_trec_eval_s_numbers(pytester, ex, te):
    shutil.copy(EXAMPLES / "claims.toml", ex / "claims.toml")
    res = _run(pytester, "claims.toml", "-v")
    res.assert_outcomes(passed=5)
    res.stdout.fnmatch_lines(["*::rerank-map-all-topics PASSED (*)*", "*auditeval claims*"])
    # the shipped numbers are trec_eval's: 9.0.8 for the stated ones, 10.0 -c for the one without
    names = {"MAP": "map", "P@10": "P_10", "nDCG@10": "ndcg_cut_10"}
    claims = tomllib.loads((EXAMPLES / "claims.toml").read_text())["claim"]
    for c in claims:
        measure, value = c["claim"].split("=")
        run = c["run"].removesuffix(".txt") + ("" if "profile" in c else "-c")
        printed = te[run][names[measure]]
        assert float(value) / (100 if float(value) > 1 else 1) == pytest.approx(float(printed), abs=1e-9), c["id"]


# ---------------------------------------------------------------------------- true / other / wrong
def _three(te) -> str:
    return f"""# three claims
qrels = "qrels.txt"

[[claim]]
id = "true"
run = "bm25.txt"
claim = "MAP={te['bm25']['map']}"   # keep me
profile = "trec_eval-9.0.8"

[[claim]]
id = "other-convention"
source = "Table 2, rerank, MAP"
run = "rerank.txt"
claim = "MAP={te['rerank-c']['map']}"

[[claim]]
id = "wrong"
run = "bm25.txt"
claim = "MAP=0.1234"  # printed in Table 9
profile = "trec_eval-9.0.8"
"""


def _summary(out: str, start: str) -> str:
    """A claim's entry of the session summary: its line and the variant string's lines under it."""
    lines = out.splitlines()
    k = next(i for i, ln in enumerate(lines) if ln.startswith(start))
    rest = [ln.strip() for ln in lines[k + 1:]]
    return " ".join([lines[k], "".join(ln for ln in rest[: next((i for i, ln in enumerate(rest)
                                                                 if not lines[k + 1 + i].startswith("    ")), 0)])])


def test_true_other_and_wrong_claims(pytester, ex, te):
    (ex / "claims_three.toml").write_text(_three(te))
    res = _run(pytester, "-v", "--junitxml=out.xml")
    res.assert_outcomes(passed=2, failed=1)
    out = res.stdout.str()
    # the second passes under the variant that scores the lacking topic (trec_eval -c: topics=qrels)
    line = _summary(out, "PASSED claims_three.toml::other-convention")
    assert "topics=qrels" in line and "reproduced by" in line
    # the failure names the nearest variants, their distance, the axes from the stated profile
    assert "MAP=0.1234 [0.12335, 0.12345) not reproduced under trec_eval-9.0.8" in out
    assert "the nearest of the" in out and "distance" in out
    assert "axes from trec_eval-9.0.8: depth: all -> " in out
    assert "topics that move the value most" in out
    # JUnit XML: the variant string and the engine of each passing claim
    cases = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")}
             for c in ET.parse(ex / "out.xml").getroot().iter("testcase")}
    assert cases["true"]["auditeval_variant"] == TE908_AP
    assert cases["true"]["auditeval_engine"].startswith("auditeval ")
    assert "topics=qrels" in cases["other-convention"]["auditeval_variant"]
    assert "auditeval_variant" not in cases["wrong"]


def test_update_locks_values_and_variants_and_a_second_run_passes(pytester, ex, te):
    text = _three(te) + f"""
# stated under 9.0.8 but printed by trec_eval 10.0 -c
[[claim]]
id = "stated-other"
run = "rerank.txt"
claim = "MAP={te['rerank-c']['map']}"
profile = "trec_eval-9.0.8"
"""
    path = ex / "claims_lock.toml"
    path.write_text(text)
    first = _run(pytester, "claims_lock.toml")
    first.assert_outcomes(passed=2, failed=2)
    assert "topics: both -> qrels" in first.stdout.str()  # the axis between 9.0.8 and what reproduces it
    upd = _run(pytester, "claims_lock.toml", "--auditeval-update")
    upd.assert_outcomes(passed=4)
    new = path.read_text()
    assert "# keep me" in new and "# stated under 9.0.8 but printed by trec_eval 10.0 -c" in new
    assert f'claim = "MAP={te["bm25"]["map"]}"  # printed in Table 9\nvariant = "{TE908_AP}"\nprofile' in new
    assert new.count("\n\n# stated under 9.0.8") == 1  # the comment still leads its own table
    doc = tomllib.loads(new)["claim"]
    assert [c["id"] for c in doc] == ["true", "other-convention", "wrong", "stated-other"]
    assert doc[2]["claim"] == f"MAP={te['bm25']['map']}" and doc[2]["variant"] == TE908_AP
    assert doc[3]["claim"] == f"MAP={te['rerank']['map']}"  # 9.0.8's value, as trec_eval 9.0.8 prints it
    assert doc[0]["variant"] == TE908_AP and "topics=qrels" in doc[1]["variant"]
    _run(pytester, "claims_lock.toml").assert_outcomes(passed=4)
    # a lock that no longer matches the profile's variant string fails, naming the axis
    path.write_text(new.replace(TE908_AP, TE908_AP.replace("depth=all", "depth=100"), 1))
    broken = _run(pytester, "claims_lock.toml")
    broken.assert_outcomes(passed=3, failed=1)
    assert "lock broken" in broken.stdout.str() and "depth: 100 -> all" in broken.stdout.str()


def test_a_table_in_verify_form_and_bad_input(pytester, ex, te):
    (ex / "table.csv").write_text(f"run,measure,value\nbm25.txt,MAP,{te['bm25']['map']}\n"
                                  f"rerank.txt,P@10,{te['rerank']['P_10']}\n")
    res = _run(pytester, "--auditeval-claims", "table.csv", "--auditeval-qrels", "qrels.txt",
               "--auditeval-profile", "trec_eval-9.0.8", "-v")
    res.assert_outcomes(passed=2)
    res.stdout.fnmatch_lines(["*table.csv::bm25.txt MAP PASSED (trec_eval-9.0.8)*"])
    (ex / "claims_bad.toml").write_text('qrels = "qrels.txt"\n\n[[claim]]\nrun = "bm25.txt"\nclam = "MAP=0.5"\n')
    bad = _run(pytester, "claims_bad.toml")
    assert "claims_bad.toml:3: unknown key 'clam' in [[claim]]" in bad.stdout.str() and bad.ret != 0
    (ex / "claims_gone.toml").write_text('qrels = "qrels.txt"\n[[claim]]\nrun = "gone.txt"\nclaim = "MAP=0.5"\n')
    gone = _run(pytester, "claims_gone.toml")
    gone.assert_outcomes(failed=1)
    assert "auditeval: error: gone.txt: " in gone.stdout.str() and "Traceback" not in gone.stdout.str()


# ---------------------------------------------------------------------------- the assertions
def test_assert_reproduces(te):
    q, bm25, rerank = (EXAMPLES / n for n in ("qrels.txt", "bm25.txt", "rerank.txt"))
    got = assert_reproduces(q, bm25, f"MAP={te['bm25']['map']}", profile="trec_eval-9.0.8")
    assert got.variant == TE908_AP
    some = assert_reproduces(q, rerank, f"MAP={te['rerank-c']['map']}")
    assert "topics=qrels" in some.variant
    with pytest.raises(ClaimNotReproduced) as err:
        assert_reproduces(q, rerank, f"MAP={te['rerank-c']['map']}", profile="trec_eval-9.0.8")
    msg = str(err.value)
    assert "not reproduced under trec_eval-9.0.8" in msg and "topics: both -> qrels" in msg
    assert "105: 0.000000 -> " not in msg and "105: (not evaluated) -> 0.000000" in msg  # the lacking topic moves it
    with pytest.raises(ClaimNotReproduced, match="not reproduced under trec_eval-9.0.8 with rel=2"):
        assert_reproduces(q, bm25, f"MAP={te['bm25']['map']}", profile="trec_eval-9.0.8", settings=["rel=2"])


def test_assert_same_values(te, trec_eval_bins, tmp_path):
    import auditeval

    q, rerank = EXAMPLES / "qrels.txt", EXAMPLES / "rerank.txt"
    a, b = tmp_path / "te908.txt", tmp_path / "te10c.txt"
    for path, binary, extra in ((a, "9.0.8", []), (b, "10.0", ["-c"])):
        done = subprocess.run([str(trec_eval_bins[binary]), *extra, "-q", "-m", "map", "-m", "P.10", str(q), str(rerank)],
                              capture_output=True, text=True, check=True)
        path.write_text(done.stdout)
    # trec_eval 9.0.8's printed values are auditeval's under its profile, at 4 decimals
    assert_same_values(a, auditeval.evaluate(q, rerank, ["AP", "P@10"], profile="trec_eval-9.0.8"))
    with pytest.raises(ValuesDiffer) as err:
        assert_same_values(a, b, qrels=q, run=rerank)
    msg = str(err.value)
    assert msg.startswith("DIFFERENT: ") and "105: A (absent), B 0.0000" in msg and "topics" in msg
    ra = auditeval.evaluate(q, rerank, ["AP"], profile="trec_eval-9.0.8")
    rb = auditeval.evaluate(q, rerank, ["AP"], profile="ir_measures-0.4")
    with pytest.raises(ValuesDiffer) as err:
        assert_same_values(ra, rb, profile="trec_eval-9.0.8")
    msg = str(err.value)
    assert "axes A -> B: " in msg and "topics: both -> qrels" in msg
    assert "A: the stated variant (trec_eval-9.0.8)" in msg and "B departs from trec_eval-9.0.8: " in msg


def test_result_sets_compared_in_a_test_and_assertions_recorded(pytester, ex, te):
    pytester.makepyfile(test_results=f"""
        import auditeval
        from auditeval.testing import assert_reproduces

        def test_profiles_agree():
            a = auditeval.evaluate("qrels.txt", "rerank.txt", ["AP"], profile="trec_eval-9.0.8")
            b = auditeval.evaluate("qrels.txt", "rerank.txt", ["AP"], profile="ir_measures-0.4")
            assert a == b

        def test_recorded():
            assert_reproduces("qrels.txt", "rerank.txt", "MAP={te['rerank-c']['map']}")
    """)
    res = _run(pytester, "test_results.py", "--junitxml=out.xml")
    res.assert_outcomes(passed=1, failed=1)
    out = res.stdout.str()
    assert "ResultSet == ResultSet: DIFFERENT: " in out and "topics: both -> qrels" in out
    cases = {c.get("name"): {p.get("name"): p.get("value") for p in c.iter("property")}
             for c in ET.parse(ex / "out.xml").getroot().iter("testcase")}
    assert "topics=qrels" in cases["test_recorded"]["auditeval_variant"]


# ---------------------------------------------------------------------------- cheap when unused
def test_a_session_without_claims_imports_none_of_the_engine(tmp_path):
    (tmp_path / "test_empty.py").write_text("def test_nothing():\n    pass\n")
    code = ("import sys, pytest\n"
            f"rc = pytest.main(['--co', '-q', '-p', 'no:cacheprovider', *{_plugin()!r}, 'test_empty.py'])\n"
            "print(sorted(m for m in sys.modules if m.startswith('auditeval')))\n"
            "print(rc)\n")
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, env=env, check=True)
    *_, mods, rc = done.stdout.strip().splitlines()
    loaded = json.loads(mods.replace("'", '"'))
    assert rc == "0" and "auditeval.testing.plugin" in loaded
    assert [m for m in loaded if m.startswith(("auditeval.engine", "auditeval.verify", "auditeval.io",
                                               "auditeval.results", "auditeval.api"))] == []


# ---------------------------------------------------------------------------- robust03 (real data)
@pytest.fixture(scope="module")
def robust03_claims(robust03, trec_eval_bins, tmp_path_factory) -> dict:
    """ROBUST03: the qrels, one run decompressed, and the numbers trec_eval 9.0.8 prints for it
    (plain and with -M 100)."""
    import gzip

    d = tmp_path_factory.mktemp("robust03_claims")
    q = robust03.qrels
    run = d / "MU03rob01.txt"
    run.write_bytes(gzip.decompress(robust03.run("MU03rob01").read_bytes()))
    plain = _te(trec_eval_bins["9.0.8"], q, run, "-m", "map", "-m", "P.10")
    m100 = _te(trec_eval_bins["9.0.8"], q, run, "-M", "100", "-m", "map")
    return {"qrels": q, "run": run, "map": plain["map"], "P_10": plain["P_10"], "map_M100": m100["map"]}


def test_robust03_claims_from_the_real_trec_eval(pytester, robust03_claims):
    r = robust03_claims
    path = pytester.path / "claims_robust03.toml"
    path.write_text(f"""qrels = "{r['qrels']}"

[[claim]]
id = "map"
run = "{r['run']}"
claim = "MAP={r['map']}"
profile = "trec_eval-9.0.8"

[[claim]]
id = "p10"
run = "{r['run']}"
claim = "P@10={r['P_10']}"
profile = "trec_eval-9.0.8"

[[claim]]
id = "map-at-100"
source = "printed by trec_eval -M 100"
run = "{r['run']}"
claim = "MAP={r['map_M100']}"

[[claim]]
id = "map-at-100-stated-as-9.0.8"
run = "{r['run']}"
claim = "MAP={r['map_M100']}"
profile = "trec_eval-9.0.8"

[[claim]]
id = "wrong"
run = "{r['run']}"
claim = "MAP=0.0123"
""")
    res = _run(pytester, "claims_robust03.toml")
    res.assert_outcomes(passed=3, failed=2)
    out = res.stdout.str()
    line = _summary(out, "PASSED claims_robust03.toml::map-at-100:")
    assert "depth=100" in line
    assert f"MAP={r['map_M100']}" in out and "axes from trec_eval-9.0.8: depth: all -> 100" in out
    assert "MAP=0.0123 [0.01225, 0.01235) reproduced by no variant searched" in out and "the nearest of" in out
    _run(pytester, "claims_robust03.toml", "--auditeval-update").assert_outcomes(passed=5)
    doc = tomllib.loads(path.read_text())["claim"]
    assert doc[3]["claim"] == f"MAP={r['map']}" and doc[3]["variant"] == TE908_AP
    _run(pytester, "claims_robust03.toml").assert_outcomes(passed=5)


# ---------------------------------------------------------------------------- the card of a claims file
def test_card_of_a_claims_file(te, tmp_path):
    import io

    from auditeval.cli.main import main

    out = io.StringIO()
    assert main(["card", str(EXAMPLES / "claims.toml"), "--format", "json"], out=out, err=io.StringIO()) == 0
    cards = [d["research goal"]["evaluation"]["card"] for d in json.loads(out.getvalue())]
    assert [c["profile"] for c in cards] == ["trec_eval-9.0.8", "ir_measures-0.4"]  # stated; found for the last claim
    nums = {(n["run"], n["measure"]): n["value"] for n in cards[0]["numbers"]}
    assert f"{nums['bm25', 'AP']:.4f}" == te["bm25"]["map"] and f"{nums['rerank', 'P@10']:.4f}" == te["rerank"]["P_10"]
    assert f"{cards[1]['numbers'][0]['value']:.4f}" == te["rerank-c"]["map"]
    assert any(n.startswith("claim rerank-map-all-topics (Table 2, rerank, MAP over all topics): MAP=0.6236 as AP "
                            "under ir_measures-0.4: reproduced") for n in cards[1]["notes"])
    err = io.StringIO()
    assert main(["card", str(EXAMPLES / "claims.toml"), "--format", "latex"], out=io.StringIO(), err=err) == 2
    assert err.getvalue().startswith("auditeval: error: the claims make 2 cards") and err.getvalue().count("\n") == 1
    err = io.StringIO()
    assert main(["card", str(EXAMPLES / "claims.toml"), str(EXAMPLES / "bm25.txt")], out=io.StringIO(), err=err) == 2
    assert "give it alone" in err.getvalue()
