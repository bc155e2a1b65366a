"""JSON: one object with the profiles, the values and the notes.

    {"profiles": [{"name": ..., "axes": {axis: value}}],
     "values": [{"run", "measure", "variant", "engine", "topic", "value", "profile"}, ...],
     "notes": ["...", ...]}

``topic`` is ``"all"`` for the aggregate; ``variant`` the exact variant string.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import TextIO

from ..results import ResultSet
from .common import all_notes, as_list, rows


def document(results: ResultSet | Sequence[ResultSet], per_topic: bool = False) -> dict:
    """The JSON document as Python objects."""
    results = as_list(results)
    values = []
    for res in results:
        for v in rows(res, per_topic):
            rec = v.as_dict()
            rec["profile"] = res.profile
            values.append(rec)
    profiles = [
        {
            "name": res.profile,
            "axes": dict(res.convention.as_dict()) if res.convention is not None else None,
        }
        for res in results
    ]
    return {"profiles": profiles, "values": values, "notes": all_notes(results)}


def render_json(results: ResultSet | Sequence[ResultSet], out: TextIO, per_topic: bool = False, **_: object) -> None:
    out.write(json.dumps(document(results, per_topic), indent=1) + "\n")  # one write: 10x faster than dump
