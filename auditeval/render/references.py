"""The table of ``auditeval references list`` / ``build``: text within the width, or JSON."""

from __future__ import annotations

from typing import Any, TextIO

__all__ = ["render_build_note", "render_references"]


def render_references(rows: list[Any], fmt: str, out: TextIO) -> None:
    """``rows``: objects with ``name kind status version where`` and ``as_dict()``."""
    if fmt == "json":
        from auditeval.render.json_out import write_json

        write_json(out, {"references": [r.as_dict() for r in rows]}, indent=1)
        return
    from auditeval.render.textgrid import grid
    from auditeval.render.width import detect_width

    width = detect_width(out)
    ready = sum(r.status == "ready" for r in rows)
    out.write(f"references: {ready} of {len(rows)} ready\n")
    for kind in dict.fromkeys(r.kind for r in rows):
        table = [[r.name, r.status, "; ".join(x for x in (r.version, r.where) if x)] for r in rows if r.kind == kind]
        out.write(f"\n{kind}:\n")
        lines = grid(["reference", "status", "version; where or how"], table, width, wrap_cols=[2])
        out.write("".join(x + "\n" for x, _ in lines))


def render_build_note(made: list[str], folder: Any, seconds: float, err: TextIO) -> None:
    """``references build``'s one line: how many releases (``made``, their versions) were built
    into ``folder`` in ``seconds`` (none made: all were built already)."""
    err.write(f"note: built {len(made)} trec_eval release(s) into {folder} in "
              f"{seconds:.1f} s{': ' + ' '.join(made) if made else ' (all were built)'}\n")
