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

from collections.abc import Iterator, Sequence
from itertools import islice
from typing import TextIO

from auditeval.render.common import all_notes, as_list, rows
from auditeval.render.json_out import items_text
from auditeval.render.stream import json_frame
from auditeval.results.values import ResultSet


def _records(results: Sequence[ResultSet], per_topic: bool) -> Iterator[dict]:
    for res in results:
        for v in rows(res, per_topic):
            rec = v.as_dict()
            rec["profile"] = res.profile
            yield rec


def _frame(results: Sequence[ResultSet]) -> dict:
    """The document but its values (``None`` in their place)."""
    profiles = [
        {
            "name": res.profile,
            "axes": dict(res.convention.as_dict()) if res.convention is not None else None,
        }
        for res in results
    ]
    refused = [r.as_dict() for res in results for r in res.refusals]
    return {"profiles": profiles, "values": None, "refused": refused, "notes": all_notes(results)}


def document(results: ResultSet | Sequence[ResultSet], per_topic: bool = False) -> dict:
    """The JSON document as Python objects."""
    results = as_list(results)
    return {**_frame(results), "values": list(_records(results, per_topic))}


ITEMS_PER_WRITE = 8192
"""Values encoded and written at once (the document is never held whole)."""


def render_json(results: ResultSet | Sequence[ResultSet], out: TextIO, per_topic: bool = False, **_: object) -> None:
    """:func:`document` as ``json.dumps(..., indent=1)`` writes it, the values a block at a time
    between the text before and after their list (:func:`~auditeval.render.stream.json_frame`;
    each block as :func:`~auditeval.render.json_out.items_text` encodes a list's items)."""
    results = as_list(results)
    frame = json_frame(_frame(results), "values")
    out.write(frame.head)
    first = True
    records = _records(results, per_topic)
    while block := list(islice(records, ITEMS_PER_WRITE)):
        out.write(("" if first else ",") + items_text(None, (block, frame.level)))
        first = False
    out.write(("]" if first else frame.close) + frame.tail)
