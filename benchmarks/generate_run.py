"""Generate an MS MARCO dev-sized synthetic run and matching qrels (deterministic).

Shape (MS MARCO passage dev, small): 6,980 topics x 1,000 documents = 6.98 million run
lines in TREC 6-column format, passage-like numeric doc ids drawn from an 8,841,823
passage collection, and about 1.07 judged relevant documents per topic (grade 1), most of
them retrieved somewhere in the top 1,000.

Scores imitate BM25 order statistics: the top score per topic is uniform in [12, 35] and
the gap between rank i and i+1 is exponential with mean ``1.5 / i`` (spacings of the
extreme tail), so scores crowd together down the list. They are written with 4 decimals
(``%.4f``), which makes ties within a topic common in the tail (a few percent of the rows),
as in real BM25 runs. Run lines are written in rank order, topics in numeric order.

Document ids: ``--ids numeric`` (default) writes the passage number (``7067032``, MS MARCO);
``--ids string`` writes the same documents under TREC newswire-shaped ids, what most
collections use: even numbers as ``D`` + 7 digits (``D3312019``, GOV/Disks 4-5 style), odd
ones as ``LA`` + MMDDYY + ``-`` + 4 digits (``LA052390-0089``, LA Times style); the
mapping is one to one, so every measure has the same value under both. ``--ids short``
writes every document as ``D`` + 7 digits (``D6533516``: the passage number, zero-padded),
the short-id case where the binary's own string costs are smallest. ``--ids variable`` writes
``D`` + the passage number unpadded (``D67032``: 2 to 8 bytes, most of them 8), short ids of
varying length; ``--ids long`` the ClueWeb09 shape, ``clueweb09-en`` + 4 digits + ``-`` + 2
digits + ``-`` + 5 digits (``clueweb09-en0001-37-12345``: 25 bytes). Every shape is one to one
with the passage numbers, so every measure has the same value under each.

Usage::

    python benchmarks/generate_run.py [--topics 6980] [--depth 1000] [--seed 42]
                                      [--ids numeric|string|short|variable|long] [--out benchmarks/data]

writes ``OUT/run.msmarco-like.txt`` and ``OUT/qrels.msmarco-like.txt`` (for ``--topics``
other than 6980 the names carry the count, e.g. ``run.msmarco-like.500.txt``; string ids
add ``.strid``: ``run.msmarco-like.strid.txt``; short ids ``.shortid``, variable ones ``.varid``,
long ones ``.longid``: :data:`SUFFIXES`).
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np
import pyarrow as pa
import pyarrow.compute as pc

COLLECTION = 8_841_823  # MS MARCO passage collection size
QID_SPACE = 1_102_000  # dev qids are spread over 0 .. ~1.1M
TAG = "bm25-synthetic"


def _fixed4(score_1e4: np.ndarray) -> pa.Array:
    """``%.4f`` of score_1e4 / 10000 for non-negative ints, as an Arrow string array."""
    ip = pc.cast(pa.array(score_1e4 // 10_000), pa.string())
    fp = pc.utf8_lpad(pc.cast(pa.array(score_1e4 % 10_000), pa.string()), 4, "0")
    return pc.binary_join_element_wise(ip, fp, ".")


def _pad(values: np.ndarray, width: int) -> pa.Array:
    """Decimal strings of non-negative ints, zero-padded to ``width``."""
    return pc.utf8_lpad(pc.cast(pa.array(values), pa.string()), width, "0")


def string_ids(doc: np.ndarray) -> pa.Array:
    """TREC-shaped string ids, one to one with ``doc`` (ints in ``[0, COLLECTION)``).

    Even ``doc``: ``D`` + ``doc // 2`` in 7 digits (``D3312019``); odd: ``LA`` + MMDDYY +
    ``-`` + 4 digits (``LA052390-0089``) spelling ``doc // 2`` as (year 89/90, month, day,
    sequence number): 2 x 12 x 31 x 10,000 = 7.44M > COLLECTION / 2 distinct ids.
    """
    doc = np.asarray(doc, dtype=np.int64)
    half = doc // 2
    seq, rest = half % 10_000, half // 10_000
    day, rest = rest % 31 + 1, rest // 31
    month, year = rest % 12 + 1, 89 + rest // 12
    la = pc.binary_join_element_wise(
        pa.scalar("LA"), _pad(month, 2), _pad(day, 2), _pad(year, 2), pa.scalar("-"), _pad(seq, 4), ""
    )
    d = pc.binary_join_element_wise(pa.scalar("D"), _pad(half, 7), "")
    return pc.if_else(pa.array(doc % 2 == 0), d, la)


def short_ids(doc: np.ndarray) -> pa.Array:
    """``D`` + the passage number in 7 digits (``D0067032``), one to one with ``doc``."""
    return pc.binary_join_element_wise(pa.scalar("D"), _pad(np.asarray(doc, dtype=np.int64), 7), "")


def variable_ids(doc: np.ndarray) -> pa.Array:
    """``D`` + the passage number unpadded (``D67032``), one to one with ``doc``."""
    return pc.binary_join_element_wise(pa.scalar("D"), pc.cast(pa.array(np.asarray(doc, dtype=np.int64)), pa.string()), "")


CLUEWEB_RECORDS = 40_000  # records per ClueWeb09 file (its files hold up to about 40,000)


def long_ids(doc: np.ndarray) -> pa.Array:
    """ClueWeb09-shaped ids, one to one with ``doc`` (ints in ``[0, COLLECTION)``).

    ``clueweb09-en`` + folder (4 digits) + ``-`` + file (2 digits) + ``-`` + record (5 digits):
    record ``doc % 40,000``, file ``doc // 40,000 % 100``, folder ``doc // 4,000,000``
    (``clueweb09-en0001-37-12345``; every id 25 bytes).
    """
    doc = np.asarray(doc, dtype=np.int64)
    record, rest = doc % CLUEWEB_RECORDS, doc // CLUEWEB_RECORDS
    file, folder = rest % 100, rest // 100
    return pc.binary_join_element_wise(
        pa.scalar("clueweb09-en"), _pad(folder, 4), pa.scalar("-"), _pad(file, 2), pa.scalar("-"), _pad(record, 5), ""
    )


SHAPES = {"string": string_ids, "short": short_ids, "variable": variable_ids, "long": long_ids}
SUFFIXES = {"numeric": "", "string": ".strid", "short": ".shortid", "variable": ".varid", "long": ".longid"}


def _ids(doc: np.ndarray, ids: str) -> pa.Array:
    if ids in SHAPES:
        return SHAPES[ids](doc)
    return pc.cast(pa.array(np.asarray(doc, dtype=np.int64)), pa.string())


def paths(out: Path, topics: int = 6980, ids: str = "numeric", depth: int = 1000) -> tuple[Path, Path]:
    """(qrels, run) paths that :func:`main` writes for these options."""
    suffix = "" if topics == 6980 and depth == 1000 else f".{topics}" + ("" if depth == 1000 else f"x{depth}")
    suffix += SUFFIXES[ids]
    return out / f"qrels.msmarco-like{suffix}.txt", out / f"run.msmarco-like{suffix}.txt"


def generate(n_topics: int, depth: int, seed: int, ids: str = "numeric") -> tuple[pa.Array, pa.Array]:
    """Return (run lines, qrels lines) as Arrow string arrays, each line ending in a newline."""
    rng = np.random.default_rng(seed)
    qids = np.sort(rng.choice(QID_SPACE, size=n_topics, replace=False))

    # ---- documents: `depth` distinct passage ids per topic
    docs = np.empty((n_topics, depth), dtype=np.int64)
    for t in range(n_topics):
        docs[t] = rng.choice(COLLECTION, size=depth, replace=False)

    # ---- BM25-like scores, 4 decimals
    top = rng.uniform(12.0, 35.0, size=n_topics)
    gaps = rng.exponential(1.0, size=(n_topics, depth - 1)) * (1.5 / np.arange(1, depth))
    scores = top[:, None] - np.concatenate([np.zeros((n_topics, 1)), np.cumsum(gaps, axis=1)], axis=1)
    scores = np.maximum(scores, 0.0)
    score_1e4 = np.rint(scores * 10_000).astype(np.int64)

    # ---- qrels: 1 relevant per topic, ~6% with 2, ~0.5% with 3 (dev: 7,437 for 6,980)
    n_rel = 1 + (rng.random(n_topics) < 0.06) + (rng.random(n_topics) < 0.005)
    q_topic, q_doc = [], []
    retrieved = rng.random(n_rel.sum()) < 0.86  # ~BM25 recall@1000 on dev
    # rank of a retrieved relevant document: heavy head (MRR@10 around 0.19)
    ranks = np.minimum(np.floor(np.exp(rng.uniform(0, np.log(depth), size=n_rel.sum()))).astype(np.int64), depth) - 1
    k = 0
    for t in range(n_topics):
        used = set()
        for _ in range(n_rel[t]):
            if retrieved[k]:
                r = int(ranks[k])
                while r in used:
                    r = (r + 1) % depth
                used.add(r)
                d = int(docs[t, r])
            else:
                d = int(rng.integers(COLLECTION))  # unretrieved (a collision is harmless)
                while d in docs[t]:
                    d = int(rng.integers(COLLECTION))
            q_topic.append(int(qids[t]))
            q_doc.append(d)
            k += 1

    # ---- format
    n = n_topics * depth
    topic_s = pc.cast(pa.array(np.repeat(qids, depth)), pa.string())
    doc_s = _ids(docs.reshape(-1), ids)
    rank_s = pc.cast(pa.array(np.tile(np.arange(1, depth + 1), n_topics)), pa.string())
    score_s = _fixed4(score_1e4.reshape(-1))
    run_lines = pc.binary_join_element_wise(
        topic_s, pa.scalar("Q0"), doc_s, rank_s, score_s, pa.scalar(TAG + "\n"), " "
    )
    assert len(run_lines) == n

    qrels_lines = pc.binary_join_element_wise(
        pc.cast(pa.array(q_topic, pa.int64()), pa.string()),
        pa.scalar("0"),
        _ids(np.asarray(q_doc, dtype=np.int64), ids),
        pa.scalar("1\n"),
        " ",
    )
    return run_lines, qrels_lines


def _write_lines(lines: pa.Array, path: Path) -> None:
    """Write the concatenated values of a string array (its data buffer) to ``path``."""
    lines = pa.concat_arrays([lines])  # fresh, offset 0
    offsets = np.frombuffer(lines.buffers()[1], dtype=np.int32, count=len(lines) + 1)
    data = lines.buffers()[2]
    with open(path, "wb") as f:
        f.write(memoryview(data)[offsets[0] : offsets[-1]])


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--topics", type=int, default=6980)
    ap.add_argument("--depth", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=42)
    ap.add_argument("--ids", choices=tuple(SUFFIXES), default="numeric", help="document id shape")
    ap.add_argument("--out", type=Path, default=Path(__file__).resolve().parent / "data")
    args = ap.parse_args(argv)
    t0 = time.perf_counter()
    args.out.mkdir(parents=True, exist_ok=True)
    qrels_path, run_path = paths(args.out, args.topics, args.ids, args.depth)
    run_lines, qrels_lines = generate(args.topics, args.depth, args.seed, args.ids)
    _write_lines(run_lines, run_path)
    _write_lines(qrels_lines, qrels_path)
    print(f"wrote {run_path} ({len(run_lines):,} lines) and {qrels_path} ({len(qrels_lines):,} lines) "
          f"in {time.perf_counter() - t0:.1f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
