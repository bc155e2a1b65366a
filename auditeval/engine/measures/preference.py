"""Preference measures (``prefs_*``, trec_eval -R prefs / qrels_prefs) and the judgment-group
measures (``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``, -R qrels_jg), per topic.

These measures read judgments that are no grades (judgment groups, sub-groups, preference
levels), so they do not run on :class:`~auditeval.engine.ranked_lists.Prepared`; the door
offers :func:`prefs_topic_values` and :func:`jg_topic_values`, one topic at a time.

Conventions, each named in :data:`CONVENTIONS` with its source:

* ranking: score descending, ties by docno **ascending** for preferences
  (form_prefs_counts.c:997-1005 ``comp_sim_docno``: ``strcmp(p1, p2)``) but docno
  descending for qrels_jg (form_res_rels_jg.c:281-290, as form_res_rels.c); C ``float``
  scores and preference levels in 9.0.8 (form_prefs_counts.c:107,114 ``float sim``,
  ``float rel_level``; ``double`` in 9.0.8-double and 10.0); NaN scores in glibc's merge-sort order;
* docid ranks (form_prefs_counts.c:20-27): judged retrieved docs ``0..R-1`` in rank order,
  judged unretrieved docs ``R..J-1`` in docno order;
* a judgment group with one sub-group is a list of equivalence classes by level (EC,
  form_prefs_counts.c:28-33, 425-537 ``form_jg_ec``/``add_ec_pref_to_jg``); with several, a
  preference array closed under transitivity (form_prefs_counts.c:34-42, 539-757 ``form_jg_pa``,
  ``add_transitives``, ``add_pa_pref_to_jg``);
* counts per group (form_prefs_counts.c:43-74): fulfilled/possible among retrieved (``ret``),
  implied (one retrieved, ``imp``), neither retrieved (``notoccur``); a count matrix over
  groups (``pref_counts``, for the ``pair`` measures).

Formulas (``ful = ful_ret + ful_imp``, ``poss = poss_ret + poss_imp + notoccur``, sums over
groups; a value with a zero denominator stays 0):

* ``prefs_num_prefs_poss`` = poss, ``prefs_num_prefs_ful`` = ful, ``prefs_num_prefs_ful_ret`` =
  ful_ret (m_prefs_num_prefs_*.c; summary = sum over topics);
* ``prefs_simp`` = ful/poss, ``prefs_simp_ret`` = ful_ret/poss_ret, ``prefs_simp_imp`` =
  (ful_ret+ful_imp)/(poss_ret+poss_imp) (m_prefs_simp*.c);
* ``prefs_pair*``: mean over doc pairs with a preference of ``c[i][j]/(c[i][j]+c[j][i])``, pairs
  both retrieved (``_ret``), one retrieved (``_imp`` adds them), neither (plain adds those as 0)
  (m_prefs_pair*.c);
* ``prefs_avgjg*``: the simp ratios per group, summed, divided by the number of groups if the
  sum is positive (m_prefs_avgjg*.c);
* ``prefs_avgjg_Rnonrel[_ret]``: per group, nonrelevant docs set to R (m_prefs_avgjg_Rnonrel.c:
  62-96, ``recalculate`` l.104-230; _ret.c likewise);
* ``map_avgjg``, ``P_avgjg``, ``Rprec_mult_avgjg``: AP, P@k, P at (long)(x*R+0.9) per group,
  averaged over groups when more than one (m_map_avgjg.c:39-70, m_P_avgjg.c:46-86,
  m_Rprec_mult_avgjg.c:49-108).

Sums run in trec_eval's loop order (``np.cumsum`` is sequential), so values are bit-identical.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from auditeval.engine.glibc_sort import glibc_msort
from auditeval.vocab.arrays import unique
from auditeval.vocab.errors import EvaluationError

CONVENTIONS = {
    "prefs_ties": "score desc, docno asc (form_prefs_counts.c:997-1005 comp_sim_docno)",
    "jg_ties": "score desc, docno desc (form_res_rels_jg.c:281-290 comp_sim_docno)",
    "float32": "9.0.8: float sim and rel_level (form_prefs_counts.c:107,114); 10.0: double",
    "zero_denominator": "a ratio with no possible preference leaves the value 0 (m_prefs_simp.c:58)",
}



class PrefsFailure(EvaluationError):
    """trec_eval's calc fails on this topic (it prints ``message`` and stops, exit 4)."""

    def __init__(self, message: str):
        super().__init__(message.rstrip("\n"))
        self.message = message


class PrefsAbort(EvaluationError):
    """trec_eval aborts (SIGABRT) or reads past its arrays on this topic."""


@dataclass
class Group:
    """One judgment group's counts (form_prefs_counts.c JG)."""

    ful_ret: int = 0
    poss_ret: int = 0
    ful_imp: int = 0
    poss_imp: int = 0
    notoccur: int = 0
    num_rel: int = 0
    num_rel_ret: int = 0
    num_nonrel: int = 0
    num_nonrel_ret: int = 0
    ecs: list | None = None  # [(level, ranks ascending)], EC form
    pa: np.ndarray | None = None  # bool preference array over the group's docs, PA form
    rel: np.ndarray | None = None  # their rel_level, PA form
    ranks: np.ndarray | None = None  # their docid ranks (ascending), PA form


@dataclass
class TopicPrefs:
    groups: list[Group]
    counts: np.ndarray  # uint16 [J, J]: jgs preferring docid rank i to j (trec_eval: unsigned short)
    n_judged: int
    n_judged_ret: int
    memo: dict = field(default_factory=dict)  # the pair terms, shared by prefs_pair*


def _c_sort(docs: Sequence[str], sims: np.ndarray, doc_desc: bool) -> list[int]:
    """Row order of trec_eval's ``qsort`` by score desc, then docno (asc or desc)."""
    n = len(docs)
    if not np.isnan(sims).any():
        keys = sorted(range(n), key=lambda i: docs[i], reverse=doc_desc)
        s = sims[keys]
        order = np.argsort(-s, kind="stable")
        return [keys[k] for k in order]

    def cmp(a: int, b: int) -> int:
        if sims[a] > sims[b]:
            return -1
        if sims[a] < sims[b]:
            return 1
        da, db = (docs[b], docs[a]) if doc_desc else (docs[a], docs[b])
        return -1 if da < db else (1 if da > db else 0)

    # the results arrive sorted by docno (get_trec_results.c:173, a stable merge sort), and NaN
    # makes the comparator inconsistent: replay glibc's merge sort from that order
    return glibc_msort(sorted(range(n), key=lambda i: docs[i]), cmp)


def ranked_docs(docs: Sequence[str], scores: np.ndarray, float32: bool, depth: int | None,
                doc_desc: bool) -> list[str]:
    """The retrieved docnos in trec_eval's rank order, cut at ``-M`` ``depth``."""
    sims = np.asarray(scores, dtype=np.float32 if float32 else np.float64).astype(np.float64)
    order = _c_sort(docs, sims, doc_desc)
    if depth is not None:
        order = order[: max(depth, 0)]
    return [docs[i] for i in order]


def _duplicate(ranked: list[str]) -> str | None:
    srt = sorted(ranked)
    for a, b in zip(srt, srt[1:], strict=False):
        if a == b:
            return b
    return None


def prefs_counts(jg: Sequence[str], jsg: Sequence[str], level: np.ndarray, doc: Sequence[str],
                 ranked: list[str], float32: bool) -> TopicPrefs:
    """form_prefs_counts.c ``form_prefs_counts`` for one topic."""
    d = _duplicate(ranked)
    if d is not None:
        raise PrefsFailure(f"trec_eval.form_prefs_counts: duplicate docs {d}")
    lev = np.asarray(level, dtype=np.float32 if float32 else np.float64).astype(np.float64)
    judged = set(doc)
    ret = [x for x in ranked if x in judged]
    rank_of = {x: i for i, x in enumerate(ret)}
    njr = len(ret)
    nxt = njr
    for x in sorted(judged - set(ret)):
        rank_of[x] = nxt
        nxt += 1
    nj = nxt
    rank = [rank_of[x] for x in doc]
    n = len(doc)
    order = sorted(range(n), key=lambda i: (jg[i], jsg[i], -lev[i], rank[i]))
    counts = np.zeros((nj, nj), dtype=np.uint16)  # unsigned short, as trec_eval's (wraps past 65535)
    groups: list[Group] = []
    start = 0
    while start < n:
        g = jg[order[start]]
        end = start
        while end < n and jg[order[end]] == g:
            end += 1
        idx = order[start:end]
        n_sub = 1 + sum(1 for a, b in zip(idx, idx[1:], strict=False) if jsg[a] != jsg[b])
        grp = Group()
        if n_sub > 1:
            _form_pa(grp, idx, jsg, lev, rank, doc, njr, counts)
        else:
            _form_ec(grp, idx, lev, rank, njr, counts)
        groups.append(grp)
        start = end
    return TopicPrefs(groups, counts, nj, njr)


def _form_ec(grp: Group, idx: list[int], lev: np.ndarray, rank: list[int], njr: int, counts: np.ndarray) -> None:
    ecs: list[tuple[float, np.ndarray]] = []
    cur: list[int] = []
    cur_lev = lev[idx[0]]
    for i in idx:
        if lev[i] != cur_lev:
            ecs.append((cur_lev, np.array(cur, dtype=np.int64)))
            cur, cur_lev = [], lev[i]
        cur.append(rank[i])
    ecs.append((cur_lev, np.array(cur, dtype=np.int64)))
    grp.ecs = ecs
    for e1, (l1, r1) in enumerate(ecs):
        n_ret = int(np.count_nonzero(r1 < njr))  # ranks ascending: the retrieved prefix
        if l1 > 0.0:
            grp.num_rel_ret += n_ret
            grp.num_rel += len(r1)
        else:
            grp.num_nonrel_ret += n_ret
            grp.num_nonrel += len(r1)
        for _l2, r2 in ecs[e1 + 1:]:
            a = np.repeat(r1, len(r2))
            b = np.tile(r2, len(r1))
            same = np.flatnonzero(a == b)
            if len(same):
                raise PrefsFailure(
                    "trec_eval.form_prefs_counts: Internal docid "
                    f"{int(a[same[0]])} occurs with different rel_level in same jsg\n")
            if len(unique(r1)) == len(r1) and len(unique(r2)) == len(r2):
                counts[np.ix_(r1, r2)] += np.uint16(1)  # distinct pairs: one increment each
            else:
                np.add.at(counts, (a, b), np.uint16(1))
            ful = a < b
            grp.ful_ret += int(np.count_nonzero(ful & (b < njr)))
            grp.ful_imp += int(np.count_nonzero(ful & (b >= njr) & (a < njr)))
            grp.notoccur += int(np.count_nonzero(ful & (a >= njr)))
            nf = ~ful
            grp.poss_ret += int(np.count_nonzero(nf & (a < njr)))
            grp.poss_imp += int(np.count_nonzero(nf & (a >= njr) & (b < njr)))
            grp.notoccur += int(np.count_nonzero(nf & (a >= njr) & (b >= njr)))
    grp.poss_ret += grp.ful_ret
    grp.poss_imp += grp.ful_imp


def _form_pa(grp: Group, idx: list[int], jsg: Sequence[str], lev: np.ndarray, rank: list[int],
             doc: Sequence[str], njr: int, counts: np.ndarray) -> None:
    """form_jg_pa / add_transitives / add_pa_pref_to_jg on the group's own docs: trec_eval's
    ``J x J`` array is zero outside them, so the closure and the counts are taken on the ``k x k``
    block of the group's docid ranks (ascending, so row-major order is trec_eval's)."""
    ranks = unique(np.asarray([rank[i] for i in idx], dtype=np.int64))
    at = {int(r): k for k, r in enumerate(ranks)}
    pa = np.zeros((len(ranks), len(ranks)), dtype=bool)
    rel = np.full(len(ranks), -1.0)
    m = len(idx)
    for k, i in enumerate(idx):
        r = at[rank[i]]
        if (rel[r] > 0.0 and lev[i] == 0.0) or (rel[r] == 0.0 and lev[i] > 0.0):
            raise PrefsFailure(f"trec_eval.form_prefs_counts: doc '{doc[i]}' has both 0 and non-0 rel_level assigned\n")
        rel[r] = lev[i]
        j = k + 1
        while j < m and jsg[idx[j]] == jsg[i] and lev[idx[j]] == lev[i]:
            j += 1
        while j < m and jsg[idx[j]] == jsg[i]:
            pa[r, at[rank[idx[j]]]] = True
            j += 1
    np.fill_diagonal(pa, True)
    for k in range(len(ranks)):  # reflexive-transitive closure = repeated products until stable
        pa |= pa[:, k:k + 1] & pa[k:k + 1, :]
    np.fill_diagonal(pa, False)
    both = pa & pa.T
    if both.any():
        i, j = (int(ranks[x]) for x in np.argwhere(both)[0])
        raise PrefsAbort(
            "trec_eval.form_prefs_counts: Pref inconsistency found\n"
            f"      internal rank {i} and internal rank {j} are conflicted\n"
            "trec_eval aborts here (SIGABRT)")
    grp.pa, grp.rel, grp.ranks = pa, rel, ranks
    ret = ranks < njr
    grp.num_rel_ret = int(np.count_nonzero(rel[ret] > 0.0))
    grp.num_nonrel_ret = int(np.count_nonzero(rel[ret] == 0.0))
    grp.num_rel = int(np.count_nonzero(rel > 0.0))
    grp.num_nonrel = int(np.count_nonzero(rel == 0.0))
    counts[np.ix_(ranks, ranks)] += pa.astype(np.uint16)
    a = _areas(pa, ranks, njr)
    grp.poss_ret, grp.ful_ret, grp.ful_imp, grp.poss_imp, grp.notoccur = a
    grp.poss_ret += grp.ful_ret
    grp.poss_imp += grp.ful_imp


def _areas(pa: np.ndarray, ranks: np.ndarray, njr: int) -> tuple[int, int, int, int, int]:
    """Marks of ``pa`` (rows preferred to columns, docid ranks ``ranks``) per area of
    form_prefs_counts.c:56-74: A2 both retrieved, unfulfilled; A1 both, fulfilled; A3 row
    retrieved only; A4 column retrieved only; A5 neither."""
    i, j = ranks[:, None], ranks[None, :]
    ri, rj = i < njr, j < njr
    both = pa & ri & rj
    return (int(np.count_nonzero(both & (j < i))), int(np.count_nonzero(both & (j > i))),
            int(np.count_nonzero(pa & ri & ~rj)), int(np.count_nonzero(pa & ~ri & rj)),
            int(np.count_nonzero(pa & ~ri & ~rj)))


def _ratio(a: float, b: float) -> float:
    """C ``(double) a / (double) b`` (0/0 is NaN, x/0 inf)."""
    if b == 0:
        return math.nan if a == 0 else math.copysign(math.inf, a)
    return a / b


def _seq_sum(terms: list[float]) -> float:
    return float(np.cumsum(np.asarray(terms, dtype=np.float64))[-1]) if terms else 0.0


def _recalc(grp: Group, njr: int, ret_only: bool) -> tuple[int, int]:
    """m_prefs_avgjg_Rnonrel.c / _ret.c ``recalculate``: nonrelevant docs cut to R."""
    ful = poss = 0
    if grp.ecs is not None:
        ecs = grp.ecs
        last = ecs[-1][1]
        keep = grp.num_rel_ret if ret_only else grp.num_rel
        if keep > len(last) and not (ret_only and (last >= njr).any()):
            raise PrefsAbort("prefs_avgjg_Rnonrel reads past its last equivalence class here (undefined behaviour)")
        new = last[:keep]
        if ret_only:
            new = new[: int(np.count_nonzero(np.cumprod(new < njr)))]

        def pairs(r1: np.ndarray, r2: np.ndarray) -> tuple[int, int]:
            if ret_only:
                r1 = r1[: int(np.count_nonzero(np.cumprod(r1 < njr)))]
                r2 = r2[: int(np.count_nonzero(np.cumprod(r2 < njr)))]
                f = r1[:, None] < r2[None, :]
            else:
                f = (r1[:, None] < r2[None, :]) & (r1[:, None] < njr)
            k = int(np.count_nonzero(f))
            return k, f.size - k

        for e1 in range(len(ecs)):
            for e2 in range(e1 + 1, len(ecs) - 1):
                a, b = pairs(ecs[e1][1], ecs[e2][1])
                ful, poss = ful + a, poss + b
        for e1 in range(len(ecs)):
            a, b = pairs(ecs[e1][1], new)
            ful, poss = ful + a, poss + b
        return ful, poss + ful
    rel, pa, ranks = grp.rel, grp.pa, grp.ranks
    assert rel is not None and pa is not None and ranks is not None
    # the (num_rel + 1)-th nonrelevant doc in docid rank order (within the retrieved for _ret):
    # it and every nonrelevant doc after it leave the array
    zero = ranks[(rel == 0.0) & (ranks < njr if ret_only else True)]
    fdn = int(zero[grp.num_rel]) if len(zero) > grp.num_rel else None
    keep = ~((ranks >= fdn) & (rel == 0.0)) if fdn is not None else np.ones(len(ranks), bool)
    a = pa & keep[:, None] & keep[None, :]
    a2, a1, a3, a4, a5 = _areas(a, ranks, njr)
    ful, poss = (a1, a2) if ret_only else (a1 + a3, a2 + a4 + a5)
    return ful, poss + ful


def _pair(tp: TopicPrefs, parts: int) -> float:
    """m_prefs_pair*.c: pairs i < j of docid ranks, both retrieved, then one retrieved (row by
    row, as the C loops), then neither (counted only, ``parts`` 3)."""
    if "pairs" not in tp.memo:
        c, njr = tp.counts, tp.n_judged_ret
        iu = np.triu_indices(njr, 1)
        blocks = [(c[:njr, :njr][iu], c[:njr, :njr].T[iu]), (c[:njr, njr:].ravel(), c[njr:, :njr].T.ravel())]
        memo = []
        for cij, cji in blocks:
            hit = (cij > 0) | (cji > 0)
            a, b = cij[hit].astype(np.float64), cji[hit].astype(np.float64)
            memo.append((len(a), a / (a + b)))
        sub = c[njr:, njr:] > 0  # unordered pairs with a preference either way (diagonal empty)
        memo.append(((2 * int(np.count_nonzero(sub)) - int(np.count_nonzero(sub & sub.T))) // 2, np.zeros(0)))
        tp.memo["pairs"] = memo
    used = tp.memo["pairs"][:parts]
    n_pairs = sum(n for n, _ in used)
    t = np.concatenate([x for _, x in used])
    return (float(np.cumsum(t)[-1]) if len(t) else 0.0) / n_pairs if n_pairs else 0.0


def _avgjg(tp: TopicPrefs, ful_of, poss_of) -> float:
    terms = []
    for g in tp.groups:
        p = poss_of(g)
        if p:
            terms.append(ful_of(g) / p)
    s = _seq_sum(terms)
    return s / len(tp.groups) if s > 0.0 else 0.0


def _rnonrel(tp: TopicPrefs, ret_only: bool) -> float:
    terms = []
    for g in tp.groups:
        r, n = (g.num_rel_ret, g.num_nonrel_ret) if ret_only else (g.num_rel, g.num_nonrel)
        if r >= n:
            if ret_only:
                f, p = g.ful_ret, g.poss_ret
            else:
                f, p = g.ful_ret + g.ful_imp, g.poss_ret + g.poss_imp + g.notoccur
            f += g.num_rel_ret * (r - n)
            p += g.num_rel * (r - n)
        else:
            f, p = _recalc(g, tp.n_judged_ret, ret_only)
        terms.append(_ratio(f, p))
    s = _seq_sum(terms)
    return s / len(tp.groups) if s > 0.0 else 0.0


def _simp(ful: int, poss: int) -> float:
    return ful / poss if poss else 0.0


def prefs_measure(tp: TopicPrefs, name: str) -> float:
    """One preference measure's value on one topic (formulas in the module docstring)."""
    gs = tp.groups
    ful_ret = sum(g.ful_ret for g in gs)
    ful_imp = sum(g.ful_imp for g in gs)
    poss_ret = sum(g.poss_ret for g in gs)
    poss_imp = sum(g.poss_imp for g in gs)
    notoccur = sum(g.notoccur for g in gs)
    if name == "prefs_num_prefs_poss":
        return float(poss_ret + poss_imp + notoccur)
    if name == "prefs_num_prefs_ful":
        return float(ful_ret + ful_imp)
    if name == "prefs_num_prefs_ful_ret":
        return float(ful_ret)
    if name == "prefs_simp":
        return _simp(ful_ret + ful_imp, poss_ret + poss_imp + notoccur)
    if name == "prefs_simp_ret":
        return _simp(ful_ret, poss_ret)
    if name == "prefs_simp_imp":
        return _simp(ful_ret + ful_imp, poss_ret + poss_imp)
    if name == "prefs_pair":
        return _pair(tp, 3)
    if name == "prefs_pair_imp":
        return _pair(tp, 2)
    if name == "prefs_pair_ret":
        return _pair(tp, 1)
    if name == "prefs_avgjg":
        return _avgjg(tp, lambda g: g.ful_ret + g.ful_imp, lambda g: g.poss_ret + g.poss_imp + g.notoccur)
    if name == "prefs_avgjg_ret":
        return _avgjg(tp, lambda g: g.ful_ret, lambda g: g.poss_ret)
    if name == "prefs_avgjg_imp":
        return _avgjg(tp, lambda g: g.ful_ret + g.ful_imp, lambda g: g.poss_ret + g.poss_imp)
    if name == "prefs_avgjg_Rnonrel":
        return _rnonrel(tp, False)
    if name == "prefs_avgjg_Rnonrel_ret":
        return _rnonrel(tp, True)
    raise KeyError(name)


def prefs_topic_values(jg: Sequence[str], jsg: Sequence[str], level: np.ndarray, doc: Sequence[str],
                       ranked: list[str], names: Sequence[str], float32: bool) -> list[float]:
    """The preference measures ``names`` on one topic (``ranked``: :func:`ranked_docs`)."""
    tp = prefs_counts(jg, jsg, level, doc, ranked, float32)
    return [prefs_measure(tp, n) for n in names]


# ---- qrels_jg ---------------------------------------------------------------------------

NONPOOL, UNJUDGED = -1, -2


@dataclass
class JgLists:
    """form_res_rels_jg.c RES_RELS per group: the ranked rel list and its counts."""

    rels: np.ndarray  # int64 per rank
    num_rel: int
    num_rel_ret: int


def jg_lists(groups, ranked: list[str], rel_level: int, judged_only: bool) -> list[JgLists]:
    """form_res_rels_jg.c ``te_form_res_rels_jg`` for one topic (``groups``: (jg, docs, rels))."""
    d = _duplicate(ranked)
    if d is not None:
        raise PrefsFailure(f"trec_eval.form_res_qrels: duplicate docs {d}")
    out = []
    for _g, docs, rels in groups:
        grade = dict(zip(docs, rels.tolist(), strict=True))
        got = [grade.get(x) for x in ranked]
        lst = np.array([NONPOOL if v is None else (UNJUDGED if v < 0 else v) for v in got], dtype=np.int64)
        judged = lst >= 0
        num_rel_ret = int(np.count_nonzero(judged & (lst >= rel_level)))
        if judged_only:
            lst = lst[judged]
        num_rel = int(np.count_nonzero((rels >= 0) & (rels >= rel_level)))
        out.append(JgLists(lst, num_rel, num_rel_ret))
    return out


def jg_measure(lists: list[JgLists], name: str, cuts: Sequence[float], rel_level: int) -> list[float]:
    """``map_avgjg`` (one value), ``P_avgjg`` / ``Rprec_mult_avgjg`` (one per cut-off)."""
    n_cut = len(cuts) if name != "map_avgjg" else 1
    acc = [[] for _ in range(n_cut)]
    for jl in lists:
        is_rel = jl.rels >= rel_level
        num_ret = len(jl.rels)
        if name == "map_avgjg":
            pos = np.flatnonzero(is_rel)
            if len(pos):
                terms = np.arange(1, len(pos) + 1) / (pos + 1.0)
                acc[0].append(_seq_sum(terms.tolist()) / jl.num_rel)
            continue
        if name == "P_avgjg":
            csum = np.concatenate([[0], np.cumsum(is_rel)])
            for c, k in enumerate(cuts):
                k = int(k)
                acc[c].append(float(csum[min(k, num_ret)]) / k)
            continue
        # Rprec_mult_avgjg
        cut_n = [int(x * jl.num_rel + 0.9) for x in cuts]
        vals = [None] * n_cut
        cc = n_cut - 1
        while cc >= 0 and cut_n[cc] > num_ret:
            vals[cc] = _ratio(jl.num_rel_ret, cut_n[cc])
            cc -= 1
        so_far = jl.num_rel_ret
        i = num_ret
        while i > 0 and so_far > 0:
            precis = so_far / i
            while cc >= 0 and i == cut_n[cc]:
                vals[cc] = precis
                cc -= 1
            if is_rel[i - 1]:
                so_far -= 1
            i -= 1
        for c in range(n_cut):
            if vals[c] is not None:
                acc[c].append(vals[c])
    out = []
    for terms in acc:
        v = _seq_sum(terms)
        if len(lists) > 1:
            v /= len(lists)
        out.append(v)
    return out


def jg_topic_values(groups, ranked: list[str], requests: Sequence[tuple[str, Sequence[float | None]]],
                    rel_level: int, judged_only: bool) -> list[list[float]]:
    """Judgment-group measures on one topic, ``requests`` = (name, cut-offs) pairs: per request
    one value per cut-off (``map_avgjg``: ``[None]``, one value); the lists are formed once."""
    lists = jg_lists(groups, ranked, rel_level, judged_only)
    return [jg_measure(lists, name, cuts, rel_level) for name, cuts in requests]


# ---- the library's entry: every topic of one run ------------------------------------------

BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval.c:154, the absent=bogus ranking


@dataclass
class JudgmentValues:
    """One measure value per evaluated topic, and the aggregate (trec_eval's: mean, counts summed)."""

    measure: object  # Measure
    topics: list[str]
    values: np.ndarray
    aggregate: float


def evaluate_judgments(judgments, run, measures: Sequence, conv) -> list[JudgmentValues]:
    """The preference or judgment-group ``measures`` (:class:`~auditeval.vocab.measure.Measure`,
    trec_eval names, cut-off for ``P_avgjg`` / ``Rprec_mult_avgjg``) of ``run`` against
    ``judgments`` (:class:`~auditeval.io.prefs_files.Prefs` or :class:`~auditeval.io.prefs_files.QrelsJg`)
    under ``conv``: ``sim`` (float32: 9.0.8's C floats, scores and levels), ``depth``, ``topics``
    (``both``; ``qrels`` with a missing topic scored as ``absent`` says: ``zero``, ``empty``
    ranking, ``bogus`` one-document ranking; ``strict`` refuses a missing topic; ``run`` is
    refused: a topic without judgments has no preference), and for the judgment-group measures
    ``rel`` and ``unjudged`` (``drop``: trec_eval -J). Ties follow each family's fixed rule
    (:data:`CONVENTIONS`). A topic trec_eval stops on (duplicate docs, a doc at two levels)
    raises :class:`PrefsFailure`; an inconsistent preference array :class:`PrefsAbort`."""
    from auditeval.engine.aggregation import aggregate
    from auditeval.vocab.spec_table import PREFS_SPECS

    jg_format = not hasattr(judgments, "format")
    for m in measures:
        want = "qrels_jg" if m.name in ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg") else "prefs"
        if m.name not in PREFS_SPECS:
            raise EvaluationError(f"{m.name}: not a preference or judgment-group measure")
        if (want == "qrels_jg") != jg_format:
            raise EvaluationError(f"{m.name} needs {'qrels_jg judgments' if want == 'qrels_jg' else 'preferences'} "
                                  f"(prefs or qrels_prefs), not {'qrels_jg' if jg_format else judgments.format}")
    if conv.topics == "run":
        raise EvaluationError("topics=run: a run topic without judgments has no preferences to score")
    t_run = run.table.column("topic").to_pylist()
    d_run = run.table.column("doc").to_pylist()
    s_run = run.table.column("score").to_numpy(zero_copy_only=False).astype(np.float64)
    rows: dict[str, list[int]] = {}
    for i, t in enumerate(t_run):
        rows.setdefault(t, []).append(i)
    missing = [t for t in judgments.topics if t not in rows]
    if missing and conv.topics == "strict":
        raise EvaluationError(f"topics=strict: judged topic '{missing[0]}' is not in the run")
    topics = [t for t in judgments.topics if t in rows or conv.topics == "qrels"]
    float32 = conv.sim == "float32"
    depth = None if conv.depth == "all" else int(conv.depth)
    vals = np.zeros((len(measures), len(topics)))
    for ti, t in enumerate(topics):
        if t not in rows:
            if conv.absent == "zero":
                continue
            docs, scores = ([BOGUS_DOC], np.ones(1)) if conv.absent == "bogus" else ([], np.zeros(0))
        else:
            ix = np.asarray(rows[t], dtype=np.int64)
            docs, scores = [d_run[i] for i in ix], s_run[ix]
        ranked = ranked_docs(docs, scores, float32, depth, doc_desc=jg_format)
        if jg_format:
            lists = jg_lists(judgments.topics[t].groups, ranked, conv.rel, conv.unjudged == "drop")
            for k, m in enumerate(measures):
                vals[k, ti] = jg_measure(lists, m.name, [m.cutoff], conv.rel)[0]
        else:
            jt = judgments.topics[t]
            tp = prefs_counts(jt.jg, jt.jsg, jt.level, jt.doc, ranked, float32)
            for k, m in enumerate(measures):
                vals[k, ti] = prefs_measure(tp, m.name)
    return [JudgmentValues(m, topics, vals[k], aggregate(vals[k], PREFS_SPECS[m.name].agg, conv.gm_floor))
            for k, m in enumerate(measures)]


def judgment_variant(m, conv):
    """The variant of a preference or judgment-group measure: the measure and the axes its
    ``PREFS_SPECS`` row lists, its fixed tie rule included (``absent`` under topics=qrels only)."""
    from auditeval.vocab.conventions import AXES
    from auditeval.vocab.spec_table import PREFS_SPECS
    from auditeval.vocab.variant import Variant

    spec = PREFS_SPECS[m.name]
    c2 = conv.replace(**spec.fixed)
    axes = [a for a in AXES if a in spec.axes and (a != "absent" or c2.topics == "qrels")]
    return Variant(m, tuple((a, getattr(c2, a)) for a in axes))
