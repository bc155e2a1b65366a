"""User-model measures: ERR (Chapelle, Metzler, Zhang & Grinspan, CIKM 2009) and SDCG.

* ``ERR[@k]`` = sum over ranks i (<= k) of R_i / i * prod_{j < i} (1 - R_j), with the
  stopping probability R = (2^grade - 1) / 2^max_grade of a judged document (0 for grades
  <= 0 and documents not in the qrels). ``max_grade`` defaults to 4, the constant
  ``$MAX_JUDGMENT`` of the TREC Web track's ``gdeval.pl`` (version 1.2a), which ir_measures'
  gdeval provider runs for ``ERR@k``; a grade above ``max_grade`` is an error there and here.

* ``SDCG@k`` (scaled DCG, the C/W/L framework's NDCG-k: Moffat 2013; cwl_eval's
  ``NDCGCWLMetric``) = sum_{i <= k} g_i / log2(i + 1) / sum_{i <= k} 1 / log2(i + 1), with
  g = (clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel) for judged documents and
  0 for the others (cwl_eval's "worse case"); ``max_rel`` is required, ``min_rel`` defaults
  to 0, as ir_measures' SDCG.

The spec rows (name, parameters, axes, source) is in :mod:`auditeval.vocab.spec_table`. The sum
and the product run in rank order per topic, over the documents with R > 0 only
(the others add 0 and multiply by 1), position by position across all topics at once.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.measures.base import MeasureFn
from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.measure import Measure

DEFAULT_MAX_GRADE = 4  # gdeval.pl $MAX_JUDGMENT


def err(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = None if m.cutoff is None else int(m.cutoff)
    max_grade = int(m.param("max_grade", DEFAULT_MAX_GRADE))
    rows, t, r = p.rows_where(p.grade > 0, k)
    g = p.grade[rows]
    if len(g) and int(g.max()) > max_grade:
        raise EvaluationError(f"ERR: grade {int(g.max())} above max_grade={max_grade} (give ERR(max_grade=N))")
    # (2^g - 1) / 2^max_grade written as 2^(g - max_grade) - 2^-max_grade: the same real number,
    # rounded once either way, and no overflow for a max_grade beyond 1023 (2.0**2e9 raises)
    with np.errstate(under="ignore"):
        stop = np.exp2((g - max_grade).astype(np.float64)) - np.exp2(-float(max_grade))
    # position of each row among its topic's R > 0 rows (rows are grouped by topic, rank order)
    first = np.searchsorted(t, t, side="left")
    pos = np.arange(len(t)) - first
    contrib = np.empty(len(t))
    decay = np.ones(p.n_topics)
    order = np.argsort(pos, kind="stable")  # rows grouped by position; one row per topic each
    bounds = np.searchsorted(pos[order], np.arange(int(pos.max()) + 2 if len(pos) else 1))
    for lo, hi in zip(bounds[:-1], bounds[1:], strict=True):
        at = order[lo:hi]
        tj = t[at]
        contrib[at] = stop[at] * decay[tj] / r[at]
        decay[tj] *= 1.0 - stop[at]
    return np.bincount(t, weights=contrib, minlength=p.n_topics)


def sdcg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = int(m.cutoff)
    lo, hi = int(m.param("min_rel", 0)), int(m.param("max_rel"))
    rows, t, r = p.rows_where(p.grade > lo, k)  # grade <= min_rel (and unjudged) gains 0
    g = (np.minimum(p.grade[rows].astype(np.int64), hi) - lo) / float(hi - lo)  # int32 grades: no overflow
    dcg = np.bincount(t, weights=g / np.log2(r + 1.0), minlength=p.n_topics)
    return dcg / float(np.sum(1.0 / np.log2(np.arange(2, k + 2, dtype=np.float64))))


KERNELS: dict[str, MeasureFn] = {"ERR": err, "SDCG": sdcg}
