"""Which (topic, doc) pairs repeat, per topic: what ``dups=error`` refuses, listed.

trec_eval (form_res_rels.c) checks, per evaluated topic, the results within the ``-M``
depth of its ranking, then the qrels; its message names the smallest repeated doc id
(byte order). These functions give, per topic, that doc id; the trec_eval drop-in only
words the messages.
"""

from __future__ import annotations

import numpy as np

from auditeval.engine.ids import DocKeys
from auditeval.engine.stages.join import Join
from auditeval.engine.stages.ranking import Ranking


def _smallest_per_topic(tcode: np.ndarray, docs: list[str], names: list[str]) -> dict[str, str]:
    out: dict[str, bytes] = {}
    for t, d in zip(tcode.tolist(), docs, strict=True):  # repeated pairs only: few rows
        key = d.encode("utf-8")
        if names[t] not in out or key < out[names[t]]:
            out[names[t]] = key
    return {t: d.decode("utf-8") for t, d in out.items()}


def ranked_duplicates(j: Join, rk: Ranking, doc_keys: DocKeys | None, depth: int | str) -> dict[str, str]:
    """Topic -> smallest doc id repeated among the ranked rows within ``depth``."""
    if doc_keys is None:
        return {}
    rows, tcode = rk.rows, rk.tcode
    if depth != "all":
        keep = rk.pos < depth
        rows, tcode = rows[keep], tcode[keep]
    dup = doc_keys.duplicated(rows, False)
    if dup is None:
        return {}
    idx = np.flatnonzero(dup)
    docs = j.run.table.column("doc").take(rows[idx]).to_pylist()
    return _smallest_per_topic(tcode[idx], docs, j.all_topics)


def qrels_duplicates(j: Join) -> dict[str, str]:
    """Topic -> smallest doc id judged twice for it in the qrels."""
    if not j.q_has_dup:
        return {}
    idx = np.flatnonzero(j.q_dup)
    return _smallest_per_topic(j.q_tcode[idx], j.q_doc.take(idx).to_pylist(), j.all_topics)
