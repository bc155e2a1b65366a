"""The rows of the measure spec table, one function per family of measures (the record:
:mod:`auditeval.vocab.spec_row`; the index: :mod:`auditeval.vocab.specs`).

Sources are trec_eval's ``m_*.c`` at tags v9.0.8 and v10.0 unless named otherwise. In the
formulas R is the number of relevant qrels documents (grade >= rel), ``ret`` the ranked
documents (after depth and -J), ``relret`` the relevant ones among them, N the judged
non-relevant qrels documents (0 <= grade < rel), ``rank`` 1-based.
"""

from __future__ import annotations

from auditeval.vocab.axes import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.spec_row import MeasureSpec as S
from auditeval.vocab.spec_row import levels_of

# Axes every ranked-list measure reads (they shape the list itself).
RANKING = frozenset({"ties", "sim", "topics", "unjudged", "negatives", "depth", "dups", "self_hits"})
RANKING_REL = RANKING | {"rel"}
# Counts that ignore the order: ties/sim matter only when depth cuts the ranking.
ORDER_FREE = RANKING | {"rel"}
ORDER_IF_CUT = {"ties": "finite depth", "sim": "finite depth"}
ORDER_IF_CUT_OR_K = {"ties": "cut", "sim": "cut"}  # counts with an optional @k: the order picks the top k
IDEAL = RANKING | {"gain", "ideal_sort"}
IDEAL_IF = {"gain": "no gains", "ideal_sort": "gains"}  # integer level gains sort the same either way
GAINS = {"gains": tuple}
# A qrels topic missing from the run can score other than 0 (absent=zero) only for the rows
# listing ``absent`` (measured on the empty or bogus ranking: see the axis); it is read
# only under topics=qrels. Every other row is 0 there under each absent value.
ABSENT = frozenset({"absent"})
ABSENT_IF = {"absent": "topics=qrels"}


def _check_levels(m: Measure) -> str | None:
    """Levels must be numbers; like trec_eval, values outside [0, 1] are allowed (they score 0)."""
    try:
        levels_of(m)
    except ValueError as exc:
        return str(exc)
    return None


def _check_max_grade(m: Measure) -> str | None:
    v = m.param("max_grade")
    if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 1):
        return "max_grade must be a positive integer"
    return None


def _check_rel_range(m: Measure) -> str | None:
    hi, lo = m.param("max_rel"), m.param("min_rel", 0)
    if hi is None:
        return f"{m.name} needs max_rel=, the top of the grade scale, e.g. {m.name}(max_rel=3)"
    if isinstance(hi, bool) or isinstance(lo, bool) or not lo < hi:
        return "min_rel must be less than max_rel"
    return None


def _check_persistence(m: Measure) -> str | None:
    v = m.param("p")
    if v is not None and not 0.0 <= float(v) <= 1.0:
        return "p (persistence) must lie in [0, 1]"
    return None


_CWL = ("cwl-eval 1.0.12 cwl/ruler/measures (cwl_nerr.py, cwl_inst.py, cwl_insq.py, cwl_bpm.py), as ir_measures' "
        "cwl_eval provider runs it")
_CWL_REL = {"max_rel": int, "min_rel": int}


def _check_alpha_beta(m: Measure) -> str | None:
    """alpha (redundancy intolerance) and beta (patience) are probabilities (ndeval.c:18-21)."""
    for key in ("alpha", "beta"):
        v = m.param(key)
        if v is not None and not 0.0 <= float(v) <= 1.0:
            return f"{key} must lie in [0, 1]"
    return None


_NDEVAL = "ndeval 4.5 (src/ndeval.c of pyndeval 0.0.8)"
_IA = ("intent-aware: a topic's subtopics S are those with a relevant judgment (grade >= rel) in a subtopic "
       "qrels (column 2); g_i = sum over the subtopics document i is relevant to of (1 - alpha)^(documents above "
       "it relevant to the same subtopic); |S| = 0 scores 0")


def _check_rbp_gains(m: Measure, c: Convention) -> str | None:
    if c.rbp_gain == "binary" and m.param("gains"):
        return "RBP gains={...} needs rbp_gain=minmax or raw (binary gain is grade >= rel)"
    return None


def _count_rows() -> list[S]:
    """Counts: topics, retrieved, relevant, relevant retrieved, hits."""
    return [
        S("NumQ", "number of topics evaluated", frozenset({"topics"}), "1 per evaluated topic, summed",
          "m_num_q.c", agg="sum", fmt="int", trec_names=(("num_q", None),)),
        S("NumRet", "documents retrieved (after depth and -J)", ORDER_FREE - {"rel"},
          "ret (@k: min(ret, k)), summed over topics", "m_num_ret.c; @k: ir_measures' NumRet@k spelling",
          cutoff="optional", agg="sum", fmt="int", trec_names=(("num_ret", None),),
          only_if=ORDER_IF_CUT_OR_K, ties_effect="set-at-k"),
        S("NumRel", "relevant documents in the qrels (R)", frozenset({"topics", "rel", "negatives", "dups"}),
          "R (qrels documents with grade >= rel), summed over topics", "m_num_rel.c", agg="sum", fmt="int",
          trec_names=(("num_rel", None),)),
        S("NumRelRet", "relevant documents retrieved", ORDER_FREE,
          "relret (@k: relevant in the top k), summed over topics",
          "m_num_rel_ret.c; @k: ir_measures' NumRet(rel=1)@k spelling", cutoff="optional", agg="sum", fmt="int",
          trec_names=(("num_rel_ret", None),), only_if=ORDER_IF_CUT_OR_K, ties_effect="set-at-k"),
        S("Hits", "relevant documents retrieved in the top k, averaged over topics (ranx hits)", ORDER_FREE,
          "|relevant in top k| (every retrieved without @k); the mean over topics (NumRelRet sums them)",
          "ranx 0.3 metrics/hits.py (hits@k)", cutoff="optional", only_if=ORDER_IF_CUT_OR_K,
          tie_monotone=True, ties_effect="set-at-k"),
    ]


def _core_rows() -> list[S]:
    """The core ranked-list measures: P, R, AP, GMAP, RR, R-precision, success, (n)DCG."""
    return [
        S("P", "precision at k: relevant in top k / k", RANKING_REL,
          "|relevant in top k| / k (k fixed even when fewer were retrieved)", "m_P.c:76-79",
          cutoff="required", trec_names=(("P", "int"),),
          bounded=True, envelope_exact=True, tie_monotone=True, growth_sum=True, ties_effect="set-at-k"),
        S("R", "recall at k: relevant in top k / R", RANKING_REL | {"recall_denom"},
          "|relevant in top k| / R; recall_denom=min-R-k divides by min(R, k)", "m_recall.c",
          cutoff="optional", trec_names=(("recall", "int"),), only_if={"recall_denom": "cutoff"},
          bounded=True, envelope_exact=True, tie_monotone=True, growth_sum=True, ties_effect="set-at-k"),
        S("AP", "average precision (sum of P at relevant ranks / R)", RANKING_REL | {"ap_denom"},
          "sum over relevant ranks i <= k of P@i, / R (ap_denom: min(R, k) or relret)", "m_map.c, m_map_cut.c",
          cutoff="optional", trec_names=(("map", None), ("map_cut", "int")),
          bounded=True, envelope_exact=True, tie_monotone=True, tail_free=True, growth_sum=True),
        S("GMAP", "geometric mean of AP, each floored at gm_floor", RANKING_REL | {"ap_denom", "gm_floor"},
          "exp(mean over topics of log(max(AP, gm_floor)))", "m_gm_map.c:58-62", agg="gmean",
          trec_names=(("gm_map", None),),
          tie_monotone=True, tail_free=True),
        S("RR", "reciprocal rank of the first relevant document", RANKING_REL,
          "1 / rank of the first relevant document (within k); 0 without one", "m_recip_rank.c",
          cutoff="optional", trec_names=(("recip_rank", None),),
          bounded=True, envelope_exact=True, tie_monotone=True, tail_free=True, growth_sum=True, ties_effect="first-relevant"),
        S("Rprec", "precision at rank R", RANKING_REL, "|relevant in top R| / R", "m_Rprec.c",
          trec_names=(("Rprec", None),),
          bounded=True, tie_monotone=True),
        S("Success", "1 if a relevant document is in the top k", RANKING_REL, "1 if relret in top k > 0 else 0",
          "m_success.c", cutoff="required", trec_names=(("success", "int"),),
          bounded=True, tie_monotone=True, growth_sum=True, ties_effect="set-at-k"),
        S("nDCG", "normalised discounted cumulative gain, log2(rank+1) discount", IDEAL,
          "DCG / ideal DCG, DCG = sum gain_i / log2(i + 1); gain = grade (linear), 2^grade - 1 (exp2) or the "
          "gains map (levels not in it keep gain = grade); the ideal ranking holds every judged document of "
          "the topic, cut at k, untouched by depth; ignores -l", "m_ndcg.c, m_ndcg_cut.c",
          cutoff="optional", params=GAINS, trec_names=(("ndcg", None), ("ndcg_cut", "int")), only_if=IDEAL_IF,
          bounded=True, envelope_exact=True, tie_monotone=True),
        S("DCG", "discounted cumulative gain, log2(rank+1) discount (not normalised)", RANKING | {"gain"},
          "sum over ranks i (<= k) of gain_i / log2(i + 1); gain = grade (linear, ranx dcg) or 2^grade - 1 "
          "(exp2, ranx dcg_burges) or the gains map (levels not in it keep gain = grade); grades <= 0, "
          "unjudged and pooled-unjudged documents gain 0; no ideal ranking; ignores -l",
          "Jarvelin & Kekalainen, TOIS 2002 (linear); Burges et al., ICML 2005 (exp2); "
          "ranx 0.3 metrics/ndcg.py (_dcg)", cutoff="optional", params=GAINS, only_if={"gain": "no gains"},
          tie_monotone=True),
    ]


def _judgment_rows() -> list[S]:
    """Judgment-based measures: bpref, infAP, interpolated precision, the set measures, utility, yaap,
    relstring."""
    return [
        S("Bpref", "binary preference: relevant docs above judged non-relevant ones (judged docs only)",
          RANKING_REL, "(1/R) sum over retrieved relevant d of 1 - min(n_d, R) / min(N, R), n_d = judged "
          "non-relevant ranked above d", "m_bpref.c", trec_names=(("bpref", None),),
          bounded=True, tie_monotone=True, tail_free=True),
        S("GMBpref", "geometric mean of bpref, each floored at gm_floor", RANKING_REL | {"gm_floor"},
          "exp(mean over topics of log(max(bpref, gm_floor))); per topic: bpref", "m_gm_bpref.c", agg="gmean",
          trec_names=(("gm_bpref", None),),
          tie_monotone=True, tail_free=True),
        S("infAP", "inferred AP (Yilmaz & Aslam): pooled-unjudged docs assumed relevant in proportion",
          RANKING_REL, "(1/R) sum over retrieved relevant at 0-based j of 1 (j = 0) else 1/(j+1) + "
          "(j/(j+1)) ((r-1+n+u)/j) ((r-1+eps)/(r-1+n+2 eps)), eps = 1e-5", "m_infap.c",
          trec_names=(("infAP", None),),
          bounded=True, tie_monotone=True),
        S("IPrec", "interpolated precision at recall level r", RANKING_REL | {"iprec"} | ABSENT,
          "max over k >= c of k / rank_k, c = relevant count for level r under the iprec rule",
          "m_iprec_at_recall.c", cutoff="required", cutoff_type=float, cutoff_range=(0.0, 1.0),
          trec_names=(("iprec_at_recall", "float"),), only_if=ABSENT_IF,
          bounded=True, tie_monotone=True, tail_free=True),
        S("11pt", "interpolated precision averaged over recall 0, 0.1, ..., 1 (or levels='0.2,0.5,0.8')",
          RANKING_REL | {"iprec"} | ABSENT, "mean of IPrec over the levels, added from the last level down",
          "m_11pt_avg.c", params={"levels": str}, trec_names=(("11pt_avg", None),), only_if=ABSENT_IF,
          check=_check_levels,
          bounded=True, tie_monotone=True, tail_free=True),
        S("RprecMult", "precision at rank (long)(x*R + 0.9)", RANKING_REL,
          "|relevant in top c| / c, c = (long)(x*R + 0.9); 0 when c = 0", "m_Rprec_mult.c", cutoff="required",
          cutoff_type=float, trec_names=(("Rprec_mult", "float"),)),
        S("Utility", "set utility a*relret + b*nonrelret + c*relnotret + d*nonrelnotret", ORDER_FREE | ABSENT,
          "a relret + b (ret - relret) + c (R - relret) + d (num_docs + relret - ret - R)", "m_utility.c",
          params={"a": float, "b": float, "c": float, "d": float, "num_docs": int},
          trec_names=(("utility", None),), only_if={**ORDER_IF_CUT, **ABSENT_IF}, missing=0.0),
        S("RelP", "relevant in top k / min(k, R)", RANKING_REL, "|relevant in top k| / min(k, R); 0 when R = 0",
          "m_rel_P.c", cutoff="required", trec_names=(("relative_P", "int"),),
          tie_monotone=True, ties_effect="set-at-k"),
        S("SetP", "relevant retrieved / retrieved", ORDER_FREE, "relret / ret", "m_set_P.c",
          trec_names=(("set_P", None),), only_if=ORDER_IF_CUT,
          bounded=True),
        S("SetR", "relevant retrieved / R", ORDER_FREE, "relret / R", "m_set_recall.c",
          trec_names=(("set_recall", None),), only_if=ORDER_IF_CUT,
          bounded=True),
        S("SetRelP", "relevant retrieved / min(retrieved, R)", ORDER_FREE, "relret / min(ret, R)",
          "m_set_rel_P.c", trec_names=(("set_relative_P", None),), only_if=ORDER_IF_CUT),
        S("SetAP", "set MAP: relevant retrieved^2 / (retrieved * R)", ORDER_FREE, "relret^2 / (ret R)",
          "m_set_map.c", trec_names=(("set_map", None),), only_if=ORDER_IF_CUT),
        S("SetF", "set F-measure (beta+1) P R / (beta P + R)", ORDER_FREE,
          "(beta + 1) P R / (beta P + R), P = relret/ret, R = relret/R; 0 when relret = 0", "m_set_F.c",
          params={"beta": float}, trec_names=(("set_F", None),), only_if=ORDER_IF_CUT,
          bounded=True),
        S("NumNonRelJudgedRet", "judged non-relevant documents retrieved", ORDER_FREE,
          "retrieved documents with 0 <= grade < rel, summed over topics", "m_num_nonrel_judged_ret.c",
          agg="sum", fmt="int", trec_names=(("num_nonrel_judged_ret", None),), only_if=ORDER_IF_CUT),
        S("yaap", "yet another AP (Robertson): log((1+s)/(1+R-s))", RANKING_REL | ABSENT,
          "log((1 + s) / (1 + R - s)), s = sum over retrieved relevant of (relevant so far) / rank",
          "m_yaap.c", trec_names=(("yaap", None),), only_if=ABSENT_IF),
        S("relstring", "grades of the first n (10) ranked docs as a string", RANKING | ABSENT,
          "one character per rank: grade digit, '>' above 9, '-' not in the qrels, '.' pooled unjudged",
          "m_relstring.c", cutoff="optional", agg="none", fmt="str", trec_names=(("relstring", None),),
          only_if=ABSENT_IF, missing=""),
    ]


def _gain_rows() -> list[S]:
    """Gain-based measures, RBP, the judged and unjudged rates."""
    return [
        S("binG", "binary G: mean over relevant of 1/log2(2 + nonrelevant before)", RANKING_REL,
          "(1/R) sum over retrieved relevant of 1 / log2(2 + nonrelevant retrieved before it)", "m_binG.c",
          trec_names=(("binG", None),),
          tie_monotone=True),
        S("G", "normalised gain G (trec_eval experimental)", IDEAL,
          "sum over g_i != 0 of g_i / log2(2 + cost_i - gained_i), / sum of ideal gains", "m_G.c",
          params=GAINS, trec_names=(("G", None),), only_if=IDEAL_IF),
        S("nDCGRel", "nDCG averaged over the relevant (positive-gain) documents", IDEAL,
          "mean over the L positive-gain ideal documents of nDCG at the rank each is retrieved (N if not)",
          "m_ndcg_rel.c", params=GAINS, trec_names=(("ndcg_rel", None),), only_if=IDEAL_IF),
        S("RnDCG", "nDCG averaged at the ideal gain-level boundaries", IDEAL | {"rel"} | ABSENT,
          "mean of nDCG at the ranks where the ideal gain changes (and at N past L + 1); 0 when R = 0",
          "m_Rndcg.c", params=GAINS, trec_names=(("Rndcg", None),), only_if={**IDEAL_IF, **ABSENT_IF}),
        S("RBP", "rank-biased precision (1-p) sum gain p^(rank-1)", RANKING | {"rbp_gain", "rbp_p", "rel"},
          "(1 - p) sum_i gain_i p^(rank_i - 1); gain per rbp_gain (grade or the gains map, never nDCG's gain)",
          "m_rbp.c (trec_eval 10)", params=GAINS, trec_names=(("rbp", None),), fixed={"gain": "linear"},
          check_convention=_check_rbp_gains),
        S("RBPResid", "RBP residual: p^N + (1-p) sum over unjudged of p^(rank-1)",
          RANKING | {"rbp_p", "rbp_resid"} | ABSENT,
          "p^N + (1 - p) sum over unjudged ranks of p^(rank - 1); if-unjudged: 0 without an unjudged document",
          "m_rbp_resid.c (trec_eval 10)", trec_names=(("rbp_resid", None),), only_if=ABSENT_IF, missing=0.0),
        S("Unj", "fraction of the top k not judged", RANKING | {"judged_denom"},
          "unjudged in the top k / k (judged_denom=k) or / min(k, ret)", "m_unjudged.c (trec_eval 10)",
          cutoff="required", trec_names=(("unj", "int"),),
          ties_effect="set-at-k"),
        S("Judged", "fraction of the top k judged", RANKING | {"judged_denom"},
          "judged in the top k / k (judged_denom=k) or / min(k, ret); uncut: judged retrieved / ret",
          "ir_measures judged_provider.py", cutoff="optional", trec_names=(("judged", "int"),),
          only_if={"judged_denom": "cutoff"},
          bounded=True, ties_effect="set-at-k"),
    ]


def _cascade_rows() -> list[S]:
    """Cascade measures: ERR, SDCG."""
    return [
        S("ERR", "expected reciprocal rank (Chapelle et al. 2009), gdeval's stopping probabilities", RANKING,
          "sum over ranks i <= k of R_i / i * prod_{j<i} (1 - R_j), R = (2^grade - 1) / 2^max_grade "
          "(max_grade 4: gdeval.pl $MAX_JUDGMENT); grades <= 0 and unjudged documents give R = 0; "
          "a grade above max_grade is an error",
          "Chapelle, Metzler, Zhang & Grinspan, CIKM 2009; gdeval.pl 1.2a (TREC Web track), as "
          "ir_measures' gdeval provider runs it", cutoff="optional", params={"max_grade": int},
          check=_check_max_grade,
          bounded=True),
        S("SDCG", "scaled DCG: DCG@k of gains scaled to [0, 1], over the DCG@k of all-maximal gains", RANKING,
          "sum_{i<=k} g_i / log2(i + 1) / sum_{i<=k} 1 / log2(i + 1), g = (clip(grade, min_rel, max_rel) - "
          "min_rel) / (max_rel - min_rel), unjudged 0",
          "Moffat, ADCS 2013 (C/W/L NDCG-k); cwl_eval NDCGCWLMetric, as ir_measures' cwl_eval provider runs it",
          cutoff="required", params={"max_rel": int, "min_rel": int}, check=_check_rel_range,
          bounded=True),
    ]


def _ideal_rows() -> list[S]:
    """Measures against an ideal ranking: Compat, Accuracy."""
    return [
        S("Compat", "compatibility: rank-biased overlap with the ideal ranking (Clarke et al. 2021)", RANKING_REL,
          "RBO(ranking, ideal, p) over depth max(ret, L), / RBO(ideal, ideal, p) when normalize; ideal = relevant "
          "documents by grade desc, run score desc (0.0 if not ranked), qrels line; p default 0.95",
          "Clarke, Vtyurina & Smucker, TOIS 2021; ir_measures compat_provider.py (compatibility, rbo)",
          params={"p": float, "normalize": bool}, check=_check_persistence,
          bounded=True, reads_ids=True),
        S("Accuracy", "probability that a relevant retrieved document ranks above a non-relevant one",
          RANKING_REL | ABSENT,
          "1 - sum over relevant in the top k of the non-relevant above it / (N_k R_k); undefined when R_k = 0 "
          "(left out of the mean); 1 when N_k = 0 (ir_measures divides by zero there); documents not in the "
          "qrels are non-relevant",
          "ir_measures accuracy_provider.py (AccuracyEvaluator.iter_calc)", cutoff="optional", agg="mean-defined",
          undefined="no relevant document retrieved, within the cut-off if any", only_if=ABSENT_IF,
          bounded=True),
    ]


def _intent_aware_rows() -> list[S]:
    """Intent-aware measures (ndeval): alpha-nDCG, ERR-IA, NRBP, AP-IA, P-IA, subtopic recall."""
    return [
        S("alpha_nDCG", "alpha-nDCG (Clarke et al. 2008): novelty-discounted gain over ndeval's greedy ideal",
          RANKING_REL, _IA + "; alpha-DCG@k = sum_{i<=k} g_i / log2(i + 1), for k >= 2 over sum_{i<=k} "
          "|S| (1 - alpha)^(i-1) / log2(i + 1); over the same of the greedy ideal ranking (highest gain first, ties "
          "to the greatest doc id; not optimal, so a ranking can score above 1); alpha default 0.5",
          _NDEVAL + " l.362-415 idealResult, l.666-713 computeDCG, l.1158-1171 renormalize", cutoff="required",
          params={"alpha": float}, check=_check_alpha_beta, reads_ids=True, subtopics=True),
        S("alpha_DCG", "alpha-DCG (Clarke et al. 2008) with ndeval's collection-independent normalisation",
          RANKING_REL, _IA + "; sum_{i<=k} g_i / log2(i + 1), for k >= 2 over sum_{i<=k} |S| (1 - alpha)^(i-1) / "
          "log2(i + 1) (so alpha_DCG@1 is the number of subtopics of the first document); alpha default 0.5",
          _NDEVAL + " l.660-713 computeDCG", cutoff="required", params={"alpha": float}, check=_check_alpha_beta,
          reads_ids=True, subtopics=True),
        S("ERR_IA", "intent-aware ERR with ndeval's collection-independent normalisation", RANKING_REL,
          _IA + "; sum_{i<=k} g_i / i, for k >= 2 over sum_{i<=k} |S| (1 - alpha)^(i-1) / i (so ERR_IA@1 "
          "is the number of subtopics of the first document); alpha default 0.5 (ndeval's one global alpha)",
          _NDEVAL + " l.607-658 computeERR", cutoff="required", params={"alpha": float}, check=_check_alpha_beta,
          reads_ids=True, subtopics=True),
        S("nERR_IA", "intent-aware ERR over ndeval's greedy ideal (collection-dependent normalisation)", RANKING_REL,
          "ERR_IA@k of the run / ERR_IA@k of the greedy ideal ranking (as for alpha_nDCG); 0 where the run's is 0; "
          "not optimal, so a ranking can score above 1; alpha default 0.5",
          _NDEVAL + " l.362-415 idealResult, l.607-658 computeERR, l.1155-1171 renormalize", cutoff="required",
          params={"alpha": float}, check=_check_alpha_beta, reads_ids=True, subtopics=True),
        S("NRBP", "novelty- and rank-biased precision (Clarke et al. 2009)", RANKING_REL,
          _IA + "; (1 - (1 - alpha) beta) / |S| * sum over the whole ranking of g_i beta^(i-1); alpha, beta "
          "default 0.5", _NDEVAL + " l.542-577 computeNRBP", params={"alpha": float, "beta": float},
          check=_check_alpha_beta, bounded=True, reads_ids=True, subtopics=True),
        S("nNRBP", "NRBP over that of ndeval's greedy ideal ranking (collection-dependent normalisation)",
          RANKING_REL | ABSENT, "NRBP of the run / NRBP of the greedy ideal ranking of every relevant qrels document "
          "(as for alpha_nDCG); alpha, beta default 0.5; no value where the ideal's NRBP is 0 (|S| = 0, or alpha = 0 "
          "with beta = 1), where ndeval divides 0 by 0 (NaN), so a missing topic has none under absent=empty",
          _NDEVAL + " l.362-415 idealResult, l.542-577 computeNRBP, l.1169 renormalize",
          params={"alpha": float, "beta": float}, check=_check_alpha_beta, agg="mean-defined",
          undefined="the ideal ranking's NRBP is 0: no relevant subtopic judgment, or alpha = 0 with beta = 1",
          only_if=ABSENT_IF, reads_ids=True, subtopics=True),
        S("AP_IA", "intent-aware average precision (ndeval's MAP-IA)", RANKING_REL,
          "mean over the subtopics s in S (as for alpha_nDCG) of AP_s = sum over the ranked documents relevant "
          "to s of (documents relevant to s at or above rank i) / i, over R_s (qrels documents relevant to s); "
          "the whole ranking; |S| = 0 scores 0",
          _NDEVAL + " l.494-540 computeMAP", bounded=True, reads_ids=True, subtopics=True),
        S("P_IA", "intent-aware precision at k", RANKING_REL,
          "relevant (document, subtopic) pairs in the top k / (k |S|), S as for alpha_nDCG; |S| = 0 scores 0",
          _NDEVAL + " l.747-774 computePrecision", cutoff="required", bounded=True, ties_effect="set-at-k",
          reads_ids=True, subtopics=True),
        S("StRecall", "subtopic recall: fraction of the subtopics covered by the top k", RANKING_REL,
          "subtopics with a relevant document in the top k / |S|, S as for alpha_nDCG; |S| = 0 scores 0",
          _NDEVAL + " l.715-745 computeSTRecall", cutoff="required", bounded=True, ties_effect="set-at-k",
          reads_ids=True, subtopics=True),
    ]


def _cwl_rows() -> list[S]:
    """C/W/L measures (cwl_eval): NERR8-11, INST, INSQ, BPM."""
    return [
        S("NERR8", "not-quite ERR, eq. 8 (C/W/L): stop at relevance, truncated at k", RANKING,
          "EU = sum W_i g_i, C_i = 1 - g_i for i < k, 0 from k; W over cwl_eval's 1,000 positions", _CWL,
          cutoff="required", params=_CWL_REL, check=_check_rel_range),
        S("NERR9", "not-quite ERR, eq. 9 (C/W/L): rank-decayed stop at relevance, truncated at k", RANKING,
          "EU = sum W_i g_i, C_i = i/(i+1) (1 - g_i) for i < k, 0 from k", _CWL,
          cutoff="required", params=_CWL_REL, check=_check_rel_range),
        S("NERR10", "not-quite ERR, eq. 10 (C/W/L): persistence p times (1 - g_i)", RANKING,
          "EU = sum W_i g_i, C_i = p (1 - g_i), p default 0.9 (cwl_eval's phi; not RBP's rbp_p axis)", _CWL,
          params={**_CWL_REL, "p": float}, check=_check_rel_range),
        S("NERR11", "not-quite ERR, eq. 11 (C/W/L): INSQ-like decay times (1 - g_i)", RANKING,
          "EU = sum W_i g_i, C_i = ((i + 2T - 1)/(i + 2T))^2 (1 - g_i), T default 1", _CWL,
          params={**_CWL_REL, "T": float}, check=_check_rel_range),
        S("INST", "adaptive user model with a gain target T (C/W/L INST)", RANKING,
          "EU = sum W_i g_i, C_i = ((i + T + T_i - 1)/(i + T + T_i))^2, T_i = T - sum_{j<=i} g_j", _CWL,
          params={**_CWL_REL, "T": float}, check=_check_rel_range),
        S("INSQ", "non-adaptive INST (C/W/L INSQ)", RANKING,
          "EU = sum W_i g_i, C_i = ((i + 2T - 1)/(i + 2T))^2", _CWL,
          params={**_CWL_REL, "T": float}, check=_check_rel_range),
        S("BPM", "Bejewelled Player Model, static (C/W/L BPM): stop at gain T or after K items", RANKING,
          "EU = sum W_i g_i, C_i = 1 if g_1 + ... + g_i < T and i < K else 0 (unit costs), T default 1",
          _CWL + "; Zhang et al., SIGIR 2017", cutoff="required", params={**_CWL_REL, "T": float},
          check=_check_rel_range),
    ]


ROWS = [*_count_rows(), *_core_rows(), *_judgment_rows(), *_gain_rows(),
        *_cascade_rows(), *_ideal_rows(), *_intent_aware_rows(), *_cwl_rows()]


# ---------------------------------------------------------------------------------------------
# Preference measures (trec_eval -R prefs / qrels_prefs) and judgment-group measures (-R qrels_jg).
# They read judgments that are no grades (judgment groups, sub-groups, preference levels), so
# they are a table of their own (PREFS_SPECS, not SPECS: no kernel on the graded lists; computed
# by auditeval.engine.evaluate_judgments / the drop-in). Names are trec_eval's. In the formulas,
# per judgment group (jg): ful_ret / poss_ret the preferences A>B with A and B retrieved that the
# run fulfils (A above B) / that exist, ful_imp / poss_imp those with one retrieved (fulfilled
# when A is), notoccur those with neither; ful = ful_ret + ful_imp, poss = poss_ret + poss_imp +
# notoccur, summed over jgs unless "per jg"; R / N the jg's docs of level > 0 / = 0.
PREFS_AXES = frozenset({"ties", "sim", "depth", "topics", "absent"})
JG_AXES = PREFS_AXES | {"rel", "unjudged"}
PREFS_TIES = {"ties": "docno-asc"}  # form_prefs_counts.c:997-1005 comp_sim_docno: strcmp(p1, p2)
JG_TIES = {"ties": "docno-desc"}  # form_res_rels_jg.c:281-290 comp_sim_docno: strcmp(p2, p1)
_PREFS_SRC = ("trec_eval {f} (v9.0.8, v10.0) with form_prefs_counts.c (equivalence classes l.425-537, "
              "preference arrays closed by transitivity l.539-757)")


def _prefs_rows():
    def p(name, doc, formula, agg="mean", fmt="float"):
        return S(name, doc, PREFS_AXES, formula, _PREFS_SRC.format(f=f"m_{name}.c"), agg=agg, fmt=fmt,
                 fixed=PREFS_TIES, trec_names=((name, None),), only_if={"absent": "topics=qrels"})

    def j(name, doc, formula, **kw):
        return S(name, doc, JG_AXES, formula, f"trec_eval m_{name}.c (v9.0.8, v10.0) with form_res_rels_jg.c",
                 fixed=JG_TIES, trec_names=((name, None),), only_if={"absent": "topics=qrels"}, **kw)

    return [
        p("prefs_num_prefs_poss", "preferences possible, retrieved or not", "poss, summed over topics", "sum", "int"),
        p("prefs_num_prefs_ful", "preferences fulfilled (implied ones too)", "ful, summed over topics", "sum", "int"),
        p("prefs_num_prefs_ful_ret", "preferences fulfilled among retrieved docs", "ful_ret, summed over topics",
          "sum", "int"),
        p("prefs_simp", "preferences fulfilled / possible", "ful / poss (0 when poss = 0)"),
        p("prefs_pair", "mean over doc pairs of the fraction of jgs the run agrees with",
          "sum_{pairs, one retrieved} c_ij / (c_ij + c_ji) / |pairs with a preference| (c: jgs preferring i to j)"),
        p("prefs_avgjg", "prefs_simp per jg, averaged over jgs", "sum_jg ful/poss / |jgs| (0 unless the sum > 0)"),
        p("prefs_avgjg_Rnonrel", "prefs_avgjg with each jg's nonrelevant docs set to R",
          "per jg: R >= N: (ful + relret (R - N)) / (poss + R (R - N)); else recounted on the first R nonrelevant "
          "docs (m_prefs_avgjg_Rnonrel.c:104-230)"),
        p("prefs_simp_ret", "prefs_simp among retrieved docs", "ful_ret / poss_ret"),
        p("prefs_pair_ret", "prefs_pair among retrieved docs", "as prefs_pair over pairs both retrieved"),
        p("prefs_avgjg_ret", "prefs_avgjg among retrieved docs", "sum_jg ful_ret/poss_ret / |jgs|"),
        p("prefs_avgjg_Rnonrel_ret", "prefs_avgjg_Rnonrel among retrieved docs",
          "per jg with R = relret, N = nonrelret: (ful_ret + relret (R - N)) / (poss_ret + R_all (R - N)), or "
          "recounted"),
        p("prefs_simp_imp", "prefs_simp ignoring pairs neither retrieved", "(ful_ret + ful_imp) / (poss_ret + poss_imp)"),
        p("prefs_pair_imp", "prefs_pair ignoring pairs neither retrieved", "as prefs_pair without pairs neither retrieved"),
        p("prefs_avgjg_imp", "prefs_avgjg ignoring pairs neither retrieved",
          "sum_jg (ful_ret + ful_imp)/(poss_ret + poss_imp) / |jgs|"),
        j("map_avgjg", "AP per judgment group, averaged over groups",
          "sum_jg AP_jg / |jgs| (divided only when |jgs| > 1)"),
        j("P_avgjg", "P@k per judgment group, averaged over groups", "sum_jg relret_jg(k) / k / |jgs|",
          cutoff="required"),
        j("Rprec_mult_avgjg", "precision at (long)(x R + 0.9) per judgment group, averaged over groups",
          "sum_jg P_jg@((long)(x R_jg + 0.9)) / |jgs|", cutoff="required", cutoff_type=float),
    ]


PREFS_ROWS = _prefs_rows()
PREFS_SPECS = {s.name: s for s in PREFS_ROWS}
