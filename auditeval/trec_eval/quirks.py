"""What trec_eval's main loop does around the measures (trec_eval.c, form_res_rels.c,
m_num_rel.c), found by the differential test against the three builds
(``tests/trec_eval/test_trec_eval_differential.py``).

* (10.0 ``-c``'s bogus ranking of a topic missing from the run and the resets after it are
  no drop-in rule: they are the ``absent=bogus`` convention, applied by the engine,
  :mod:`auditeval.engine.absent`.)
* **``rel_levels`` allocation** (form_res_rels.c): per evaluated topic trec_eval allocates
  ``max_rel + 1`` counters, ``max_rel`` the topic's largest qrels grade, through
  ``te_chk_and_malloc``, which returns the old buffer when the request is not larger.
  The first evaluated topic with every grade negative (``max_rel + 1 <= 0``) gets NULL:
  ``Can't calculate measure`` (exit 4). A later topic with ``max_rel <= -2`` passes a
  negative size to ``memset``: segmentation fault. A grade so large that ``malloc`` refuses
  the ``(max_rel + 1) * 8`` bytes (``99999999999``: 800 GB) fails as NULL does. When malloc
  refuses is the machine's business; here: more than its RAM and swap together, which is
  what Linux's default (heuristic) overcommit refuses. :func:`rel_levels_fault` finds the
  first such topic in evaluation order.
* **``num_rel`` summary under ``-c``** (m_num_rel.c ``te_calc_avg_num_rel``): the number of
  qrels lines with grade > 0 over every qrels topic, whatever ``-l`` says (the per-topic
  values do honour ``-l``). :func:`complete_num_rel`.
"""

from __future__ import annotations

import os

import numpy as np
import pyarrow as pa

from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.model import Qrels


def rel_levels_fault(qrels: Qrels, loop: list[str]) -> tuple[int, bool] | None:
    """(index in ``loop``, crash) of the first topic whose ``rel_levels`` allocation fails:
    ``crash`` False = NULL from the first allocation (exit 4), True = negative ``memset``."""
    t = qrels.table
    # largest grade per topic with numpy (a group_by would load pyarrow's acero and dataset
    # modules: a tenth of the drop-in's start-up)
    codes = pc.dictionary_encode(t.column("topic")).combine_chunks()
    idx = codes.indices.to_numpy(zero_copy_only=False)
    grade = t.column("grade").to_numpy()
    best = np.full(len(codes.dictionary), np.iinfo(np.int64).min, dtype=np.int64)
    np.maximum.at(best, idx, grade)
    max_rel = dict(zip(codes.dictionary.to_pylist(), best.tolist(), strict=True))
    limit = _malloc_limit() // 8
    for i, topic in enumerate(loop):
        m = max_rel[topic]
        if (i == 0 and m < 0) or m + 1 > limit:
            return i, False
        if m <= -2:
            return i, True
    return None


def _malloc_limit() -> int:
    """Bytes one malloc may get here: physical memory plus swap (Linux heuristic overcommit)."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        with open("/proc/meminfo") as fh:
            for line in fh:
                if line.startswith("SwapTotal:"):
                    total += int(line.split()[1]) * 1024
    except OSError:
        pass
    return total


def complete_num_rel(qrels: Qrels) -> int:
    """m_num_rel.c ``te_calc_avg_num_rel``: qrels lines with grade > 0, every topic, any ``-l``."""
    return int(pc.sum(pc.greater(qrels.table.column("grade"), 0)).as_py() or 0)


def drop_unchecked_duplicates(table: pa.Table, checked: set[str], has_duplicates: bool) -> pa.Table:
    """``table`` without the repeats of a (topic, doc) pair in topics trec_eval never
    evaluates (``checked`` are the evaluated ones): form_res_rels.c checks duplicates only
    in the topic it is evaluating, so a repeat elsewhere is no error there. The first row
    of each pair stays (the topic's values do not depend on it: it is not evaluated)."""
    if not has_duplicates:
        return table
    topic = pc.dictionary_encode(table.column("topic")).combine_chunks()
    doc = pc.dictionary_encode(table.column("doc")).combine_chunks()
    pair = topic.indices.to_numpy(zero_copy_only=False).astype(np.int64) * len(doc.dictionary) \
        + doc.indices.to_numpy(zero_copy_only=False)
    _, first = np.unique(pair, return_index=True)
    repeat = np.ones(len(pair), dtype=bool)
    repeat[first] = False  # every occurrence after a pair's first
    if not repeat.any():
        return table
    unchecked = ~pc.is_in(topic.dictionary, value_set=pa.array(sorted(checked), pa.string())).to_numpy(zero_copy_only=False)
    drop = repeat & unchecked[topic.indices.to_numpy(zero_copy_only=False)]
    if not drop.any():
        return table
    return pc.filter(table, from_numpy(~drop))
