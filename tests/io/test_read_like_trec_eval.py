"""Runs read as trec_eval reads them: the rank field ignored (a field that is not an integer is
noted, and refused only by ``ties=rank``), scores read with C ``atof`` (hex floats, ``1e400`` ->
inf, ``nan``, trailing junk), each decision a note in every output format.

Every case is a hand-made file; the values are the real binaries' (``trec_eval_bins``: 9.0.8
and 10.0, to the printed digit) and pytrec_eval's (to 1e-12, where its own parser reads the
file: Python's ``float`` reads no hex float), and libc's own ``atof`` (ctypes) for the scores.
"""

from __future__ import annotations

import ctypes
import ctypes.util
import json
import math
import subprocess
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
import pytrec_eval
from cli_helpers import run_cli

import auditeval as ae
from auditeval.io import parse_run, read_run, run_from, write_run
from auditeval.vocab.errors import EvaluationError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 2\n1 0 d 1\n2 0 e 1\n2 0 f 1\n2 0 h 0\n"
# rank fields trec_eval never reads: '-', 'abc', '1.5', an int beyond 64 bits
RANKS = ("1 Q0 a - 3.0 r\n1 Q0 b abc 2.5 r\n1 Q0 c 1.5 2.0 r\n1 Q0 d 4 1.0 r\n"
         "2 Q0 e 99999999999999999999 1.0 r\n2 Q0 f 1 2.0 r\n2 Q0 g 3 0.5 r\n")
# scores C atof reads and Python/Arrow do not (or read as infinities)
HEX = "1 Q0 a 1 0x1p-1 r\n1 Q0 b 2 0x1.8p1 r\n1 Q0 c 3 0x10 r\n1 Q0 d 4 -0x1p0 r\n2 Q0 e 1 0X1P3 r\n2 Q0 f 2 0x0 r\n"
HUGE = ("1 Q0 a 1 1e400 r\n1 Q0 b 2 -1e400 r\n1 Q0 c 3 nan r\n1 Q0 d 4 inf r\n"
        "2 Q0 e 1 2.5 r\n2 Q0 f 2 NaN r\n2 Q0 g 3 1e-400 r\n2 Q0 h 4 -Infinity r\n")
JUNK = ("1 Q0 a 1 1.5e3x r\n1 Q0 b 2 1e r\n1 Q0 c 3 +.5 r\n1 Q0 d 4 1_000 r\n2 Q0 e 1 .5. r\n2 Q0 f 2 -0 r\n"
        "2 Q0 g 3 2.5abc r\n2 Q0 h 4 abc r\n")
CASES = {"ranks": RANKS, "hex": HEX, "huge": HUGE, "junk": JUNK}
MEASURES = {"map": "AP", "P_2": "P@2", "recip_rank": "RR", "ndcg": "nDCG", "num_rel_ret": "NumRelRet",
            "Rprec": "Rprec", "bpref": "Bpref"}
PROFILES = {"9.0.8": "trec_eval-9.0.8", "10.0": "trec_eval-10.0"}


def _files(tmp_path: Path, run: str) -> tuple[Path, Path]:
    q, r = tmp_path / "qrels.txt", tmp_path / "run.txt"
    q.write_text(QRELS)
    r.write_text(run)
    return q, r


def _libc_atof(text: str) -> float:
    libc = ctypes.CDLL(ctypes.util.find_library("c"))
    libc.atof.restype = ctypes.c_double
    libc.atof.argtypes = [ctypes.c_char_p]
    return libc.atof(text.encode())


def _same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# ------------------------------------------------------------------------------ the reader
@pytest.mark.parametrize("case", ["hex", "huge", "junk"])
def test_scores_are_libc_atof(tmp_path, case) -> None:
    """Every score read_run gives is what the C library's own atof gives for the field."""
    _, r = _files(tmp_path, CASES[case])
    fields = [line.split()[4] for line in CASES[case].splitlines()]
    got = read_run(r).table.column("score").to_pylist()
    want = [_libc_atof(f) for f in fields]
    assert all(_same(a, b) for a, b in zip(got, want, strict=True)), (got, want)


def test_hex_and_huge_values_by_hand(tmp_path) -> None:
    _, r = _files(tmp_path, HEX)
    assert read_run(r).table.column("score").to_pylist() == [0.5, 3.0, 16.0, -1.0, 8.0, 0.0]
    _, r = _files(tmp_path, HUGE)
    got = read_run(r).table.column("score").to_pylist()
    assert got[:2] == [math.inf, -math.inf] and math.isnan(got[2]) and math.isnan(got[5])
    assert got[3:5] + got[6:] == [math.inf, 2.5, 0.0, -math.inf]
    _, r = _files(tmp_path, JUNK)
    assert read_run(r).table.column("score").to_pylist() == [1500.0, 1.0, 0.5, 1.0, 0.5, -0.0, 2.5, 0.0]


def test_score_notes(tmp_path) -> None:
    _, r = _files(tmp_path, HUGE)
    notes = read_run(r).notes
    assert notes == (
        f"{r}: 6 score(s) not finite (first: line 1, '1e400' -> inf): kept, as trec_eval keeps them (inf orders "
        "first or last; NaN: after every number, or under ties=docno-desc where trec_eval's qsort puts it)",
    )
    _, r = _files(tmp_path, HEX)
    assert read_run(r).notes == (
        f"{r}: 6 score(s) read with C atof, as trec_eval reads them (not a plain decimal number; first: line 1, "
        "'0x1p-1' -> 0.5)",
    )


def test_rank_field_not_read(tmp_path) -> None:
    _, r = _files(tmp_path, RANKS)
    run = read_run(r)
    assert run.table.column("rank").to_pylist() == [None, None, None, 4, None, 1, 3]
    assert run.notes == (f"{r}: rank column not an integer on 4 line(s) (first: line 1, '-'): ignored, as "
                         "trec_eval does (ties=rank, which orders by it, refuses the run)",)
    # the same through bytes, and after a comment header (line numbers are physical lines)
    again = parse_run(b"# h\n1 Q0 a 1 1 r\n1 Q0 b x 0.5 r\n", "r.txt")
    assert again.notes[-1] == ("r.txt: rank column not an integer on 1 line(s) (first: line 3, 'x'): ignored, as "
                               "trec_eval does (ties=rank, which orders by it, refuses the run)")
    # a regular file (the fast path) with integer ranks keeps them all
    (tmp_path / "ok.txt").write_text("1 Q0 a 7 1 r\n1 Q0 b 9 0.5 r\n")
    assert read_run(tmp_path / "ok.txt").table.column("rank").to_pylist() == [7, 9]


def test_ties_rank_refuses_a_rank_it_cannot_read(tmp_path) -> None:
    q, r = _files(tmp_path, RANKS)
    with pytest.raises(EvaluationError, match=rf"^{r}:1: rank is not an integer: ties=rank orders by the rank column"):
        ae.evaluate(q, r, ["P@2"], settings=["ties=rank"])
    assert ae.evaluate(q, r, ["P@2"]).get("P@2").value == 0.75  # by score: topic 1 a, b (1/2); topic 2 f, e (2/2)


def test_msmarco_rank_stays_read(tmp_path) -> None:
    """An MS MARCO candidate file is ordered by its rank: a bad one stays an error naming the line."""
    p = tmp_path / "cand.tsv"
    p.write_text("1\ta\t1\n1\tb\tx\n")
    with pytest.raises(ae.InputError, match=r"cand.tsv:2: rank is not an integer: 'x'"):
        read_run(p, format="msmarco")


def test_write_run_round_trips_null_ranks(tmp_path) -> None:
    _, r = _files(tmp_path, RANKS)
    run = read_run(r)
    out = tmp_path / "copy.txt"
    write_run(run, out)
    back = read_run(out)
    assert back.table.column("rank").to_pylist() == run.table.column("rank").to_pylist()
    assert out.read_text().splitlines()[0] == "1 Q0 a - 3.0 r"


def test_in_memory_readers() -> None:
    run = run_from({"1": {"a": "0x1p-1", "b": float("inf"), "c": 2.0}})
    assert run.table.column("score").to_pylist() == [0.5, math.inf, 2.0]
    assert run.notes == (
        "<dict>: 1 score(s) read with C atof, as trec_eval reads them (not a plain decimal number; first: topic "
        "'1' doc 'a', '0x1p-1' -> 0.5)",
        "<dict>: 1 score(s) not finite (first: topic '1' doc 'b', inf -> inf): kept, as trec_eval keeps them (inf "
        "orders first or last; NaN: after every number, or under ties=docno-desc where trec_eval's qsort puts it)",
    )
    df = pd.DataFrame({"query_id": ["1"] * 4, "doc_id": list("abcd"), "score": [1.0, np.nan, 3.0, 4.0],
                       "rank": [1, "-", 2.5, 3.0]})
    run = run_from(df)
    assert run.table.column("rank").to_pylist() == [1, None, None, 3]
    assert run.notes[-1] == ("<DataFrame>: rank column not an integer on 2 line(s) (first: row 2, '-'): ignored, "
                             "as trec_eval does (ties=rank, which orders by it, refuses the run)")
    assert run.notes[0].startswith("<DataFrame>: 1 score(s) not finite (first: row 2, nan -> nan)")
    strings = run_from(pd.DataFrame({"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": ["0x10", "1.5x"]}))
    assert strings.table.column("score").to_pylist() == [16.0, 1.5]


# ------------------------------------------------------------------------------ the references
def _trec_eval(bins, version: str, q: Path, r: Path) -> dict[tuple[str, str], str]:
    args = [str(bins[version]), "-q", *[x for m in MEASURES for x in ("-m", m.replace("_", ".") if m == "P_2" else m)],
            str(q), str(r)]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return {(f[0], f[1]): f[2] for f in (line.split() for line in out.splitlines())}


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_same_numbers_as_trec_eval(trec_eval_bins, tmp_path, version, case) -> None:
    q, r = _files(tmp_path, CASES[case])
    real = _trec_eval(trec_eval_bins, version, q, r)
    res = ae.evaluate(q, r, list(MEASURES.values()), profile=PROFILES[version])
    mine = {}
    for trec, name in MEASURES.items():
        for v in res.values:
            if v.measure == name:
                mine[(trec, v.topic)] = f"{v.value:.0f}" if trec == "num_rel_ret" else f"{v.value:.4f}"
    assert mine == real


@pytest.mark.parametrize("case", ["ranks", "huge"])
def test_same_numbers_as_pytrec_eval(tmp_path, case) -> None:
    """pytrec_eval's own parser (which ignores the rank field and reads scores with float)."""
    q, r = _files(tmp_path, CASES[case])
    with open(q) as fq, open(r) as fr:
        qrels, run = pytrec_eval.parse_qrel(fq), pytrec_eval.parse_run(fr)
    ref = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P_2", "recip_rank", "ndcg"}).evaluate(run)
    res = ae.evaluate(q, r, ["AP", "P@2", "RR", "nDCG"], profile="trec_eval-9.0.8")
    names = {"AP": "map", "P@2": "P_2", "RR": "recip_rank", "nDCG": "ndcg"}
    got = {(names[v.measure], v.topic): v.value for v in res.values if v.topic != "all"}
    assert got.keys() == {(m, t) for t in ref for m in ref[t]}
    for (m, t), value in got.items():
        assert value == pytest.approx(ref[t][m], abs=1e-12), (m, t)


# ------------------------------------------------------------------------------ the command
RANK_NOTE = "rank column not an integer on 4 line(s) (first: line 1, '-'): ignored, as trec_eval does"
SCORE_NOTE = "6 score(s) not finite (first: line 1, '1e400' -> inf): kept, as trec_eval keeps them"


@pytest.mark.parametrize("case, note", [("ranks", RANK_NOTE), ("huge", SCORE_NOTE)])
@pytest.mark.parametrize("fmt", ["text", "json", "tsv"])
def test_eval_notes_in_every_format(tmp_path, case, note, fmt) -> None:
    q, r = _files(tmp_path, CASES[case])
    code, out, err = run_cli("eval", str(q), str(r), "-m", "AP", "--format", fmt, "--width", "400")
    assert code == 0, err
    if fmt == "json":
        assert any(note in n for n in json.loads(out)["notes"])
    elif fmt == "tsv":
        assert any(line.startswith("# note: ") and note in line for line in out.splitlines())
    else:
        assert any(line.startswith("note: ") and note in line for line in out.splitlines())


def test_eval_ties_rank_is_one_error_line(tmp_path) -> None:
    q, r = _files(tmp_path, RANKS)
    code, out, err = run_cli("eval", str(q), str(r), "-m", "AP", "--set", "ties=rank")
    assert (code, out) == (2, "")
    assert err == (f"auditeval: error: {r}:1: rank is not an integer: ties=rank orders by the rank column "
                   "(every other ties value ignores it, as trec_eval does)\n")
