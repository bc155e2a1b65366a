"""Unnormalised DCG and the counts with a cut-off: DCG@k, Hits@k, NumRelRet@k,
NumRet@k.

* ``DCG@k`` = sum over ranks i <= k of gain_i / log2(i + 1), gain = grade (ranx ``dcg``) or
  2^grade - 1 (``gain=exp2``, ranx ``dcg_burges``); checked by hand and against ranx per topic.
* ``Hits@k`` = relevant documents in the top k, mean over topics (ranx ``hits``);
  ``NumRelRet@k`` the same per topic, summed (ir_measures ``NumRet(rel=1)@k``; trec_eval sums
  num_rel_ret); ``NumRet@k`` = min(ret, k), summed.

ir_measures 0.4.3 accepts ``NumRet(rel=1)@10`` but its pytrec_eval provider ignores the cut-off
(checked below), so ir_measures is the reference for the uncut counts only.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pytest
from paths import EXAMPLES

import auditeval as ae
from auditeval.adapters.ir_measures import IrMeasures
from auditeval.adapters.ranx import Ranx
from auditeval.vocab.conventions import load_profile
from auditeval.vocab.variant import parse_measure

TOL = 1e-12
RUN = "input.MU03rob01.gz"


def test_hand_checked():
    # ranks: a (grade 2), z (unjudged), b (0), c (1), d (-1 pooled-unjudged)
    q = {"t": {"a": 2, "b": 0, "c": 1, "d": -1, "e": 1}}
    r = {"t": {"a": 5.0, "z": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}}
    res = ae.evaluate(q, r, ["DCG@3", "DCG@10", "DCG", "DCG(dcg='exp-log2')@10", "DCG(gains={1:5})@10",
                             "Hits@3", "Hits@10", "NumRelRet@3", "NumRet@3", "NumRet(rel=1)@4", "NumRet@10"],
                      profile="trec_eval-9.0.8", per_topic=False)
    got = {v.measure: v.value for v in res.values}
    assert got["DCG@3"] == pytest.approx(2.0, abs=1e-15)  # 2/log2(2); z and b gain 0
    assert got["DCG@10"] == pytest.approx(2.0 + 1.0 / math.log2(5), abs=1e-15)  # c at rank 4
    assert got["DCG"] == got["DCG@10"]  # no ideal ranking: e, never retrieved, adds nothing
    assert got["DCG(dcg='exp-log2')@10"] == pytest.approx(3.0 + 1.0 / math.log2(5), abs=1e-15)
    assert got["DCG(gains={1:5})@10"] == pytest.approx(2.0 + 5.0 / math.log2(5), abs=1e-15)
    assert (got["Hits@3"], got["Hits@10"], got["NumRelRet@3"], got["NumRet(rel=1)@4"]) == (1.0, 2.0, 1, 2)
    assert (got["NumRet@3"], got["NumRet@10"]) == (3, 5)


def test_names_and_variants():
    m = parse_measure("NumRet(rel=1)@10")  # ir_measures' spelling; rel= folds into the rel axis
    assert (m.name, m.cutoff, m.params) == ("NumRelRet", 10, (("rel", 1),))
    assert str(parse_measure("DCG(dcg='exp-log2')@5")) == "DCG(dcg='exp-log2')@5"
    # the order matters only once something is cut: no ties/sim axes uncut at depth=all
    base = load_profile("trec_eval-9.0.8").convention
    uncut = ae.evaluate({"t": {"a": 1}}, {"t": {"a": 1.0}}, ["NumRelRet", "NumRelRet@10", "Hits"], profile=base)
    strings = {v.measure: str(v.variant) for v in uncut.values}
    assert "ties=" not in strings["NumRelRet"] and "ties=" not in strings["Hits"]
    assert "ties=" in strings["NumRelRet@10"]
    with pytest.raises(ae.UnknownMeasureError, match=r"ranx's name for DCG: did you mean \"DCG\(dcg='exp-log2'\)@10\""):
        parse_measure("dcg_burges@10")


def test_adapter_spellings():
    rx = Ranx()
    own = rx.own()
    spell = {x: rx.plan(parse_measure(x), own).tool_measure for x in ("DCG@10", "DCG(dcg='exp-log2')@10", "Hits@10",
                                                                          "Hits", "DCG")}
    assert spell == {"DCG@10": "dcg@10", "DCG(dcg='exp-log2')@10": "dcg_burges@10", "Hits@10": "hits@10",
                     "Hits": "hits", "DCG": "dcg"}
    assert rx.tool_measure(parse_measure("NumRelRet@10"), own) is None  # ranx averages hits; NumRelRet sums
    pt = IrMeasures("pytrec_eval")
    assert pt.plan(parse_measure("NumRet(rel=1)"), pt.own()).tool_measure == "NumRelRet"
    assert pt.plan(parse_measure("NumRet(rel=2)"), pt.own()).tool_measure == "NumRelRet(rel=2)"
    assert pt.tool_measure(parse_measure("NumRelRet@10"), pt.own()) is None  # ir_measures ignores the @10
    assert pt.tool_measure(parse_measure("NumRet@10"), pt.own()) is None


@pytest.fixture(scope="module")
def robust(robust03):
    qrels_path = robust03.qrels
    run_path = (robust03.dir / "runs") / RUN
    return qrels_path, run_path


@pytest.mark.slow
def test_per_topic_against_ranx(robust):
    import ranx

    qrels_path, run_path = robust
    # distinct scores (file order within each topic, as written): ranx breaks ties by its own
    # sort (topic 616 of this run has a tie across rank 10), which is the ties axis, not the
    # formulas checked here
    run = {t: {d: float(1000 - i) for i, d in enumerate(docs)} for t, docs in ae.read_run(run_path).to_dict().items()}
    ours = {"DCG@10": "dcg@10", "DCG(dcg='exp-log2')@10": "dcg_burges@10", "Hits@10": "hits@10", "DCG@100": "dcg@100",
            "DCG": "dcg", "Hits@1000": "hits@1000", "Hits": "hits"}
    qrels = ae.read_qrels(qrels_path)
    rq, rr = ranx.Qrels(qrels.to_dict()), ranx.Run(run)
    means = ranx.evaluate(rq, rr, list(ours.values()), make_comparable=True)
    res = ae.evaluate(qrels, run, list(ours), profile="ranx-0.3")
    got = {(v.measure, v.topic): v.value for v in res.values}
    grades = {g for d in qrels.to_dict().values() for g in d.values()}
    assert 2 in grades  # exp2 gain differs from the grade: dcg_burges is a real check
    for mine, theirs in ours.items():
        want = {str(t): float(v) for t, v in rr.scores[theirs].items()}
        per = {t: v for (label, t), v in got.items() if label == mine and t != "all"}
        assert set(per) == set(want) and len(want) == 100, mine
        diff = max(abs(per[t] - want[t]) for t in want)
        assert diff <= TOL, (mine, diff)
        assert got[(mine, "all")] == pytest.approx(float(means[theirs]), abs=1e-12), mine
    assert got[("DCG(dcg='exp-log2')@10", "all")] > got[("DCG@10", "all")] > 0
    # NumRelRet@10 is Hits@10 per topic, summed
    sums = ae.evaluate(qrels, run, ["NumRelRet@10"], profile="ranx-0.3", per_topic=False)
    hits = np.array([float(v) for v in rr.scores["hits@10"].values()])
    assert sums.get("NumRelRet@10").value == int(hits.sum()) > 0


def test_counts_against_ir_measures(robust):
    qrels_path, run_path = robust
    qrels = list(ir_measures.read_trec_qrels(str(qrels_path)))
    run = list(ir_measures.read_trec_run(str(run_path)))
    names = ["NumRet(rel=1)", "NumRet", "NumRet(rel=2)", "NumRet(rel=1)@10"]
    want: dict[tuple[str, str], float] = {}
    # NumRet(rel=1)@10 alone: asked together with NumRet(rel=1), ir_measures 0.4.3 reports 0 for
    # the latter (both are pytrec_eval's num_rel_ret in one invocation)
    provider = ir_measures.providers.registry["pytrec_eval"]
    for group in (names[:3], names[3:]):
        evaluator = provider.evaluator([ir_measures.parse_measure(n) for n in group], qrels)
        for metric in evaluator.iter_calc(run):
            want[(str(metric.measure), metric.query_id)] = metric.value
    res = ae.evaluate(qrels_path, run_path, names, profile="ir_measures-0.4")
    got = {(v.measure, v.topic): v.value for v in res.values}
    topics = {t for (_, t) in want}
    assert len(topics) == 100
    for n in names[:3]:
        bad = [t for t in topics if got[(n, t)] != want[(n, t)]]
        assert not bad, (n, bad[:5])
    # ir_measures' @10 is the uncut count: the adapter must never send it
    assert all(want[("NumRet(rel=1)@10", t)] == want[("NumRet(rel=1)", t)] for t in topics)
    assert any(got[("NumRet(rel=1)@10", t)] < got[("NumRet(rel=1)", t)] for t in topics)
    assert all(got[("NumRet(rel=1)@10", t)] <= 10 for t in topics)


# ----------------------------------------------------------------------------- one parser (item 3)
LONG = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval's default cut-offs (measures.c)


def test_family_defaults_are_the_drop_ins():
    from auditeval.trec_eval.catalog import TABLE
    from auditeval.vocab.names import TREC_FAMILY_DEFAULTS

    cut_families = {s.name: tuple(s.default) for s in TABLE if s.params in ("long_cut", "double_cut")
                    and not s.name.endswith("_avgjg")}  # judgment-group measures: evaluate(judgments="qrels_jg")
    assert TREC_FAMILY_DEFAULTS == cut_families
    assert cut_families["P"] == LONG and cut_families["success"] == (1, 5, 10)


def test_parse_measures_expands_like_minus_m():
    from auditeval.vocab.names import split_measures
    from auditeval.vocab.variant import parse_measures

    got = parse_measures(["ndcg_cut.1,4", "P", "AP nDCG@10", parse_measure("RR")])
    labels = [label for label, _ in got]
    assert labels == ["ndcg_cut.1", "ndcg_cut.4", *(f"P.{k}" for k in LONG), "AP", "nDCG@10", "RR"]
    assert [str(m) for _, m in got][:3] == ["nDCG@1", "nDCG@4", "P@5"]
    assert split_measures("iprec_at_recall")[:2] == ["iprec_at_recall.0.00", "iprec_at_recall.0.10"]
    assert parse_measure(split_measures("iprec_at_recall")[1]) == parse_measure("IPrec@0.1")
    assert parse_measures("P P.10") == parse_measures("P")  # a label asked twice is kept once
    # a family without a drop-in default is still refused with the hint
    with pytest.raises(ae.MeasureSyntaxError, match="family of cut-off measures"):
        parse_measures(["judged"])


def test_evaluate_cli_and_trec_eval_binary_agree(robust, trec_eval_bins, tmp_path):
    import gzip
    import io
    import subprocess

    from auditeval.cli.main import main

    qrels_path, run_path = robust
    plain = tmp_path / "run.txt"
    plain.write_bytes(gzip.decompress(run_path.read_bytes()))
    res = ae.evaluate(qrels_path, plain, ["ndcg_cut.1,4", "P"], profile="trec_eval-9.0.8", per_topic=False)
    api = {v.measure: (str(v.variant), v.value) for v in res.values}
    out = io.StringIO()
    assert main(["eval", "-m", "ndcg_cut.1,4", "-m", "P", "--format", "tsv", str(qrels_path), str(plain)],
                out, io.StringIO()) == 0
    rows = [line.split("\t") for line in out.getvalue().splitlines()[1:]]
    cli = {r[1]: (r[4], float(r[3])) for r in rows if len(r) >= 5 and r[2] == "all"}  # (then the notes)
    assert list(cli) == list(api) == ["ndcg_cut.1", "ndcg_cut.4", *(f"P.{k}" for k in LONG)]
    assert all(cli[k][0] == api[k][0] and cli[k][1] == pytest.approx(api[k][1], abs=1e-15) for k in api)
    printed = subprocess.run([str(trec_eval_bins["9.0.8"]), "-m", "ndcg_cut.1,4", "-m", "P", str(qrels_path), str(plain)],
                             capture_output=True, text=True, check=True).stdout
    binary = {}
    for line in printed.splitlines():
        name, topic, value = line.split()
        assert topic == "all"
        binary[str(parse_measure(name))] = float(value)
    # the same measures (trec_eval prints them in its table's order: P before ndcg_cut)
    assert sorted(binary) == sorted(str(parse_measure(k)) for k in api) and len(binary) == 11
    for label, (_, value) in api.items():
        assert abs(value - binary[str(parse_measure(label))]) <= 5e-5, label  # printed with 4 decimals
    # sweep reads the list the same way
    sw = ae.sweep(qrels_path, plain, ["ndcg_cut.1,4", "P"], profile="trec_eval-9.0.8", vary={"ties": ["docno-desc"]})
    assert list(sw.blocks) == list(api)
    for label, (variant, value) in api.items():
        b = sw.blocks[label]
        assert b.variants == [variant] and b.aggregates[0, 0] == pytest.approx(value, abs=1e-15), label


def test_audit_reads_the_list_the_same_way():

    from auditeval.auditing import audit

    ex = EXAMPLES
    rep = audit(str(ex / "qrels.txt"), str(ex / "bm25.txt"), measures=["ndcg_cut.1,4", "P"], against="pytrec_eval",
                progress=False)
    want = ["ndcg_cut.1", "ndcg_cut.4", *(f"P.{k}" for k in LONG)]
    assert rep.measures == want
    assert sorted({r.measure for r in rep.agreement if r.status == "match"}) == sorted(want)  # pytrec_eval agrees
