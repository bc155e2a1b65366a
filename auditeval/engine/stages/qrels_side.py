"""Stage 4 of the preparation (see :mod:`auditeval.engine.stages`): the qrels side.

:func:`qrels_side` reads ``negatives`` and ``topics`` (and the qrels' ``dups`` through its
:class:`~auditeval.engine.stages.judgments.Judgments`): the evaluated topics and their judged
documents, grades sorted descending (the ideal rankings and recall bases read them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from auditeval.engine.stages.join import Join
from auditeval.engine.stages.judgments import Judgments
from auditeval.engine.stages.ranking import frozen
from auditeval.vocab.errors import EvaluationError


@dataclass(eq=False)
class QrelsSide:
    """Stage 4: the evaluated topics and their judged documents."""

    chosen_idx: np.ndarray  # topic codes evaluated, ascending
    newcode: np.ndarray  # int32 topic code -> evaluated position (-1: not evaluated)
    topics: np.ndarray  # object array of topic ids
    missing: np.ndarray  # bool per evaluated topic: absent from the run
    qoffsets: np.ndarray
    qgrade: np.ndarray
    n_pooled_unjudged: np.ndarray
    notes: list[str]
    cache: dict = field(default_factory=dict)  # Prepared.qcache of every cut on this side


def qrels_side(j: Join, jd: Judgments, negatives: str, topics: str) -> QrelsSide:
    run = j.run
    in_run, in_qrels, names = j.in_run, j.in_qrels, j.all_topics
    notes: list[str] = []
    if topics == "both":
        chosen = in_run & in_qrels
    elif topics in ("qrels", "strict"):
        chosen = in_qrels.copy()
        if topics == "strict":
            lacking = np.flatnonzero(in_qrels & ~in_run)
            if len(lacking):
                shown = ", ".join(repr(names[i]) for i in lacking[:5])
                raise EvaluationError(
                    f"{len(lacking)} qrels topic(s) missing from run {run.source}: {shown}"
                    f"{' ...' if len(lacking) > 5 else ''} (topics=strict, as trec_eval 10 without -c; "
                    "use topics=qrels to score them 0 or topics=both to skip them)"
                )
    else:  # run
        chosen = in_run.copy()
    run_only = np.flatnonzero(in_run & ~in_qrels)
    if len(run_only) and topics != "run":
        notes.append(
            f"{run.source}: {len(run_only)} run topic(s) without judgments not evaluated: "
            + ", ".join(repr(names[i]) for i in run_only[:5])
            + (" ..." if len(run_only) > 5 else "")
        )
    qrels_only = np.flatnonzero(in_qrels & ~in_run)
    if len(qrels_only) and topics != "run":
        how = "scored as empty rankings" if topics == "qrels" else "not evaluated"
        notes.append(
            f"{run.source}: {len(qrels_only)} qrels topic(s) absent from the run {how} (topics={topics}): "
            + ", ".join(repr(names[i]) for i in qrels_only[:5])
            + (" ..." if len(qrels_only) > 5 else "")
        )
    chosen_idx = np.flatnonzero(chosen)
    n = len(chosen_idx)
    newcode = np.full(len(names), -1, dtype=np.int32)  # int32: cut() maps every ranked row
    newcode[chosen_idx] = np.arange(n)
    q_grade = jd.q_grade
    q_neg = q_grade < 0 if negatives == "pooled" else np.zeros(len(q_grade), bool)
    if negatives != "pooled":
        q_grade = np.maximum(q_grade, 0)
    qsel = newcode[jd.q_tcode] >= 0
    qt_new = newcode[jd.q_tcode[qsel]]
    qg, qn = q_grade[qsel], q_neg[qsel]
    n_pooled_unjudged = np.bincount(qt_new[qn], minlength=n).astype(np.int64)
    qt_pos, qg_pos = qt_new[~qn], qg[~qn]
    qgrade = qg_pos[np.lexsort((-qg_pos, qt_pos))]
    qoffsets = np.concatenate(([0], np.cumsum(np.bincount(qt_pos, minlength=n)))).astype(np.int64)
    return QrelsSide(
        chosen_idx, frozen(newcode), np.array([names[i] for i in chosen_idx], dtype=object),
        frozen(~in_run[chosen_idx]), frozen(qoffsets), frozen(qgrade), frozen(n_pooled_unjudged), notes,
        {"_for": (qgrade, qoffsets)},
    )


