"""One result model for every renderer: :class:`Value` records in a :class:`ResultSet`."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


@dataclass(frozen=True)
class Value:
    """One number with its provenance.

    ``topic`` is a topic id or ``"all"`` for the aggregate; ``variant`` the exact variant
    string; ``engine`` the tool and version that computed it.
    """

    run: str
    measure: str
    variant: str
    engine: str
    topic: str
    value: float | int | str

    def as_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class ResultSet:
    """Values of one evaluation, plus every decision the engine reported on the way."""

    values: list[Value] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    profile: str = ""
    convention: Any = None

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

    def to_records(self) -> list[dict[str, Any]]:
        return [v.as_dict() for v in self.values]

    def to_frame(self):
        import pandas as pd

        return pd.DataFrame(self.to_records(), columns=["run", "measure", "variant", "engine", "topic", "value"])
