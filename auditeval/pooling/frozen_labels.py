"""Frozen labels: evaluating runs as if some judged pairs had never been judged.

Pool bias and pool growth re-evaluate every run many times against a subset of the qrels
(the pairs some set of systems pooled). Instead of preparing each run again, the engine's
lists for the full qrels (:class:`Judged`) are relabelled (:func:`relabel`): a hidden pair's
ranked rows become ``NONPOOL`` (removed when ``unjudged=drop``, ranks closing up) and its
judgment leaves the ideal/recall side (``qgrade``, ``n_pooled_unjudged``). That is exactly what
:func:`~auditeval.engine.prepare` builds from the reduced qrels, as long as no evaluated
topic loses every judgment (then prepare would stop evaluating it under ``topics=both``; here
the topic set stays that of the full qrels, and :func:`emptied_topics` names such topics).
``tests/pooling/test_pool_robust03.py::test_group_bias_equals_engine_on_reduced_qrels`` checks the equality against the engine.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from auditeval.engine import NONPOOL, Prepared
from auditeval.engine import relabel as relabel_lists
from auditeval.pooling.rankings import Engine, KeySpace, in_sorted
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import InputError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import fold


@dataclass(eq=False)
class QrelsKeys:
    """Qrels coded in a key space: sorted unique ``key`` with ``grade`` and ``topic`` code."""

    key: np.ndarray
    grade: np.ndarray
    topic: np.ndarray

    @classmethod
    def of(cls, qrels: Qrels, space: KeySpace, dups: str) -> QrelsKeys:
        t = qrels.table
        key = space.encode(t.column("topic"), t.column("doc"))
        grade = t.column("grade").to_numpy().astype(np.int64)
        if (key < 0).any():  # cannot happen when the space was built with these qrels
            raise InputError(qrels.source, int(t.column("line")[int(np.argmax(key < 0))].as_py()), "pair outside the key space")
        if dups == "last":
            uniq, idx = np.unique(key[::-1], return_index=True)
            idx = len(key) - 1 - idx
        else:  # first (dups=error has been refused by the engine already)
            uniq, idx = np.unique(key, return_index=True)
        return cls(uniq, grade[idx], space.topic_of(uniq))

    def relevant(self, rel: int) -> np.ndarray:
        """Sorted keys with grade >= rel."""
        return self.key[self.grade >= rel]


@dataclass(eq=False)
class Judged:
    """A run's engine lists under the (folded) evaluation convention with the full qrels.

    ``judged_rows``: ranked rows whose pair is in the qrels, ``row_q`` their index in
    ``QrelsKeys.key``; ``q_pos``: each qrels entry's evaluated-topic index (-1 if the topic
    is not evaluated for this run); ``q_order``: the evaluated entries with a non-negative
    grade (after the ``negatives`` rule) by topic, grade descending (filtering keeps it
    sorted), ``q_neg``: the negative (pooled, unjudged) ones."""

    run: str
    measure: Measure
    conv: Convention
    p: Prepared
    judged_rows: np.ndarray
    row_q: np.ndarray
    q_pos: np.ndarray
    q_order: np.ndarray
    q_grade: np.ndarray
    q_neg: np.ndarray


def judge_runs(engine: Engine, runs: Sequence[Run], measure: Measure, conv: Convention, space: KeySpace, q: QrelsKeys) -> list[Judged]:
    """The engine's lists of every run for ``measure``, judged rows linked to ``q``."""
    c2 = fold(measure, conv)[1]
    out = []
    for run in runs:
        p = engine.for_measure(run, measure, conv)
        tmap = space.topic_codes([str(t) for t in p.topics])
        judged = np.flatnonzero(p.grade != NONPOOL)
        doc = run.table.column("doc").take(p.run_row[judged])
        row_q = np.searchsorted(q.key, space.keys(tmap[p.row_topic[judged]], space.doc_codes(doc)))
        q_pos = np.full(len(q.key), -1, np.int64)
        if len(tmap):
            at = np.minimum(np.searchsorted(tmap, q.topic), len(tmap) - 1)
            q_pos = np.where(tmap[at] == q.topic, at, -1)
        grade = q.grade if c2.negatives == "pooled" else np.maximum(q.grade, 0)
        valid = q_pos >= 0
        pos_ok = np.flatnonzero(valid & (grade >= 0))
        q_order = pos_ok[np.lexsort((-grade[pos_ok], q_pos[pos_ok]))]
        out.append(Judged(run.name, measure, c2, p, judged, row_q, q_pos, q_order, grade, np.flatnonzero(valid & (grade < 0))))
    return out


def hidden_mask(q: QrelsKeys, keys: np.ndarray) -> np.ndarray:
    """Boolean mask over ``q.key``: the entries whose key is in the sorted array ``keys``."""
    return in_sorted(q.key, keys)


def relabel(j: Judged, q: QrelsKeys, hidden: np.ndarray) -> Prepared:
    """``j``'s lists as the engine would build them from the qrels without the entries
    ``hidden`` (boolean mask over ``q.key``): the engine's :func:`~auditeval.engine.relabel`."""
    sel = j.q_order[~hidden[j.q_order]]
    neg = j.q_neg[~hidden[j.q_neg]]
    return relabel_lists(j.p, j.judged_rows[hidden[j.row_q]], j.conv.unjudged == "drop", j.q_grade[sel],
                         j.q_pos[sel], j.q_pos[neg])


def emptied_topics(j: Judged, hidden: np.ndarray) -> list[str]:
    """Evaluated topics of ``j`` whose every judgment is hidden (kept in the topic set here)."""
    valid = j.q_pos >= 0
    had = np.bincount(j.q_pos[valid], minlength=j.p.n_topics)
    left = np.bincount(j.q_pos[valid & ~hidden], minlength=j.p.n_topics)
    return [str(t) for t in j.p.topics[(left == 0) & (had > 0)]]
