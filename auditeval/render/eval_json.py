"""JSON: one object with the profiles, the values and the notes.

    {"profiles": [{"name": ..., "axes": {axis: value}}],
     "values": [{"run", "measure", "variant", "engine", "topic", "value", "profile"}, ...],
     "refused": [{"profile", "run", "reason"}, ...],
     "notes": ["...", ...]}

``topic`` is ``"all"`` for the aggregate; ``variant`` the exact variant string. ``refused``
lists the runs the engine refused under a profile (e.g. ``topics=strict`` with a qrels topic
missing from the run), each with the engine's message; the notes say it too.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from auditeval.render.common import all_notes, as_list, rows
from auditeval.render.json_out import write_json
from auditeval.results.values import ResultSet


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
    refused = [r.as_dict() for res in results for r in res.refusals]
    return {"profiles": profiles, "values": values, "refused": refused, "notes": all_notes(results)}


def render_json(results: ResultSet | Sequence[ResultSet], out: TextIO, per_topic: bool = False, **_: object) -> None:
    write_json(out, document(results, per_topic), indent=1)
