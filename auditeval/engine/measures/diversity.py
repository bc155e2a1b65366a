"""Intent-aware (diversity) measures, as ndeval computes them (TREC Web track ndeval 4.5, the
``src/ndeval.c`` that pyndeval 0.0.8 embeds; line numbers below are that file's).

A topic's subtopics S are those with a relevant judgment (grade >= rel) in the qrels
(``actualSubtopics``, ndeval.c:351-360); |S| = 0 scores every measure 0 (l.509, 554, 622, 676,
725, 756) but nNRBP, which has no value there (below). A ranked document's gain at rank i (1-based) is summed over the subtopics it is
relevant to, in subtopic-code order (first appearance in the qrels, pyndeval's ``subtopic_map``):
``g_i = sum_s (1 - alpha)^{c_s(i)}``, c_s(i) = documents above rank i relevant to s; each power
is the repeated product ``gain *= (1 - alpha)`` (l.637-638, 690-692, 569-570), so values agree with
ndeval to rounding. A document not in the qrels, or relevant to no subtopic, gains 0. Grades are
binary: the grade as written >= rel (pyndeval's ``relevance_level``; ndeval's file reader turns
every grade above 1 into 1, l.923), so a negative grade is never relevant, whatever ``negatives``
says (that axis still decides which rows ``unjudged=drop`` removes).

Every measure pyndeval reports (its ``SUPPORTED_MEASURES``; ndeval's CSV columns), alpha and
beta in [0, 1] as ndeval's ``-alpha``/``-beta`` take them (pyndeval sets its globals per
evaluator; every measure reads the same alpha, the ideal ranking included):

* ``alpha_DCG(alpha=0.5)@k`` = ``D(run)``, ``D = sum_{i<=k} g_i / log2(i + 1)`` divided, for k >= 2,
  by the "ideal ideal" ``sum_{i<=k} |S| (1 - alpha)^{i-1} / log2(i + 1)`` (l.660-713; k = 1 is not
  divided, l.711), the discount ``log(2) / log(i + 1)`` (l.582-605).
* ``alpha_nDCG(alpha=0.5)@k`` = ``D(run) / D(ideal)`` (0 when D(run) = 0, l.1155-1171). The ideal
  ranking is ndeval's greedy one (l.362-415): over the topic's qrels documents, at each rank the
  one of highest gain given the subtopics already covered, ties to the greatest doc id
  (``strcmp > 0``, l.394-401). It is not the best ranking (l.378: an approximation), so a run
  can score above 1.
* ``ERR_IA(alpha=0.5)@k`` = ``sum_{i<=k} g_i / i``, divided for k >= 2 by
  ``sum_{i<=k} |S| (1 - alpha)^{i-1} / i`` (l.607-658; collection-independent normalisation, so a
  first document relevant to two subtopics gives ERR_IA@1 = 2).
* ``nERR_IA(alpha=0.5)@k`` = ERR_IA@k of the run over that of the greedy ideal (0 when the run's
  is 0; ndeval tests its alpha-DCG there, l.1162, 0 exactly when its ERR is).
* ``NRBP(alpha=0.5, beta=0.5)`` = ``(1 - (1 - alpha) beta) / |S| * sum_i g_i beta^{i-1}`` over the
  whole ranking, ``beta^{i-1}`` a repeated product (l.542-577).
* ``nNRBP(alpha=0.5, beta=0.5)`` = NRBP of the run over NRBP of the greedy ideal ranking of all
  the topic's relevant documents (l.1169, unguarded): NaN (0 / 0, no value) where the ideal's is
  0: |S| = 0, or alpha = 0 with beta = 1 (the factor ``1 - (1 - alpha) beta`` is 0).
* ``AP_IA`` (ndeval's MAP-IA) = mean over s in S of ``sum (documents relevant to s at or above
  rank i) / i`` over the ranked documents relevant to s, over R_s, the qrels documents relevant to
  s (``nrelSub``), the whole ranking (l.494-540); reads neither alpha nor beta.
* ``P_IA@k`` = (relevant (document, subtopic) pairs in the top k) / (k |S|) (l.747-774).
* ``StRecall@k`` = (subtopics covered by the top k) / |S| (l.715-745).

The run is ordered by the ``ties``/``sim`` axes (pyndeval: score descending, then doc id
ascending, pyndeval/__init__.py ``_coerce_run_iter``), cut by ``depth`` (ndeval -M). ndeval
stops at rank 20 (``DEPTH``, l.69; pyndeval asserts cut-offs <= 20): here k is any cut-off,
the same formulas. A qrels without a ``subtopic`` column is one subtopic per topic.
"""

from __future__ import annotations

import math

import numpy as np

from auditeval.engine.measures.base import MeasureFn
from auditeval.engine.ranked_lists import Prepared
from auditeval.engine.subtopics import Subtopics
from auditeval.vocab.arrays import unique, unique_pairs
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import EvaluationError, InputError
from auditeval.vocab.measure import Measure

ALPHA = 0.5  # ndeval.c:70
BETA = 0.5  # ndeval.c:71


def _subtopics(p: Prepared) -> Subtopics:
    """The subtopic judgments behind ``p``: a subtopic qrels' own, or for any other qrels one
    subtopic per topic, each kept qrels row judging it with its grade as written (pyndeval's
    ``relevance >= relevance_level`` reads the raw grade: a negative one is never relevant, even
    where ``negatives=nonrel`` lists it at grade 0)."""
    if p.origin is None:
        raise EvaluationError(
            "intent-aware measures read the subtopic judgments of the qrels, which lists rebuilt from frozen labels "
            "(auditeval pool bias / growth) do not keep: use another measure there"
        )
    jd = p.origin.judgments
    if jd.unmerged_subtopics:  # StagedRun.for_measure stages these measures on the merged qrels
        raise EvaluationError(
            "intent-aware measures read a subtopic qrels merged per (topic, doc); these lists read it line by line "
            "(prepare them with the measure: StagedRun.prepared(convention, measure))"
        )
    subs = jd.subtopics
    if subs is None:
        subs = p.origin.memo.get("subtopics")
        if subs is None:
            n = len(jd.q_grade)
            topic = np.asarray(p.origin.topic_ids, dtype=object)[jd.q_tcode] if n else np.zeros(0, object)
            subs = p.origin.memo["subtopics"] = Subtopics(
                np.arange(n + 1, dtype=np.int64), np.zeros(n, np.int64), jd.q_grade, ["0"], np.full(n, "", dtype=object),
                topic, None,
            )
    if subs.repeated is not None:
        line, first, topic, sub, doc = subs.repeated
        raise InputError(
            subs.source, line,
            f"subtopic {sub!r} of topic {topic!r} judged twice for doc {doc!r} (first at line {first}); intent-aware "
            "measures need one judgment per (topic, subtopic, doc): ndeval keeps an arbitrary one (ndeval.c:301, 846)",
        )
    return subs


def _repeated_products(factor: float, n: int) -> np.ndarray:
    """``[1, f, f*f, ...]`` (n values) by repeated multiplication, as ndeval's ``gain *= f``."""
    return np.cumprod(np.r_[1.0, np.full(max(n - 1, 0), factor)])[:n]


def _discounts(n: int) -> np.ndarray:
    """ndeval's discount of 0-based rank i: ``log(2.0) / log(i + 2.0)`` (ndeval.c:595)."""
    return np.array([math.log(2.0) / math.log(i + 2.0) for i in range(n)])


class _Judged:
    """The ranked rows relevant to some subtopic and their (row, subtopic) judgments."""

    def __init__(self, p: Prepared, rel: int):
        subs = _subtopics(p)
        rows, self.topic, self.rank = p.rows_where(p.rel_mask(rel))  # candidates: a judgment >= rel
        q = p.origin.qrels_row(p.run_row[rows])
        start, count = subs.offsets[q], subs.offsets[q + 1] - subs.offsets[q]
        e_row = np.repeat(np.arange(len(rows)), count)
        idx = np.repeat(start - np.r_[0, np.cumsum(count)[:-1]], count) + np.arange(int(count.sum()))
        keep = subs.grade[idx] >= rel
        self.e_row, self.e_code = e_row[keep], subs.code[idx][keep]
        self.e_topic = self.topic[self.e_row]
        self.n_topics = p.n_topics

    def covered_before(self) -> np.ndarray:
        """Per judgment: documents ranked above it relevant to the same subtopic."""
        order = np.lexsort((self.e_row, self.e_code, self.e_topic))
        t, s = self.e_topic[order], self.e_code[order]
        n = len(order)
        start = np.flatnonzero(np.r_[True, (t[1:] != t[:-1]) | (s[1:] != s[:-1])]) if n else np.zeros(0, np.int64)
        c = np.empty(n, np.int64)
        c[order] = np.arange(n) - np.repeat(start, np.diff(np.r_[start, n]))
        return c

    def gains(self, alpha: float) -> np.ndarray:
        """g per relevant ranked row: its subtopics' ``(1 - alpha)^c``, added in code order."""
        c = self.covered_before()
        power = _repeated_products(1.0 - alpha, int(c.max(initial=0)) + 1)
        return np.bincount(self.e_row, weights=power[c], minlength=len(self.rank))


def n_subtopics(p: Prepared, rel: int) -> np.ndarray:
    """|S| per evaluated topic: subtopics with a relevant judgment (ndeval.c:351-360);
    memoised on the qrels side."""
    return p.qmemo(("diversity-S", rel), lambda: _n_subtopics(p, rel))


def _n_subtopics(p: Prepared, rel: int) -> np.ndarray:
    subs = _subtopics(p)
    uniq, inv, t, _, code = _qrels_judgments(p, subs, rel)
    width = len(subs.names) + 1
    pairs = unique(t * width + code)
    return np.bincount(pairs // width, minlength=len(uniq)).astype(np.int64)[inv]


def _qrels_judgments(p: Prepared, subs: Subtopics, rel: int):
    """The relevant qrels judgments of the evaluated topics, by topic id (lists rebuilt for a
    subset of topics or stacked copies hold a topic more than once, or not at all): the
    distinct topic ids of ``p`` and the index of each of ``p``'s topics among them, then per
    judgment its topic's index, its merged qrels row and its subtopic code."""
    uniq, inv = np.unique(p.topics.astype(str), return_inverse=True)
    row = subs.row_of()
    keep = np.flatnonzero(subs.grade >= rel)
    tid = subs.topic[row[keep]].astype(str)
    pos = np.minimum(np.searchsorted(uniq, tid), max(len(uniq) - 1, 0))
    ok = (uniq[pos] == tid) if len(uniq) else np.zeros(len(tid), bool)
    keep = keep[ok]
    return uniq, inv, pos[ok].astype(np.int64), row[keep], subs.code[keep]


def ideal_gains(p: Prepared, rel: int, alpha: float, k: int) -> np.ndarray:
    """(n_topics, k) gains of ndeval's greedy ideal ranking (ndeval.c:362-415), 0 past its
    relevant documents; memoised on the qrels side."""
    return p.qmemo(("diversity-ideal", rel, alpha, k), lambda: _ideal_gains(p, rel, alpha, k))


def _ideal_gains(p: Prepared, rel: int, alpha: float, k: int) -> np.ndarray:
    subs = _subtopics(p)
    uniq, inv, t, row, code = _qrels_judgments(p, subs, rel)
    out = np.zeros((len(uniq), k))
    order = np.lexsort((row, t))
    t, row, code = t[order], row[order], code[order]
    bounds = np.flatnonzero(np.r_[True, t[1:] != t[:-1], True]) if len(t) else np.zeros(1, np.int64)
    for a, b in zip(bounds[:-1], bounds[1:], strict=True):  # the greedy ideal is sequential: one topic at a time
        out[t[a]] = _greedy(row[a:b], code[a:b], subs.doc, alpha, k)
    return out[inv]


def _greedy(q_row: np.ndarray, code: np.ndarray, doc: np.ndarray, alpha: float, k: int) -> np.ndarray:
    """One topic's ideal gains: rank by rank the document of highest gain (its subtopics'
    current gains added in code order), ties to the greatest doc id (ndeval.c:378-414).

    Documents relevant to the same subtopics have the same gain at every rank, so the choice is
    among subtopic patterns (at most 2^|S|, a few dozen): the best pattern, ties to the one whose
    next document (they leave in doc id order, greatest first) has the greatest doc id."""
    docs, d_of = np.unique(q_row, return_inverse=True)
    codes, s_of = np.unique(code, return_inverse=True)
    member = np.zeros((len(docs), len(codes)), bool)
    member[d_of, s_of] = True
    tie = np.empty(len(docs), np.int64)
    tie[np.argsort(doc[docs].astype(str), kind="stable")] = np.arange(len(docs))  # code point = UTF-8 byte order
    patterns, p_of = np.unique(member, axis=0, return_inverse=True)
    p_of = p_of.reshape(-1)
    queue = [sorted(tie[p_of == i].tolist(), reverse=True) for i in range(len(patterns))]  # greatest doc id first
    subs = [np.flatnonzero(row).tolist() for row in patterns]  # each pattern's subtopics, in code order
    gain = [1.0] * len(codes)
    factor = 1.0 - alpha
    out = np.zeros(k)
    live = [i for i in range(len(patterns)) if queue[i]]
    for i in range(min(k, len(docs))):  # a few dozen patterns: plain floats beat array calls
        best, pick = -1.0, -1
        for pt in live:
            score = 0.0
            for s in subs[pt]:
                score += gain[s]
            if score > best or (score == best and queue[pt][0] > queue[pick][0]):
                best, pick = score, pt
        out[i] = best
        queue[pick].pop(0)
        if not queue[pick]:
            live.remove(pick)
        for s in subs[pick]:
            gain[s] *= factor
    return out


def _ideal_ideal(n_sub: np.ndarray, k: int, alpha: float, weight) -> np.ndarray:
    """Per topic ``sum_{i<k} |S| (1-alpha)^i`` weighted by rank as ndeval does (l.643-652,
    697-707): the gain a repeated product from ``(double) |S|``, ``weight(term, i)``."""
    g = n_sub.astype(np.float64)
    total = np.zeros(len(g))
    for i in range(k):
        total = weight(g, i) if i == 0 else weight(g, i) + total
        g = g * (1.0 - alpha)
    return total


def _dcg_weight(values: np.ndarray, i) -> np.ndarray:
    return values * _discounts(int(np.max(i, initial=0)) + 1)[i]


def _err_weight(values: np.ndarray, i) -> np.ndarray:
    return values / (np.asarray(i, np.float64) + 1.0)


def _cumulative(judged: _Judged, gains: np.ndarray, k: int, weight) -> np.ndarray:
    """Per topic ``sum_{rank<=k} weight(g, rank-1)`` added in rank order."""
    top = judged.rank <= k
    return np.bincount(judged.topic[top], weights=weight(gains[top], judged.rank[top] - 1), minlength=judged.n_topics)


def _normalised(value: np.ndarray, n_sub: np.ndarray, k: int, alpha: float, weight) -> np.ndarray:
    """``value`` over the ideal ideal for k >= 2 (ndeval.c:656-657, 711-712), kept for k = 1."""
    if k < 2:
        return value
    ii = _ideal_ideal(n_sub, k, alpha, weight)
    out = np.zeros(len(value))
    np.divide(value, ii, out=out, where=n_sub > 0)
    return out


def _run_normalised(p: Prepared, m: Measure, c: Convention, weight) -> tuple[np.ndarray, np.ndarray, float]:
    """The run's alpha-DCG@k / ERR-IA@k as ndeval computes them (``weight`` the discount), over
    the ideal ideal for k >= 2; with |S| and alpha."""
    alpha, k, rel = float(m.param("alpha", ALPHA)), int(m.cutoff), c.rel
    judged = _Judged(p, rel)
    n_sub = n_subtopics(p, rel)
    return _normalised(_cumulative(judged, judged.gains(alpha), k, weight), n_sub, k, alpha, weight), n_sub, alpha


def _ideal_normalised(p: Prepared, rel: int, alpha: float, k: int, n_sub: np.ndarray, weight) -> np.ndarray:
    """The same of ndeval's greedy ideal ranking (l.694, 703-707, 643-652: added in rank order)."""
    terms = weight(ideal_gains(p, rel, alpha, k), np.arange(k))
    ideal = np.cumsum(terms, axis=1)[:, -1] if k else np.zeros(p.n_topics)  # cumsum: sequential, as ndeval adds
    return _normalised(ideal, n_sub, k, alpha, weight)


def _renormalised(p: Prepared, m: Measure, c: Convention, weight) -> np.ndarray:
    """Run over ideal where the run's value is not 0 (ndeval.c:1162-1167 renormalize), else 0."""
    run, n_sub, alpha = _run_normalised(p, m, c, weight)
    ideal = _ideal_normalised(p, c.rel, alpha, int(m.cutoff), n_sub, weight)
    out = np.zeros(p.n_topics)
    np.divide(run, ideal, out=out, where=(run != 0) & (ideal != 0))
    return out


def alpha_dcg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return _run_normalised(p, m, c, _dcg_weight)[0]


def alpha_ndcg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return _renormalised(p, m, c, _dcg_weight)


def err_ia(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return _run_normalised(p, m, c, _err_weight)[0]


def nerr_ia(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    return _renormalised(p, m, c, _err_weight)


def _nrbp_factor(n_sub: np.ndarray, alpha: float, beta: float) -> np.ndarray:
    """``(1 - (1 - alpha) beta) / |S|`` per topic, 0 where |S| = 0 (ndeval.c:554, 576)."""
    factor = np.zeros(len(n_sub))
    np.divide(1 - (1 - alpha) * beta, n_sub.astype(np.float64), out=factor, where=n_sub > 0)
    return factor


def nrbp(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    alpha, beta, rel = float(m.param("alpha", ALPHA)), float(m.param("beta", BETA)), c.rel
    judged = _Judged(p, rel)
    decay = _repeated_products(beta, int(judged.rank.max(initial=0)))
    total = np.bincount(judged.topic, weights=judged.gains(alpha) * decay[judged.rank - 1], minlength=p.n_topics)
    return total * _nrbp_factor(n_subtopics(p, rel), alpha, beta)


def nnrbp(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """NRBP over the NRBP of the greedy ideal ranking of all the topic's relevant documents
    (ndeval.c:1169, unguarded: 0 / 0 is NaN where |S| = 0 or alpha = 0 with beta = 1)."""
    alpha, beta, rel = float(m.param("alpha", ALPHA)), float(m.param("beta", BETA)), c.rel
    run = nrbp(p, m, c)
    depth = int(relevant_docs(p, rel).max(initial=0))
    ig = ideal_gains(p, rel, alpha, depth)
    total = np.cumsum(ig * _repeated_products(beta, depth), axis=1)[:, -1] if depth else np.zeros(p.n_topics)
    ideal = total * _nrbp_factor(n_subtopics(p, rel), alpha, beta)
    with np.errstate(divide="ignore", invalid="ignore"):
        return run / ideal


def ap_ia(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """MAP-IA (ndeval.c:494-540): per subtopic, ``sum (documents relevant to s so far) / rank``
    over its relevant ranked documents, in rank order, over R_s; added in code order, over |S|."""
    rel = c.rel
    judged = _Judged(p, rel)
    term = (judged.covered_before() + 1) / judged.rank[judged.e_row].astype(np.float64)
    order = np.lexsort((judged.e_row, judged.e_code, judged.e_topic))
    t, s = judged.e_topic[order], judged.e_code[order]
    head = np.r_[True, (t[1:] != t[:-1]) | (s[1:] != s[:-1])] if len(t) else np.zeros(0, bool)
    totals = np.bincount(np.cumsum(head) - 1, weights=term[order])  # per (topic, subtopic), in rank order
    g_topic, g_code = t[head], s[head]
    per = totals / _relevant_per_subtopic(p, rel, g_topic, g_code)
    value = np.bincount(g_topic, weights=per, minlength=p.n_topics)  # in code order within a topic
    n_sub = n_subtopics(p, rel)
    out = np.zeros(p.n_topics)
    np.divide(value, n_sub.astype(np.float64), out=out, where=n_sub > 0)
    return out


def _relevant_per_subtopic(p: Prepared, rel: int, topic: np.ndarray, code: np.ndarray) -> np.ndarray:
    """R_s (ndeval's ``nrelSub``: qrels documents relevant to subtopic s) of each (topic index
    of ``p``, subtopic code) pair given; every pair given has a relevant judgment."""
    inv, keys, counts = p.qmemo(("diversity-Rs", rel), lambda: _subtopic_counts(p, rel))
    width = len(_subtopics(p).names) + 1
    return counts[np.searchsorted(keys, inv[topic] * width + code)].astype(np.float64)


def _subtopic_counts(p: Prepared, rel: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    subs = _subtopics(p)
    _, inv, t, _, code = _qrels_judgments(p, subs, rel)
    a, b, counts = unique_pairs(t, code)
    return inv.astype(np.int64), a * (len(subs.names) + 1) + b, counts


def relevant_docs(p: Prepared, rel: int) -> np.ndarray:
    """Qrels documents relevant to some subtopic, per evaluated topic (the greedy ideal's
    documents of gain > 0 at alpha < 1); memoised on the qrels side."""
    return p.qmemo(("diversity-docs", rel), lambda: _relevant_docs(p, rel))


def _relevant_docs(p: Prepared, rel: int) -> np.ndarray:
    uniq, inv, t, row, _ = _qrels_judgments(p, _subtopics(p), rel)
    topics, _, _ = unique_pairs(t, row)
    return np.bincount(topics, minlength=len(uniq)).astype(np.int64)[inv]


def p_ia(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k, rel = int(m.cutoff), c.rel
    judged = _Judged(p, rel)
    top = judged.rank[judged.e_row] <= k
    count = np.bincount(judged.e_topic[top], minlength=p.n_topics).astype(np.float64)
    n_sub = n_subtopics(p, rel)
    out = np.zeros(p.n_topics)
    np.divide(count, (k * n_sub).astype(np.float64), out=out, where=n_sub > 0)
    return out


def st_recall(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    k, rel = int(m.cutoff), c.rel
    judged = _Judged(p, rel)
    top = (judged.rank[judged.e_row] <= k) & (judged.covered_before() == 0)
    count = np.bincount(judged.e_topic[top], minlength=p.n_topics).astype(np.float64)
    n_sub = n_subtopics(p, rel)
    out = np.zeros(p.n_topics)
    np.divide(count, n_sub.astype(np.float64), out=out, where=n_sub > 0)
    return out


KERNELS: dict[str, MeasureFn] = {
    "alpha_DCG": alpha_dcg, "alpha_nDCG": alpha_ndcg, "ERR_IA": err_ia, "nERR_IA": nerr_ia, "NRBP": nrbp,
    "nNRBP": nnrbp, "AP_IA": ap_ia, "P_IA": p_ia, "StRecall": st_recall,
}
