"""What reaches a terminal: no control sequence from the data, and no encoding error.

**Control characters.** Ids, tags and messages come from the user's files: a run whose doc id
holds ``ESC]0;...BEL`` would set the title of whoever views its evaluation, ``ESC[2J`` clear the
screen. :func:`escape_controls` shows every C0/C1 control character but newline and tab as
``\\xNN`` (and the bidirectional overrides as ``\\uNNNN``). Every command's stdout and stderr
(but the trec_eval drop-in's, which writes what trec_eval writes) pass through a
:class:`ControlSafeStream`; rich consoles made by :func:`console` escape the text of every
segment they render but keep the colour codes rich itself adds, and write them past the escaping
(``write_trusted``).

**Encodings** (``LANG=C``, ``PYTHONIOENCODING=ascii``).

The text views draw rules and boxes (``─``, ``┏``), separators (``·``) and arrows; written to
an ASCII stream they would raise ``UnicodeEncodeError`` mid-report. :func:`safe_stream` wraps
such a stream: rich sees its encoding and draws ASCII boxes itself, and whatever text still
holds a character the encoding lacks is transliterated (``─`` -> ``-``, ``·`` -> ``-``, ``→`` ->
``->``) or, failing that, replaced by ``?`` (ids keep their place; nothing is dropped).
"""

from __future__ import annotations

import codecs
import re
from functools import cache
from typing import Any, TextIO

_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def _shown(m: re.Match) -> str:
    c = ord(m.group())
    return f"\\x{c:02x}" if c < 0x100 else f"\\u{c:04x}"


_SHOWN_AS_IS = bytes([*range(0x20, 0x7F), *range(0xA0, 0x100)])
"""The Latin-1 bytes :data:`_CONTROL` leaves alone, besides ``\\n`` and ``\\t``."""


_CHUNK = 1 << 24
"""Characters checked as bytes at a time by :func:`_has_control` (16 MB copies)."""


def _has_control(text: str) -> bool:
    """Whether :data:`_CONTROL` matches somewhere in ``text``. A text of Latin-1 characters
    only (the views' own text, the ids of most data) is checked as bytes: deleting every byte
    shown as is leaves the line ends, tabs and control characters, one C pass (a 70 MB sweep
    view: 0.15 s, against 0.60 s for the regular expression's search); other texts by the search."""
    for start in range(0, len(text), _CHUNK):  # a bounded copy at a time, not the whole view's
        try:
            rest = text[start:start + _CHUNK].encode("latin-1").translate(None, _SHOWN_AS_IS)
        except UnicodeEncodeError:
            return _CONTROL.search(text, start) is not None
        if rest.translate(None, b"\n\t"):
            return True
    return False


def escape_controls(text: str) -> str:
    """``text`` with every control character but ``\\n`` and ``\\t`` shown escaped (``\\x1b``)."""
    return _CONTROL.sub(_shown, text) if _has_control(text) else text

_TRANSLIT = str.maketrans({
    **dict.fromkeys("─━═╌┄", "-"), **dict.fromkeys("│┃║", "|"),
    **dict.fromkeys("┏┓┗┛┳┻╋┣┫┡┩╇┼├┤┬┴└┘┌┐╭╮╰╯╞╡╪", "+"),
    "·": "-", "…": "...", "—": "-", "–": "-", "→": "->", "←": "<-", "≤": "<=", "≥": ">=", "×": "x", "±": "+-",
})


def is_utf(stream: TextIO) -> bool:
    enc = getattr(stream, "encoding", None) or "utf-8"
    try:
        return codecs.lookup(enc).name.startswith("utf")
    except LookupError:
        return False


class SafeStream:
    """A text stream writing to ``stream`` in its encoding without ever raising for a character."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        self.encoding = stream.encoding

    def write(self, text: str) -> int:
        text = text.translate(_TRANSLIT).encode(self.encoding, "replace").decode(self.encoding)
        return self._stream.write(text)

    def __getattr__(self, name: str):  # flush, isatty, fileno, ...
        return getattr(self._stream, name)


def safe_stream(stream: TextIO) -> TextIO:
    """``stream`` itself when it is UTF-8, else a :class:`SafeStream` over it."""
    return stream if is_utf(stream) else SafeStream(stream)  # type: ignore[return-value]


class ControlSafeStream:
    """A text stream that shows control characters escaped (:func:`escape_controls`);
    ``write_trusted`` passes text already made safe (a :class:`SafeConsole`'s output)."""

    def __init__(self, stream: TextIO):
        self._stream = stream

    def write(self, text: str) -> int:
        return self._stream.write(escape_controls(text))

    def write_trusted(self, text: str) -> int:
        return self._stream.write(text)

    @property
    def raw(self) -> TextIO:
        """The stream underneath (for a rich progress display, whose own text is not the data's)."""
        return self._stream

    def __getattr__(self, name: str):  # flush, isatty, fileno, encoding, getvalue, ...
        return getattr(self._stream, name)


def control_safe(stream: TextIO) -> TextIO:
    """``stream`` wrapped in a :class:`ControlSafeStream` (once)."""
    return stream if isinstance(stream, ControlSafeStream) else ControlSafeStream(stream)  # type: ignore[return-value]


def write_trusted(out: TextIO, text: str) -> None:
    """Write a :class:`SafeConsole`'s output: past the escaping of a :class:`ControlSafeStream`."""
    (out.write_trusted if isinstance(out, ControlSafeStream) else out.write)(text)


@cache
def _safe_console_class() -> type:
    """:class:`SafeConsole`, made on first use: rich loads only when a console is drawn (every
    command's streams pass through this module; ``eval --format tsv`` draws none)."""
    from rich.console import Console
    from rich.segment import Segment

    class SafeConsole(Console):
        """A rich console whose rendered text has control characters escaped; rich's own styles
        (colour codes) and control segments (cursor moves of a live display) are kept."""

        def _render_buffer(self, buffer: Any) -> str:
            return super()._render_buffer(
                seg if seg.control else Segment(escape_controls(seg.text), seg.style, seg.control) for seg in buffer
            )

    return SafeConsole


def __getattr__(name: str) -> Any:
    if name == "SafeConsole":
        return _safe_console_class()
    raise AttributeError(f"module 'auditeval.render.terminal' has no attribute {name!r}")


def console(file: TextIO, **kwargs: Any) -> Any:
    """A ``SafeConsole`` (a rich ``Console`` escaping the data's control characters) writing to
    ``file`` (past a :class:`ControlSafeStream`'s escaping: the console escapes the data itself
    and keeps its colour codes)."""
    target = file.raw if isinstance(file, ControlSafeStream) else file
    return _safe_console_class()(file=target, **kwargs)
