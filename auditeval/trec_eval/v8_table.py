"""trec_eval 8.x's measure table as it prints it (measures.c:82-273) and print_meas.c:79-205
``print_rel_trec_eval_list``: names, which are printed when, in which order. The values come
from the engine (:func:`auditeval.engine.trec8_topic`, :func:`auditeval.engine.trec8_printed`),
already averaged; this module only formats them.
"""

from __future__ import annotations

from auditeval.trec_eval.format import c_float

CUTOFF = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # trec_eval.h:160
MAX_FALL_RET = 142  # trec_eval.h:165

# measures.c:82-190 sing_meas: (name, field, is_long, short, time, only_query, only_average);
# 8.0 has neither num_nonrel_judged_ret nor infAP
SING = (
    ("num_ret", "num_ret", 1, 1, 0, 0, 0),
    ("num_rel", "num_rel", 1, 1, 0, 0, 0),
    ("num_rel_ret", "num_rel_ret", 1, 1, 0, 0, 0),
    ("map", "av_recall_precis", 0, 1, 0, 0, 0),
    ("gm_ap", "gm_ap", 0, 1, 0, 0, 1),
    ("R-prec", "R_recall_precis", 0, 1, 0, 0, 0),
    ("bpref", "bpref", 0, 1, 0, 0, 0),
    ("recip_rank", "recip_rank", 0, 1, 0, 0, 0),
    ("num_nonrel_judged_ret", "num_nonrel_judged_ret", 1, 0, 0, 0, 0),
    ("exact_prec", "exact_precis", 0, 0, 0, 0, 0),
    ("exact_recall", "exact_recall", 0, 0, 0, 0, 0),
    ("11-pt_avg", "int_av11_recall_precis", 0, 0, 0, 0, 0),
    ("3-pt_avg", "int_av3_recall_precis", 0, 0, 0, 0, 0),
    ("avg_doc_prec", "avg_doc_prec", 0, 0, 0, 0, 0),
    ("exact_relative_prec", "exact_rel_precis", 0, 0, 0, 0, 0),
    ("avg_relative_prec", "av_rel_precis", 0, 0, 0, 0, 0),
    ("exact_unranked_avg_prec", "exact_uap", 0, 0, 0, 0, 0),
    ("exact_relative_unranked_avg_prec", "exact_rel_uap", 0, 0, 0, 0, 0),
    ("map_at_R", "av_R_precis", 0, 0, 0, 0, 0),
    ("int_map", "int_av_recall_precis", 0, 0, 0, 0, 0),
    ("exact_int_R_rcl_prec", "int_R_recall_precis", 0, 0, 0, 0, 0),
    ("int_map_at_R", "int_av_R_precis", 0, 0, 0, 0, 0),
    ("time_integral_prec", "av_time_precis", 0, 0, 1, 0, 0),
    ("time_integral_relative_prec", "av_time_relprecis", 0, 0, 1, 0, 0),
    ("time_integral_uap", "av_time_uap", 0, 0, 1, 0, 0),
    ("time_integral_relative_uap", "av_time_reluap", 0, 0, 1, 0, 0),
    ("time_integral_cum_rel", "av_time_cum_rel", 0, 0, 1, 0, 0),
    *((n, n, 0, 0, 0, 0, 0) for n in (
        "bpref_allnonrel", "bpref_retnonrel", "bpref_topnonrel", "bpref_top5Rnonrel",
        "bpref_top10Rnonrel", "bpref_top10pRnonrel", "bpref_top25pRnonrel", "bpref_top50pRnonrel",
        "bpref_top25p2Rnonrel", "bpref_retall", "bpref_5", "bpref_10", "bpref_num_all",
        "bpref_num_ret")),
    ("bpref_num_correct", "bpref_num_correct", 1, 0, 0, 0, 0),
    ("bpref_num_possible", "bpref_num_possible", 1, 0, 0, 0, 0),
    ("old_bpref", "old_bpref", 0, 0, 0, 0, 0),
    ("old_bpref_top10pRnonrel", "old_bpref_top10pRnonrel", 0, 0, 0, 0, 0),
    ("infAP", "inf_ap", 0, 0, 0, 0, 0),
    ("gm_bpref", "gm_bpref", 0, 0, 0, 0, 1),
    ("rank_first_rel", "rank_first_rel", 1, 0, 0, 1, 0),
)
ONLY_81 = ("num_nonrel_judged_ret", "infAP")

# the parameter texts measures.c builds (8.x computes them in float; these are the same digits)
_IRCL = tuple(f"{i / 10:4.2f}" for i in range(11))
_RCUT = tuple(f"{(i + 1) / 5:4.2f}" for i in range(10))  # MAX_RPREC * (i + 1) / 10
_TCUT = tuple(str(i * 5) for i in range(60))  # i * MAX_TIME / NUM_TIME_PTS
_FALL = tuple(str(MAX_FALL_RET * i // 10) for i in range(11))


def _util(u: tuple[float, ...]) -> str:
    return "_".join(f"{x:3.1f}" for x in u)


# measures.c:192-262 param_meas: (name format, field, parameter texts or None for utility's,
# short, time); "time_precis_%s" is listed twice (and printed twice)
PARAM = (
    ("ircl_prn.{}", "int_recall_precis", _IRCL, 1, 0),
    ("P{}", "precis_cut", tuple(map(str, CUTOFF)), 1, 0),
    ("recall{}", "recall_cut", tuple(map(str, CUTOFF)), 0, 0),
    ("{}R-prec", "R_prec_cut", _RCUT, 0, 0),
    ("relative_prec{}", "rel_precis_cut", tuple(map(str, CUTOFF)), 0, 0),
    ("unranked_avg_prec{}", "uap_cut", tuple(map(str, CUTOFF)), 0, 0),
    ("relative_unranked_avg_prec{}", "rel_uap_cut", tuple(map(str, CUTOFF)), 0, 0),
    ("utility_{}", "exact_utility", None, 0, 0),
    ("rcl_at_{}_nonrel", "av_fall_recall", (str(MAX_FALL_RET),), 0, 0),
    ("fallout_recall_{}", "fall_recall", _FALL, 0, 0),
    ("int_{}R-prec", "int_R_prec_cut", _RCUT, 0, 0),
    ("time_integral_utility_{}", "av_time_utility", None, 0, 1),
    ("time_num_rel_{}", "time_num_rel", _TCUT, 0, 1),
    ("time_num_nonrel_{}", "time_num_nrel", _TCUT, 0, 1),
    ("time_cum_rel_{}", "time_cum_rel", _TCUT, 0, 1),
    ("time_precis_{}", "time_precis", _TCUT, 0, 1),
    ("time_precis_{}", "time_precis", _TCUT, 0, 1),
    ("time_relative_precis_{}", "time_relprecis", _TCUT, 0, 1),
    ("time_uap_{}", "time_uap", _TCUT, 0, 1),
    ("time_relative_uap_{}", "time_reluap", _TCUT, 0, 1),
    ("time_utility_{}", "time_utility", "time", 0, 1),
)
MICRO = ("micro_prec", "micro_recall", "micro_bpref")  # measures.c:266-273, summary only


def _params(texts, utility: tuple[float, ...]) -> tuple[str, ...]:
    if texts is None:
        return (_util(utility),)
    if texts == "time":
        return tuple(f"{_util(utility)}-{t}" for t in _TCUT)
    return texts


def print_rel(vals: dict, qid: str | None, *, version: str, all_flag: bool, time_flag: bool,
              utility: tuple[float, ...], num_queries: int = 1) -> str:
    """print_meas.c:79-205 of one topic (``qid``) or of the summary (``qid`` None: ``num_q``
    first, the micro measures last); ``vals`` the printed values (field -> value)."""
    single = qid is not None
    q = qid if single else "all"
    out = [] if single else [f"{'num_q':<15}\t{q}\t{num_queries}\n"]
    for name, f, is_long, short, time, only_q, only_avg in SING:
        if (version != "8.1" and name in ONLY_81) or (not short and not all_flag) or (time and not time_flag) \
                or (only_q and not single) or (only_avg and single):
            continue
        out.append(f"{name:<15}\t{q}\t{vals[f] if is_long else c_float(vals[f])}\n")
    for fmt, f, texts, short, time in PARAM:
        if (not short and not all_flag) or (time and not time_flag):
            continue
        v = vals[f] if isinstance(vals[f], list) else [vals[f]]
        for text, x in zip(_params(texts, utility), v, strict=False):
            out.append(f"{fmt.format(text):<15}\t{q}\t{c_float(x)}\n")
    if not single and all_flag:
        out.extend(f"{name:<15}\t{q}\t{c_float(vals[name])}\n" for name in MICRO)
    return "".join(out)
