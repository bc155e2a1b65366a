"""C/W/L user-model measures as cwl_eval computes them (Moffat et al.; Azzopardi, Thomas &
Moffat, "cwl_eval", SIGIR 2019): NERR8, NERR9, NERR11 (Azzopardi et al., ICTIR 2021), INST
(Moffat, Bailey, Scholer & Thomas 2017), INSQ (Moffat & Zobel-style T target, 2012), NERR10 and
BPM (the static Bejewelled Player Model, Zhang et al., SIGIR 2017).

The user reads position i with probability W_i and stops there with probability L_i; the
measure is the expected gain per item examined, EU = sum_i W_i g_i, where

* W_i = prod_{j<i} C_j / sum_n prod_{j<n} C_j over positions 1..1000 (cwl_eval's ``max_n``:
  the ranking is cut, or padded with zero-gain items, to 1,000 positions);
* g = (clip(grade, min_rel, max_rel) - min_rel) / (max_rel - min_rel) for judged documents, 0
  otherwise (cwl_eval's "worse case"), as ir_measures' cwl_eval provider scales the qrels;
* the continuation probabilities C_i (rank i from 1, G_i = g_1 + ... + g_i):
  NERR8@k: 1 - g_i for i < k, 0 from k on; NERR9@k: i/(i+1) (1 - g_i) for i < k, 0 from k on;
  NERR11(T): ((i + 2T - 1)/(i + 2T))^2 (1 - g_i); INSQ(T): ((i + 2T - 1)/(i + 2T))^2;
  INST(T): ((i + T + T_i - 1)/(i + T + T_i))^2 with T_i = T - G_i;
  NERR10(p): p (1 - g_i) (cwl_eval's phi, default 0.9);
  BPM(T)@K: 1 while G_i < T and i < K (every item costs 1 under ir_measures' provider), else 0.

Sources: cwl/ruler/measures/cwl_nerr.py, cwl_inst.py, cwl_insq.py, cwl_bpm.py,
cwl_metrics.py (cwl-eval
1.0.12). The products run along positions per topic (numpy ``cumprod`` on a topics x 1,000
block, as cwl_eval's per-topic ``cumprod``), in blocks of topics to bound memory.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.measures.base import MeasureFn
from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure

N = 1000  # cwl_eval max_n
BLOCK = 2048  # topics per dense block


def _gains(p: Prepared, m: Measure) -> np.ndarray:
    lo, hi = int(m.param("min_rel", 0)), int(m.param("max_rel"))
    rows, t, r = p.rows_where(p.grade > lo, N)
    g = (np.minimum(p.grade[rows].astype(np.int64), hi) - lo) / float(hi - lo)  # int32 grades: no overflow
    return t, r, g


def _continue(name: str, m: Measure, g: np.ndarray) -> np.ndarray:
    i = np.arange(1, N + 1, dtype=np.float64)[None, :]
    if name in ("NERR8", "NERR9"):
        k = int(m.cutoff)
        c = (1.0 - g) if name == "NERR8" else (i / (i + 1.0)) * (1.0 - g)
        c[:, k - 1:] = 0.0
        return c
    if name == "NERR10":
        return float(m.param("p", 0.9)) * (1.0 - g)
    t_ = float(m.param("T", 1.0))
    if name == "BPM":  # cwl_bpm.py BPMCWLMetric: C_i = [G_i < T][cost_1 + ... + cost_i < K]
        return ((np.cumsum(g, axis=1) < t_) & (i < float(m.cutoff))).astype(np.float64)
    if name == "NERR11":
        return ((i + 2.0 * t_ - 1.0) / (i + 2.0 * t_)) ** 2.0 * (1.0 - g)
    if name == "INSQ":
        return np.broadcast_to(((i + 2.0 * t_ - 1.0) / (i + 2.0 * t_)) ** 2.0, g.shape).copy()
    ti = t_ - np.cumsum(g, axis=1)  # INST
    return ((i + t_ + ti - 1.0) / (i + t_ + ti)) ** 2.0


def _cwl(name: str):
    def kernel(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
        t, r, g = _gains(p, m)
        out = np.zeros(p.n_topics)
        for lo in range(0, p.n_topics, BLOCK):
            hi = min(lo + BLOCK, p.n_topics)
            sel = (t >= lo) & (t < hi)
            gm = np.zeros((hi - lo, N))
            gm[t[sel] - lo, r[sel] - 1] = g[sel]
            cm = _continue(name, m, gm)
            reach = np.ones((hi - lo, N))
            reach[:, 1:] = np.cumprod(cm[:, :-1], axis=1)  # prod_{j<i} C_j
            out[lo:hi] = np.einsum("ij,ij->i", reach, gm) / reach.sum(axis=1)
        return out

    kernel.__name__ = name.lower()
    return kernel


KERNELS: dict[str, MeasureFn] = {name: _cwl(name) for name in ("NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM")
}
