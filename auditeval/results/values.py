"""One result model for every renderer: :class:`Value` records in a :class:`ResultSet`.

``Value.variant`` is a :class:`~auditeval.vocab.variant.Variant` (``str()`` gives the variant
string, ``parse_variant(v.variant) == v.variant``); renderers and ``to_records`` write the
string. A value built with a string variant is parsed once per distinct string.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

from auditeval.vocab.variant import Variant, parse_variant

FRAME_COLUMNS = ["run", "topic", "measure", "variant", "engine", "value"]
"""Columns of every tidy frame (``ResultSet.to_frame``), one row per value."""


@lru_cache(maxsize=4096)
def _parsed(text: str) -> Variant:
    return parse_variant(text)


@lru_cache(maxsize=4096)
def _text(v: Variant) -> str:
    return str(v)


def variant_text(v: Variant | str) -> str:
    """The variant string of ``v`` (cached: renderers call this once per value)."""
    return v if isinstance(v, str) else _text(v)


@dataclass(frozen=True)
class Value:
    """One number with its provenance.

    ``topic`` is a topic id or ``"all"`` for the aggregate; ``variant`` the exact
    :class:`~auditeval.vocab.variant.Variant` (a string is accepted and parsed); ``engine`` the
    tool and version that computed it.
    """

    run: str
    measure: str
    variant: Variant
    engine: str
    topic: str
    value: float | int | str

    def __post_init__(self) -> None:
        if isinstance(self.variant, str):
            object.__setattr__(self, "variant", _parsed(self.variant))

    def as_dict(self) -> dict[str, Any]:
        """The record renderers write: the variant as its string."""
        return {
            "run": self.run,
            "measure": self.measure,
            "variant": variant_text(self.variant),
            "engine": self.engine,
            "topic": self.topic,
            "value": self.value,
        }


@dataclass(frozen=True)
class Refusal:
    """A run the engine refused to evaluate under a profile (an ``EvaluationError``, e.g.
    ``topics=strict`` with a qrels topic missing from the run): no value, the reason.

    ``index`` is the run's position among the runs given, so renderers keep that order.
    """

    run: str
    profile: str
    reason: str
    index: int = 0

    def note(self) -> str:
        return f"[{self.profile}] run {self.run!r} refused: {self.reason}"

    def as_dict(self) -> dict[str, Any]:
        return {"profile": self.profile, "run": self.run, "reason": self.reason}


@dataclass
class ResultSet:
    """Values of one evaluation (one profile), plus every decision reported on the way and
    the runs the engine refused under this profile (:class:`Refusal`, none by default)."""

    values: list[Value] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    profile: str = ""
    convention: Any = None
    refusals: list[Refusal] = field(default_factory=list)

    def aggregates(self) -> list[Value]:
        return [v for v in self.values if v.topic == "all"]

    def per_topic(self) -> list[Value]:
        return [v for v in self.values if v.topic != "all"]

    def get(self, measure: str, run: str | None = None, topic: str = "all") -> Value:
        """The value of ``measure`` (as requested, e.g. ``"P@10"``) for ``run`` and ``topic``."""
        for v in self.values:
            if v.measure == measure and v.topic == topic and (run is None or v.run == run):
                return v
        raise KeyError((measure, run, topic))

    def runs(self) -> list[str]:
        """Run labels in the order given: evaluated runs and refused ones in their place."""
        runs = list(dict.fromkeys(v.run for v in self.values))
        for r in sorted(self.refusals, key=lambda r: r.index):
            runs.insert(min(r.index, len(runs)), r.run)
        return runs

    def to_records(self) -> list[dict[str, Any]]:
        return [v.as_dict() for v in self.values]

    def to_frame(self):
        """Tidy pandas DataFrame: one row per value, columns :data:`FRAME_COLUMNS`
        (``topic == "all"`` rows are the aggregates; ``variant`` holds the string)."""
        import pandas as pd

        return pd.DataFrame(self.to_records(), columns=FRAME_COLUMNS)


def frames(results: Sequence[ResultSet]):
    """Several result sets (e.g. one per profile) as one tidy frame with a ``profile`` column."""
    import pandas as pd

    parts = [r.to_frame().assign(profile=r.profile) for r in results]
    return pd.concat(parts, ignore_index=True) if parts else pd.DataFrame(columns=[*FRAME_COLUMNS, "profile"])
