"""Claims files: a paper's table as data, each number a claim that a test can hold to its run.

A claims file is TOML, one ``[[claim]]`` table per number::

    qrels = "qrels.txt"               # file-wide defaults (optional): qrels, profile, settings
    profile = "trec_eval-9.0.8"

    [[claim]]
    id = "bm25-map"                   # optional: the test's name (else ``source``, else claim N)
    source = "Table 2, BM25 row"      # optional: where the number is printed
    run = "bm25.txt"                  # a path relative to the claims file
    claim = "MAP=0.5742"              # verify's syntax, read as printed (auditeval.verify.claims)
    profile = "trec_eval-9.0.8"       # optional: the stated convention (+ ``settings``)
    settings = ["rel=2"]              # optional: AXIS=VALUE, as ``--set`` takes them
    variant = "AP|ap_denom=R|..."     # written by ``pytest --auditeval-update``: the lock

``qrels`` is a path relative to the file or an ``irds:`` id. Without a ``profile`` (nor a
locked ``variant``) a claim holds when some variant reproduces it (:func:`.claims.verify_claim`).

A results table in ``verify --table``'s form (``run,measure,value``, CSV or TSV,
:func:`.claims.read_table`) is read as claims too, given the qrels (and a profile).

Every problem is one :class:`~auditeval.vocab.errors.InputError` ``path:line: reason``: a
TOML syntax error (tomllib's line), an unknown key, a missing ``run`` or ``claim``, a value
of the wrong type; the line of a claim is the line of its ``[[claim]]`` header.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

from auditeval.vocab.errors import InputError

CLAIM_KEYS = {"id", "source", "qrels", "run", "claim", "profile", "settings", "variant"}
FILE_KEYS = {"qrels", "profile", "settings", "claim"}
_HEADER = re.compile(r"^\s*\[\[\s*claim\s*\]\]")


@dataclass(frozen=True)
class ClaimSpec:
    """One claim of a claims file, its paths resolved against the file's folder."""

    path: str  # the claims file
    line: int | None  # of its [[claim]] header (or its table row)
    index: int  # 0-based position among the file's claims
    qrels: str  # a path or an irds: id
    run: str
    claim: str
    profile: str | None = None
    settings: tuple[str, ...] = ()
    variant: str | None = None  # the locked variant string
    id: str | None = None
    source: str | None = None

    @property
    def name(self) -> str:
        """The test's name: ``id``, else ``source``, else ``claim N`` (1-based)."""
        return self.id or self.source or f"claim {self.index + 1}"

    @property
    def where(self) -> str:
        return f"{self.path}:{self.line}" if self.line is not None else self.path


def read_claims(path: str | Path, qrels: str | None = None, profile: str | None = None,
                settings: tuple[str, ...] = ()) -> list[ClaimSpec]:
    """The claims of a TOML claims file, or of a ``run,measure,value`` table (``.csv``/``.tsv``,
    which needs ``qrels``; ``profile`` and ``settings`` are its stated convention)."""
    name = str(path)
    if name.endswith((".csv", ".tsv")):
        return _read_table(name, qrels, profile, settings)
    import tomllib

    from auditeval.io.files import read_text

    text = read_text(name, allow_empty=False)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        line = re.search(r"at line (\d+)", str(exc))
        raise InputError(name, int(line.group(1)) if line else None, f"not valid TOML ({str(exc).split(' (at')[0]})") from None
    lines = [i for i, ln in enumerate(text.splitlines(), 1) if _HEADER.match(ln)]
    unknown = sorted(set(data) - FILE_KEYS)
    if unknown:
        raise InputError(name, None, f"unknown top-level key {unknown[0]!r} (known: {', '.join(sorted(FILE_KEYS))})")
    tables = data.get("claim", [])
    if not isinstance(tables, list) or not all(isinstance(t, dict) for t in tables):
        raise InputError(name, None, "'claim' must be an array of tables: [[claim]]")
    if not tables:
        raise InputError(name, None, "no [[claim]] table")
    defaults = {k: data[k] for k in ("qrels", "profile", "settings") if k in data}
    folder = os.path.dirname(name)
    return [_spec(name, lines[i] if i < len(lines) else None, i, {**defaults, **t}, folder)
            for i, t in enumerate(tables)]


def _spec(path: str, line: int | None, index: int, t: dict, folder: str) -> ClaimSpec:
    unknown = sorted(set(t) - CLAIM_KEYS)
    if unknown:
        raise InputError(path, line, f"unknown key {unknown[0]!r} in [[claim]] (known: {', '.join(sorted(CLAIM_KEYS))})")
    for key in ("qrels", "run", "claim"):
        if key not in t:
            raise InputError(path, line, f"[[claim]] lacks {key!r}")
    for key in CLAIM_KEYS - {"settings"}:
        if key in t and not isinstance(t[key], str):
            raise InputError(path, line, f"{key!r} must be a string, got {t[key]!r}")
    settings = t.get("settings", [])
    if isinstance(settings, str):
        settings = [settings]
    if not isinstance(settings, list) or not all(isinstance(s, str) for s in settings):
        raise InputError(path, line, f"'settings' must be a list of AXIS=VALUE strings, got {settings!r}")
    qrels = t["qrels"] if t["qrels"].startswith("irds:") else os.path.join(folder, t["qrels"])
    return ClaimSpec(path, line, index, qrels, os.path.join(folder, t["run"]), t["claim"], t.get("profile"),
                     tuple(settings), t.get("variant"), t.get("id"), t.get("source"))


def _read_table(path: str, qrels: str | None, profile: str | None, settings: tuple[str, ...]) -> list[ClaimSpec]:
    from auditeval.verify.claims import read_table

    if qrels is None:
        raise InputError(path, None, "a run,measure,value table needs its qrels (--auditeval-qrels QRELS)")
    folder = os.path.dirname(path)
    return [ClaimSpec(path, line, i, qrels, os.path.join(folder, run), f"{measure}={value}", profile,
                      tuple(settings), None, None, f"{run} {measure}")
            for i, (run, measure, value, line) in enumerate(read_table(path))]
