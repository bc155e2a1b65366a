"""Measures that compare the ranking with an ideal one: Compat and Accuracy.

* ``Compat(p=0.95, normalize=True)`` -- compatibility (Clarke, Vtyurina & Smucker, TOIS 2021):
  rank-biased overlap of the ranking with the ideal ranking, as ir_measures' compat provider
  (``compat_provider.py``, ``rbo`` and ``compatibility``) computes it. The ideal ranking holds
  the topic's relevant documents (grade >= rel; the provider's ``qrels > 0``) by grade
  descending, then run score descending (0.0 for a document not ranked), then qrels line
  (:meth:`~auditeval.engine.ranked_lists.Origin.ideal_rank`). With depth D = max(ret, L), L the
  relevant documents, weights w_i = p^i (i = 0 .. D-1)::

      RBO = sum_{d=1..D} w_{d-1} |ranking[:d] & ideal[:d]| / d  /  sum_{d=1..D} w_{d-1}

  A relevant document x retrieved at rank r_x with ideal rank i_x is in both prefixes from
  d = m_x = max(r_x, i_x) on, so the numerator is sum_x (S(D) - S(m_x - 1)) with
  S(d) = sum_{j<=d} w_{j-1} / j: one term per retrieved relevant document instead of a pass
  over every depth. ``normalize`` divides by the ideal ranking's own RBO,
  W(L) + L (S(D) - S(L)) over the same sum of weights, W(d) = sum_{j<d} w_j (when that is
  0, i.e. L = 0, the value stays the unnormalised 0). Weights are the provider's repeated
  products ``weight *= p`` (``np.cumprod``), so per-topic values agree to rounding (~1e-16).

* ``Accuracy[@k]`` -- the probability that a relevant retrieved document is ranked above a
  non-relevant retrieved one (ir_measures' accuracy provider, ``accuracy_provider.py``):
  over the top k (all retrieved without @k), with R_k relevant and N_k other documents,
  ``1 - (sum over relevant of the non-relevant ranked above it) / (N_k * R_k)``. Documents
  not in the qrels count as non-relevant (the provider's ``qrel.get(doc, 0)``). A topic
  without a relevant document in the top k has no value (NaN here): the provider yields
  nothing for it, so its mean runs over the other topics (spec ``agg="mean-defined"``; the
  API leaves such topics out of per-topic output with a note). With R_k > 0 and N_k = 0 the provider divides by zero
  (``ZeroDivisionError``); here every relevant document precedes every non-relevant one
  vacuously: 1.0.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.measures.base import MeasureFn, safe_div
from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.measure import Measure

COMPAT_P = 0.95  # ir_measures measures/compat.py default persistence


def compat(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    if p.origin is None:
        raise EvaluationError(
            "Compat orders its ideal ranking by run score and qrels line, which lists rebuilt from frozen labels "
            "(auditeval pool bias / growth) do not keep: use another measure there"
        )
    persistence = float(m.param("p", COMPAT_P))
    normalize = bool(m.param("normalize", True))
    rel = c.rel
    L = p.num_rel(rel)
    depth = np.maximum(p.num_ret, L)
    n_max = int(depth.max(initial=0))
    w = np.cumprod(np.concatenate(([1.0], np.full(max(n_max - 1, 0), persistence))))[:n_max]  # w[i] = p^i
    S = np.concatenate(([0.0], np.cumsum(w / np.arange(1, n_max + 1))))  # S[d] = sum_{j<=d} w[j-1]/j
    W = np.concatenate(([0.0], np.cumsum(w)))  # W[d] = sum_{j<d} w[j]
    rows, t, r = p.rows_where(p.rel_mask(rel))
    ideal = p.origin.ideal_rank(rel)[p.origin.qrels_row(p.run_row[rows])]
    first_shared = np.maximum(r, ideal)
    raw = np.bincount(t, weights=S[depth[t]] - S[first_shared - 1], minlength=p.n_topics)
    if normalize:
        best = W[L] + L * (S[depth] - S[L])
        return np.where(best > 0, safe_div(raw, best), safe_div(raw, W[depth]))
    return safe_div(raw, W[depth])


def accuracy(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = None if m.cutoff is None else int(m.cutoff)
    rel = p.rel_mask(c.rel)
    within = np.ones(len(rel), bool) if k is None else p.at_cutoff(k)
    other = within & ~rel
    above = p.cum_count(other)  # non-relevant rows up to each row (a relevant row adds none itself)
    rows, t, _ = p.rows_where(rel, k)
    n_rel = np.bincount(t, minlength=p.n_topics)
    wrong = np.bincount(t, weights=above[rows], minlength=p.n_topics)  # exact: integer counts
    n_other = p.seg_count(other).astype(np.float64)
    value = 1.0 - safe_div(wrong, n_other * n_rel)
    return np.where(n_rel > 0, value, np.nan)


KERNELS: dict[str, MeasureFn] = {"Compat": compat, "Accuracy": accuracy}
