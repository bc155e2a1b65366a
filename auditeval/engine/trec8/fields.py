"""trec_eval 8.x's TREC_EVAL struct (8.1 trec_eval.h:200-370): its fields, constants and how
each field is averaged over topics (measures.c:82-273's avg_results / avg_rel_results /
gm_results columns). The names 8.x prints for the fields are the drop-in's
(:mod:`auditeval.trec_eval.v8_table`).

Constants (trec_eval.h:158-193, 8.1): cut-offs 5 .. 1000, MAX_FALL_RET 142, MAX_RPREC 2.0,
MAX_TIME 300, NUM_TIME_PTS 60, PREF_TOP_NONREL_NUM 100, the three points {2, 5, 8}, 11 recall /
fallout / R-multiple points, INFAP_EPSILON (8.1 only).
"""

from __future__ import annotations

from dataclasses import dataclass

CUTOFF = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval.h:160
MAX_FALL_RET = 142  # trec_eval.h:165
MAX_RPREC = 2.0  # trec_eval.h:169
MAX_TIME = 300.0  # trec_eval.h:171
NUM_TIME_PTS = 60  # trec_eval.h:172
PREF_TOP_NONREL_NUM = 100  # trec_eval.h:175
NUM_RP_PTS = NUM_FR_PTS = NUM_PREC_PTS = 11  # trec_eval.h:181-185
THREE_PTS = (2, 5, 8)
INFAP_EPSILON = 0.00001  # 8.1 trec_eval.h:192


@dataclass(frozen=True, kw_only=True)
class Trec8Params:
    """8.1 trec_eval.h:5-31 EVAL_PARAM_INFO: the flags the measures read (``-l``, ``-T``,
    ``-U``, ``-N``) and the release (8.0's bpref and infAP differ)."""

    version: str = "8.1"
    relevance_level: int = 1
    time_flag: bool = False
    utility: tuple[float, float, float, float] = (1.0, -1.0, 0.0, 0.0)
    num_docs_in_coll: int = 0


# the long fields (summed as long, printed as %ld)
LONGS = ("num_ret", "num_rel", "num_rel_ret", "num_nonrel_judged_ret", "bpref_num_correct",
         "bpref_num_possible", "rank_first_rel")
# float fields divided by the number of topics in the summary (avg_results)
BPREFS = ("bpref_allnonrel", "bpref_retnonrel", "bpref_topnonrel", "bpref_top5Rnonrel", "bpref_top10Rnonrel",
          "bpref_top10pRnonrel", "bpref_top25pRnonrel", "bpref_top50pRnonrel", "bpref_top25p2Rnonrel",
          "bpref_retall", "bpref_5", "bpref_10", "bpref_num_all", "bpref_num_ret")
AVERAGED = ("av_recall_precis", "R_recall_precis", "bpref", "recip_rank", "exact_precis", "exact_recall",
            "int_av11_recall_precis", "int_av3_recall_precis", "exact_rel_precis", "av_rel_precis",
            "exact_uap", "exact_rel_uap", "av_R_precis", "int_av_recall_precis", "int_R_recall_precis",
            "int_av_R_precis", "av_time_precis", "av_time_relprecis", "av_time_uap", "av_time_reluap",
            "av_time_cum_rel", *BPREFS, "old_bpref", "old_bpref_top10pRnonrel", "inf_ap")
PER_REL = ("avg_doc_prec",)  # avg_rel_results: divided by num_rel (the summed one in the summary)
GEOMETRIC = ("gm_ap", "gm_bpref")  # gm_results: per-topic logs, exp of their mean
# the array fields and their lengths (R_prec_cut and int_R_prec_cut hold 11, 10 printed)
ARRAYS = {"int_recall_precis": NUM_RP_PTS, "precis_cut": len(CUTOFF), "recall_cut": len(CUTOFF),
          "R_prec_cut": NUM_PREC_PTS, "rel_precis_cut": len(CUTOFF), "uap_cut": len(CUTOFF),
          "rel_uap_cut": len(CUTOFF), "fall_recall": NUM_FR_PTS, "int_R_prec_cut": NUM_PREC_PTS,
          "time_num_rel": NUM_TIME_PTS, "time_num_nrel": NUM_TIME_PTS, "time_cum_rel": NUM_TIME_PTS,
          "time_precis": NUM_TIME_PTS, "time_relprecis": NUM_TIME_PTS, "time_uap": NUM_TIME_PTS,
          "time_reluap": NUM_TIME_PTS, "time_utility": NUM_TIME_PTS}
# float scalars of param_meas (averaged over topics)
PARAM_SCALARS = ("exact_utility", "av_fall_recall", "av_time_utility")
# measures.c:243-250 lists time_precis twice: accumulate_results adds it twice per topic
TWICE = ("time_precis",)
# measures.c:266-273 micro_meas: field -> (numerator, denominator), summary only
MICRO = {"micro_prec": ("num_rel_ret", "num_ret"), "micro_recall": ("num_rel_ret", "num_rel"),
         "micro_bpref": ("bpref_num_correct", "bpref_num_possible")}
FLOATS = (*AVERAGED, *PER_REL, *GEOMETRIC, *PARAM_SCALARS)


def new_eval() -> dict:
    """A zeroed TREC_EVAL (trvec_teval.c:45 ``bzero``): longs 0, floats 0.0, arrays of 0.0."""
    ev: dict = dict.fromkeys(LONGS, 0)
    ev.update(dict.fromkeys(FLOATS, 0.0))
    for f, n in ARRAYS.items():
        ev[f] = [0.0] * n
    return ev
