"""A seeded, robust03-shaped test collection: qrels with grades 0-2 and runs shaped like the
TREC 2003 Robust submissions (``robust03`` fixture), made here so the core tier needs nothing
but the repository.

What it reproduces of the real data, because the tests exercise it there:

* topic ids are numbers between 301 and 700, judged documents per topic vary (100-600), most
  judgments are 0 with about 10% grade 1 and 4% grade 2, every topic has a relevant document;
* document ids of the real collections' shapes: ``LA041090-0148``, ``FT921-7107``,
  ``FBIS3-16217`` (at most 15 bytes) and ``FR940104-0-00001`` (16 bytes: the join's long-id path);
* runs of 1,000 documents per topic, tab separated, judged and unjudged documents mixed, the
  relevant ones ranked higher on average; runs with ties in nearly every topic (integer scores),
  ties only in float32 (scores 1e-9 apart), no ties, 100 deep, about 10 per topic, negative
  scores, and topics missing (``synMissing``, like uic0301).

:func:`write_collection` writes ``qrels.txt`` and ``runs/input.NAME.gz`` into a folder.
"""

from __future__ import annotations

import gzip
from dataclasses import dataclass
from pathlib import Path

import numpy as np

__all__ = ["RUNS", "RunShape", "write_collection"]


@dataclass(frozen=True)
class RunShape:
    name: str
    depth: int  # documents per topic (at most)
    scores: str  # ints | float32-ties | distinct | large | negative
    skill: float  # how strongly relevant documents are pulled up (0: random)
    drop_topics: int = 0  # topics left out of the run
    short_topics: int = 0  # topics with one document fewer (uic0301's 99,969 lines)


RUNS = (
    RunShape("synTies", 1000, "ints", 1.2),
    RunShape("synFloat32", 1000, "float32-ties", 1.0),
    RunShape("synDistinct", 1000, "distinct", 0.8),
    RunShape("synShallow", 100, "distinct", 1.5),
    RunShape("synTen", 10, "large", 1.0),
    RunShape("synNegative", 1000, "negative", 0.6),
    RunShape("synMissing", 1000, "ints", 0.9, drop_topics=4, short_topics=3),
)

_PREFIXES = ("LA", "FT", "FBIS", "FR")


def _doc_ids(rng: np.random.Generator, n: int) -> list[str]:
    """``n`` distinct document ids in the four collections' shapes."""
    out: set[str] = set()
    while len(out) < n:
        kind = rng.integers(0, 4, size=n)
        a = rng.integers(0, 10**6, size=n)
        b = rng.integers(0, 10**4, size=n)
        for k, x, y in zip(kind.tolist(), a.tolist(), b.tolist(), strict=True):
            if k == 0:
                out.add(f"LA{x % 1000000:06d}-{y:04d}")
            elif k == 1:
                out.add(f"FT{900 + x % 50}-{y}")
            elif k == 2:
                out.add(f"FBIS{3 + x % 2}-{y + 10 * (x % 1000)}")
            else:
                out.add(f"FR94{x % 10000:04d}-{x % 3}-{y:05d}")
            if len(out) == n:
                break
    return sorted(out)


def _scores(rng: np.random.Generator, kind: str, n: int) -> np.ndarray:
    """Descending scores of one topic's ``n`` documents, with the ties ``kind`` asks for."""
    if kind == "ints":  # MU03rob01-like: 231.000000, many tied values
        s = np.sort(rng.integers(20, 260, size=n))[::-1].astype(float)
    elif kind == "float32-ties":  # distinct doubles that collapse to one float32 in pairs
        base = np.sort(rng.uniform(5.0, 25.0, size=(n + 1) // 2))[::-1]
        s = np.repeat(base, 2)[:n] + np.tile([1e-9, 0.0], (n + 1) // 2)[:n]
    elif kind == "large":
        s = np.sort(rng.uniform(1e4, 7e5, size=n))[::-1]
    elif kind == "negative":
        s = np.sort(-rng.exponential(3.0, size=n))[::-1]
    else:
        s = np.sort(rng.uniform(0.0, 1000.0, size=n))[::-1]
    return s


def _fmt(kind: str, s: float) -> str:
    return {"ints": f"{s:.6f}", "float32-ties": f"{s:.10f}", "large": f"{s:.6f}"}.get(kind, f"{s:.4f}")


def write_collection(dest: Path, seed: int = 2003, topics: int = 50) -> tuple[Path, dict[str, Path]]:
    """Write the collection into ``dest``; returns ``(qrels path, {run name: path})``."""
    rng = np.random.default_rng(seed)
    dest.mkdir(parents=True, exist_ok=True)
    (dest / "runs").mkdir(exist_ok=True)
    tids = sorted(rng.choice(np.arange(301, 701), size=topics, replace=False).tolist())
    docs = _doc_ids(rng, 30000)
    qrels_lines: list[str] = []
    judged: dict[int, tuple[list[str], np.ndarray]] = {}
    for t in tids:
        n = int(rng.integers(100, 601))
        pick = rng.choice(len(docs), size=n, replace=False)
        grades = rng.choice([0, 1, 2], size=n, p=[0.86, 0.10, 0.04])
        if not (grades > 0).any():
            grades[0] = 1
        names = [docs[i] for i in pick]
        judged[t] = (names, grades)
        qrels_lines += [f"{t} 0 {d} {g}\n" for d, g in sorted(zip(names, grades.tolist(), strict=True))]
    qrels = dest / "qrels.txt"
    qrels.write_text("".join(qrels_lines))
    runs = {}
    for shape in RUNS:
        lines: list[str] = []
        kept = tids[shape.drop_topics:] if shape.drop_topics else tids
        short = set(kept[: shape.short_topics])
        for t in kept:
            names, grades = judged[t]
            n = min(shape.depth, 1000) - (1 if t in short else 0)
            if shape.depth == 10:
                n = int(rng.integers(8, 13))
            # a topic's candidates: its judged documents and unjudged ones from the collection
            extra = [docs[i] for i in rng.choice(len(docs), size=n + len(names), replace=False)]
            cand = list(dict.fromkeys(names + extra))[: len(names) + n]
            rel = np.zeros(len(cand))
            rel[: len(names)] = grades
            noise = rng.gumbel(size=len(cand)) + shape.skill * rel
            order = np.argsort(-noise, kind="stable")[:n]
            scores = _scores(rng, shape.scores, n)
            for r, (i, s) in enumerate(zip(order.tolist(), scores.tolist(), strict=True), start=1):
                lines.append(f"{t}\tQ0\t{cand[i]}\t{r}\t{_fmt(shape.scores, s)}\t{shape.name}\n")
        path = dest / "runs" / f"input.{shape.name}.gz"
        path.write_bytes(gzip.compress("".join(lines).encode(), mtime=0))
        runs[shape.name] = path
    return qrels, runs
