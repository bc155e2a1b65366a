"""A corpus of bad inputs and bad output paths, every command.

Each case runs ``auditeval ...`` in process as a child would (:func:`cli_helpers.run_cli_in`:
its folder, ``COLUMNS``, both streams and ``SystemExit`` captured; an exception let out fails
the test as a child's traceback would) and asserts: exit status 2, exactly one
``auditeval: error:`` line on standard error, that line naming the bad path, no
``Traceback``, and no output file left behind (nor a ``.part`` temporary). The scheduler
without workers runs as ``python -m auditeval`` in a child process (the cluster it waits on
lives in this one); ``tests/cli/test_commands_fresh.py`` runs every command in a fresh process.

The matrix is representative, not the full cartesian product (commands x 7 malformations x
3 output failures would be ~400 invocations; 27 here): every command meets at least one bad
main input; every malformation (missing file, directory, empty file, binary bytes, not UTF-8,
truncated gzip, bad line) meets at least two commands; every auxiliary input (``verify
--table``, ``card --pooled-file``, ``compare --strata``, ``--profile FILE``, ``diff``'s files)
meets the malformations that gave tracebacks; every output option of the commands owned here
(``audit -o``, ``card -o``, ``compare --plot``, ``reproduce --plot``) meets one or two of, and
each of these meets at least two options: a missing folder, a "read-only" folder (a path under a regular file: tests run as root, for whom a mode-0500
folder is writable) and a full disk (``/dev/full``). ``trec-eval`` is left out: a byte-exact
drop-in for the trec_eval binary, it answers bad input with trec_eval's own messages (and reads
``two`` as a rank the way ``atoi`` does). The other output options (``eval --ir-metadata``, ``pool
todo -o``, ``pool coverage --todo``, ``pool stats/growth --plot``, the store ``pool add``/``judge``
write) are checked before the work: one error line and nothing on standard output.

The side doors of the execution options and of ``reproduce``: a malformed, unreachable or
workerless ``--scheduler`` (a ``distributed`` scheduler on 127.0.0.1 without workers, stopped after),
``--jobs`` beyond the tasks (a note, no pool), ``reproduce`` of runs with no topic in common or a
``--qrels-b`` sharing none, argparse's errors under the one prefix, and the LLM judge's choices that
disagree (a stand-in server: a recorded failure and a note).
"""

from __future__ import annotations

import gzip
import os
import subprocess
import sys
from pathlib import Path

import pytest
from cli_helpers import run_cli_in
from paths import REPO, TESTS

pytestmark = pytest.mark.slow

ROOT = REPO
QRELS = "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n"
RUN = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d1 1 1.0 r\n"


@pytest.fixture(scope="module")
def corpus(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("corpus")
    (d / "q.txt").write_text(QRELS)
    (d / "r.txt").write_text(RUN)
    (d / "r2.txt").write_text(RUN.replace("2.0", "0.5"))
    (d / "empty.txt").write_text("")
    (d / "binary.bin").write_bytes(bytes(range(256)))
    (d / "latin1.txt").write_bytes("1 Q0 d\xe9 1 1.0 r\n".encode("latin-1"))
    (d / "trunc.gz").write_bytes(gzip.compress(RUN.encode())[:-12])
    (d / "badline.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 1.0 r\n")  # 5 fields
    (d / "badrank.txt").write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 two 1.0 r\n")  # read (as trec_eval), but by ties=rank
    (d / "dir").mkdir()
    (d / "afile").write_text("x")
    (d / "table.csv").write_text("r,MAP,0.5\n")
    (d / "out1.txt").write_text("map\tall\t0.5000\n")
    return d


BAD_MAIN = {"missing": "nope.txt", "directory": "dir", "empty": "empty.txt", "binary": "binary.bin",
            "not-utf8": "latin1.txt", "truncated-gzip": "trunc.gz", "bad-line": "badline.txt"}
CASES = [
    # (id, argv, the path the error line must name)
    *[(f"eval-run-{k}", ["eval", "q.txt", v], v) for k, v in BAD_MAIN.items()
      if k in ("missing", "directory", "truncated-gzip", "bad-line")],
    ("eval-qrels-binary", ["eval", "binary.bin", "r.txt"], "binary.bin"),
    ("eval-run-bad-rank-ties-rank", ["eval", "q.txt", "badrank.txt", "--set", "ties=rank"], "badrank.txt:2"),
    ("sweep-run-truncated-gzip", ["sweep", "q.txt", "trunc.gz", "-m", "AP", "--vary", "ties"], "trunc.gz"),
    ("audit-run-bad-line", ["audit", "q.txt", "badline.txt", "--against", "pytrec_eval"], "badline.txt"),
    ("audit-qrels-directory", ["audit", "dir", "r.txt", "--against", "pytrec_eval"], "dir"),
    ("verify-claim-run-not-utf8", ["verify", "q.txt", "latin1.txt", "--claim", "MAP=0.5"], "latin1.txt"),
    *[(f"verify-table-{k}", ["verify", "q.txt", "r.txt", "--table", v], v)
      for k, v in BAD_MAIN.items() if k in ("empty", "binary")],
    *[(f"diff-{k}", ["diff", v, "out1.txt"], v) for k, v in BAD_MAIN.items()
      if k in ("directory", "truncated-gzip")],
    ("card-run-empty", ["card", "q.txt", "empty.txt"], "empty.txt"),
    *[(f"card-pooled-file-{k}", ["card", "q.txt", "r.txt", "--pooled-file", v], v)
      for k, v in BAD_MAIN.items() if k in ("directory",)],
    ("reproduce-run-missing", ["reproduce", "nope.txt", "r.txt", "--qrels", "q.txt"], "nope.txt"),
    ("compare-run-binary", ["compare", "q.txt", "r.txt", "binary.bin"], "binary.bin"),
    *[(f"compare-strata-{k}", ["compare", "q.txt", "r.txt", "r2.txt", "--strata", v], v)
      for k, v in BAD_MAIN.items() if k in ("empty",)],
    ("eval-profile-file-binary", ["eval", "q.txt", "r.txt", "--profile", "binary.toml"], "binary.toml"),
    ("pool-stats-run-missing", ["pool", "stats", "nope.txt", "r.txt"], "nope.txt"),
    ("pool-coverage-qrels-binary", ["pool", "coverage", "binary.bin", "r.txt"], "binary.bin"),
]
OUTPUTS = [
    ("audit -o", ["audit", "q.txt", "r.txt", "--against", "pytrec_eval", "--timeout", "60", "-o", "{out}"]),
    ("card -o", ["card", "q.txt", "r.txt", "-o", "{out}"]),
    ("compare --plot", ["compare", "q.txt", "r.txt", "r2.txt", "-m", "AP", "--trials", "50", "--plot", "{out}"]),
    ("reproduce --plot", ["reproduce", "r.txt", "r2.txt", "--qrels", "q.txt", "--plot", "{out}"]),
]
DESTS = {"missing-folder": "nodir/out.png", "read-only-folder": "afile/out.png", "full-disk": "/dev/full"}


def _run(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    return run_cli_in(argv, cwd, {"COLUMNS": "100"})


def _child(argv: list[str], cwd: Path) -> subprocess.CompletedProcess:
    """``python -m auditeval ARGV`` in a child process, this checkout first on the path."""
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "100"}
    return subprocess.run([sys.executable, "-m", "auditeval", *argv], cwd=cwd, env=env, capture_output=True,
                          text=True, timeout=120)


def _check(p: subprocess.CompletedProcess, path: str) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("auditeval: error:")]
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert len(errors) == 1, p.stderr
    assert path in errors[0], errors[0]


@pytest.mark.parametrize(("argv", "path"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_bad_input_is_one_error_line(corpus, argv, path):
    if path.endswith(".toml"):  # a profile file: binary bytes, or a directory
        target = corpus / path
        if "dir" in path:
            target.mkdir(exist_ok=True)
        else:
            target.write_bytes(b"[axes]\n\xff\xfe\n")
    _check(_run(argv, corpus), path)


DEST_CASES = [("audit -o", "missing-folder"), ("audit -o", "full-disk"), ("card -o", "read-only-folder"),
              ("card -o", "full-disk"), ("compare --plot", "missing-folder"), ("compare --plot", "read-only-folder"),
              ("reproduce --plot", "full-disk")]


@pytest.mark.parametrize(("argv", "dest"), [(dict(OUTPUTS)[c], DESTS[k]) for c, k in DEST_CASES],
                         ids=[f"{c}-{k}" for c, k in DEST_CASES])
def test_bad_output_path_is_one_error_line_and_no_file(corpus, argv, dest):
    before = {p.name for p in corpus.rglob("*")}
    p = _run([a.replace("{out}", dest) for a in argv], corpus)
    _check(p, dest)
    assert {q.name for q in corpus.rglob("*")} - before == set()  # no partial file, no .part left
    if dest == "/dev/full":
        assert Path("/dev/full").is_char_device()  # written in place, never renamed over


# ----------------------------------------------------------------------------- side doors
# Each: the one error line names what is wrong, nothing on standard output, no traceback, no hang.
SIDE_DOORS = [
    ("scheduler-malformed", ["eval", "q.txt", "r.txt", "--scheduler", "garbage"],
     "--scheduler garbage: not a scheduler address"),
    ("scheduler-bad-port", ["eval", "q.txt", "r.txt", "--scheduler", "tcp://127.0.0.1:notaport"],
     "--scheduler tcp://127.0.0.1:notaport: not a scheduler address"),
    ("scheduler-port-range", ["sweep", "q.txt", "r.txt", "--scheduler", "tcp://127.0.0.1:99999"],
     "port in 1-65535"),
    ("scheduler-unreachable", ["compare", "q.txt", "r.txt", "r2.txt", "--scheduler", "tcp://127.0.0.1:1",
                               "--scheduler-timeout", "1"], "--scheduler tcp://127.0.0.1:1: cannot connect within 1 s"),
    ("reproduce-no-common-topic", ["reproduce", "r.txt", "t3.txt", "--qrels", "q.txt"],
     "r.txt and t3.txt rank no topic in common (original: 2 topic(s): '1', '2'; re-run: 1 topic(s): '3')"),
    ("reproduce-qrels-judges-none", ["reproduce", "t3.txt", "t3.txt", "--qrels", "q.txt"],
     "q.txt judges none of the 1 topic(s) both runs rank (both runs: 1 topic(s): '3'; qrels: 2 topic(s): '1', '2')"),
    ("reproduce-qrels-b-shares-none", ["reproduce", "r.txt", "r2.txt", "--qrels", "q.txt", "--qrels-b", "q3.txt"],
     "--qrels-b q3.txt (qrels B) judges none of the topics r2.txt ranks (qrels B: 1 topic(s): '3'; r2.txt: "
     "2 topic(s): '1', '2')"),
    ("argparse-missing", ["eval"], "auditeval: error: the following arguments are required: qrels, run"),
    ("argparse-nested", ["pool", "stats", "r.txt", "--depth", "x"], "auditeval: error: argument --depth: "),
    ("argparse-jobs", ["sweep", "q.txt", "r.txt", "--jobs", "0"], "auditeval: error: argument --jobs: "),
    ("argparse-timeout", ["eval", "q.txt", "r.txt", "--scheduler-timeout", "-1"],
     "auditeval: error: argument --scheduler-timeout: needs a positive number of seconds, got -1"),
]


def _side_door_files(corpus: Path) -> None:
    (corpus / "t3.txt").write_text("3 Q0 d1 1 1.0 r\n")
    (corpus / "q3.txt").write_text("3 0 d1 1\n")


def _one_error(p: subprocess.CompletedProcess, text: str) -> None:
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == 2, (p.returncode, p.stderr)
    assert p.stdout == "", p.stdout  # checked before the work: nothing printed first
    errors = [ln for ln in p.stderr.splitlines() if ln.startswith("auditeval: error:")]
    assert len(errors) == 1 and text in errors[0], p.stderr
    assert not [ln for ln in p.stderr.splitlines() if ": error:" in ln and not ln.startswith("auditeval: error:")]


@pytest.mark.parametrize(("argv", "text"), [c[1:] for c in SIDE_DOORS], ids=[c[0] for c in SIDE_DOORS])
def test_side_door_is_one_error_line(corpus, argv, text):
    _side_door_files(corpus)
    _one_error(_run(argv, corpus), text)


def test_a_scheduler_without_workers_is_one_error_line_within_the_timeout(corpus):
    """A scheduler that answers but has no worker: one error line after --scheduler-timeout
    (1 s here), naming the option, instead of a map that would wait forever."""
    from distributed import LocalCluster

    c = LocalCluster(n_workers=0, processes=False, protocol="tcp", host="127.0.0.1", dashboard_address=None)
    try:
        p = _child(["eval", "q.txt", "r.txt", "--scheduler", c.scheduler_address, "--scheduler-timeout", "1"], corpus)
    finally:
        c.close()
    _one_error(p, f"--scheduler {c.scheduler_address}: the scheduler answers but no worker joined it within 1 s "
               "(--scheduler-timeout)")


def test_jobs_beyond_the_tasks_is_a_note_not_a_pool(corpus):
    """``--jobs 999`` on one run: one task, so it runs in this process (no interpreters started),
    the same bytes as ``--jobs 1``, and a note says so."""
    one = _run(["eval", "q.txt", "r.txt", "--format", "tsv"], corpus)
    many = _run(["eval", "q.txt", "r.txt", "--format", "tsv", "--jobs", "999"], corpus)
    assert many.returncode == one.returncode == 0 and many.stdout == one.stdout
    note = " ".join(many.stderr.split())
    assert "auditeval: note: --jobs 999: the tasks run in this process (this machine has" in note
    assert "and the command has 1 task(s))" in note and "--jobs" not in one.stderr


MORE_OUTPUTS = [
    ("eval --ir-metadata", ["eval", "q.txt", "r.txt", "--ir-metadata", "{out}"]),
    ("pool todo -o", ["pool", "todo", "--store", "s.sqlite", "r.txt", "-o", "{out}"]),
    ("pool coverage --todo", ["pool", "coverage", "q.txt", "r.txt", "--todo", "{out}"]),
    ("pool stats --plot", ["pool", "stats", "r.txt", "r2.txt", "--plot", "{out}"]),
    ("pool growth --plot", ["pool", "growth", "q.txt", "r.txt", "r2.txt", "--orders", "4", "--plot", "{out}"]),
    ("pool add --store", ["pool", "add", "--store", "{out}", "q.txt"]),
    ("pool judge --store", ["pool", "judge", "--judge", "auditeval.pooling.judge:simulated", "--judge-arg",
                            "qrels=q.txt", "--store", "{out}", "r.txt"]),
]
MORE_DESTS = [("eval --ir-metadata", "read-only-folder"), ("eval --ir-metadata", "missing-folder"),
              ("pool todo -o", "read-only-folder"), ("pool coverage --todo", "missing-folder"),
              ("pool stats --plot", "read-only-folder"), ("pool growth --plot", "missing-folder"),
              ("pool add --store", "read-only-folder"), ("pool judge --store", "missing-folder")]


@pytest.mark.parametrize(("argv", "dest"), [(dict(MORE_OUTPUTS)[c], DESTS[k]) for c, k in MORE_DESTS],
                         ids=[f"{c}-{k}" for c, k in MORE_DESTS])
def test_every_output_path_is_checked_before_the_work(corpus, argv, dest):
    """``--ir-metadata`` into a folder that cannot take it used to print the whole result, then
    fail: every output path (and a store a command writes) is checked first."""
    if "todo" in argv:  # the store todo reads must exist
        assert _run(["pool", "add", "--store", "s.sqlite", "q.txt"], corpus).returncode == 0
    before = {p.name for p in corpus.rglob("*")}
    p = _run([a.replace("{out}", dest) for a in argv], corpus)
    _one_error(p, dest)
    assert {q.name for q in corpus.rglob("*")} - before == set()


def test_judge_choices_that_disagree_are_a_recorded_failure_with_a_note(corpus, tmp_path, monkeypatch):
    """``pool judge --judge openai`` against a stand-in server (tests/pooling/test_llm_judge.py) whose
    reply for one pair holds two choices graded 0 and 3: that pair is recorded as failed, a note
    says why, the others are labelled; exit 1 (a pair without a label), no traceback."""
    import json

    monkeypatch.syspath_prepend(TESTS / "pooling")  # the stand-in server's module
    from test_llm_judge import Server

    for v in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(v, raising=False)  # the stand-in listens on 127.0.0.1
    (tmp_path / "run.txt").write_text("1 Q0 d0 1 2.0 r\n1 Q0 d1 2 1.0 r\n")
    (tmp_path / "topics.tsv").write_text("1\tTOPIC-1-TEXT what\n")
    (tmp_path / "docs.tsv").write_text("d0\tDOCTEXT-d0 words\nd1\tDOCTEXT-d1 words\n")
    srv = Server({("1", "d0"): ["choices03"] * 3})
    try:
        p = _run(["pool", "judge", "--judge", "openai", "--judge-arg", "model=m", "--judge-arg", f"base_url={srv.url}",
                  "--topics", "topics.tsv", "--docs", "docs.tsv", "--store", "j.sqlite", "run.txt", "--retries", "1",
                  "--backoff", "0.01", "--format", "json"], tmp_path)
    finally:
        srv.stop()
    assert p.returncode == 1 and "Traceback" not in p.stderr, p.stderr
    doc = json.loads(p.stdout)
    assert (doc["cost"]["pairs_judged"], doc["cost"]["failed_pairs"], doc["cost"]["conflicting_pairs"]) == (1, 1, 1)
    assert any("the reply's choices gave different grades" in n and "grades 0, 3" in n for n in doc["notes"])
