"""The JSON of ``auditeval compare``: the profile, one record per measure's analysis, the notes.

Each analysis's pair rows (19,900 for 200 runs) are a :class:`~auditeval.render.json_out.Deferred`
list, encoded in blocks by ``encode`` (the command maps
:func:`~auditeval.render.json_out.items_text` over its backend), with the bytes of
``json.dumps(doc, indent=1)``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from auditeval.render.json_out import Deferred, Encoder, write_json

__all__ = ["render_json"]


def render_json(analyses: Sequence[dict], notes: Sequence[str], profile: str, out: TextIO,
                encode: Encoder | None = None) -> None:
    """``{"profile", "measures", "notes"}`` on ``out``, each analysis's ``pairs.rows`` deferred."""
    doc = [{**a, "pairs": {**a["pairs"], "rows": Deferred(a["pairs"]["rows"])}} for a in analyses]
    write_json(out, {"profile": profile, "measures": doc, "notes": list(notes)}, encode, indent=1)
