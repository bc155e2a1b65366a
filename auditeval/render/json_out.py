"""One JSON document to an output stream in one write.

``json.dump(doc, out)`` writes each token: 2.3 million writes for compare's 19,900 pairs, each
through the console's escaping of control characters (:mod:`auditeval.render.terminal`), 12 of
the command's 13 serial seconds. ``json.dumps`` then one ``write`` gives the same
bytes.

A long list of a document can be :class:`Deferred`: its items are encoded apart, in blocks,
by ``encode`` (a command maps :func:`items_text` over its backend: compare's 19,900 pair rows
were 0.9 s of Python's indenting encoder in the command after the last task), and written
where the list stands, a block at a time as they come (the document's text is never held with
them), the same bytes as ``json.dumps(doc, indent=1)`` of the plain list
(``tests/render/test_json_out.py``)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable, Iterable, Sequence
from typing import Any, TextIO

BLOCK = 2048
"""Items of a :class:`Deferred` list per block (a task's share)."""


class Deferred:
    """A list whose items are encoded apart (:func:`write_json`'s ``encode``)."""

    def __init__(self, items: Sequence[Any]):
        self.items = items


def items_text(_shared: Any, block: tuple[Sequence[Any], int]) -> str:
    """The items of a list at indentation ``level`` (``json.dumps(..., indent=1)``), each as
    the list's encoder writes it: a line end, the item's indentation, the item (its own lines
    indented below it), items joined by commas. A task function."""
    items, level = block
    pad = "\n" + " " * (level + 1)
    return ",".join(pad + json.dumps(item, indent=1).replace("\n", pad) for item in items)


Encoder = Callable[[list[tuple[Sequence[Any], int]]], Iterable[str]]
"""``encode(blocks)``: :func:`items_text` of each block, in order (a backend's map)."""


def write_json(out: TextIO, doc: Any, encode: Encoder | None = None, **kwargs: Any) -> None:
    """``json.dump(doc, out, **kwargs)`` and a newline, as one write -- or, with a
    :class:`Deferred` list (with ``indent=1`` only), as the text around it and its blocks: the
    list is encoded by ``encode`` in blocks of :data:`BLOCK` items (None: here), each block
    written as it comes, where a placeholder string stood in the document's text (a JSON string
    cannot hold a raw line end, so an item's line ends are all its own, and the placeholder is a
    fresh UUID)."""
    deferred: list[Deferred] = []
    token = uuid.uuid4().hex

    def placeholder(o: Any) -> Any:
        if isinstance(o, Deferred) and kwargs.get("indent") == 1:
            deferred.append(o)
            return f"{token}-{len(deferred) - 1}"
        if isinstance(o, Deferred):
            return list(o.items)
        raise TypeError(f"Object of type {type(o).__name__} is not JSON serializable")

    text = json.dumps(doc, default=placeholder, **kwargs)
    at = 0  # what of ``text`` is written
    for k, d in enumerate(deferred):
        mark = f'"{token}-{k}"'
        where = text.index(mark, at)
        line = text.rfind("\n", 0, where) + 1
        level = len(text[line:where]) - len(text[line:where].lstrip(" "))  # the list's key line: its level
        out.write(text[at:where])
        at = where + len(mark)
        if not d.items:
            out.write("[]")
            continue
        blocks = [(d.items[a:a + BLOCK], level) for a in range(0, len(d.items), BLOCK)]
        parts = encode(blocks) if encode is not None else (items_text(None, b) for b in blocks)
        out.write("[")
        for n, part in enumerate(parts):  # each block written as it arrives: the list is never held whole
            out.write(part if n == 0 else "," + part)
        out.write("\n" + " " * level + "]")
    out.write(text[at:] + "\n")
