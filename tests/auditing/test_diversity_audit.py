"""pyndeval as an audit reference (adapters/pyndeval.py) and ir_measures' pyndeval provider:
declarations, spellings, and an audit where both agree with the native engine per topic; the
tie envelope of an intent-aware measure moves documents, not grades."""

from __future__ import annotations

import json
import random

import ir_measures
import numpy as np
import pytest
from cli_helpers import run_cli

import auditeval as ae
from auditeval.adapters import ADAPTERS, check_declarations
from auditeval.engine import staged_for
from auditeval.vocab.conventions import load_profile
from auditeval.vocab.variant import parse_measure


@pytest.mark.parametrize("name", ["pyndeval", "ir_measures:pyndeval"])
def test_declarations_agree_with_the_profile_and_the_tool_is_installed(name):
    a = ADAPTERS[name]
    assert check_declarations(a) == [] and a.available() is None


def test_spellings_and_the_cut_off_limit_of_20():
    nd, im = ADAPTERS["pyndeval"], ADAPTERS["ir_measures:pyndeval"]
    own, imo = load_profile("pyndeval-0.0").convention, load_profile("ir_measures-0.4-pyndeval").convention
    plan = nd.plan(parse_measure("alpha_nDCG(alpha=0.3,rel=2)@20"), own)
    assert (plan.tool_measure, plan.options) == ("alpha-nDCG@20 alpha=0.3 beta=0.5", ("relevance_level=2",))
    assert nd.plan(parse_measure("ERR_IA@5"), own).tool_measure == "ERR-IA@5 alpha=0.5 beta=0.5"
    assert nd.plan(parse_measure("NRBP(beta=0.8)"), own).tool_measure == "NRBP alpha=0.5 beta=0.8"
    assert nd.plan(parse_measure("StRecall@10"), own).tool_measure == "strec@10 alpha=0.5 beta=0.5"
    assert nd.plan(parse_measure("P_IA@21"), own).unsupported == "unsupported: pyndeval does not compute P_IA@21"
    assert nd.plan(parse_measure("AP"), own).tool_measure is None
    # the four pyndeval reports beside those, and alpha= on ERR-IA (ndeval's one global alpha)
    for ours, theirs in [("alpha_DCG(alpha=0)@5", "alpha-DCG@5 alpha=0.0 beta=0.5"),
                         ("nERR_IA(alpha=1)@20", "nERR-IA@20 alpha=1.0 beta=0.5"),
                         ("ERR_IA(alpha=0.3)@10", "ERR-IA@10 alpha=0.3 beta=0.5"),
                         ("nNRBP(alpha=0.1,beta=0.9)", "nNRBP alpha=0.1 beta=0.9"), ("AP_IA", "MAP-IA alpha=0.5 beta=0.5")]:
        assert nd.plan(parse_measure(ours), own).tool_measure == theirs
    spelled = {
        "alpha_nDCG(alpha=0.3)@20": "alpha_nDCG(alpha=0.3)@20", "alpha_nDCG(rel=2)@5": "alpha_nDCG(rel=2)@5",
        "NRBP(alpha=0.3,beta=0.8)": "NRBP(alpha=0.3,beta=0.8)", "ERR_IA@10": "ERR_IA@10", "P_IA@10": "P_IA@10",
        "StRecall@20": "StRecall@20", "alpha_DCG(alpha=0.3)@5": "alpha_DCG(alpha=0.3)@5", "nERR_IA@5": "nERR_IA@5",
        "nNRBP(alpha=0.3,beta=0.8)": "nNRBP(alpha=0.3,beta=0.8)", "AP_IA": "AP_IA", "AP_IA(rel=2)": "AP_IA(rel=2)",
        # the provider's ERR_IA / nERR_IA take no alpha= (run at 0.5, pyndeval_provider.py _build_invokers)
        "ERR_IA(alpha=0.5)@10": "ERR_IA@10", "nERR_IA(alpha=0.5)@10": "nERR_IA@10",
    }
    provider = ir_measures.providers.registry["pyndeval"]
    for ours, theirs in spelled.items():
        assert im.plan(parse_measure(ours), imo).tool_measure == theirs
        assert provider.supports(ir_measures.parse_measure(theirs))
    assert im.plan(parse_measure("ERR_IA@30"), imo).tool_measure is None  # pyndeval asserts k <= 20
    assert im.plan(parse_measure("ERR_IA(alpha=0.3)@10"), imo).tool_measure is None
    assert im.plan(parse_measure("nERR_IA(alpha=0)@10"), imo).tool_measure is None
    # ties: auditeval ranks the run and hands the tools strictly decreasing scores
    assert nd.plan(parse_measure("ERR_IA@5"), own.replace(ties="docno-desc")).rewrite


def _inputs(tmp_path, seed=3):
    rng = random.Random(seed)
    q, r = [], []
    for t in range(6):
        docs = [f"d{i}" for i in rng.sample(range(60), 25)]
        for d in docs:
            for s in rng.sample(["a", "b", "c", "d"], rng.randint(1, 3)):
                q.append(f"{t} {s} {d} {rng.choice([0, 1, 1, 2])}\n")
        for i, d in enumerate(dict.fromkeys(docs[:15] + [f"d{rng.randint(0, 80)}" for _ in range(20)])):
            r.append(f"{t} Q0 {d} {i + 1} {rng.choice([1, 2, 3, 4])} run\n")
    (tmp_path / "q.txt").write_text("".join(q))
    (tmp_path / "r.txt").write_text("".join(r))
    return str(tmp_path / "q.txt"), str(tmp_path / "r.txt")


def test_audit_runs_pyndeval_beside_the_native_engine_and_agrees_per_topic(tmp_path):
    q, r = _inputs(tmp_path)
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", q, r, "-m", "alpha_nDCG@20", "-m", "ERR_IA@10", "-m", "NRBP(alpha=0.3,beta=0.8)",
                           "-m", "P_IA(rel=2)@5", "-m", "StRecall@20", "--against", "pyndeval", "--against",
                           "ir_measures:pyndeval", "--profile", "pyndeval-0.0", "--format", "json", "-o", str(out))
    assert code == 0, err
    rows = json.loads(out.read_text())["agreement"]
    got = {(x["engine"], x["measure"]): (x["status"], x["detail"]) for x in rows}
    for engine in ("pyndeval", "ir_measures:pyndeval"):
        for m in ("alpha_nDCG@20", "ERR_IA@10", "NRBP(alpha=0.3,beta=0.8)", "P_IA(rel=2)@5", "StRecall@20"):
            assert got[(engine, m)] == ("match", "6 topics, doubles to 1e-12"), (engine, m)
    assert len(rows) == 10


ALL_NINE = ["alpha_DCG(alpha=0.3)@10", "alpha_nDCG(alpha=0)@20", "ERR_IA(alpha=1)@5", "nERR_IA@20",
            "NRBP(alpha=0.75,beta=0.9)", "nNRBP(alpha=0.1,beta=1)", "AP_IA", "P_IA@10", "StRecall(rel=2)@5"]
ALPHA_AT_DEFAULT = ["ERR_IA(alpha=0.5)@10", "nERR_IA(alpha=0.5)@5"]  # the ir_measures route's only alpha


def test_audit_compares_every_measure_pyndeval_reports(tmp_path):
    """Each of ndeval's nine, under an alpha / beta of its own: pyndeval agrees per topic; the
    ir_measures provider wherever it takes the parameters (not ERR_IA / nERR_IA at alpha != 0.5)."""
    q, r = _inputs(tmp_path, seed=5)
    out = tmp_path / "a.json"
    args = [x for m in ALL_NINE + ALPHA_AT_DEFAULT for x in ("-m", m)]
    code, _, err = run_cli("audit", q, r, *args, "--against", "pyndeval", "--against", "ir_measures:pyndeval",
                           "--profile", "pyndeval-0.0", "--format", "json", "-o", str(out))
    assert code == 0, err
    rows = json.loads(out.read_text())["agreement"]
    got = {(x["engine"], x["measure"]): (x["status"], x["detail"]) for x in rows}
    for m in ALL_NINE + ALPHA_AT_DEFAULT:
        assert got[("pyndeval", m)] == ("match", "6 topics, doubles to 1e-12"), m
        if m != "ERR_IA(alpha=1)@5":
            assert got[("ir_measures:pyndeval", m)] == ("match", "6 topics, doubles to 1e-12"), m
    assert ("ir_measures:pyndeval", "ERR_IA(alpha=1)@5") not in got and len(rows) == 21


def test_audit_agrees_on_nnrbp_topics_neither_side_gives_a_value(tmp_path):
    """Topic 2 has no relevant judgment: pyndeval's nNRBP is nan there (0 / 0), auditeval's has no
    value (left out, with a note); the audit agrees on topics 1 and 3 and says so of topic 2 and of
    the tools' NaN mean (pyndeval's child and ir_measures average the NaN in)."""
    (tmp_path / "q.txt").write_text("1 a d1 1\n1 b d2 1\n1 a d3 1\n2 a e1 0\n2 b e2 0\n3 a f1 1\n3 c f2 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 x 3 1 r\n2 Q0 e1 1 2 r\n3 Q0 f2 1 5 r\n"
                                    "3 Q0 f1 2 4 r\n")
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), "-m", "nNRBP", "--against",
                           "pyndeval", "--against", "ir_measures:pyndeval", "--profile", "pyndeval-0.0", "--format",
                           "json", "-o", str(out))
    assert code == 0, err
    rep = json.loads(out.read_text())
    detail = ("2 topics, doubles to 1e-12; 1 topic(s) without a value on both sides (the tool's NaN, e.g. 2); "
              "its mean is NaN (it averages them in)")
    assert [(x["engine"], x["status"], x["detail"]) for x in rep["agreement"]] == [
        ("pyndeval", "match", detail), ("ir_measures:pyndeval", "match", detail)]
    assert any("nNRBP has no value for 1 of 3 topic(s)" in n for n in rep["notes"])


def test_audit_under_trec_eval_ties_explains_the_difference_by_the_tie_rule(tmp_path):
    q, r = _inputs(tmp_path)
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", q, r, "-m", "alpha_nDCG@10", "--against", "pyndeval", "--format", "json", "-o", str(out))
    assert code == 0, err
    rep = json.loads(out.read_text())
    (row,) = rep["agreement"]
    assert row["status"] == "match"  # pyndeval's own values reproduced natively under its profile
    (att,) = rep["attributions"]  # and the chosen trec_eval-9.0.8's differ by the tie rule alone
    assert att["value_a"] != att["value_b"] and att["explained"]
    assert (att["a_to_b"], att["b_to_a"]) == ([["ties=docno-asc"]], [["ties=docno-desc"]])


def test_tie_envelope_of_two_equally_graded_documents_on_different_subtopics(tmp_path):
    """d1 and d2 tie, both grade 1, on different subtopics; d3 (below) repeats d1's subtopic.
    Order d1, d2, d3: gains 1, 1, 0.5; order d2, d1, d3: the same: ERR_IA@1 stays 1. With d1 on
    two subtopics (A, C) and d2 on B: d1 first gives ERR_IA@1 = 2, d2 first 1: the envelope is
    [1, 2] though the grades inside the block are equal (a grade-only envelope sees no tie)."""
    from auditeval.auditing.tie_envelope import envelope

    (tmp_path / "q.txt").write_text("1 A d1 1\n1 C d1 1\n1 B d2 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 5 r\n1 Q0 d2 2 5 r\n")
    qrels, run = ae.read_qrels(tmp_path / "q.txt"), ae.read_run(tmp_path / "r.txt")
    conv = load_profile("pyndeval-0.0").convention
    m = parse_measure("ERR_IA@1")
    p = staged_for(qrels, run, None).prepared(conv, m)  # the merged lists the intent-aware measures read
    env = envelope(p, run, m, conv, samples=40, seed=1)
    assert (env.value[0], env.minimum[0], env.maximum[0]) == (2.0, 1.0, 2.0)
    assert 1.0 < env.expected[0] < 2.0 and np.isclose(env.orderings[0], np.log10(2))


def test_an_audit_reads_a_subtopic_qrels_per_measure_and_counts_both_kinds_of_repeat(tmp_path):
    """d1 under A and B, d2 under A twice: AP sees two repeated (topic, doc) pairs and trec_eval's
    profile refuses the audit as it refuses eval (main's message); the qrels facts count the
    repeated pairs (2, what dups decides) and the repeated (topic, subtopic, doc) (1)."""
    from auditeval.auditing.input_diagnostics import qrels_facts

    (tmp_path / "q.txt").write_text("1 A d1 1\n1 B d1 0\n1 A d2 1\n1 A d2 0\n1 B d3 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d3 3 1 r\n")
    q, r = str(tmp_path / "q.txt"), str(tmp_path / "r.txt")
    code, out, err = run_cli("audit", q, r, "-m", "AP", "--against", "pyndeval", "--format", "json")
    assert (code, out) == (2, "")
    assert err == (f"auditeval: error: {q}:2: duplicate judgment for topic '1' doc 'd1' (first at line 1); "
                   "choose dups=first or dups=last to keep one\n")
    f = qrels_facts(ae.read_qrels(q), 1)
    assert (f["duplicate_judgments"], f["duplicate_subtopic_judgments"]) == (2, 1)
    assert f["duplicate_examples"] == ["1 d1", "1 d2"]


def test_lists_that_read_a_subtopic_qrels_line_by_line_are_refused_by_the_intent_aware_kernels(tmp_path):
    """The lists prepared without the measure read every line (AP's view); an intent-aware
    kernel given them refuses rather than score one subtopic per topic."""
    from auditeval.engine import measure_on
    from auditeval.vocab.errors import EvaluationError

    (tmp_path / "q.txt").write_text("1 A d1 1\n1 C d2 1\n1 B d2 1\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 5 r\n1 Q0 d2 2 4 r\n")
    qrels, run = ae.read_qrels(tmp_path / "q.txt"), ae.read_run(tmp_path / "r.txt")
    conv = load_profile("pyndeval-0.0").convention.replace(dups="last")
    m = parse_measure("ERR_IA@2")
    sr = staged_for(qrels, run, None)
    with pytest.raises(EvaluationError, match="read it line by line"):
        measure_on(sr.prepared(conv), m, conv)
    # with the measure, the merged lists: d1 gains 1 (A) at rank 1, d2 gains 2 (B, C) at rank 2:
    # (1 / 1 + 2 / 2) / (3 / 1 + 3 * 0.5 / 2), |S| = 3 (ndeval.c:612-658)
    assert measure_on(sr.prepared(conv, m), m, conv)[0].tolist() == [2 / 3.75]


def test_a_missing_topic_without_relevant_judgment_is_0_for_ir_measures_and_absent_zero(tmp_path):
    """Topic 4 (only a judged non-relevant document) is missing from the run: ir_measures fills
    nNRBP 0 there (providers/base.py, measure.DEFAULT), auditeval under its profile
    (topics=qrels, absent=zero) too; topic 2 (in the run, same qrels) stays without a value on
    both sides; under absent=empty topic 4 has none either (0 / 0 on the empty ranking)."""
    (tmp_path / "q.txt").write_text("1 a d1 1\n1 b d2 1\n2 a e1 0\n3 a f1 1\n4 a g1 0\n")
    (tmp_path / "r.txt").write_text("1 Q0 d1 1 3 r\n2 Q0 e1 1 2 r\n")
    q, r, out = str(tmp_path / "q.txt"), str(tmp_path / "r.txt"), tmp_path / "a.json"
    code, _, err = run_cli("audit", q, r, "-m", "nNRBP", "--against", "ir_measures:pyndeval", "--profile",
                           "ir_measures-0.4-pyndeval", "--format", "json", "-o", str(out))
    assert code == 0, err
    (row,) = json.loads(out.read_text())["agreement"]
    assert (row["status"], row["detail"]) == ("match", "3 topics, doubles to 1e-12; 1 topic(s) without a value on "
                                                        "both sides (the tool's NaN, e.g. 2); its mean is NaN (it averages them in)")
    for absent, expected in (("zero", {"1": 2 / 3, "3": 0.0, "4": 0.0}), ("empty", {"1": 2 / 3, "3": 0.0})):
        df = ae.evaluate(q, r, ["nNRBP"], profile="ir_measures-0.4-pyndeval", settings=[f"absent={absent}"]).to_frame()
        got = {t: v for t, v in zip(df.topic, df.value, strict=True) if t != "all"}
        assert got == pytest.approx(expected, abs=1e-15), absent
        conv = load_profile("ir_measures-0.4-pyndeval").convention.replace(absent=absent)
        assert f"|absent={absent}|" in str(ae.Variant.of(parse_measure("nNRBP"), conv))
