"""Stage 2 of the preparation (see :mod:`auditeval.engine.stages`): each run row's judgment.

:func:`judgments` reads ``dups`` only when the qrels repeat a (topic, doc) pair: the qrels rows
kept and each run row's grade, looked up once in file order (canonical integer doc ids on both
sides join on ``topic * span + doc``, without hashing the run's strings; short string ids
through their id mixes, :func:`_judged_rows`).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from auditeval.engine.ids import duplicated, judged_by_mix
from auditeval.engine.stages.join import Join, qrels_index_of
from auditeval.engine.subtopics import Subtopics, has_subtopics
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.errors import InputError


@dataclass(eq=False)
class Judgments:
    """Stage 2: the qrels rows kept, and the run rows found in them with their grades."""

    q_tcode: np.ndarray
    q_grade: np.ndarray
    q_line: np.ndarray  # qrels line of each kept row (of its pair's first line when the qrels repeat it)
    r_found: np.ndarray  # bool per run row: its (topic, doc) is in the qrels
    hit_rows: np.ndarray  # those rows, ascending
    hit_grade: np.ndarray  # and their grades
    hit_qrow: np.ndarray  # and the kept qrels row (index into q_tcode/q_grade/q_line) judging each
    notes: list[str]
    subtopics: Subtopics | None = None  # per kept qrels row when none was dropped (dups), else see its ``repeated``
    unmerged_subtopics: bool = False  # a subtopic qrels read line by line (not for the intent-aware measures)


def judgments(j: Join, dups: str | None) -> Judgments:
    """``dups``: the axis value when the qrels hold duplicates, else None (it changes nothing)."""
    q_key, q_tcode, q_grade, q_line, q_ints = j.q_key, j.q_tcode, j.q_grade, j.q_line, j.q_ints
    qi = qrels_index_of(j.qrels)
    notes: list[str] = []
    if dups is not None:
        if dups == "error":
            idx = np.flatnonzero(j.q_dup)
            first = idx[0]
            second = idx[q_key[idx] == q_key[first]][1]
            raise InputError(
                j.qrels.source,
                int(q_line[second]),
                f"duplicate judgment for topic {j.q_topic[first].as_py()!r} doc {j.q_doc[first].as_py()!r} "
                f"(first at line {int(q_line[first])}); choose dups=first or dups=last to keep one",
            )
        keep = ~duplicated(q_key, dups)
        notes.append(f"{j.qrels.source}: {int((~keep).sum())} duplicate judgment line(s) dropped (dups={dups})")
        # a kept row takes the first line of its (topic, doc): where a dict keeps the key
        by_key = np.argsort(q_key, kind="stable")
        starts = np.flatnonzero(np.r_[True, q_key[by_key][1:] != q_key[by_key][:-1]])
        first_line = np.empty_like(q_line)
        first_line[by_key] = np.repeat(q_line[by_key][starts], np.diff(np.r_[starts, len(by_key)]))
        q_key, q_tcode, q_grade, q_line = q_key[keep], q_tcode[keep], q_grade[keep], first_line[keep]
        if q_ints is not None:
            q_ints = q_ints[keep]
    ri = j.ri
    if q_ints is not None:
        judged = np.zeros(int(q_ints.max()) + 2, bool)  # last entry False: ids beyond the qrels'
        judged[q_ints] = True
        in_qrels = np.empty(len(ri.ints), bool)  # doc judged for some topic
        for at in range(0, len(ri.ints), 1 << 20):  # take() widens int32 ids to intp: 8 MB at a time
            np.take(judged, ri.ints[at : at + (1 << 20)], mode="clip", out=in_qrels[at : at + (1 << 20)])
        cand = np.flatnonzero(in_qrels)
        del in_qrels
        ckey = j.r_tcode[cand].astype(np.int64) * j.span + ri.ints[cand]
        q_key = q_tcode * j.span + q_ints
    else:
        cand, r_qdoc = _judged_rows(j)  # rows whose doc is judged for some topic, its qrels doc code
        ckey = j.r_tcode[cand].astype(np.int64) * max(len(j.qd_values), 1) + r_qdoc
        del r_qdoc
    if q_key is qi.key:  # the qrels' own keys (no duplicate dropped, no topic renumbered)
        qorder, q_sorted = qi.key_order
    else:
        qorder = np.argsort(q_key, kind="stable")
        q_sorted = q_key[qorder]
    r_found = np.zeros(len(j.r_tcode), bool)
    hit_rows = np.zeros(0, np.int64)
    hit_grade = np.zeros(0, np.int64)
    hit_qrow = np.zeros(0, np.int64)
    if len(q_sorted) and len(ckey):
        pos = np.minimum(np.searchsorted(q_sorted, ckey), len(q_sorted) - 1)
        hit = q_sorted[pos] == ckey
        hit_rows = cand[hit]
        hit_qrow = qorder[pos[hit]]
        hit_grade = q_grade[hit_qrow]
        r_found[hit_rows] = True
    return Judgments(q_tcode, q_grade, q_line, r_found, hit_rows, hit_grade, hit_qrow, notes, j.subtopics, has_subtopics(j.qrels))


def _judged_rows(j: Join) -> tuple[np.ndarray, np.ndarray]:
    """Run rows whose doc id is a qrels doc id (ascending), and that doc's code in
    ``qd_values``. String ids of at most :data:`~auditeval.engine.ids.MIX_MAX_BYTES` bytes are
    found by the run's id mixes (computed once for the duplicate check) and compared as strings
    where a mix matches (:func:`~auditeval.engine.ids.judged_by_mix`): exact, and without hashing
    the qrels' ids for every run. Longer ids: every row is looked up by hash."""
    doc = j.run.table.column("doc")
    qi = qrels_index_of(j.qrels)
    if j.ri.mix is None or qi.mixes is None:
        r_qdoc = pc.fill_null(pc.index_in(doc, value_set=j.qd_values), -1).to_numpy()
        cand = np.flatnonzero(r_qdoc >= 0)
        return cand, r_qdoc[cand].astype(np.int64)
    return judged_by_mix(doc, j.ri.mix, j.qd_values, qi.mix_buckets)
