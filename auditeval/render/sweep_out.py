"""The sweep's TSV and JSON values, encoded a block of variants at a time, column-wise, as bytes.

A block is a range of one measure's variants, every run, and per (variant, run) the evaluated
topics (``-q``) then ``all`` where there is an aggregate: the lines (TSV) or the items of the
``values`` list (JSON) in the order the views have always written them (per measure, variant,
run, topic). :func:`encode_block` is a task function: the command maps it over
:func:`blocks` on its backend and writes what comes back, in order
(:class:`~auditeval.render.stream.Sink`), so the encoding runs where the evaluation ran and
the command never holds more than the blocks in flight.

A numeric block is built as Arrow string columns joined element-wise: per cell the texts of
its run, variant and topic are gathered (``take``) from arrays made once per block (each
string escaped or JSON-quoted once), the value's text made once per distinct float64 bit
pattern (:func:`~auditeval.render.text_columns.text_column`: ``repr`` in TSV, what
``json.dumps`` writes in JSON: ``NaN``, ``Infinity``), and one ``binary_join_element_wise``
makes the lines. The bytes are those of the views' former record-by-record writers (the
records of :func:`records`; ``tests/render/test_stream_out.py``). A text measure's block (values are
Python strings) is written record by record.

orjson was considered for JSON: it indents by two spaces only (the document is ``indent=1``),
and a sweep's items are a fixed template around four texts, which the columns fill faster than
any encoder walking dicts.
"""

from __future__ import annotations

import json
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, TextIO

import numpy as np
import pyarrow as pa

from auditeval.render.stream import Sink, json_frame
from auditeval.render.terminal import _has_control, escape_controls
from auditeval.render.text_columns import _data, text_column
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.conventions import AXES

LINES_PER_BLOCK = 1 << 14
"""Lines (TSV) or items (JSON) of a block, about: a block is whole variants (every run's)."""


@dataclass(frozen=True)
class Layout:
    """What every block of one measure reads: the format (``tsv`` or ``json``), the measure's
    label and value kind (``fmt``: ``float``, ``int``, ``str``), the runs, the topic slots
    written (the topics under ``-q``, then ``all``), the engine, and whether the stream shows
    control characters escaped (``escapes``: TSV escapes its strings as that stream would;
    JSON's own escaping leaves no control character)."""

    kind: str
    label: str
    fmt: str
    runs: tuple[str, ...]
    slots: tuple[str, ...]
    engine: str
    escapes: bool


@dataclass(frozen=True)
class Block:
    """One block's data: its measure's :class:`Layout` (an index into the shared layouts),
    the variant strings, ``values[v, r, t]`` and ``evaluated`` over the written topics (None
    without ``-q``), ``aggregates[v, r]`` and ``has_all[v, r]`` (an aggregate is written)."""

    layout: int
    variants: list[str]
    values: np.ndarray | None
    evaluated: np.ndarray | None
    aggregates: np.ndarray
    has_all: np.ndarray


def blocks(res: Any, per_topic: bool, kind: str, escapes: bool) -> tuple[tuple[Layout, ...], list[Block]]:
    """The layouts (one per measure, what :func:`encode_block` shares) and the blocks of a
    sweep result's values (``res``: a :class:`~auditeval.engine.SweepResult`), views of its
    arrays, in output order."""
    layouts, out = [], []
    for label, b in res.blocks.items():
        n_v, n_r, n_t = b.values.shape
        topics = n_t if per_topic else 0
        layouts.append(Layout(kind, label, b.fmt, tuple(b.runs), (*b.topics[:topics], "all"), res.engine, escapes))
        has_all = np.full((n_v, n_r), b.agg != "none")
        for vi, ri in b.errors:
            has_all[vi, ri] = False
        step = max(1, LINES_PER_BLOCK // max(1, n_r * (topics + 1)))
        for v0 in range(0, n_v, step):
            v1 = min(n_v, v0 + step)
            out.append(Block(len(layouts) - 1, b.variants[v0:v1],
                             b.values[v0:v1, :, :topics] if topics else None,
                             b.evaluated[v0:v1, :, :topics] if topics else None,
                             b.aggregates[v0:v1], has_all[v0:v1]))
    return tuple(layouts), out


def encode_block(layouts: Sequence[Layout], block: Block) -> bytes:
    """The UTF-8 bytes of one block: TSV lines, or JSON items each preceded by ``,`` (the
    writer drops the first one of the list). A task function."""
    lay = layouts[block.layout]
    if lay.fmt == "str":
        return _records_text(lay, block).encode("utf-8")
    keep, cells = _cells(block)
    at = np.flatnonzero(keep)  # C order: variant, run, slot
    if not len(at):
        return b""
    v_i, r_i, s_i = (from_numpy(i.astype(np.int64)) for i in np.unravel_index(at, keep.shape))
    value_text = _tsv_value if lay.kind == "tsv" else _json_value
    values = text_column(cells.reshape(-1)[at], lambda x: value_text(x, lay.fmt), memo={})
    if lay.kind == "tsv":
        runs, slots, variants = (_tsv_strings(s, lay.escapes) for s in (lay.runs, lay.slots, block.variants))
        label, engine = (escape_controls(t) if lay.escapes else t for t in (lay.label, lay.engine))
        parts = [pc.take(runs, r_i), pa.scalar(f"\t{label}\t"), pc.take(slots, s_i), pa.scalar("\t"), values,
                 pa.scalar("\t"), pc.take(variants, v_i), pa.scalar(f"\t{engine}\n")]
    else:
        runs = _json_strings(lay.runs, ',\n  {\n   "run": ', f',\n   "measure": {json.dumps(lay.label)},\n   "variant": ')
        variants = _json_strings(block.variants, "", f',\n   "engine": {json.dumps(lay.engine)},\n   "topic": ')
        slots = _json_strings(lay.slots, "", ',\n   "value": ')
        parts = [pc.take(runs, r_i), pc.take(variants, v_i), pc.take(slots, s_i), values, pa.scalar("\n  }")]
    return bytes(_data(pc.binary_join_element_wise(*parts, pa.scalar(""))))


def _cells(block: Block) -> tuple[np.ndarray, np.ndarray]:
    """``(keep, cells)`` over (variant, run, slot): the topics' values then the aggregate."""
    if block.values is None:
        return block.has_all[:, :, None], block.aggregates[:, :, None]
    return (np.concatenate([block.evaluated, block.has_all[:, :, None]], axis=2),
            np.concatenate([block.values, block.aggregates[:, :, None]], axis=2))


def _tsv_value(x: float, fmt: str) -> str:
    """A TSV value: ``repr`` of the float (every digit), or the integer."""
    return str(int(round(x))) if fmt == "int" else repr(float(x))


def _json_value(x: float, fmt: str) -> str:
    """A JSON value as ``json.dumps`` writes it: the float's ``repr`` (``NaN``, ``Infinity``,
    ``-Infinity`` for the others), or the integer."""
    if fmt == "int":
        return str(int(round(x)))
    if math.isfinite(x):
        return repr(float(x))
    return "NaN" if x != x else ("Infinity" if x > 0 else "-Infinity")


def _tsv_strings(texts: Sequence[str], escapes: bool) -> pa.Array:
    """The texts as the stream writes them: control characters escaped where it escapes."""
    if escapes and _has_control("".join(texts)):
        texts = [escape_controls(t) for t in texts]
    return pa.array(list(texts), pa.string())


_PLAIN = frozenset(range(0x20, 0x7F)) - {ord('"'), ord("\\")}


def _json_strings(texts: Sequence[str], before: str, after: str) -> pa.Array:
    """``before + json.dumps(t) + after`` per text; when every text is printable ASCII without
    ``"`` or ``\\`` (one check over them all), ``json.dumps`` only quotes, done column-wise."""
    together = "".join(texts)
    if together.isascii() and _PLAIN.issuperset(together.encode("ascii")):
        arr = pa.array(list(texts), pa.string())
        return pc.binary_join_element_wise(pa.scalar(before + '"'), arr, pa.scalar('"' + after), pa.scalar(""))
    return pa.array([before + json.dumps(t) + after for t in texts], pa.string())


def records(lay: Layout, block: Block) -> Iterator[tuple[str, str, Any]]:
    """``(run, variant, topic, value)`` of each value the block writes, in order, the value
    as the views give it (a float, an integer, a text)."""
    topics = len(lay.slots) - 1
    for vi, variant in enumerate(block.variants):
        for ri, run in enumerate(lay.runs):
            if topics:
                for t in np.flatnonzero(block.evaluated[vi, ri]).tolist():
                    yield run, variant, lay.slots[t], _full(block.values[vi, ri, t], lay.fmt)
            if block.has_all[vi, ri]:
                yield run, variant, "all", _full(block.aggregates[vi, ri], lay.fmt)


def _full(x: Any, fmt: str) -> Any:
    if fmt == "str":
        return str(x)
    return int(round(x)) if fmt == "int" else float(x)


def _records_text(lay: Layout, block: Block) -> str:
    """A text measure's block, record by record."""
    if lay.kind == "tsv":
        text = "".join(f"{run}\t{lay.label}\t{topic}\t{value}\t{variant}\t{lay.engine}\n"
                       for run, variant, topic, value in records(lay, block))
        return escape_controls(text) if lay.escapes else text
    return "".join(
        "," + ("\n" + json.dumps({"run": run, "measure": lay.label, "variant": variant, "engine": lay.engine,
                                  "topic": topic, "value": value}, indent=1)).replace("\n", "\n  ")
        for run, variant, topic, value in records(lay, block))


# ----------------------------------------------------------------------------- the views
def value_records(res: Any, per_topic: bool) -> Iterator[tuple[str, str, str, list[tuple[str, Any]]]]:
    """Per measure, variant and run (in that order): ``(run, label, variant, pairs)``, ``pairs``
    the (topic, value) of each evaluated topic (``per_topic``), then ``("all", aggregate)``
    where there is one (:func:`_block_records`)."""
    for label, b in res.blocks.items():
        yield from _block_records(label, b, per_topic)


def _block_records(label: str, b: Any, per_topic: bool) -> Iterator[tuple[str, str, str, list[tuple[str, Any]]]]:
    """:func:`value_records` of one measure's block; a group at a time, the values made Python
    objects at once."""
    topics = np.asarray(b.topics, dtype=object)
    for vi, variant in enumerate(b.variants):
        for ri, run in enumerate(b.runs):
            pairs: list[tuple[str, Any]] = []
            if per_topic:
                where = np.flatnonzero(b.evaluated[vi, ri])
                values = b.values[vi, ri, where].tolist()  # float64 -> Python floats: float(x) of each
                pairs = list(zip(topics[where].tolist(),
                                 values if b.fmt == "float" else [_full(x, b.fmt) for x in values], strict=True))
            if (vi, ri) not in b.errors and b.agg != "none":
                pairs.append(("all", _full(b.aggregates[vi, ri], b.fmt)))
            yield run, label, variant, pairs


def _here(fn: Any, shared: Any, items: list) -> Iterator[bytes]:
    return (fn(shared, item) for item in items)


Mapper = Callable[[Callable[[Any, Any], bytes], Any, list], Iterable[bytes]]
"""``mapper(fn, shared, items)``: ``fn(shared, item)`` of each item, in order (a backend's map)."""


def render_tsv(res: Any, out: TextIO, per_topic: bool = False, mapper: Mapper | None = None) -> None:
    """One line per value (``run measure topic value variant engine``), per measure, variant and
    run in that order, the topics before ``all``: blocks of variants encoded as bytes by
    ``mapper`` (the command's backend; None: here) and written in order (a 200-run
    ``--vary all`` sweep is 13.8 million lines, 2.6 GB, never held whole)."""
    sink = Sink(out)
    sink.text("run\tmeasure\ttopic\tvalue\tvariant\tengine\n")
    layouts, parts = blocks(res, per_topic, "tsv", sink.escapes)
    sink.blocks((mapper or _here)(encode_block, layouts, parts))


def render_json(res: Any, out: TextIO, per_topic: bool = False, mapper: Mapper | None = None) -> None:
    """``{"profile", "varied", "notes", "values": [{"run", "measure", "variant", "engine",
    "topic", "value"}, ...]}`` (``indent=1``), the values streamed a block at a time as
    :func:`render_tsv`'s lines are (:func:`~auditeval.render.stream.json_frame`)."""
    doc = {
        "profile": res.profile,
        "varied": {a: [AXES[a].format(v) for v in vs] for a, vs in res.varied.items()},
        "notes": res.notes,
    }
    frame = json_frame({**doc, "values": None}, "values")
    sink = Sink(out)
    sink.text(frame.head)
    layouts, parts = blocks(res, per_topic, "json", sink.escapes)
    wrote = sink.blocks((mapper or _here)(encode_block, layouts, parts), skip_first=1)
    sink.text((frame.close if wrote else "]") + frame.tail)
