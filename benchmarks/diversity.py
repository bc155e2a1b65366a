"""Intent-aware measures on a synthetic subtopic qrels: auditeval beside pyndeval, in process.

Seeded data: T topics, 1,000 ranked documents each (scores at 3 decimals: ties), 300 judged
documents per topic, each judged for every one of S subtopics with probability 1/2, relevant
with probability 0.4. Both sides get the five measures alpha_nDCG@20, ERR_IA@20, NRBP, P_IA@20,
StRecall@20; auditeval reads the files (``evaluate``), pyndeval gets lists already parsed. The
minimum of ``--repeat`` rounds; the per-topic values are checked equal to 1e-12 first.

Usage::

    python benchmarks/diversity.py                 # 50 topics, 5 subtopics, 3 rounds
    python benchmarks/diversity.py --topics 200 --subtopics 8 --cutoff 100
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import pyndeval

sys.path.insert(0, str(Path(__file__).resolve().parent))

from provenance import Provenance, table  # noqa: E402

import auditeval as ae  # noqa: E402

NAMES = {"alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "P_IA": "P-IA", "StRecall": "strec"}


def data(topics: int, subtopics: int, seed: int = 1) -> tuple[list, list]:
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for t in range(topics):
        for d in rng.choice(1000, 300, replace=False):
            for s in np.flatnonzero(rng.random(subtopics) < 0.5):
                qrels.append((str(t), str(s), f"doc{d}", int(rng.random() < 0.4)))
        scores = np.round(rng.random(1000), 3)
        run += [(str(t), f"doc{d}", float(scores[d])) for d in range(1000)]
    return qrels, run


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--subtopics", type=int, default=5)
    ap.add_argument("--cutoff", type=int, default=20, help="k of the cut measures (pyndeval: at most 20)")
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()
    prov = Provenance(("pyndeval",))
    k = a.cutoff
    ours = [f"alpha_nDCG@{k}", f"ERR_IA@{k}", "NRBP", f"P_IA@{k}", f"StRecall@{k}"]
    qrels, run = data(a.topics, a.subtopics)
    with tempfile.TemporaryDirectory() as tmp:
        q, r = Path(tmp) / "q.txt", Path(tmp) / "r.txt"
        q.write_text("".join(f"{t} {s} {d} {g}\n" for t, s, d, g in qrels))
        r.write_text("".join(f"{t} Q0 {d} 0 {s!r} x\n" for t, d, s in run))
        native, theirs = [], []
        for _ in range(a.repeat):
            t0 = time.perf_counter()
            df = ae.evaluate(str(q), str(r), ours, profile="pyndeval-0.0").to_frame()
            native.append(time.perf_counter() - t0)
            if k <= 20:
                t0 = time.perf_counter()
                ref = pyndeval.RelevanceEvaluator(qrels, [NAMES.get(m.split("@")[0], "NRBP") + m[len(m.split("@")[0]):]
                                                          for m in ours]).evaluate(run)
                theirs.append(time.perf_counter() - t0)
        if k <= 20:
            worst = 0.0
            for m in ours:
                name = NAMES.get(m.split("@")[0], "NRBP") + m[len(m.split("@")[0]):]
                sub = df[(df.measure == m) & (df.topic != "all")]
                worst = max(worst, max(abs(v - ref[t][name]) for t, v in zip(sub.topic, sub.value, strict=True)))
            assert worst <= 1e-12, worst
    rows = [("auditeval evaluate (reads the files)", f"{min(native):.3f} s")]
    if theirs:
        rows.append(("pyndeval RelevanceEvaluator + evaluate (parsed lists)", f"{min(theirs):.3f} s"))
    checked = "; per topic equal to 1e-12" if theirs else ""
    prov.report(f"{a.topics} topics x 1,000 documents, {a.subtopics} subtopics, {len(qrels):,} judgment lines, "
                f"k={k}, minimum of {a.repeat}{checked}:", table(["tool", "wall (min)"], rows))

if __name__ == "__main__":
    main()
