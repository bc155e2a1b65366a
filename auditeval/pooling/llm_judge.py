"""A judge that speaks the OpenAI-compatible chat completions protocol (``--judge openai``).

What vLLM, llama.cpp's server, Ollama and hosted services serve: ``POST {base_url}/chat/completions``
with ``{"model", "messages": [{"role": "user", "content": PROMPT}], "temperature": 0}``; the
reply's ``choices[0].message.content`` holds the grade, its ``usage`` the token counts
(``prompt_tokens``, ``completion_tokens``). ``base_url`` is given as to the ``openai`` client,
ending in ``/v1`` (``http://127.0.0.1:8000/v1``). The client is ``httpx``.

**The key** is read from the environment variable ``key_env`` (default ``OPENAI_API_KEY``) and
sent as ``Authorization: Bearer KEY``; it is never stored, never printed: every text that
leaves this module (errors, stored reply excerpts) has the key replaced by ``[key redacted]``.
With the default variable unset no ``Authorization`` header is sent (local servers need none;
a note says so); a ``key_env`` that was named but is unset is an error.

**The prompt** (:data:`UMBRELA_PROMPT`, the default) is UMBRELA's zero-shot prompt (Upadhyay
et al. 2024, "UMBRELA: UMbrela is the (Open-Source Reproduction of the) Bing RELevance
Assessor", file ``src/umbrela/prompts/qrel_zeroshot_bing.txt`` of github.com/castorini/umbrela),
itself the Bing prompt of Thomas et al. 2024 ("Large language models can accurately predict
searcher preferences", SIGIR) on the 0-3 scale. ``--prompt FILE`` replaces it; a prompt is a
text with the placeholders ``{query}`` and ``{passage}`` (each required, replaced literally:
other braces are left alone) and must ask for the same answer format. Its SHA-256 (of the
UTF-8 template, before the texts are put in) is stored with every answer.

**Texts**: ``--topics FILE`` (TREC topics TSV, ``qid<TAB>text`` per line) gives ``{query}``,
``--docs FILE`` (``docid<TAB>text`` TSV, or JSONL with ``id``/``docid`` and ``text``/``contents``)
gives ``{passage}``; both are read through :func:`auditeval.io.files.read_text`. A pool pair
whose topic or document has no text is not sent (counted, and a note names the first ones).

**The grade** (:func:`parse_grade`) is strict: the reply must contain ``##final score: N``
(case and spaces around ``:`` free) with ``N`` a whole number in 0-3, every such marker giving
the same ``N``. Anything else ("grade 7", no marker, ``##final score: 7``, two different
scores) is a malformed reply: retried, and after the last retry the pair is recorded as failed
with the reply's first 200 characters, never guessed. A reply with several choices
(``n`` > 1, or a server that sends them anyway) must give the same grade in every one: choices
that disagree (grades 0 and 3) are a malformed reply too, never the first choice taken; so is a
200 reply that is not a chat completion (not JSON, no ``choices``), counted with the malformed.

**Retries** (each pair on its own, up to ``retries`` times after the first request): HTTP 429
waits the ``Retry-After`` seconds (a number, fractions allowed, or an HTTP date); 5xx, a
transport error, a call that does not answer within ``timeout`` seconds (``httpx`` timeouts:
connect, each read, write, pool) and a malformed reply wait ``backoff * 2**(k-1) * (1 + u) / 2``
after the ``k``-th failed request ("equal jitter": between half and all of the exponential
delay), ``u`` uniform in [0, 1) from ``random.Random("SEED\\x1fTOPIC\\x1fDOC")``, a generator per
pair, so delays never depend on thread timing. Any other HTTP status (400, 401, 404, ...) is
not retried and stops the run, as does a pair whose requests all failed at the transport
level: pairs already sent finish, nothing new is sent, and those pairs are not recorded (a
rerun sends them again). A pair whose replies all held no grade *is* recorded as failed.

**Accounting**: requests, retries, 429s, 5xx, timeouts, malformed replies, and the ``usage``
of every reply (failed attempts too: they are billed). With ``price_in`` and ``price_out``
(USD per million prompt / completion tokens) the cost is ``prompt_tokens * price_in / 1e6 +
completion_tokens * price_out / 1e6``.

**Resumption**: results are written to the store as they arrive (all ready results in one
transaction, every 0.1 s at most); a rerun sends no pair that holds a label in ``judgments``
(from anyone) nor a record of the same model and prompt SHA-256 in ``llm_judgments`` (a failed
one included, unless ``retry_failed``).
"""

from __future__ import annotations

import email.utils
import hashlib
import json
import math
import queue
import random
import re
import threading
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from auditeval.pooling.judge import JudgeCost, JudgeError, JudgeOptions, _progress
from auditeval.pooling.store import JudgmentStore, LLMRecord, labels_from_pairs, now
from auditeval.vocab.errors import InputError

# UMBRELA's zero-shot prompt, verbatim (trailing spaces included): Upadhyay et al. 2024,
# github.com/castorini/umbrela src/umbrela/prompts/qrel_zeroshot_bing.txt; the Bing prompt of
# Thomas et al. 2024 on the 0-3 scale, answer format "##final score: N".
UMBRELA_PROMPT = (
    "Given a query and a passage, you must provide a score on an integer scale of 0 to 3 with the following meanings:\n"
    "0 = represent that the passage has nothing to do with the query, \n"
    "1 = represents that the passage seems related to the query but does not answer it, \n"
    "2 = represents that the passage has some answer for the query, but the answer may be a bit unclear, "
    "or hidden amongst extraneous information and \n"
    "3 = represents that the passage is dedicated to the query and contains the exact answer.\n"
    "\n"
    "Important Instruction: Assign category 1 if the passage is somewhat related to the topic but not completely, "
    "category 2 if passage presents something very important related to the entire topic but also has some extra "
    "information and category 3 if the passage only and entirely refers to the topic. If none of the above satisfies "
    "give it category 0.\n"
    "\n"
    "Query: {query}\n"
    "Passage: {passage}\n"
    "\n"
    "Split this problem into steps:\n"
    "Consider the underlying intent of the search.\n"
    "Measure how well the content matches a likely intent of the query (M).\n"
    "Measure how trustworthy the passage is (T).\n"
    "Consider the aspects above and the relative importance of each, and decide on a final score (O). "
    "Final score must be an integer value only.\n"
    "Do not provide any code in result. Provide each score in the format of: ##final score: score without "
    "providing any reasoning."
)
UMBRELA_SOURCE = "UMBRELA zero-shot (Upadhyay et al. 2024; Thomas et al. 2024 Bing prompt, 0-3)"
GRADES = (0, 1, 2, 3)
EXCERPT = 200  # characters of a failed reply kept
REDACTED = "[key redacted]"
DISAGREE = "choices disagree"  # the failure reason of a reply whose choices give different grades
_SCORE = re.compile(r"##\s*final\s+score\s*:\s*(-?\d+(?:\.\d+)?)", re.IGNORECASE)
ARGS = ("model", "base_url", "key_env", "price_in", "price_out", "seed", "temperature", "max_tokens")


class GradeError(ValueError):
    """A reply that holds no grade in the prompt's format (``reply``: the text kept with the failure)."""

    def __init__(self, message: str, reply: str | None = None):
        super().__init__(message)
        self.reply = reply


def reply_grade(contents: list[str] | None, body: str) -> tuple[str, int]:
    """The grade of a 200 reply whose choices' contents are ``contents`` (None: ``body`` is not
    a chat completion): (the content kept, the grade). Every choice must hold the same grade
    (:func:`parse_grade`); a reply that is not the protocol, a choice without a grade and
    choices that disagree are each a :class:`GradeError`, never the first choice taken."""
    if contents is None:
        raise GradeError("not a chat completion reply (no choices[].message.content strings)", body)
    grades = []
    for k, content in enumerate(contents):
        try:
            grades.append(parse_grade(content))
        except GradeError as exc:
            where = f"choice {k + 1} of {len(contents)}: " if len(contents) > 1 else ""
            raise GradeError(f"{where}{exc}", content) from None
    if len(set(grades)) > 1:
        listed = "\n".join(f"[choice {k + 1}] {c}" for k, c in enumerate(contents))
        raise GradeError(f"the reply's {len(contents)} {DISAGREE}: grades "
                         f"{', '.join(str(g) for g in grades)}", listed)
    return contents[0], grades[0]


def parse_grade(content: str) -> int:
    """The grade of a reply: every ``##final score: N`` marker must give the same whole ``N``
    in 0-3 (see the module doc); otherwise :class:`GradeError`."""
    found = _SCORE.findall(content)
    if not found:
        raise GradeError("no '##final score: N' in the reply")
    values = set(found)
    if len(values) > 1:
        raise GradeError(f"different final scores in one reply: {', '.join(sorted(values))}")
    (v,) = values
    if not re.fullmatch(r"\d+", v) or int(v) not in GRADES:
        raise GradeError(f"final score {v} is not a grade in 0-3")
    return int(v)


def prompt_sha256(template: str) -> str:
    return hashlib.sha256(template.encode("utf-8")).hexdigest()


def check_prompt(template: str, name: str) -> str:
    missing = [p for p in ("{query}", "{passage}") if p not in template]
    if missing:
        raise InputError(name, None, f"the prompt lacks the placeholder(s) {' and '.join(missing)}")
    return template


def fill(template: str, query: str, passage: str) -> str:
    """The prompt for one pair: ``{query}``, ``{passage}`` replaced literally (in one pass, so a
    query holding ``{passage}`` stays as it is)."""
    return re.sub(r"\{query\}|\{passage\}", lambda m: query if m.group(0) == "{query}" else passage, template)


# ---------------------------------------------------------------------------------- texts
def read_topics(path: str) -> dict[str, str]:
    """``qid<TAB>text`` lines (TREC topics TSV). A line without a tab, an empty id or text, or
    an id given twice with different texts is an error ``path:line``; blank lines are skipped."""
    from auditeval.io.files import read_text

    out: dict[str, str] = {}
    for i, line in enumerate(read_text(path, allow_empty=False).splitlines(), 1):
        if not line.strip():
            continue
        qid, sep, text = line.partition("\t")
        qid, text = qid.strip(), text.strip()
        if not sep or not qid or not text:
            raise InputError(path, i, "need qid<TAB>text")
        _put(out, qid, text, path, i)
    return out


def read_docs(path: str) -> dict[str, str]:
    """``docid<TAB>text`` lines, or JSONL (a file whose first non-blank character is ``{``)
    with ``id`` or ``docid`` and ``text`` or ``contents`` per line. Errors are ``path:line``."""
    from auditeval.io.files import read_text

    text = read_text(path, allow_empty=False)
    jsonl = text.lstrip().startswith("{")
    out: dict[str, str] = {}
    for i, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        if jsonl:
            try:
                rec = json.loads(line)
            except json.JSONDecodeError as exc:
                raise InputError(path, i, f"not a JSON object ({exc})") from None
            if not isinstance(rec, dict):
                raise InputError(path, i, "not a JSON object")
            key = next((k for k in ("id", "docid") if k in rec), None)
            body = next((k for k in ("text", "contents") if k in rec), None)
            if key is None or body is None:
                raise InputError(path, i, "need an 'id' (or 'docid') and a 'text' (or 'contents') field")
            did, dtext = rec[key], rec[body]
            if isinstance(did, bool) or not isinstance(did, str | int) or not str(did).strip():
                raise InputError(path, i, f"{key} must be a non-empty string, got {did!r}")
            if not isinstance(dtext, str):
                raise InputError(path, i, f"{body} must be a string, got {type(dtext).__name__}")
            _put(out, str(did).strip(), dtext, path, i)
        else:
            did, sep, dtext = line.partition("\t")
            if not sep or not did.strip():
                raise InputError(path, i, "need docid<TAB>text (or JSONL)")
            _put(out, did.strip(), dtext.strip(), path, i)
    return out


def _put(out: dict[str, str], key: str, text: str, path: str, line: int) -> None:
    if key in out and out[key] != text:
        raise InputError(path, line, f"{key!r} given again with a different text")
    out[key] = text


# ---------------------------------------------------------------------------------- the judge
@dataclass(frozen=True)
class OpenAIConfig:
    """What ``--judge-arg KEY=VALUE`` sets (:data:`ARGS`)."""

    model: str
    base_url: str
    key_env: str = "OPENAI_API_KEY"
    key_env_given: bool = False
    price_in: float | None = None  # USD per 1M prompt tokens
    price_out: float | None = None  # USD per 1M completion tokens
    seed: int = 0  # of the back-off jitter
    temperature: float = 0.0
    max_tokens: int | None = None

    @classmethod
    def from_args(cls, args: Mapping[str, str]) -> OpenAIConfig:
        if "key" in args or "api_key" in args:
            raise JudgeError("--judge openai reads the API key from an environment variable only: "
                             "--judge-arg key_env=NAME (default OPENAI_API_KEY); the value given was not used")
        unknown = sorted(set(args) - set(ARGS))
        if unknown:
            raise JudgeError(f"--judge openai: unknown --judge-arg {', '.join(unknown)} (known: {', '.join(ARGS)})")
        for need in ("model", "base_url"):
            if not args.get(need):
                raise JudgeError(f"--judge openai needs --judge-arg {need}=...")
        base = args["base_url"].rstrip("/")
        if not re.match(r"https?://", base):
            raise JudgeError(f"--judge openai: base_url must start with http:// or https://, got {base!r}")

        def number(name: str, kind=float, low: float = 0.0):
            if name not in args:
                return None
            try:
                v = kind(args[name])
            except ValueError:
                raise JudgeError(f"--judge-arg {name} needs a number, got {args[name]!r}") from None
            if not math.isfinite(v) or v < low:
                raise JudgeError(f"--judge-arg {name} must be a finite number >= {low:g}, got {args[name]!r}")
            return v

        price_in, price_out = number("price_in"), number("price_out")
        if (price_in is None) != (price_out is None):
            raise JudgeError("--judge openai: give both price_in and price_out (USD per 1M tokens), or neither")
        seed = number("seed", int, -(2**63))
        temp = number("temperature")
        max_tokens = number("max_tokens", int, 1)
        return cls(args["model"], base, args.get("key_env") or "OPENAI_API_KEY", "key_env" in args,
                   price_in, price_out, 0 if seed is None else seed, 0.0 if temp is None else temp, max_tokens)

    def cost(self, prompt_tokens: int, completion_tokens: int) -> float | None:
        if self.price_in is None or self.price_out is None:
            return None
        return prompt_tokens * self.price_in / 1e6 + completion_tokens * self.price_out / 1e6


@dataclass
class LLMCost(JudgeCost):
    """:class:`JudgeCost` (``calls`` = HTTP requests, ``retries`` = requests after a pair's
    first, ``input_tokens``/``output_tokens`` = the ``usage`` sums) and what only an HTTP judge has."""

    model: str = ""
    base_url: str = ""
    prompt: str = ""  # where the prompt came from
    prompt_sha256: str = ""
    rate_limited: int = 0  # 429 replies
    retry_after_waited: float = 0.0  # seconds waited on Retry-After
    server_errors: int = 0  # 5xx replies
    transport_errors: int = 0  # connection failures, unreadable bodies
    malformed: int = 0  # replies without a grade (each a failed request)
    failed_pairs: int = 0  # recorded as failed: no grade after every retry
    conflicting_pairs: int = 0  # of those, failed because the last reply's choices gave different grades
    unsent_pairs: int = 0  # every request failed (or stopped) at the transport level: not recorded
    skipped_failed: int = 0  # recorded as failed before, not sent again (retry_failed resends)
    no_text: int = 0  # pairs whose topic or document has no text: not sent
    left: int = 0  # never sent: the run stopped (an error, Ctrl-C) before their turn
    price_in: float | None = None
    price_out: float | None = None
    cost_usd: float | None = None
    failures: list[dict] = field(default_factory=list)  # the first failed pairs (topic, doc, reason, reply)


@dataclass
class _Result:
    topic: str
    doc: str
    kind: str  # "label", "failed" (no grade), "error" (transport: not recorded), "fatal" (stops the run)
    label: int | None = None
    reply: str | None = None
    reason: str | None = None
    attempts: int = 0
    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    rate_limited: int = 0
    retry_after_waited: float = 0.0
    server_errors: int = 0
    transport_errors: int = 0
    timeouts: int = 0
    malformed: int = 0
    time: str = ""


def retry_after(value: str | None) -> float | None:
    """Seconds of a ``Retry-After`` header: a non-negative number (RFC 9110 says whole
    seconds; fractions are accepted), or an HTTP date (seconds from now, at least 0)."""
    if value is None:
        return None
    value = value.strip()
    try:
        v = float(value)
        return v if math.isfinite(v) and v >= 0 else None
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=UTC)
    return max(0.0, (when - datetime.now(UTC)).total_seconds())


class ChatJudge:
    """One pair per request, with the retries of the module doc. Thread-safe (one ``httpx.Client``)."""

    def __init__(self, config: OpenAIConfig, template: str, texts: tuple[Mapping[str, str], Mapping[str, str]],
                 retries: int, backoff: float, timeout: float | None, key: str | None,
                 stop: threading.Event):
        try:
            import httpx
        except ImportError:
            raise JudgeError("--judge openai needs httpx: pip install 'auditeval[llm]'") from None
        self.httpx = httpx
        self.config, self.template, self.texts = config, template, texts
        self.retries, self.backoff, self.key, self.stop = max(retries, 0), max(backoff, 0.0), key, stop
        headers = {"Content-Type": "application/json"}
        if key:
            headers["Authorization"] = f"Bearer {key}"
        self.client = httpx.Client(headers=headers, timeout=httpx.Timeout(timeout))
        self.url = f"{config.base_url}/chat/completions"

    def redact(self, text: str) -> str:
        return text.replace(self.key, REDACTED) if self.key else text

    def delay(self, rng: random.Random, failed: int) -> float:
        """Equal jitter: ``backoff * 2**(failed-1) * (1 + u) / 2``."""
        return self.backoff * 2 ** (failed - 1) * (1.0 + rng.random()) / 2.0

    def body(self, topic: str, doc: str) -> dict[str, Any]:
        msg = fill(self.template, self.texts[0][topic], self.texts[1][doc])
        body: dict[str, Any] = {"model": self.config.model, "messages": [{"role": "user", "content": msg}],
                                "temperature": self.config.temperature}
        if self.config.max_tokens is not None:
            body["max_tokens"] = self.config.max_tokens
        return body

    def judge(self, topic: str, doc: str) -> _Result:
        httpx = self.httpx
        res = _Result(topic, doc, "error")
        rng = random.Random(f"{self.config.seed}\x1f{topic}\x1f{doc}")
        payload = self.body(topic, doc)
        last = ""
        while True:
            if self.stop.is_set():
                res.kind, res.reason = "error", f"stopped before an answer ({last or 'not sent'})"
                break
            res.attempts += 1
            wait: float | None = None
            try:
                r = self.client.post(self.url, json=payload)
            except httpx.TimeoutException as exc:
                res.timeouts += 1
                last = f"TimeoutError: no answer within the timeout ({type(exc).__name__})"
            except httpx.HTTPError as exc:
                res.transport_errors += 1
                last = f"{type(exc).__name__}: {exc}"
            else:
                status = r.status_code
                text = r.text
                if status == 429:
                    res.rate_limited += 1
                    wait = retry_after(r.headers.get("retry-after"))
                    last = f"HTTP 429 (rate limited; Retry-After {r.headers.get('retry-after')!r})"
                    if wait is not None:
                        res.retry_after_waited += wait
                elif status >= 500:
                    res.server_errors += 1
                    wait = retry_after(r.headers.get("retry-after"))
                    last = f"HTTP {status}: {text[:EXCERPT]!r}"
                elif status != 200:
                    res.kind, res.reason = "fatal", f"HTTP {status} from {self.url}: {text[:EXCERPT]!r} (not retried)"
                    break
                else:
                    try:
                        content, res.label = reply_grade(self._content(res, text), text)
                    except GradeError as exc:
                        res.malformed += 1
                        res.reply, res.reason = (exc.reply or text)[:EXCERPT], str(exc)
                        last = f"malformed reply ({exc})"
                    else:
                        res.kind, res.reply, res.reason = "label", content[:EXCERPT], None
                        break
            if res.attempts > self.retries:
                if last.startswith("malformed"):
                    res.kind = "failed"  # the model answered, without a grade: recorded
                else:
                    res.kind, res.reason = "error", f"{last} (after {res.attempts} request(s))"
                break
            if wait is None:
                wait = self.delay(rng, res.attempts)
            if self.stop.wait(wait):
                res.kind, res.reason = "error", f"stopped before an answer ({last})"
                break
        res.time = now()
        for name in ("reply", "reason"):
            v = getattr(res, name)
            if v is not None:
                setattr(res, name, self.redact(v))
        return res

    @staticmethod
    def _content(res: _Result, text: str) -> list[str] | None:
        """``choices[k].message.content`` of every choice of a reply (None: not the protocol:
        not JSON, no choices, a content that is not a string); adds its usage."""
        try:
            doc = json.loads(text)
            contents = [c["message"]["content"] for c in doc["choices"]]
        except (ValueError, KeyError, IndexError, TypeError):
            return None
        if not contents or not all(isinstance(c, str) for c in contents):
            return None
        usage = doc.get("usage") if isinstance(doc, dict) else None
        if isinstance(usage, dict):
            for key, attr in (("prompt_tokens", "prompt_tokens"), ("completion_tokens", "completion_tokens")):
                v = usage.get(key)
                if isinstance(v, int) and not isinstance(v, bool) and v >= 0:
                    setattr(res, attr, (getattr(res, attr) or 0) + v)
        return contents

    def close(self) -> None:
        self.client.close()


# ---------------------------------------------------------------------------------- the runner
@dataclass(frozen=True)
class Prompt:
    """A prompt template (placeholders ``{query}`` and ``{passage}``) and where it came from (a
    file name, or :data:`UMBRELA_SOURCE`)."""

    template: str
    name: str


def run_llm_judge(store: JudgmentStore, topics: Sequence[str], docs: Sequence[str], config: OpenAIConfig,
                  prompt: Prompt, texts: tuple[Mapping[str, str], Mapping[str, str]], source: str, origin: str,
                  options: JudgeOptions | None = None, *, key: str | None = None) -> LLMCost:
    """Judge the pairs (``topics[i]``, ``docs[i]``) with ``workers`` daemon threads, one request
    per pair, storing results as they arrive (see the module doc). The main thread waits in
    0.1 s slices, so Ctrl-C is seen at once: nothing more is sent or retried, requests in flight
    are abandoned (``cost.abandoned``), answers already received are stored. ``options``
    (:class:`~auditeval.pooling.judge.JudgeOptions`) gives ``workers``, ``retries``, ``backoff``,
    ``timeout``, ``retry_failed`` and ``progress`` (``batch_size`` and ``sleep`` are the hook's);
    ``key``: the API key (never stored, redacted from every text)."""
    t0 = time.monotonic()
    opts = options or JudgeOptions()
    run = _LLMJudging(store, config, prompt, texts, source, origin, opts, key, list(zip(topics, docs, strict=True)))
    cost = run.cost
    try:
        if run.bar:
            run.bar.start()
        run.refill()
        while run.in_flight:
            try:
                batch = [run.results.get(timeout=0.1)]
            except queue.Empty:
                continue
            batch += _drain(run.results)
            run.in_flight -= len(batch)
            run.write(batch)
            run.in_flight -= run.taken_back
            run.taken_back = 0
            run.refill()
    except KeyboardInterrupt:
        run.interrupted()
    finally:
        run.stop.set()
        for _ in run.threads:
            run.work.put(None)
        if run.bar:
            run.bar.stop()
        if not cost.interrupted:
            run.judge.close()  # after Ctrl-C the abandoned requests still hold it: left to the process's end
    cost.left = (cost.pairs_todo - cost.no_text - cost.pairs_judged - cost.failed_pairs - cost.unsent_pairs
                 - cost.already_stored - cost.skipped_failed - cost.abandoned)
    if run.seen_tokens:
        cost.input_tokens, cost.output_tokens = run.tokens
        cost.cost_usd = config.cost(*run.tokens)
    cost.seconds = time.monotonic() - t0
    return cost


def _drain(q: queue.Queue) -> list:
    """Every item ``q`` holds now, without waiting."""
    got = []
    while True:
        try:
            got.append(q.get_nowait())
        except queue.Empty:
            return got


class _LLMJudging:
    """The state of one :func:`run_llm_judge`: the worker threads and their queues, the pairs
    queued (``in_flight``), the token sums, the cost."""

    def __init__(self, store: JudgmentStore, config: OpenAIConfig, prompt: Prompt,
                 texts: tuple[Mapping[str, str], Mapping[str, str]], source: str, origin: str, opts: JudgeOptions,
                 key: str | None, pairs: list[tuple[str, str]]):
        self.store, self.config, self.source, self.origin, self.opts = store, config, source, origin, opts
        self.sha = prompt_sha256(prompt.template)
        self.cost = LLMCost(pairs_todo=len(pairs), model=config.model, base_url=config.base_url, prompt=prompt.name,
                            prompt_sha256=self.sha, price_in=config.price_in, price_out=config.price_out)
        has_text = [p for p in pairs if p[0] in texts[0] and p[1] in texts[1]]
        self.cost.no_text = len(pairs) - len(has_text)
        self.stop = threading.Event()
        self.judge = ChatJudge(config, prompt.template, texts, opts.retries, opts.backoff, opts.timeout, key, self.stop)
        self.work: queue.Queue = queue.Queue()
        self.results: queue.Queue = queue.Queue()
        self.width = max(opts.workers, 1)
        self.threads = [threading.Thread(target=self.worker, daemon=True, name="llm-judge") for _ in range(self.width)]
        for th in self.threads:
            th.start()
        self.bar = _progress(opts.progress, len(pairs))
        self.task = self.bar.add_task("judging", total=len(pairs)) if self.bar else None
        if self.bar and self.cost.no_text:
            self.bar.advance(self.task, self.cost.no_text)
        self.feed = iter(has_text)
        self.in_flight = 0
        self.stopping = False
        self.taken_back = 0  # queued pairs taken back by write() when the run stops
        self.tokens = [0, 0]
        self.seen_tokens = False

    def worker(self) -> None:
        judge = self.judge
        while True:
            item = self.work.get()
            if item is None:
                return
            try:
                self.results.put(judge.judge(*item))
            except BaseException as exc:  # a bug must not hang the run: reported as a fatal result
                self.results.put(_Result(item[0], item[1], "fatal",
                                         reason=judge.redact(f"{type(exc).__name__}: {exc}"), time=now()))

    def refill(self) -> None:
        """Queue pairs up to ``2 * workers`` in flight, each checked against the store first (a
        label from anyone, or a record of this model and prompt, failed ones unless
        ``retry_failed``)."""
        store, config, sha, cost, width = self.store, self.config, self.sha, self.cost, self.width
        while not self.stopping and self.in_flight < 2 * width:
            chunk = [p for _, p in zip(range(2 * width - self.in_flight), self.feed, strict=False)]
            if not chunk:
                return
            todo = set(store.unlabelled(chunk))
            done = store.llm_recorded(todo, config.model, sha, failed=True)
            failed_before = done - store.llm_recorded(done, config.model, sha, failed=False)
            for p in chunk:
                if p not in todo or (p in done and not (self.opts.retry_failed and p in failed_before)):
                    if p in failed_before:
                        cost.skipped_failed += 1
                    else:
                        cost.already_stored += 1
                    if self.bar:
                        self.bar.advance(self.task, 1)
                    continue
                self.work.put(p)
                self.in_flight += 1

    def write(self, batch: list[_Result]) -> None:
        """Count ``batch``'s requests and store its labels and records in one transaction; a
        transport error or a fatal result stops the run (the pairs queued are taken back)."""
        records = []
        labelled = []
        for r in batch:
            self._count(r)
            if r.kind in ("label", "failed"):
                records.append(LLMRecord(r.topic, r.doc, r.label, r.reply, r.reason, r.attempts, r.prompt_tokens,
                                         r.completion_tokens, r.time))
                if r.kind == "label":
                    labelled.append((r.topic, r.doc, r.label))
            else:
                self.stopping = True
        if self.stopping:  # queued, never sent: left for a rerun
            self.taken_back += len(_drain(self.work))
        if records:
            lab = labels_from_pairs(labelled, self.source)
            ti = sum(r.prompt_tokens or 0 for r in batch) if any(r.prompt_tokens is not None for r in batch) else None
            to = sum(r.completion_tokens or 0 for r in batch) if any(r.completion_tokens is not None for r in batch) else None
            self.store.add(lab, self.origin, calls=sum(r.attempts for r in batch), input_tokens=ti, output_tokens=to,
                           llm=(self.config.model, self.sha, self.config.base_url, records))
            self.cost.batches += 1
        if self.bar:
            self.bar.advance(self.task, len(batch))

    def _count(self, r: _Result) -> None:
        """One result's requests, failures and tokens into the cost."""
        cost = self.cost
        cost.calls += r.attempts
        cost.retries += max(r.attempts - 1, 0)
        cost.timed_out += r.timeouts
        cost.rate_limited += r.rate_limited
        cost.retry_after_waited += r.retry_after_waited
        cost.server_errors += r.server_errors
        cost.transport_errors += r.transport_errors
        cost.malformed += r.malformed
        if r.prompt_tokens is not None or r.completion_tokens is not None:
            self.seen_tokens = True
            self.tokens[0] += r.prompt_tokens or 0
            self.tokens[1] += r.completion_tokens or 0
        if r.kind == "label":
            cost.pairs_judged += 1
        elif r.kind == "failed":
            cost.failed_pairs += 1
            cost.conflicting_pairs += DISAGREE in (r.reason or "")
            if len(cost.failures) < 20:
                cost.failures.append({"topic": r.topic, "doc": r.doc, "reason": r.reason, "reply": r.reply})
        else:
            cost.unsent_pairs += 1
            cost.failed_batches += 1
            if len(cost.errors) < 20:
                cost.errors.append(f"topic {r.topic!r} doc {r.doc!r}: {r.reason}")

    def interrupted(self) -> None:
        """Ctrl-C: nothing more is sent, the answers already here are stored, the requests in
        flight abandoned."""
        self.stop.set()
        self.cost.interrupted = True
        self.in_flight -= len(_drain(self.work))  # queued, never sent
        got = _drain(self.results)
        self.in_flight -= len(got)
        self.cost.abandoned = self.in_flight
        if got:
            self.write(got)


def usage_by_source(store: JudgmentStore, config: OpenAIConfig, sha: str) -> list[dict]:
    """The store's token sums per (model, prompt SHA-256); the cost for this run's model and
    prompt only (its prices are this run's)."""
    out = []
    for row in store.llm_usage():
        mine = row["model"] == config.model and row["prompt_sha256"] == sha
        row["cost_usd"] = config.cost(row["prompt_tokens"] or 0, row["completion_tokens"] or 0) if mine else None
        out.append(row)
    return out
