"""Input diagnostics: facts about the qrels and each run that explain where tools can differ.

Per run: topics only in the run / only in the qrels, topics without a relevant document,
tied blocks (topics with ties inside the top 10, the largest block), score pairs that
collapse when stored as float32, duplicate lines, the unjudged share of the top 10, the
distribution of ranking depths; for the qrels: the grade histogram, negative grades and
duplicate judgments. All counts are vectorized over the prepared lists of the chosen
convention (``Prepared.run_row`` points back at each ranked row's line).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pyarrow as pa

from auditeval.engine import Prepared, as_sim, has_duplicate_pairs, ranked_scores, tied_blocks
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import unique
from auditeval.vocab.conventions import Convention
from auditeval.vocab.model import Qrels, Run

SHOW = 10  # ids listed per fact (the count is always complete)


def qrels_facts(q: Qrels, rel: int) -> dict[str, Any]:
    t = q.table
    grades, counts = np.unique(t.column("grade").to_numpy(), return_counts=True)
    topic = t.column("topic")
    g = t.column("grade")
    rel_topics = set(pc.unique(pc.filter(topic, pc.greater_equal(g, rel))).to_pylist())
    all_topics = pc.unique(topic).to_pylist()
    dups = _repeated(t, ["topic", "doc"])  # what the dups axis decides for every measure but the intent-aware ones
    subtopic = {}
    if "subtopic" in t.column_names:  # the intent-aware measures refuse a repeated (topic, subtopic, doc)
        subtopic = {"duplicate_subtopic_judgments": _repeated(t, ["topic", "subtopic", "doc"]).num_rows}
    return {
        "topics": len(all_topics),
        "judgments": t.num_rows,
        "grades": {int(k): int(v) for k, v in zip(grades, counts, strict=True)},
        "negative_grades": int(counts[grades < 0].sum()),
        "topics_without_relevant": sorted(set(all_topics) - rel_topics),
        "duplicate_judgments": dups.num_rows,
        "duplicate_examples": [f"{a} {b}" for a, b in zip(dups.column("topic").to_pylist()[:SHOW],
                                                          dups.column("doc").to_pylist()[:SHOW], strict=True)],
        **subtopic,
    }


def _repeated(t: pa.Table, keys: list[str]) -> pa.Table:
    """The ``keys`` combinations of ``t`` on more than one line."""
    dup = t.group_by(keys).aggregate([("line", "count")])
    return dup.filter(pc.greater(dup.column("line_count"), 1))


def run_facts(q: Qrels, run: Run, p: Prepared, conv: Convention) -> dict[str, Any]:
    """Facts about one run; ``p`` is its prepared lists under ``conv`` (topics as chosen)."""
    rt = run.table
    counts = rt.column("topic").value_counts()
    r_topics = set(counts.field(0).to_pylist())
    q_topics = set(pc.unique(q.table.column("topic")).to_pylist())
    depth = counts.field(1).to_numpy() if len(counts) else np.zeros(0, np.int64)
    b = tied_blocks(p, run, conv.sim)
    rank = p.rank
    tied_rows = b.size[b.block] > 1
    top10_tied = unique(p.row_topic[tied_rows & (rank <= 10)]) if len(rank) else np.zeros(0, np.int64)
    largest = {}
    if len(b.size) and b.size.max() > 1:
        i = int(np.argmax(b.size))
        row = int(b.start[i])
        score = float(ranked_scores(p, run)[row])
        largest = {"topic": str(p.topics[p.row_topic[row]]), "size": int(b.size[i]), "score": score,
                   "first_rank": int(rank[row])}
    collapse = float32_collapses(p, run)
    top = rank <= 10
    unj = np.bincount(p.row_topic[top], weights=(p.grade[top] < 0).astype(float), minlength=p.n_topics)
    n_top = np.bincount(p.row_topic[top], minlength=p.n_topics)
    share = float(unj.sum() / n_top.sum()) if n_top.sum() else 0.0
    dups = has_duplicate_pairs(run)
    dup_info: dict[str, Any] = {"duplicate_lines": 0, "duplicate_examples": []}
    if dups:
        g = rt.group_by(["topic", "doc"]).aggregate([("line", "count"), ("line", "min")])
        g = g.filter(pc.greater(g.column("line_count"), 1))
        dup_info = {"duplicate_lines": int(pc.sum(g.column("line_count")).as_py()) - g.num_rows,
                    "duplicate_examples": [f"topic {a} doc {d} ({n} lines, first at line {ln})" for a, d, n, ln in zip(
                        *(g.column(c).to_pylist()[:SHOW] for c in ("topic", "doc", "line_count", "line_min")), strict=True)]}
    self_hits = int(pc.sum(pc.equal(rt.column("doc"), rt.column("topic"))).as_py() or 0)
    return {
        "lines": rt.num_rows,
        "topics": len(r_topics),
        "only_in_run": sorted(r_topics - q_topics),
        "only_in_qrels": sorted(q_topics - r_topics),
        "depth": {"min": int(depth.min()) if len(depth) else 0, "median": float(np.median(depth)) if len(depth) else 0.0,
                  "max": int(depth.max()) if len(depth) else 0,
                  "histogram": _depth_hist(depth)},
        "tied_blocks": int((b.size > 1).sum()),
        "tied_rows": int(tied_rows.sum()),
        "topics_tied_in_top10": len(top10_tied),
        "topics_tied_in_top10_examples": [str(t) for t in p.topics[top10_tied[:SHOW]]],
        "largest_block": largest,
        "mixed_blocks": int(b.mixed.sum()),
        "float32_collapses": collapse["count"],
        "float32_examples": collapse["examples"],
        "unjudged_top10_share": share,
        "self_hits": self_hits,
        **dup_info,
    }


def float32_collapses(p: Prepared, run: Run) -> dict[str, Any]:
    """Pairs of neighbouring distinct scores (double) of one topic that are equal as C floats."""
    s64 = ranked_scores(p, run)
    s32 = as_sim(s64, "float32")  # the engine's float32 rule (no overflow warning)
    same_topic = np.zeros(len(s64), bool)
    if len(s64):
        same_topic[1:] = p.row_topic[1:] == p.row_topic[:-1]
    hit = np.zeros(len(s64), bool)
    hit[1:] = same_topic[1:] & (s32[1:] == s32[:-1]) & (s64[1:] != s64[:-1])
    idx = np.flatnonzero(hit)
    examples = [f"topic {p.topics[p.row_topic[i]]}: scores {float(max(s64[i - 1], s64[i]))!r} and "
                f"{float(min(s64[i - 1], s64[i]))!r} (ranks {p.rank[i] - 1}-{p.rank[i]})" for i in idx[:SHOW]]
    return {"count": len(idx), "examples": examples, "rows": idx}


def _depth_hist(depth: np.ndarray) -> dict[str, int]:
    edges = [0, 10, 100, 500, 999, 1000]
    out = {}
    for lo, hi in zip(edges, edges[1:] + [None], strict=True):
        n = int(((depth > lo) & ((depth <= hi) if hi is not None else True)).sum())
        out[f"{lo + 1}-{hi}" if hi is not None else f">{lo}"] = n
    return out
