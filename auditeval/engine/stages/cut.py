"""Stage 5 of the preparation (see :mod:`auditeval.engine.stages`): the cut.

:func:`cut` adds ``depth``, ``unjudged`` (and ``negatives``, ``dups=error``) to a ranking:
masks over its rows, no sort; with the qrels side it gives the
:class:`~auditeval.engine.ranked_lists.Prepared` lists every kernel reads.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.ids import DocKeys
from auditeval.engine.ranked_lists import UNJUDGED, Origin, Prepared
from auditeval.engine.stages.join import Join
from auditeval.engine.stages.judgments import Judgments
from auditeval.engine.stages.qrels_side import QrelsSide
from auditeval.engine.stages.ranking import Ranking, topic_counts
from auditeval.vocab.errors import InputError


def cut(j: Join, jd: Judgments, rk: Ranking, qs: QrelsSide, doc_keys: DocKeys | None, conv,
        base_notes: list[str]) -> Prepared:
    """Depth, ``dups=error`` (checked within the depth, as trec_eval), negatives, ``-J``, topics."""
    run = j.run
    notes = list(base_notes) + rk.notes
    rows, tcode, grade, found, counts = rk.rows, rk.tcode, rk.grade, rk.found, rk.counts
    if conv.depth != "all" and conv.depth < rk.max_count:  # else no row lies below the depth
        keep = rk.pos < conv.depth
        n_cut = len(keep) - int(np.count_nonzero(keep))
        if n_cut:
            notes.append(f"{run.source}: {n_cut} result line(s) below depth {conv.depth} not evaluated (depth={conv.depth})")
            rows, tcode, grade = rows[keep], tcode[keep], grade[keep]
            found = None if found is None else found[keep]
            counts = np.minimum(counts, conv.depth)
    if conv.dups == "error" and doc_keys is not None:
        _duplicate_error(j, doc_keys, rows, tcode, counts)
    if found is not None:  # qrels grades below 0: pooled-but-unjudged, or judged non-relevant
        grade = np.where(found & (grade < 0), UNJUDGED if conv.negatives == "pooled" else 0, grade)
    if conv.unjudged == "drop":
        keep = grade >= 0
        n_drop = len(keep) - int(np.count_nonzero(keep))
        if n_drop:
            notes.append(f"{run.source}: {n_drop} unjudged result(s) removed before measuring (unjudged=drop)")
            rows, tcode, grade = rows[keep], tcode[keep], grade[keep]
    notes += qs.notes
    counts = topic_counts(tcode, len(j.all_topics))[qs.chosen_idx]  # rows stay grouped by topic
    if len(qs.chosen_idx) != len(j.all_topics):
        rsel = (qs.newcode >= 0)[tcode]
        grade, rows = grade[rsel], rows[rsel]
    del tcode
    offsets = np.concatenate(([0], np.cumsum(counts))).astype(np.int64)
    return Prepared(
        convention=conv,
        topics=qs.topics,
        offsets=offsets,
        grade=grade,
        qoffsets=qs.qoffsets,
        qgrade=qs.qgrade,
        missing=qs.missing,
        n_pooled_unjudged=qs.n_pooled_unjudged,
        run_row=rows,
        run_name=run.name,
        notes=notes,
        qcache=qs.cache,
        origin=Origin(run, jd, qs.newcode, conv.negatives, conv.sim, rows, grade, topic_ids=j.all_topics),
    )


def _duplicate_error(j: Join, doc_keys: DocKeys, rows: np.ndarray, tcode: np.ndarray, counts: np.ndarray) -> None:
    """Raise when a (topic, doc) pair occurs twice among the ranked rows kept."""
    found = doc_keys.any(None, j.ri.blocks) if len(rows) == len(j.r_tcode) else doc_keys.any(rows, counts)
    dup = doc_keys.duplicated(rows, False) if found else None
    if dup is None:
        return
    idx = np.flatnonzero(dup)
    same = idx[doc_keys.same_as(rows, idx)]
    r_line = j.run.table.column("line").to_numpy()
    lines = sorted(int(r_line[rows[i]]) for i in same)
    t = j.all_topics[int(tcode[same[0]])]
    doc = j.run.table.column("doc")[int(rows[same[0]])].as_py()
    raise InputError(
        j.run.source,
        lines[1],
        f"duplicate result for topic {t!r} doc {doc!r} (first at line {lines[0]}); choose dups=first or dups=last to keep one",
    )
