"""The structure every measure reads: ranked, judged lists per evaluated topic (CSR arrays).

Built by the staged preparation (:mod:`auditeval.engine.staged_run`); see
:mod:`auditeval.engine.stages` for the order in which conventions are applied.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from auditeval.engine.ids import to_numpy
from auditeval.engine.sim import as_sim  # the engine's one float32 rule
from auditeval.vocab.conventions import Convention

if TYPE_CHECKING:
    from auditeval.engine.stages.judgments import Judgments
    from auditeval.vocab.model import Run

NONPOOL = -1  # document not in the qrels (trec_eval RELVALUE_NONPOOL)
UNJUDGED = -2  # in the qrels with a negative grade (trec_eval RELVALUE_UNJUDGED)


@dataclass(eq=False)
class Prepared:
    """Ranked, judged lists for the evaluated topics, in CSR form.

    ``grade[offsets[t]:offsets[t+1]]`` are the grades of topic ``t``'s ranked documents in
    rank order (sentinels ``NONPOOL``/``UNJUDGED`` below 0); ``qgrade[qoffsets[t]:qoffsets[t+1]]``
    are the non-negative grades of every judged document of topic ``t`` (sorted descending).
    ``missing[t]`` marks a topic evaluated with an empty ranking (absent from the run).
    """

    convention: Convention
    topics: np.ndarray  # object array of topic ids, evaluation order
    offsets: np.ndarray  # int64, len n_topics + 1
    grade: np.ndarray  # int32 (grades within +-2**30) or int64 per ranked row
    qoffsets: np.ndarray  # int64, len n_topics + 1
    qgrade: np.ndarray  # int64 per judged doc (>= 0), sorted desc within topic
    missing: np.ndarray  # bool per topic: not in the run
    n_pooled_unjudged: np.ndarray  # int64 per topic: qrels entries with negative grade
    run_row: np.ndarray  # int32 (int64 from 2**31 run rows) per ranked row: its row in ``run.table`` (line, doc, score from there)
    run_name: str = "run"
    notes: list[str] = field(default_factory=list)
    origin: Origin | None = None
    """The run and qrels rows behind these lists, for the few kernels that read more than
    grades (see :class:`Origin`); None for lists built elsewhere (pooling relabels)."""
    qcache: dict = field(default_factory=dict)
    """Memo for what depends on the qrels side alone (``qoffsets``, ``qgrade``: ideal
    rankings, R per threshold): shared by every Prepared of one StagedRun with the same
    evaluated topics and judgments. It names the arrays it holds for (``"_for"``); a
    Prepared with other qrels arrays (``dataclasses.replace(p, qgrade=...)``) memoises on
    its own. Use :meth:`qmemo`; entries are read-only."""

    # ------------------------------------------------------------------ shape
    @property
    def n_topics(self) -> int:
        return len(self.topics)

    @cached_property
    def num_ret(self) -> np.ndarray:
        return np.diff(self.offsets)

    @cached_property
    def row_topic(self) -> np.ndarray:
        """Topic index of each ranked row (int32)."""
        return np.repeat(np.arange(self.n_topics, dtype=np.int32), self.num_ret)

    @cached_property
    def rank(self) -> np.ndarray:
        """1-based rank of each ranked row within its topic."""
        r = np.arange(1, len(self.grade) + 1, dtype=np.int64)
        r -= np.repeat(self.offsets[:-1], self.num_ret)
        return r

    @cached_property
    def qrow_topic(self) -> np.ndarray:
        """Topic index of each judged (qrels) row (shared through ``qcache``, read-only)."""
        return self.qmemo(("qrow_topic",), lambda: np.repeat(np.arange(self.n_topics), np.diff(self.qoffsets)))

    def qmemo(self, key: tuple, compute):
        """``compute()`` memoised in the qrels-side memo (it must read the qrels side only:
        ``qoffsets``, ``qgrade``, and what ``key`` names); arrays in the result are read-only."""
        memo = self.qcache
        owner = memo.get("_for")
        if owner is None or owner[0] is not self.qgrade or owner[1] is not self.qoffsets:
            memo = self.__dict__.setdefault("_own_qmemo", {})
        hit = memo.get(key)
        if hit is None:
            hit = compute()
            for a in hit if isinstance(hit, tuple) else (hit,):
                if isinstance(a, np.ndarray):
                    a.flags.writeable = False
            memo[key] = hit
        return hit

    # ------------------------------------------------------------------ helpers for measures
    def seg_sum(self, values: np.ndarray, rows: str = "ranked") -> np.ndarray:
        """Per-topic sum of a per-row array, added sequentially in rank order (as trec_eval)."""
        idx = self.row_topic if rows == "ranked" else self.qrow_topic
        return np.bincount(idx, weights=values, minlength=self.n_topics)

    def seg_count(self, mask: np.ndarray, rows: str = "ranked") -> np.ndarray:
        idx = self.row_topic if rows == "ranked" else self.qrow_topic
        return np.bincount(idx[mask], minlength=self.n_topics).astype(np.int64)

    def rel_mask(self, rel: int) -> np.ndarray:
        """Ranked rows that are relevant at threshold ``rel``: grade >= rel, on the codes of the
        lists (NONPOOL -1, UNJUDGED -2). For ``rel >= 0`` that is a judged grade >= rel; for a
        ``rel`` below 0 it is trec_eval's test ``results_rel_list[i] >= relevance_level``
        (m_P.c, m_map.c, ...): a document outside the qrels counts as relevant from -1, one
        of negative grade (``negatives=pooled``) from -2. (trec_eval's ``num_rel_ret`` counts
        judged documents only, form_res_rels.c: :meth:`judged_rel_mask`.)

        Cached per threshold and read-only (many measures ask for the same mask)."""
        cache = self.__dict__.setdefault("_rel_masks", {})
        m = cache.get(rel)
        if m is None:
            m = self.grade >= rel
            m.flags.writeable = False
            cache[rel] = m
        return m

    def judged_rel_mask(self, rel: int) -> np.ndarray:
        """Judged ranked rows of grade >= ``rel``: trec_eval's ``num_rel_ret`` rows
        (form_res_rels.c counts a retrieved document there only when it is judged, whatever
        ``-l``), the set measures' and the interpolation walks' count. :meth:`rel_mask` itself
        for ``rel >= 0`` (read-only)."""
        if rel >= 0:
            return self.rel_mask(rel)
        cache = self.__dict__.setdefault("_judged_rel_masks", {})
        if rel not in cache:
            m = self.grade >= 0
            m.flags.writeable = False
            cache[rel] = m
        return cache[rel]

    def unjudged_counted(self, rel: int) -> np.ndarray:
        """Per topic, the ranked rows :meth:`rel_mask` counts that :meth:`judged_rel_mask` does
        not (documents outside the qrels, or of negative grade, under a ``rel`` below 0)."""
        if rel >= 0:
            return np.zeros(self.n_topics, dtype=np.int64)
        return self.seg_count(self.rel_mask(rel) & ~self.judged_rel_mask(rel)).astype(np.int64)

    def num_rel(self, rel: int) -> np.ndarray:
        """Relevant documents per topic in the qrels (R), at threshold ``rel`` (read-only)."""
        return self.qmemo(("num_rel", rel), lambda: self.seg_count(self.qgrade >= rel, rows="qrels"))

    def num_judged_nonrel(self, rel: int) -> np.ndarray:
        """Judged non-relevant documents per topic (0 <= grade < rel) (read-only)."""
        return self.qmemo(("num_judged_nonrel", rel), lambda: self.seg_count(self.qgrade < rel, rows="qrels"))

    def cum_count(self, mask: np.ndarray) -> np.ndarray:
        """Within-topic running count of ``mask`` up to and including each row.

        For a mask from :meth:`rel_mask` the result is cached (read-only)."""
        for rel, m in self.__dict__.get("_rel_masks", {}).items():
            if mask is m:
                cache = self.__dict__.setdefault("_rel_cum", {})
                if rel not in cache:
                    c = self._cum_count(mask)
                    c.flags.writeable = False
                    cache[rel] = c
                return cache[rel]
        return self._cum_count(mask)

    def _cum_count(self, mask: np.ndarray) -> np.ndarray:
        c = np.cumsum(mask, dtype=np.int64)
        starts = self.offsets[:-1]
        base = np.where(starts > 0, c[np.maximum(starts - 1, 0)], 0) if len(c) else np.zeros(len(starts), np.int64)
        c -= np.repeat(base, self.num_ret)
        return c

    def rows_where(self, mask: np.ndarray, k: int | None = None) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """``(rows, topic, rank)`` of the ranked rows where ``mask`` holds (within the top ``k``
        when given): positions, topic index, 1-based rank; ascending, i.e. by topic in rank order.

        For measures that only add terms from a few rows (relevant ones, the top k): a sum
        over these rows in this order equals the dense per-row sum exactly (it only skips
        ``+ 0.0`` terms), without touching every row.
        """
        rows = np.flatnonzero(mask)
        topic = np.searchsorted(self.offsets, rows, side="right") - 1
        rank = rows - self.offsets[topic] + 1
        if k is not None:
            keep = rank <= k
            rows, topic, rank = rows[keep], topic[keep], rank[keep]
        return rows, topic, rank

    def at_cutoff(self, k: int) -> np.ndarray:
        """Mask of ranked rows within the top ``k`` of their topic."""
        return self.rank <= k


@dataclass(eq=False)
class Origin:
    """The rows behind one :class:`Prepared`: what a kernel needs beyond grades.

    Built by :func:`~auditeval.engine.stages.cut.cut` next to its lists; lists derived from them
    with the same rows (tie reorderings, topic subsets, stacked copies in
    :mod:`auditeval.auditing.tie_envelope`) share it, so everything here is computed from the rows
    of the lists it was built with (``rows``, ``grade``), never from a derived list's.
    ``q_*`` are the qrels rows kept by the judgments stage (after ``dups``).
    """

    run: Run
    judgments: Judgments
    newcode: np.ndarray  # topic code -> evaluated topic index (-1: not evaluated)
    negatives: str  # the convention's negatives axis (pooled: negative grades are not judged)
    sim: str  # the convention's sim axis (how scores are read)
    rows: np.ndarray  # run row of each ranked row of the lists it was built with
    grade: np.ndarray  # and its grade
    memo: dict = field(default_factory=dict)
    topic_ids: list[str] = field(default_factory=list)  # topic id per topic code (the join's, byte order)

    def qrels_row(self, run_rows: np.ndarray) -> np.ndarray:
        """Kept qrels row judging each of ``run_rows`` (rows found in the qrels only)."""
        jd = self.judgments
        return jd.hit_qrow[np.searchsorted(jd.hit_rows, run_rows)]

    def scores(self, run_rows: np.ndarray) -> np.ndarray:
        """Scores of ``run_rows`` as float64, as the ``sim`` axis reads them (float32 first)."""
        col = self.memo.get("score")
        if col is None:
            col = self.memo["score"] = to_numpy(self.run.table.column("score"), np.float64)
        return as_sim(col[run_rows], self.sim).astype(np.float64)

    def ideal_rank(self, rel: int) -> np.ndarray:
        """1-based rank of each kept qrels row in its topic's ideal ranking at threshold
        ``rel`` (0 for rows not relevant or not in an evaluated topic).

        The ideal ranking holds the topic's relevant documents (grade >= ``rel``) by grade
        descending, then by run score descending (0.0 for a document not in the ranked
        lists), then in qrels line order: ir_measures' compat provider (compat_provider.py
        ``compatibility``: two stable sorts over the qrels dict, which keeps file order)."""
        hit = self.memo.get(("ideal", rel))
        if hit is not None:
            return hit
        jd = self.judgments
        grade = jd.q_grade
        judged = grade >= 0 if self.negatives == "pooled" else np.ones(len(grade), bool)
        grade = np.maximum(grade, 0)
        t = self.newcode[jd.q_tcode] if len(grade) else np.zeros(0, np.int32)
        sel = np.flatnonzero(judged & (t >= 0) & (grade >= rel))
        qscore = np.zeros(len(grade))
        ranked = np.flatnonzero(self.grade >= 0)
        if len(ranked):
            qscore[self.qrels_row(self.rows[ranked])] = self.scores(self.rows[ranked])
        order = sel[np.lexsort((jd.q_line[sel], -qscore[sel], -grade[sel], t[sel]))]
        ot = t[order]
        first = np.searchsorted(ot, ot, side="left")
        out = np.zeros(len(grade), np.int64)
        out[order] = np.arange(len(order)) - first + 1
        out.flags.writeable = False
        self.memo[("ideal", rel)] = out
        return out
