"""``pool judge --judge openai`` against a chat-completions server on 127.0.0.1 that the tests
start and stop (no network): labels, usage and cost, model and prompt hash in the store, 429
Retry-After honoured, malformed replies retried then recorded as failed, a hung request
timed out, resumption after ``kill -9``, the key never shown, the schema-1 migration."""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
import sqlite3
import subprocess
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from cli_helpers import run_cli
from paths import REPO

from auditeval.pooling import llm_judge as lj
from auditeval.pooling.store import JudgmentStore

pytestmark = pytest.mark.slow

KEY = "sk-test-SECRET-7f3a9c"
TOPICS, DOCS = ("1", "2", "3"), tuple(f"d{i}" for i in range(5))


def grade(t: str, d: str) -> int:
    """The server's answer, by hand: (topic + doc number) mod 4."""
    return (int(t) + int(d[1:])) % 4


class Server:
    """Answers POST /v1/chat/completions like the protocol; ``script[(topic, doc)]`` lists what
    the n-th request for that pair gets ("429", "500", "hang", "nograde", "grade7", "final7",
    "echo", "401", "notjson", "choices03", "choices_same"); beyond the list, or unlisted: the grade. Records every request."""

    def __init__(self, script: dict | None = None, delay: float = 0.0):
        self.script = script or {}
        self.delay = delay
        self.requests: list[dict] = []
        self.lock = threading.Lock()
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *a):  # quiet
                pass

            def do_POST(self):
                owner.handle(self)

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.httpd.handle_error = lambda *a: None  # a client gone after its timeout
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/v1"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def handle(self, h: BaseHTTPRequestHandler) -> None:
        body = json.loads(h.rfile.read(int(h.headers["Content-Length"])))
        prompt = body["messages"][0]["content"]
        t = re.search(r"TOPIC-(\w+)-TEXT", prompt).group(1)
        d = re.search(r"DOCTEXT-(\w+)\b", prompt).group(1)
        auth = h.headers.get("Authorization")
        with self.lock:
            n = sum(1 for r in self.requests if (r["topic"], r["doc"]) == (t, d))
            rec = {"topic": t, "doc": d, "arrived": time.monotonic(), "auth": auth, "prompt": prompt,
                   "model": body["model"], "path": h.path}
            self.requests.append(rec)
        steps = self.script.get((t, d), [])
        what = steps[n] if n < len(steps) else "ok"
        if self.delay:
            time.sleep(self.delay)
        if h.path != "/v1/chat/completions":
            return self.send(h, 404, {"error": "no such path"})
        if what == "429":
            rec["answered"] = time.monotonic()
            return self.send(h, 429, {"error": "slow down"}, {"Retry-After": "0.1"})
        if what == "500":
            return self.send(h, 500, {"error": "internal"})
        if what == "401":
            return self.send(h, 401, {"error": f"invalid key: {auth}"})
        if what == "hang":
            time.sleep(3.0)  # beyond the 1 s timeout
        if what == "notjson":  # a 200 whose body is no chat completion (a proxy's page)
            return self.send(h, 200, None, raw=b"<html>upstream busy</html>")
        if what in ("choices03", "choices_same"):  # n > 1 choices: grades 0 and 3, or the grade twice
            grades = (0, 3) if what == "choices03" else (grade(t, d), grade(t, d))
            return self.send(h, 200, {"choices": [{"message": {"role": "assistant", "content": f"##final score: {g}"}}
                                                  for g in grades], "usage": {"prompt_tokens": 100, "completion_tokens": 5}})
        content = {"ok": f"The passage matches.\n##final score: {grade(t, d)}", "nograde": "It is relevant.",
                   "grade7": "grade 7", "final7": "##final score: 7 " + "x" * 300,
                   "echo": f"my key is {auth}"}.get(what, f"##final score: {grade(t, d)}")
        done = what in ("ok", "hang")
        self.send(h, 200, {"choices": [{"message": {"role": "assistant", "content": content}}],
                           "usage": {"prompt_tokens": 100, "completion_tokens": 7 if done else 3}})

    @staticmethod
    def send(h, status: int, doc: dict | None, headers: dict | None = None, raw: bytes | None = None) -> None:
        data = raw if raw is not None else json.dumps(doc).encode()
        try:
            h.send_response(status)
            for k, v in (headers or {}).items():
                h.send_header(k, v)
            h.send_header("Content-Type", "application/json")
            h.send_header("Content-Length", str(len(data)))
            h.end_headers()
            h.wfile.write(data)
        except OSError:
            pass

    def stop(self) -> None:
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture()
def world(tmp_path, monkeypatch):
    run = tmp_path / "run.txt"
    run.write_text("".join(f"{t} Q0 {d} {i + 1} {10 - i} r\n" for t in TOPICS for i, d in enumerate(DOCS)))
    topics = tmp_path / "topics.tsv"
    topics.write_text("".join(f"{t}\tTOPIC-{t}-TEXT what is it\n" for t in TOPICS))
    docs = tmp_path / "docs.jsonl"
    docs.write_text("".join(json.dumps({"id": d, "text": f"DOCTEXT-{d} some words"}) + "\n" for d in DOCS))
    monkeypatch.setenv("TEST_LLM_KEY", KEY)
    for v in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
        monkeypatch.delenv(v, raising=False)
    servers: list[Server] = []

    def serve(script=None, delay=0.0) -> Server:
        servers.append(Server(script, delay))
        return servers[-1]

    yield {"tmp": tmp_path, "run": str(run), "topics": str(topics), "docs": str(docs),
           "store": str(tmp_path / "j.sqlite"), "serve": serve}
    for s in servers:
        s.stop()


def _argv(w, server, *extra):
    return ["pool", "judge", "--judge", "openai", "--judge-arg", "model=test-model", "--judge-arg",
            f"base_url={server.url}", "--judge-arg", "key_env=TEST_LLM_KEY", "--topics", w["topics"],
            "--docs", w["docs"], "--store", w["store"], w["run"], "--depth", "5", "--format", "json", *extra]


def _store_bytes(w) -> bytes:
    return b"".join(p.read_bytes() for p in Path(w["tmp"]).glob("j.sqlite*"))


UMBRELA_SHA = hashlib.sha256(lj.UMBRELA_PROMPT.encode()).hexdigest()


def test_judge_fills_the_store_with_retries_costs_and_failures(world):
    script = {("1", "d1"): ["429"], ("1", "d2"): ["500"], ("2", "d0"): ["nograde", "grade7", "final7"],
              ("2", "d3"): ["hang"], ("3", "d4"): ["echo"] * 3}
    srv = world["serve"](script)
    args = _argv(world, srv, "--workers", "3", "--retries", "2", "--backoff", "0.01", "--timeout", "1",
                 "--judge-arg", "price_in=2", "--judge-arg", "price_out=10")
    code, out, err = run_cli(*args)
    doc = json.loads(out)
    assert code == 1, err  # two pairs hold no label
    c = doc["cost"]
    # 10 plain pairs x1, 429/500/hang pairs x2, the two malformed pairs x3 (1 + 2 retries) = 22 requests
    assert len(srv.requests) == c["calls"] == 22 and c["retries"] == 22 - 15
    assert (c["rate_limited"], c["server_errors"], c["timed_out"], c["malformed"]) == (1, 1, 1, 6)
    assert (c["pairs_judged"], c["failed_pairs"], c["unsent_pairs"]) == (13, 2, 0)
    # usage of every 200 reply read: 13 graded (100 + 7) and 6 malformed (100 + 3); the hung one timed out
    assert (c["input_tokens"], c["output_tokens"]) == (1900, 13 * 7 + 6 * 3)
    assert doc["llm"]["cost_usd"] == pytest.approx(1900 * 2 / 1e6 + 109 * 10 / 1e6, abs=1e-12)
    assert doc["llm"]["prompt_sha256"] == UMBRELA_SHA and doc["llm"]["model"] == "test-model"
    assert doc["llm"]["by_source"] == [{"model": "test-model", "prompt_sha256": UMBRELA_SHA, "labelled": 13, "failed": 2,
                                        "prompt_tokens": 1900, "completion_tokens": 109,
                                        "cost_usd": pytest.approx(0.00489, abs=1e-12)}]
    # the 429 was honoured: the retry came at least Retry-After (0.1 s) after the 429 was sent
    tries = [r for r in srv.requests if (r["topic"], r["doc"]) == ("1", "d1")]
    assert len(tries) == 2 and tries[1]["arrived"] - tries[0]["answered"] >= 0.1
    # the protocol: the UMBRELA prompt with the texts put in, the key as a bearer token
    r0 = next(r for r in srv.requests if (r["topic"], r["doc"]) == ("1", "d0"))
    assert r0["prompt"] == lj.UMBRELA_PROMPT.replace("{query}", "TOPIC-1-TEXT what is it").replace(
        "{passage}", "DOCTEXT-d0 some words")
    assert r0["path"] == "/v1/chat/completions" and r0["model"] == "test-model" and r0["auth"] == f"Bearer {KEY}"
    with JudgmentStore(world["store"]) as s:
        labels = {(t, d): lab for t, d, lab, _ in s.labels()}
        rows = {(r["topic"], r["doc"]): r for r in s.llm_records()}
    failed = {("2", "d0"), ("3", "d4")}
    assert labels == {(t, d): grade(t, d) for t in TOPICS for d in DOCS if (t, d) not in failed}
    assert len(rows) == 15 and {(r["model"], r["prompt_sha256"]) for r in rows.values()} == {("test-model", UMBRELA_SHA)}
    bad = rows[("2", "d0")]
    assert bad["label"] is None and bad["attempts"] == 3 and (bad["prompt_tokens"], bad["completion_tokens"]) == (300, 9)
    assert bad["reply"] == ("##final score: 7 " + "x" * 300)[:200] and "not a grade in 0-3" in bad["reason"]
    assert rows[("1", "d1")]["attempts"] == 2 and rows[("1", "d1")]["label"] == grade("1", "d1")
    assert rows[("3", "d4")]["reply"] == "my key is Bearer [key redacted]"
    assert all(r["time"] and r["batch"] for r in rows.values())
    assert any("2 pair(s) recorded as failed" in n for n in doc["notes"])
    assert KEY not in out + err and KEY.encode() not in _store_bytes(world)

    # a rerun sends nothing: every pair holds a label or a failure of this model + prompt
    srv.requests.clear()
    code, out, err = run_cli(*args)
    assert code == 0 and srv.requests == [] and json.loads(out)["cost"]["skipped_failed"] == 2
    # --retry-failed sends exactly the two failed pairs again (the server now grades them)
    srv.script.clear()
    code, out, err = run_cli(*args, "--retry-failed")
    assert code == 0, err
    assert sorted((r["topic"], r["doc"]) for r in srv.requests) == sorted(failed)
    with JudgmentStore(world["store"]) as s:
        assert {(t, d): lab for t, d, lab, _ in s.labels()} == {(t, d): grade(t, d) for t in TOPICS for d in DOCS}
    code, out, _ = run_cli(*args, "--format", "text")
    assert code == 0 and "model test-model, prompt sha256 " + UMBRELA_SHA[:16] in out and KEY not in out


def test_resume_after_kill_sends_no_stored_pair(world):
    srv = world["serve"](delay=0.15)
    root = REPO
    env = {k: v for k, v in os.environ.items() if "proxy" not in k.lower()}
    env["PYTHONPATH"] = str(root)
    p = subprocess.Popen([sys.executable, "-m", "auditeval.cli.main", *_argv(world, srv, "--workers", "1")],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    deadline = time.monotonic() + 20
    while len(srv.requests) < 5 and time.monotonic() < deadline:
        time.sleep(0.02)
    p.kill()  # SIGKILL
    p.communicate(timeout=10)
    assert p.returncode == -9
    with JudgmentStore(world["store"]) as s:
        stored = {(t, d) for t, d, _, _ in s.labels()}
    assert 1 <= len(stored) < 15
    srv.requests.clear()
    srv.delay = 0.0
    code, out, err = run_cli(*_argv(world, srv, "--workers", "2"))
    assert code == 0, err
    asked = [(r["topic"], r["doc"]) for r in srv.requests]
    assert not set(asked) & stored and len(asked) == len(set(asked)) == 15 - len(stored)
    with JudgmentStore(world["store"]) as s:
        assert {(t, d): lab for t, d, lab, _ in s.labels()} == {(t, d): grade(t, d) for t in TOPICS for d in DOCS}


def test_the_key_never_appears_even_when_the_server_echoes_it(world):
    srv = world["serve"]({(t, d): ["401"] * 9 for t in TOPICS for d in DOCS})
    code, out, err = run_cli(*_argv(world, srv, "--workers", "2"))
    doc = json.loads(out)
    assert code == 1 and 1 <= len(srv.requests) <= 4  # not retried; nothing new sent after it
    assert "HTTP 401" in doc["notes"][-1] and "[key redacted]" in doc["notes"][-1]
    assert doc["cost"]["pairs_judged"] == 0 and doc["cost"]["retries"] == 0
    assert KEY not in out + err and KEY.encode() not in _store_bytes(world)
    code, out, err = run_cli(*_argv(world, srv), "--judge-arg", f"key={KEY}")
    assert code == 2 and "environment variable only" in err and KEY not in out + err
    code, out, err = run_cli(*[a.replace("TEST_LLM_KEY", "NO_SUCH_VAR_X") for a in _argv(world, srv)])
    assert code == 2 and "NO_SUCH_VAR_X" in err


def test_custom_prompt_tsv_docs_and_schema1_migration(world):
    tmp = world["tmp"]
    # a store made before schema 2 (the three original tables), holding one human label
    db = sqlite3.connect(world["store"])
    db.executescript("""
        CREATE TABLE judgments (topic TEXT NOT NULL, doc TEXT NOT NULL, label INTEGER NOT NULL, source TEXT NOT NULL,
            time TEXT NOT NULL, batch INTEGER NOT NULL, PRIMARY KEY (topic, doc)) WITHOUT ROWID;
        CREATE TABLE revisions (topic TEXT NOT NULL, doc TEXT NOT NULL, label INTEGER NOT NULL, source TEXT NOT NULL,
            time TEXT NOT NULL, batch INTEGER NOT NULL, revised_time TEXT NOT NULL, revised_batch INTEGER NOT NULL);
        CREATE TABLE batches (id INTEGER PRIMARY KEY, time TEXT NOT NULL, origin TEXT NOT NULL, source TEXT NOT NULL,
            lines INTEGER NOT NULL, added INTEGER NOT NULL DEFAULT 0, same INTEGER NOT NULL DEFAULT 0,
            kept INTEGER NOT NULL DEFAULT 0, revised INTEGER NOT NULL DEFAULT 0,
            calls INTEGER, input_tokens INTEGER, output_tokens INTEGER);
        INSERT INTO batches (id, time, origin, source, lines, added) VALUES (1, 't0', 'pool add', 'human', 1, 1);
        INSERT INTO judgments VALUES ('1', 'd0', 3, 'human', 't0', 1);
    """)
    db.commit()
    db.close()
    with JudgmentStore(world["store"]) as s:  # opened to read: left as it is
        assert s.llm_records() == [] and s.labels() == [("1", "d0", 3, "human")]
    docs = tmp / "docs.tsv"
    docs.write_text("".join(f"{d}\tDOCTEXT-{d} tab text\n" for d in DOCS if d != "d4"))
    prompt = tmp / "prompt.txt"
    template = "Q={query} P={passage} {other braces} answer as ##final score: N"
    prompt.write_text(template)
    srv = world["serve"]()
    argv = [a if a != world["docs"] else str(docs) for a in _argv(world, srv, "--prompt", str(prompt))]
    code, out, err = run_cli(*argv)
    doc = json.loads(out)
    assert code == 0, err
    sha = hashlib.sha256(template.encode()).hexdigest()
    assert doc["llm"]["prompt_sha256"] == sha and doc["source"] == f"test-model@prompt:{sha[:12]}"
    assert any("migrated from schema 1 to 2" in n for n in doc["notes"])
    assert any("3 pair(s) not sent: no text for topic(s) none" in n and "'d4'" in n for n in doc["notes"])
    assert not any("TEST_LLM_KEY" in n for n in doc["notes"])  # the key is set: no note
    asked = {(r["topic"], r["doc"]) for r in srv.requests}
    assert ("1", "d0") not in asked and len(asked) == 15 - 1 - 3  # the human label, the three d4 pairs
    assert next(iter(srv.requests))["prompt"].startswith("Q=TOPIC-")
    assert "{other braces}" in srv.requests[0]["prompt"]
    with JudgmentStore(world["store"]) as s:
        assert s.history("1", "d0") == [(3, "human", "t0", 1)]
        assert {r["prompt_sha256"] for r in s.llm_records()} == {sha}
        assert s.db.execute("PRAGMA user_version").fetchone()[0] == 2
        assert {b["model"] for b in s.batches()} == {None, "test-model"}
    prompt.write_text("no placeholders here")
    code, _, err = run_cli(*argv)
    assert code == 2 and "lacks the placeholder(s) {query} and {passage}" in err


@pytest.mark.parametrize("reply, expect", [
    ("##final score: 2", 2), ("reasoning...\n##Final Score : 0\n", 0), ("##final score: 3 ##final score: 3", 3),
    ("grade 7", "no '##final score: N'"), ("##final score: 7", "7 is not a grade"),
    ("##final score: 2.5", "2.5 is not a grade"), ("##final score: 1\n##final score: 2", "different final scores"),
    ("", "no '##final score"), ("final score: 2", "no '##final score"), ("##final score: -1", "-1 is not a grade"),
])
def test_parse_grade_is_strict(reply, expect):
    if isinstance(expect, int):
        assert lj.parse_grade(reply) == expect
    else:
        with pytest.raises(lj.GradeError, match=re.escape(expect)):
            lj.parse_grade(reply)


def test_backoff_jitter_is_seeded_per_pair(world):
    srv = world["serve"]({("1", "d0"): ["500", "500", "nograde"]})

    class Waits(threading.Event):
        def __init__(self):
            super().__init__()
            self.seen: list[float] = []

        def wait(self, timeout=None):
            self.seen.append(timeout)
            return False

    config = lj.OpenAIConfig.from_args({"model": "m", "base_url": srv.url, "seed": "7"})
    texts = ({"1": "TOPIC-1-TEXT"}, {"d0": "DOCTEXT-d0"})
    waits = Waits()
    judge = lj.ChatJudge(config, lj.UMBRELA_PROMPT, texts, retries=4, backoff=2.0, timeout=5, key=None, stop=waits)
    res = judge.judge("1", "d0")
    judge.close()
    assert (res.kind, res.label, res.attempts, res.server_errors, res.malformed) == ("label", grade("1", "d0"), 4, 2, 1)
    rng = random.Random("7\x1f1\x1fd0")  # equal jitter, by hand: 2 * 2**(k-1) * (1 + u) / 2
    assert waits.seen == [2.0 * 2 ** (k - 1) * (1 + rng.random()) / 2 for k in (1, 2, 3)]
    assert all(r["auth"] is None for r in srv.requests)  # no key: no Authorization header


def test_choices_that_disagree_and_replies_that_are_not_json_are_recorded_failures(world):
    """A reply with two choices graded 0 and 3 is no grade (never the first choice): retried, then
    recorded as failed, and a note says why; two choices with the same grade are that grade. A 200
    reply that is not JSON counts as malformed (the cost line's count), retried, then recorded."""
    script = {("1", "d0"): ["choices03"] * 2, ("1", "d1"): ["choices_same"], ("2", "d0"): ["notjson"] * 2,
              ("2", "d1"): ["notjson"]}
    srv = world["serve"](script)
    code, out, err = run_cli(*_argv(world, srv, "--workers", "2", "--retries", "1", "--backoff", "0.01"))
    doc = json.loads(out)
    assert code == 1, err
    c = doc["cost"]
    # (1, d0) and (2, d0): 2 malformed replies each; (2, d1): one, then its grade
    assert (c["malformed"], c["failed_pairs"], c["conflicting_pairs"], c["pairs_judged"]) == (5, 2, 1, 13)
    assert c["transport_errors"] == 0
    with JudgmentStore(world["store"]) as s:
        labels = {(t, d): lab for t, d, lab, _ in s.labels()}
        rows = {(r["topic"], r["doc"]): r for r in s.llm_records()}
    assert ("1", "d0") not in labels and labels[("1", "d1")] == grade("1", "d1") and labels[("2", "d1")] == grade("2", "d1")
    conflict = rows[("1", "d0")]
    assert conflict["label"] is None and conflict["reason"] == "the reply's 2 choices disagree: grades 0, 3"
    assert conflict["reply"] == "[choice 1] ##final score: 0\n[choice 2] ##final score: 3"
    garbage = rows[("2", "d0")]
    assert garbage["label"] is None and garbage["reply"] == "<html>upstream busy</html>"
    assert garbage["reason"].startswith("not a chat completion reply")
    assert any(n.startswith("1 of the failed pair(s): the reply's choices gave different grades, so no grade was "
                            "taken (not the first choice); first: topic '1' doc 'd0'") for n in doc["notes"])
    text = " ".join(run_cli(*_argv(world, srv, "--retry-failed", "--format", "text", "--width", "120"))[1].split())
    assert "malformed 0, failed 0" in text  # the server now grades both (beyond their scripts)
