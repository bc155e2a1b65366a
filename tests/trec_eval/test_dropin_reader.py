"""The drop-in's fast run reader (``read_regular(..., check_dropped=False)``: Q0, the rank and
the tag split but not converted) gives exactly what its own line parser gives, on the files
where the two could part: whitespace inside a field that is not read, an empty field, a rank
that is not a number, the last line's tag (the runid) in any bytes.

Each case is also run through the real trec_eval binaries where the outcome is worth seeing
from the binary's side (a tab or a form feed inside Q0 splits the line there).
"""

from __future__ import annotations

import io
import os
import subprocess

import pytest

from auditeval.io import read_regular, run_tags
from auditeval.trec_eval import main
from auditeval.trec_eval import parse as te_parse

CASES = {
    "plain": b"1 Q0 d1 1 2.5 tagA\n1 Q0 d2 2 2.5 tagA\n2 Q0 d1 1 1e-3 tagB\n",
    "no-final-newline": b"1 Q0 d1 1 2.5 t\n2 Q0 d1 1 1 u",
    "crlf": b"1 Q0 d1 1 2.5 t\r\n2 Q0 d 1 1 u\r\n",
    "tabs": b"1\tQ0\td1\t1\t2.5\tt\n2\tQ0\td1\t1\t1\tu\n",
    "tab-in-q0": b"1 Q\t0 d1 1 2.5 t\n",
    "vt-in-q0": b"1 Q\x0b0 d1 1 2.5 t\n",
    "ff-in-rank": b"1 Q0 d1 1\x0c2 2.5 t\n",
    "tab-in-tag": b"1 Q0 d1 1 2.5 t\tx\n",
    "space-in-tab-file": b"1\tQ0\td1\t1\t2.5\tt\n2\tQ 0\td1\t1\t1\tt\n",
    "double-space-q0": b"1  d1 1 2.5 t x\n",
    "double-space-tag": b"1 Q0 d1 1 2.5  t\n",
    "double-tab": b"1\t\tQ0\td1\t1\t2.5\n",
    "rank-word": b"1 Q0 d1 abc 2.5 t\n2 Q0 d1 - 1 t\n",
    "rank-huge": b"1 Q0 d1 99999999999999999999 2.5 t\n",
    "q0-anything": b"1 \xff\x7f# d1 1 2.5 t\n",
    "q0-control": b"1 Q\x010 d1 1 2.5 t\n",  # not whitespace, but the fast reader leaves it to the parser
    "tag-latin1-last": b"1 Q0 d1 1 2.5 t\n2 Q0 d1 1 1 \xe9t\n",
    "tag-latin1-earlier": b"1 Q0 d1 1 2.5 \xe9t\n2 Q0 d1 1 1 t\n",
    "tag-utf8-last": "1 Q0 d1 1 2.5 t\n2 Q0 d1 1 1 té\n".encode(),
    "tag-nul-last": b"1 Q0 d1 1 2.5 t\n2 Q0 d1 1 1 t\x00\n",
    "tag-changes": b"1 Q0 d1 1 2.5 a\n1 Q0 d2 2 2 b\n2 Q0 d1 1 1 c\n",
    "7-fields": b"1 Q0 d1 1 2.5 t x\n",
    "5-fields": b"1 Q0 d1 1 2.5\n",
    "blank-at-end": b"1 Q0 d1 1 2.5 t\n\n",
    "header": b"# ir_metadata\n# tag: x\n1 Q0 d1 1 2.5 t\n2 Q0 d 1 1 u\n",
    "header-only-last-line-tag": b"# a b\n1 Q0 d 1 1 t\n",
    "comment-later": b"1 Q0 d1 1 2.5 t\n#x Q0 d 1 1 t\n",
}

REGULAR = ("plain", "no-final-newline", "crlf", "tabs", "rank-word", "rank-huge", "q0-anything", "tag-changes",
           "tag-latin1-earlier", "header", "header-only-last-line-tag")
"""Cases the fast reader takes (the others are left to the line parser)."""


def _outcome(path: str, version: str):
    try:
        r = te_parse.read_run(path, version)
    except te_parse.TrecError as exc:
        return ("error", exc.text, exc.code)
    t = r.table.combine_chunks()
    return ("ok", repr(t.to_pydict()), str(t.schema), r.name)


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("case", sorted(CASES))
def test_fast_reader_equals_the_line_parser(case, version, tmp_path, monkeypatch):
    path = tmp_path / "run"
    path.write_bytes(CASES[case])
    got = _outcome(str(path), version)
    with monkeypatch.context() as m:
        m.setattr(te_parse, "read_regular", lambda *a, **k: None)
        assert got == _outcome(str(path), version)


@pytest.mark.parametrize("case", sorted(CASES))
def test_which_files_the_fast_reader_takes(case, tmp_path):
    path = tmp_path / "run"
    path.write_bytes(CASES[case])
    fast = read_regular(str(path), "run", lone_cr_ok=False, comment_header=True, keep=("topic", "doc", "score"),
                        check_dropped=False)
    tag = None if fast is None else run_tags(fast)[1]  # None: the last tag is not printable ASCII
    assert (tag is not None) is (case in REGULAR)
    if tag is not None:
        assert run_tags(fast) == (None, CASES[case].rstrip(b"\r\n").rsplit(b"\n", 1)[-1].split()[5].decode())
        assert fast.column_names == ["topic", "doc", "score"]


def test_the_checked_reader_still_checks_the_dropped_columns(tmp_path):
    """The library's reader (``check_dropped`` left on) refuses what only the drop-in ignores."""
    path = tmp_path / "run"
    path.write_bytes(CASES["rank-word"])
    assert read_regular(str(path), "run", keep=("topic", "doc", "score")) is None
    path.write_bytes(CASES["tag-changes"])
    fast = read_regular(str(path), "run", keep=("topic", "doc", "score"))
    assert run_tags(fast) == (["a", "b", "c"], "c")


@pytest.mark.parametrize("case", ["tab-in-q0", "ff-in-rank", "double-space-q0", "rank-word", "tag-latin1-last",
                                  "q0-anything", "q0-control", "tag-changes"])
def test_the_binaries_read_these_lines_alike(trec_eval_bins, tmp_path, case):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_bytes(b"1 0 d1 1\n2 0 d1 1\n1 0 0 1\n")
    run.write_bytes(CASES[case])
    for version in ("9.0.8", "10.0"):
        argv = ["-c", "-q", "-m", "all_trec", str(qrels), str(run)]
        p = subprocess.run([str(trec_eval_bins[version]), *argv], capture_output=True)
        out, err = io.StringIO(), io.StringIO()
        code = main(["--as", version, *argv], out, err)
        assert (os.fsencode(out.getvalue()), os.fsencode(err.getvalue()), code) == (
            p.stdout, p.stderr, p.returncode), (case, version)
