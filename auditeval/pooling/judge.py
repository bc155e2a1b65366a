"""The judge hook: label the pairs a pool still needs with a user-supplied judge.

A judge is any callable ``judge(pairs) -> reply`` where ``pairs`` is a list of
``(topic, doc)`` tuples and ``reply`` is either a list of integer labels (same length and
order) or a mapping ``{"labels": [...], "input_tokens": n, "output_tokens": m}`` (token
counts optional: an LLM client reports them, they are summed into the cost). ``--judge
MODULE:CALLABLE`` names it; with ``--judge-arg KEY=VALUE`` options the callable is a factory,
called once as ``CALLABLE(KEY=VALUE, ...)`` (strings) to build the judge. A judge may carry a
``source`` attribute (model name and prompt version) stored with each label.

``--judge openai`` is not a hook but an HTTP client of an OpenAI-compatible chat completions
server, one request per pair, with its own per-request retries and records
(:mod:`auditeval.pooling.llm_judge`).

:func:`run_judge` runs each call in its own daemon thread (at most ``workers`` at once),
stops waiting for a call after ``timeout`` seconds, retries a failing call with exponential
backoff (``backoff * 2**attempt`` seconds), and stores each answered batch in its own
transaction as it arrives, so an interruption loses at most the batches in flight;
rerunning asks only for pairs the store still lacks.

Why threads, not child processes: the judge is any callable (a closure, a client object
holding a connection), which a child process could not receive; a call that hangs cannot be
killed in a thread, so it is *abandoned*: the main thread never blocks on it (it waits in
0.1 s slices, so Ctrl-C and timeouts act at once), its late reply is ignored, and being a
daemon thread it never keeps the process alive at exit (no ``os._exit`` is needed).

:func:`simulated` builds a deterministic judge from a qrels file: the true label, replaced
with probability ``error`` by another label level, decided per pair by a hash of
``(seed, topic, doc)`` so the answer never depends on batching or thread timing.
"""

from __future__ import annotations

import hashlib
import importlib
import itertools
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, TextIO

from auditeval.io.numbers import int64_range_problem
from auditeval.pooling.store import JudgmentStore, Labels
from auditeval.vocab.errors import AuditEvalError


class JudgeError(AuditEvalError):
    """The judge could not be loaded, answered wrongly, or kept failing."""


@dataclass
class JudgeCost:
    """What judging cost: calls made (retries included), tokens when the judge reports them."""

    pairs_todo: int = 0
    pairs_judged: int = 0
    already_stored: int = 0  # labelled by another writer after the to-do list was made
    batches: int = 0
    calls: int = 0
    retries: int = 0
    failed_batches: int = 0
    timed_out: int = 0  # calls abandoned at the timeout (each a failed attempt)
    interrupted: bool = False  # Ctrl-C: nothing more sent or retried
    abandoned: int = 0  # calls in flight at Ctrl-C, left unanswered
    input_tokens: int | None = None
    output_tokens: int | None = None
    seconds: float = 0.0
    errors: list[str] = field(default_factory=list)

    def as_dict(self) -> dict[str, Any]:
        return {k: v for k, v in self.__dict__.items()}


def load_judge(spec: str, args: Mapping[str, str] | None = None) -> Callable:
    """``MODULE:CALLABLE`` -> the judge (a factory when ``args`` are given)."""
    mod, sep, attr = spec.partition(":")
    if not sep or not mod or not attr:
        raise JudgeError(f"--judge needs MODULE:CALLABLE, got {spec!r}")
    try:
        obj: Any = importlib.import_module(mod)
    except ImportError as exc:
        raise JudgeError(f"--judge {spec}: cannot import {mod!r} ({exc})") from None
    for part in attr.split("."):
        if not hasattr(obj, part):
            raise JudgeError(f"--judge {spec}: {mod!r} has no attribute {attr!r}")
        obj = getattr(obj, part)
    if args:
        try:
            obj = obj(**args)
        except (TypeError, ValueError) as exc:
            raise JudgeError(f"--judge {spec}: cannot build the judge from {dict(args)} ({exc})") from None
    if not callable(obj):
        raise JudgeError(f"--judge {spec}: {attr!r} is not callable")
    return obj


def _describe(reply: Any) -> str:
    """What a judge returned, for an error message: its type, a mapping's keys, a short repr."""
    import reprlib

    r = reprlib.Repr()
    r.maxstring = r.maxother = 60
    r.maxlist = r.maxdict = 6
    r.maxlevel = 2
    try:
        short = r.repr(reply)
    except Exception as exc:  # a hostile __repr__
        short = f"<repr failed: {type(exc).__name__}>"
    if isinstance(reply, Mapping):
        keys = ", ".join(repr(k) for k in list(reply)[:8]) + (", ..." if len(reply) > 8 else "")
        return f"a mapping without 'labels' (keys {keys}): {short}"
    return f"{type(reply).__name__} {short}"


def _parse_reply(reply: Any, n: int) -> tuple[list[int], int | None, int | None]:
    tokens_in = tokens_out = None
    whole = reply
    if isinstance(reply, Mapping):
        if "labels" not in reply:
            raise ValueError(f"judge reply must be a list of labels or a mapping with 'labels', got {_describe(reply)}")
        tokens_in, tokens_out = reply.get("input_tokens"), reply.get("output_tokens")
        reply = reply.get("labels")
    if not isinstance(reply, Sequence) or isinstance(reply, str | bytes):
        what = _describe(reply) if whole is reply else f"'labels' holding {_describe(reply)}"
        raise ValueError(f"judge reply must be a list of labels or a mapping with 'labels', got {what}")
    if len(reply) != n:
        raise ValueError(f"judge returned {len(reply)} label(s) for {n} pair(s)")
    labels = []
    for x in reply:
        if isinstance(x, bool) or not isinstance(x, int):
            raise ValueError(f"judge returned a label that is not an integer: {x!r}")
        too_big = int64_range_problem(x, "label")
        if too_big:
            raise ValueError(f"judge returned {too_big}")
        labels.append(int(x))
    for name, v in (("input_tokens", tokens_in), ("output_tokens", tokens_out)):
        if v is not None and (isinstance(v, bool) or not isinstance(v, int) or v < 0):
            raise ValueError(f"judge reply's {name} must be a non-negative integer, got {v!r}")
    return labels, tokens_in, tokens_out


class _Call:
    """One call of the judge in its own daemon thread (abandoned, never joined, when it
    outlives its timeout or the command is interrupted: a Python thread cannot be killed)."""

    def __init__(self, judge: Callable, pairs: list[tuple[str, str]], any_done: threading.Event):
        self.started = time.monotonic()
        self.done = threading.Event()
        self.any_done = any_done
        self.reply: Any = None
        self.error: BaseException | None = None
        self.thread = threading.Thread(target=self._run, args=(judge, pairs), daemon=True, name="judge-call")
        self.thread.start()

    def _run(self, judge: Callable, pairs: list[tuple[str, str]]) -> None:
        try:
            self.reply = judge(list(pairs))
        except BaseException as exc:  # SystemExit, KeyboardInterrupt too: reported, never ends the command
            self.error = exc
        finally:
            self.done.set()
            self.any_done.set()


@dataclass
class _Batch:
    number: int  # 1-based, in to-do order
    pairs: list[tuple[str, str]]
    attempt: int = 0  # calls made so far
    due: float = 0.0  # when the next call may start (backoff)
    call: _Call | None = None

    def where(self) -> str:
        t, d = self.pairs[0]
        return f"batch {self.number} ({len(self.pairs)} pair(s) from topic {t!r} doc {d!r})"


@dataclass(frozen=True, kw_only=True)
class JudgeOptions:
    """How a judge is run (``auditeval pool judge``'s options; :func:`run_judge` and
    :func:`auditeval.pooling.llm_judge.run_llm_judge`).

    ``batch_size``: pairs per call (the hook only; ``--judge openai`` sends one pair per
    request). ``workers``: calls at once. ``retries``: calls after a batch's first, waiting
    ``backoff * 2**attempt`` seconds before each (the HTTP judge adds jitter). ``timeout``:
    seconds a call may take (None: no limit). ``progress``: a terminal stream for a rich
    progress bar (None: no bar). ``sleep`` waits (tests pass a fake). ``retry_failed``
    (``--judge openai`` only): send again the pairs recorded as failed."""

    batch_size: int = 20
    workers: int = 4
    retries: int = 4
    backoff: float = 1.0
    timeout: float | None = None
    progress: TextIO | None = None
    sleep: Callable[[float], None] = time.sleep
    retry_failed: bool = False


def run_judge(store: JudgmentStore, topics: Sequence[str], docs: Sequence[str], judge: Callable, source: str,
              origin: str, options: JudgeOptions | None = None) -> JudgeCost:
    """Judge the pairs (``topics[i]``, ``docs[i]``) and store each batch as it is answered.

    At most ``workers`` calls run at once, each in its own daemon thread; the main thread
    waits in slices of at most 0.1 s, so Ctrl-C is seen at once. A call fails when the judge
    raises (any exception, ``SystemExit`` included: reported as type and message, never
    ending the command), replies wrongly, or does not return within ``timeout`` seconds
    (None: no limit; the call is then abandoned, its thread left to finish or die with the
    process, and its reply ignored). A failed call is retried after ``backoff * 2**attempt``
    seconds, up to ``retries`` times; a batch failing all of them counts in
    ``cost.failed_batches`` and its reason, with the batch, in ``cost.errors`` (in batch order,
    whichever call ended first). After that
    first failed batch no new batch is sent; batches already sent finish (with their retries).

    Each batch is checked against the store just before it is queued (a pair another process
    labelled meanwhile is not sent: ``cost.already_stored``); at most ``2 * workers`` batches
    are checked ahead. On Ctrl-C nothing more is sent or retried, the calls in flight are
    abandoned (``cost.abandoned``), ``cost.interrupted`` is set, and the batches answered so
    far are already stored. The options (:class:`JudgeOptions`, default its defaults) give
    ``batch_size``, ``workers``, ``retries``, ``backoff``, ``timeout``, ``progress``, ``sleep``."""
    t0 = time.monotonic()
    run = _Judging(store, judge, source, origin, options or JudgeOptions(), list(zip(topics, docs, strict=True)))
    try:
        if run.bar:
            run.bar.start()
        while run.step():
            pass
    except KeyboardInterrupt:
        run.interrupted()
    finally:
        if run.bar:
            run.bar.stop()
    cost = run.cost
    cost.errors = [text for _, text in sorted(run.failed)]  # calls in flight end in any order
    cost.seconds = time.monotonic() - t0
    return cost


class _Judging:
    """The state of one :func:`run_judge`: batches checked ahead, calls running, failures."""

    def __init__(self, store: JudgmentStore, judge: Callable, source: str, origin: str, opts: JudgeOptions,
                 pairs: list[tuple[str, str]]):
        self.store, self.judge, self.source, self.origin, self.opts = store, judge, source, origin, opts
        self.cost = JudgeCost(pairs_todo=len(pairs))
        step = max(opts.batch_size, 1)
        self.chunks = iter([pairs[a : a + step] for a in range(0, len(pairs), step)])
        self.numbers = itertools.count(1)
        self.any_done = threading.Event()
        self.bar = _progress(opts.progress, len(pairs))
        self.task = self.bar.add_task("judging", total=len(pairs)) if self.bar else None
        self.width = max(opts.workers, 1)
        self.ahead: list[_Batch] = []  # checked, waiting to be (re)sent
        self.running: list[_Batch] = []
        self.failed: list[tuple[int, str]] = []  # (batch number, reason): reported in batch order
        self.stop = False

    def step(self) -> bool:
        """Check batches ahead, send those due, wait for calls (at most 0.1 s) and take their
        answers; False when nothing is left to send or wait for."""
        self.check_ahead()
        self.send_due()
        if not self.running and not self.ahead:
            return False
        if not self.running:  # only backoff waits left
            self.opts.sleep(max(0.0, min(b.due for b in self.ahead) - time.monotonic()))
            return True
        timeout = self.opts.timeout
        wait_for = 0.1
        if timeout is not None:
            wait_for = min(wait_for, max(0.0, min(b.call.started for b in self.running) + timeout - time.monotonic()))
        self.any_done.wait(wait_for)
        self.any_done.clear()
        self.collect()
        return True

    def check_ahead(self) -> None:
        """Queue the next batches (at most ``2 * workers`` ahead and running), each checked
        against the store first."""
        while not self.stop and len(self.ahead) + len(self.running) < 2 * self.width:
            chunk = next(self.chunks, None)
            if chunk is None:
                break
            todo = self.store.unlabelled(chunk)
            self.cost.already_stored += len(chunk) - len(todo)
            if self.bar and len(todo) < len(chunk):
                self.bar.advance(self.task, len(chunk) - len(todo))
            if todo:
                self.ahead.append(_Batch(next(self.numbers), todo))

    def send_due(self) -> None:
        now_ = time.monotonic()
        for b in [b for b in self.ahead if b.due <= now_][: self.width - len(self.running)]:
            self.ahead.remove(b)
            b.attempt += 1
            b.call = _Call(self.judge, b.pairs, self.any_done)
            self.running.append(b)

    def collect(self) -> None:
        """Take the answers of the calls that ended, and abandon those past the timeout."""
        timeout = self.opts.timeout
        for b in list(self.running):
            call = b.call
            if call.done.is_set():
                self.running.remove(b)
                if call.error is not None:
                    self.finished(b, f"{type(call.error).__name__}: {call.error}")
                    continue
                try:
                    answer = _parse_reply(call.reply, len(b.pairs))
                except ValueError as exc:
                    self.finished(b, str(exc))
                    continue
                self.finished(b, None, answer)
            elif timeout is not None and time.monotonic() - call.started >= timeout:
                self.running.remove(b)
                self.cost.timed_out += 1
                self.finished(b, f"TimeoutError: the judge did not answer within {timeout:g} s (call abandoned)")

    def finished(self, b: _Batch, reason: str | None, answer=None) -> None:
        """Store an answered batch, or retry / fail it."""
        cost = self.cost
        if reason is None:
            labels, ti, to = answer
            cost.calls += b.attempt
            cost.retries += b.attempt - 1
            if ti is not None:
                cost.input_tokens = (cost.input_tokens or 0) + int(ti)
            if to is not None:
                cost.output_tokens = (cost.output_tokens or 0) + int(to)
            chunk = b.pairs
            self.store.add(Labels([p[0] for p in chunk], [p[1] for p in chunk], labels, [self.source] * len(chunk),
                                  [None] * len(chunk)), self.origin, calls=b.attempt, input_tokens=ti, output_tokens=to)
            cost.batches += 1
            cost.pairs_judged += len(chunk)
            if self.bar:
                self.bar.advance(self.task, len(chunk))
            return
        if b.attempt <= self.opts.retries:
            b.due = time.monotonic() + self.opts.backoff * 2 ** (b.attempt - 1)
            self.ahead.insert(0, b)  # retried before any new batch
            return
        cost.calls += b.attempt
        cost.retries += b.attempt - 1
        cost.failed_batches += 1
        self.failed.append((b.number, f"{b.where()}: {reason}"))
        self.stop = True
        self.ahead[:] = [x for x in self.ahead if x.attempt > 0]  # never sent: dropped; retries go on

    def interrupted(self) -> None:
        """Ctrl-C: the calls in flight are abandoned, nothing more is sent."""
        cost, running, ahead = self.cost, self.running, self.ahead
        cost.interrupted = True
        cost.abandoned = len(running)
        cost.calls += sum(b.attempt for b in running) + sum(b.attempt for b in ahead)
        cost.retries += sum(max(b.attempt - 1, 0) for b in running + ahead)


def _progress(stream: TextIO | None, total: int):
    if stream is None or not total:
        return None
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        TextColumn,
        TimeRemainingColumn,
    )

    return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn(),
                    console=Console(file=getattr(stream, "raw", stream)), transient=True)  # past the escaping


# ---------------------------------------------------------------------------------- simulated
class SimulatedJudge:
    """Labels from a qrels file (0 for pairs it lacks), each wrong with probability ``error``."""

    def __init__(self, qrels: str, error: float = 0.0, seed: int = 0):
        from auditeval.io import read_qrels

        if not 0.0 <= error <= 1.0:
            raise ValueError(f"error must lie in [0, 1], got {error}")
        q = read_qrels(qrels)
        t = q.table
        self.truth = dict(zip(zip(t.column("topic").to_pylist(), t.column("doc").to_pylist(), strict=True),
                              t.column("grade").to_pylist(), strict=True))
        self.levels = sorted(set(self.truth.values()) | {0})
        self.error, self.seed = error, seed
        self.source = f"simulated(qrels={qrels},error={error:g},seed={seed})"

    def _u(self, topic: str, doc: str) -> tuple[float, int]:
        h = hashlib.blake2b(f"{self.seed}\x1f{topic}\x1f{doc}".encode(), digest_size=16).digest()
        return int.from_bytes(h[:8], "big") / 2**64, int.from_bytes(h[8:], "big")

    def label(self, topic: str, doc: str) -> int:
        true = self.truth.get((topic, doc), 0)
        u, pick = self._u(topic, doc)
        if u < self.error and len(self.levels) > 1:
            others = [x for x in self.levels if x != true]
            return others[pick % len(others)]
        return true

    def __call__(self, pairs: Sequence[tuple[str, str]]) -> list[int]:
        return [self.label(t, d) for t, d in pairs]


def simulated(qrels: str, error: str | float = 0.0, seed: str | int = 0) -> SimulatedJudge:
    """Factory for ``--judge auditeval.pooling.judge:simulated --judge-arg qrels=FILE
    [--judge-arg error=0.1] [--judge-arg seed=0]``."""
    return SimulatedJudge(str(qrels), float(error), int(seed))
