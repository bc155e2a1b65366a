"""Numbers computed on fewer topics than ``eval`` uses say so: the *subset variant text*.

``eval`` averages a run's measure over the topics it has a per-topic value for under the
variant (``topics=`` decides which: ``both``, ``qrels``, ``run``, ...). An analysis that
averages over fewer of them (``compare`` on the topics every run has, pool bias on the topics
a leave-one-out pool keeps, ...) prints that mean under the *subset variant*: the variant
string plus one qualifier, which is not an axis and so never parses as a plain variant::

    AP|...|topics=both|unjudged=nonrel|subset=paired(4/5:-105)

Shape of the qualifier: ``subset=RULE(K/N:DROPPED)`` with ``RULE`` what picked the topics
(``paired``: every run compared has them), ``K`` topics kept of the ``N`` the full set has and
``DROPPED`` the dropped topic ids, each after ``-`` in the full set's order, when at most
:data:`NAMED` are dropped and no id holds one of ``|,():`` or white space; otherwise
``#`` and the first 8 hex digits of the SHA-256 of the dropped ids (byte order, joined by
``\\x1f``). So for one run and qrels (which fix the full set under a variant), equal subset
variant strings mean the same topics were averaged, and a subset mean never shares the string
of the full-set mean. Every subset also has a note (:meth:`TopicSubset.note`) and a JSON
record (:meth:`TopicSubset.as_dict`: rule, topic counts, the dropped ids in full).
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

NAMED = 3
"""At most this many dropped topics are named in the qualifier; more are hashed."""

_PLAIN = re.compile(r"[^|,():\s]+")


def _byte_order(t: str) -> bytes:
    return t.encode("utf-8")


@dataclass(frozen=True)
class TopicSubset:
    """The topics a number is averaged over (``kept``) out of those ``eval`` averages over
    (``full``), the ``rule`` that picked them and the ``reason`` the others were dropped.

    ``kept`` must lie within ``full`` (a :class:`ValueError` otherwise).
    """

    kept: tuple[str, ...]
    full: tuple[str, ...]
    rule: str = "paired"
    reason: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "kept", tuple(self.kept))
        object.__setattr__(self, "full", tuple(self.full))
        extra = set(self.kept) - set(self.full)
        if extra:
            raise ValueError(f"kept topics outside the full set: {', '.join(sorted(extra, key=_byte_order))}")
        if not _PLAIN.fullmatch(self.rule):
            raise ValueError(f"subset rule {self.rule!r} must be one word")

    @property
    def dropped(self) -> tuple[str, ...]:
        """The full set's topics not kept, in the full set's order."""
        kept = set(self.kept)
        return tuple(t for t in self.full if t not in kept)

    @property
    def is_subset(self) -> bool:
        """True when topics were dropped (the number is not the full-set number)."""
        return bool(self.dropped)

    def marker(self) -> str:
        """``""`` for the full set, else ``subset=RULE(K/N:DROPPED)`` (see the module docstring)."""
        drop = self.dropped
        if not drop:
            return ""
        if len(drop) <= NAMED and all(_PLAIN.fullmatch(t) for t in drop):
            ids = ",".join(f"-{t}" for t in drop)
        else:
            text = "\x1f".join(sorted(drop, key=_byte_order)).encode("utf-8")
            ids = "#" + hashlib.sha256(text).hexdigest()[:8]
        return f"subset={self.rule}({len(set(self.kept))}/{len(set(self.full))}:{ids})"

    def variant(self, base: str) -> str:
        """``base`` (a variant string) for the full set, else ``base|`` + :meth:`marker`."""
        mark = self.marker()
        return f"{base}|{mark}" if mark else base

    def note(self, what: str, limit: int = 10) -> str:
        """One sentence: ``what`` (e.g. ``"bm25 AP"``) is over K of N topics, which were
        dropped and why; ``""`` for the full set."""
        drop = self.dropped
        if not drop:
            return ""
        shown = ", ".join(drop[:limit]) + (f", ... ({len(drop)} in all)" if len(drop) > limit else "")
        why = f" ({self.reason})" if self.reason else ""
        return (f"{what}: over {len(set(self.kept))} of the {len(set(self.full))} topics eval uses "
                f"({self.rule}); left out{why}: {shown}; not the full-set number")

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``rule``, ``topics`` (kept), ``of`` (full), ``dropped`` (every id),
        ``marker`` (``""`` for the full set) and ``reason``."""
        return {"rule": self.rule, "topics": len(set(self.kept)), "of": len(set(self.full)),
                "dropped": list(self.dropped), "marker": self.marker(), "reason": self.reason}


def subset_variant(base: str, kept: Sequence[str], full: Sequence[str], rule: str = "paired") -> str:
    """The subset variant text of a number averaged over ``kept`` of ``full`` under ``base``
    (``base`` itself when nothing was dropped); see :class:`TopicSubset`."""
    return TopicSubset(tuple(kept), tuple(full), rule).variant(base)


# ---------------------------------------------------------------------------------------------
# numbers computed against other qrels than the ones given: the *qrels marker*

def _word(text: str) -> str:
    """``text`` when it is one plain word (no ``|,():;`` nor white space), else ``#`` and the
    first 8 hex digits of its SHA-256 (UTF-8)."""
    if _PLAIN.fullmatch(text) and ";" not in text:
        return text
    return "#" + hashlib.sha256(text.encode("utf-8")).hexdigest()[:8]


@dataclass(frozen=True)
class QrelsChange:
    """Numbers computed against qrels derived from the ones given (pool analyses): their
    variant string carries ``|qrels=RULE(WHAT:-J/N)``, a qualifier that is not an axis (so the
    string never parses as a plain variant and never equals the full-qrels string).

    * ``rule`` ``without``: the judgments only ``what`` (a group of runs) put into the depth-k
      pool removed (``pool bias``: leave-one-group-out; Zobel 1998);
    * ``rule`` ``pool``: only the judgments inside the depth-k pool of every run kept (``pool
      growth``'s final pool: frozen labels); ``what`` is ``K,#H``: the depth and the first 8 hex
      digits of the SHA-256 of the pool string (``pool|depth=K|dups=...|ties=...``, printed
      beside it), so the marker stays short and names the pool exactly.

    ``J`` judgments of the ``N`` the qrels hold were removed. In both, a removed judgment is
    *unjudged* (non-relevant under ``unjudged=nonrel``) and the evaluated topics are those of the
    full qrels: a topic left with no judgment is still evaluated (every document unjudged),
    which ``eval`` on a qrels file without those lines would not do. ``what`` is written as is
    when it is one plain word, else as ``#`` + 8 hex digits of its SHA-256.
    """

    rule: str
    what: str
    removed: int
    judgments: int
    reason: str = ""

    def __post_init__(self) -> None:
        if not _PLAIN.fullmatch(self.rule):
            raise ValueError(f"qrels rule {self.rule!r} must be one word")

    def marker(self) -> str:
        """``qrels=RULE(WHAT:-J/N)`` (written even when ``J`` is 0: the qrels were derived)."""
        what = self.what if self.rule == "pool" else _word(self.what)
        return f"qrels={self.rule}({what}:-{self.removed}/{self.judgments})"

    def variant(self, base: str) -> str:
        """``base|`` + :meth:`marker`."""
        return f"{base}|{self.marker()}"

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready: ``rule``, ``what``, ``removed``, ``judgments``, ``marker``, ``reason``."""
        return {"rule": self.rule, "what": self.what, "removed": self.removed, "judgments": self.judgments,
                "marker": self.marker(), "reason": self.reason}


def pool_what(pool_string: str) -> str:
    """The ``WHAT`` of a ``qrels=pool(...)`` marker: ``K,#H`` for a pool string
    ``pool|depth=K|...`` (``H``: the first 8 hex digits of its SHA-256, UTF-8)."""
    depth = dict(a.split("=", 1) for a in pool_string.split("|")[1:]).get("depth", "")
    return f"{depth},#{hashlib.sha256(pool_string.encode('utf-8')).hexdigest()[:8]}"
