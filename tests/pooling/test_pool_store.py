"""The SQLite judgment store: frozen labels, revisions with history, atomic batches, a
killed import, concurrent importers, and the ``pool add`` / ``pool qrels`` / ``pool todo`` CLI."""

from __future__ import annotations

import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest
from cli_helpers import run_cli
from paths import REPO

from auditeval.pooling.store import JudgmentStore, Labels

pytestmark = pytest.mark.slow

ROOT = REPO


def qrels_lines(n: int, start: int = 0, label=lambda i: i % 3) -> str:
    return "".join(f"{i % 50} 0 D{i} {label(i)}\n" for i in range(start, start + n))


def count(db: Path, sql: str):
    con = sqlite3.connect(db)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def test_add_frozen_labels_revision_history_and_export(tmp_path):
    store = tmp_path / "j.sqlite"
    q = tmp_path / "a.qrels"
    q.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 2\n")
    code, out, err = run_cli("pool", "add", "--store", str(store), str(q), "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["files"][0] | {} == {"input": str(q), "lines": 3, "batches": [1], "added": 3, "same": 0, "kept": 0, "revised": 0}
    # JSONL from a model: one same label, one different (frozen: kept), one new
    j = tmp_path / "b.jsonl"
    j.write_text('{"topic": "1", "doc": "d1", "label": 1}\n'
                 '{"topic": "1", "doc": "d2", "label": 2, "source": "gpt-x/p3"}\n'
                 '\n{"topic": 3, "doc": "d9", "label": 0, "time": "2026-01-01T00:00:00Z"}\n')
    code, out, err = run_cli("pool", "add", "--store", str(store), str(j), "--source", "model-a", "--format", "json")
    assert code == 0
    f = json.loads(out)["files"][0]
    assert (f["added"], f["same"], f["kept"], f["revised"]) == (1, 1, 1, 0)
    assert "kept their stored label" in " ".join(json.loads(out)["notes"])
    with JudgmentStore(store) as s:
        assert sorted(s.labels()) == [("1", "d1", 1, "human"), ("1", "d2", 0, "human"), ("2", "d3", 2, "human"), ("3", "d9", 0, "model-a")]
    # explicit revision replaces the label and keeps the old one in the history
    code, out, _ = run_cli("pool", "add", "--store", str(store), str(j), "--revise", "--format", "json")
    f = json.loads(out)["files"][0]
    assert (f["added"], f["same"], f["kept"], f["revised"]) == (0, 2, 0, 1)
    with JudgmentStore(store) as s:
        hist = s.history("1", "d2")
        assert [(h[0], h[1]) for h in hist] == [(0, "human"), (2, "gpt-x/p3")]
        assert [b["id"] for b in s.batches()] == [1, 2, 3]
    # export: all sources, and one source only
    code, out, _ = run_cli("pool", "qrels", "--store", str(store))
    assert out == "1 0 d1 1\n1 0 d2 2\n2 0 d3 2\n3 0 d9 0\n"
    code, out, _ = run_cli("pool", "qrels", "--store", str(store), "--source", "human", "--source", "nobody")
    assert out == "1 0 d1 1\n2 0 d3 2\n"
    code, out, err = run_cli("pool", "qrels", "--store", str(store), "--source", "human", "--format", "json")
    assert "no labels from source(s) nobody" not in out and json.loads(out)["labels"] == 2


@pytest.mark.parametrize("text, where, reason", [
    ('{"topic": "1", "doc": "a", "label": 1}\n{"topic": "1", "doc": "b"}\n', 2, "missing field 'label'"),
    ('{"topic": "1", "doc": "a", "label": 1}\n\n{"topic": "1", "doc": "b", "label": "x"}\n', 3, "label must be an integer"),
    ('{"topic": "1", "doc": "a", "label": 1}\nnot json\n', 2, "not a JSON object"),
    ('{"topic": "1", "doc": "a", "label": 1}\n{"topic": "1", "doc": "a", "label": 0}\n', 2, "labelled 0 here but 1 at line 1"),
])
def test_malformed_line_rejects_the_whole_batch(tmp_path, text, where, reason):
    store = tmp_path / "j.sqlite"
    first, good = tmp_path / "first.qrels", tmp_path / "good.qrels"
    first.write_text("8 0 y 1\n")
    good.write_text("9 0 z 1\n")
    assert run_cli("pool", "add", "--store", str(store), str(first))[0] == 0
    bad = tmp_path / "bad.jsonl"
    bad.write_text(text)
    code, out, err = run_cli("pool", "add", "--store", str(store), str(good), str(bad))
    assert code == 2
    assert err.startswith(f"auditeval: error: {bad}:{where}: ") and reason in err
    # nothing of the command lands, not even the good file before it (every file is validated first)
    assert count(store, "SELECT topic, doc, label FROM judgments") == [("8", "y", 1)]
    assert count(store, "SELECT COUNT(*) FROM batches") == [(1,)]


def test_malformed_trec_line(tmp_path):
    store = tmp_path / "j.sqlite"
    bad = tmp_path / "bad.qrels"
    bad.write_text("1 0 a 1\n1 0 b\n")
    code, _, err = run_cli("pool", "add", "--store", str(store), str(bad))
    assert code == 2 and err.startswith(f"auditeval: error: {bad}:2: ")
    assert not store.exists()  # validated before the store is even opened


def test_store_batch_is_atomic_in_process(tmp_path):
    """A batch that fails inside its transaction leaves nothing behind (here: a label that is
    not an integer reaches SQLite's NOT NULL constraint)."""
    with JudgmentStore(tmp_path / "j.sqlite", create=True) as s:
        s.add(Labels(["1"], ["a"], [1], ["h"], [None]), "first")
        with pytest.raises(sqlite3.IntegrityError):
            s.add(Labels(["1", "1"], ["b", "c"], [1, None], ["h", "h"], [None, None]), "broken")
        assert s.labels() == [("1", "a", 1, "h")]
        assert [b["origin"] for b in s.batches()] == ["first"]


def _spawn(*args: str) -> subprocess.Popen:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.Popen([sys.executable, "-m", "auditeval", *args], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)


def test_killed_import_leaves_no_partial_batch_and_loses_nothing_committed(tmp_path):
    store = tmp_path / "j.sqlite"
    early = tmp_path / "early.qrels"
    early.write_text("7 0 KEEP 2\n")
    assert run_cli("pool", "add", "--store", str(store), str(early))[0] == 0
    big = tmp_path / "big.qrels"
    n, batch = 120_000, 10_000
    big.write_text(qrels_lines(n))
    proc = _spawn("pool", "add", "--store", str(store), str(big), "--batch-size", str(batch))
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            pytest.fail(f"import ended before it could be killed: {proc.stderr.read().decode()}")
        try:
            if count(store, "SELECT COUNT(*) FROM batches")[0][0] >= 3:  # early + 2 committed big batches
                break
        except sqlite3.OperationalError:
            pass
        time.sleep(0.005)
    os.kill(proc.pid, signal.SIGKILL)
    proc.wait()
    assert proc.returncode == -signal.SIGKILL
    assert count(store, "PRAGMA integrity_check") == [("ok",)]
    committed = count(store, "SELECT id, lines, added FROM batches WHERE id > 1 ORDER BY id")
    assert len(committed) >= 2 and all(lines == added == batch for _, lines, added in committed)
    n_big = count(store, "SELECT COUNT(*) FROM judgments WHERE doc != 'KEEP'")[0][0]
    assert n_big == batch * len(committed) < n  # whole batches only
    per_batch = count(store, "SELECT batch, COUNT(*) FROM judgments WHERE batch > 1 GROUP BY batch ORDER BY batch")
    assert per_batch == [(i, batch) for i, _, _ in committed]
    assert count(store, "SELECT label, source FROM judgments WHERE doc = 'KEEP'") == [(2, "human")]
    # the committed labels are the file's first lines, with their labels
    got = count(store, "SELECT doc, label FROM judgments WHERE doc != 'KEEP'")
    assert sorted(got) == sorted((f"D{i}", i % 3) for i in range(n_big))
    # rerunning the import completes it: committed lines count as 'same'
    code, out, _ = run_cli("pool", "add", "--store", str(store), str(big), "--batch-size", "100000", "--format", "json")
    f = json.loads(out)["files"][0]
    assert code == 0 and (f["added"], f["same"]) == (n - n_big, n_big)


def test_two_concurrent_importers_both_land(tmp_path):
    """Two importers start while this test holds the write lock: both wait on it (busy
    timeout, BEGIN IMMEDIATE) instead of failing, then both land; every pair once."""
    store = tmp_path / "j.sqlite"
    JudgmentStore(store, create=True).close()
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text(qrels_lines(30_000, 0))
    b.write_text(qrels_lines(30_000, 25_000))  # 5,000 pairs in common, same labels
    lock = sqlite3.connect(store, isolation_level=None)
    lock.execute("BEGIN IMMEDIATE")
    procs = [_spawn("pool", "add", "--store", str(store), str(p), "--batch-size", "1000", "--format", "json") for p in (a, b)]
    time.sleep(1.0)
    assert [p.poll() for p in procs] == [None, None]  # waiting, not failing
    lock.execute("COMMIT")
    lock.close()
    outs = [p.communicate(timeout=120) for p in procs]
    assert [p.returncode for p in procs] == [0, 0], [e.decode() for _, e in outs]
    files = [json.loads(o)["files"][0] for o, _ in outs]
    assert sum(f["added"] for f in files) == 55_000
    assert sum(f["same"] for f in files) == 5_000
    assert count(store, "SELECT COUNT(*) FROM judgments") == [(55_000,)]
    assert count(store, "SELECT COUNT(*) FROM batches") == [(60,)]


def test_todo_lists_pool_pairs_missing_from_store_and_qrels(tmp_path):
    store = tmp_path / "j.sqlite"
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 a 1 3 r\n1 Q0 b 2 2 r\n1 Q0 c 3 2 r\n1 Q0 d 4 1 r\n2 Q0 x 1 5 r\n")
    labels = tmp_path / "l.qrels"
    labels.write_text("1 0 a 1\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("2 0 x 0\n")
    assert run_cli("pool", "add", "--store", str(store), str(labels))[0] == 0
    # depth 3 under trec_eval's ties: a(3), then c before b (score 2 tie, docno descending)
    code, out, _ = run_cli("pool", "todo", "--store", str(store), str(run), "--depth", "3")
    assert (code, out) == (0, "1\tb\n1\tc\n2\tx\n")
    code, out, _ = run_cli("pool", "todo", "--store", str(store), str(run), "--depth", "2", "--qrels", str(qrels),
                           "--format", "json")
    doc = json.loads(out)
    assert doc["pairs"] == [{"topic": "1", "doc": "c"}]
    assert (doc["pool"], doc["pool_pairs"], doc["stored"], doc["todo"]) == (
        "pool|depth=2|dups=error|self_hits=keep|sim=float32|ties=docno-desc", 3, 1, 1)


# ------------------------------------------------------------------ hostile stores and imports
def test_label_too_large_for_sqlite_names_file_and_line(tmp_path):
    big = tmp_path / "big.jsonl"
    big.write_text('{"topic": "1", "doc": "d1", "label": 1}\n{"topic": "1", "doc": "d2", "label": 9223372036854775808}\n')
    store = tmp_path / "j.sqlite"
    code, out, err = run_cli("pool", "add", "--store", str(store), str(big))
    assert code == 2 and out == ""
    assert err == (f"auditeval: error: {big}:2: label 9223372036854775808 is out of range "
                   "(a 64-bit integer: -9223372036854775808 .. 9223372036854775807)\n")
    q = tmp_path / "big.qrels"
    q.write_text("1 0 d1 1\n1 0 d2 9223372036854775808\n")
    code, _, err = run_cli("pool", "add", "--store", str(store), str(q))
    assert code == 2 and err == f"auditeval: error: {q}:2: relevance grade is out of range: '9223372036854775808'\n"
    with JudgmentStore(store, create=True) as s, pytest.raises(Exception) as exc:
        s.add(Labels(["1"], ["d1"], [-(2**63) - 1], ["human"], [None]), "library")
    assert "label -9223372036854775809 is out of range" in str(exc.value) and str(store) in str(exc.value)


def test_reading_commands_refuse_a_missing_store(tmp_path):
    typo = tmp_path / "typo.sqlite"
    run = tmp_path / "r.txt"
    run.write_text("1 Q0 d1 1 1.0 r\n")
    for argv in (["pool", "qrels", "--store", str(typo)], ["pool", "todo", "--store", str(typo), str(run)]):
        code, out, err = run_cli(*argv)
        assert (code, out) == (2, "")
        assert err == f"auditeval: error: {typo}: no judgment store there (pool add or pool judge creates one)\n"
        assert not typo.exists()
    empty = tmp_path / "empty.sqlite"
    empty.write_bytes(b"")
    code, _, err = run_cli("pool", "qrels", "--store", str(empty))
    assert code == 2 and "not a judgment store (it lacks the table(s) batches, judgments, revisions" in err


def test_notes_once_and_wrapped(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    runs = []
    for name in ("a", "b"):
        Path(f"{name}.txt").write_text(f"# comment\n1 Q0 d1 1 1.0 {name}\n")
        runs.append(f"{name}.txt")
    code, _, err = run_cli("pool", "stats", *runs, "--width", "60")
    assert code == 0
    lines = err.splitlines()
    assert max(len(x) for x in lines) <= 60 and len(lines) == 4, err
    starts = [x for x in lines if x.startswith("auditeval: note:")]
    assert len(starts) == 2  # one per run, not twice
    assert all(x.startswith("    ") for x in lines if not x.startswith("auditeval: note:"))
    joined = " ".join(" ".join(lines).split())
    assert joined.count("skipped 1 comment line(s) starting with '#'") == 2
