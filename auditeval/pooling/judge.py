"""The judge hook: label the pairs a pool still needs with a user-supplied judge.

A judge is any callable ``judge(pairs) -> reply`` where ``pairs`` is a list of
``(topic, doc)`` tuples and ``reply`` is either a list of integer labels (same length and
order) or a mapping ``{"labels": [...], "input_tokens": n, "output_tokens": m}`` (token
counts optional: an LLM client reports them, they are summed into the cost). ``--judge
MODULE:CALLABLE`` names it; with ``--judge-arg KEY=VALUE`` options the callable is a factory,
called once as ``CALLABLE(KEY=VALUE, ...)`` (strings) to build the judge. A judge may carry a
``source`` attribute (model name and prompt version) stored with each label.

:func:`run_judge` sends batches to worker threads (bounded concurrency), retries a failing
call with exponential backoff (``backoff * 2**attempt`` seconds), and stores each answered
batch in its own transaction as it arrives, so an interruption loses at most the batches in
flight; rerunning asks only for pairs the store still lacks.

:func:`simulated` builds a deterministic judge from a qrels file: the true label, replaced
with probability ``error`` by another label level, decided per pair by a hash of
``(seed, topic, doc)`` so the answer never depends on batching or thread timing.
"""

from __future__ import annotations

import hashlib
import importlib
import time
from collections.abc import Callable, Mapping, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
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


def _parse_reply(reply: Any, n: int) -> tuple[list[int], int | None, int | None]:
    tokens_in = tokens_out = None
    if isinstance(reply, Mapping):
        tokens_in, tokens_out = reply.get("input_tokens"), reply.get("output_tokens")
        reply = reply.get("labels")
    if not isinstance(reply, Sequence) or isinstance(reply, str | bytes):
        raise ValueError(f"judge reply must be a list of labels or a mapping with 'labels', got {type(reply).__name__}")
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
    return labels, tokens_in, tokens_out


def _call(judge: Callable, pairs: list[tuple[str, str]], retries: int, backoff: float, sleep: Callable[[float], None]):
    """(labels, tokens_in, tokens_out, calls) or raises the last error after ``retries`` retries."""
    calls = 0
    for attempt in range(retries + 1):
        calls += 1
        try:
            labels, ti, to = _parse_reply(judge(list(pairs)), len(pairs))
            return labels, ti, to, calls
        except Exception as exc:  # a judge may raise anything (network, parsing); retried, then reported
            if attempt == retries:
                exc.calls = calls  # type: ignore[attr-defined]
                raise
            sleep(backoff * 2**attempt)
    raise AssertionError("unreachable")  # pragma: no cover


def run_judge(
    store: JudgmentStore,
    topics: Sequence[str],
    docs: Sequence[str],
    judge: Callable,
    source: str,
    origin: str,
    batch_size: int = 20,
    workers: int = 4,
    retries: int = 4,
    backoff: float = 1.0,
    progress: TextIO | None = None,
    sleep: Callable[[float], None] = time.sleep,
) -> JudgeCost:
    """Judge the pairs (``topics[i]``, ``docs[i]``) and store each batch as it is answered.

    Each batch is checked against the store just before it is sent (a pair another process
    labelled meanwhile is not sent: ``cost.already_stored``). After the first batch that
    fails all its retries, or on Ctrl-C, no new batch is sent (queued ones are cancelled) and
    the calls in flight are waited for and stored; ``cost.failed_batches`` > 0 then.
    ``progress``: a terminal stream for a rich progress bar (None: no bar). The judge is
    called from ``workers`` threads at once."""
    t0 = time.monotonic()
    pairs = list(zip(topics, docs, strict=True))
    cost = JudgeCost(pairs_todo=len(pairs))
    chunks = iter([pairs[a : a + batch_size] for a in range(0, len(pairs), max(batch_size, 1))])
    bar = _progress(progress, len(pairs))
    task = bar.add_task("judging", total=len(pairs)) if bar else None
    pending: dict[Future, list[tuple[str, str]]] = {}

    def collect(f: Future) -> bool:
        """Store a finished batch; False when it failed."""
        chunk = pending.pop(f)
        try:
            labels, ti, to, calls = f.result()
        except Exception as exc:  # the judge's own error, after its retries
            n = getattr(exc, "calls", retries + 1)
            cost.calls, cost.retries, cost.failed_batches = cost.calls + n, cost.retries + n - 1, cost.failed_batches + 1
            cost.errors.append(f"{type(exc).__name__}: {exc}")
            return False
        cost.calls, cost.retries = cost.calls + calls, cost.retries + calls - 1
        if ti is not None:
            cost.input_tokens = (cost.input_tokens or 0) + int(ti)
        if to is not None:
            cost.output_tokens = (cost.output_tokens or 0) + int(to)
        store.add(Labels([p[0] for p in chunk], [p[1] for p in chunk], labels, [source] * len(chunk), [None] * len(chunk)),
                  origin, calls=calls, input_tokens=ti, output_tokens=to)
        cost.batches += 1
        cost.pairs_judged += len(chunk)
        if bar:
            bar.advance(task, len(chunk))
        return True

    def drain() -> None:
        """Cancel the queued batches, store what the running ones return."""
        for f in [f for f in pending if f.cancel()]:
            del pending[f]
        for f in list(pending):
            wait([f])
            collect(f)

    stop = False
    with ThreadPoolExecutor(max_workers=max(workers, 1)) as pool:
        try:
            if bar:
                bar.start()
            while True:
                while not stop and len(pending) < 2 * max(workers, 1):
                    chunk = next(chunks, None)
                    if chunk is None:
                        break
                    todo = store.unlabelled(chunk)
                    cost.already_stored += len(chunk) - len(todo)
                    if bar and len(todo) < len(chunk):
                        bar.advance(task, len(chunk) - len(todo))
                    if todo:
                        pending[pool.submit(_call, judge, todo, retries, backoff, sleep)] = todo
                if not pending:
                    break
                done, _ = wait(pending, return_when=FIRST_COMPLETED)
                for f in done:
                    if not collect(f) and not stop:
                        stop = True
                        drain()
                        break
        except KeyboardInterrupt:
            cost.errors.append("interrupted")
            cost.failed_batches += 1
            drain()
        finally:
            if bar:
                bar.stop()
    cost.seconds = time.monotonic() - t0
    return cost


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
                    console=Console(file=stream), transient=True)


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
