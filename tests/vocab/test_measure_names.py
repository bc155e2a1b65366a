"""ir_measures spellings parse (into the measure and axes they mean); wrong spellings get a
hint naming the right one; ERR by hand; several measures in one eval argument."""

from __future__ import annotations

import io
import math

import pytest

import auditeval as ae
from auditeval.cli.main import main
from auditeval.vocab.conventions import load_profile

TE9 = load_profile("trec_eval-9.0.8").convention


def variant(text: str) -> str:
    return str(ae.Variant.of(ae.parse_measure(text), TE9))


@pytest.mark.parametrize(
    ("spelling", "same_as"),
    [
        ("nDCG(dcg='exp-log2')@10", None),  # folded: gain=exp2, checked below
        ("AP(rel=2)@100", None),
        ("MAP", "AP"),
        ("MRR@10", "RR@10"),
        ("NDCG@10", "nDCG@10"),
        ("BPref", "Bpref"),
        ("RPrec", "Rprec"),
        ("Precision@5", "P@5"),
        ("Recall@100", "R@100"),
        ("P(cutoff=5)", "P@5"),
        ("IPrec(recall=0.25)", "IPrec@0.25"),
        ("SetP(relative=True)", "SetRelP"),
        ("SetP(relative=False)", "SetP"),
        ("NumRet(rel=2)", "NumRelRet(rel=2)"),
        ("nDCG(judged_only=True)@10", "nDCG@10"),  # unjudged=drop, checked below
        ("SetF(beta=0.5)", None),
        ("RBP(p=0.8)", None),
        ("ERR@20", None),
        ("Judged@10", None),
        ("ndcg_cut.10", "nDCG@10"),
        ("α_DCG(alpha=0.3)@10", "alpha_DCG(alpha=0.3)@10"),
        ("MAP_IA", "AP_IA"),
        ("nERR_IA(cutoff=20)", "nERR_IA@20"),
        ("nNRBP(alpha=0.3,beta=0.8)", None),
    ],
)
def test_ir_measures_spellings_parse(spelling, same_as):
    m = ae.parse_measure(spelling)
    if same_as is not None and "judged_only" not in spelling:
        assert m == ae.parse_measure(same_as)
    assert ae.parse_variant(variant(spelling)) == ae.Variant.of(m, TE9)


def test_folded_spellings_land_on_their_axes():
    assert "|gain=exp2|" in variant("nDCG(dcg='exp-log2')@10")
    assert variant("nDCG(dcg='exp-log2')@10") == str(ae.Variant.of(ae.parse_measure("nDCG@10"), TE9.replace(gain="exp2")))
    assert "|gain=linear|" in variant("nDCG(dcg='log2')@10")
    assert "|rel=2|" in variant("AP(rel=2)@100") and variant("AP(rel=2)@100").startswith("AP@100|")
    assert variant("nDCG(judged_only=True)@10").endswith("|unjudged=drop")


@pytest.mark.parametrize(
    ("wrong", "hint"),
    [
        ("nDCG@10(judged_only)", "parameters come before the cut-off: nDCG(judged_only=True)@10"),
        ("nDCG@10(judged_only=True)", "parameters come before the cut-off: nDCG(judged_only=True)@10"),
        ("nDCG(judged_only)@10", "every parameter needs a value: nDCG(judged_only=True)@10"),
        ("ndcg@10", "did you mean 'nDCG@10'?"),
        ("map@10", "did you mean 'AP@10'?"),
        ("Ndcg_Cut_10", "'ndcg_cut' is trec_eval's name for nDCG"),
        ("P10", "did you mean 'P@10'?"),
        ("nDCG@10 P@10", "one measure per name here; give a list in Python, or several per -m on the command line"),
        ("nDCG(dcg='exp')@10", "parameter 'dcg' must be one of ['log2', 'exp-log2']"),
        ("nDCG(dcg='exp-log2',gains={0:0,1:2})", "give dcg= or gains={...}, not both"),
        ("nNRBP(beta=2)", "beta must lie in [0, 1]"),
        ("StRecall", "StRecall needs a cutoff, e.g. StRecall@10"),
        ("alpha_nDCG(alpha=2)@10", "alpha must lie in [0, 1]"),
        ("Compat(p=1.5)", "p (persistence) must lie in [0, 1]"),
        ("nDCG(gain=exp2)@10", "'gain' is a convention axis, not a measure parameter: set it with --set gain=exp2, "
                               "or nDCG(dcg='exp-log2')@10 (ir_measures' spelling)"),
        ("nDCG(gain='exp2')@10", "nDCG takes no parameter 'gain' (allowed: dcg, gains, judged_only); 'gain' is a "
                                 "convention axis"),
        ("P(ties='docno-asc')@10", "set it with --set ties=docno-asc"),
        ("AP(mode=fast)", "text values need quotes: mode='fast'"),
        ("ERR(max_grade=0)@10", "max_grade must be a positive integer"),
    ],
)
def test_wrong_spellings_get_a_hint(wrong, hint):
    with pytest.raises(ae.AuditEvalError) as exc:
        ae.parse_measure(wrong)
    assert hint in str(exc.value)


def test_eval_reports_the_hint_without_a_traceback(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 1 t\n")
    out, err = io.StringIO(), io.StringIO()
    assert main(["eval", str(q), str(r), "-m", "nDCG@10(judged_only)"], out, err) == 2
    assert err.getvalue().startswith("auditeval: error: unexpected '('; parameters come before the cut-off: nDCG(judged_only=True)@10")
    assert "Traceback" not in err.getvalue()


def test_err_by_hand():
    # grades in rank order 2, 0, 1 (max_grade 4): R = 3/16, 0, 1/16
    # ERR = 3/16 / 1 + 0 + (1/16) * (1 - 3/16) / 3
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = ae.evaluate(qrels, run, ["ERR", "ERR@2", "ERR(max_grade=2)@3"])
    assert res.get("ERR").value == pytest.approx(3 / 16 + (1 / 16) * (13 / 16) / 3, abs=1e-15)
    assert res.get("ERR@2").value == 3 / 16
    # max_grade 2: R = 3/4, 0, 1/4 -> 3/4 + (1/4)(1/4)/3
    assert res.get("ERR(max_grade=2)@3").value == pytest.approx(3 / 4 + (1 / 4) * (1 / 4) / 3, abs=1e-15)
    with pytest.raises(ae.EvaluationError, match="grade 2 above max_grade=1"):
        ae.evaluate(qrels, run, ["ERR(max_grade=1)"])


def test_exp_ndcg_by_hand():
    # gains 2^g - 1: ranking a(2) b(0) c(1) -> DCG 3 + 1/log2(4); ideal a c -> 3 + 1/log2(3)
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = ae.evaluate(qrels, run, ["nDCG(dcg='exp-log2')@3"])
    assert res.get("nDCG(dcg='exp-log2')@3").value == pytest.approx((3 + 1 / 2) / (3 + 1 / math.log2(3)), abs=1e-15)


def test_sdcg_by_hand():
    # grades 2, 0, 1 at ranks 1-3, max_rel 2: gains 1, 0, 1/2 ->
    # (1 + 0.5 / log2 4) / (1 + 1 / log2 3 + 1 / log2 4) at k = 3
    qrels = {"1": {"a": 2, "b": 0, "c": 1}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = ae.evaluate(qrels, run, ["SDCG(max_rel=2)@3", "SDCG(max_rel=2,min_rel=1)@3"])
    assert res.get("SDCG(max_rel=2)@3").value == pytest.approx((1 + 0.5 / 2) / (1 + 1 / math.log2(3) + 0.5), abs=1e-15)
    # min_rel 1: gains 1, 0, 0
    assert res.get("SDCG(max_rel=2,min_rel=1)@3").value == pytest.approx(1 / (1 + 1 / math.log2(3) + 0.5), abs=1e-15)
    with pytest.raises(ae.MeasureSyntaxError, match="SDCG needs max_rel="):
        ae.parse_measure("SDCG@10")


def test_cwl_measures_by_hand():
    # grades 1, 0, 2 at ranks 1-3, max_rel 2: gains 1/2, 0, 1 (then 997 zero-gain positions)
    qrels = {"1": {"a": 1, "b": 0, "c": 2}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = ae.evaluate(qrels, run, ["NERR8(max_rel=2)@3", "INSQ(max_rel=2)"])
    # NERR8@3: C = 1/2, 1, then 0 -> reach 1, 1/2, 1/2 -> (1/2 + 0 + 1/2) / 2
    assert res.get("NERR8(max_rel=2)@3").value == 0.5
    # INSQ(T=1): C_i = ((i+1)/(i+2))^2 -> reach_i = (2/(i+1))^2 over 1,000 positions
    norm = sum(4 / (i + 1) ** 2 for i in range(1, 1001))
    assert res.get("INSQ(max_rel=2)").value == pytest.approx((0.5 * 1 + 1 * (2 / 4) ** 2) / norm, abs=1e-15)


def test_nerr10_and_bpm_by_hand():
    # same ranking: gains 1/2, 0, 1 at ranks 1-3, then 997 zero-gain positions
    qrels = {"1": {"a": 1, "b": 0, "c": 2}}
    run = {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}
    res = ae.evaluate(qrels, run, ["NERR10(max_rel=2,p=0.8)", "BPM(max_rel=2)@10", "BPM(T=2.0,max_rel=2)@2", "RBP(p=0.8)"])
    # NERR10(p=0.8): C = 0.4, 0.8, 0, ... -> reach 1, 0.4, 0.32 -> (1/2 + 0.32) / 1.72
    assert res.get("NERR10(max_rel=2,p=0.8)").value == pytest.approx(0.82 / 1.72, abs=1e-15)
    # BPM(T=1)@10: G = 1/2, 1/2, 3/2 -> C = 1, 1, 0 -> reach 1, 1, 1 -> (1/2 + 0 + 1) / 3
    assert res.get("BPM(max_rel=2)@10").value == pytest.approx(0.5, abs=1e-15)
    # BPM(T=2)@2: the cost bound stops after 2 items -> C = 1, 0 -> (1/2 + 0) / 2
    assert res.get("BPM(T=2.0,max_rel=2)@2").value == pytest.approx(0.25, abs=1e-15)
    # p= is NERR10's own persistence (kept in the measure), but RBP's rbp_p axis (folded)
    assert str(res.get("NERR10(max_rel=2,p=0.8)").variant).startswith("NERR10(max_rel=2,p=0.8)|")
    assert "rbp_p=0.8" in str(res.get("RBP(p=0.8)").variant)
    assert "rbp_p" not in str(res.get("NERR10(max_rel=2,p=0.8)").variant)


def test_every_measure_ir_measures_registers_is_one_auditeval_computes():
    """ir_measures 0.4.3's registry (aliases included): each name is, or is an alias of, a row of
    the spec table (the last ones were ndeval's alpha_DCG, nERR_IA, nNRBP, AP_IA / MAP_IA)."""
    import ir_measures

    from auditeval.vocab.measure import Measure
    from auditeval.vocab.names import normalize
    from auditeval.vocab.specs import SPECS

    names = sorted(ir_measures.measures.registry)
    assert len(names) == 51 and {"alpha_DCG", "α_DCG", "nERR_IA", "nNRBP", "AP_IA", "MAP_IA"} <= set(names)
    assert [n for n in names if normalize(Measure(n)).name not in SPECS] == []
