"""Output to a terminal that is not UTF-8 (``LANG=C``, ``PYTHONIOENCODING=ascii``).

The text views draw rules and boxes (``─``, ``┏``), separators (``·``) and arrows; written to
an ASCII stream they would raise ``UnicodeEncodeError`` mid-report. :func:`safe_stream` wraps
such a stream: rich sees its encoding and draws ASCII boxes itself, and whatever text still
holds a character the encoding lacks is transliterated (``─`` -> ``-``, ``·`` -> ``-``, ``→`` ->
``->``) or, failing that, replaced by ``?`` (ids keep their place; nothing is dropped).
"""

from __future__ import annotations

import codecs
from typing import TextIO

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
