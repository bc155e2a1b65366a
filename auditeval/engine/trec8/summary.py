"""trec_eval 8.x's values as printed: one topic's, and the summary over the topics (print_meas.c
26-75 accumulate_results, 79-205 print_rel_trec_eval_list).

The summary sums each field over the topics that retrieved something, in topic order: long
fields as long, float fields ``float += float`` (:func:`seq_sum` down the topic axis: every
field of every topic at once), time_precis twice per topic (measures.c lists it twice). Printed:
averaged fields ``/ num_queries`` in float, avg_doc_prec ``/ num_rel``, the geometric means
``(float) exp(sum / num_queries)`` of the per-topic logs (``-c``: plus ``log(MIN_GEO_MEAN)``
for each qrels topic not summed), and the micro averages ``(float) a / (float) b`` of two sums.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.c_float import MIN_GEO_MEAN, c_float_gmean, fdiv, fdiv_arr, seq_sum
from auditeval.engine.trec8.fields import (
    ARRAYS,
    AVERAGED,
    GEOMETRIC,
    LONGS,
    MICRO,
    PARAM_SCALARS,
    PER_REL,
    TWICE,
    new_eval,
)

_F = np.float32


def trec8_accumulate(evals: list[dict]) -> tuple[dict, int]:
    """The summed TREC_EVAL of the topics with ``num_ret > 0`` and how many they are."""
    counted = [ev for ev in evals if ev["num_ret"] > 0]
    acc = new_eval()
    if not counted:
        return acc, 0
    for f in LONGS:
        acc[f] = sum(int(ev[f]) for ev in counted)
    floats = (*AVERAGED, *PER_REL, *GEOMETRIC, *PARAM_SCALARS)
    col = np.array([[ev[f] for f in floats] for ev in counted], dtype=np.float64).astype(_F)
    acc.update(zip(floats, seq_sum(col, axis=0).astype(np.float64).tolist(), strict=True))
    for f in ARRAYS:
        arr = np.array([ev[f] for ev in counted], dtype=np.float64).astype(_F)
        if f in TWICE:
            arr = np.repeat(arr, 2, axis=0)
        acc[f] = seq_sum(arr, axis=0).astype(np.float64).tolist()
    return acc, len(counted)


def trec8_printed(ev: dict, num_queries: int = 1, summary: dict | None = None) -> dict:
    """The value 8.x prints for every field of ``ev`` (one topic's: ``num_queries`` 1, or the
    summed one of :func:`trec8_accumulate`); ``summary`` = ``{"summed": n, "complete": bool}``
    for the summary, which also gets the geometric and micro means."""
    out: dict = {f: int(ev[f]) for f in LONGS}
    for f in (*AVERAGED, *PARAM_SCALARS):
        out[f] = fdiv(ev[f], num_queries)
    for f in PER_REL:
        out[f] = fdiv(ev[f], ev["num_rel"]) if ev["num_rel"] > 0 else ev[f]
    for f in ARRAYS:
        out[f] = fdiv_arr(np.asarray(ev[f], dtype=np.float64), num_queries).astype(np.float64).tolist()
    for f in GEOMETRIC:
        out[f] = ev[f]
    if summary is not None:
        missing = num_queries - summary["summed"] if summary["complete"] else 0
        for f in GEOMETRIC:
            out[f] = c_float_gmean(ev[f], num_queries, missing, MIN_GEO_MEAN)
        for f, (a, b) in MICRO.items():
            out[f] = fdiv(ev[a], ev[b])
    return out
