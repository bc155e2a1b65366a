"""trec_eval's gain-based experimental measures, RBP and the unjudged-rate measures.

Formulas (``i`` = 0-based rank, ``N`` = documents retrieved, ``g(d)`` = gain of a document's
grade: the grade, ``2^grade - 1`` under ``gain=exp2``, or a ``gains={grade:gain}`` map,
levels not in the map keeping gain = grade; documents not in the qrels or with a negative
grade gain 0):

* ``binG`` (m_binG.c): over the retrieved documents with grade >= rel,
  ``sum 1 / log2(2 + nonrel retrieved before it)``, divided by R; 0 when none is retrieved.
* ``G`` (m_G.c): ``sum_{g_i != 0} g_i / log2(2 + cost_i - gained_i) / sum(ideal gains)`` with
  ``gained_i`` = gain of ranks <= i, ``cost_i`` = sum over ranks j <= i of max(ideal gain
  at j, 1) (1 past the end of the ideal ranking).
* ``nDCGRel`` (m_ndcg_rel.c): mean over the L positive-gain documents of the ideal ranking
  of nDCG at the rank where the document is retrieved: at each retrieved document with
  positive gain DCG(i) / IDCG(min(i, L-1)); each of the (L - positive-gain retrieved)
  others adds DCG(N-1) / IDCG(L-1). 0 when that sum is not positive.
* ``RnDCG`` (m_Rndcg.c): mean of nDCG taken where the ideal gain changes value (ideal
  level boundaries, the end of the ideal ranking) and, when more than L + 1 documents
  are retrieved, at N; 0 when R = 0 (at ``rel``); NaN when no point qualifies
  (trec_eval prints ``-nan``).
* ``RBP`` (m_rbp.c, trec_eval 10): ``(1 - p) * sum_i gain_i * p^i``; gain per ``rbp_gain``.
* ``RBPResid`` (m_rbp_resid.c, trec_eval 10): ``p^N + (1 - p) * sum_{i unjudged} p^i``;
  under ``rbp_resid=if-unjudged`` (trec_eval 10) 0 unless an unjudged document is retrieved.
* ``Unj@k`` (m_unjudged.c, trec_eval 10 ``unj``): unjudged documents in the top k / k
  (``judged_denom=k``) or / min(k, N) (``min-k-ret``).
* ``Judged@k`` (ir_measures judged_provider.py): judged documents in the top k, same
  denominators.

The ideal ranking (G, nDCGRel, RnDCG and core nDCG) is trec_eval's: the gain levels of
the topic (every level of a ``gains`` map in ascending level order -- trec_eval keeps the
command-line order, which matters only under ``trec-int`` for a map written out of
order -- then the levels 0 .. max judged grade not in the map) are
sorted by gain with glibc's merge sort, either exactly (``ideal_sort=exact``) or with
trec_eval's comparator ``(int)(gain1 - gain2)`` (``ideal_sort=trec-int``), and walked
from the top: each level contributes its documents until the first level holding
documents whose gain is <= 0 (nothing at all when the top level's gain is <= 0). With
integer gains both sorts agree; with ``-m ndcg.1=0.5,2=0.8,3=0.9`` the truncated sort
leaves level 0 on top and the ideal ranking is empty.

Every sum runs in trec_eval's order (rank order, sequential), so last digits match.
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from auditeval.engine.glibc_sort import glibc_msort
from auditeval.engine.measures.base import MeasureFn, counted_over, safe_div
from auditeval.engine.measures.trec_set import judged_rows, running
from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.arrays import unique, unique_pairs
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.measure import Measure

MAX_FULL_LEVELS = 1 << 20  # levels listed when the comparator needs every one (ideal_levels)


# ------------------------------------------------------------------------------ helpers
def _seg_cumsum(values: np.ndarray, offsets: np.ndarray) -> np.ndarray:
    """Inclusive running sum within each CSR segment, added sequentially from the segment start.

    (A global cumsum minus the segment base would round differently from trec_eval's
    per-topic loop.) Segments are laid out as rows of a zero-padded grid and summed with
    ``cumsum(axis=1)``, which is sequential per row; segments are grouped by length
    (powers of two) so the padding never exceeds the data, one grid per group.
    """
    n = np.diff(offsets)
    out = np.zeros(len(values))
    if len(values) == 0:
        return out
    row = np.repeat(np.arange(len(n)), n)
    col = np.arange(len(values)) - offsets[row]
    bucket = np.zeros(len(n), dtype=np.int64)
    nz = n > 0
    bucket[nz] = np.ceil(np.log2(n[nz])).astype(np.int64)
    bucket_of_row = bucket[row]
    for b in unique(bucket[nz]):
        ts = np.flatnonzero(nz & (bucket == b))
        local = np.full(len(n), -1, dtype=np.int64)
        local[ts] = np.arange(len(ts))
        sel = bucket_of_row == b
        r, cc = local[row[sel]], col[sel]
        grid = np.zeros((len(ts), int(n[ts].max())))
        grid[r, cc] = values[sel]
        out[sel] = np.cumsum(grid, axis=1)[r, cc]
    return out


def _powers(p: float, n: int) -> np.ndarray:
    """``[1, p, p*p, ...]`` (n + 1 values) by repeated multiplication, as trec_eval's ``cur_p *= p``."""
    out = np.empty(n + 1)
    out[0] = 1.0
    out[1:] = np.multiply.accumulate(np.full(n, p))
    return out


def _cmp_exact(x: tuple[int, float], y: tuple[int, float]) -> int:
    return (x[1] > y[1]) - (x[1] < y[1])


def _cmp_trec_int(x: tuple[int, float], y: tuple[int, float]) -> int:
    return int(x[1] - y[1])  # C: (int)(double difference), truncation toward zero


def level_gains(levels: np.ndarray, m: Measure, c: Convention) -> np.ndarray:
    """Gain of each (non-negative) grade level under ``gain``/``gains`` (trec_eval setup_gains)."""
    lv = np.asarray(levels, dtype=np.int64)
    custom = m.param("gains")
    if custom:
        out = lv.astype(np.float64)
        for level, value in custom:
            out = np.where(lv == level, float(value), out)
        return out
    if c.gain == "exp2":
        return np.exp2(lv.astype(np.float64)) - 1.0
    return lv.astype(np.float64)


class Gained(NamedTuple):
    """The ranked rows that may have a non-zero gain (the judged ones), sparse form."""

    rows: np.ndarray  # row positions, ascending
    topic: np.ndarray
    rank: np.ndarray  # 1-based
    gain: np.ndarray  # float64 gain of the row's grade


def result_gains(p: Prepared, m: Measure, c: Convention) -> Gained:
    """Gain of each judged ranked row; every other row gains 0 (trec_eval get_gain: unknown
    levels, i.e. the sentinels grade < 0, gain 0)."""
    rows, t, r = judged_rows(p)
    return Gained(rows, t, r, level_gains(p.grade[rows], m, c))


def _nonzero(g: Gained) -> Gained:
    keep = g.gain != 0
    return Gained(g.rows[keep], g.topic[keep], g.rank[keep], g.gain[keep])


def _sparse_offsets(p: Prepared, topic: np.ndarray) -> np.ndarray:
    """CSR offsets of listed rows (``topic`` ascending) per topic."""
    return np.concatenate(([0], np.cumsum(np.bincount(topic, minlength=p.n_topics))))


def _add_ones(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``x + 1.0 + 1.0 + ...`` (``n`` additions, each rounded, as a C loop adds) for x >= 0.

    Below 2**53 adding 1.0 to x is exact while x + 1 stays in x's binade (x and 1 are
    multiples of its ulp); only the step that crosses into the next binade rounds. So the
    additions go binade by binade: jump to just below the next power of two exactly, then
    add the crossing 1.0 in floating point. From 2**53 on, each step is taken as it is
    until x + 1.0 == x.
    """
    x = np.array(x, dtype=np.float64)
    n = np.array(n, dtype=np.int64)
    todo = np.flatnonzero((n > 0) & np.isfinite(x))
    while len(todo):
        xa, na = x[todo], n[todo]
        big = xa >= 2.0**53
        top = np.ldexp(1.0, np.frexp(xa)[1])  # the power of two above xa (1 for xa = 0)
        k = np.ceil(top - xa).astype(np.int64)  # additions until >= top (top - xa is exact)
        short = ~big & (na < k)
        cross = ~big & ~short
        xa = np.where(short, xa + na.astype(np.float64), xa)
        xa = np.where(cross, (xa + (k - 1).astype(np.float64)) + 1.0, xa)
        step = np.where(big, xa + 1.0, xa)
        stuck = big & (step + 1.0 == step)
        xa = np.where(big, step, xa)
        na = np.where(short | stuck, 0, np.where(cross, na - k, na - big))
        x[todo], n[todo] = xa, na
        todo = todo[na > 0]
    return x


class Levels(NamedTuple):
    """A topic's sorted gain levels: 2-D ``[topic, slot]`` arrays, slot 0 the top of the list."""

    gain: np.ndarray  # gain of the slot's level
    count: np.ndarray  # judged documents at that level
    valid: np.ndarray  # the slot holds a level of this topic (rows are padded)
    used: np.ndarray  # the slot's documents are in the ideal ranking


def ideal_levels(p: Prepared, m: Measure, c: Convention) -> Levels:
    """trec_eval's walk over the sorted gain levels, per topic (see the module docstring).

    ``used``: the levels with documents, from the top, before the first level with
    documents whose gain is <= 0; none when the top level's gain (trec_eval's initial
    ``ideal_gain``) is <= 0.

    The sorted order depends only on the topic's highest judged grade, so it is computed
    once per distinct highest grade (a handful), not per topic.

    trec_eval lists every level 0 .. max grade (memory proportional to the grade's value: a
    grade of 2e9 is 16 GiB there). Here a topic's slots are the map's levels, the non-map levels
    that hold documents in some topic of the group, and the lowest and highest non-map level of
    0 .. max grade (they carry the minimum and maximum default gain, which RBP's ``minmax``
    reads and the top slot shows); the other levels hold no documents and, as the default gains
    (grade, 2^grade - 1) rise with the grade, lie between those two. A stable sort (glibc's
    merge sort is stable) under a consistent comparator orders a subset as it orders the whole
    set, so ``used`` and the top gain are unchanged. The one inconsistent comparator,
    ``trec-int`` with a fractional map gain (``(int)`` of a difference below 1 ties levels that
    are not tied with each other), needs every level: listed in full up to
    :data:`MAX_FULL_LEVELS`, an error beyond.
    """
    nt = p.n_topics
    qcount = np.diff(p.qoffsets)
    maxlev = np.full(nt, -1, dtype=np.int64)
    has = qcount > 0
    maxlev[has] = p.qgrade[p.qoffsets[:-1][has]]  # qgrade sorted descending within topic
    custom = [int(lv) for lv, _ in (m.param("gains") or ())]
    custom_set = set(custom)
    cmp = _cmp_trec_int if c.ideal_sort == "trec-int" else _cmp_exact
    full = c.ideal_sort == "trec-int" and any(float(g) != int(float(g)) for _, g in (m.param("gains") or ()))
    # documents per (topic, grade >= 0), sparse: one entry per distinct pair
    keep = p.qgrade >= 0
    qt, qg = p.qrow_topic[keep].astype(np.int64), p.qgrade[keep].astype(np.int64)
    pt, pg, pcount = unique_pairs(qt, qg)
    values, group = np.unique(maxlev, return_inverse=True)  # topics grouped by highest grade
    pgroup = group[pt]
    orders = []
    for k, v in enumerate(values.tolist()):
        if full:
            if v + 1 > MAX_FULL_LEVELS:
                raise EvaluationError(
                    f"{m}: grade {v} needs trec_eval's list of every level 0..{v} (ideal_sort=trec-int "
                    f"with a fractional gains map); at most {MAX_FULL_LEVELS} levels are listed "
                    "(ideal_sort=exact needs no such list)")
            plain = [lv for lv in range(v + 1) if lv not in custom_set]
        else:
            held = set(unique(pg[pgroup == k]).tolist()) - custom_set
            lo = next((lv for lv in range(v + 1) if lv not in custom_set), None)
            hi = next((lv for lv in range(v, -1, -1) if lv not in custom_set), None)
            plain = sorted(held | {x for x in (lo, hi) if x is not None})
        # setup_gains: the map's levels in order, then levels 0..v not in the map
        levels = custom + plain
        gains = level_gains(np.array(levels, dtype=np.int64), m, c) if levels else np.zeros(0)
        orders.append(glibc_msort(list(zip(levels, gains.tolist(), strict=True)), cmp)[::-1])  # top first
    width = max([1, *(len(o) for o in orders)])
    slot_level = np.full((nt, width), -1, dtype=np.int64)
    slot_gain = np.zeros((nt, width))
    valid = np.zeros((nt, width), dtype=bool)
    cnt = np.zeros(slot_level.shape, dtype=np.int64)
    for k, order in enumerate(orders):
        if not order:
            continue
        rows = group == k
        lv = np.array([x for x, _ in order], dtype=np.int64)
        slot_level[rows, : len(order)] = lv
        slot_gain[rows, : len(order)] = np.array([g for _, g in order])
        valid[rows, : len(order)] = True
        # each (topic, grade) count into the slot holding that grade (levels are distinct)
        sel = np.flatnonzero(pgroup == k)
        by_level = np.argsort(lv, kind="stable")
        slot = by_level[np.searchsorted(lv[by_level], pg[sel])]
        cnt[pt[sel], slot] = pcount[sel]
    active = cnt > 0
    stop = active & (slot_gain <= 0)
    before_stop = np.cumsum(stop, axis=1) == 0
    top = np.where(valid[:, 0], slot_gain[:, 0], 0.0)
    used = active & before_stop & (top > 0)[:, None]
    return Levels(slot_gain, cnt, valid, used)


def ideal_gains(p: Prepared, m: Measure, c: Convention) -> tuple[np.ndarray, np.ndarray]:
    """Ideal gain at each ideal position, aligned with the qrels rows (``p.qoffsets``).

    Position j of topic t sits at row ``p.qoffsets[t] + j``; positions past the end L of the
    ideal ranking hold 0. Returns ``(gains, L)`` (memoised with ``p.qmemo``, read-only).
    """
    return p.qmemo(("ideal_gains", m.param("gains"), c.gain, c.ideal_sort), lambda: _ideal_gains(p, m, c))


def _ideal_gains(p: Prepared, m: Measure, c: Convention) -> tuple[np.ndarray, np.ndarray]:
    lv = ideal_levels(p, m, c)
    n_used = np.where(lv.used, lv.count, 0)
    length = n_used.sum(axis=1)
    seq = np.repeat(lv.gain.ravel(), n_used.ravel())  # row-major: topic by topic, top slot first
    out = np.zeros(len(p.qgrade))
    starts = np.repeat(p.qoffsets[:-1], length)
    pos = np.arange(len(seq)) - np.repeat(np.concatenate(([0], np.cumsum(length)))[:-1], length)
    out[starts + pos] = seq
    return out, length


def _ideal_prefix(p: Prepared, ig: np.ndarray) -> np.ndarray:
    """IDCG through each ideal position (qrels-row aligned), summed sequentially."""
    qrank = np.arange(len(ig)) - p.qoffsets[p.qrow_topic] + 1
    return _seg_cumsum(np.where(ig != 0, ig / np.log2(qrank + 1.0), 0.0), p.qoffsets)


def _at(values: np.ndarray, offsets: np.ndarray, t: np.ndarray, j: np.ndarray) -> np.ndarray:
    """``values[offsets[t] + j]`` (caller guarantees the index is inside topic t)."""
    return values[offsets[t] + j]


# ------------------------------------------------------------------------------ measures
def bin_g(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """binG (m_binG.c): mean over the R relevant of 1 / log2(2 + nonrelevant retrieved before)."""
    _, t, rank = p.rows_where(p.rel_mask(c.rel))
    # trec_eval: log2(3 + i - rel_so_far) with i 0-based = log2(2 + rank - rel_so_far)
    contrib = 1.0 / np.log2((2 + rank - running(t)).astype(np.float64))
    total = np.bincount(t, weights=contrib, minlength=p.n_topics)
    relret = np.bincount(t, minlength=p.n_topics)
    if c.rel < 0:
        return counted_over(total, relret, p.num_rel(c.rel))
    return np.where(relret > 0, safe_div(total, p.num_rel(c.rel)), 0.0)


def g_measure(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """G (m_G.c): gain / log2(2 + ideal cost so far - gain so far), normalised by the ideal gain."""
    ig, length = ideal_gains(p, m, c)
    # only rows with a non-zero gain add a term; the running sums they need:
    g = _nonzero(result_gains(p, m, c))
    t, j = g.topic, g.rank - 1
    # gained so far (zero gains skipped: + 0.0 changes nothing)
    sum_results = _seg_cumsum(g.gain, _sparse_offsets(p, t))
    # ideal cost so far: per rank, the ideal gain at that position when >= 1, else 1 (also
    # past the ideal ranking). The qrels rows give the positions < Q (judged docs of the
    # topic, Q >= L); beyond them 1.0 is added once per rank, as the C loop does.
    qt = p.qrow_topic
    jq = np.arange(len(ig)) - p.qoffsets[qt]
    qcost = np.where((jq < length[qt]) & (ig >= 1.0), ig, 1.0)
    qcum = _seg_cumsum(qcost, p.qoffsets)
    nq = np.diff(p.qoffsets)[t]
    inside = j < nq
    sum_cost = np.zeros(len(t))
    sum_cost[inside] = _at(qcum, p.qoffsets, t[inside], j[inside])
    out = ~inside
    base = np.where(nq[out] > 0, qcum[np.maximum(p.qoffsets[t[out]] + nq[out] - 1, 0)] if len(qcum) else 0.0, 0.0)
    sum_cost[out] = _add_ones(base, j[out] - nq[out] + 1)
    with np.errstate(divide="ignore", invalid="ignore"):
        contrib = g.gain / np.log2((2.0 + sum_cost) - sum_results)
    results_g = np.bincount(t, weights=contrib, minlength=p.n_topics)
    sum_ideal = p.seg_sum(np.where(ig > 0, ig, 0.0), rows="qrels")
    return np.where(sum_ideal > 0, safe_div(results_g, sum_ideal), 0.0)


def _dcg_prefix(p: Prepared, g: Gained) -> np.ndarray:
    """DCG through each listed row of ``g`` (its non-zero-gain rows), summed sequentially."""
    return _seg_cumsum(g.gain / np.log2(g.rank + 1.0), _sparse_offsets(p, g.topic))


def _dcg_through(p: Prepared, g: Gained, dcg: np.ndarray, t: np.ndarray, k: np.ndarray) -> np.ndarray:
    """DCG of topic ``t`` through rank ``k`` (k <= N; 0 for k = 0), from the listed rows."""
    last = p.offsets[t] + k - 1  # the row at rank k
    pos = np.searchsorted(g.rows, last, side="right") - 1  # last listed row at or above it
    ok = (k > 0) & (pos >= 0)
    pos = np.maximum(pos, 0)
    if len(g.rows):
        ok &= g.topic[pos] == t
        return np.where(ok, dcg[pos] if len(dcg) else 0.0, 0.0)
    return np.zeros(len(t))


def ndcg_rel(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """nDCGRel (m_ndcg_rel.c): nDCG averaged over the positive-gain documents of the ideal ranking."""
    ig, length = ideal_gains(p, m, c)
    icum = _ideal_prefix(p, ig)
    g = _nonzero(result_gains(p, m, c))
    dcg = _dcg_prefix(p, g)
    hit = g.gain > 0
    t, j, dcg_hit = g.topic[hit], g.rank[hit] - 1, dcg[hit]
    has = length > 0
    # IDCG when the document is reached: through rank i, frozen at the end of the ideal
    # ranking; 0 when the ideal ranking is empty (C then divides by 0: inf/NaN, as here)
    idcg_here = np.zeros(len(t))
    sel = has[t]
    idcg_here[sel] = _at(icum, p.qoffsets, t[sel], np.minimum(j, length[t] - 1)[sel])
    with np.errstate(divide="ignore", invalid="ignore"):
        total = np.bincount(t, weights=dcg_hit / idcg_here, minlength=p.n_topics)
        n_hit = np.bincount(t, minlength=p.n_topics).astype(np.int64)
        dcg_end = _dcg_through(p, g, dcg, np.arange(p.n_topics), p.num_ret)
        idcg_full = np.zeros(p.n_topics)
        idcg_full[has] = icum[p.qoffsets[:-1][has] + length[has] - 1]
        # the ideal documents not retrieved with positive gain each add nDCG at the end
        total = total + ((length - n_hit) * dcg_end) / idcg_full
        return np.where(total > 0, total / length, 0.0)


def rndcg(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """RnDCG (m_Rndcg.c): nDCG averaged at the points where the ideal gain changes."""
    ig, length = ideal_gains(p, m, c)
    icum = _ideal_prefix(p, ig)
    g = _nonzero(result_gains(p, m, c))
    dcg = _dcg_prefix(p, g)
    nt = p.n_topics
    n = p.num_ret
    # change points i = 1..L (0-based step i compares ideal gain at i with that at i-1);
    # at i = 0 IDCG is still 0, so it never counts
    qt = p.qrow_topic
    jq = np.arange(len(ig)) - p.qoffsets[qt]  # ideal position of each qrels row
    inside = jq < length[qt]
    prev = np.concatenate(([0.0], ig[:-1]))
    step = inside & (jq >= 1) & (ig != prev)  # change between positions jq-1 and jq (< L)
    # value added at step i: DCG over ranks < min(i, N) / IDCG over positions < i
    def dcg_before(tt: np.ndarray, i: np.ndarray) -> np.ndarray:
        return _dcg_through(p, g, dcg, tt, np.minimum(i, n[tt]))

    t_in = qt[step]
    i_in = jq[step]
    v_in = dcg_before(t_in, i_in) / icum[p.qoffsets[t_in] + i_in - 1]
    # the end of the ideal ranking (step L): always a change, from a positive gain to the
    # gain <= 0 of the level where the walk stops (or 0 past the last level)
    has = length > 0
    t_end = np.flatnonzero(has)
    i_end = length[has]
    v_end = dcg_before(t_end, i_end) / icum[p.qoffsets[t_end] + i_end - 1]
    # more than L + 1 retrieved: one more point at N (m_Rndcg.c loop 2)
    extra = has & (n > length + 1)
    t_x = np.flatnonzero(extra)
    v_x = dcg_before(t_x, n[extra]) / icum[p.qoffsets[t_x] + length[extra] - 1]
    # trec_eval's order: change points by step, then the point at N
    t_all = np.concatenate((t_in, t_end, t_x))
    key = np.concatenate((i_in, i_end, np.full(len(t_x), np.iinfo(np.int64).max)))
    order = np.lexsort((key, t_all))
    t_all = t_all[order]
    v_all = np.concatenate((v_in, v_end, v_x))[order]
    total = np.bincount(t_all, weights=v_all, minlength=nt)
    count = np.bincount(t_all, minlength=nt)
    with np.errstate(divide="ignore", invalid="ignore"):
        value = total / count  # 0 / 0 -> NaN, as trec_eval
    # a topic absent from the run (-c) is never evaluated by trec_eval: 0, not 0 / 0
    return np.where((p.num_rel(c.rel) == 0) | p.missing, 0.0, value)


def rbp_gain(p: Prepared, m: Measure, c: Convention) -> Gained:
    """Gain of the ranked rows under ``rbp_gain`` (minmax per topic over its gain levels),
    for the rows that may gain (relevant or judged); every other row gains 0. The level
    gains are the grades or the gains map: the spec pins ``gain=linear`` for RBP
    (``fixed``), so nDCG's ``gain`` axis never reaches here."""
    if c.rbp_gain == "binary":  # (a gains map here is refused by the spec's check_convention)
        rows, t, r = p.rows_where(p.rel_mask(c.rel))
        return Gained(rows, t, r, np.ones(len(rows)))
    g = result_gains(p, m, c)
    if c.rbp_gain == "raw":
        return g
    # minmax (m_rbp.c:68-82): min/max over the topic's levels (0..max grade, plus the map's)
    # (trec_eval 10 leaves min/max uninitialised; this is the value it intends and prints)
    lv = ideal_levels(p, m, c)
    lo = np.where(lv.valid, lv.gain, np.inf).min(axis=1)
    hi = np.where(lv.valid, lv.gain, -np.inf).max(axis=1)
    rescale = (lo < 0) | (hi > 1)
    t, rg = g.topic, g.gain  # judged rows only: get_gain of an unknown level is 0, never rescaled
    with np.errstate(divide="ignore", invalid="ignore"):
        scaled = (rg - lo[t]) / (hi[t] - lo[t])
    return g._replace(gain=np.where(rescale[t], scaled, rg))


def rbp(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """RBP (m_rbp.c): (1 - p) * sum gain_i * p^(rank-1)."""
    prob = float(c.rbp_p)
    g = rbp_gain(p, m, c)
    pw = _powers(prob, int(p.num_ret.max(initial=0)))
    total = np.bincount(g.topic, weights=np.where(g.gain != 0, g.gain * pw[g.rank - 1], 0.0), minlength=p.n_topics)
    return (1.0 - prob) * total


def rbp_resid(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """RBPResid (m_rbp_resid.c): p^N + (1 - p) * sum over unjudged ranks of p^(rank-1)."""
    prob = float(c.rbp_p)
    pw = _powers(prob, int(p.num_ret.max(initial=0)))
    # nearly every row may be unjudged: dense, but a block of whole topics at a time
    total = np.zeros(p.n_topics)
    n_unj = np.zeros(p.n_topics, dtype=np.int64)
    for t0, t1 in _topic_blocks(p):
        lo, hi = p.offsets[t0], p.offsets[t1]
        counts = p.num_ret[t0:t1]
        starts = p.offsets[t0:t1] - lo
        local = np.repeat(np.arange(t1 - t0), counts)
        unj = p.grade[lo:hi] < 0
        idx = np.arange(hi - lo) - np.repeat(starts, counts)  # rank - 1
        total[t0:t1] = np.bincount(local, weights=np.where(unj, pw[idx], 0.0), minlength=t1 - t0)
        n_unj[t0:t1] = np.bincount(local[unj], minlength=t1 - t0)
    value = pw[p.num_ret] + (1 - prob) * total
    if c.rbp_resid == "if-unjudged":
        value = np.where(n_unj > 0, value, 0.0)
    return value


def _topic_blocks(p: Prepared, rows: int = 1 << 20) -> list[tuple[int, int]]:
    """Consecutive topic ranges ``[t0, t1)`` of about ``rows`` ranked rows each (whole topics:
    per-topic sums over a block equal those over the whole array)."""
    cuts = np.searchsorted(p.offsets, np.arange(rows, int(p.offsets[-1]), rows), side="right")
    bounds = unique(np.concatenate(([0], cuts, [p.n_topics])))
    return [(int(a), int(b)) for a, b in zip(bounds[:-1], bounds[1:], strict=True)]


def _judged_denom(p: Prepared, k: int, c: Convention) -> np.ndarray:
    if c.judged_denom == "min-k-ret":
        return np.minimum(k, p.num_ret).astype(np.float64)
    return np.full(p.n_topics, float(k))


def unjudged_at(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """Unj@k (m_unjudged.c): documents not in the qrels (or negative grade under negatives=pooled) in the top k."""
    k = int(m.cutoff)
    n = np.minimum(p.num_ret, k) - _judged_in_top(p, k)  # rows in the top k minus judged ones
    return safe_div(n, _judged_denom(p, k, c))


def judged_at(p: Prepared, m: Measure, c: Convention) -> np.ndarray:
    """Judged@k (ir_measures judged_provider.py): judged documents in the top k; uncut
    ``Judged`` (ir_measures' default): judged retrieved / retrieved."""
    if m.cutoff is None:
        return safe_div(_judged_in_top(p, None), p.num_ret)
    k = int(m.cutoff)
    return safe_div(_judged_in_top(p, k), _judged_denom(p, k, c))


def _judged_in_top(p: Prepared, k: int | None) -> np.ndarray:
    _, t, _ = p.rows_where(p.rel_mask(0), k)
    return np.bincount(t, minlength=p.n_topics).astype(np.int64)


KERNELS: dict[str, MeasureFn] = {
    "binG": bin_g,
    "G": g_measure,
    "nDCGRel": ndcg_rel,
    "RnDCG": rndcg,
    "RBP": rbp,
    "RBPResid": rbp_resid,
    "Unj": unjudged_at,
    "Judged": judged_at,
}
