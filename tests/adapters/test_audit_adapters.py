"""Reference adapters: declarations agree with the profiles, plans, the trec_eval probe,
and a missing, crashing or hanging tool is reported, never fatal."""

from __future__ import annotations

import stat

import pytest
from paths import EXAMPLES

from auditeval.adapters import ADAPTERS, check_declarations, references
from auditeval.adapters.runner import Request, run_one
from auditeval.adapters.trec_eval import TrecEvalBinary, discover
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure


def test_every_declaration_agrees_with_its_profile(trec_eval_bins):
    adapters = list(ADAPTERS.values()) + discover([str(p) for p in trec_eval_bins.values()])
    assert [b for a in adapters for b in check_declarations(a)] == []


def test_plan_native_emulated_fixed():
    a = ADAPTERS["pytrec_eval"]
    own = a.own()
    p = a.plan(parse_measure("AP(rel=2)"), own)
    assert (p.tool_measure, p.options, p.rewrite) == ("map map", ("relevance_level=2",), False)
    assert a.plan(parse_measure("AP"), own.replace(ties="docno-asc")).rewrite is True
    assert a.plan(parse_measure("AP"), own.replace(topics="qrels")).unsupported == (
        "unsupported: topics=qrels needs a tool with topics=qrels (pytrec_eval is fixed at both)")
    msmarco = ADAPTERS["ir_measures:msmarco"]
    assert msmarco.plan(parse_measure("AP"), msmarco.own()).unsupported == (
        "unsupported: ir_measures:msmarco does not compute AP")
    g = ADAPTERS["ir_measures:gdeval"]
    assert g.plan(parse_measure("nDCG@10"), g.own()).tool_measure == "nDCG(dcg='exp-log2')@10"


def test_trec_eval_builds_are_recognised_by_behaviour(trec_eval_bins):
    found = discover([str(trec_eval_bins[v]) for v in ("9.0.8", "9.0.8-double", "10.0")])
    assert [b.build for b in found] == ["9.0.8", "9.0.8-double", "10.0"]
    assert [b.said for b in found] == ["trec_eval version 9.0.7", "trec_eval version 9.0.8", "trec_eval version 10.0-rc3"]
    ten = found[2]
    assert ten.plan(parse_measure("AP"), resolve("trec_eval-10.0").replace(topics="qrels")).options == ("-c",)
    assert references(["pytrec_eval"], [str(trec_eval_bins["10.0"])])[-1].name == "trec_eval-10.0"


def _script(tmp_path, name: str, body: str) -> str:
    p = tmp_path / name
    p.write_text("#!/bin/sh\n" + body)
    p.chmod(p.stat().st_mode | stat.S_IEXEC)
    return str(p)


def test_missing_crashing_and_hanging_tools_are_reported(tmp_path):
    missing = run_one(TrecEvalBinary(str(tmp_path / "nope"), "9.0.8"), "q", [Request("k", "r", "map map", ())])
    assert missing.status == "not installed"
    assert missing.message.startswith(f"not installed: {tmp_path / 'nope'} is not an executable file")
    crash = TrecEvalBinary(_script(tmp_path, "crash", "echo 'segfault in m_map.c' >&2\nexit 3\n"), "9.0.8")
    out = run_one(crash, "q", [Request("k", "r", "map map", ())])
    assert out.status == "failed"
    assert out.values["k"]["error"].startswith("exit status 3 on -q -m map q r; stderr: segfault in m_map.c")
    hang = TrecEvalBinary(_script(tmp_path, "hang", "sleep 5\n"), "9.0.8")
    hang.timeout = 0.3
    out = run_one(hang, "q", [Request("k", "r", "map map", ())])
    assert out.status == "timeout" and out.message.startswith("timeout after 0.3 s")


def test_declared_provider_measures_agree_with_ir_measures():
    """Each installed provider computes exactly the measures its adapter declares (of these)."""
    import ir_measures

    from auditeval.adapters.ir_measures import PROVIDERS

    names = ["AP", "AP@100", "nDCG@10", "P@10", "R@1000", "RR", "RR@10", "Bpref", "Rprec", "Success@10", "Judged@10"]
    for prov, adapter in ((p, ADAPTERS[f"ir_measures:{p}"]) for p in PROVIDERS):
        if adapter.available() is not None:
            continue  # not installed here: its table is checked where it is
        provider = ir_measures.providers.registry[prov]
        for n in names:
            m = parse_measure(n)
            spelled = adapter.tool_measure(m, adapter.own())
            assert (spelled is not None) == provider.supports(ir_measures.parse_measure(spelled or n)), (prov, n)


def test_provider_spellings_and_fixed_axes_of_the_newer_providers():
    from auditeval.adapters.ir_measures import IrMeasures
    from auditeval.vocab.conventions import load_profile

    gd, cp, acc = IrMeasures("gdeval"), IrMeasures("compat"), IrMeasures("accuracy")
    own = load_profile("ir_measures-0.4-gdeval").convention
    assert gd.plan(parse_measure("ERR@20"), own).tool_measure == "ERR@20"
    assert gd.plan(parse_measure("nDCG@10"), own).tool_measure == "nDCG(dcg='exp-log2')@10"
    msm = load_profile("ir_measures-0.4-msmarco").convention
    assert cp.plan(parse_measure("Compat(p=0.8,normalize=False)"), msm).tool_measure == "Compat(normalize=False,p=0.8)"
    # Compat has no rel= there, and its ideal reads the scores: rel and ties cannot be emulated
    assert cp.plan(parse_measure("Compat(rel=2)"), msm).unsupported.startswith("unsupported: rel=2 needs a tool with rel=2")
    assert cp.plan(parse_measure("Compat"), msm.replace(ties="docno-desc")).unsupported.startswith("unsupported: ties=docno-desc")
    accp = load_profile("ir_measures-0.4-accuracy").convention
    assert acc.plan(parse_measure("Accuracy(rel=2)@10"), accp).tool_measure == "Accuracy(rel=2)@10"
    assert acc.plan(parse_measure("Accuracy@10"), accp.replace(ties="docno-desc")).rewrite  # order-only: emulated


def test_cwl_eval_models_are_audited_against_their_provider(tmp_path):
    """The C/W/L measures go to ir_measures' cwl_eval provider with their own parameters; on
    the bundled bm25 run each agrees per topic (robust03 MU03rob01: all 8 models, 100 topics
    each, doubles to 1e-12, when checked)."""
    import json

    from cli_helpers import run_cli

    from auditeval.adapters.ir_measures import IrMeasures

    own = resolve("cwl_eval-1.0")
    assert IrMeasures("cwl_eval").plan(parse_measure("NERR10(max_rel=2,p=0.8)"), own).tool_measure == "NERR10(max_rel=2,p=0.8)"
    ex = EXAMPLES
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(ex / "qrels.txt"), str(ex / "bm25.txt"), "-m", "SDCG(max_rel=2)@10",
                           "-m", "INST(T=2.0,max_rel=2)", "--against", "ir_measures:cwl_eval", "--format", "json",
                           "-o", str(out))
    assert code == 0, err
    rows = json.loads(out.read_text())["agreement"]
    assert [(r["measure"], r["status"], r["detail"]) for r in rows] == [
        ("SDCG(max_rel=2)@10", "match", "5 topics, doubles to 1e-12"),
        ("INST(T=2.0,max_rel=2)", "match", "5 topics, doubles to 1e-12"),
    ]


def test_pytrec_eval_provider_spellings_of_the_set_and_iprec_measures():
    """ir_measures spells SetRelP as SetP(relative=True); SetF keeps beta, IPrec its recall
    level (on MU03rob01 each of these agreed per topic to 1e-12 when checked)."""
    from auditeval.adapters.ir_measures import IrMeasures

    pt, own = IrMeasures("pytrec_eval"), resolve("ir_measures-0.4")
    spell = {x: pt.plan(parse_measure(x), own).tool_measure for x in ("SetRelP", "SetRelP(rel=2)", "SetF(beta=2.0)",
                                                                        "IPrec@0.5", "SetAP")}
    assert spell == {"SetRelP": "SetP(relative=True)", "SetRelP(rel=2)": "SetP(relative=True,rel=2)",
                     "SetF(beta=2.0)": "SetF(beta=2.0)", "IPrec@0.5": "IPrec@0.5", "SetAP": "SetAP"}


def test_trec_eval_spellings_come_from_the_drop_in_catalog_per_build():
    from auditeval.adapters.trec_names import batches, trec_name

    want = {
        "IPrec@0.25": ("iprec_at_recall.0.25", "iprec_at_recall_0.25"),
        "IPrec@0.5": ("iprec_at_recall.0.5", "iprec_at_recall_0.50"),  # printed %3.2f
        "SetF(beta=2.0)": ("set_F.2.0", "set_F_2.0"),  # params as typed
        "RprecMult@0.2": ("Rprec_mult.0.2", "Rprec_mult_0.20"),
        "nDCG(gains={0:0,1:1,2:3})": ("ndcg.0=0.0,1=1.0,2=3.0", "ndcg_0=0.0,1=1.0,2=3.0"),
        "R": ("set_recall", "set_recall"),
        "Unj@10": None,  # 10.0 only
    }
    assert {m: trec_name(parse_measure(m), "9.0.8") for m in want} == want
    assert trec_name(parse_measure("Unj@10"), "10.0") == ("unj.10", "unj_10")
    assert trec_name(parse_measure("RBP"), "10.0") is None  # m_rbp.c reads uninitialised memory
    assert trec_name(parse_measure("nDCG(gains={0:0,1:1})@10"), "10.0") is None  # ndcg_cut takes no gains
    # one parameter string per measure name and invocation; cut-offs merge
    assert batches(["P.10", "map", "P.5", "set_F", "set_F.2.0", "iprec_at_recall.0.5", "iprec_at_recall.0.25"]) == [
        (["P.10,5", "iprec_at_recall.0.5,0.25", "map", "set_F"], [0, 2, 5, 6, 1, 3]),
        (["set_F.2.0"], [4]),
    ]


def test_several_cut_offs_and_parameters_of_one_trec_eval_family_in_one_audit(tmp_path, trec_eval_bins):
    """P@1 and P@2 (one -m P.1,2), SetF and SetF(beta=2.0) (two invocations: trec_eval keeps the
    first parameter string per measure name) agree with trec_eval 10.0. Topic 1 ranks a (relevant),
    b (not); topic 2 x (unjudged), c (relevant)."""
    import json

    from cli_helpers import run_cli

    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    r.write_text("1 Q0 a 1 2.0 t\n1 Q0 b 2 1.0 t\n2 Q0 x 1 3.0 t\n2 Q0 c 2 1.0 t\n")
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(q), str(r), "-m", "P@1", "-m", "P@2", "-m", "SetF", "-m", "SetF(beta=2.0)",
                           "--against", "trec_eval", "--trec-eval", str(trec_eval_bins["10.0"]), "--format", "json",
                           "-o", str(out))
    assert code == 0, err
    rows = {a["measure"]: (a["status"], a["value"]) for a in json.loads(out.read_text())["agreement"]}
    # P@1 = (1 + 0)/2, P@2 = (1/2 + 1/2)/2; set P = 1/2 and set R = 1 per topic
    assert rows["P@1"] == ("match", "0.5000") and rows["P@2"] == ("match", "0.5000")
    # m_set_F.c: (beta + 1) P R / (beta P + R): 2 * 1/2 / (3/2) = 2/3; beta 2: 3 * 1/2 / 2 = 3/4
    assert rows["SetF"] == ("match", "0.6667") and rows["SetF(beta=2.0)"] == ("match", "0.7500")


def test_trectools_provider_profile_on_robust03(tmp_path, robust03):
    """ir_measures' trectools provider keeps ties in file order (a stable pandas sort on
    (query, score), trectools called with trec_eval=False) and reports qrels topics only: under
    ir_measures-0.4-trectools AP, P@10, RR and Bpref agree per topic to 1e-12 on MU03rob01
    (under trectools-0.0's docno-desc ties, 100 AP topics differed). Its nDCG@10 is NaN on the
    15 topics whose DCG@10 is 0 (a NaN used to pass as equal): a tool defect, named so; every
    other topic agrees. Its Rprec is higher on the topics whose top-R documents are also another
    topic's relevant ones (one value 1.55): trectools' get_rprec under pandas 3 joins on docid
    alone, a known defect named with its upstream line (auditing/defects.py)."""
    import json

    from cli_helpers import run_cli

    d = robust03.dir
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(d / "qrels.robust03.txt"), str(d / "runs" / "input.MU03rob01.gz"),
                           "-m", "AP nDCG@10 P@10 RR Bpref Rprec", "--against", "ir_measures:trectools", "--format",
                           "json", "-o", str(out))
    assert code == 0, err
    rows = {r["measure"]: (r["status"], r["detail"]) for r in json.loads(out.read_text())["agreement"]}
    for m in ("AP", "P@10", "RR", "Bpref"):
        assert rows[m] == ("match", "100 topics, doubles to 1e-12"), m
    status, detail = rows["nDCG@10"]
    assert status == "explained" and detail.endswith(
        "tool defect: ir_measures:trectools's impossible values stand where the native engine has 0 (15 topic(s), "
        "e.g. 307); every other topic agrees")
    status, detail = rows["Rprec"]
    assert status == "explained" and "1 value(s) outside [0, 1] (topic 607: 1.545)" in detail
    assert "tool defect (known) of ir_measures:trectools: " in detail
    assert "trectools/trec_eval.py:444 groupby('query').apply(...) leaves the grouping column out" in detail


@pytest.mark.slow
def test_ir_measures_ranx_provider_runs_under_pandas_3(tmp_path):
    """ir_measures' ranx provider asserts object-dtype query ids, which pandas 3 no longer
    infers (ranx #79): its child process opts out of the str dtype, so the provider computes
    (on bm25, P@10 = 26/50 = 0.52 exactly as native) instead of failing on every value."""
    import json

    from cli_helpers import run_cli

    ex = EXAMPLES
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(ex / "qrels.txt"), str(ex / "bm25.txt"), "-m", "P@10", "--against",
                           "ir_measures:ranx", "--format", "json", "-o", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    row = next(r for r in doc["agreement"] if r["engine"] == "ir_measures:ranx")
    assert (row["status"], row["value"]) == ("match", 0.52)


def test_a_nan_on_one_side_is_a_difference_on_both_sides_agreement():
    """A tool NaN against a native number differs (it used to pass: NaN > 1e-12 is False);
    NaN on both sides (trec_eval's -nan for 0/0) agrees."""
    import numpy as np

    from auditeval.auditing.native import TopicValues
    from auditeval.auditing.tool_agreement import matches
    from auditeval.vocab.variant import Variant

    m, conv = parse_measure("nDCG@10"), resolve("trec_eval-9.0.8")
    tv = TopicValues(Variant.of(m, conv), np.array(["1", "2"], dtype=object), np.array([0.0, 0.5]), 0.25)
    pt = ADAPTERS["pytrec_eval"]
    ok, detail, _, _ = matches(pt, {"topics": {"1": float("nan"), "2": 0.5}, "aggregate": float("nan")}, tv, m, conv)
    assert not ok and detail.startswith("1 topic(s) differ by more than 1e-12 (each a NaN on one side)")
    assert "the tool reports NaN for 1 topic(s) (e.g. 1), impossible for nDCG" in detail
    both = TopicValues(tv.variant, tv.topics, np.array([np.nan, 0.5]), None)
    assert matches(pt, {"topics": {"1": float("nan"), "2": 0.5}, "aggregate": None}, both, m, conv)[0]


def test_printed_comparison_reads_the_tools_own_format():
    from auditeval.auditing.tool_agreement import like

    assert like(float("nan"), "-nan", 4) == "-nan"  # C printf of 0/0; a number never prints so
    assert like(0.5, "-nan", 4) == "0.5000"
    assert like(10.0, "10", 4) == "10" and like(0.12345, "0.1235", 4) == "0.1235"
