"""The sweep's text view: per measure its variant under the profile, then tables of the
variants that depart from it (their departures, ``axis=value``) against the runs.

Every value carries its variant string: in text, each measure's variant under the profile
is printed once and each row names only the axes that depart from it (the full strings do
not fit 100 columns); TSV and JSON (:mod:`auditeval.render.sweep_out`) give the full string
on every value.
"""

from __future__ import annotations

import math
from collections.abc import Iterator
from functools import partial
from typing import Any, TextIO

import numpy as np
import pyarrow as pa

from auditeval.render.text_columns import (
    _is_ascii,
    join_rows,
    longest,
    longest_word,
    text_column,
    wrapped_column,
)
from auditeval.render.textgrid import wrap, wrap_variant
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.conventions import AXES
from auditeval.vocab.variant import Variant, fold, parse_measure

WIDTH = 100  # when the caller gives no width
RUNS_PER_TABLE = 6


def _value_text(x: Any, fmt: str) -> str:
    if fmt == "str":
        return "-" if x is None else str(x)
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return str(int(round(x))) if fmt == "int" else f"{x:.4f}"


def departures(block: Any, res: Any, label: str) -> list[str]:
    """Per variant: the axes (``axis=value``) where it departs from the profile's variant
    (``label``: the block's measure label in ``res``), space-separated, or ``(the profile)``.

    Read from the variant strings the block holds (``MEASURE|axis=value|...``, the measure
    folded): an ``axis=value`` part departs when it differs from the profile's own text for
    that axis (a value and its canonical text determine each other, :meth:`~auditeval.vocab.conventions.Axis.format`).
    Rebuilding each variant from its convention cost more than the rest of the text view; the
    parts are split, matched and joined column-wise (Arrow) when the strings are ASCII (byte
    offsets are then character offsets), else one string at a time."""
    m2, base = fold(parse_measure(block.measure), res.base_for(label))
    profile = [f"{a}={AXES[a].format(getattr(base, a))}" for a in AXES]
    skip = len(str(m2)) + 1  # the measure and its '|'
    texts = pa.array(list(block.variants), pa.string())
    if not _is_ascii(texts):
        return [_departure(text[skip:], set(profile)) for text in block.variants]
    parts = pc.split_pattern(pc.utf8_slice_codeunits(texts, start=skip), pattern="|")
    flat = pc.list_flatten(parts)
    keep = pc.invert(pc.or_(pc.is_in(flat, value_set=pa.array(profile, pa.string())),
                            pc.equal(pc.utf8_length(flat), 0))).to_numpy(zero_copy_only=False)
    offsets = parts.offsets.to_numpy()
    owner = np.repeat(np.arange(len(texts)), np.diff(offsets))
    counts = np.bincount(owner[keep], minlength=len(texts))
    kept_offsets = np.zeros(len(texts) + 1, np.int32)
    np.cumsum(counts, out=kept_offsets[1:])
    kept = pa.ListArray.from_arrays(pa.array(kept_offsets), pc.array_filter(flat, from_numpy(keep)))
    out = pc.if_else(from_numpy(counts == 0), pa.scalar("(the profile)", pa.string()), pc.binary_join(kept, " "))
    return out.to_pylist()


def _departure(rest: str, profile: set[str]) -> str:
    """One variant's departures from its ``axis=value`` parts (``rest``: after the measure's ``|``)."""
    diff = [part for part in rest.split("|") if part and part not in profile]
    return " ".join(diff) if diff else "(the profile)"


DEPARTS = "departs from the profile"


def _tables(b: Any, dep: list[str], width: int) -> Iterator[str]:
    """The tables of ``b``'s runs, :data:`RUNS_PER_TABLE` side by side: a head line, then per
    variant its departures (``dep``, :func:`departures`) and one right-aligned cell per run
    (:func:`_column`), the departures column as wide as the runs leave room for (never narrower
    than its longest word) and wrapped once per width (:func:`wrapped_column`)."""
    word = longest_word(dep)
    widest = max([len(DEPARTS), *map(len, dep)])
    wrapped: dict[int, tuple[pa.Array, pa.Array]] = {}  # departures column width -> each row's lines
    failed = _failed_by_run(b)
    for g0 in range(0, max(len(b.runs), 1), RUNS_PER_TABLE):
        group = list(range(g0, min(g0 + RUNS_PER_TABLE, len(b.runs))))
        cols = [_column(b, ri, failed.get(ri)) for ri in group]
        heads = [f"r{ri + 1}" for ri in group]
        widths = [max(len(h), longest(col)) for h, col in zip(heads, cols, strict=True)]
        room = width - sum(wd + 2 for wd in widths)
        dw = min(widest, max(room, word))
        if dw not in wrapped:
            wrapped[dw] = wrapped_column(dep, dw, indent=2)
        first_lines, tails = wrapped[dw]
        yield (DEPARTS.ljust(dw) + "".join(f"  {h:>{wd}}" for h, wd in zip(heads, widths, strict=True)) + "\n"
               + join_rows(first_lines, dw, list(zip(cols, widths, strict=True)), tails))


def render_text(res: Any, out: TextIO, width: int = WIDTH) -> None:
    """Per measure: its variant under the profile, then one row per variant naming the axes
    that depart from it, one column per run (``r1``, ``r2``, ... listed on top as ``r1=LABEL``), at most
    :data:`RUNS_PER_TABLE` runs side by side (:func:`_tables`); every line fits ``width``
    columns (prose breaks at spaces, a variant string after a ``|``:
    :mod:`auditeval.render.textgrid`). The text is written a table at a time: a write per
    row, each through the stream's escaping of control characters, cost a fifth of the view;
    one write of the whole view (310 MB for 200 runs x 69,120 variants) joined it first, and
    that copy and the stream's pass over it were half of the view's 4 s."""
    text: list[str] = []
    w = text.append

    def para(text: str) -> None:
        w("".join(line + "\n" for line in wrap(text, width, indent=2)))

    para(f"sweep · profile {res.profile} · engine {res.engine}")
    varied = " · ".join(f"{a}={','.join(AXES[a].format(v) for v in vs)}" for a, vs in res.varied.items())
    para(f"varied: {varied or '(nothing)'}")
    blocks = list(res.blocks.items())
    runs = blocks[0][1].runs if blocks else []
    para("runs: " + ", ".join(f"r{i + 1}={name}" for i, name in enumerate(runs)))  # one token each: never split
    for label, b in blocks:
        m = parse_measure(b.measure)
        w("\n")
        para(f"{label}: {len(b.variants)} variant(s); under the profile:")
        w("".join(f"{line}\n" for line in wrap_variant(str(Variant.of(m, res.base_for(label))), width, indent=4,
                                                       first="  ")))
        out.write("".join(text))
        text.clear()
        for t in _tables(b, departures(b, res, label), width):
            out.write(t)
    for n in res.notes:
        para(f"note: {n}")
    out.write("".join(text))


def _failed_by_run(b: Any) -> dict[int, np.ndarray]:
    """Run index -> the variants refused on it (``b.errors``), as a bool mask."""
    out: dict[int, np.ndarray] = {}
    for vi, ri in b.errors:
        out.setdefault(ri, np.zeros(len(b.variants), bool))[vi] = True
    return out


def _column(b: Any, ri: int, failed: np.ndarray | None) -> pa.Array:
    """The text cells of run ``ri``, one per variant: ``error`` where the variant was refused,
    ``(per topic)`` for a text measure, else the aggregate (:func:`_value_text`), each
    distinct value formatted once (:func:`~auditeval.render.text_columns.text_column`)."""
    if b.fmt == "str":
        col = pa.array(["(per topic)"] * len(b.variants), pa.string())
        return col if failed is None else pc.if_else(from_numpy(failed), pa.scalar("error", pa.string()), col)
    return text_column(b.aggregates[:, ri], partial(_value_text, fmt=b.fmt), failed, "error",
                       decimals=4 if b.fmt == "float" else None)
