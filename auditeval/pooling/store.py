"""The judgment store: labels of (topic, document) pairs in one SQLite file.

Tables (``sqlite3``, WAL journal, ``synchronous=FULL``)::

    judgments(topic, doc, label, source, time, batch)   one current label per pair
    revisions(topic, doc, label, source, time, batch, revised_time, revised_batch)
    batches(id, time, origin, source, lines, added, same, kept, revised,
            calls, input_tokens, output_tokens, model, prompt_sha256)
    llm_judgments(topic, doc, model, prompt_sha256, label, reply, reason, attempts,
                  prompt_tokens, completion_tokens, time, batch, base_url)

* ``llm_judgments`` (schema 2) records every answer of a chat-completions judge
  (:mod:`.llm_judge`), keyed by (topic, doc, model, prompt SHA-256): ``label`` is the grade,
  or NULL when the reply held no grade after every retry (``reason`` says why, ``reply``
  keeps its first 200 characters: a failed pair is recorded, never guessed). The grade also
  goes into ``judgments`` like any label (frozen there). Token counts are the sum of the
  ``usage`` fields of every reply the pair needed.
* Schema versions (``PRAGMA user_version``): 0/1 = the three original tables; 2 adds
  ``batches.model``, ``batches.prompt_sha256`` and ``llm_judgments``. Opening a store to write
  (``create=True``) migrates an older one in one transaction (:attr:`JudgmentStore.migrated_from`
  says from which version); opening one to read leaves it as it is (no LLM records then).

* A label is frozen: importing a different label for a stored pair keeps the stored one
  (counted as ``kept``) unless the import says ``revise``; then the old row moves to
  ``revisions`` (history) and the new label replaces it. The same label again is ``same``.
* Every batch is one transaction (``BEGIN IMMEDIATE``: the write lock is taken up front, so
  two writers queue instead of failing mid-way; ``busy_timeout`` makes the wait explicit).
  A process killed mid-batch leaves the previous batches intact and nothing of its own.
* ``source`` names who labelled: ``human``, a model name, a prompt version.
"""

from __future__ import annotations

import sqlite3
import time as _time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import pyarrow as pa

from auditeval.io.numbers import int64_range_problem
from auditeval.vocab.errors import AuditEvalError, InputError

SCHEMA = """
CREATE TABLE IF NOT EXISTS judgments (
    topic TEXT NOT NULL, doc TEXT NOT NULL, label INTEGER NOT NULL,
    source TEXT NOT NULL, time TEXT NOT NULL, batch INTEGER NOT NULL,
    PRIMARY KEY (topic, doc)) WITHOUT ROWID;
CREATE TABLE IF NOT EXISTS revisions (
    topic TEXT NOT NULL, doc TEXT NOT NULL, label INTEGER NOT NULL,
    source TEXT NOT NULL, time TEXT NOT NULL, batch INTEGER NOT NULL,
    revised_time TEXT NOT NULL, revised_batch INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS batches (
    id INTEGER PRIMARY KEY, time TEXT NOT NULL, origin TEXT NOT NULL, source TEXT NOT NULL,
    lines INTEGER NOT NULL, added INTEGER NOT NULL DEFAULT 0, same INTEGER NOT NULL DEFAULT 0,
    kept INTEGER NOT NULL DEFAULT 0, revised INTEGER NOT NULL DEFAULT 0,
    calls INTEGER, input_tokens INTEGER, output_tokens INTEGER, model TEXT, prompt_sha256 TEXT);
CREATE INDEX IF NOT EXISTS judgments_source ON judgments (source);
CREATE TABLE IF NOT EXISTS llm_judgments (
    topic TEXT NOT NULL, doc TEXT NOT NULL, model TEXT NOT NULL, prompt_sha256 TEXT NOT NULL,
    label INTEGER, reply TEXT, reason TEXT, attempts INTEGER NOT NULL,
    prompt_tokens INTEGER, completion_tokens INTEGER, time TEXT NOT NULL, batch INTEGER NOT NULL,
    base_url TEXT,
    PRIMARY KEY (topic, doc, model, prompt_sha256)) WITHOUT ROWID;
"""
SCHEMA_VERSION = 2
# columns added after version 1, for stores made before: table -> [(column, type)]
_ADDED_COLUMNS = {"batches": [("model", "TEXT"), ("prompt_sha256", "TEXT")]}


@dataclass(frozen=True)
class LLMRecord:
    """One answer of a chat-completions judge for one pair (``label`` None: failed)."""

    topic: str
    doc: str
    label: int | None
    reply: str | None  # the reply's first 200 characters
    reason: str | None  # why no grade (None when labelled)
    attempts: int
    prompt_tokens: int | None
    completion_tokens: int | None
    time: str


class StoreError(AuditEvalError):
    """The store file cannot be opened or is not a judgment store."""


def now() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


@dataclass(frozen=True)
class Labels:
    """A batch to import: parallel lists (``time`` may hold None: the import time)."""

    topic: list[str]
    doc: list[str]
    label: list[int]
    source: list[str]
    time: list[str | None]

    def __len__(self) -> int:
        return len(self.topic)

    def slice(self, a: int, b: int) -> Labels:
        return Labels(self.topic[a:b], self.doc[a:b], self.label[a:b], self.source[a:b], self.time[a:b])


@dataclass(frozen=True)
class BatchResult:
    batch: int
    lines: int
    added: int
    same: int
    kept: int  # stored label differs, kept (frozen)
    revised: int


class JudgmentStore:
    """One connection to a store file.

    ``create=False`` (the default) opens an existing store only: a missing file is a
    :class:`StoreError` (``path: no judgment store there``) instead of a new empty store that
    a mistyped name would silently export as no labels. Commands that import labels
    (``pool add``, ``pool judge``) pass ``create=True``."""

    def __init__(self, path: str | Path, timeout: float = 600.0, create: bool = False):
        self.path = str(path)
        self.timeout = timeout
        self.migrated_from: int | None = None  # the schema version an open with create=True found
        if not create and not Path(self.path).is_file():
            what = "a folder, " if Path(self.path).is_dir() else ""
            raise StoreError(f"{self.path}: {what}no judgment store there (pool add or pool judge creates one)")
        try:
            # mode=rw: an existing file only (no race with a deletion between the check and here)
            target = self.path if create else f"{Path(self.path).resolve().as_uri()}?mode=rw"
            self.db = sqlite3.connect(target, timeout=timeout, isolation_level=None, check_same_thread=False,
                                      uri=not create)
            self.db.execute(f"PRAGMA busy_timeout = {int(timeout * 1000)}")
            self._retry(lambda: self.db.execute("PRAGMA journal_mode = WAL"), timeout)
            self.db.execute("PRAGMA synchronous = FULL")
            if create:
                self._retry(self._create, timeout)
            else:
                tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
                missing = sorted({"judgments", "revisions", "batches"} - tables)
                if missing:
                    self.db.close()
                    raise StoreError(f"{self.path}: not a judgment store (it lacks the table(s) {', '.join(missing)}; "
                                     "pool add or pool judge creates one)")
        except sqlite3.DatabaseError as exc:
            raise StoreError(f"{self.path}: not a usable judgment store ({exc})") from None

    @staticmethod
    def _retry(fn, timeout: float) -> None:
        """Run ``fn``, waiting while another process holds the lock (journal-mode switch)."""
        deadline = _time.monotonic() + timeout
        while True:
            try:
                fn()
                return
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or _time.monotonic() > deadline:
                    raise
                _time.sleep(0.05)

    def _create(self) -> None:
        self._begin()
        try:
            tables = {r[0] for r in self.db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            version = int(self.db.execute("PRAGMA user_version").fetchone()[0])
            for table, columns in _ADDED_COLUMNS.items():  # a store from before: add the new columns
                if table in tables:
                    have = {r[1] for r in self.db.execute(f"PRAGMA table_info({table})")}
                    for name, kind in columns:
                        if name not in have:
                            self.db.execute(f"ALTER TABLE {table} ADD COLUMN {name} {kind}")
            for stmt in SCHEMA.split(";"):
                if stmt.strip():
                    self.db.execute(stmt)
            if version < SCHEMA_VERSION:
                if tables & {"judgments", "batches"}:
                    self.migrated_from = max(version, 1)
                self.db.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self.db.execute("COMMIT")
        except BaseException:
            self.db.execute("ROLLBACK")
            raise

    def _begin(self) -> None:
        """Take the write lock, waiting up to the busy timeout for other writers."""
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise StoreError(f"{self.path}: {exc} (another writer held it longer than the busy timeout, "
                             f"{self.timeout:g} s); nothing of this batch was written, run again to continue") from None

    def close(self) -> None:
        self.db.close()

    def __enter__(self) -> JudgmentStore:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    # ------------------------------------------------------------------ writing
    def add(self, labels: Labels, origin: str, revise: bool = False, calls: int | None = None,
            input_tokens: int | None = None, output_tokens: int | None = None,
            llm: tuple[str, str, str | None, Sequence[LLMRecord]] | None = None) -> BatchResult:
        """Import one batch in one transaction; returns what happened to its lines.

        ``llm``: ``(model, prompt_sha256, base_url, records)`` of a chat-completions judge,
        written in the same transaction into ``llm_judgments`` (a record replaces the one of
        the same pair, model and prompt: a failure retried with ``--retry-failed``)."""
        bad = next((v for v in labels.label if isinstance(v, int) and int64_range_problem(v, "label")), None)
        if bad is not None:
            i = labels.label.index(bad)
            raise StoreError(f"{self.path}: topic {labels.topic[i]!r} doc {labels.doc[i]!r}: "
                             f"{int64_range_problem(bad, 'label')}; nothing of this batch was written")
        t = now()
        sources = sorted(set(labels.source))
        db = self.db
        self._begin()
        try:
            model, sha = (llm[0], llm[1]) if llm else (None, None)
            cur = db.execute(
                "INSERT INTO batches (time, origin, source, lines, calls, input_tokens, output_tokens, model, prompt_sha256) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (t, origin, ",".join(sources), len(labels), calls, input_tokens, output_tokens, model, sha),
            )
            batch = int(cur.lastrowid)
            db.execute("CREATE TEMP TABLE IF NOT EXISTS incoming (topic TEXT, doc TEXT, label INTEGER, source TEXT, time TEXT, PRIMARY KEY (topic, doc))")
            db.execute("DELETE FROM incoming")
            db.executemany(
                "INSERT INTO incoming VALUES (?, ?, ?, ?, ?)",
                zip(labels.topic, labels.doc, labels.label, labels.source, (x or t for x in labels.time), strict=True),
            )
            same, differ = db.execute(
                "SELECT COALESCE(SUM(j.label = i.label), 0), COALESCE(SUM(j.label != i.label), 0) "
                "FROM incoming i JOIN judgments j ON j.topic = i.topic AND j.doc = i.doc"
            ).fetchone()
            revised = 0
            if revise and differ:
                db.execute(
                    "INSERT INTO revisions SELECT j.topic, j.doc, j.label, j.source, j.time, j.batch, ?, ? "
                    "FROM judgments j JOIN incoming i ON j.topic = i.topic AND j.doc = i.doc WHERE j.label != i.label",
                    (t, batch),
                )
                revised = db.execute(
                    "UPDATE judgments SET label = i.label, source = i.source, time = i.time, batch = ? "
                    "FROM incoming i WHERE judgments.topic = i.topic AND judgments.doc = i.doc AND judgments.label != i.label",
                    (batch,),
                ).rowcount
            added = db.execute(
                "INSERT INTO judgments SELECT i.topic, i.doc, i.label, i.source, i.time, ? FROM incoming i "
                "WHERE NOT EXISTS (SELECT 1 FROM judgments j WHERE j.topic = i.topic AND j.doc = i.doc)",
                (batch,),
            ).rowcount
            kept = int(differ) - revised
            db.execute("UPDATE batches SET added = ?, same = ?, kept = ?, revised = ? WHERE id = ?",
                       (added, int(same), kept, revised, batch))
            db.execute("DELETE FROM incoming")
            if llm:
                db.executemany(
                    "INSERT OR REPLACE INTO llm_judgments VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                    [(r.topic, r.doc, model, sha, r.label, r.reply, r.reason, r.attempts, r.prompt_tokens,
                      r.completion_tokens, r.time, batch, llm[2]) for r in llm[3]],
                )
            db.execute("COMMIT")
        except BaseException:
            db.execute("ROLLBACK")
            raise
        return BatchResult(batch, len(labels), added, int(same), kept, revised)

    def add_batches(self, labels: Labels, origin: str, batch_size: int, revise: bool = False) -> list[BatchResult]:
        """Import in batches of ``batch_size`` lines, one transaction each."""
        return [self.add(labels.slice(a, a + batch_size), origin, revise) for a in range(0, len(labels), max(batch_size, 1))]

    # ------------------------------------------------------------------ reading
    def pairs(self) -> tuple[pa.Array, pa.Array]:
        """Every stored (topic, doc) pair as two Arrow string arrays."""
        rows = self.db.execute("SELECT topic, doc FROM judgments").fetchall()
        return pa.array([r[0] for r in rows], pa.string()), pa.array([r[1] for r in rows], pa.string())

    def labels(self, sources: Sequence[str] | None = None) -> list[tuple[str, str, int, str]]:
        """(topic, doc, label, source) of the current labels, optionally from ``sources`` only."""
        sql = "SELECT topic, doc, label, source FROM judgments"
        args: tuple = ()
        if sources:
            sql += f" WHERE source IN ({','.join('?' * len(sources))})"
            args = tuple(sources)
        return self.db.execute(sql, args).fetchall()

    def unlabelled(self, pairs: Sequence[tuple[str, str]]) -> list[tuple[str, str]]:
        """The pairs (in order) that hold no label yet."""
        q = "SELECT 1 FROM judgments WHERE topic = ? AND doc = ?"
        return [p for p in pairs if self.db.execute(q, p).fetchone() is None]

    def has_llm_table(self) -> bool:
        return self.db.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'llm_judgments'").fetchone() is not None

    def llm_recorded(self, pairs: Sequence[tuple[str, str]], model: str, prompt_sha256: str,
                     failed: bool = True) -> set[tuple[str, str]]:
        """The pairs holding a record of ``model`` + ``prompt_sha256`` (with ``failed=False``:
        a labelled record only)."""
        if not self.has_llm_table():
            return set()
        q = "SELECT label FROM llm_judgments WHERE topic = ? AND doc = ? AND model = ? AND prompt_sha256 = ?"
        out = set()
        for t, d in pairs:
            row = self.db.execute(q, (t, d, model, prompt_sha256)).fetchone()
            if row is not None and (failed or row[0] is not None):
                out.add((t, d))
        return out

    def llm_records(self) -> list[dict]:
        """Every ``llm_judgments`` row (empty for a store of schema 1 opened to read)."""
        if not self.has_llm_table():
            return []
        cur = self.db.execute("SELECT * FROM llm_judgments ORDER BY topic, doc, model, prompt_sha256")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def llm_usage(self) -> list[dict]:
        """Per (model, prompt SHA-256): pairs labelled, failed, and the tokens their replies used."""
        if not self.has_llm_table():
            return []
        rows = self.db.execute(
            "SELECT model, prompt_sha256, SUM(label IS NOT NULL), SUM(label IS NULL), SUM(prompt_tokens), "
            "SUM(completion_tokens) FROM llm_judgments GROUP BY model, prompt_sha256 ORDER BY model, prompt_sha256"
        ).fetchall()
        return [{"model": m, "prompt_sha256": h, "labelled": int(a), "failed": int(b),
                 "prompt_tokens": pt, "completion_tokens": ct} for m, h, a, b, pt, ct in rows]

    def sources(self) -> list[tuple[str, int]]:
        return self.db.execute("SELECT source, COUNT(*) FROM judgments GROUP BY source ORDER BY source").fetchall()

    def batches(self) -> list[dict]:
        cur = self.db.execute("SELECT * FROM batches ORDER BY id")
        names = [d[0] for d in cur.description]
        return [dict(zip(names, r, strict=True)) for r in cur.fetchall()]

    def history(self, topic: str, doc: str) -> list[tuple]:
        """Past labels of a pair (oldest first), then the current one."""
        old = self.db.execute("SELECT label, source, time, batch FROM revisions WHERE topic = ? AND doc = ? ORDER BY revised_batch",
                              (topic, doc)).fetchall()
        cur = self.db.execute("SELECT label, source, time, batch FROM judgments WHERE topic = ? AND doc = ?", (topic, doc)).fetchall()
        return old + cur


# ---------------------------------------------------------------------------------- import files
def read_labels(path: str | Path, source: str, fmt: str = "auto") -> tuple[Labels, list[str]]:
    """Labels from a TREC qrels file or JSONL (``{"topic", "doc", "label"[, "source", "time"]}``
    per line). Any malformed line stops the import: ``path:line: reason``. A pair given twice
    with different labels is an error; given twice with the same label, counted in a note."""
    name = str(path)
    if fmt == "auto":
        fmt = "jsonl" if name.endswith((".jsonl", ".jsonl.gz", ".json")) else "trec"
    if fmt == "trec":
        from auditeval.io import read_qrels

        q = read_qrels(path)
        t = q.table
        topic, doc = t.column("topic").to_pylist(), t.column("doc").to_pylist()
        label, lines = t.column("grade").to_pylist(), t.column("line").to_pylist()
        labels = Labels(topic, doc, label, [source] * len(topic), [None] * len(topic))
        notes = list(q.notes)
    else:
        labels, lines, notes = _read_jsonl(path, source)
    return _dedupe(labels, lines, name, notes)


def _read_jsonl(path: str | Path, source: str) -> tuple[Labels, list[int], list[str]]:
    import gzip
    import json

    name = str(path)
    try:
        raw = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(name, None, f"cannot read ({exc.strerror or exc})") from None
    if raw[:2] == b"\x1f\x8b":
        raw = gzip.decompress(raw)
    topic, doc, label, src, tm, lines = [], [], [], [], [], []
    blank = 0
    pieces = raw.split(b"\n")
    if pieces and pieces[-1] == b"":
        pieces.pop()  # the final newline ends the last line
    for i, line in enumerate(pieces, 1):
        if not line.strip():
            blank += 1
            continue
        try:
            rec = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise InputError(name, i, f"not a JSON object ({exc})") from None
        if not isinstance(rec, dict):
            raise InputError(name, i, "not a JSON object")
        for f in ("topic", "doc", "label"):
            if f not in rec:
                raise InputError(name, i, f"missing field {f!r} (need topic, doc, label)")
        for f in ("topic", "doc"):
            v = rec[f]
            if isinstance(v, bool) or not isinstance(v, str | int) or not str(v) or any(c.isspace() for c in str(v)):
                raise InputError(name, i, f"{f} must be a non-empty string without whitespace, got {v!r}")
        if isinstance(rec["label"], bool) or not isinstance(rec["label"], int):
            raise InputError(name, i, f"label must be an integer, got {rec['label']!r}")
        too_big = int64_range_problem(rec["label"], "label")
        if too_big:
            raise InputError(name, i, too_big)
        s = rec.get("source", source)
        if not isinstance(s, str) or not s:
            raise InputError(name, i, f"source must be a non-empty string, got {s!r}")
        when = rec.get("time")
        if when is not None and not isinstance(when, str):
            raise InputError(name, i, f"time must be a string, got {when!r}")
        topic.append(str(rec["topic"]))
        doc.append(str(rec["doc"]))
        label.append(int(rec["label"]))
        src.append(s)
        tm.append(when)
        lines.append(i)
    if not topic:
        raise InputError(name, None, "no labels")
    notes = [f"{name}: skipped {blank} blank line(s)"] if blank else []
    return Labels(topic, doc, label, src, tm), lines, notes


def _dedupe(labels: Labels, lines: list[int], name: str, notes: list[str]) -> tuple[Labels, list[str]]:
    first: dict[tuple[str, str], int] = {}
    keep: list[int] = []
    for i, key in enumerate(zip(labels.topic, labels.doc, strict=True)):
        j = first.get(key)
        if j is None:
            first[key] = i
            keep.append(i)
        elif labels.label[j] != labels.label[i]:
            raise InputError(name, lines[i], f"topic {key[0]!r} doc {key[1]!r} labelled {labels.label[i]} here "
                                             f"but {labels.label[j]} at line {lines[j]}")
    if len(keep) < len(labels):
        notes.append(f"{name}: {len(labels) - len(keep)} repeated line(s) with the same label imported once")
        labels = Labels(*([col[i] for i in keep] for col in (labels.topic, labels.doc, labels.label, labels.source, labels.time)))
    return labels, notes


def labels_from_pairs(pairs: Iterable[tuple[str, str, int]], source: str) -> Labels:
    topic, doc, label = [], [], []
    for t, d, lab in pairs:
        topic.append(t)
        doc.append(d)
        label.append(int(lab))
    return Labels(topic, doc, label, [source] * len(topic), [None] * len(topic))
