"""Terminal output that fits the terminal (rich tables, plain streamed lines for ``-q``).

The profile (name, engine, every axis value) is printed once, above the table; each row then
shows only the axes its variant departs from that profile on (``AP(rel=2)`` -> ``rel=2``).
The full variant string of every value stays in TSV, JSON and ``variants="full"``.

Views: the list (one row per run and measure), the side-by-side view for several profiles
(one value column per profile and the axes on which their variants differ), and the
runs x measures matrix (``matrix=True``). Per-topic values (``-q``) are plain aligned lines
written block by block (:func:`write_topic_lines`), so 35,000 of them take milliseconds.
"""

from __future__ import annotations

import io
from collections.abc import Sequence
from typing import TextIO

from rich import box
from rich.console import Console
from rich.table import Table

from auditeval.render.common import (
    REFUSED,
    all_notes,
    as_list,
    axis_text,
    departures,
    format_value,
    refused_runs,
    run_order,
)
from auditeval.render.terminal import console, write_trusted
from auditeval.render.textgrid import wrap, wrap_variant
from auditeval.render.width import DEFAULT_WIDTH, WIDTH, detect_width  # noqa: F401 (re-exported)
from auditeval.results.values import ResultSet, Value, variant_text
from auditeval.vocab.conventions import AXIS_ORDER


def _is_tty(out: TextIO) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


def make_console(out: TextIO, width: int | None = None) -> Console:
    """A rich console that records into a buffer; :func:`flush` writes it to ``out`` with
    trailing blanks cut (rich pads cells to the table width). Colour only on a terminal."""
    return console(
        file=io.StringIO(), width=width or detect_width(out), soft_wrap=False, highlight=False,
        emoji=False, force_terminal=_is_tty(out), color_system="auto" if _is_tty(out) else None,
    )


def flush(console: Console, out: TextIO) -> None:
    text = console.file.getvalue()
    console.file.seek(0)
    console.file.truncate()
    if text:  # the console escaped control characters in the data and kept its own colour codes
        write_trusted(out, "\n".join(line.rstrip() for line in text.split("\n")))


# ----------------------------------------------------------------------------- header
def _profile_lines(results: Sequence[ResultSet]) -> list[str]:
    engines = sorted({v.engine for res in results for v in res.values})
    first = results[0]
    lines = []
    if len(results) == 1:
        lines.append(f"[bold]profile {_escape(first.profile)}[/] · engine {_escape(', '.join(engines))}")
    else:
        names = " | ".join(res.profile for res in results)
        lines.append(f"[bold]profiles {_escape(names)}[/] · engine {_escape(', '.join(engines))}")
    if first.convention is not None:
        axes = " ".join(axis_text(a, getattr(first.convention, a)) for a in AXIS_ORDER)
        lines.append(f"[dim]{_escape(first.profile)}: {axes}[/]")
        for res in results[1:]:
            if res.convention is None:
                continue
            d = [axis_text(a, getattr(res.convention, a)) for a in AXIS_ORDER if getattr(res.convention, a) != getattr(first.convention, a)]
            lines.append(f"[dim]{_escape(res.profile)}: " + (f"differs on {' '.join(d)}" if d else "same axes") + "[/]")
    return lines


def _notes(console: Console, results: Sequence[ResultSet]) -> None:
    for n in all_notes(results):
        print_note(console, n)


def print_note(console: Console, note: str) -> None:
    """``note: NOTE`` broken at spaces within the console's width (a word longer than the line,
    such as a long path, stands alone and whole: rich would fold it); ``note:`` in yellow."""
    for i, line in enumerate(wrap(note, console.width, first="note: ")):
        text = f"[yellow]note:[/]{_escape(line[5:])}" if i == 0 else _escape(line)
        console.print(text, markup=True, highlight=False, overflow="ignore", crop=False)


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)


# ----------------------------------------------------------------------------- views
REFUSED_CELL = f"[red]{REFUSED}[/]"


def _row_keys(results: Sequence[ResultSet]) -> list[tuple[str, str]]:
    """(run, measure) of every row: runs in the order given (a refused run keeps its place
    and gets a row per measure), measures in order of first appearance."""
    aggs = [v for res in results for v in res.aggregates()]
    have = {(v.run, v.measure) for v in aggs}
    measures = list(dict.fromkeys(v.measure for v in aggs)) or ["-"]
    refused = set().union(*(refused_runs(res) for res in results))
    return [(r, m) for r in run_order(results) for m in measures if (r, m) in have or r in refused]


def _departure_text(v: Value, res: ResultSet) -> str:
    return " ".join(axis_text(a, x) for a, x in departures(v.variant, res.convention))


def _list_table(res: ResultSet, full: bool, width: int = 100) -> tuple[Table, list[str]]:
    """One row per run and measure: value, and the axes its variant departs from the
    profile on (the full variant string with ``full``, broken after ``|`` only). Run, measure
    and value never break; when the last column would be narrower than :data:`MIN_INFO` (or
    than its longest axis, :data:`MIN_VARIANT` for full strings) it moves below the table,
    one entry per measure (returned as the second item)."""
    keys = _row_keys([res])
    keyed = {(v.run, v.measure): v for v in res.aggregates()}
    aggs = [keyed.get(k) for k in keys]
    deps = [_departure_text(v, res) if v is not None else "" for v in aggs]
    run_w = max([3, *(len(k[0]) for k in keys)])
    measure_w = max([7, *(len(k[1]) for k in keys)])
    value_w = max([5, *(len(format_value(v.value)) for v in aggs if v is not None)])
    left = width - (run_w + measure_w + value_w) - 3 * GAP_COLUMNS  # 3 columns before it, 3 spaces each
    longest = max([1, *(len(w) for d in deps for w in d.split())])
    if full:
        inline = left >= MIN_VARIANT
    else:
        inline = not any(deps) or left >= max(MIN_INFO, longest)
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("run", style="bold", no_wrap=True)
    t.add_column("measure", no_wrap=True)
    t.add_column("value", justify="right", style="cyan", no_wrap=True)
    if full and inline:
        t.add_column("variant", style="dim", no_wrap=True)
    elif not full and any(deps) and inline:
        t.add_column("departs from profile" if left >= 20 else "departs", style="magenta", no_wrap=True)
    for key, v, d in zip(keys, aggs, deps, strict=True):
        if v is None:  # a refused run: the note says why
            row = [_escape(key[0]), _escape(key[1]), REFUSED_CELL]
        else:
            row = [_escape(v.run), _escape(v.measure), format_value(v.value)]
        if full and inline:
            row.append(_escape("\n".join(wrap_variant(variant_text(v.variant), left))) if v is not None else "")
        elif any(deps) and inline:
            row.append(_escape("\n".join(wrap(d, left, indent=2))))
        t.add_row(*row)
    below: list[str] = []
    if full and not inline:
        texts = dict.fromkeys((k[1], variant_text(v.variant)) for k, v in zip(keys, aggs, strict=True) if v is not None)
        for m, text in texts:
            below += [f"[dim]{_escape(x)}[/]" for x in wrap_variant(text, width, indent=4, first=f"{m}: ")]
    elif not inline:
        for m, d in dict.fromkeys((k[1], d) for k, d in zip(keys, deps, strict=True) if d):
            below += [_escape(x) for x in wrap(d, width, indent=4, first=f"{m} departs from the profile on ")]
    return t, below


def _side_by_side(results: Sequence[ResultSet], full: bool, width: int = 100) -> tuple[Table, list[str]]:
    """One row per run and measure, one value column per profile, and the axes on which
    the profiles' variants of that measure differ; a profile that refused the run shows
    ``refused`` (its note says why). Run, measure and values never wrap; when the "differ
    on" column would be narrower than :data:`MIN_INFO` it moves below the table, one line
    per distinct set of axes (returned as the second item)."""
    keys = _row_keys(results)
    run_w = max([3, *(len(k[0]) for k in keys)])
    measure_w = max([7, *(len(k[1]) for k in keys)])
    heads = [res.profile for res in results]
    value_ws = [max(7, len(h)) for h in heads]
    legend: list[str] = []
    if run_w + measure_w + sum(value_ws) + GAP_COLUMNS * (len(value_ws) + 1) > width:
        # the profile names do not fit as headers: short labels, named under the table
        heads = [f"p{i + 1}" for i in range(len(results))]
        value_ws = [7] * len(results)
        legend = [_escape(x) for x in wrap(", ".join(f"{h}={res.profile}" for h, res in zip(heads, results, strict=True)),
                                           width, indent=2, first="columns: ")]
    left = width - (run_w + measure_w + sum(value_ws)) - GAP_COLUMNS * (len(value_ws) + 2)
    keyed = [{(v.run, v.measure): v for v in res.aggregates()} for res in results]
    refused = [refused_runs(res) for res in results]
    rows, infos = [], []
    for key in keys:
        vs = [k.get(key) for k in keyed]
        cells = [format_value(v.value) if v is not None else REFUSED_CELL if key[0] in ref else "-"
                 for v, ref in zip(vs, refused, strict=True)]
        present = [v for v in vs if v is not None]
        if full:
            info = "\n".join(variant_text(v.variant) for v in present)
        elif len(present) < 2:
            info = ""
        else:
            axes = [dict(v.variant.axes) for v in present]
            names = [a for a in AXIS_ORDER if len({repr(ax.get(a)) for ax in axes}) > 1]
            info = " ".join(names) if names else "(same variant)"
        rows.append((key, cells))
        infos.append(info)
    longest = max([1, *(len(w) for x in infos for w in (x.split("|") if full else x.split()))])
    inline = (left >= MIN_VARIANT) if full else (left >= max(MIN_INFO, longest) or not any(infos))
    t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
    t.add_column("run", style="bold", no_wrap=True)
    t.add_column("measure", no_wrap=True)
    for h, w in zip(heads, value_ws, strict=True):
        t.add_column(_escape(h), justify="right", style="cyan", no_wrap=True, min_width=w)
    if inline:
        t.add_column("variants differ on" if not full else "variants", style="dim", no_wrap=True)
    for (key, cells), info in zip(rows, infos, strict=True):
        cell = [x for v in info.split("\n") for x in wrap_variant(v, left)] if full else wrap(info, left, indent=2)
        t.add_row(_escape(key[0]), _escape(key[1]), *cells, *([_escape("\n".join(cell))] if inline else []))
    below: list[str] = legend
    if full and not inline:
        for (key, _), info in zip(rows, infos, strict=True):
            for v in dict.fromkeys(info.split("\n")):
                below += [f"[dim]{_escape(x)}[/]" for x in wrap_variant(v, width, indent=4, first=f"{key[0]} {key[1]}: ")]
    elif not inline:
        groups: dict[str, list[tuple[str, str]]] = {}
        for (key, _), info in zip(rows, infos, strict=True):
            if info:
                groups.setdefault(info, []).append(key)
        for info, ks in groups.items():
            measures = list(dict.fromkeys(m for _, m in ks))
            whole = all(sum(1 for r, m in keys if m == mm) == sum(1 for _, m in ks if m == mm) for mm in measures)
            where = ", ".join(measures) if whole else ", ".join(f"{r} {m}" for r, m in ks)
            below += [f"[dim]{_escape(x)}[/]" for x in wrap(f"variants differ on {info}: {where}", width, indent=4)]
    return t, below


MIN_INFO = 14  # narrowest "variants differ on" / "departs from profile" column kept in a table
MIN_VARIANT = 24  # narrowest column of full variant strings kept in a table
GAP_COLUMNS = 3  # characters between two columns of a SIMPLE_HEAD table (padding, separator, padding)


def _matrix_tables(res: ResultSet, width: int, measures: list[str] | None = None) -> list[Table]:
    """Runs x measures (default: the measures of ``res``); measures split over several tables
    when they do not fit the width."""
    aggs = res.aggregates()
    runs = res.runs()
    measures = measures or list(dict.fromkeys(v.measure for v in aggs))
    cell = {(v.run, v.measure): v for v in aggs}
    refused = refused_runs(res)
    run_w = max([3, *(len(r) for r in runs)])
    chunks: list[list[str]] = [[]]
    used = run_w
    for m in measures:  # a column: its gap, then its header or its widest cell
        w = GAP_COLUMNS + max([len(m), *(len(format_value(cell[(r, m)].value)) if (r, m) in cell
                                          else len(REFUSED) if r in refused else 1 for r in runs)])
        if chunks[-1] and used + w > width:
            chunks.append([])
            used = run_w
        chunks[-1].append(m)
        used += w
    tables = []
    for chunk in chunks:
        t = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_edge=False)
        t.add_column("run", style="bold", no_wrap=True)
        for m in chunk:
            t.add_column(_escape(m), justify="right", style="cyan", no_wrap=True)
        for r in runs:
            t.add_row(_escape(r), *[format_value(cell[(r, m)].value) if (r, m) in cell
                                    else REFUSED_CELL if r in refused else "-" for m in chunk])
        tables.append(t)
    return tables


def _matrix_legend(res: ResultSet, full: bool, width: int) -> list[str]:
    """Per measure: its full variant string (broken after ``|``) or the axes it departs from
    the profile on (broken at spaces)."""
    seen: dict[str, str] = {}
    for v in res.aggregates():
        if v.measure in seen:
            continue
        text = variant_text(v.variant) if full else " ".join(axis_text(a, x) for a, x in departures(v.variant, res.convention))
        seen[v.measure] = text
    breaker = wrap_variant if full else wrap
    return [f"[dim]{_escape(x)}[/]" for m, t in seen.items() if t for x in breaker(t, width, indent=4, first=f"{m}: ")]


# ----------------------------------------------------------------------------- per topic
def topic_line_widths(results: Sequence[ResultSet]) -> tuple[int, int, int]:
    vals = next((res.values for res in results if res.values), [])
    return (
        max([3, *(len(v.run) for v in vals), *(len(r.run) for res in results for r in res.refusals)]),
        max([7, *(len(v.measure) for v in vals)]),
        max([5, *(len(v.topic) for v in vals)]),
    )


class TopicStream:
    """``eval -q``'s text per topic, written run by run as each is evaluated: before the first
    run's lines a lead naming the profiles (``names``) and the header line; the run column as
    wide as the longest of ``labels`` (every run's, known before any is evaluated); :meth:`close`
    ends the block with a blank line once something was written."""

    def __init__(self, out: TextIO, names: Sequence[str], labels: Sequence[str], width: int) -> None:
        self.out, self.names, self.labels, self.width = out, list(names), list(labels), width
        self.widths: tuple[int, int, int] | None = None

    def write(self, per_run: Sequence[ResultSet]) -> None:
        """One run's per-topic lines, one value column per profile (``per_run``: its result sets)."""
        if self.widths is None:
            rw, mw, tw = topic_line_widths(per_run)
            self.widths = max([rw, *(len(name) for name in self.labels)]), mw, tw
            lead = (f"per topic under {' | '.join(self.names)}: each value's variant is the "
                    "measure under that profile's axes, listed after the means")
            self.out.write("".join(x + "\n" for x in wrap(lead, self.width)))
            write_topic_header(self.out, per_run, self.widths, self.width)
        write_topic_lines(self.out, per_run, self.widths, self.width)

    def close(self) -> None:
        if self.widths is not None:
            self.out.write("\n")


def _run_column(results: Sequence[ResultSet], widths: tuple[int, int, int], width: int | None) -> int:
    """Width of the run column of the per-topic lines: the longest label, or what ``width``
    leaves beside the other columns (a longer label then gets a line of its own)."""
    rw, mw, tw = widths
    if width is None:
        return rw
    spare = width - (mw + tw + 6 + sum(w + 2 for w in _value_widths(results)))
    return rw if rw <= spare else max(6, spare)


def write_topic_header(out: TextIO, results: Sequence[ResultSet], widths: tuple[int, int, int],
                       width: int | None = None) -> None:
    rw, mw, tw = _run_column(results, widths, width), widths[1], widths[2]
    cols = "  ".join(f"{res.profile:>{w}}" for res, w in zip(results, _value_widths(results), strict=True))
    cols = cols if len(results) > 1 else f"{'value':>10}"
    out.write(f"{'run':<{rw}}  {'measure':<{mw}}  {'topic':<{tw}}  {cols}".rstrip() + "\n")


def _value_widths(results: Sequence[ResultSet]) -> list[int]:
    """Width of each value column of the per-topic lines: 10, or the profile name's when longer."""
    return [max(10, len(res.profile)) if len(results) > 1 else 10 for res in results]


def write_topic_lines(out: TextIO, results: Sequence[ResultSet], widths: tuple[int, int, int], width: int) -> None:
    """Per-topic values (and each block's ``all`` line) as plain aligned lines, one
    value column per result set (profile); a run label too long for ``width`` is printed whole
    on a line of its own above its lines (their run column left blank).

    When the profiles evaluate different topics (``topics=qrels`` beside ``topics=both``) or
    one refused a run, lines are aligned by (run, measure, topic) over every profile's values:
    ``-`` where a profile has no such value, ``refused`` where it refused the run."""
    rw, mw, tw = _run_column(results, widths, width), widths[1], widths[2]
    value_w = _value_widths(results)
    refused = [refused_runs(res) for res in results]
    if len({len(res.values) for res in results}) == 1 and not any(refused):  # one topic set: aligned by index
        keys = [(v.run, v.measure, v.topic) for v in results[0].values]
        columns = [res.values for res in results]
    else:
        run_rank = {r: i for i, r in enumerate(run_order(results))}
        measure_rank = {m: i for i, m in enumerate(dict.fromkeys(v.measure for res in results for v in res.values))}
        keys = sorted(
            dict.fromkeys((v.run, v.measure, v.topic) for res in results for v in res.values),
            key=lambda k: (run_rank[k[0]], measure_rank[k[1]], k[2] == "all", k[2].encode()),  # topics in byte order
        )
        keyed = [{(v.run, v.measure, v.topic): v for v in res.values} for res in results]
        columns = [[k.get(key) for key in keys] for k in keyed]
    lines = []
    above = ""  # the last run label too long for its column: whole, on a line of its own above its lines
    for i, (run, measure, topic) in enumerate(keys):
        if len(run) > rw:
            if run != above:
                lines.append(run)
                above = run
            run = ""
        cells = []
        for col, ref, cw in zip(columns, refused, value_w, strict=True):
            w = col[i]
            cell = format_value(w.value) if w is not None else REFUSED if keys[i][0] in ref else "-"
            cells.append(f"{cell:>{cw}}")
        lines.append(f"{run:<{rw}}  {measure:<{mw}}  {topic:<{tw}}  {'  '.join(cells)}")
        if len(lines) >= LINES_PER_WRITE:  # a block at a time: the view is never held whole
            out.write("\n".join(lines) + "\n")
            lines.clear()
    if lines:
        out.write("\n".join(lines) + "\n")


LINES_PER_WRITE = 8192
"""Per-topic lines (``-q``) joined and written at once."""


# ----------------------------------------------------------------------------- entry point
def render_text(
    results: ResultSet | Sequence[ResultSet],
    out: TextIO,
    per_topic: bool = False,
    *,
    width: int | None = None,
    matrix: bool = False,
    variants: str = "short",
    topic_lines: bool = True,
) -> None:
    """Write ``results`` (one result set, or one per profile) as terminal text.

    ``variants="full"`` prints every variant string in full; ``matrix`` gives a runs x
    measures table per profile; ``per_topic`` writes the per-topic lines first (unless the
    caller streamed them already: ``topic_lines=False``).
    """
    results = as_list(results)
    console = make_console(out, width)
    full = variants == "full"
    if per_topic and topic_lines:
        widths = topic_line_widths(results)
        write_topic_header(out, results, widths, console.width)
        write_topic_lines(out, results, widths, console.width)
        out.write("\n")
    for line in _profile_lines(results):
        console.print(line)
    if matrix:
        measures = list(dict.fromkeys(v.measure for res in results for v in res.aggregates()))
        for res in results:
            if len(results) > 1:
                console.print(f"[bold]{_escape(res.profile)}[/]")
            for t in _matrix_tables(res, console.width, measures):
                console.print(t)
            for line in _matrix_legend(res, full, console.width):
                console.print(line, overflow="ignore", crop=False)
    elif len(results) > 1:
        table, below = _side_by_side(results, full, console.width)
        console.print(table)
        for line in below:
            console.print(line, overflow="ignore", crop=False)
    else:
        table, below = _list_table(results[0], full, console.width)
        console.print(table)
        for line in below:
            console.print(line, overflow="ignore", crop=False)
    _notes(console, results)
    flush(console, out)
