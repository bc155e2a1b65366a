"""trec_eval behaviours the differential test found (``test_trec_eval_differential.py``) and
the input defects found in real submissions, each on a file small enough to check by hand.

Each case states the expected output as a literal, asserts the real binary prints it
(``trec_eval_bins``: built from NIST's sources) and that ``auditeval trec-eval --as V``
prints the same: stdout, stderr and exit status.
"""

from __future__ import annotations

import io
import subprocess
from pathlib import Path

import pytest

from auditeval.trec_eval import main


def _files(tmp_path: Path, qrels: str | bytes, run: str | bytes) -> tuple[str, str]:
    q, r = tmp_path / "qrels", tmp_path / "run"
    for p, text in ((q, qrels), (r, run)):
        p.write_bytes(text if isinstance(text, bytes) else text.encode())
    return str(q), str(r)


def _both(bins, version: str, argv: list[str]) -> tuple[tuple[str, str, int], tuple[str, str, int]]:
    p = subprocess.run([str(bins[version]), *argv], capture_output=True, text=True)
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", version, *argv], out, err)
    return (p.stdout, p.stderr, p.returncode), (out.getvalue(), err.getvalue(), code)


def _line(name: str, topic: str, value: str) -> str:
    return f"{name:<22}\t{topic}\t{value}\n"


# ---------------------------------------------------------------- num_rel under -c -l
@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_complete_num_rel_counts_every_positive_line(trec_eval_bins, tmp_path, version) -> None:
    """-c -l2: per topic num_rel honours -l (topic 1: a; topic 2: none; topic 3: e), but the
    summary counts the qrels lines with grade > 0 in every topic: a b c e = 4, not 2."""
    q, r = _files(tmp_path, "1 0 a 2\n1 0 b 1\n2 0 c 1\n2 0 d 0\n3 0 e 3\n",
                  "1 Q0 a 1 2.0 r\n1 Q0 b 2 1.0 r\n2 Q0 c 1 1.0 r\n")
    per_topic = _line("num_rel", "1", "1") + _line("num_rel", "2", "0")
    if version == "10.0":  # 10.0 prints the missing topic 3 under -c
        per_topic += _line("num_rel", "3", "1")
    expected = (per_topic + _line("num_rel", "all", "4"), "", 0)
    real, mine = _both(trec_eval_bins, version, ["-q", "-c", "-l2", "-m", "num_rel", q, r])
    assert real == expected
    assert mine == expected


# ---------------------------------------------------------------- rel_levels allocation
@pytest.mark.parametrize("version", ["9.0.8", "9.0.8-double", "10.0"])
def test_first_topic_with_only_negative_grades_stops(trec_eval_bins, tmp_path, version) -> None:
    """Topic 1's grades are all -1: max_rel + 1 = 0 counters requested from a NULL buffer,
    te_chk_and_malloc returns NULL, form_res_rels fails: exit 4 at the first measure."""
    q, r = _files(tmp_path, "1 0 a -1\n1 0 b -1\n2 0 c 1\n", "1 Q0 a 1 2.0 r\n2 Q0 c 1 1.0 r\n")
    expected = ("", "trec_eval: Can't calculate measure 'num_rel'\n", 4)
    real, mine = _both(trec_eval_bins, version, ["-q", "-m", "map", "-m", "num_rel", q, r])
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_later_topic_with_grade_minus_two_crashes_cleanly(trec_eval_bins, tmp_path, version) -> None:
    """Topic 2's largest grade is -2: memset of (max_rel + 1) * 8 = -8 bytes -> segfault;
    the drop-in names the crash instead (exit 2). A largest grade of -1 later is fine."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 c -2\n", "1 Q0 a 1 2.0 r\n2 Q0 c 1 1.0 r\n")
    real, mine = _both(trec_eval_bins, version, ["-q", "-m", "map", q, r])
    assert real[2] == -11  # SIGSEGV
    assert mine[0] == "" and mine[2] == 2
    assert mine[1] == ("auditeval trec-eval: topic '2': every qrels grade is -2 or less; trec_eval crashes here "
                       "(memset of a negative size in form_res_rels.c, segmentation fault)\n")
    q, r = _files(tmp_path, "1 0 a 1\n2 0 c -1\n", "1 Q0 a 1 2.0 r\n2 Q0 c 1 1.0 r\n")
    expected = (_line("map", "1", "1.0000") + _line("map", "2", "0.0000") + _line("map", "all", "0.5000"), "", 0)
    real, mine = _both(trec_eval_bins, version, ["-q", "-m", "map", q, r])
    assert real == expected
    assert mine == expected


# ---------------------------------------------------------------- 10.0 -c bogus ranking
def test_bogus_ranking_keeps_parameterised_utility(trec_eval_bins, tmp_path) -> None:
    """10.0 -c evaluates topic 2 (absent from the run) on the bogus ranking [not relevant]:
    utility a=1 b=-2 is 1 * 0 - 2 * 1 = -2; trec_eval resets only the value named exactly
    'utility' (and num_ret), so utility_1,-2,0,0 keeps -2: mean (1 - 2) / 2 = -0.5."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1.0 r\n")
    name = "utility_1,-2,0,0"
    expected = (
        _line("num_ret", "1", "1") + _line(name, "1", "1.0000") + _line("num_ret", "2", "0")
        + _line(name, "2", "-2.0000") + _line("num_ret", "all", "1") + _line(name, "all", "-0.5000"),
        "", 0,
    )
    real, mine = _both(trec_eval_bins, "10.0", ["-q", "-c", "-m", "num_ret", "-m", "utility.1,-2,0,0", q, r])
    assert real == expected
    assert mine == expected
    # plain utility is reset to 0: (1 + 0) / 2
    real, mine = _both(trec_eval_bins, "10.0", ["-c", "-m", "utility", q, r])
    assert real == mine == (_line("utility", "all", "0.5000"), "", 0)


def test_bogus_ranking_emptied_by_judged_only(trec_eval_bins, tmp_path) -> None:
    """-J drops the bogus (unjudged) document: topic 2 has an empty ranking, and
    iprec_at_recall at level 0 (cut-off lround(0 * 1) = 0) is relret/ret = 0/0 = -nan; at
    level 0.5 (cut-off 1 > relret 0) it is 0. The mean of 1 and -nan is -nan."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1.0 r\n")
    ip0, ip5 = "iprec_at_recall_0.00", "iprec_at_recall_0.50"
    expected = (
        _line(ip0, "1", "1.0000") + _line(ip5, "1", "1.0000") + _line(ip0, "2", "  -nan") + _line(ip5, "2", "0.0000")
        + _line(ip0, "all", "  -nan") + _line(ip5, "all", "0.5000"),
        "", 0,
    )
    real, mine = _both(trec_eval_bins, "10.0", ["-q", "-c", "-J", "-m", "iprec_at_recall.0,0.5", q, r])
    assert real == expected
    assert mine == expected


# ---------------------------------------------------------------- duplicates, missing topics
@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_duplicates_in_topics_never_evaluated(trec_eval_bins, tmp_path, version) -> None:
    """Run topic 3 (no qrels) repeats doc x; trec_eval never evaluates topic 3, so no error:
    map over topic 1 = 1 (9.0.8; 10.0 stops at qrels topic 2 missing from the run). With
    -c, qrels topic 2 repeats doc b: 9.0.8 never evaluates it (mean (1 + 0) / 2 = 0.5),
    10.0 does (bogus ranking) and stops there."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n2 0 b 0\n", "1 Q0 a 1 1.0 r\n3 Q0 x 1 1.0 r\n3 Q0 x 2 0.5 r\n")
    real, mine = _both(trec_eval_bins, version, ["-m", "map", q, r])
    expected = ((_line("map", "all", "1.0000"), "", 0) if version == "9.0.8"
                else ("", "trec_eval: result qid '2' not found in qrels\n", 4))
    assert real == expected
    assert mine == expected
    real, mine = _both(trec_eval_bins, version, ["-c", "-m", "map", q, r])
    expected = ((_line("map", "all", "0.5000"), "", 0) if version == "9.0.8"
                else ("", "trec_eval.form_res_rels: duplicate docs b\ntrec_eval: Can't calculate measure 'map'\n", 4))
    assert real == expected
    assert mine == expected


def test_rndcg_of_a_missing_topic_is_zero(trec_eval_bins, tmp_path) -> None:
    """9.0.8 -c -l0: topic 2 (grades 0, 0: relevant under -l0, all gains 0) is absent from
    the run; trec_eval never evaluates it, so it adds 0 (not 0/0) to the mean: (1 + 0) / 2."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 0\n2 0 c 0\n", "1 Q0 a 1 1.0 r\n")
    expected = (_line("Rndcg", "1", "1.0000") + _line("Rndcg", "all", "0.5000"), "", 0)
    real, mine = _both(trec_eval_bins, "9.0.8", ["-q", "-c", "-l0", "-m", "Rndcg", q, r])
    assert real == expected
    assert mine == expected


# ---------------------------------------------------------------- -M
@pytest.mark.parametrize("depth", ["0", "abc"])
def test_max_docs_zero_and_non_numeric(trec_eval_bins, tmp_path, depth) -> None:
    """-M abc is atol("abc") = -M 0: every ranking is empty: num_ret 0, map 0, P_5 0."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1.0 r\n2 Q0 b 1 1.0 r\n")
    expected = (_line("num_ret", "all", "0") + _line("map", "all", "0.0000") + _line("P_5", "all", "0.0000"), "", 0)
    for version in ("9.0.8", "10.0"):
        real, mine = _both(trec_eval_bins, version, ["-M", depth, "-m", "num_ret", "-m", "map", "-m", "P.5", q, r])
        assert real == expected
        assert mine == expected


def test_negative_max_docs_crashes_cleanly(trec_eval_bins, tmp_path) -> None:
    q, r = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1.0 r\n")
    real, mine = _both(trec_eval_bins, "10.0", ["-M", "-1", "-m", "map", q, r])
    assert real[2] == -11
    assert (mine[0], mine[2]) == ("", 2) and "crashes here" in mine[1]


# ---------------------------------------------------------------- input defects
BOM = b"\xef\xbb\xbf"


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_bom_stays_in_the_first_topic_id(trec_eval_bins, tmp_path, version) -> None:
    """trec_eval reads a UTF-8 byte order mark as part of the first topic id: a BOM in the
    run alone makes run topic '\\ufeff1' differ from qrels topic '1' (9.0.8: topic 1 not
    evaluated; 10.0: qrels topic 1 has no results, exit 4); in both files, the topics agree
    again and '\\ufeff1' sorts after '2' (byte 0xEF)."""
    qrels, run = b"1 0 a 1\n2 0 b 1\n", b"1 Q0 a 1 1.0 r\n2 Q0 b 1 1.0 r\n"
    q, r = _files(tmp_path, qrels, BOM + run)
    expected = ((_line("map", "2", "1.0000") + _line("map", "all", "1.0000"), "", 0) if version == "9.0.8"
                else ("", "trec_eval: result qid '1' not found in qrels\n", 4))
    real, mine = _both(trec_eval_bins, version, ["-q", "-m", "map", q, r])
    assert real == expected
    assert mine == expected
    q, r = _files(tmp_path, BOM + qrels, BOM + run)
    expected = (_line("map", "2", "1.0000") + _line("map", "\ufeff1", "1.0000") + _line("map", "all", "1.0000"), "", 0)
    real, mine = _both(trec_eval_bins, version, ["-q", "-m", "map", q, r])
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_huge_grade_cannot_be_calculated(trec_eval_bins, tmp_path, version) -> None:
    """Grade 99999999999: rel_levels needs 8e11 bytes, malloc refuses, exit 4."""
    q, r = _files(tmp_path, "1 0 a 99999999999\n1 0 b 0\n", "1 Q0 a 1 1.0 r\n")
    expected = ("", "trec_eval: Can't calculate measure 'map'\n", 4)
    real, mine = _both(trec_eval_bins, version, ["-m", "map", q, r])
    assert real == expected
    assert mine == expected


def test_run_of_comments_only_under_10(trec_eval_bins, tmp_path) -> None:
    """10.0 skips '#' lines: no result at all, so qrels topic 1 is missing (exit 4); with -c
    both topics are evaluated on bogus rankings: map 0, num_ret 0 (reset)."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "# only a comment\n# and another\n")
    real, mine = _both(trec_eval_bins, "10.0", ["-m", "map", q, r])
    assert real == mine == ("", "trec_eval: result qid '1' not found in qrels\n", 4)
    real, mine = _both(trec_eval_bins, "10.0", ["-c", "-m", "num_ret", "-m", "map", q, r])
    assert real == mine == (_line("num_ret", "all", "0") + _line("map", "all", "0.0000"), "", 0)


@pytest.mark.parametrize(("flag", "message"), [
    ("-x", "trec_eval: invalid option -- 'x'\n"),
    ("--bogus", "trec_eval: unrecognized option '--bogus'\n"),
    ("--R", "trec_eval: option '--R' is ambiguous; possibilities: '--Rel_info_format' '--Results_format'\n"),
    ("--help=2", "trec_eval: option '--help' doesn't allow an argument\n"),
])
def test_getopt_messages(trec_eval_bins, tmp_path, flag, message) -> None:
    """glibc getopt names the refused flag (with argv[0], here a copy named trec_eval), then
    trec_eval prints its usage text: exit 1."""
    exe = tmp_path / "trec_eval"
    exe.write_bytes(trec_eval_bins["10.0"].read_bytes())
    exe.chmod(0o755)
    q, r = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1.0 r\n")
    p = subprocess.run(["trec_eval", flag, q, r], capture_output=True, text=True, env={"PATH": str(tmp_path)})
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", "10.0", flag, q, r], out, err)
    assert p.stderr.startswith(message + "Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file\n")
    assert (out.getvalue(), err.getvalue(), code) == (p.stdout, p.stderr, p.returncode) == ("", p.stderr, 1)


def test_overflowing_float32_score_is_silent(trec_eval_bins, tmp_path) -> None:
    """-1e308 is -inf as a C float (9.0.8): doc a ranks last, b (relevant) first: map 1,
    and nothing on stderr (no numpy overflow warning)."""
    q, r = _files(tmp_path, "1 0 a 0\n1 0 b 1\n", "1 Q0 a 1 -1e308 r\n1 Q0 b 2 1.0 r\n")
    expected = (_line("map", "all", "1.0000") + _line("recip_rank", "all", "1.0000"), "", 0)
    real, mine = _both(trec_eval_bins, "9.0.8", ["-m", "map", "-m", "recip_rank", q, r])
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_directory_as_input(trec_eval_bins, tmp_path, version) -> None:
    q, _r = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1.0 r\n")
    d = tmp_path / "adir"
    d.mkdir()
    real, mine = _both(trec_eval_bins, version, [q, str(d)])
    assert real == mine == ("", f"trec_eval.get_results: Cannot read results file '{d}'\ntrec_eval: Quit in file '{d}'\n", 2)
    real, mine = _both(trec_eval_bins, version, [str(d), _r])
    assert real == mine == ("", f"trec_eval.get_qrels: Cannot read qrels file '{d}'\ntrec_eval: Quit in file '{d}'\n", 2)


def corrupt_gzip(path: Path) -> Path:
    """A gzip file whose deflate stream is broken (zlib: invalid block type), not truncated."""
    import gzip

    data = gzip.compress(b"".join(b"%d Q0 d%d 1 1.0 r\n" % (i, i) for i in range(200)))
    path.write_bytes(data[:10] + b"\xff" * 8 + data[18:])
    return path


def test_corrupt_gzip_is_read_as_bytes(trec_eval_bins, tmp_path) -> None:
    """trec_eval does not decompress: 10.0 finds line 1 malformed (9.0.8 crashes on the
    binary bytes). The drop-in, which decompresses gzip, falls back to the raw bytes."""
    q, _r = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1.0 r\n")
    bad = str(corrupt_gzip(tmp_path / "run.gz"))
    expected = ("", f"trec_eval.get_results: Malformed line 1\ntrec_eval: Quit in file '{bad}'\n", 2)
    real, mine = _both(trec_eval_bins, "10.0", [q, bad])
    assert real == expected
    assert mine == expected
    real, mine = _both(trec_eval_bins, "9.0.8", [q, bad])
    assert real[2] == -11 and mine == expected


def test_help_lists_every_flag() -> None:
    out = io.StringIO()
    assert main(["--help"], out, io.StringIO()) == 0
    for flag in ("-q", "-c", "-J", "-n", "-M N", "-l N", "-N N", "-m MEASURE", "--as", "--variants"):
        assert flag in out.getvalue(), flag


# ---------------------------------------------------------------- bytes, flags, parameters
def _both_bytes(bins, version: str, argv: list[str], stdin: bytes = b"") -> tuple[tuple, tuple]:
    """(stdout bytes, stderr bytes, exit) of the binary and of the drop-in (its text streams
    hold bytes as the command line's convention does: ``os.fsencode`` gives them back)."""
    import os
    import sys

    p = subprocess.run([str(bins[version]), *argv], capture_output=True, input=stdin)
    out, err = io.StringIO(), io.StringIO()
    saved, sys.stdin = sys.stdin, io.TextIOWrapper(io.BytesIO(stdin))
    try:
        code = main(["--as", version, *argv], out, err)
    finally:
        sys.stdin = saved
    return (p.stdout, p.stderr, p.returncode), (os.fsencode(out.getvalue()), os.fsencode(err.getvalue()), code)


@pytest.mark.parametrize("version", ["8.0", "8.1", "9.0.8", "10.0"])
def test_bytes_that_are_not_utf8_are_written_back(trec_eval_bins, tmp_path, version) -> None:
    """Topic 'q\\xe9', doc 'd\\xe91', tag 't\\xe9g' (0xe9 alone is no UTF-8): trec_eval reads
    bytes and writes them back unchanged; the relevant doc is first, so map 1 (8.x names it
    'map' too); the topic sorts after '1' (0x71 > 0x31)."""
    q, r = _files(tmp_path, b"1 0 a 1\nq\xe9 0 d\xe91 1\nq\xe9 0 b 0\n",
                  b"1 Q0 a 1 1.0 r\nq\xe9 Q0 d\xe91 1 2.0 t\xe9g\nq\xe9 Q0 b 2 1.0 t\xe9g\n")
    argv = ["-q", q, r] if version.startswith("8.") else ["-q", "-m", "map", "-m", "runid", q, r]
    real, mine = _both_bytes(trec_eval_bins, version, argv)
    assert real[2] == 0 and b"\tq\xe9\t1.0000\n" in real[0]
    if not version.startswith("8."):
        assert real[0] == (b"map                   \t1\t1.0000\nmap                   \tq\xe9\t1.0000\n"
                           b"runid                 \tall\tt\xe9g\nmap                   \tall\t1.0000\n")
    assert mine == real


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_utility_needs_four_coefficients(trec_eval_bins, tmp_path, version) -> None:
    """m_utility.c:60: other than 4 coefficients stops the first topic after its lists are
    formed (so nothing of topic 1 is printed, even under -q): exit 4."""
    q, r = _files(tmp_path, "1 0 a 1\n2 0 b 1\n", "1 Q0 a 1 1.0 r\n2 Q0 b 1 1.0 r\n")
    expected = ("", "trec_eval.calc_utility: improper number of coefficients\n"
                    "trec_eval: Can't calculate measure 'utility'\n", 4)
    for m in ("utility.1", "utility.1,2,3,4,5"):
        real, mine = _both(trec_eval_bins, version, ["-q", "-m", "num_ret", "-m", m, q, r])
        assert real == expected
        assert mine == expected


@pytest.mark.parametrize("version", ["9.0.6", "9.0.8", "9.0.8-double", "10.0"])
def test_dash_as_the_results_file(trec_eval_bins, tmp_path, version) -> None:
    """10.0 reads '-' as standard input (num_ret 1); 9.x opens a file named '-' (none here)."""
    q, _r = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1.0 r\n")
    real, mine = _both_bytes(trec_eval_bins, version, ["-m", "num_ret", q, "-"], stdin=b"1 Q0 a 1 1.0 r\n")
    expected = ((b"num_ret               \tall\t1\n", b"", 0) if version == "10.0" else
                (b"", b"trec_eval.get_results: Cannot read results file '-'\ntrec_eval: Quit in file '-'\n", 2))
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_results_format_and_obsolete_flag(trec_eval_bins, tmp_path, version) -> None:
    """-T trec_results and -o change nothing; -T other is refused after the qrels is read."""
    q, r = _files(tmp_path, "1 0 a 1\n", "1 Q0 a 1 1.0 r\n")
    for flags in (["-T", "trec_results"], ["-o"]):
        real, mine = _both(trec_eval_bins, version, [*flags, "-m", "map", q, r])
        assert real == mine == (_line("map", "all", "1.0000"), "", 0)
    real, mine = _both(trec_eval_bins, version, ["-T", "xml", q, r])
    assert real == mine == ("", "trec_eval: Illegal retrieval results format 'xml'\n", 2)


@pytest.mark.parametrize("version", ["8.1", "9.0.8", "10.0"])
def test_help_is_the_builds_own(trec_eval_bins, version) -> None:
    """-h prints the build's help: the message, the formats, the marked measures' texts
    (8.x: one text, the utility coefficients read before -h in it)."""
    argv = ["-Ub-0.5", "-h"] if version.startswith("8.") else ["-h", "-m", "P.5", "-R", "prefs"]
    real, mine = _both(trec_eval_bins, version, argv)
    assert real[2] == 0 and real[0].startswith("trec_eval [-h] [-q]")
    if version.startswith("8."):
        assert "utility_1.0_-0.5_0.0_0.0\tUtility (a,b,c,d) Coefficients 1.0_-0.5_0.0_0.0 \n" in real[0]
    else:
        assert "Individual measure documentation for requested measures\nP\n" in real[0]
    assert mine == real


def test_stored_help_texts_are_the_binaries(trec_eval_bins) -> None:
    """help.json holds what each binary prints (tests/trec_eval_help.py)."""
    import json

    from trec_eval_help import DATA, HELP_8, HELP_VERSIONS, extract

    data = json.loads(DATA.read_text())
    for v in HELP_VERSIONS:
        parts, stored = extract(trec_eval_bins[v], v), data["versions"][v]
        assert data["texts"][stored["head"]] == parts["head"]
        assert {k: data["texts"][i] for k, i in stored["measures"].items()} == parts["measures"]
        assert {k: data["texts"][i] for k, i in stored["rel"].items()} == parts["rel"]
    for v in HELP_8:
        real = subprocess.run([str(trec_eval_bins[v]), "-h"], capture_output=True, text=True).stdout
        assert data["texts"][data["v8"][v]] == real


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_parameters_read_as_each_build_reads_them(trec_eval_bins, tmp_path, version) -> None:
    """P.99999999999999999999: atol saturates, P_9223372036854775807 (0: 1 of 2^63 - 1 docs);
    ndcg.a=1: 9.x reads level atol("a") = 0 with gain 1 (b, level 0, at rank 2 in the ideal:
    1 / (1 + 1/log2 3) = 0.6131), 10.0 skips a level that is no integer: plain ndcg, 1."""
    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 2.0 r\n1 Q0 y 2 1.0 r\n")
    real, mine = _both(trec_eval_bins, version, ["-m", "P.99999999999999999999", "-m", "ndcg.a=1", q, r])
    ndcg = "1.0000" if version == "10.0" else "0.6131"
    expected = (_line("P_9223372036854775807", "all", "0.0000") + _line("ndcg_a=1", "all", ndcg), "", 0)
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_negative_relevance_level_counts_unjudged_documents(trec_eval_bins, tmp_path, version) -> None:
    """-l -1: trec_eval's lists hold -1 for a document outside the qrels, and -1 >= -1: both
    retrieved documents count (precision 1, 1 at ranks 1, 2); num_rel counts every judged
    level >= 0 (a and b: 2): map 2/2 = 1, P_2 1."""
    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n", "1 Q0 x 1 2.0 r\n1 Q0 y 2 1.0 r\n")
    expected = (_line("map", "all", "1.0000") + _line("P_2", "all", "1.0000"), "", 0)
    real, mine = _both(trec_eval_bins, version, ["-l", "-1", "-m", "map", "-m", "P.2", q, r])
    assert real == expected
    assert mine == expected


# ---------------------------------------------------------------- rbp.p outside (0, 1)
@pytest.mark.parametrize("p, rbp", [("1.5", "-1.3750"), ("1", "0.0000"), ("2", "-4.5000"), ("-0.5", "1.1250"),
                                    ("0", "0.5000")])
def test_rbp_persistence_outside_zero_one(trec_eval_bins, tmp_path, p, rbp) -> None:
    """10.0 computes m_rbp.c's (1 - p) sum gain p^(rank-1) for any p: grades 1 and 2 rescaled to
    0.5 and 1 (max 2 > 1), at ranks 1 and 3: (1 - p)(0.5 + p^2); p = 1.5: -0.5 * 2.75 = -1.375."""
    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c 2\n", "1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 1 r\n1 Q0 x 4 0.5 r\n")
    expected = (_line(f"rbp_p={p}", "all", rbp), "", 0)
    real, mine = _both(trec_eval_bins, "10.0", ["-m", f"rbp.p={p}", q, r])
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
@pytest.mark.parametrize("level", ["-1", "-2"])
def test_negative_relevance_level_by_measure(trec_eval_bins, tmp_path, version, level) -> None:
    """Topic 1 ranks x (outside the qrels: -1), a (1), c (grade -1: pooled, -2), b (0); R = 2
    (the judged a, b). -l-1 counts x a b, -l-2 also c: map (1 + 2/2 + 3/4) / 2 = 1.375, or
    (1 + 1 + 1 + 1) / 2 = 2. num_rel_ret counts judged documents only: 2; set_P 2/4. The
    walks start from num_rel_ret (2) and step down at every counted row from the bottom:
    iprec_at_recall_0.50 (cut (long)(0.5 * 2 + 0.9) = 1) is reached at a: max(2/4, 1/2) = 0.5;
    Rprec_mult_0.50 (cut 1) is never reached (0 at rank 2): 0. Topic 2 has no judged
    document (R = 0) and a counted one, f: map sum / 0 = inf, printed as trec_eval prints it.
    10.0 -c scores topic 3 (missing) on its bogus ranking of one document outside the qrels,
    counted: P_2 1/2, map 1/1."""
    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c -1\n2 0 e -1\n3 0 g 1\n",
                  "1 Q0 x 1 2.0 r\n1 Q0 a 2 1.5 r\n1 Q0 c 3 1.0 r\n1 Q0 b 4 0.5 r\n2 Q0 f 1 2.0 r\n2 Q0 e 2 1.0 r\n")
    two = level == "-2"
    topics = {"1": ["2", "2.0000" if two else "1.3750", "0.5000", "1.0000", "0.0000", "0.5000"],
              "2": ["0", "   inf", "0.0000", "1.0000" if two else "0.5000", "0.0000", "0.0000"]}
    if version == "10.0":
        topics["3"] = ["0", "1.0000", "0.0000", "0.5000", "0.0000", "0.0000"]
    p2 = {"9.0.8": "0.6667" if two else "0.5000", "10.0": "0.8333" if two else "0.6667"}[version]
    topics["all"] = ["2", "   inf", "0.1667", p2, "0.0000", "0.1667"]
    names = ["num_rel_ret", "map", "iprec_at_recall_0.50", "P_2", "Rprec_mult_0.50", "set_P"]
    expected = ("".join(_line(n, t, v) for t, vals in topics.items() for n, v in zip(names, vals, strict=True)), "", 0)
    argv = ["-q", "-c", f"-l{level}", "-m", "map", "-m", "P.2", "-m", "num_rel_ret", "-m", "set_P",
            "-m", "iprec_at_recall.0.5", "-m", "Rprec_mult.0.5", q, r]
    real, mine = _both(trec_eval_bins, version, argv)
    assert real == expected
    assert mine == expected


def test_negative_relevance_level_in_eval(tmp_path) -> None:
    """``rel`` below 0 is the same convention outside the drop-in (pytrec_eval refuses a
    relevance_level below 1, so trec_eval's binaries are the reference): topic 1 of the case
    above, AP (1 + 2/2 + 3/4) / 2 = 1.375, NumRelRet 2 (judged only), P@2 1; under topics=qrels
    the variant names ``absent``, which a rel below 0 lets change P (the bogus document counts)."""
    import auditeval as ae

    q, r = _files(tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c -1\n", "1 Q0 x 1 2.0 r\n1 Q0 a 2 1.5 r\n1 Q0 c 3 1.0 r\n1 Q0 b 4 0.5 r\n")
    res = ae.evaluate(q, r, ["AP", "NumRelRet", "P@2"], settings=["rel=-1"])
    assert [res.get(m).value for m in ("AP", "NumRelRet", "P@2")] == [1.375, 2.0, 1.0]
    assert "|rel=-1|" in str(res.get("AP").variant) and "absent" not in str(res.get("P@2").variant)
    qrels_topics = str(ae.evaluate(q, r, ["P@2"], settings=["rel=-1", "topics=qrels"]).get("P@2").variant)
    plain = str(ae.evaluate(q, r, ["P@2"], settings=["topics=qrels"]).get("P@2").variant)
    assert "absent=zero" in qrels_topics and "absent" not in plain


# ---------------------------------------------------------------- 8.x: a relevance level below 0
_Q8 = "1 0 a 1\n1 0 b 0\n1 0 c -1\n1 0 d -2\n1 0 e -3\n"
_R8 = "1 Q0 d 1 6 r\n1 Q0 x 2 5 r\n1 Q0 a 3 4 r\n1 Q0 e 4 3 r\n1 Q0 b 5 2 r\n1 Q0 c 6 1 r\n"
_SIXTH, _FIFTH, _THIRD = "0.8333", "0.6000", "0.6667"
# (version, level): (num_rel, num_rel_ret, map, R-prec, bpref, recip_rank, ircl_prn 0.00 .. 1.00,
# documents counted in the top 5)
_LEVELS_8 = {
    ("8.0", "-1"): (3, 4, "0.8111", _THIRD, _SIXTH, "0.5000", [_THIRD] * 11, 3),
    ("8.1", "-1"): (3, 3, "0.5889", _THIRD, "1.0000", "0.5000", [_THIRD] * 7 + [_FIFTH] * 4, 3),
    ("8.0", "-2"): (4, 5, "1.1583", "0.7500", "0.7500", "1.0000", ["1.0000"] * 8 + [_SIXTH] * 3, 4),
    ("8.1", "-2"): (4, 5, "1.1583", "0.7500", "0.7500", "1.0000", ["1.0000"] * 8 + [_SIXTH] * 3, 4),
    ("8.0", "-3"): (5, 6, "1.2000", "1.0000", "  -inf", "1.0000", ["1.0000"] * 11, 5),
    ("8.1", "-3"): (5, 6, "1.2000", "1.0000", "0.6000", "1.0000", ["1.0000"] * 11, 5),
}


def _line8(name: str, value: str) -> str:
    return f"{name:<15}\tall\t{value}\n"  # print_meas.c "%-15s\t%s\t%6.4f\n"


@pytest.mark.parametrize("version, level", list(_LEVELS_8))
def test_8x_negative_relevance_level(trec_eval_bins, tmp_path, version, level) -> None:
    """trec_eval 8.x under ``-l`` below 0 (form_trvec.c, trvec_teval.c): num_rel counts the
    qrels lines of grade >= level, negative ones included; each ranked document has a code,
    its grade, -1 outside the qrels, and in 8.1 -2 for a grade -1 (8.0 keeps -1); every
    rank-based count asks code >= level. The run ranks d x a e b c (x outside the qrels):
    8.0 codes -2 -1 1 -3 0 -1, 8.1 -2 -1 1 -3 0 -2.

    * -l-1: R = 3 (a b c). 8.0 counts x a b c (ranks 2 3 5 6: num_rel_ret 4 > R): map
      (1/2 + 2/3 + 3/5 + 4/6) / 3 = 0.8111; 8.1 not c (-2): (1/2 + 2/3 + 3/5) / 3 = 0.5889.
      R-prec 2/3, recip_rank 1/2. ircl at recall i/10 is the best precision at or below the
      rank of the ceil(3 i / 10)-th counted document: 8.0 2/3 everywhere (ranks 3 and 6); 8.1
      0.70 .. 1.00 at b (rank 5: max(3/5, 3/6) = 0.6), 0.00 .. 0.60 at a or x (2/3 at rank 3).
    * -l-2: R = 4 (a b c d), d x a b c counted (not e): map (1 + 1 + 1 + 4/5 + 5/6) / 4 =
      1.1583, R-prec 3/4, ircl 1 to 0.70, 5/6 from 0.80 (the 4th counted, b, at rank 5).
    * -l-3: R = 5, all six counted: map 6/5, R-prec 1.
    * P5 counted-in-top-5 / 5, P_k counted / k beyond.
    * bpref: 8.0 takes code 0 (b) as nonrelevant and any other counted code as relevant;
      num_nonrel is the qrels lines below the level (2, 1, 0). -l-1: x a +1, c after b
      1 - 1/min(2, 3): 2.5/3 = 0.8333; -l-2: d x a +1, c 1 - 1/1: 3/4; -l-3: c adds
      1 - 1/min(0, 5) = -inf. 8.1 skips -1 (x), passes -2 (pooled: d, and c), finds no
      nonrelevant document (0 <= rel < level is empty) and takes the rest as relevant, e's -3
      too: a e b +1 each, 3/R: 1, 0.75, 0.6.
    """
    q, r = _files(tmp_path, _Q8, _R8)
    num_rel, rel_ret, ap, rprec, bpref, rr, ircl, top5 = _LEVELS_8[version, level]
    p = [f"{top5 / 5:6.4f}"] + [f"{rel_ret / k:6.4f}" for k in (10, 15, 20, 30, 100, 200, 500, 1000)]
    expected = ("".join([
        _line8("num_q", "1"), _line8("num_ret", "6"), _line8("num_rel", str(num_rel)),
        _line8("num_rel_ret", str(rel_ret)), _line8("map", ap), _line8("gm_ap", ap), _line8("R-prec", rprec),
        _line8("bpref", bpref), _line8("recip_rank", rr),
        *(_line8(f"ircl_prn.{i / 10:4.2f}", v) for i, v in enumerate(ircl)),
        *(_line8(f"P{k}", v) for k, v in zip((5, 10, 15, 20, 30, 100, 200, 500, 1000), p, strict=True)),
    ]), "", 0)
    real, mine = _both(trec_eval_bins, version, [f"-l{level}", q, r])
    assert real == expected
    assert mine == expected


@pytest.mark.parametrize("version", ["8.0", "8.1"])
def test_8x_negative_relevance_level_all_measures(trec_eval_bins, tmp_path, version) -> None:
    """The case above under -a (every measure), -J, -o and -q, the drop-in byte for byte:

    * -a -l-1: exact_recall num_rel_ret / R: 8.0 4/3, 8.1 3/3. 8.1: num_nonrel_judged_ret 0
      (no rel in [0, -1)); infAP over the bpref-relevant a e b at 0-based j = 2 3 4 with d
      pooled above: 1/3 + (2/3)(1/2)(1/2) + 1/4 + (3/4)(2/3) + 1/5 + (4/5)(3/4), less the
      epsilons: 2.05 / 3 = 0.6833.
    * -a -l-3 on 8.0: the -inf bpref terms (1 - 1/0) in bpref_5; bpref_top5Rnonrel 1 - 0/0 =
      -nan (c's bounded count is 0: no nonrelevant line at all); bpref_num_all num_nonrel - 1
      at c = -1; micro_bpref -1 / 0 = -inf.
    * -J -l-1: x dropped, d a e b c ranked 1-5; 8.0 counts a b c (ranks 2 4 5): map
      (1/2 + 2/4 + 3/5) / 3 = 0.5333; 8.1 a b: (1/2 + 2/4) / 3 = 0.3333.
    """
    q, r = _files(tmp_path, _Q8, _R8)
    real, mine = _both(trec_eval_bins, version, ["-a", "-l-1", q, r])
    assert mine == real and real[2] == 0
    got = dict(ln.split("\t")[::2] for ln in real[0].splitlines())
    got = {k.strip(): v for k, v in got.items()}
    assert got["exact_recall"] == ("1.3333" if version == "8.0" else "1.0000")
    if version == "8.1":
        assert (got["num_nonrel_judged_ret"], got["infAP"]) == ("0", "0.6833")
    else:
        assert "infAP" not in got
        real, mine = _both(trec_eval_bins, version, ["-a", "-l-3", q, r])
        assert mine == real
        lines = real[0].splitlines()
        for want in (_line8("bpref_5", "  -inf"), _line8("bpref_num_all", "-1.0000"),
                     _line8("micro_bpref", "  -inf"), "bpref_top5Rnonrel\tall\t  -nan\n"):
            assert want.rstrip("\n") in lines
    real, mine = _both(trec_eval_bins, version, ["-J", "-l-1", q, r])
    assert mine == real
    assert _line8("map", "0.5333" if version == "8.0" else "0.3333") in real[0]
    assert _line8("num_rel_ret", "3" if version == "8.0" else "2") in real[0]
    for flags in (["-q", "-l-2"], ["-o", "-l-1"], ["-q", "-c", "-T", "-l-2"]):
        real, mine = _both(trec_eval_bins, version, [*flags, q, r])
        assert mine == real and real[2] == 0, flags


def test_8x_negative_relevance_level_variants_say_so(tmp_path) -> None:
    """--variants under a negative level: the values as 8.1 prints them and a note that 8.x's
    counts there are no convention's (the same for a qrels grade below -2 at level 1)."""
    q, r = _files(tmp_path, _Q8, _R8)
    for flags in (["-l-1"], []):
        out, err = io.StringIO(), io.StringIO()
        assert main(["--as", "8.1", "--variants", *flags, q, r], out, err) == 0
        plain = io.StringIO()
        main(["--as", "8.1", *flags, q, r], plain, io.StringIO())
        assert out.getvalue() == plain.getvalue()
        assert err.getvalue() == ("auditeval trec-eval: --variants is not printed under a relevance level below 0 "
                                  "or a qrels grade below -2 (8.x's counts there name no convention)\n")
