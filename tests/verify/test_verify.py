"""auditeval verify: claims built from reference outputs under unusual settings are
recovered among the first three variants listed; an unreachable claim is reported."""

from __future__ import annotations

import gzip
import io
import json
import math
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

from auditeval.cli.main import main
from auditeval.io import qrels_from, run_from
from auditeval.verify.claims import parse_claim, verify_claim
from auditeval.vocab.errors import InputError


def _all_line(binary: Path, flags: list[str], data: dict, name: str) -> str:
    """The ``all`` value of ``name`` that a trec_eval build prints on MU03rob01 with ``flags``."""
    printed = subprocess.run([binary, "-q", *flags, "-m", "all_trec", data["qrels_path"], data["mu_path"]],
                             capture_output=True, text=True, check=True).stdout
    for line in printed.splitlines():
        f = line.split()
        if f[0] == name and f[1] == "all":
            return f[2]
    raise AssertionError(name)


def _top3(verdict) -> list:
    """The candidates of the first three entries, each with its equivalents on this input."""
    return [c for f in verdict.reproduced[:3] for c in (f.candidate, *f.equivalent)]


@pytest.fixture(scope="module")
def data(robust03, tmp_path_factory) -> dict:
    d = tmp_path_factory.mktemp("verify")
    q = robust03.qrels
    mu = d / "MU03rob01.txt"
    mu.write_bytes(gzip.decompress((robust03.run("MU03rob01")).read_bytes()))
    return {"qrels_path": q, "qrels": qrels_from(q), "mu_path": mu, "mu": run_from(mu), "dir": d, "cache": {}}


def test_parse_claims():
    c = parse_claim("MAP=0.3066")
    assert [str(m) for m in c.readings] == ["AP", "AP@1000", "AP@100"]
    assert (c.low, c.high, c.percent) == (pytest.approx(0.30655), pytest.approx(0.30665), False)
    c = parse_claim("nDCG@10=41.4")  # above 1 for a measure bounded by 1: a percentage
    assert c.percent and (c.low, c.high) == (pytest.approx(0.4135), pytest.approx(0.4145))
    c = parse_claim("P@10=.52")
    assert (c.low, c.high) == (pytest.approx(0.515), pytest.approx(0.525))
    assert [str(m) for m in parse_claim("MRR@10=0.35").readings] == ["RR@10", "RR"]
    assert [str(m) for m in parse_claim("ndcg_cut_10=0.4").readings] == ["nDCG@10"]
    assert [str(m) for m in parse_claim("P(rel=2)@10=0.3").readings] == ["P(rel=2)@10"]
    c = parse_claim("R@1000=.7")  # [0.65, 0.75), half-open, on the exact binary value
    assert c.holds(0.65) and c.holds(0.7499999999) and not c.holds(0.75) and not c.holds(0.6499999999)
    with pytest.raises(InputError, match="not MEASURE=VALUE"):
        parse_claim("MAP 0.3")
    with pytest.raises(InputError, match="unknown measure in claim"):
        parse_claim("Foo@3=0.1")


def test_depth_100_from_the_reference_output(data, trec_eval_bins):
    # trec_eval 9.0.8 -q -M100 -m all_trec on MU03rob01 (1000 deep): map 0.1706
    value = _all_line(trec_eval_bins["9.0.8"], ["-M100"], data, "map")
    v = verify_claim(data["qrels"], data["mu"], parse_claim(f"MAP={value}"), data["cache"])
    first = v.reproduced[0]
    assert first.label == "trec_eval-9.0.8 with depth=100" and first.departures == 1
    assert first.candidate.variant == ("AP|ap_denom=R|depth=100|dups=error|negatives=pooled|rel=1|self_hits=keep|"
                                       "sim=float32|ties=docno-desc|topics=both|unjudged=nonrel")
    # map without -M is 0.1378 on this run: the unmodified profile does not reproduce 0.1706
    assert ("trec_eval-9.0.8", "AP") not in [(c.label, str(m)) for f in v.reproduced for c, m in f.members()]


def test_docno_ascending_ties_with_exponential_gain(data):
    """nDCG@10 computed here independently: ties by docno ascending, gain 2^g - 1."""
    qrels: dict[str, dict[str, int]] = defaultdict(dict)
    for line in open(data["qrels_path"]):
        t, _, d, g = line.split()
        qrels[t][d] = int(g)
    run: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for line in open(data["mu_path"]):
        t, _, d, _, s, _ = line.split()
        run[t].append((float(s), d))
    vals = []
    for t in sorted(set(qrels) & set(run)):
        ranked = sorted(run[t], key=lambda x: (-x[0], x[1]))[:10]
        dcg = sum((2 ** max(qrels[t].get(d, 0), 0) - 1) / math.log2(i + 2) for i, (_, d) in enumerate(ranked))
        ideal = sorted((g for g in qrels[t].values() if g > 0), reverse=True)[:10]
        vals.append(dcg / sum((2**g - 1) / math.log2(i + 2) for i, g in enumerate(ideal)))
    claim = f"nDCG@10={sum(vals) / len(vals):.4f}"
    assert claim == "nDCG@10=0.3453"  # docno-desc gives 0.3511, linear gain 0.3598 / 0.3657
    v = verify_claim(data["qrels"], data["mu"], parse_claim(claim), data["cache"])
    assert any(c.convention.ties == "docno-asc" and c.convention.gain == "exp2" for c in _top3(v))
    assert "textbook with gain=exp2" in [c.label for c in _top3(v)]
    assert all(c.convention.gain == "exp2" for f in v.reproduced for c in (f.candidate, *f.equivalent))
    frame = v.to_frame()  # one row per variant found: every reproducing one prints as the claim
    hits = frame[frame.status == "reproduces"]
    assert len(hits) == sum(1 + len(f.equivalent) for f in v.reproduced)
    assert set(hits.value.round(4)) == {0.3453} and hits.variant.str.contains("gain=exp2").all()


def test_trec_eval_c_l2_on_a_run_missing_topics(data, trec_eval_bins, tmp_path):
    # drop the topics 30x and 31x so -c (missing topics score 0) moves the mean
    lines = [ln for ln in open(data["mu_path"]) if not ln.startswith(("30", "31"))]
    gone = {ln.split()[0] for ln in open(data["mu_path"])} - {ln.split()[0] for ln in lines}
    assert gone == {"303", "307", "310", "314"}
    run = tmp_path / "mu.missing.txt"
    run.write_text("".join(lines))
    out = subprocess.run([str(trec_eval_bins["9.0.8"]), "-c", "-l2", "-m", "map", str(data["qrels_path"]), str(run)],
                         capture_output=True, text=True, check=True).stdout
    value = out.split()[2]
    v = verify_claim(data["qrels"], run_from(run), parse_claim(f"MAP={value}"), {})
    target = ("AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=2|self_hits=keep|sim=float32|"
              "ties=docno-desc|topics=qrels|unjudged=nonrel")
    assert target in [c.variant for c in _top3(v)]
    # simplest: the TREC DL profile (trec_eval -c -l 2, no change); ir_measures' default pipeline
    # (pytrec_eval, missing topics 0) needs one (rel=2), trec_eval-9.0.8 two (topics=qrels, rel=2)
    assert v.reproduced[0].label == "trec-dl"
    assert "ir_measures-0.4 with rel=2" in [c.label for c in _top3(v)]
    # trec_eval-9.0.8 with rel=2, topics=qrels has trec-dl's variant string: one candidate, trec-dl
    assert v.reproduced[0].candidate.variant == target


def test_unreachable_claim_and_cli(data):
    v = verify_claim(data["qrels"], data["mu"], parse_claim("MAP=0.9"), data["cache"])
    assert v.reproduced == [] and len(v.nearest) == 5
    d = [f.distance for f in v.nearest]
    assert d == sorted(d) and all(x > 0 for x in d)
    assert all(f.distance == pytest.approx(0.85 - f.value) for f in v.nearest)  # all below [0.85, 0.95)
    out = io.StringIO()
    rc = main(["verify", str(data["qrels_path"]), str(data["mu_path"]), "--claim", "MAP=0.9", "--claim", "P@10=.358"],
              out, io.StringIO())
    text = out.getvalue()
    assert rc == 1 and "not reproduced" in text and "P@10=.358" in text
    assert max(len(x) for x in text.splitlines()) <= 120
    out = io.StringIO()
    assert main(["verify", str(data["qrels_path"]), str(data["mu_path"]), "--claim", "P@10=.358", "--json"],
                out, io.StringIO()) == 0
    doc = json.loads(out.getvalue())["claims"][0]
    assert doc["reproduced"][0]["label"] == "trec_eval-9.0.8" and doc["reproduced"][0]["departures"] == 0
    err = io.StringIO()
    assert main(["verify", str(data["qrels_path"]), str(data["mu_path"]), "--claim", "MAP:0.3"], io.StringIO(), err) == 2
    assert err.getvalue().startswith("auditeval: error: --claim: claim 'MAP:0.3' is not MEASURE=VALUE")


def test_table_reproduction_matrix(data, trec_eval_bins):
    m100 = _all_line(trec_eval_bins["9.0.8"], ["-M100"], data, "map")
    plain = _all_line(trec_eval_bins["9.0.8"], [], data, "P_10")
    table = data["dir"] / "table.csv"
    table.write_text(f"run,measure,value\nMU03rob01,P@10,{plain}\nMU03rob01,MAP,{m100}\nMU03rob01,nDCG@10,0.99\n")
    out = io.StringIO()
    rc = main(["verify", str(data["qrels_path"]), str(data["mu_path"]), "--table", str(table), "--json"], out, io.StringIO())
    cells = {x["measure"]: x for x in json.loads(out.getvalue())["cells"]}
    assert rc == 1
    assert cells["P@10"]["status"] == "stated"
    assert cells["MAP"]["status"] == "other" and cells["MAP"]["detail"] == "trec_eval-9.0.8 with depth=100"
    assert cells["nDCG@10"]["status"] == "no" and cells["nDCG@10"]["detail"].startswith("nearest ")
    bad = data["dir"] / "bad.csv"
    bad.write_text("run,measure,value\nnosuchrun,MAP,0.3\n")
    err = io.StringIO()
    assert main(["verify", str(data["qrels_path"]), "--table", str(bad)], io.StringIO(), err) == 2
    assert err.getvalue() == (f"auditeval: error: {bad}:2: run 'nosuchrun' is neither a RUN given "
                              "nor a file next to the table\n")
