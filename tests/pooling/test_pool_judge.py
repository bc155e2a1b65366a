"""The judge hook: the simulated judge, retries, cost accounting, and resumption after a
failure without judging any stored pair again."""

from __future__ import annotations

import hashlib
import json
import textwrap

import pytest
from cli_helpers import run_cli
from paths import REPO

from auditeval.pooling.judge import SimulatedJudge
from auditeval.pooling.store import JudgmentStore

TOPICS, DOCS = 5, 30


@pytest.fixture()
def world(tmp_path, monkeypatch):
    """Three runs over 5 topics (distinct scores), qrels for every 4th doc, and a judge module."""
    runs = []
    for r in range(3):
        p = tmp_path / f"run{r}.txt"
        p.write_text("".join(f"{t} Q0 d{(d * (r + 1)) % DOCS} {d + 1} {100 - d} r{r}\n"
                             for t in range(TOPICS) for d in range(DOCS)))
        runs.append(str(p))
    q = tmp_path / "qrels.txt"
    q.write_text("".join(f"{t} 0 d{d} {1 + d % 2}\n" for t in range(TOPICS) for d in range(0, DOCS, 4)))
    (tmp_path / "judges_for_test.py").write_text(textwrap.dedent(f"""
        from auditeval.pooling.judge import SimulatedJudge
        ASKED = []          # every pair sent to a judge, in call order
        CALLS = [0]
        truth = SimulatedJudge({str(q)!r})

        def failing(pairs):
            CALLS[0] += 1
            if CALLS[0] >= 4:
                raise RuntimeError("judge service down")
            ASKED.extend(pairs)
            return {{"labels": truth(pairs), "input_tokens": 10 * len(pairs), "output_tokens": len(pairs)}}

        def healthy(pairs):
            CALLS[0] += 1
            ASKED.extend(pairs)
            return truth(pairs)

        RACE = {{"store": None, "pairs": []}}
        def racing(pairs):  # first call: another writer labels every other pool pair meanwhile
            CALLS[0] += 1
            ASKED.extend(pairs)
            if CALLS[0] == 1:
                from auditeval.pooling.store import JudgmentStore, labels_from_pairs
                with JudgmentStore(RACE["store"]) as other:
                    rest = [(t, d, 0) for t, d in RACE["pairs"] if (t, d) not in set(pairs)]
                    other.add(labels_from_pairs(rest, "other"), "another process")
            return truth(pairs)

        FLAKY = set()
        def flaky(pairs):
            CALLS[0] += 1
            key = tuple(pairs)
            if key not in FLAKY:  # every batch fails once, then succeeds
                FLAKY.add(key)
                raise TimeoutError("try again")
            return truth(pairs)
    """))
    monkeypatch.syspath_prepend(str(tmp_path))
    import importlib

    import judges_for_test

    importlib.reload(judges_for_test)
    return {"runs": runs, "qrels": str(q), "store": str(tmp_path / "j.sqlite"), "mod": judges_for_test}


def _pool_pairs(runs: list[str], k: int) -> set:
    """Depth-k pool of the fixture runs, by hand: scores are distinct, rank order is file order."""
    out = set()
    for path in runs:
        seen: dict = {}
        for line in open(path):
            t, _, d, *_ = line.split()
            if seen.setdefault(t, 0) < k:
                out.add((t, d))
                seen[t] += 1
    return out


def test_failure_then_resume_judges_nothing_twice(world):
    mod, store = world["mod"], world["store"]
    pool = _pool_pairs(world["runs"], 10)
    args = ["pool", "judge", "--store", store, *world["runs"], "--depth", "10", "--batch-size", "7",
            "--workers", "1", "--retries", "2", "--backoff", "0", "--format", "json"]
    code, out, _ = run_cli(*args, "--judge", "judges_for_test:failing")
    doc = json.loads(out)
    assert code == 1
    assert doc["cost"]["pairs_todo"] == len(pool)
    # calls 1-3 succeed (7 pairs each), call 4 fails and is retried twice: 6 calls in all
    assert (doc["cost"]["calls"], doc["cost"]["retries"], doc["cost"]["failed_batches"]) == (6, 2, 1)
    assert (doc["cost"]["pairs_judged"], doc["cost"]["input_tokens"], doc["cost"]["output_tokens"]) == (21, 210, 21)
    assert "rerun the same command to resume" in doc["notes"][-1]
    with JudgmentStore(store) as s:
        stored_first = {(t, d) for t, d, _, _ in s.labels()}
    assert len(stored_first) == 21 and stored_first == set(mod.ASKED)
    mod.ASKED.clear()
    mod.CALLS[0] = 0
    code, out, _ = run_cli(*args, "--judge", "judges_for_test:healthy")
    doc = json.loads(out)
    assert code == 0
    remaining = len(pool) - 21
    assert doc["stored"] == 21 and doc["cost"]["pairs_todo"] == remaining
    assert doc["cost"]["calls"] == mod.CALLS[0] == -(-remaining // 7)
    assert doc["cost"]["input_tokens"] is None  # this judge reports no tokens
    assert not (set(mod.ASKED) & stored_first)  # nothing stored was judged again
    assert len(mod.ASKED) == len(set(mod.ASKED)) == remaining
    with JudgmentStore(store) as s:
        assert {(t, d) for t, d, _, _ in s.labels()} == pool
    code, out, _ = run_cli("pool", "todo", "--store", store, *world["runs"], "--depth", "10")
    assert (code, out) == (0, "")


def test_retries_with_backoff_and_concurrency(world):
    mod = world["mod"]
    pool = _pool_pairs(world["runs"], 4)
    code, out, err = run_cli("pool", "judge", "--judge", "judges_for_test:flaky", "--store", world["store"], *world["runs"],
                             "--depth", "4", "--batch-size", "5", "--workers", "3", "--backoff", "0", "--format", "json")
    assert code == 0, err
    batches = -(-len(pool) // 5)
    cost = json.loads(out)["cost"]
    assert (cost["batches"], cost["calls"], cost["retries"], cost["pairs_judged"]) == (batches, 2 * batches, batches, len(pool))
    assert mod.CALLS[0] == 2 * batches


def test_simulated_judge_via_cli_reproduces_qrels(world):
    code, out, err = run_cli("pool", "judge", "--judge", "auditeval.pooling.judge:simulated", "--judge-arg",
                             f"qrels={world['qrels']}", "--store", world["store"], *world["runs"], "--depth", "3")
    assert code == 0, err
    assert "not reported" in out and max(len(x) for x in out.splitlines()) <= 100
    code, out, _ = run_cli("pool", "qrels", "--store", world["store"], "--format", "json")
    labels = {(r["topic"], r["doc"]): r["label"] for r in json.loads(out)["qrels"]}
    assert {r["source"] for r in json.loads(out)["qrels"]} == {f"simulated(qrels={world['qrels']},error=0,seed=0)"}
    truth = {}
    for line in open(world["qrels"]):
        t, _, d, g = line.split()
        truth[(t, d)] = int(g)
    assert labels == {p: truth.get(p, 0) for p in _pool_pairs(world["runs"], 3)}


def test_simulated_judge_error_rate_is_per_pair_and_deterministic(tmp_path):
    q = tmp_path / "q.txt"
    q.write_text("".join(f"1 0 d{i} {i % 3}\n" for i in range(20000)))
    pairs = [("1", f"d{i}") for i in range(20000)]
    j = SimulatedJudge(str(q), error=0.25, seed=11)
    labels = j(pairs)
    assert j(pairs[::-1]) == labels[::-1]  # independent of batch order
    wrong = [i for i, lab in enumerate(labels) if lab != i % 3]
    # the rule, recomputed here: a pair is wrong when its hash's first 8 bytes / 2^64 < 0.25
    expect = [i for i in range(20000)
              if int.from_bytes(hashlib.blake2b(f"11\x1f1\x1fd{i}".encode(), digest_size=16).digest()[:8], "big") / 2**64 < 0.25]
    assert wrong == expect and 0.24 < len(wrong) / 20000 < 0.26
    assert SimulatedJudge(str(q), error=0.0)(pairs) == [i % 3 for i in range(20000)]
    assert SimulatedJudge(str(q), error=0.25, seed=12)(pairs) != labels


def test_judge_errors_are_reported(world):
    code, _, err = run_cli("pool", "judge", "--judge", "no_such_module_x:f", "--store", world["store"], *world["runs"])
    assert code == 2 and "cannot import 'no_such_module_x'" in err
    code, _, err = run_cli("pool", "judge", "--judge", "judges_for_test", "--store", world["store"], *world["runs"])
    assert code == 2 and "needs MODULE:CALLABLE" in err


def test_pairs_labelled_meanwhile_by_another_writer_are_not_sent(world):
    mod = world["mod"]
    pool = sorted(_pool_pairs(world["runs"], 6))
    mod.RACE.update(store=world["store"], pairs=pool)
    code, out, err = run_cli("pool", "judge", "--judge", "judges_for_test:racing", "--store", world["store"], *world["runs"],
                             "--depth", "6", "--batch-size", "5", "--workers", "1", "--format", "json")
    assert code == 0, err
    cost = json.loads(out)["cost"]
    # batches 1 and 2 were checked and queued before the other writer stored the rest
    assert len(mod.ASKED) == 10 and cost["calls"] == 2
    assert cost["already_stored"] == len(pool) - 10 and cost["pairs_judged"] == 10
    with JudgmentStore(world["store"]) as s:
        by_source = dict(s.sources())
    # batch 2's pairs were labelled by the other writer first: frozen, its labels stay
    assert by_source == {"judges_for_test:racing": 5, "other": len(pool) - 5}


# ------------------------------------------------------------------ hostile hooks
HOOKS = '''
import os, time
MARK = os.environ.get("JUDGE_MARK", "")

def hang(pairs):
    if MARK:
        open(MARK, "a").write("called\\n")
    time.sleep(1000)

def exits(pairs):
    raise SystemExit(3)

def labelz(pairs):
    return {"labelz": [1] * len(pairs)}

def huge(pairs):
    return [2**63] * len(pairs)
'''


def _judge_cli(tmp_path, hook: str, *extra: str, env: dict | None = None, **popen):
    import os
    import subprocess
    import sys

    (tmp_path / "hooks_for_test.py").write_text(HOOKS)
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{t} Q0 d{d} {d + 1} {10 - d} r\n" for t in (1, 2) for d in range(3)))
    root = REPO
    argv = [sys.executable, "-m", "auditeval.cli.main", "pool", "judge", "--judge", f"hooks_for_test:{hook}",
            "--store", str(tmp_path / "j.sqlite"), str(run), "--depth", "3", "--batch-size", "3", *extra]
    full_env = {**os.environ, "PYTHONPATH": f"{root}{os.pathsep}{tmp_path}", **(env or {})}
    return subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=full_env, **popen)


def test_hanging_hook_is_abandoned_at_the_timeout_and_retried(tmp_path):
    import time

    t0 = time.monotonic()
    p = _judge_cli(tmp_path, "hang", "--timeout", "0.5", "--retries", "1", "--backoff", "0", "--workers", "2",
                   "--format", "json")
    out, err = p.communicate(timeout=60)
    took = time.monotonic() - t0
    assert p.returncode == 1, err
    assert "Traceback" not in err
    cost = json.loads(out)["cost"]
    # 2 batches (3 pairs each, one per topic), each called twice (1 retry), every call timed out
    assert (cost["calls"], cost["retries"], cost["timed_out"], cost["failed_batches"], cost["pairs_judged"]) == (4, 2, 4, 2, 0)
    assert "did not answer within 0.5 s" in cost["errors"][0] and "batch 1 (3 pair(s) from topic '1'" in cost["errors"][0]
    assert took < 20  # not 1000 s: the hung threads are abandoned, the process exits


def test_hook_raising_system_exit_is_reported_not_the_exit_status(tmp_path):
    p = _judge_cli(tmp_path, "exits", "--retries", "2", "--backoff", "0", "--workers", "1")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and "Traceback" not in err
    note = " ".join(err.split())
    assert "1 batch(es) failed after 2 retries each (batch 1 (3 pair(s) from topic '1' doc 'd0'): SystemExit: 3)" in note
    assert "0 of 6 pair(s) judged and stored" in note


def test_reply_without_labels_names_its_keys(tmp_path):
    p = _judge_cli(tmp_path, "labelz", "--retries", "0", "--workers", "1")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and "Traceback" not in err
    note = " ".join(err.split())
    assert "got a mapping without 'labels' (keys 'labelz'): {'labelz': [1, 1, 1]}" in note
    assert "NoneType" not in note


def test_label_too_large_for_the_store_is_refused(tmp_path):
    p = _judge_cli(tmp_path, "huge", "--retries", "0", "--workers", "1")
    _, err = p.communicate(timeout=60)
    assert p.returncode == 1 and "Traceback" not in err
    assert "judge returned label 9223372036854775808 is out of range" in " ".join(err.split())


def test_ctrl_c_stops_hung_workers_within_a_second_and_claims_no_retries(tmp_path):
    import signal
    import time

    mark = tmp_path / "called"
    p = _judge_cli(tmp_path, "hang", "--workers", "2", "--retries", "3", env={"JUDGE_MARK": str(mark)})
    deadline = time.monotonic() + 30
    while (not mark.exists() or len(mark.read_text().splitlines()) < 2) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert mark.exists(), "the hook was never called"
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=30)
    assert time.monotonic() - t0 < 1.5
    assert p.returncode == 130 and "Traceback" not in err
    note = " ".join(err.split())
    assert ("interrupted (Ctrl-C): nothing more sent or retried, 2 call(s) in flight abandoned; "
            "0 of 6 pair(s) judged and stored") in note
    assert "retries" not in note
    assert len(mark.read_text().splitlines()) == 2  # no retry was started after Ctrl-C
