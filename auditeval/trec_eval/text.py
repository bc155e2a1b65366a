"""The drop-in's text is bytes, as trec_eval's is: C reads and writes ids, run tags, file
names and arguments as bytes and never decodes them.

Inside the drop-in every such string holds one character per byte (Latin-1, a bijection
of the 256 byte values), so ``d\\xe91`` (not UTF-8) and ``dé`` (UTF-8 ``c3 a9``) are two
different ids, each written back as the bytes it was read as. Comparisons keep trec_eval's
``strcmp`` order: UTF-8, which Arrow holds, orders code points as their bytes, and a
code point here is the byte.

The boundary is :func:`from_arg` (an argument, as Python decoded it from the command line,
back to its bytes), :func:`fs_path` (such a string to the name the file system opens) and
:class:`ByteWriter` (what the drop-in writes, back to the command line's convention: the
file-system encoding with ``surrogateescape``, which writes every byte as it was read).
"""

from __future__ import annotations

import os
from typing import TextIO


def from_arg(arg: str) -> str:
    """A command-line argument (decoded by Python with the file-system encoding and
    ``surrogateescape``) as its bytes, one character per byte."""
    return arg if arg.isascii() else os.fsencode(arg).decode("latin-1")


def field(raw: bytes) -> str:
    """A field of an input line, one character per byte."""
    return raw.decode("latin-1")


def fs_path(name: str) -> str:
    """A file name held one character per byte, as the file system takes it."""
    return name if name.isascii() else os.fsdecode(name.encode("latin-1"))


def shown(text: str) -> str:
    """Drop-in text (one character per byte) as the command line's convention holds it."""
    if text.isascii():
        return text
    try:
        raw = text.encode("latin-1")
    except UnicodeEncodeError:  # the drop-in's own words (never from the input): as they are
        return text
    return os.fsdecode(raw)


class ByteWriter:
    """A text stream that writes drop-in text (one character per byte) as the bytes it holds:
    ``write`` goes to ``stream`` through :func:`shown`; a real console stream is set to
    ``surrogateescape`` so bytes that are not UTF-8 reach it unchanged."""

    def __init__(self, stream: TextIO):
        self._stream = stream
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None and getattr(stream, "errors", "strict") != "surrogateescape":
            try:
                reconfigure(errors="surrogateescape")
            except (ValueError, OSError):  # pragma: no cover (a stream that cannot change)
                pass

    def write(self, text: str) -> int:
        return self._stream.write(shown(text))

    def flush(self) -> None:
        self._stream.flush()

    def __getattr__(self, name: str):
        return getattr(self._stream, name)
