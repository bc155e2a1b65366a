"""Output written a block at a time, as bytes where the stream allows it.

A view that streams (the sweep's TSV and JSON) has its blocks encoded elsewhere (on the
backend's workers, :mod:`auditeval.render.sweep_out`) as UTF-8 bytes, already escaped as the
command's stream would escape them; the command then only writes them in order. A
:class:`Sink` is where they go: the binary buffer under the command's stdout (or an ``-o``
file), with the text layer flushed first, or, for any other stream (a ``StringIO`` in the
tests, a stdout in another encoding), the stream's own ``write`` of the decoded text (past its
escaping: the bytes are escaped already, and escaping is idempotent on them), so the bytes
that reach the file are those of writing the same text through the stream.

:func:`json_frame` splits a JSON document around one list into the text before its items and
the text after them, so the items can be streamed between the two: the same bytes as
``json.dumps(doc, indent=1)`` of the whole document (``tests/render/test_stream_out.py``).
"""

from __future__ import annotations

import codecs
import io
import json
import os
import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, TextIO

from auditeval.render.terminal import ControlSafeStream, escape_controls


class Sink:
    """Bytes (and text) to ``out`` in the order written. ``escapes``: whether ``out`` shows
    control characters escaped (a :class:`ControlSafeStream`), so that the block encoders
    escape the data's strings themselves (:func:`~auditeval.render.terminal.escape_controls`)."""

    def __init__(self, out: TextIO):
        self.out = out
        self.escapes = isinstance(out, ControlSafeStream)
        raw = out.raw if isinstance(out, ControlSafeStream) else out
        self._buffer = None
        if isinstance(raw, io.TextIOWrapper) and _is_utf8(raw.encoding) and os.linesep == "\n":
            raw.flush()
            self._buffer, self._errors = raw.buffer, raw.errors
        self.written = 0

    def text(self, text: str) -> None:
        """Write ``text`` as the stream writes it (escaped where the stream escapes)."""
        if self._buffer is None:
            self.out.write(text)
            return
        data = (escape_controls(text) if self.escapes else text).encode("utf-8", self._errors)
        self._buffer.write(data)
        self.written += len(data)

    def bytes(self, data: bytes | memoryview) -> None:
        """Write encoded bytes (UTF-8, escaped already where the stream escapes)."""
        if self._buffer is None:
            text = bytes(data).decode("utf-8")
            (self.out.write_trusted if isinstance(self.out, ControlSafeStream) else self.out.write)(text)
        else:
            self._buffer.write(data)
        self.written += len(data)

    def blocks(self, parts: Iterable[bytes], skip_first: int = 0) -> bool:
        """Write ``parts`` in order, the first ``skip_first`` bytes of the first non-empty part
        left out (a list's leading separator); whether any part was non-empty."""
        first = True
        for part in parts:
            if not part:
                continue
            self.bytes(memoryview(part)[skip_first:] if first else part)
            first = False
        return not first

    def flush(self) -> None:
        if self._buffer is not None:
            self._buffer.flush()


def _is_utf8(encoding: str | None) -> bool:
    try:
        return codecs.lookup(encoding or "").name == "utf-8"
    except LookupError:
        return False


@dataclass(frozen=True)
class JsonFrame:
    """A JSON document around one of its lists (:func:`json_frame`): ``head`` (up to the
    list's ``[``), ``pad`` (a line end and an item's indentation: what precedes each item, the
    item's own further lines indented by as much), ``close`` (after the last item: a line end,
    the key's indentation, ``]``) and ``tail`` (the rest, with the document's line end)."""

    head: str
    pad: str
    close: str
    tail: str
    level: int  # the key's indentation (the items one step deeper)


def json_frame(doc: dict[str, Any], key: str, indent: int = 1) -> JsonFrame:
    """``json.dumps(doc, indent=indent)`` and a line end (what
    :func:`~auditeval.render.json_out.write_json` writes) split around the list ``doc[key]``
    (its value left out here): the document is ``head``, then each item as ``json.dumps``
    writes it at that depth after ``pad``, items joined by ``,``, then ``close`` and
    ``tail`` -- or, for an empty list, ``head + "]" + tail``."""
    token = uuid.uuid4().hex
    text = json.dumps({**doc, key: token}, indent=indent)
    at = text.index(f'"{token}"')
    head, tail = text[:at], text[at + len(token) + 2:]
    line = head.rfind("\n") + 1
    level = len(head[line:]) - len(head[line:].lstrip(" "))
    return JsonFrame(head + "[", "\n" + " " * (level + indent), "\n" + " " * level + "]", tail + "\n", level)
