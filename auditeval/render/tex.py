"""LaTeX and Markdown escaping shared by the audit, compare and card renderers.

LaTeX: every character TeX gives meaning to (``\\ { } $ & # ^ _ % ~ < > |``) becomes its text
command, so an id compiles as text with pdflatex from texlive-latex-base alone (no booktabs,
no seqsplit). :func:`tex_breakable` also inserts ``\\allowbreak{}`` after every ``|`` (variant
strings break only between their parts) and inside any run of more than ``chunk`` characters
without a break point, so no cell of a ``p{}`` column is wider than its column (pdflatex
reports no overfull ``\\hbox``).

Markdown: :func:`md_escape` puts a backslash before every ASCII punctuation character
CommonMark and GitHub give meaning to (``\\ ` * _ { } [ ] ( ) # + - . ! | $ ~``; CommonMark
spec 0.30, section 2.4 "Backslash escapes": any ASCII punctuation may be escaped) and writes
``< > &`` as entities, so an id can neither break a table cell nor inject markup, math or a
link.
"""

from __future__ import annotations

import re

__all__ = ["md_escape", "tex_breakable", "tex_escape"]

_TEX = {"\\": r"\textbackslash{}", "{": r"\{", "}": r"\}", "$": r"\$", "&": r"\&", "#": r"\#",
        "^": r"\textasciicircum{}", "_": r"\_", "%": r"\%", "~": r"\textasciitilde{}", "<": r"\textless{}",
        ">": r"\textgreater{}", "|": r"\textbar{}", "\n": " ", "\r": " ", "\t": " "}
_BREAK_AFTER = set("|,;/=-_.:)]}")


def tex_escape(text: object) -> str:
    """``text`` with every TeX special character as its text command (no break points)."""
    return "".join(_TEX.get(ch, ch) for ch in str(text))


def tex_breakable(text: object, chunk: int = 12) -> str:
    """``text`` escaped, with a break point after every ``|`` and separator, and after every
    ``chunk`` characters of a run with none (so a long id wraps inside a ``p{}`` column)."""
    out: list[str] = []
    run = 0
    for ch in str(text):
        out.append(_TEX.get(ch, ch))
        if ch.isspace():
            run = 0
        elif ch in _BREAK_AFTER or run + 1 >= chunk:
            out.append(r"\allowbreak{}")
            run = 0
        else:
            run += 1
    return "".join(out)


_MD = re.compile(r"([\\`*_{}\[\]()#+\-.!|$~])")


def md_escape(text: object) -> str:
    """An id for Markdown text or a table cell: punctuation backslash-escaped, ``< > &`` as
    entities, line breaks as spaces."""
    s = str(text).replace("\r", " ").replace("\n", " ")
    s = s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return _MD.sub(r"\\\1", s)
