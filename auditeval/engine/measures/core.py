"""Core measures: counts, P, R, AP, GMAP, RR, Rprec, Success, nDCG.

Formulas and trec_eval sources (``m_*.c`` at tags v9.0.8 and v10.0):

* ``NumRet[@k]`` = documents in the ranking after depth/-J (m_num_ret.c), at most k; summed over topics.
* ``NumRel`` = R, judged documents with grade >= rel (m_num_rel.c); summed.
* ``NumRelRet[@k]`` = relevant documents retrieved (m_num_rel_ret.c), in the top k; summed.
* ``Hits[@k]`` = relevant documents in the top k (ranx metrics/hits.py), averaged over topics.
* ``DCG[@k]`` = sum over ranks i <= k of gain_i / log2(i + 1), gain as nDCG's, no ideal
  ranking (Jarvelin & Kekalainen 2002 with ``gain=linear``, ranx ``dcg``; Burges et al. 2005
  with ``gain=exp2``, ranx ``dcg_burges``).
* ``P@k`` = |relevant in top k| / k, k fixed even when fewer were retrieved (m_P.c:76-79).
* ``R@k`` = |relevant in top k| / R (m_recall.c); ``recall_denom=min-R-k`` divides by min(R, k).
* ``AP[@k]`` = sum over relevant ranks i <= k of P@i, divided by R (m_map.c, m_map_cut.c);
  ``ap_denom`` may make that min(R, k) or the relevant documents retrieved.
* ``GMAP`` = exp(mean(log(max(AP, gm_floor)))) over topics (m_gm_map.c:58-62).
* ``RR[@k]`` = 1 / rank of the first relevant document (within k) (m_recip_rank.c).
* ``Rprec`` = |relevant in top R| / R (m_Rprec.c).
* ``Success@k`` = 1 if a relevant document is in the top k (m_success.c).
* ``nDCG[@k]`` = DCG / ideal DCG with DCG = sum gain_i / log2(i + 1) over ranks i; gain =
  grade (``gain=linear``) or 2^grade - 1 (``gain=exp2``) or a ``gains={grade:gain}`` map
  (levels not in the map keep gain = grade, as trec_eval's ``-m ndcg.L=G``); the ideal
  ranking holds every judged document of the topic, cut at k for ``@k``, untouched by
  depth (m_ndcg.c, m_ndcg_cut.c; trec_eval's ``ndcg`` ignores ``-l``).
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.measures.base import MeasureFn, counted_over, safe_div
from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure


def num_q(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return np.ones(p.n_topics)


def num_ret(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    n = p.num_ret
    return (n if m.cutoff is None else np.minimum(n, int(m.cutoff))).astype(np.float64)


def num_rel(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return p.num_rel(c.rel).astype(np.float64)


def num_rel_ret(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """Relevant retrieved (in the top k): NumRelRet (summed) and Hits (averaged). Judged
    documents only, as trec_eval's ``num_rel_ret`` (form_res_rels.c), also under a ``rel``
    below 0 (where P, AP, ... count unjudged ones: :meth:`Prepared.rel_mask`)."""
    mask = p.judged_rel_mask(c.rel)
    if m.cutoff is None:
        return p.seg_count(mask).astype(np.float64)
    _, t, _ = p.rows_where(mask, int(m.cutoff))
    return _hits(p, t).astype(np.float64)


def _relevant(p: Prepared, c: Convention, k: int | None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(rows, topic, rank) of the relevant ranked rows (within the top k): the sparse form.

    Sums over them equal the dense per-row sums exactly (zeros skipped, order kept)."""
    return p.rows_where(p.rel_mask(c.rel), k)


def _hits(p: Prepared, topic: np.ndarray) -> np.ndarray:
    return np.bincount(topic, minlength=p.n_topics).astype(np.int64)


def precision(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = int(m.cutoff)
    _, t, _ = _relevant(p, c, k)
    return _hits(p, t) / float(k)


def recall(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    _, t, _ = _relevant(p, c, None if m.cutoff is None else int(m.cutoff))
    hits = _hits(p, t)
    big_r = p.num_rel(c.rel)
    if c.recall_denom == "min-R-k" and m.cutoff is not None:
        big_r = np.minimum(big_r, int(m.cutoff))
    return safe_div(hits, big_r)


def _ap_parts(p: Prepared, c: Convention, k: int | None) -> tuple[np.ndarray, np.ndarray]:
    """Per topic: sum of P@i over relevant ranks i (<= k), and the relevant retrieved."""
    _, t, r = _relevant(p, c, k)
    cum = np.arange(1, len(t) + 1) - np.searchsorted(t, t, side="left")  # running count in topic
    return np.bincount(t, weights=cum / r, minlength=p.n_topics), _hits(p, t)


def ap_denominator(big_r: np.ndarray, rel_ret: np.ndarray, k: int | None, c: Convention) -> np.ndarray:
    """AP's divisor under ``ap_denom``: R (trec_eval m_map.c), min(R, k) with a cut-off
    ("MAP@k" code), or the relevant documents retrieved (cwl_eval)."""
    if c.ap_denom == "min-R-k" and k is not None:
        return np.minimum(big_r, k)
    if c.ap_denom == "rel-ret":
        return rel_ret
    return big_r


def average_precision(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = None if m.cutoff is None else int(m.cutoff)
    total, rel_ret = _ap_parts(p, c, k)
    den = ap_denominator(p.num_rel(c.rel), rel_ret, k, c)
    if c.rel < 0 and k is None:
        return counted_over(total, rel_ret, den)
    return safe_div(total, den)



def reciprocal_rank(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    _, t, r = _relevant(p, c, None if m.cutoff is None else int(m.cutoff))
    first = np.ones(len(t), bool)
    first[1:] = t[1:] != t[:-1]
    return np.bincount(t[first], weights=1.0 / r[first], minlength=p.n_topics)


def r_precision(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    big_r = p.num_rel(c.rel)
    _, t, r = _relevant(p, c, None)
    hits = _hits(p, t[r <= big_r[t]])
    return safe_div(hits, big_r)


def success(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    _, t, _ = _relevant(p, c, int(m.cutoff))
    return (_hits(p, t) > 0).astype(np.float64)


# ----------------------------------------------------------------------------- nDCG
def gain_of(grades: np.ndarray, m: Measure, c: Convention) -> np.ndarray:
    """Gain per grade under the ``gain`` axis or a custom ``gains`` map; < 0 grades gain 0."""
    g = grades.astype(np.float64)
    custom = m.param("gains")
    if custom:
        out = np.where(grades >= 0, g, 0.0)
        for level, value in custom:
            # grades < 0 here are sentinels (not in the qrels / pooled-unjudged), never a level
            out = np.where((grades == level) & (grades >= 0), float(value), out)
        return out
    if c.gain == "exp2":
        return np.where(grades > 0, np.exp2(g) - 1.0, 0.0)
    return np.where(grades > 0, g, 0.0)


def dcg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """Unnormalised DCG (through k): sum of gain_i / log2(i + 1) over the judged ranked rows."""
    k = None if m.cutoff is None else int(m.cutoff)
    rows, t, r = p.rows_where(p.grade >= 0, k)  # only judged rows can have a gain (gain_of)
    gains = gain_of(p.grade[rows], m, c)
    disc = 1.0 / np.log2(r + 1.0)
    return np.bincount(t, weights=gains * disc, minlength=p.n_topics)


def ndcg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = None if m.cutoff is None else int(m.cutoff)
    dcg_ = dcg(p, m, c)
    idcg = _ideal_dcg(p, m, c, k)
    return safe_div(dcg_, np.where(idcg > 0, idcg, 0.0))


def _ideal_dcg(p: Prepared, m: Measure, c: Convention, k: int | None) -> np.ndarray:
    """Ideal DCG per topic (through k): judged documents by gain descending, trec_eval's
    level walk under ``ideal_sort``; depends on the qrels side only (``p.qmemo``)."""

    def compute() -> np.ndarray:
        from auditeval.engine.measures.trec_gain import ideal_gains

        qg, _ = ideal_gains(p, m, c)
        qrank = np.arange(len(qg)) - p.qoffsets[p.qrow_topic] + 1
        icontrib = np.where(qg > 0, qg / np.log2(qrank + 1.0), 0.0)
        if k is not None:
            icontrib = np.where(qrank <= k, icontrib, 0.0)
        return p.seg_sum(icontrib, rows="qrels")

    return p.qmemo(("ndcg_idcg", k, m.param("gains"), c.gain, c.ideal_sort), compute)


KERNELS: dict[str, MeasureFn] = {
    "NumQ": num_q,
    "NumRet": num_ret,
    "NumRel": num_rel,
    "NumRelRet": num_rel_ret,
    "Hits": num_rel_ret,
    "DCG": dcg,
    "P": precision,
    "R": recall,
    "AP": average_precision,
    "GMAP": average_precision,
    "RR": reciprocal_rank,
    "Rprec": r_precision,
    "Success": success,
    "nDCG": ndcg,
}
