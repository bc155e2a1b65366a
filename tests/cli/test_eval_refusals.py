"""``auditeval eval`` when a profile refuses a run (topics=strict and a qrels topic the run
lacks): the other profiles and runs are still reported, the refusal is a marker and a note in
every format; a lone profile and run keep the plain error (exit 2).

Example data (``examples/``): qrels topics 101-105; ``bm25.txt`` ranks 101-105, ``rerank.txt``
101-104. Hand count of relevant documents in the top 10 (score descending, docno descending on
ties): bm25 5, 4, 7, 6, 4 -> P@10 = 26/50 = 0.52; rerank 5, 6, 8, 6 -> P@10 = 25/40 = 0.625.
trec_eval-9.0.8 (topics=both) skips a qrels topic the run lacks; trec_eval-10.0
(topics=strict) refuses the run.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from paths import EXAMPLES

EX = EXAMPLES
P9, P10 = "trec_eval-9.0.8", "trec_eval-10.0"
STRICT_TAIL = "(topics=strict, as trec_eval 10 without -c; use topics=qrels to score them 0 or topics=both to skip them)"


@pytest.fixture
def extra_qrels(tmp_path: Path) -> Path:
    """The example qrels plus a judged topic 999 that no example run ranks."""
    q = tmp_path / "qrels_999.txt"
    q.write_text((EX / "qrels.txt").read_text() + "999 0 XX 1\n")
    return q


def reason(run: Path, topic: str) -> str:
    return f"1 qrels topic(s) missing from run {run}: '{topic}' {STRICT_TAIL}"


def table_rows(out: str, run: str) -> list[list[str]]:
    return [line.split() for line in out.splitlines() if line.startswith(run + " ")]


def test_second_profile_refuses_first_is_reported(extra_qrels):
    bm25 = EX / "bm25.txt"
    code, out, err = run_cli("eval", str(extra_qrels), str(bm25), "-m", "P@10", "-m", "NumQ",
                             "--profile", P9, "--profile", P10, "--width", "100")
    assert code == 0
    assert table_rows(out, "bm25") == [["bm25", "P@10", "0.5200", "refused"], ["bm25", "NumQ", "5", "refused"]]
    note = f"[{P10}] run 'bm25' refused: {reason(bm25, '999')}"
    assert " ".join(out.split()).count(note) == 1  # wrapped to the width in the notes section
    assert f"auditeval: note: {note}\n" in err  # also where a redirected stdout would hide it
    assert "absent from the run not evaluated (topics=both): '999'" in " ".join(out.split())  # 9.0.8 says it skipped 999
    assert all(len(line) <= 100 for line in out.splitlines())


def test_lone_profile_refusal_is_the_error(extra_qrels):
    bm25 = EX / "bm25.txt"
    code, out, err = run_cli("eval", str(extra_qrels), str(bm25), "-m", "P@10", "--profile", P10)
    assert (code, out, err) == (2, "", f"auditeval: error: {reason(bm25, '999')}\n")


def test_every_profile_refusing_is_the_error(extra_qrels):
    bm25 = EX / "bm25.txt"
    # the same reason under both profiles: today's single error line
    code, out, err = run_cli("eval", str(extra_qrels), str(bm25), "-m", "P@10",
                             "--profile", P10, "--profile", "textbook", "--set", "topics=strict")
    assert (code, out, err) == (2, "", f"auditeval: error: {reason(bm25, '999')}\n")
    # two runs, both refused: one error line per run
    rerank = EX / "rerank.txt"
    code, out, err = run_cli("eval", str(extra_qrels), str(rerank), str(bm25), "-m", "P@10", "--profile", P10)
    assert code == 2 and out == ""
    assert err.splitlines() == [
        f"auditeval: error: [{P10}] run 'rerank' refused: 1 qrels topic(s) missing from run {rerank}: "
        f"'105', '999' {STRICT_TAIL}".replace("1 qrels", "2 qrels"),
        f"auditeval: error: [{P10}] run 'bm25' refused: {reason(bm25, '999')}",
    ]


def test_json_lists_refusals_and_keeps_other_values():
    rerank, bm25 = EX / "rerank.txt", EX / "bm25.txt"
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(bm25), "-m", "P@10",
                             "--profile", P9, "--profile", P10, "--format", "json")
    assert code == 0
    doc = json.loads(out)
    assert doc["refused"] == [{"profile": P10, "run": "rerank", "reason": reason(rerank, "105")}]
    assert f"[{P10}] run 'rerank' refused: {reason(rerank, '105')}" in doc["notes"]
    got = {(v["profile"], v["run"]): v["value"] for v in doc["values"] if v["topic"] == "all"}
    assert got == {(P9, "rerank"): 0.625, (P9, "bm25"): 0.52, (P10, "bm25"): 0.52}
    assert [p["name"] for p in doc["profiles"]] == [P9, P10]
    assert f"auditeval: note: [{P10}] run 'rerank' refused:" in err


def test_tsv_notes_the_refusal():
    rerank = EX / "rerank.txt"
    code, out, _ = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(EX / "bm25.txt"), "-m", "P@10",
                           "--profile", P10, "--format", "tsv")
    assert code == 0
    lines = out.splitlines()
    values = [line.split("\t")[:4] for line in lines[1:] if not line.startswith("#")]
    assert values == [["bm25", "P@10", "all", "0.52"]]
    assert f"# note: [{P10}] run 'rerank' refused: {reason(rerank, '105')}" in lines


def test_text_keeps_the_run_order_when_the_first_profile_refuses():
    rerank = EX / "rerank.txt"
    code, out, _ = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(EX / "bm25.txt"), "-m", "P@10",
                           "--profile", P10, "--profile", P9, "--width", "120")
    assert code == 0
    rows = [line.split()[:4] for line in out.splitlines() if line.split()[:1] in (["rerank"], ["bm25"])]
    assert rows == [["rerank", "P@10", "refused", "0.6250"], ["bm25", "P@10", "0.5200", "0.5200"]]
    # one profile, several runs: the refused run keeps its row
    code, out, _ = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(EX / "bm25.txt"), "-m", "P@10",
                           "--profile", P10)
    assert code == 0
    assert table_rows(out, "rerank") == [["rerank", "P@10", "refused"]]
    assert table_rows(out, "bm25") == [["bm25", "P@10", "0.5200"]]
    code, out, _ = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(EX / "bm25.txt"), "-m", "P@10",
                           "-m", "NumQ", "--profile", P10, "--matrix")
    assert table_rows(out, "rerank") == [["rerank", "refused", "refused"]]
    assert table_rows(out, "bm25") == [["bm25", "0.5200", "5"]]


def test_per_topic_text_marks_the_refused_column():
    rerank = EX / "rerank.txt"
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(EX / "bm25.txt"), "-m", "P@10",
                             "--profile", P9, "--profile", P10, "-q", "--width", "100")
    assert code == 0
    lines = out.splitlines()
    header = next(line for line in lines if line.startswith("run "))
    assert header.split() == ["run", "measure", "topic", P9, P10]
    topic_lines = [line.split() for line in lines[lines.index(header) + 1:] if line.strip()][:11]
    assert topic_lines == [
        ["rerank", "P@10", "101", "0.5000", "refused"],
        ["rerank", "P@10", "102", "0.6000", "refused"],
        ["rerank", "P@10", "103", "0.8000", "refused"],
        ["rerank", "P@10", "104", "0.6000", "refused"],
        ["rerank", "P@10", "all", "0.6250", "refused"],
        ["bm25", "P@10", "101", "0.5000", "0.5000"],
        ["bm25", "P@10", "102", "0.4000", "0.4000"],
        ["bm25", "P@10", "103", "0.7000", "0.7000"],
        ["bm25", "P@10", "104", "0.6000", "0.6000"],
        ["bm25", "P@10", "105", "0.4000", "0.4000"],
        ["bm25", "P@10", "all", "0.5200", "0.5200"],
    ]
    # each value column is as wide as its header, so values sit under their profile's name
    assert lines[lines.index(header) + 1].endswith(" " * (len(P10) - len("refused")) + "refused")
    assert f"run 'rerank' refused: {reason(rerank, '105')}" in " ".join(out.split())
    assert f"auditeval: note: [{P10}] run 'rerank' refused:" in err


def test_input_errors_stay_fatal(tmp_path):
    bad = tmp_path / "bad.txt"
    bad.write_text("101 Q0 D101-00 1 bad\n")
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(bad),
                             "--profile", P9, "--profile", P10)
    assert (code, out, err) == (2, "", f"auditeval: error: {bad}:1: run line has 5 fields, expected 6 "
                                "(topic Q0 docno rank score tag)\n")


def test_ir_metadata_block_names_the_refusal(tmp_path):
    from auditeval.results.ir_metadata import read_block

    rerank, meta = EX / "rerank.txt", tmp_path / "meta.txt"
    code, _, _ = run_cli("eval", str(EX / "qrels.txt"), str(rerank), str(EX / "bm25.txt"), "-m", "P@10",
                         "--profile", P9, "--profile", P10, "--ir-metadata", str(meta))
    assert code == 0
    profiles = read_block(meta)["research goal"]["evaluation"]["evaluator"]["profiles"]
    assert "refused" not in profiles[0] and profiles[0]["results"]["rerank"] == {"P@10": 0.625}
    assert profiles[1]["refused"] == {"rerank": reason(rerank, "105")}
    assert profiles[1]["results"] == {"bm25": {"P@10": 0.52}}


def test_per_topic_lines_keep_a_topic_only_one_profile_evaluates():
    # textbook (topics=qrels) scores rerank's missing topic 105 as an empty ranking: P@10 = 0,
    # mean 25/50 = 0.5; trec_eval-9.0.8 (topics=both) skips it: '-' in its column, mean 0.625.
    code, out, _ = run_cli("eval", str(EX / "qrels.txt"), str(EX / "rerank.txt"), "-m", "P@10",
                           "--profile", P9, "--profile", "textbook", "-q")
    assert code == 0
    lines = [line.split() for line in out.splitlines() if line.startswith("rerank ")]
    assert lines[:6] == [
        ["rerank", "P@10", "101", "0.5000", "0.5000"],
        ["rerank", "P@10", "102", "0.6000", "0.6000"],
        ["rerank", "P@10", "103", "0.8000", "0.8000"],
        ["rerank", "P@10", "104", "0.6000", "0.6000"],
        ["rerank", "P@10", "105", "-", "0.0000"],
        ["rerank", "P@10", "all", "0.6250", "0.5000"],
    ]
