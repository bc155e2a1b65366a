"""``auditeval sweep QRELS RUN... [-m M]... [--profile P] [--vary AXIS[=V1,V2,...]]... [--vary all]``.

Every value carries its variant string: in text, each measure's variant under the profile
is printed once and each row names only the axes that depart from it (the full strings do
not fit 100 columns); TSV and JSON give the full string on every value.
"""

from __future__ import annotations

import argparse
import math
from collections.abc import Callable, Iterable, Iterator
from functools import partial
from typing import Any, TextIO

import numpy as np
import pyarrow as pa

from auditeval.cli.common import add_execution, add_measures, add_settings
from auditeval.engine import DEPTH_GRID, SweepBlock, SweepResult
from auditeval.render import sweep_out
from auditeval.render.eval_text import detect_width
from auditeval.render.progress import Steps
from auditeval.render.stream import Sink, json_frame
from auditeval.render.text_columns import join_rows, longest, text_column, wrapped_column
from auditeval.render.textgrid import wrap, wrap_variant
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import from_numpy
from auditeval.vocab.conventions import AXES, DEFAULT_PROFILE
from auditeval.vocab.errors import ConventionError
from auditeval.vocab.specs import DEFAULT_MEASURES
from auditeval.vocab.variant import Variant, fold, parse_measure

WIDTH = 100  # when the caller gives no width
RUNS_PER_TABLE = 6


def build_parser(p: argparse.ArgumentParser) -> None:
    p.description = "Evaluate runs under every variant of a profile along the varied axes."
    p.add_argument("qrels", help="qrels file (plain, .gz, - for stdin) or irds:DATASET_ID")
    p.add_argument("runs", nargs="+", help="run files (plain or .gz)")
    add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"the profile varied from (default {DEFAULT_PROFILE})")
    add_settings(p, " (before varying)")
    p.add_argument("--vary", action="append", default=[], metavar="AXIS[=V1,V2,...]",
                   help="vary one axis over the values given, or without values over its grid: every value of a "
                   f"categorical axis, rel the positive grades in the qrels, depth {','.join(map(str, DEPTH_GRID))}, "
                   "a float axis the values the profiles use; --vary all varies every axis; repeatable")
    p.add_argument("-q", "--per-topic", action="store_true", help="per-topic values too (tsv and json)")
    add_execution(p)
    p.add_argument("--format", choices=("text", "tsv", "json"), default="text", help="output format (default text)")


def parse_vary(items: list[str]) -> dict[str, Any]:
    """``["ties", "rel=1,2", "all"]`` -> ``{"ties": "all", "rel": ["1", "2"], "all": "all"}``."""
    out: dict[str, Any] = {}
    for item in items:
        axis, eq, values = item.partition("=")
        axis = axis.strip()
        if axis != "all" and axis not in AXES:
            raise ConventionError(f"--vary: unknown axis {axis!r}; axes are: {', '.join(sorted(AXES))} (or all)")
        if axis in out:
            raise ConventionError(f"--vary {axis} given twice")
        if eq and axis == "all":
            raise ConventionError("--vary all takes no values")
        if eq:
            vals = [v.strip() for v in values.split(",") if v.strip()]
            if not vals:
                raise ConventionError(f"--vary {axis}= needs at least one value")
            out[axis] = vals
        else:
            out[axis] = "all"
    return out


def cmd_sweep(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.cli.common import backend, task_progress
    from auditeval.execution.tasks import sweep_runs
    from auditeval.io import qrels_from, run_from

    measures = args.measures or list(DEFAULT_MEASURES)
    for m in measures:
        parse_measure(m)  # a bad name fails before any file is read
    vary = parse_vary(args.vary)
    qrels = qrels_from(args.qrels)
    items = [run_from(p) if p == "-" else p for p in args.runs]  # a path is read by its task (one run each)
    with backend(args, len(items), err) as be:
        with Steps(err, len(items), "sweep") as steps:  # a bar on a terminal only
            res = sweep_runs(be, qrels, items, measures, args.profile, vary, args.settings,
                             task_progress(steps, "sweep"), per_topic=args.per_topic)
        if args.format == "text":
            render_text(res, out, detect_width(out))
            return 0
        (render_tsv if args.format == "tsv" else render_json)(res, out, args.per_topic, partial(_on, be))
    for n in res.notes:
        err.write(f"auditeval: note: {n}\n")
    return 0


def _on(be: Any, fn: Any, shared: Any, items: list) -> Iterator[bytes]:
    """``fn(shared, item)`` of each item on the backend ``be``, in item order."""
    return be.map(fn, be.share(shared), items)


def _here(fn: Any, shared: Any, items: list) -> Iterator[bytes]:
    return (fn(shared, item) for item in items)


# ----------------------------------------------------------------------------- output
def _value_text(x: Any, fmt: str) -> str:
    if fmt == "str":
        return "-" if x is None else str(x)
    if isinstance(x, float) and math.isnan(x):
        return "-"
    return str(int(round(x))) if fmt == "int" else f"{x:.4f}"


def _full(x: Any, fmt: str) -> Any:
    if fmt == "str":
        return str(x)
    return int(round(x)) if fmt == "int" else float(x)


def departures(block: SweepBlock, res: SweepResult, label: str) -> list[str]:
    """Per variant: the axes (``axis=value``) where it departs from the profile's variant
    (``label``: the block's measure label in ``res``).

    Read from the variant strings the block holds (``MEASURE|axis=value|...``, the measure
    folded): an ``axis=value`` part departs when it differs from the profile's own text for
    that axis (a value and its canonical text determine each other, :meth:`~auditeval.vocab.conventions.Axis.format`).
    Rebuilding each variant from its convention cost more than the rest of the text view."""
    m2, base = fold(parse_measure(block.measure), res.base_for(label))
    profile = {f"{a}={AXES[a].format(getattr(base, a))}" for a in AXES}
    skip = len(str(m2)) + 1  # the measure and its '|'
    out = []
    for text in block.variants:
        diff = [part for part in text[skip:].split("|") if part and part not in profile]
        out.append(" ".join(diff) if diff else "(the profile)")
    return out


DEPARTS = "departs from the profile"


def _tables(b: SweepBlock, dep: list[str], width: int) -> Iterator[str]:
    """The tables of ``b``'s runs, :data:`RUNS_PER_TABLE` side by side: a head line, then per
    variant its departures (``dep``, :func:`departures`) and one right-aligned cell per run
    (:func:`_column`), the departures column as wide as the runs leave room for (never narrower
    than its longest word) and wrapped once per width (:func:`wrapped_column`)."""
    longest_word = max([1, *(len(x) for d in dep for x in d.split())])
    widest = max([len(DEPARTS), *(len(d) for d in dep)])
    wrapped: dict[int, tuple[pa.Array, pa.Array]] = {}  # departures column width -> each row's lines
    failed = _failed_by_run(b)
    for g0 in range(0, max(len(b.runs), 1), RUNS_PER_TABLE):
        group = list(range(g0, min(g0 + RUNS_PER_TABLE, len(b.runs))))
        cols = [_column(b, ri, failed.get(ri)) for ri in group]
        heads = [f"r{ri + 1}" for ri in group]
        widths = [max(len(h), longest(col)) for h, col in zip(heads, cols, strict=True)]
        room = width - sum(wd + 2 for wd in widths)
        dw = min(widest, max(room, longest_word))
        if dw not in wrapped:
            wrapped[dw] = wrapped_column(dep, dw, indent=2)
        first_lines, tails = wrapped[dw]
        yield (DEPARTS.ljust(dw) + "".join(f"  {h:>{wd}}" for h, wd in zip(heads, widths, strict=True)) + "\n"
               + join_rows(first_lines, dw, list(zip(cols, widths, strict=True)), tails))


def render_text(res: SweepResult, out: TextIO, width: int = WIDTH) -> None:
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


def _failed_by_run(b: SweepBlock) -> dict[int, np.ndarray]:
    """Run index -> the variants refused on it (``b.errors``), as a bool mask."""
    out: dict[int, np.ndarray] = {}
    for vi, ri in b.errors:
        out.setdefault(ri, np.zeros(len(b.variants), bool))[vi] = True
    return out


def _column(b: SweepBlock, ri: int, failed: np.ndarray | None) -> pa.Array:
    """The text cells of run ``ri``, one per variant: ``error`` where the variant was refused,
    ``(per topic)`` for a text measure, else the aggregate (:func:`_value_text`), each
    distinct value formatted once (:func:`~auditeval.render.text_columns.text_column`)."""
    if b.fmt == "str":
        col = pa.array(["(per topic)"] * len(b.variants), pa.string())
        return col if failed is None else pc.if_else(from_numpy(failed), pa.scalar("error", pa.string()), col)
    return text_column(b.aggregates[:, ri], partial(_value_text, fmt=b.fmt), failed, "error",
                       decimals=4 if b.fmt == "float" else None)


def _records(res: SweepResult, per_topic: bool) -> Iterator[tuple[str, str, str, list[tuple[str, Any]]]]:
    """Per measure, variant and run (in that order): ``(run, label, variant, pairs)``, ``pairs``
    the (topic, value) of each evaluated topic (``per_topic``), then ``("all", aggregate)``
    where there is one (:func:`_block_records`)."""
    for label, b in res.blocks.items():
        yield from _block_records(label, b, per_topic)


def _block_records(label: str, b: SweepBlock, per_topic: bool) -> Iterator[tuple[str, str, str, list[tuple[str, Any]]]]:
    """:func:`_records` of one measure's block; a group at a time, the values made Python
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


Mapper = Callable[[Callable[[Any, Any], bytes], Any, list], Iterable[bytes]]
"""``mapper(fn, shared, items)``: ``fn(shared, item)`` of each item, in order (a backend's map)."""


def render_tsv(res: SweepResult, out: TextIO, per_topic: bool = False, mapper: Mapper | None = None) -> None:
    """One line per value (``run measure topic value variant engine``), per measure, variant and
    run in that order, the topics before ``all``: blocks of variants encoded as bytes by
    ``mapper`` (the command's backend; None: here) and written in order
    (:mod:`auditeval.render.sweep_out`: a 200-run ``--vary all`` sweep is 13.8 million lines,
    2.6 GB, never held whole)."""
    sink = Sink(out)
    sink.text("run\tmeasure\ttopic\tvalue\tvariant\tengine\n")
    layouts, blocks = sweep_out.blocks(res, per_topic, "tsv", sink.escapes)
    sink.blocks((mapper or _here)(sweep_out.encode_block, layouts, blocks))


def render_json(res: SweepResult, out: TextIO, per_topic: bool = False, mapper: Mapper | None = None) -> None:
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
    layouts, blocks = sweep_out.blocks(res, per_topic, "json", sink.escapes)
    wrote = sink.blocks((mapper or _here)(sweep_out.encode_block, layouts, blocks), skip_first=1)
    sink.text((frame.close if wrote else "]") + frame.tail)
