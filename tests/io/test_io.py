"""Readers, in-memory inputs and writers; every bad input names its file, line and reason."""

from __future__ import annotations

import gzip
import io
import sys
import uuid

import numpy as np
import pandas as pd
import pytest
from paths import CONVENTIONS

import auditeval as ae
from auditeval.io import (
    c_atof,
    c_atol,
    parse_qrels,
    parse_run,
    qrels_from,
    read_qrels,
    read_run,
    run_from,
    write_qrels,
    write_run,
)

SHARED_CONVENTIONS = CONVENTIONS
QRELS = b"1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 d 1\n"
RUN = b"1 Q0 a 1 3.5 tag\n1 Q0 x 2 2.25 tag\n1 Q0 c 3 1e-3 tag\n2 Q0 d 1 5E-4 tag\n"


def error(fn, *args, **kwargs) -> str:
    with pytest.raises(ae.InputError) as err:
        fn(*args, **kwargs)
    return str(err.value)


def rows(obj) -> list[tuple]:
    t = obj.table
    cols = ["topic", "doc", "grade"] if "grade" in t.column_names else ["topic", "doc", "score"]
    return list(zip(*(t.column(c).to_pylist() for c in cols), strict=True))


def ap(qrels, run) -> float:
    return ae.evaluate(qrels, run, ["AP"], profile="trec_eval-9.0.8-double").get("AP").value


# AP of QRELS/RUN: topic 1 R=2 (a, c): a@1, c@3 -> (1 + 2/3)/2; topic 2: d@1 -> 1. Mean:
AP_REF = ((1 + 2 / 3) / 2 + 1) / 2


# ------------------------------------------------------------------------------ readers
def test_read_plain(tmp_path):
    (tmp_path / "q.txt").write_bytes(QRELS)
    (tmp_path / "r.txt").write_bytes(RUN)
    q = read_qrels(tmp_path / "q.txt")
    r = read_run(tmp_path / "r.txt")
    assert rows(q) == [("1", "a", 1), ("1", "b", 0), ("1", "c", 2), ("2", "d", 1)]
    assert rows(r) == [("1", "a", 3.5), ("1", "x", 2.25), ("1", "c", 0.001), ("2", "d", 0.0005)]
    assert r.table.column("rank").to_pylist() == [1, 2, 3, 1]
    assert r.table.column("line").to_pylist() == [1, 2, 3, 4]
    assert r.name == "tag"
    assert q.source == str(tmp_path / "q.txt")
    assert ap(q, r) == pytest.approx(AP_REF, abs=1e-15)


def test_read_gzip(tmp_path):
    (tmp_path / "q.gz").write_bytes(gzip.compress(QRELS))
    (tmp_path / "r.gz").write_bytes(gzip.compress(RUN))
    assert rows(read_qrels(tmp_path / "q.gz")) == rows(parse_qrels(QRELS))
    assert rows(read_run(tmp_path / "r.gz")) == rows(parse_run(RUN))
    # gzip is recognised by its magic bytes, not the name
    (tmp_path / "plain-name.txt").write_bytes(gzip.compress(RUN))
    assert rows(read_run(tmp_path / "plain-name.txt")) == rows(parse_run(RUN))


def test_read_stdin(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(RUN)))
    r = read_run("-")
    assert r.source == "<stdin>"
    assert rows(r) == rows(parse_run(RUN))
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(b"1 0 a x\n")))
    assert error(read_qrels, "-") == "<stdin>:1: relevance grade is not an integer: 'x'"


def test_read_stdin_gzip(monkeypatch):
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(gzip.compress(QRELS))))
    assert rows(read_qrels("-")) == rows(parse_qrels(QRELS))


def test_whitespace_variants():
    # tabs, runs of spaces, leading/trailing blanks, CRLF, no final newline
    r = parse_run(b"  1\tQ0\t a   1  3.5\ttag  \r\n1 Q0 x 2 2.25 tag\r\n1\t\tQ0 c 3 1e-3 tag")
    assert rows(r) == [("1", "a", 3.5), ("1", "x", 2.25), ("1", "c", 0.001)]
    q = parse_qrels(b"1\t0\ta\t1\n 1  0  c   2 \n")
    assert rows(q) == [("1", "a", 1), ("1", "c", 2)]


def test_comments_and_metadata_skipped_and_counted():
    data = (
        b"# ir_metadata.start\n"
        b"# platform: {hardware: cpu}\n"
        b"# ir_metadata.end\n"
        b"1 Q0 a 1 3.5 tag\n"
        b"\n"
        b"   # indented comment\n"
        b"1 Q0 b 2 2 tag\n"
    )
    r = parse_run(data, "r.txt")
    assert rows(r) == [("1", "a", 3.5), ("1", "b", 2.0)]
    assert r.table.column("line").to_pylist() == [4, 7]
    assert r.notes == (
        "r.txt: skipped 4 comment line(s) starting with '#'",
        "r.txt: skipped 1 blank line(s)",
    )
    assert r.skipped == {"blank": (5,), "comment": (1, 2, 3, 6)}
    # '#' inside a docno (MS MARCO v2.1) is data
    q = parse_qrels(b"# judged by NIST\n1 0 doc#1 1\n", "q.txt")
    assert rows(q) == [("1", "doc#1", 1)]
    assert q.notes == ("q.txt: skipped 1 comment line(s) starting with '#'",)
    # errors after skipped lines still name the physical line
    assert error(parse_run, b"# header\n\n1 Q0 a 1 1 t\n1 Q0 b\n", "r.txt") == (
        "r.txt:4: run line has 3 fields, expected 6 (topic Q0 docno rank score tag)")
    # and so do the notes on what was read with atof
    assert parse_run(b"# header\n\n1 Q0 a 1 x tag\n", "r.txt").notes[-1] == (
        "r.txt: 1 score(s) read with C atof, as trec_eval reads them (not a plain decimal number; "
        "first: line 3, 'x' -> 0.0)")


def test_scientific_notation_and_signs():
    r = parse_run(b"1 Q0 a 1 1e-3 t\n1 Q0 b 2 5E-4 t\n1 Q0 c 3 1.0e-4 t\n1 Q0 d 4 -2.5E+2 t\n1 Q0 e 5 +.5 t\n")
    assert r.table.column("score").to_pylist() == [0.001, 0.0005, 0.0001, -250.0, 0.5]
    q = parse_qrels(b"1 0 a +1\n1 0 b -1\n1 0 c 02\n")
    assert q.table.column("grade").to_pylist() == [1, -1, 2]


def test_run_tags_and_extra_fields():
    r = parse_run(b"1 Q0 a 1 1 t1\n1 Q0 b 2 0.5 t2\n", "r.txt")
    assert r.name == "t2"
    assert r.notes == ("r.txt: 2 different run tags; using the last one read, 't2' (as trec_eval)",)
    # trec_eval accepts (and ignores) fields after the 6th; the strict default does not
    assert error(parse_run, b"1 Q0 a 1 1 t extra\n", "r.txt") == (
        "r.txt:1: run line has 7 fields, expected 6 (topic Q0 docno rank score tag)"
    )
    r = parse_run(b"1 Q0 a 1 1 t extra\n", "r.txt", max_fields=None)
    assert rows(r) == [("1", "a", 1.0)]
    assert r.notes == ("r.txt: ignored fields after the 6th on 1 line(s)",)


def test_atof_mode():
    # trec_eval's C atof/atol: abc -> 0, 0x10 -> 16, grade 1.0 -> 1; every coercion noted
    r = parse_run(b"1 Q0 a 1 abc t\n1 Q0 b 2 0x10 t\n1 Q0 c 3 2.5 t\n", "r.txt", numbers="atof")
    assert r.table.column("score").to_pylist() == [0.0, 16.0, 2.5]
    assert ("r.txt: 2 score(s) read with C atof, as trec_eval reads them (not a plain decimal number; "
            "first: line 1, 'abc' -> 0.0)") in r.notes
    q = parse_qrels(b"1 0 a 1.0\n1 0 b x\n1 0 c 2\n", "q.txt", numbers="atof")
    assert q.table.column("grade").to_pylist() == [1, 0, 2]
    assert "q.txt: 2 grade(s) read with C atol (non-integer text)" in q.notes
    nan = parse_run(b"1 Q0 a 1 nan t\n", numbers="atof").table.column("score").to_pylist()[0]
    assert np.isnan(nan)


@pytest.mark.parametrize(
    "text, value",
    [("abc", 0.0), ("0x10", 16.0), ("1.5e3x", 1500.0), (" -2.5", -2.5), ("inf", float("inf")), ("1_000", 1.0), ("\u0661", 0.0)],
)
def test_c_atof(text, value):
    assert c_atof(text) == value


@pytest.mark.parametrize("text, value", [("1.0", 1), ("x", 0), ("-12abc", -12), ("+3", 3), ("\u0661", 0)])
def test_c_atol(text, value):
    assert c_atol(text) == value


# ------------------------------------------------------------------------------ bad input
@pytest.mark.parametrize(
    "data, message",
    [
        (b"1 Q0 a 1 1.0\n", "r.txt:1: run line has 5 fields, expected 6 (topic Q0 docno rank score tag)"),
        (b"1 Q0 a 1 1 t\n1 a 1 1 t\n", "r.txt:2: run line has 5 fields, expected 6 (topic Q0 docno rank score tag)"),
        (b"1 Q0 a 1 1 t\n1\n", "r.txt:2: run line has 1 field, expected 6 (topic Q0 docno rank score tag)"),
        (b"", "r.txt: empty run file (no lines)"),
        (b"# only a comment\n\n", "r.txt: empty run file (only comments or blank lines)"),
        (b"1 Q0 a 1 1 t\n1 Q0 \xff 2 1 t\n", "r.txt:2: undecodable bytes (not UTF-8): b'\\xff'"),
    ],
)
def test_bad_run(data, message):
    assert error(parse_run, data, "r.txt") == message


@pytest.mark.parametrize(
    "data, message",
    [
        (b"1 0 a\n", "q.txt:1: qrels line has 3 fields, expected 4 (topic iteration docno grade)"),
        (b"1 0 a 1\n1 0 b 1 extra\n", "q.txt:2: qrels line has 5 fields, expected 4 (topic iteration docno grade)"),
        (b"1 0 a 1\n1 0 b x\n", "q.txt:2: relevance grade is not an integer: 'x'"),
        (b"1 0 a 1.0\n", "q.txt:1: relevance grade is not an integer: '1.0'"),
        (b"1 0 a 1.5\n", "q.txt:1: relevance grade is not an integer: '1.5'"),
        (b"1 0 a 1_0\n", "q.txt:1: relevance grade is not an integer: '1_0'"),
        (b"1 0 a 99999999999999999999\n", "q.txt:1: relevance grade is out of range: '99999999999999999999'"),
        (b"", "q.txt: empty qrels file (no lines)"),
        (b"# comment\n", "q.txt: empty qrels file (only comments or blank lines)"),
        (b"1 0 \xe9t\xe9 1\n", "q.txt:1: undecodable bytes (not UTF-8): b'\\xe9'"),
    ],
)
def test_bad_qrels(data, message):
    assert error(parse_qrels, data, "q.txt") == message


def test_rank_column_atol_mode():
    run = parse_run(b"1 Q0 a 1 2.0 r\n1 Q0 b x 1.0 r\n", "r.txt", numbers="atof")
    assert run.table.column("rank").to_pylist() == [1, 0]  # C atol("x") = 0, as trec_eval would
    assert run.notes == ("r.txt: 1 rank(s) read with C atol (non-integer text; only ties=rank reads ranks)",)


def test_missing_and_corrupt_files(tmp_path):
    assert error(read_run, tmp_path / "nope.txt") == f"{tmp_path / 'nope.txt'}: no such file"
    (tmp_path / "bad.gz").write_bytes(b"\x1f\x8bnot really gzip")
    msg = error(read_qrels, tmp_path / "bad.gz")
    assert msg.startswith(f"{tmp_path / 'bad.gz'}: corrupt gzip data (")
    (tmp_path / "empty.gz").write_bytes(gzip.compress(b""))
    assert error(read_run, tmp_path / "empty.gz") == f"{tmp_path / 'empty.gz'}: empty run file (no lines)"



def test_directory_and_broken_deflate_stream(tmp_path):
    """A directory, and a gzip file whose deflate data is corrupt (zlib.error, not the
    OSError of a bad header or truncation): path: reason, from the readers and the CLI."""
    from auditeval.cli.main import main

    d = tmp_path / "adir"
    d.mkdir()
    assert error(read_run, d) == f"{d}: is a directory, not a file"
    assert error(read_qrels, d) == f"{d}: is a directory, not a file"
    data = gzip.compress(b"".join(b"%d Q0 d%d 1 1.0 r\n" % (i, i) for i in range(200)))
    bad = tmp_path / "run.gz"
    bad.write_bytes(data[:10] + b"\xff" * 8 + data[18:])
    assert error(read_run, bad) == f"{bad}: corrupt gzip data (Error -3 while decompressing data: invalid block type)"
    q = tmp_path / "q.txt"
    q.write_text("1 0 d1 1\n")
    for args, where in (([str(q), str(d)], d), ([str(d), str(q)], d), ([str(q), str(bad)], bad)):
        err = io.StringIO()
        assert main(["eval", *args], io.StringIO(), err) == 2
        assert err.getvalue().startswith(f"auditeval: error: {where}: ")
        assert "Traceback" not in err.getvalue()


def test_bom_is_removed_with_a_note(tmp_path):
    """A UTF-8 byte order mark opening a file is not part of the first topic id (trec_eval
    keeps it there; auditeval removes it and says so), on the fast and the general path."""
    note = "removed the UTF-8 byte order mark (EF BB BF) opening the file (trec_eval keeps it as part of the first topic id)"
    for body in (b"1 Q0 a 1 1.0 r\n2 Q0 b 1 1.0 r\n", b"1  Q0 a 1 1.0 r\n2 Q0 b 1 1.0 r\n"):  # regular / not
        path = tmp_path / "run.txt"
        path.write_bytes(b"\xef\xbb\xbf" + body)
        run = read_run(path)
        assert run.topics == ["1", "2"]
        assert run.notes == (f"{path}: {note}",)
    q = parse_qrels(b"\xef\xbb\xbf1 0 a 1\n", "q.txt")
    assert q.topics == ["1"] and q.notes == (f"q.txt: {note}",)


def test_duplicates_under_dups_error():
    q = parse_qrels(b"1 0 a 1\n1 0 b 0\n1 0 a 0\n", "q.txt")
    r = parse_run(b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n", "r.txt")
    assert error(ae.evaluate, q, r, ["AP"], profile="trec_eval-9.0.8") == (
        "q.txt:3: duplicate judgment for topic '1' doc 'a' (first at line 1); choose dups=first or dups=last to keep one"
    )
    q = parse_qrels(b"1 0 a 1\n", "q.txt")
    r = parse_run(b"# header\n1 Q0 a 1 2 t\n2 Q0 a 1 2 t\n1 Q0 b 2 1 t\n1 Q0 a 3 0.5 t\n", "r.txt")
    assert error(ae.evaluate, q, r, ["AP"], profile="trec_eval-9.0.8") == (
        "r.txt:5: duplicate result for topic '1' doc 'a' (first at line 2); choose dups=first or dups=last to keep one"
    )


def test_unknown_measure_axis_value_profile():
    q, r = {"1": {"a": 1}}, {"1": {"a": 1.0}}
    with pytest.raises(ae.UnknownMeasureError) as err:
        ae.evaluate(q, r, ["Foo@10"])
    assert str(err.value) == "unknown measure 'Foo' in 'Foo@10' (auditeval measures lists them)"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], settings=["colour=red"])
    assert str(err.value).startswith("unknown axis 'colour'; axes are: absent, ap_denom, depth, dups, ")
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], settings=["ties=random"])
    assert str(err.value) == (
        "axis 'ties' has no value 'random'; choose one of: docno-desc, docno-asc, docno-asc-numeric, rank, file-order"
    )
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], settings=["depth=-1"])
    assert str(err.value) == "axis 'depth' must be a non-negative integer or 'all', got '-1'"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], settings=["rel=high"])
    assert str(err.value) == "axis 'rel' needs an integer, got 'high'"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], settings=["gm_floor=nan"])
    assert str(err.value) == "axis 'gm_floor' needs a finite number, got 'nan'"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["GMAP"], settings=["gm_floor=0"])
    assert str(err.value) == "axis 'gm_floor' must be greater than 0, got '0'"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["RBP"], settings=["rbp_p=1.5"])
    assert str(err.value) == "axis 'rbp_p' must be greater than 0 and less than 1, got '1.5'"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], settings=["ties"])
    assert str(err.value) == "--set needs AXIS=VALUE, got 'ties'"
    with pytest.raises(ae.ConventionError) as err:
        ae.evaluate(q, r, ["AP"], profile="trec_eval-11")
    assert str(err.value) == (
        "unknown profile 'trec_eval-11'; shipped profiles: " + ", ".join(ae.profile_names()) + " (or give a .toml path)"
    )


def test_topics_strict_missing_topic():
    q = parse_qrels(b"1 0 a 1\n2 0 b 1\n3 0 c 1\n")
    r = parse_run(b"1 Q0 a 1 1 t\n", "r.txt")
    with pytest.raises(ae.EvaluationError) as err:
        ae.evaluate(q, r, ["AP"], profile="trec_eval-10.0")
    assert str(err.value) == (
        "2 qrels topic(s) missing from run r.txt: '2', '3' (topics=strict, as trec_eval 10 without -c; "
        "use topics=qrels to score them 0 or topics=both to skip them)"
    )


# ------------------------------------------------------------------------------ in-memory inputs
def test_dict_inputs():
    q = {"1": {"a": 1, "b": 0, "c": 2}, "2": {"d": 1}}
    r = {"1": {"a": 3.5, "x": 2.25, "c": 1e-3}, "2": {"d": 5e-4}}
    assert ap(q, r) == pytest.approx(AP_REF, abs=1e-15)
    assert rows(qrels_from(q)) == rows(parse_qrels(QRELS))
    assert qrels_from(q).to_dict() == q
    assert run_from(r).to_dict() == r
    # numeric keys and numpy grades are accepted
    assert rows(qrels_from({1: {"a": np.int64(2)}})) == [("1", "a", 2)]


def test_dict_bad_inputs():
    assert error(qrels_from, {"1": {"a": 1.5}}) == "<dict>: grade for topic '1' doc 'a' is not an integer: 1.5"
    assert error(qrels_from, {"1": {"a": True}}) == "<dict>: grade for topic '1' doc 'a' is not an integer: True"
    assert error(qrels_from, {"1": {"a": "x"}}) == "<dict>: grade for topic '1' doc 'a' is not an integer: 'x'"
    assert error(qrels_from, {"1": {"a": None}}) == "<dict>: grade for topic '1' doc 'a' is not an integer: None"
    assert error(qrels_from, {"1": {"a": float("nan")}}) == "<dict>: grade for topic '1' doc 'a' is not an integer: nan"
    assert error(qrels_from, {}) == "<dict>: empty qrels (no judgments)"
    assert error(qrels_from, {"1": {}}) == "<dict>: empty qrels (no judgments)"
    assert error(run_from, {}) == "<dict>: empty run (no results)"
    assert error(run_from, {"1": {"a": None}}) == "<dict>: score for topic '1' doc 'a' is not a number: None"
    assert error(run_from, {"1": {"a": [1.0]}}) == "<dict>: score for topic '1' doc 'a' is not a number: [1.0]"


def test_dataframe_inputs():
    qdf = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "b", "c", "d"], "relevance": [1, 0, 2, 1]})
    rdf = pd.DataFrame({"query_id": ["1", "1", "1", "2"], "doc_id": ["a", "x", "c", "d"], "score": [3.5, 2.25, 1e-3, 5e-4]})
    assert ap(qdf, rdf) == pytest.approx(AP_REF, abs=1e-15)
    assert rows(qrels_from(qdf)) == rows(parse_qrels(QRELS))
    # other column spellings, integer topic ids, float grades that are whole numbers
    qdf2 = pd.DataFrame({"qid": [1, 1, 1, 2], "docno": ["a", "b", "c", "d"], "rel": [1.0, 0.0, 2.0, 1.0]})
    assert rows(qrels_from(qdf2)) == rows(parse_qrels(QRELS))
    # a rank column is kept for ties=rank
    rdf2 = rdf.assign(rank=[3, 2, 1, 1])
    assert run_from(rdf2).table.column("rank").to_pylist() == [3, 2, 1, 1]


def test_dataframe_bad_inputs():
    ok_q = {"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}
    assert error(qrels_from, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]})) == (
        "<DataFrame>: no grade column (tried relevance, rel, grade, label)"
    )
    assert error(qrels_from, pd.DataFrame(ok_q).iloc[:0]) == "<DataFrame>: empty qrels (no rows)"
    assert error(qrels_from, pd.DataFrame({**ok_q, "relevance": [1.5]})) == "<DataFrame>:1: grade is not an integer: 1.5"
    assert error(qrels_from, pd.DataFrame({**ok_q, "relevance": [np.nan]})) == "<DataFrame>:1: grade is not an integer: nan"
    assert error(qrels_from, pd.DataFrame({**ok_q, "relevance": ["x"]})) == "<DataFrame>:1: grade is not an integer: 'x'"
    ok_r = {"query_id": ["1", "1"], "doc_id": ["a", "b"], "score": [1.0, 2.0]}
    assert error(run_from, pd.DataFrame({"query_id": ["1"], "doc_id": ["a"]})) == "<DataFrame>: no score column (tried score, sim)"
    assert error(run_from, pd.DataFrame(ok_r).iloc[:0]) == "<DataFrame>: empty run (no rows)"
    assert error(run_from, pd.DataFrame({**ok_r, "score": pd.Series([1.0, None], dtype=object)})) == (
        "<DataFrame>:2: score is not a number: None")
    with pytest.raises(TypeError, match="cannot read a run from int"):
        run_from(3)
    with pytest.raises(TypeError, match="cannot read qrels from list"):
        qrels_from([("1", "a", 1)])


# ------------------------------------------------------------------------------ ir_datasets
@pytest.fixture
def irds_dataset(tmp_path, monkeypatch):
    """A dataset registered in ir_datasets' registry, backed by a local TREC qrels file."""
    import ir_datasets
    from ir_datasets.datasets.base import Dataset
    from ir_datasets.formats import TrecQrels
    from ir_datasets.util import LocalDownload

    path = tmp_path / "qrels.txt"
    path.write_bytes(QRELS)
    name = f"auditeval-test-{uuid.uuid4().hex[:8]}"
    ds = Dataset(TrecQrels(LocalDownload(path), {0: "not relevant", 1: "relevant", 2: "highly relevant"}))
    monkeypatch.setitem(ir_datasets.registry._registered, name, ds)
    return name


def test_irds_qrels(irds_dataset):
    q = read_qrels(f"irds:{irds_dataset}")
    assert q.source == f"irds:{irds_dataset}"
    assert rows(q) == rows(parse_qrels(QRELS))
    assert ap(f"irds:{irds_dataset}", parse_run(RUN)) == pytest.approx(AP_REF, abs=1e-15)


def test_irds_unknown():
    msg = error(read_qrels, "irds:auditeval-no-such-dataset")
    assert msg.startswith("irds:auditeval-no-such-dataset: unknown ir_datasets id (")


# ------------------------------------------------------------------------------ writers
@pytest.mark.parametrize("suffix", ["txt", "gz"])
def test_writers_round_trip(tmp_path, suffix):
    q = parse_qrels(QRELS)
    r = parse_run(b"1 Q0 a 1 0.30000001 tag\n1 Q0 b 2 1e-300 tag\n1 Q0 c 3 -12345678.125 tag\n2 Q0 d 1 5E-4 tag\n")
    write_qrels(q, tmp_path / f"q.{suffix}")
    write_run(r, tmp_path / f"r.{suffix}")
    if suffix == "gz":
        assert (tmp_path / f"r.{suffix}").read_bytes()[:2] == b"\x1f\x8b"
    q2 = read_qrels(tmp_path / f"q.{suffix}")
    r2 = read_run(tmp_path / f"r.{suffix}")
    assert rows(q2) == rows(q)
    assert rows(r2) == rows(r)  # scores exact: repr round-trips doubles
    assert r2.table.column("rank").to_pylist() == r.table.column("rank").to_pylist()
    assert r2.name == "tag"


def test_write_stdout(capsys):
    write_qrels(parse_qrels(b"1 0 a 1\n"), "-")
    write_run(parse_run(b"1 Q0 a 1 2.5 t\n"), "-")
    assert capsys.readouterr().out == "1 0 a 1\n1 Q0 a 1 2.5 t\n"


# ------------------------------------------------------------------------------ reader properties
from hypothesis import HealthCheck, given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402

_ID = st.text(alphabet="abcXYZ0123456789-_.:#/é", min_size=1, max_size=6).filter(lambda s: not s.startswith("#"))
_SEP = st.sampled_from([" ", "\t", "  ", " \t ", "\t\t"])
_SCORE = st.one_of(
    st.floats(allow_nan=False, allow_infinity=False, width=64).map(repr),
    st.integers(-(10**6), 10**6).map(str),
    st.sampled_from(["1e-3", "5E-4", ".5", "5.", "-0", "+2.5", "1.0e+10"]),
)


@st.composite
def run_files(draw):
    n = draw(st.integers(1, 12))
    lines, expected = [], []
    for _ in range(n):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "   ", "# comment", "  # indented comment", "#"])))
        fields = [draw(_ID), "Q0", draw(_ID), str(draw(st.integers(0, 1000))), draw(_SCORE), draw(_ID)]
        seps = [draw(_SEP) for _ in range(5)]
        lead, trail = draw(st.sampled_from(["", " ", "\t"])), draw(st.sampled_from(["", " ", "\t"]))
        lines.append(lead + "".join(f + s for f, s in zip(fields, seps + [""], strict=True)) + trail)
        expected.append((fields[0], fields[2], float(fields[4]), int(fields[3]), len(lines)))
    eol = draw(st.sampled_from(["\n", "\r\n"]))
    text = eol.join(lines) + draw(st.sampled_from(["", eol]))
    return text.encode("utf-8"), expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(run_files())
def test_run_reader_property(case):
    data, expected = case
    r = parse_run(data, "r.txt")
    t = r.table
    got = list(
        zip(
            t.column("topic").to_pylist(),
            t.column("doc").to_pylist(),
            t.column("score").to_pylist(),
            t.column("rank").to_pylist(),
            t.column("line").to_pylist(),
            strict=True,
        )
    )
    assert got == expected


@st.composite
def qrels_files(draw):
    n = draw(st.integers(1, 12))
    lines, expected = [], []
    for _ in range(n):
        if draw(st.integers(0, 5)) == 0:
            lines.append(draw(st.sampled_from(["", "# comment", "\t# x y z"])))
        grade = draw(st.integers(-5, 2**40))
        fields = [draw(_ID), draw(st.sampled_from(["0", "Q0", "1"])), draw(_ID), str(grade)]
        sep = draw(_SEP)
        lines.append(sep.join(fields) + draw(st.sampled_from(["", " "])))
        expected.append((fields[0], fields[2], grade, len(lines)))
    return "\n".join(lines).encode("utf-8"), expected


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(qrels_files())
def test_qrels_reader_property(case):
    data, expected = case
    q = parse_qrels(data, "q.txt")
    t = q.table
    got = list(zip(*(t.column(c).to_pylist() for c in ("topic", "doc", "grade", "line")), strict=True))
    assert got == expected


def test_control_whitespace():
    # \x1f (the line reader's internal delimiter), \x0b, \x0c are whitespace like in str.split()
    assert error(parse_run, b"1 Q0 a\x1fb 1 1 t\n", "r.txt") == (
        "r.txt:1: run line has 7 fields, expected 6 (topic Q0 docno rank score tag)"
    )
    assert error(parse_run, b"1 Q0 a\x0bb 1 1 t\n", "r.txt") == (
        "r.txt:1: run line has 7 fields, expected 6 (topic Q0 docno rank score tag)"
    )
    q = parse_qrels(b"1\x1f0 a\x1f 1\n\x1f# comment\n1 0 b\x0c2\n", "q.txt")
    assert rows(q) == [("1", "a", 1), ("1", "b", 2)]
    assert q.notes == ("q.txt: skipped 1 comment line(s) starting with '#'",)


_LINE_BYTES = st.lists(
    st.one_of(
        st.sampled_from([b"1 Q0 a 1 1.5 t", b"2\tQ0\tb\t2\t-3e2\tt", b"# c", b"", b"1 0 a 1", b"x Q0 y 1 nan t"]),
        st.binary(max_size=30),
    ),
    max_size=6,
)


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_LINE_BYTES, st.sampled_from([b"\n", b"\r\n"]))
def test_readers_never_crash(lines, eol):
    # any bytes: a Run/Qrels or an InputError naming the file, never another exception
    data = eol.join(lines)
    for parse in (parse_run, parse_qrels):
        try:
            parse(data, "f.txt")
        except ae.InputError as exc:
            assert str(exc).startswith("f.txt")


def test_bad_profile_files(tmp_path):
    src = (SHARED_CONVENTIONS / "textbook.toml").read_text()
    cases = {
        "bad.toml": ("name = [", "not valid TOML ("),
        "noaxes.toml": ('name = "x"\n', "no [axes] table"),
        "missing.toml": (src.replace('ties = "docno-asc"\n', ""), "no value for axis 'ties' (every axis must be named)"),
        "extra.toml": (src.replace('ties = "docno-asc"\n', 'ties = "docno-asc"\ncolour = "red"\n'), "unknown axis 'colour'; axes are: absent, ap_denom, "),
        "badval.toml": (
            src.replace('ties = "docno-asc"', 'ties = "up"'),
            "axis 'ties' has no value 'up'; choose one of: docno-desc, docno-asc, docno-asc-numeric, rank, file-order",
        ),
    }
    for name, (text, message) in cases.items():
        (tmp_path / name).write_text(text)
        with pytest.raises(ae.ConventionError) as err:
            ae.load_profile(tmp_path / name)
        assert str(err.value).startswith(f"{tmp_path / name}: {message}"), str(err.value)
    # a valid custom profile works by path, and its name labels the results
    (tmp_path / "mine.toml").write_text(src.replace('name = "textbook"', 'name = "mine"'))
    res = ae.evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, ["AP"], profile=str(tmp_path / "mine.toml"))
    assert (res.profile, res.get("AP").value) == ("mine", 1.0)


def test_writers_refuse_unreadable_ids(tmp_path):
    # an id the readers would split, lose or read as a comment is refused, not written
    out = tmp_path / "out.txt"
    cases = [
        (write_run, run_from({"1": {"a b": 1.0}}), "cannot write doc id 'a b': it is empty or holds whitespace"),
        (write_run, run_from({"1": {"": 1.0}}), "cannot write doc id '': it is empty or holds whitespace"),
        (write_run, run_from({"1": {"a\u00a0b": 1.0}}), "cannot write doc id 'a\\xa0b': it is empty or holds whitespace"),
        (write_run, run_from({"#1": {"a": 1.0}}), "cannot write topic id '#1': it starts with '#' (read back as a comment)"),
        (write_run, run_from({"1": {"a": 1.0}}, name="my run"), "cannot write run tag 'my run': it is empty or holds whitespace"),
        (write_qrels, qrels_from({"1": {"a\tb": 1}}), "cannot write doc id 'a\\tb': it is empty or holds whitespace"),
        (write_qrels, qrels_from({"1 2": {"a": 1}}), "cannot write topic id '1 2': it is empty or holds whitespace"),
    ]
    for write, obj, reason in cases:
        assert error(write, obj, out) == f"{out}: {reason}"
    assert not out.exists()
    # '#' inside a doc id is fine
    write_run(run_from({"1": {"doc#1": 1.0}}), out)
    assert read_run(out).to_dict() == {"1": {"doc#1": 1.0}}
