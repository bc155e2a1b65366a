"""trec_eval ``all_trec`` measures beyond the core: judgment-based, interpolated, set-based.

Formulas and trec_eval sources (``m_*.c`` at tags v9.0.8 and v10.0). In the formulas, R is
the number of relevant qrels documents (grade >= rel), ``ret`` the documents ranked
(after depth and -J), ``relret`` the relevant ones among them, ``N`` the judged
non-relevant qrels documents (0 <= grade < rel).

* ``Bpref`` (m_bpref.c): (1/R) sum over retrieved relevant docs d of
  ``1 - min(n_d, R) / min(N, R)``, where ``n_d`` is the number of judged non-relevant docs
  ranked above d; a relevant doc with ``n_d = 0`` adds 1. Unjudged (not in the qrels) and
  pooled-but-unjudged (negative grade) docs are skipped.
* ``GMBpref`` (m_gm_bpref.c): geometric mean over topics of max(bpref, gm_floor); the
  per-topic value returned here is bpref itself (trec_eval prints only the summary; its
  per-topic slot, and pytrec_eval's, hold ``log(max(bpref, gm_floor))``).
* ``infAP`` (m_infap.c): (1/R) sum over retrieved relevant docs at 0-based index j of
  1 if j = 0, else ``1/(j+1) + (j/(j+1)) * ((r-1+n+u)/j) * ((r-1+eps)/(r-1+n+2 eps))``
  with r, n, u the relevant, judged non-relevant and pooled-unjudged docs in ranks 0..j
  (r counting d itself) and eps = INFAP_EPSILON = 1e-5. Equals AP without negative grades.
* ``IPrec@r`` (m_iprec_at_recall.c) and ``11pt`` (m_11pt_avg.c): the recall level r is
  mapped to a count c of relevant documents (the ``iprec`` axis: ``ceil`` smallest c with
  c/R >= r; ``trunc09`` (long)(r*R + 0.9), trec_eval <= 9.0.8; ``lround`` lround(r*R),
  trec_eval 10.0). The value is the interpolated precision max_{k >= c} k / rank_k over
  the retrieved relevant docs (rank_k the rank of the k-th), 0 when c > relret. For
  c = 0 it is the value at c = 1, or relret/ret = 0 without a relevant doc retrieved,
  which trec_eval computes as 0/0 = NaN for an empty (e.g. -J emptied) ranking (printed
  ``-nan``); the ``ceil`` rule gives 0 there. ``11pt`` averages the 11 levels 0, 0.1, ...,
  1.0 (or ``levels='0.2,0.5,0.8'``, trec_eval ``-m 11pt_avg.0.2,0.5,0.8``), summed from the
  last level down as trec_eval does.
* ``RprecMult@x`` (m_Rprec_mult.c): precision at rank c = (long)(x*R + 0.9) (also in
  10.0, which changed only iprec/11pt to lround), relevant in top c / c; 0 when c = 0.
* ``Utility`` (m_utility.c): a*relret + b*(ret - relret) + c*(R - relret) +
  d*(num_docs + relret - ret - R), parameters a, b, c, d (default 1, -1, 0, 0) and
  ``num_docs`` (trec_eval ``-N``, default 0); averaged over topics.
* ``RelP@k`` (m_rel_P.c): relevant in top k / min(k, R); 0 when R = 0.
* ``SetP`` (m_set_P.c) relret/ret; ``SetR`` (m_set_recall.c) relret/R; ``SetRelP``
  (m_set_rel_P.c) relret/min(ret, R); ``SetAP`` (m_set_map.c) relret^2/(ret*R);
  ``SetF`` (m_set_F.c) (beta+1)*P*R/(beta*P + R) with P = SetP, R = SetR (0 when
  relret = 0); each 0 when its denominator is 0.
* ``NumNonRelJudgedRet`` (m_num_nonrel_judged_ret.c): retrieved docs with
  0 <= grade < rel; summed over topics.
* ``yaap`` (m_yaap.c): log((1 + s) / (1 + R - s)) with s = sum over retrieved relevant
  docs of (relevant so far) / rank (Robertson, ECIR 2012). Not in all_trec.
* ``relstring`` (m_relstring.c): the grades of the first n (default 10, ``relstring@n``)
  ranked docs as a string: a digit for grades 0-9, ``>`` above 9, ``-`` not in the qrels,
  ``.`` pooled but unjudged (negative grade). trec_eval prints it per topic only, between
  single quotes (``'-1--1--1--'``); the value here is the bare string.

Topics absent from the run (``topics=qrels``) are not computed by trec_eval (``-c``): their
value is the spec table's ``missing`` (0 here), applied by the engine, not by these kernels.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.measures.base import MeasureFn, safe_div
from auditeval.engine.ranked_lists import UNJUDGED, Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.specs import levels_of

INFAP_EPSILON = 0.00001  # trec_eval.h INFAP_EPSILON


# Sparse forms (``Prepared.rows_where``): every measure below adds terms from the relevant
# or judged rows only (or counts rows), so it lists those rows -- a few thousand of a
# 7-million-row run -- instead of building full-length arrays. Each sum runs over the
# listed rows in rank order, which equals the dense per-row sum exactly (only ``+ 0.0``
# terms are skipped); each value is computed by the same float64 expression as before.
def running(topic: np.ndarray) -> np.ndarray:
    """1-based position of each listed row among its topic's listed rows (``topic`` ascending)."""
    return np.arange(1, len(topic) + 1) - np.searchsorted(topic, topic, side="left")


def running_flag(topic: np.ndarray, flag: np.ndarray) -> np.ndarray:
    """Within-topic running count of ``flag`` over listed rows, up to and including each row."""
    cs = np.cumsum(flag, dtype=np.int64)
    first = np.searchsorted(topic, topic, side="left")
    return cs - cs[first] + flag[first]


def judged_rows(p: Prepared) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``(rows, topic, rank)`` of the judged ranked rows (grade >= 0; ``rel_mask(0)`` is cached)."""
    return p.rows_where(p.rel_mask(0))


def count_before(p: Prepared, marked: np.ndarray, rows: np.ndarray, topic: np.ndarray) -> np.ndarray:
    """Per listed row: rows of ``marked`` (ascending row positions) above it in its topic."""
    return np.searchsorted(marked, rows) - np.searchsorted(marked, p.offsets[topic])


def _relevant(p: Prepared, c: Convention, k: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    return p.rows_where(p.rel_mask(c.rel), k)


def _hits(p: Prepared, topic: np.ndarray) -> np.ndarray:
    return np.bincount(topic, minlength=p.n_topics).astype(np.int64)


def _rel_and_nonrel_above(p: Prepared, c: Convention) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """For the relevant ranked rows: (rows, topic, rank, relevant so far incl. the row,
    judged non-relevant above), from the judged rows alone."""
    rows, t, r = judged_rows(p)
    is_rel = p.grade[rows] >= c.rel
    nonrel_so_far = running_flag(t, ~is_rel)
    rel_so_far = running_flag(t, is_rel)
    return rows[is_rel], t[is_rel], r[is_rel], rel_so_far[is_rel], nonrel_so_far[is_rel]


# ------------------------------------------------------------------------ bpref, infAP
def bpref(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    big_r = p.num_rel(c.rel)
    n_nonrel = p.num_judged_nonrel(c.rel)
    _, t, _, _, above = _rel_and_nonrel_above(p, c)  # judged non-relevant ranked above the row
    r_row = big_r[t]
    penalty = safe_div(np.minimum(above, r_row), np.minimum(n_nonrel[t], r_row))
    contrib = np.where(above > 0, 1.0 - penalty, 1.0)
    total = np.bincount(t, weights=contrib, minlength=p.n_topics)
    out = np.where(big_r > 0, safe_div(total, big_r), total)
    return out


def inf_ap(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    rows, t, rank, r_so_far, n_so_far = _rel_and_nonrel_above(p, c)
    u_so_far = count_before(p, np.flatnonzero(p.grade == UNJUDGED), rows, t)
    fj = (rank - 1).astype(np.float64)
    rm1 = (r_so_far - 1).astype(np.float64)
    judged_above = (r_so_far - 1 + n_so_far + u_so_far).astype(np.float64)
    with np.errstate(divide="ignore", invalid="ignore"):
        term = 1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (judged_above / fj) * (
            (rm1 + INFAP_EPSILON) / (rm1 + n_so_far + 2 * INFAP_EPSILON)
        )
    contrib = np.where(fj == 0, 1.0, term)
    total = np.bincount(t, weights=contrib, minlength=p.n_topics)
    big_r = p.num_rel(c.rel)
    out = np.where(big_r > 0, safe_div(total, big_r), total)
    return out


# ------------------------------------------------------------------------ interpolated precision
def recall_count(r: float, big_r: np.ndarray, rule: str) -> np.ndarray:
    """Relevant-document count c standing for recall level ``r`` under the ``iprec`` rule.

    ``trunc09``: ``(long)(r*R + 0.9)`` in double arithmetic (0.7*3 + 0.9 =
    2.9999999999999996 -> 2); ``lround``: nearest integer, halves away from zero;
    ``ceil``: the smallest c with c/R >= r (recall of c relevant documents reaches r).
    """
    x = float(r) * big_r.astype(np.float64)
    if rule == "trunc09":
        return np.trunc(x + 0.9).astype(np.int64)  # C cast: toward zero
    if rule == "lround":
        a = np.abs(x)
        fl = np.floor(a)
        return (np.sign(x) * (fl + (a - fl >= 0.5))).astype(np.int64)  # a - floor(a) is exact
    if rule == "ceil":
        cnt = np.ceil(x).astype(np.int64)
        den = np.where(big_r > 0, big_r, 1).astype(np.float64)
        # fix the rounding of r*R: c/R >= r decides, as "recall >= r" does
        lower = (cnt > 0) & ((cnt - 1) / den >= r)
        cnt = np.where(lower, cnt - 1, cnt)
        cnt = np.where(cnt / den < r, cnt + 1, cnt)
        return np.where(big_r > 0, np.maximum(cnt, 0), 0)
    raise ValueError(f"unknown iprec rule {rule!r}")  # pragma: no cover - Convention validates


def _interpolated(p: Prepared, c: Convention) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """Per retrieved relevant doc (rank order): interpolated precision max_{k' >= k} P_k'.

    Returns (ip, start of each topic's relevant docs in ``ip``, relret, empty-ranking value).

    trec_eval's walk (m_11pt_avg.c, m_iprec_at_recall.c) starts from ``num_rel_ret`` (judged
    documents only) and steps down at each row its ``>= relevance_level`` test passes: under a
    ``rel`` below 0 also at the D unjudged rows it counts, so the k-th such row from the top
    stands for k - D relevant documents, and the rows with k - D < 1 are never reached.
    """
    _, t, rank = _relevant(p, c)
    count = running(t)
    relret = _hits(p, t)
    if c.rel < 0:
        extra = p.unjudged_counted(c.rel)
        count = count - extra[t]
        keep = count >= 1
        t, rank, count = t[keep], rank[keep], count[keep]
        relret = relret - extra
    prec = count / rank
    start = np.concatenate(([0], np.cumsum(relret)))[:-1]
    # reverse cumulative max within topics, exact: max over integer codes of the values,
    # each topic offset by a block larger than every code
    if len(prec):
        rev = prec[::-1]
        values, codes = np.unique(rev, return_inverse=True)
        block = (p.n_topics - 1 - t[::-1]).astype(np.int64) * len(values)
        ip = values[np.maximum.accumulate(block + codes) - block][::-1]
    else:
        ip = prec
    # c = 0 without a relevant doc retrieved: relret/ret, 0/0 = NaN for an empty ranking
    with np.errstate(divide="ignore", invalid="ignore"):
        fallback = relret / p.num_ret.astype(np.float64)
    return ip, start, relret, fallback


def _iprec_levels(p: Prepared, c: Convention, levels: tuple[float, ...]) -> list[np.ndarray]:
    """Interpolated precision at each level, as trec_eval assigns them (m_11pt_avg.c).

    trec_eval walks the relevant docs from the bottom with a pointer to the last level:
    level j gets IP at its count c_j when reached; trailing levels with c_j > relret get 0;
    a level whose count is 0, or out of order with the levels after it, stops the walk and
    it and every earlier level get the final value (IP at the first relevant doc, or
    relret/ret without one). For ascending levels this is IP at c_j, 0 above relret. The
    ``ceil`` (textbook) rule evaluates every level on its own.
    """
    ip, start, relret, fallback = _interpolated(p, c)
    big_r = p.num_rel(c.rel)
    final = np.where(relret > 0, ip[np.minimum(start, max(len(ip) - 1, 0))] if len(ip) else 0.0, fallback)
    if c.iprec == "ceil":
        final = np.where(p.num_ret > 0, final, 0.0)
    out: list[np.ndarray] = [np.zeros(0)] * len(levels)
    started = np.zeros(p.n_topics, bool)
    stuck = np.zeros(p.n_topics, bool)
    last = relret.copy()  # the count the walk has come down to
    for j in range(len(levels) - 1, -1, -1):  # trec_eval's order: last level first
        cnt = recall_count(levels[j], big_r, c.iprec)
        over = cnt > relret
        hit = (cnt >= 1) & ~over
        idx = np.where(hit, start + cnt - 1, 0)
        at_c = np.where(hit, ip[idx] if len(ip) else 0.0, 0.0)
        if c.iprec == "ceil":
            v = np.where(over, 0.0, np.where(cnt >= 1, at_c, final))
        else:
            skip = ~started & over
            started |= ~skip
            stuck |= ~skip & ~(hit & (cnt <= last))
            v = np.where(skip, 0.0, np.where(stuck, final, at_c))
            last = np.where(~skip & ~stuck, cnt, last)
        out[j] = v
    return out


def iprec_at_recall(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return _iprec_levels(p, c, (float(m.cutoff),))[0]


def eleven_pt_avg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    levels = levels_of(m)
    vals = _iprec_levels(p, c, levels)
    total = np.zeros(p.n_topics)
    for v in reversed(vals):  # trec_eval adds from the last level down
        total = total + v
    return total / float(len(levels))


# ------------------------------------------------------------------------ precision at cut-offs
def rprec_mult(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """m_Rprec_mult.c: relevant in the top cut = trunc(x R + 0.9), over cut. Its walk counts down
    from ``num_rel_ret`` (judged only) at each row passing ``>= relevance_level``: under a ``rel``
    below 0 the top cut holds (rows counted - D) relevant, D the unjudged rows counted, at least 0."""
    big_r = p.num_rel(c.rel)
    cut = np.trunc(float(m.cutoff) * big_r.astype(np.float64) + 0.9).astype(np.int64)
    _, t, r = _relevant(p, c)
    hits = _hits(p, t[r <= cut[t]])
    if c.rel < 0:
        hits = np.maximum(hits - p.unjudged_counted(c.rel), 0)
    return safe_div(hits, np.maximum(cut, 0))


def relative_p(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k = int(m.cutoff)
    _, t, _ = _relevant(p, c, k)
    return safe_div(_hits(p, t), np.minimum(p.num_rel(c.rel), k))


# ------------------------------------------------------------------------ set measures
def _set_counts(p: Prepared, c: Convention) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    ret = p.num_ret.astype(np.float64)
    relret = p.seg_count(p.judged_rel_mask(c.rel)).astype(np.float64)  # num_rel_ret: judged rows only
    big_r = p.num_rel(c.rel).astype(np.float64)
    return ret, relret, big_r


def utility(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    ret, relret, big_r = _set_counts(p, c)
    a, b, cc, d = (float(m.param(k, v)) for k, v in (("a", 1.0), ("b", -1.0), ("c", 0.0), ("d", 0.0)))
    n_docs = float(m.param("num_docs", 0))
    out = a * relret + b * (ret - relret) + cc * (big_r - relret) + d * (n_docs + relret - ret - big_r)
    return out


def set_p(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    ret, relret, _ = _set_counts(p, c)
    return safe_div(relret, ret)


def set_recall(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    _, relret, big_r = _set_counts(p, c)
    return safe_div(relret, big_r)


def set_relative_p(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    ret, relret, big_r = _set_counts(p, c)
    return safe_div(relret, np.minimum(ret, big_r))


def set_map(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    ret, relret, big_r = _set_counts(p, c)
    return safe_div(relret * relret, ret * big_r)


def set_f(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    ret, relret, big_r = _set_counts(p, c)
    beta = float(m.param("beta", 1.0))
    prec = safe_div(relret, ret)
    rec = safe_div(relret, big_r)
    return np.where(relret > 0, safe_div((beta + 1.0) * prec * rec, beta * prec + rec), 0.0)


def num_nonrel_judged_ret(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    rows, t, _ = judged_rows(p)
    return _hits(p, t[p.grade[rows] < c.rel]).astype(np.float64)


def yaap(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    _, t, r = _relevant(p, c)
    s = np.bincount(t, weights=running(t) / r, minlength=p.n_topics)
    big_r = p.num_rel(c.rel).astype(np.float64)
    return np.log((1.0 + s) / (1.0 + big_r - s))


# ------------------------------------------------------------------------ relstring
def relstring(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    n = 10 if m.cutoff is None else max(int(m.cutoff), 0)  # trec_eval: len < 0 -> 0
    if n == 0:
        return np.full(p.n_topics, "", dtype=object)
    shown = np.minimum(p.num_ret, n)  # the first n rows of each topic
    t = np.repeat(np.arange(p.n_topics), shown)
    col = np.arange(len(t)) - np.repeat(np.cumsum(shown) - shown, shown)
    g = p.grade[p.offsets[t] + col]
    ch = np.where(g > 9, ord(">"), np.where(g >= 0, ord("0") + np.clip(g, 0, 9), ord("<")))
    ch = np.where(g == -1, ord("-"), np.where(g == UNJUDGED, ord("."), ch))
    buf = np.zeros((p.n_topics, n), dtype=np.uint8)
    buf[t, col] = ch
    strings = buf.view(f"S{n}").ravel()  # one row per topic; unfilled (NUL) tail dropped
    return strings.astype(str).astype(object)


KERNELS: dict[str, MeasureFn] = {
    "Bpref": bpref,
    "GMBpref": bpref,
    "infAP": inf_ap,
    "IPrec": iprec_at_recall,
    "11pt": eleven_pt_avg,
    "RprecMult": rprec_mult,
    "Utility": utility,
    "RelP": relative_p,
    "SetP": set_p,
    "SetR": set_recall,
    "SetRelP": set_relative_p,
    "SetAP": set_map,
    "SetF": set_f,
    "NumNonRelJudgedRet": num_nonrel_judged_ret,
    "yaap": yaap,
    "relstring": relstring,
}
