"""Ranking details trec_eval decides outside the convention axes.

* NaN scores. trec_eval sorts each topic with ``qsort(comp_sim_docno)`` (form_res_rels.c):
  ``sim`` descending, then ``strcmp(docno2, docno1)``. A NaN is neither greater nor
  smaller than anything, so the comparator is inconsistent and the order is whatever glibc's
  ``qsort`` (a merge sort, msort.c) makes of it, starting from the docno-ascending order
  get_trec_results.c leaves. :func:`fix_nan_topics` replays that merge sort for topics
  holding a NaN score only, and rewrites their scores as a strictly decreasing sequence in
  the resulting order, so the engine's ordinary sort reproduces it (measures only see ranks).
* Duplicates. form_res_rels.c checks, per evaluated topic, first the results within the
  ``-M`` depth (sorted by docno: the smallest duplicated docno is named, message without a
  newline: ``trec_eval.form_res_qrels: duplicate docs X``), then the qrels
  (``trec_eval.form_res_rels: duplicate docs X\\n``). :func:`duplicate_errors` finds those
  messages per topic so the run can stop at the right topic.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

from ..engine.glibc_sort import glibc_msort
from ..engine.ids import has_duplicate_pairs
from ..model import Qrels, Run

if TYPE_CHECKING:
    import pandas as pd


def _key(s: str) -> bytes:
    return s.encode("utf-8")


def _cmp_sim_docno(a: tuple[float, bytes], b: tuple[float, bytes]) -> int:
    if a[0] > b[0]:
        return -1
    if a[0] < b[0]:
        return 1
    return (b[1] > a[1]) - (b[1] < a[1])


def fix_nan_topics(run: Run, float32: bool) -> Run:
    """Replace the scores of topics containing NaN by trec_eval's resulting order."""
    if not pc.any(pc.is_nan(run.table.column("score"))).as_py():
        return run  # (checked without copying the column)
    score = run.table.column("score").to_numpy()
    nan = np.isnan(score)
    topics = run.table.column("topic").to_pylist()
    docs = run.table.column("doc").to_pylist()
    sims = score.astype(np.float32).astype(np.float64) if float32 else score
    new = score.copy()
    nan_topics = {topics[i] for i in np.flatnonzero(nan)}
    by_topic: dict[str, list[int]] = {t: [] for t in nan_topics}
    for i, x in enumerate(topics):
        if x in by_topic:
            by_topic[x].append(i)
    for rows in by_topic.values():
        rows.sort(key=lambda i: _key(docs[i]))  # get_trec_results.c sorts lines by (qid, docno)
        items = [(float(sims[i]), _key(docs[i]), i) for i in rows]
        ordered = glibc_msort(items, _cmp_sim_docno)
        for pos, item in enumerate(ordered):
            new[item[2]] = float(len(ordered) - pos)
    table = run.table.set_column(run.table.schema.get_field_index("score"), "score", pa.array(new))
    return Run(table, name=run.name, source=run.source, notes=run.notes, skipped=run.skipped)


def _order_within_topic(df: pd.DataFrame) -> pd.DataFrame:
    """Rows sorted as trec_eval ranks them (score desc, docno desc), with 1-based rank."""
    key = df["doc"].map(_key)
    df = df.assign(_k=key).sort_values(["topic", "score", "_k"], ascending=[True, False, False], kind="stable")
    df["rank"] = df.groupby("topic", sort=False).cumcount() + 1
    return df


def duplicate_errors(qrels: Qrels, run: Run, depth: int | None, float32: bool) -> dict[str, str]:
    """topic -> the stderr text trec_eval prints when it evaluates that topic."""
    errors: dict[str, str] = {}
    dup = None
    if has_duplicate_pairs(run):
        rt = run.table.select(["topic", "doc", "score"]).to_pandas()
        dup = rt.duplicated(["topic", "doc"], keep=False)
    if dup is not None and dup.any():
        sub = rt[rt["topic"].isin(set(rt.loc[dup, "topic"]))].copy()
        if float32:
            sub["score"] = sub["score"].astype(np.float32).astype(np.float64)
        sub = _order_within_topic(sub)
        if depth is not None:
            sub = sub[sub["rank"] <= depth]
        d2 = sub[sub.duplicated(["topic", "doc"], keep=False)]
        for t, g in d2.groupby("topic"):
            doc = min(g["doc"], key=_key)
            errors[t] = f"trec_eval.form_res_qrels: duplicate docs {doc}"
    qt = qrels.table.select(["topic", "doc"]).to_pandas()
    qd = qt[qt.duplicated(["topic", "doc"], keep=False)]
    for t, g in qd.groupby("topic"):
        if t not in errors:
            doc = min(g["doc"], key=_key)
            errors[t] = f"trec_eval.form_res_rels: duplicate docs {doc}\n"
    return errors


def sort_topics(topics) -> list[str]:
    return sorted(topics, key=_key)

