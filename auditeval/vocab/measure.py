"""Measure names: ir_measures spelling, trec_eval names as aliases.

Grammar (ir_measures')::

    measure  := NAME [ '(' param (',' param)* ')' ] [ '@' NUMBER ]
    param    := IDENT '=' value
    value    := INT | FLOAT | 'True' | 'False' | STRING | '{' INT ':' NUMBER (',' INT ':' NUMBER)* '}'

``str(parse_measure(s))`` is canonical (parameters sorted, numbers normalised), and
``parse_measure(str(m)) == m``. Syntax errors raise
:class:`~auditeval.vocab.errors.MeasureSyntaxError` with a caret under the offending character.

trec_eval names (``map``, ``P_10``, ``P.10``, ``ndcg_cut.10``, ``recip_rank``,
``iprec_at_recall_0.10``, ...) are accepted as aliases through
:data:`auditeval.vocab.specs.TREC_ALIASES` (built from the spec table).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from auditeval.vocab.errors import MeasureSyntaxError

ParamValue = int | float | bool | str | tuple[tuple[int, float], ...]


@dataclass(frozen=True)
class Measure:
    """A measure with its parameters and cut-off, e.g. ``nDCG(gains={0:0,1:1,2:3})@10``."""

    name: str
    params: tuple[tuple[str, ParamValue], ...] = ()
    cutoff: int | float | None = None

    def __str__(self) -> str:
        s = self.name
        if self.params:
            s += "(" + ",".join(f"{k}={format_value(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            s += "@" + format_number(self.cutoff)
        return s

    def param(self, key: str, default: Any = None) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return default

    def with_params(self, **changes: Any) -> Measure:
        d = dict(self.params)
        for k, v in changes.items():
            if v is None:
                d.pop(k, None)
            else:
                d[k] = v
        return Measure(self.name, tuple(sorted(d.items())), self.cutoff)

    def with_cutoff(self, cutoff: int | float | None) -> Measure:
        return Measure(self.name, self.params, cutoff)


def format_number(x: int | float) -> str:
    if isinstance(x, bool):
        return str(x)
    if isinstance(x, int):
        return str(x)
    if float(x).is_integer() and abs(x) < 1e15:
        return repr(float(x))  # 1.0 stays a float
    return repr(float(x))


def format_value(v: ParamValue) -> str:
    if isinstance(v, bool):
        return "True" if v else "False"
    if isinstance(v, int | float):
        return format_number(v)
    if isinstance(v, tuple):
        return "{" + ",".join(f"{k}:{format_number(g)}" for k, g in v) + "}"
    return repr(str(v))


# ------------------------------------------------------------------------------- parsing
_NAME = re.compile(r"[A-Za-z0-9_α][A-Za-z0-9_.]*")  # α: ir_measures' α_nDCG, α_DCG aliases
_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_NUM = re.compile(r"[+-]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][+-]?\d+)?")


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.i = 0

    def error(self, reason: str, pos: int | None = None) -> MeasureSyntaxError:
        return MeasureSyntaxError(self.text, self.i if pos is None else pos, reason)

    def peek(self) -> str:
        return self.text[self.i] if self.i < len(self.text) else ""

    def expect(self, ch: str) -> None:
        if self.peek() != ch:
            got = repr(self.peek()) if self.peek() else "end of text"
            raise self.error(f"expected {ch!r}, found {got}")
        self.i += 1

    def skip_ws(self) -> None:
        while self.peek() == " ":
            self.i += 1

    def number(self) -> int | float:
        m = _NUM.match(self.text, self.i)
        if not m:
            raise self.error("expected a number")
        self.i = m.end()
        s = m.group(0)
        return int(s) if re.fullmatch(r"[+-]?\d+", s) else float(s)

    def value(self) -> ParamValue:
        self.skip_ws()
        ch = self.peek()
        if ch == "{":
            self.i += 1
            items: list[tuple[int, float]] = []
            while True:
                self.skip_ws()
                if self.peek() == "}":
                    self.i += 1
                    break
                start = self.i
                k = self.number()
                if not isinstance(k, int):
                    raise self.error("gain keys must be integer grades", start)
                if any(k == seen for seen, _ in items):
                    raise self.error(f"gain for grade {k} given twice", start)
                self.skip_ws()
                self.expect(":")
                self.skip_ws()
                g = self.number()
                items.append((k, g))
                self.skip_ws()
                if self.peek() == ",":
                    self.i += 1
                elif self.peek() != "}":
                    raise self.error("expected ',' or '}' in gains")
            return tuple(sorted(items))
        if ch and ch in "'\"":
            end = self.text.find(ch, self.i + 1)
            if end < 0:
                raise self.error("unterminated string")
            s = self.text[self.i + 1 : end]
            self.i = end + 1
            return s
        for word, val in (("True", True), ("False", False)):
            if self.text.startswith(word, self.i):
                self.i += len(word)
                return val
        return self.number()

    def measure(self) -> Measure:
        self.skip_ws()
        m = _NAME.match(self.text, self.i)
        if not m:
            raise self.error("expected a measure name")
        name = m.group(0)
        self.i = m.end()
        params: dict[str, ParamValue] = {}
        if self.peek() == "(":
            self.i += 1
            while True:
                self.skip_ws()
                if self.peek() == ")":
                    self.i += 1
                    break
                pm = _IDENT.match(self.text, self.i)
                if not pm:
                    raise self.error("expected a parameter name")
                key = pm.group(0)
                if key in params:
                    raise self.error(f"parameter {key!r} given twice")
                self.i = pm.end()
                self.skip_ws()
                self.expect("=")
                params[key] = self.value()
                self.skip_ws()
                if self.peek() == ",":
                    self.i += 1
                elif self.peek() != ")":
                    raise self.error("expected ',' or ')'")
        cutoff = None
        if self.peek() == "@":
            self.i += 1
            cutoff = self.number()
        self.skip_ws()
        if self.i != len(self.text):
            raise self.error(f"unexpected {self.peek()!r}")
        return Measure(name, tuple(sorted(params.items())), cutoff)


def parse_syntax(text: str) -> Measure:
    """Parse the ir_measures syntax only (no alias resolution, no validation)."""
    return _Parser(text).measure()
