"""Prepared lists rebuilt from another's rows (the one place outside the stages that builds them).

* :func:`subset`: the lists of some topics only (the tie envelope evaluates mixed topics alone);
* :func:`reorder`: rows reordered inside their tied blocks (best / worst tie orders);
* :func:`relabel`: the lists as the stages would build them from the qrels without some
  judged pairs (pool bias and pool growth: frozen labels). A hidden pair's ranked rows become
  ``NONPOOL`` (removed under ``unjudged=drop``, ranks closing up) and its judgment leaves the
  ideal / recall side (``qgrade``, ``n_pooled_unjudged``);
* :func:`stacked`: ``k`` copies of lists with other grades, stacked as extra topics (one
  kernel call evaluates many orderings).
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from auditeval.engine.ranked_lists import NONPOOL, Prepared

__all__ = ["head", "relabel", "reorder", "stacked", "subset"]


def subset(p: Prepared, idx: np.ndarray) -> tuple[Prepared, np.ndarray]:
    """The prepared lists of topics ``idx`` only, and the ranked rows they came from."""
    idx = np.asarray(idx, np.int64)
    counts = p.num_ret[idx]
    qcounts = np.diff(p.qoffsets)[idx]
    rows = _ranges(p.offsets[:-1][idx], counts)
    qrows = _ranges(p.qoffsets[:-1][idx], qcounts)
    sub = Prepared(
        convention=p.convention, topics=p.topics[idx],
        offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64), grade=p.grade[rows],
        qoffsets=np.concatenate(([0], np.cumsum(qcounts))).astype(np.int64), qgrade=p.qgrade[qrows],
        missing=p.missing[idx], n_pooled_unjudged=p.n_pooled_unjudged[idx], run_row=p.run_row[rows],
        run_name=p.run_name, origin=p.origin,
    )
    return sub, rows


def _ranges(starts: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Concatenated ``arange(s, s + c)`` for each (start, count), vectorised."""
    counts = np.asarray(counts, np.int64)
    total = int(counts.sum())
    if not total:
        return np.zeros(0, np.int64)
    base = np.repeat(np.asarray(starts, np.int64) - (np.cumsum(counts) - counts), counts)
    return base + np.arange(total, dtype=np.int64)


def reorder(p: Prepared, blocks: np.ndarray, key: np.ndarray) -> Prepared:
    """``p`` with rows reordered inside each block by ``key`` (blocks keep their places)."""
    order = np.lexsort((key, blocks))
    return replace(p, grade=p.grade[order], run_row=p.run_row[order])


def relabel(p: Prepared, hide_rows: np.ndarray, drop: bool, qgrade: np.ndarray, q_topic: np.ndarray,
            neg_topic: np.ndarray) -> Prepared:
    """``p`` with ranked rows ``hide_rows`` made ``NONPOOL`` (and removed when ``drop``:
    ``unjudged=drop``), the qrels side replaced by ``qgrade`` (topic index ``q_topic`` per
    entry, topic order, grade descending within a topic) and ``n_pooled_unjudged`` counted
    from ``neg_topic`` (topic index of each negative, pooled entry kept)."""
    grade = p.grade.copy()
    grade[hide_rows] = NONPOOL
    offsets, run_row = p.offsets, p.run_row
    if drop and len(hide_rows):
        keep = np.ones(len(grade), bool)
        keep[hide_rows] = False
        grade, run_row = grade[keep], run_row[keep]
        offsets = np.concatenate(([0], np.cumsum(np.bincount(p.row_topic[keep], minlength=p.n_topics)))).astype(np.int64)
    n_pooled_unjudged = np.bincount(neg_topic, minlength=p.n_topics).astype(np.int64)
    qoffsets = np.concatenate(([0], np.cumsum(np.bincount(q_topic, minlength=p.n_topics)))).astype(np.int64)
    return Prepared(
        convention=p.convention,
        topics=p.topics,
        offsets=offsets,
        grade=grade,
        qoffsets=qoffsets,
        qgrade=qgrade,
        missing=p.missing,
        n_pooled_unjudged=n_pooled_unjudged,
        run_row=run_row,
        run_name=p.run_name,
    )


def stacked(p: Prepared, k: int, grade: np.ndarray, run_row: np.ndarray | None = None) -> Prepared:
    """``k`` copies of ``p`` stacked as ``k * n_topics`` topics, ranked grades ``grade``
    (``k * len(p.grade)`` of them, copy by copy) of the run rows ``run_row`` (default: ``p``'s,
    copy by copy)."""
    n, t, nq = len(p.grade), p.n_topics, len(p.qgrade)
    shift = np.repeat(np.arange(k) * n, t)
    qshift = np.repeat(np.arange(k) * nq, t)
    return Prepared(
        convention=p.convention, topics=np.tile(p.topics, k),
        offsets=np.append(np.tile(p.offsets[:-1], k) + shift, k * n).astype(np.int64), grade=grade,
        qoffsets=np.append(np.tile(p.qoffsets[:-1], k) + qshift, k * nq).astype(np.int64),
        qgrade=np.tile(p.qgrade, k), missing=np.tile(p.missing, k),
        n_pooled_unjudged=np.tile(p.n_pooled_unjudged, k),
        run_row=np.tile(p.run_row, k) if run_row is None else run_row, run_name=p.run_name,
        origin=p.origin,
    )


def head(p: Prepared, upto: np.ndarray) -> tuple[Prepared, np.ndarray]:
    """``p`` keeping the first ``upto[t]`` ranked rows of each topic ``t``, and the kept-row mask."""
    keep = p.rank <= upto[p.row_topic]
    counts = np.bincount(p.row_topic[keep], minlength=p.n_topics)
    cut = replace(p, offsets=np.concatenate(([0], np.cumsum(counts))).astype(np.int64), grade=p.grade[keep],
                  run_row=p.run_row[keep])
    return cut, keep
