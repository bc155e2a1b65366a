"""JSON: a list of records with keys run, measure, variant, engine, topic, value."""

from __future__ import annotations

import json
from typing import TextIO

from ..results import ResultSet


def render_json(res: ResultSet, out: TextIO, per_topic: bool = False) -> None:
    values = res.values if per_topic else res.aggregates()
    json.dump([v.as_dict() for v in values], out, indent=1)
    out.write("\n")
