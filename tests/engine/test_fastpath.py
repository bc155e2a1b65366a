"""The performance paths give exactly what the general paths give.

* io: the one-pass Arrow CSV reader (regular files, by bytes or by path) vs the general
  line-splitting reader: same table, run name, notes, skipped lines, or the same error.
* prepare: the presorted order vs the full stable sort; duplicate detection.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
import pytest

import auditeval.io as io_mod
import auditeval.io.fast as fast_mod
import auditeval.io.readers as readers_mod
from auditeval.engine.ids import has_duplicate_pairs
from auditeval.engine.ordering import presorted_order as _presorted_order
from auditeval.engine.ordering import sort_order as _sort_order
from auditeval.vocab.errors import InputError

RUNS = {
    "plain": b"1 Q0 d1 1 2.5 tagA\n1 Q0 d2 2 2.5 tagA\n2 Q0 d1 1 1e-3 tagB\n",
    "no-final-newline": b"1 Q0 d1 1 2.5 t\n2 Q0 d1 1 1 t",
    "tabs": b"1\tQ0\td1\t1\t2.5\tt\n2\tQ0\td1\t1\t1\tt\n",
    "crlf": b"1 Q0 d1 1 2.5 t\r\n2 Q0 d 1 1 t\r\n",
    "lone-cr": b"1 Q0 d1 1 2.5 t\r2 Q0 d 1 1 t\n",
    "mixed-delimiters": b"1\tQ0 d1 1 2.5 t\n",
    "double-space": b"1 Q0  d1 1 2.5 t\n",
    "trailing-space": b"1 Q0 d1 1 2.5 t \n",
    "leading-space": b" 1 Q0 d1 1 2.5 t\n",
    "blank-line": b"1 Q0 d1 1 2.5 t\n\n2 Q0 d 1 1 t\n",
    "blank-at-end": b"1 Q0 d1 1 2.5 t\n\n",
    "comment": b"# a b c d e\n1 Q0 d1 1 2.5 t\n",
    "comment-6-fields": b"# a b 1 2.0 c\n1 Q0 d1 1 2.5 t\n",
    "comment-later": b"1 Q0 d1 1 2.5 t\n#x Q0 d 1 1 t\n",
    "hash-in-doc": b"1 Q0 d#1 1 2.5 t\n",
    "nan": b"1 Q0 d1 1 nan t\n",
    "NaN": b"1 Q0 d1 1 NaN t\n",
    "inf": b"1 Q0 d1 1 inf t\n",
    "NULL": b"1 Q0 d1 1 NULL t\n",
    "NA-strings": b"NA Q0 NA 1 2 NA\n",
    "rank-float": b"1 Q0 d1 1.0 2.5 t\n",
    "rank-plus": b"1 Q0 d1 +1 2.5 t\n",
    "7-fields": b"1 Q0 d1 1 2.5 t x\n",
    "5-fields": b"1 Q0 d1 1 2.5\n",
    "nbsp": "1 Q0 d\u00a0x 1 2.5 t\n".encode(),
    "utf8": "1 Q0 dé 1 2.5 t\n".encode(),
    "latin1": b"1 Q0 d\xe9 1 2 t\n",
    "unit-separator": b"1 Q0 d\x1fx 1 2.5 t\n",
    "vertical-tab": b"1 Q0 d\x0bx 1 2.5 t\n",
    "tab-in-field": b"1 Q0 d\tx 1 2.5 t\n",
    "space-in-tab-file": b"1\tQ0\td1\t1\t2.5\tt\n2\tQ0\td x\t1\t1\tt\n",
    "del": b"1 Q0 d\x7f 1 2.5 t\n",
    "nul": b"1 Q0 d\x00 1 2.5 t\n",
    "quotes": b'1 Q0 "d 1" 1 2.5 t\n',
    "hex-score": b"1 Q0 d 0x1 0x10 t\n",
    "big-rank": b"1 Q0 d 99999999999999999999 2 t\n",
    "duplicate": b"1 Q0 d 1 2 t\n1 Q0 d 1 2 t\n",
    "empty": b"",
    "newline-only": b"\n",
    "space-only": b" \n",
    "header": b"# ir_metadata\n# tag: x\n1 Q0 d1 1 2.5 t\n2 Q0 d 1 1 t\n",
    "header-crlf": b"# a\r\n1 Q0 d 1 1 t\r\n",
    "header-utf8": "# é\n1 Q0 d 1 1 t\n".encode(),
    "header-latin1": b"# \xe9\n1 Q0 d 1 1 t\n",
    "header-then-blank": b"# a\n\n1 Q0 d 1 1 t\n",
    "header-indented": b"# a\n  # b\n1 Q0 d 1 1 t\n",
    "header-only": b"# a\n# b\n",
    "header-and-later-comment": b"# a\n1 Q0 d 1 1 t\n# b\n2 Q0 d 1 1 t\n",
}

QRELS = {
    "plain": b"1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n",
    "negative": b"1 0 d1 -1\n",
    "float-grade": b"1 0 d1 1.0\n",
    "plus-grade": b"1 0 d1 +1\n",
    "big-grade": b"1 0 d1 99999999999999999999\n",
    "tabs": b"1\t0\td1\t1\n",
    "5-fields": b"1 0 d1 1 x\n",
    "comment": b"#x\n1 0 d 1\n",
    "crlf": b"1 0 d 1\r\n2 0 e 0\r\n",
    "header": b"# a\n# b\n1 0 d 1\n2 0 e 0\n",
}


def _outcome(fn):
    try:
        r = fn()
    except InputError as exc:
        return ("error", str(exc))
    t = r.table.combine_chunks()
    return ("ok", repr(t.to_pydict()), str(t.schema), getattr(r, "name", None), r.notes, r.skipped)


def _general(monkeypatch, fn):
    with monkeypatch.context() as m:
        m.setattr(readers_mod, "fast_table", lambda *a, **k: None)
        return _outcome(fn)


@pytest.mark.parametrize("numbers", ["strict", "atof"])
@pytest.mark.parametrize("case", sorted(RUNS))
def test_run_fast_path_equals_general(case, numbers, tmp_path, monkeypatch):
    data = RUNS[case]
    path = tmp_path / "run.txt"
    path.write_bytes(data)
    want = _general(monkeypatch, lambda: io_mod.parse_run(data, str(path), numbers=numbers))
    assert _outcome(lambda: io_mod.parse_run(data, str(path), numbers=numbers)) == want
    assert _outcome(lambda: io_mod.read_run(path, numbers=numbers)) == want


@pytest.mark.parametrize("case", sorted(QRELS))
def test_qrels_fast_path_equals_general(case, tmp_path, monkeypatch):
    data = QRELS[case]
    path = tmp_path / "qrels.txt"
    path.write_bytes(data)
    want = _general(monkeypatch, lambda: io_mod.parse_qrels(data, str(path)))
    assert _outcome(lambda: io_mod.parse_qrels(data, str(path))) == want
    assert _outcome(lambda: io_mod.read_qrels(path)) == want


def test_fast_path_taken_on_regular_files(tmp_path):
    types = fast_mod.FAST_TYPES["run"]
    for case in ("plain", "tabs", "crlf", "hash-in-doc"):
        path = tmp_path / case
        path.write_bytes(RUNS[case])
        assert fast_mod.fast_table(path, types) is not None, case
        assert fast_mod.fast_table(RUNS[case], types) is not None, case
    path = tmp_path / "header"
    path.write_bytes(RUNS["header"])
    assert fast_mod.fast_table(path, types) is None  # '#' lines are data for the drop-in's readers
    table = fast_mod.fast_table(path, types, comment_header=True)
    assert table is not None and io_mod.header_lines(table) == 2
    path = tmp_path / "lone"
    path.write_bytes(RUNS["lone-cr"])
    assert fast_mod.fast_table(path, types) is not None  # CR ends a line on both paths
    assert fast_mod.fast_table(path, types, lone_cr_ok=False) is None  # not for LF-only readers
    assert fast_mod.fast_table(RUNS["lone-cr"], types, lone_cr_ok=False) is None


def test_presorted_order_equals_full_sort():
    rng = np.random.default_rng(5)
    taken = 0
    for _ in range(1500):
        tc, sc, dc = [], [], []
        for t in rng.permutation(rng.integers(1, 6)):
            k = int(rng.integers(1, 12))
            s = np.sort(rng.integers(0, 4, k).astype(float))[::-1] / 2
            if rng.random() < 0.1:
                s = rng.integers(0, 4, k).astype(float)
            if rng.random() < 0.05:
                s[rng.integers(k)] = np.nan
            tc += [int(t)] * k
            sc += list(s)
            dc += [f"{rng.choice(['d', 'D', 'e', ''])}{rng.integers(0, 8)}" for _ in range(k)]
        if rng.random() < 0.1:
            tc.append(tc[0])
            sc.append(0.0)
            dc.append("z")
        tcode, score = np.array(tc, np.int32), np.array(sc)
        doc = pa.chunked_array([pa.array(dc[:3], pa.string()), pa.array(dc[3:], pa.string())])
        line = np.arange(1, len(tc) + 1)
        for ties in ("docno-desc", "docno-asc", "file-order"):
            got = _presorted_order(tcode, score, doc, line, ties)
            if got is not None:
                taken += 1
                want = _sort_order(tcode, score, doc, None, line, ties)
                assert np.array_equal(got, want), (ties, tc, sc, dc)
    assert taken > 1000


@pytest.mark.parametrize(
    "topics, docs, expected",
    [
        (["1", "1", "1", "2", "2", "2"], ["5", "6", "7", "5", "6", "7"], False),
        (["1", "1", "1", "2", "2", "2"], ["5", "6", "5", "5", "6", "7"], True),
        (["1", "1", "1", "2", "2", "2"], ["5", "6", "05", "5", "6", "7"], False),  # "05" != "5"
        (["1", "1", "1", "2", "2", "2"], ["a", "b", "a", "5", "6", "7"], True),
        (["1", "2", "1"], ["5", "5", "5"], True),  # topic in two blocks
        (["1", "2", "1", "2"], ["5", "5", "6", "6"], False),
        (["1", "1", "2"], ["5", "6", "5"], False),
        (["1", "1", "2"], ["5", "5", "6"], True),
        (["1", "1"], ["0x10", "16"], False),
        (["1", "1"], ["-0", "0"], False),
    ],
)
def test_has_duplicate_pairs(topics, docs, expected):
    assert has_duplicate_pairs(pa.array(topics), pa.array(docs)) is expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", ["plain", "tabs", "crlf", "lone-cr", "header", "header-crlf", "comment-later", "7-fields", "blank-line"])
def test_dropin_fast_path_equals_its_parser(case, version, tmp_path, monkeypatch):
    from auditeval.trec_eval import parse as te_parse

    path = tmp_path / "run"
    path.write_bytes(RUNS[case])

    def outcome():
        try:
            r = te_parse.read_run(str(path), version)
        except te_parse.TrecError as exc:
            return ("error", exc.text, exc.code)
        t = r.table.combine_chunks()
        return ("ok", repr(t.to_pydict()), str(t.schema), r.name)

    got = outcome()
    with monkeypatch.context() as m:
        m.setattr(te_parse, "read_regular", lambda *a, **k: None)
        assert outcome() == got
