"""Per-topic evidence: the concrete cause, in the data, of a value that moves with an axis.

``explain(axis, ...)`` looks at one topic under the two conventions (before and after the
flip) and says what in the input makes the axis matter there, e.g.
``topic 312: 4 documents tied at 231.0 from rank 3; docno-desc puts LA041290-0045 first,
docno-asc puts FBIS3-10082 first`` or ``topic 627: scores 0.30000001 and 0.3 collapse in
float32 (ranks 4-5)``. Axes without a specific describer fall back to the value change.
"""

from __future__ import annotations

import math

import numpy as np

from auditeval.engine import Prepared, as_sim, tied_blocks
from auditeval.vocab.conventions import Convention
from auditeval.vocab.model import Run


def _topic_rows(p: Prepared, topic: str) -> np.ndarray:
    idx = np.flatnonzero(p.topics == topic)
    if not len(idx):
        return np.zeros(0, np.int64)
    t = int(idx[0])
    return np.arange(p.offsets[t], p.offsets[t + 1])


def _docs(run: Run, p: Prepared, rows: np.ndarray) -> list[str]:
    return run.table.column("doc").take(p.run_row[rows]).to_pylist()


def _scores(run: Run, p: Prepared, rows: np.ndarray) -> np.ndarray:
    return run.table.column("score").to_numpy()[p.run_row[rows]]


def ties(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    ra, rb = _topic_rows(pa_, topic), _topic_rows(pb, topic)
    if not len(ra):
        return None
    ga, gb = pa_.grade[ra], pb.grade[rb] if len(rb) == len(ra) else None
    if gb is None:
        return None
    diff = np.flatnonzero(ga != gb)
    if not len(diff):
        return None
    i = int(diff[0])
    b = tied_blocks(pa_, run, ca.sim)  # the engine's tied blocks (scores as the sim axis stores them)
    blk = int(b.block[ra[i]])
    lo = int(b.start[blk] - ra[0])
    hi = lo + int(b.size[blk]) - 1
    da, db = _docs(run, pa_, ra[lo:lo + 1])[0], _docs(run, pb, rb[lo:lo + 1])[0]
    shown = _scores(run, pa_, ra[i:i + 1])[0]
    return (f"topic {topic}: {hi - lo + 1} documents tied at {float(shown)!r} from rank {lo + 1}; "
            f"{ca.ties} puts {da} first, {cb.ties} puts {db} first")


def sim(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    rows = _topic_rows(pa_, topic)
    s64 = _scores(run, pa_, rows)
    order = np.argsort(-s64, kind="stable")
    s64 = s64[order]
    s32 = as_sim(s64, "float32")  # the engine's float32 rule (no overflow warning)
    hit = np.flatnonzero((s32[1:] == s32[:-1]) & (s64[1:] != s64[:-1]))
    if not len(hit):
        return None
    grade = pa_.grade[rows][order]
    rel = np.flatnonzero((grade[hit] > 0) | (grade[hit + 1] > 0))
    j = int(hit[rel[0]] if len(rel) else hit[0])
    return (f"topic {topic}: scores {float(s64[j])!r} and {float(s64[j + 1])!r} collapse in float32 "
            f"(ranks {j + 1}-{j + 2}; {len(hit)} such pair(s) in the topic)")


def topics(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    ina, inb = topic in set(pa_.topics.tolist()), topic in set(pb.topics.tolist())
    where = "absent from the run" if topic not in set(run.topics) else "without judgments"
    if ina and not inb:
        return f"topic {topic} is {where}: evaluated under topics={ca.topics}, not under topics={cb.topics}"
    if inb and not ina:
        return f"topic {topic} is {where}: evaluated under topics={cb.topics}, not under topics={ca.topics}"
    return None


def iprec(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    idx = np.flatnonzero(pa_.topics == topic)
    if not len(idx):
        return None
    big_r = int(pa_.num_rel(ca.rel)[idx[0]])

    def need(rule: str, r: float) -> int:
        if rule == "trunc09":
            return int(r * big_r + 0.9)
        if rule == "lround":
            return int(math.floor(r * big_r + 0.5))
        return math.ceil(r * big_r - 1e-12)

    levels = [k / 10 for k in range(11)]
    moved = [f"{r:.1f}: {need(ca.iprec, r)} vs {need(cb.iprec, r)}" for r in levels if need(ca.iprec, r) != need(cb.iprec, r)]
    if not moved:
        return None
    return f"topic {topic}: R={big_r}; relevant documents needed at recall {', '.join(moved[:3])} ({ca.iprec} vs {cb.iprec})"


def negatives(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    idx = np.flatnonzero(pa_.topics == topic)
    n = int(pa_.n_pooled_unjudged[idx[0]]) if len(idx) else 0
    idx = np.flatnonzero(pb.topics == topic)
    n = max(n, int(pb.n_pooled_unjudged[idx[0]]) if len(idx) else 0)
    if not n:
        return None
    return f"topic {topic}: {n} qrels entr(ies) with a negative grade: pooled-unjudged vs judged non-relevant"


def rel(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    idx = np.flatnonzero(pa_.topics == topic)
    if not len(idx):
        return None
    t = int(idx[0])
    q = pa_.qgrade[pa_.qoffsets[t]:pa_.qoffsets[t + 1]]
    lo, hi = sorted((ca.rel, cb.rel))
    n = int(((q >= lo) & (q < hi)).sum())
    return f"topic {topic}: {n} judged document(s) with grade in [{lo}, {hi}) are relevant only at rel={lo}"


def depth(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    na, nb = len(_topic_rows(pa_, topic)), len(_topic_rows(pb, topic))
    return f"topic {topic}: {na} ranked documents under depth={ca.depth}, {nb} under depth={cb.depth}"


def unjudged(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    rows = _topic_rows(pa_, topic)
    g = pa_.grade[rows]
    n = int((g < 0).sum())
    if not n:
        return None
    first = int(np.flatnonzero(g < 0)[0]) + 1
    return f"topic {topic}: {n} unjudged document(s) in the ranking (first at rank {first}); unjudged={ca.unjudged} vs {cb.unjudged}"


def dups(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    na, nb = len(_topic_rows(pa_, topic)), len(_topic_rows(pb, topic))
    return f"topic {topic}: duplicate lines: {na} ranked rows under dups={ca.dups}, {nb} under dups={cb.dups}"


def gain(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    rows = _topic_rows(pa_, topic)
    g = pa_.grade[rows]
    graded = sorted({int(x) for x in g if x > 1})
    if not graded:
        return None
    return (f"topic {topic}: grades {graded} ranked; gain linear = grade, exp2 = 2^grade - 1 "
            f"(grade {graded[-1]}: {graded[-1]} vs {2 ** graded[-1] - 1})")


def self_hits(topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention) -> str | None:
    return f"topic {topic}: a document id equals the topic id (self_hits={ca.self_hits} vs {cb.self_hits})"


DESCRIBERS = {"ties": ties, "sim": sim, "topics": topics, "iprec": iprec, "negatives": negatives, "rel": rel,
              "depth": depth, "unjudged": unjudged, "dups": dups, "gain": gain, "self_hits": self_hits}


def describe(axis: str, topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention,
             cb: Convention) -> str | None:
    """What ``axis`` itself does in ``topic`` (tied documents, scores that collapse, ...), or None."""
    fn = DESCRIBERS.get(axis)
    return fn(topic, run, pa_, pb, ca, cb) if fn is not None else None


def explain(axis: str, topic: str, run: Run, pa_: Prepared, pb: Prepared, ca: Convention, cb: Convention,
            before: float | None, after: float | None, measure: str) -> str:
    """One line of evidence for ``topic`` (falls back to the value change)."""
    digits = 4
    if before is not None and after is not None and 0 < abs(after - before) < 5e-5:
        digits = min(12, 4 - int(math.floor(math.log10(abs(after - before)))))  # show the digits that moved
    change = f"{measure} {_fmt(before, digits)} -> {_fmt(after, digits)}"
    text = describe(axis, topic, run, pa_, pb, ca, cb)
    if text is None:
        text = f"topic {topic}: {axis}={ca.as_dict()[axis]} -> {cb.as_dict()[axis]}"
    return f"{text} ({change})"


def _fmt(v: float | None, digits: int = 4) -> str:
    return "not evaluated" if v is None or (isinstance(v, float) and math.isnan(v)) else f"{v:.{digits}f}"
