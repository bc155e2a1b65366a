"""A run given by path to ``diff --run`` and ``verify``: a TREC run file, or ranx's JSON
(``Run.save``: topic -> doc -> score)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from auditeval.vocab.model import Run

__all__ = ["read_run_path"]


def read_run_path(path: str) -> Run:
    """The run at ``path``: a ``.json`` file is ranx's ``Run.save`` format, a topic -> doc ->
    score dict (read by :func:`auditeval.io.memory.run_from`, named for the file's stem); any
    other path is read as a TREC run by :func:`auditeval.io.memory.run_from`. Not valid JSON,
    or JSON of another shape, is an :class:`~auditeval.vocab.errors.InputError` at its line."""
    import json

    from auditeval.io.memory import run_from
    from auditeval.vocab.errors import InputError

    if str(path).endswith(".json"):
        from auditeval.io.files import read_text

        try:
            data = json.loads(read_text(path, allow_empty=False))
        except json.JSONDecodeError as exc:
            raise InputError(str(path), exc.lineno, f"not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise InputError(str(path), 1, "a JSON run must map topic -> doc -> score (ranx Run.save)")
        import os

        return run_from(data, name=os.path.splitext(os.path.basename(path))[0])
    return run_from(path)
