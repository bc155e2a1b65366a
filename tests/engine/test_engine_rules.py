"""Rules moved into the engine from the trec_eval drop-in, checked against the real binaries:
NaN scores in trec_eval's qsort order (``ties=docno-desc``), duplicate messages found on the
engine's ranking, float32 overflow noted without a numpy warning."""

from __future__ import annotations

import io
import random
import subprocess
import warnings
from pathlib import Path

from auditeval.engine.staged_run import StagedRun
from auditeval.io import parse_qrels, parse_run
from auditeval.trec_eval import main as trec_main
from auditeval.vocab.conventions import resolve

MEASURES = ["-m", "map", "-m", "P.3", "-m", "recip_rank", "-m", "ndcg", "-m", "bpref"]


def _case(rng: random.Random) -> tuple[str, str]:
    qrels, run = [], []
    for t in range(1, rng.randint(2, 4)):
        docs = [f"d{rng.randint(0, 20)}" for _ in range(rng.randint(2, 9))]
        docs = list(dict.fromkeys(docs))
        for d in docs:
            if rng.random() < 0.7:
                qrels.append(f"{t} 0 {d} {rng.randint(0, 2)}")
            score = rng.choice(["nan", "nan", "1", "2", "0.5", "-nan", "3"])
            run.append(f"{t} Q0 {d} 1 {score} r")
        if not any(q.startswith(f"{t} ") for q in qrels):
            qrels.append(f"{t} 0 {docs[0]} 1")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def _dropin(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = trec_main(args, stdout=out, stderr=err)
    return code, out.getvalue(), err.getvalue()


def test_nan_scores_rank_as_trec_eval_qsort_leaves_them(trec_eval_bins: dict[str, Path], tmp_path: Path):
    rng = random.Random(61)
    compared = 0
    for i in range(40):
        q_text, r_text = _case(rng)
        q, r = tmp_path / f"q{i}", tmp_path / f"r{i}"
        q.write_text(q_text)
        r.write_text(r_text)
        for version in ("9.0.8", "10.0"):
            want = subprocess.run([str(trec_eval_bins[version]), "-q", *MEASURES, str(q), str(r)],
                                  capture_output=True, text=True)
            got = _dropin(["--as", version, "-q", *MEASURES, str(q), str(r)])
            assert (got[0], got[1]) == (want.returncode, want.stdout), (version, q_text, r_text)
            compared += 1
    assert compared == 80


def test_duplicate_named_is_the_smallest_within_depth(trec_eval_bins: dict[str, Path], tmp_path: Path):
    # topic 1 repeats d9 at ranks 1-2 and d1 at ranks 3-4 (float32 ties 1.00000001 and 1.0);
    # -M 2 keeps only the d9 pair: trec_eval names d9; without -M it names d1 (the smaller)
    q = tmp_path / "q"
    q.write_text("1 0 d1 1\n1 0 d9 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 d9 1 3 r\n1 Q0 d9 2 3 r\n1 Q0 d1 3 1.00000001 r\n1 Q0 d1 4 1.0 r\n")
    for extra in ([], ["-M", "2"]):
        for version in ("9.0.8", "10.0"):
            want = subprocess.run([str(trec_eval_bins[version]), *extra, "-m", "map", str(q), str(r)],
                                  capture_output=True, text=True)
            got = _dropin(["--as", version, *extra, "-m", "map", str(q), str(r)])
            assert (got[0], got[1], got[2]) == (want.returncode, want.stdout, want.stderr), (version, extra)
    assert "duplicate docs d1" in _dropin(["-m", "map", str(q), str(r)])[2]
    assert "duplicate docs d9" in _dropin(["-M", "2", "-m", "map", str(q), str(r)])[2]


def test_float32_overflow_noted_and_silent():
    qrels = parse_qrels(b"1 0 a 1\n")
    run = parse_run(b"1 Q0 a 1 -1e308 r\n1 Q0 b 2 1e300 r\n1 Q0 c 3 1 r\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = StagedRun(qrels, run).prepared(resolve("trec_eval-9.0.8"))
    assert any(n.endswith("2 score(s) overflow float32 and became -inf/inf (sim=float32)") for n in p.notes)
    assert [run.table.column("doc")[int(i)].as_py() for i in p.run_row] == ["b", "c", "a"]


def test_short_id_words_are_exact_and_byte_ordered():
    import numpy as np
    import pyarrow as pa

    from auditeval.engine.ids import short_id_words, short_ids_unique

    ids = ["D3312019", "LA052390-0089", "", "a", "ab", "ab\x00", "123456789012345", "LA052390-0089", "é"]
    col = pa.chunked_array([pa.array(ids[:3]), pa.array(ids[3:])])
    w1, w2 = short_id_words(col)
    assert (int(w1[0]), int(w2[0])) == (0x4433333132303139, 8)  # "D3312019", length 8
    assert (int(w1[1]), int(w2[1])) == (0x4C41303532333930, 0x2D3030383900000D)  # "LA052390" "-0089" 13
    keys = list(zip(w1.tolist(), w2.tolist(), strict=True))
    assert sorted(range(len(ids)), key=lambda i: (keys[i], i)) == sorted(range(len(ids)), key=lambda i: (ids[i].encode(), i))
    assert short_id_words(pa.chunked_array([pa.array(["0123456789abcdef"])])) is None  # 16 bytes
    rng = np.random.default_rng(3)
    for _ in range(200):  # against a brute-force set of (topic, doc) pairs
        n = int(rng.integers(2, 40))
        docs = [f"{rng.choice(['D', 'LA', 'x'])}{rng.integers(0, 30)}" for _ in range(n)]
        topic = np.sort(rng.integers(0, 3, n)).astype(np.int32)
        blocks = np.bincount(topic)
        got = short_ids_unique(pa.chunked_array([pa.array(docs)]), topic, blocks[blocks > 0])
        unique = len(set(zip(topic.tolist(), docs, strict=True))) == n
        assert got is (True if unique else None)


def test_id_words_up_to_23_bytes_are_exact_and_agree_with_the_short_form():
    """Ids of 16-23 bytes (robust04's ``FR940104-0-00001``) get a third word, so their mixes
    decide the join and the duplicate check without hashing strings; an id of at most 15 bytes
    has the same two words either way and a third word 0 (a qrels and a run mix alike)."""
    import numpy as np
    import pyarrow as pa

    from auditeval.engine.ids import id_mix, short_id_words

    rng = np.random.default_rng(5)
    alphabet = np.array(list("AB01-"))
    ids = ["".join(rng.choice(alphabet, int(rng.integers(0, 24)))) for _ in range(3000)]
    ids += ["FR940104-0-00001", "FR940104-0-00001", "FR940104-0-0000", "0123456789abcdefghijklm", ""]
    col = pa.chunked_array([pa.array(ids[:1000]), pa.array(ids[1000:])])
    words = short_id_words(col, 23)
    keys = list(zip(*(w.tolist() for w in words), strict=True))
    assert len(set(keys)) == len(set(ids))  # exact: distinct ids, distinct words
    assert all((keys[i] == keys[j]) == (ids[i] == ids[j]) for i in range(len(ids)) for j in range(len(ids) - 5, len(ids)))
    mix = id_mix(col)
    short = [i for i, d in enumerate(ids) if len(d.encode()) <= 15]
    two = short_id_words(pa.chunked_array([pa.array([ids[i] for i in short])]))
    assert [keys[i][:2] for i in short] == list(zip(*(w.tolist() for w in two), strict=True))
    assert all(keys[i][2] == 0 for i in short)
    # a column of short ids alone has two words under either limit (no third array made)
    assert len(short_id_words(pa.chunked_array([pa.array([ids[i] for i in short])]), 23)) == 2
    assert id_mix(pa.array([ids[i] for i in short])).tolist() == [mix[i] for i in short]
    assert short_id_words(pa.chunked_array([pa.array(["0123456789abcdefghijklmn"])]), 23) is None  # 24 bytes
    assert mix is not None and mix[-4] == mix[-5] != mix[-3]
    assert id_mix(pa.chunked_array([pa.array(ids[:2000]), pa.array(ids[2000:])])).tolist() == mix.tolist()
    assert len(set(mix.tolist())) == len(set(ids))


def test_take_rows_chunk_by_chunk_equals_take():
    import numpy as np
    import pyarrow as pa

    from auditeval.engine.ids import take_rows

    col = pa.chunked_array([pa.array(["a", "b"]), pa.array([], pa.string()), pa.array(["c", "d", "e"])])
    rows = np.array([0, 2, 3, 4])
    assert take_rows(col, rows).to_pylist() == ["a", "c", "d", "e"] == col.take(pa.array(rows)).to_pylist()
    assert take_rows(col, np.array([], np.int64)).to_pylist() == []
