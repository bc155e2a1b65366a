"""trec_eval 8.x's measures (every one ``-a`` and ``-T`` print: about 135 per topic), computed as
8.1's trvec_teval.c computes them, in C float.

8.x fills one TREC_EVAL struct per topic (8.1 trec_eval.h:200-370) in a few loops over the
ranked documents, storing every value in a C ``float``; the expressions are modelled with
:mod:`auditeval.engine.c_float` (``(float) a / (float) b``, ``float += double``). The loops are
arrays here: the quantities at every rank (precision, recall, the counters) are cumulative
sums, a value stored at a rank is an index, and a float accumulated in the loop is a sequential
float32 sum of the terms in the loop's order (``np.cumsum``: the C order kept, as the printed
digits depend on it). Per topic (:func:`trec8_topic`) the parts are :mod:`.ranks` (cut-off,
average and exact measures), :mod:`.bpref` (the bpref family and infAP: their terms are
doubles, the one loop, over the relevant documents only) and :mod:`.timing` (``-T``);
:mod:`.summary` sums the topics and gives the printed values. A per-topic loop remains over the
topics: each topic's sums run in its own order over its own length (a padded topic matrix
would cost its longest topic for every one).

The input is 8.x's tr_vec of a topic (form_trvec.c, the drop-in builds it): the relevance value
of each ranked document in rank order (-1 not in the qrels; 8.1: -2 a qrels grade -1), its float
score, the topic's qrels lines with grade >= level (R) and the others. Every rank-based count
asks ``rel >= level`` of those codes at any level: below 0 the codes -1 and -2 (and any
negative grade) count from their own level on, the 8.x rule for ``-l`` below 0.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.trec8.bpref import bpref_measures
from auditeval.engine.trec8.fields import Trec8Params, new_eval
from auditeval.engine.trec8.ranks import Steps, average_measures, cutoff_measures, exact_measures
from auditeval.engine.trec8.summary import trec8_accumulate, trec8_printed
from auditeval.engine.trec8.timing import time_measures

__all__ = ["Trec8Params", "trec8_accumulate", "trec8_printed", "trec8_topic"]


def trec8_topic(params: Trec8Params, rels: np.ndarray, sims: np.ndarray, num_rel: int, num_nonrel: int) -> dict:
    """trvec_teval.c:32-95 ``trvec_trec_eval`` of one topic: every TREC_EVAL field (longs as
    int, floats as the float values they store, arrays as lists). No document: every value 0
    (trvec_teval.c:52-54)."""
    ev = new_eval()
    rels = np.asarray(rels, dtype=np.int64)
    if not len(rels):
        return ev
    rel = rels >= params.relevance_level
    ev["num_rel"], ev["num_ret"], ev["num_rel_ret"] = int(num_rel), len(rels), int(rel.sum())
    steps = Steps(rel, int(num_rel))
    cutoff_measures(steps, ev)
    bpref_measures(params, rels, ev, int(num_nonrel))
    average_measures(steps, ev)
    exact_measures(params, ev)
    if params.time_flag:
        time_measures(params, rel, np.asarray(sims, dtype=np.float64), ev)
    return ev
