"""The text of ``auditeval diff``: the verdict, the two files, what was compared, the table of
differing measures (with the axes that explain each, beside it where they fit, else under it),
the table of every differing value (not with ``summary``), the measures one side prints only,
and the notes."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from auditeval.render.rich_tables import console, fmt, room

if TYPE_CHECKING:
    from auditeval.verify.diff import DiffResult
    from auditeval.verify.tool_output import Entry

__all__ = ["render_diff"]


def render_diff(res: DiffResult, out: TextIO, *, summary: bool = False) -> None:
    """``res`` as text on ``out``; ``summary``: one row per measure, not every differing value.
    The first line is :meth:`~auditeval.verify.diff.DiffResult.verdict`'s, bold (red unless equal)."""
    from rich.markup import escape

    from auditeval.render.eval_text import print_note

    status, head = res.verdict()
    c = console(out)
    c.print(escape(head), style="bold" if status == 0 else "bold red", soft_wrap=True)
    c.print(escape(f"A: {res.a.path} ({res.a.format})\nB: {res.b.path} ({res.b.format})"))
    c.print(f"{res.compared} values compared at printed precision: {len(res.differences)} differ, in "
            f"{len(res.differing_measures)} measure(s)" + (f"; {len(res.only_a)} measure(s) only in A, "
                                                           f"{len(res.only_b)} only in B" if res.only_a or res.only_b else ""))
    if res.differing_measures:
        _measures_table(c, res)
    if not summary and res.differences:
        _values_table(c, res)
    for side, ms in (("A", res.only_a), ("B", res.only_b)):
        if ms:
            c.print(f"only in {side}: {', '.join(ms)}")
    for n in res.notes:
        print_note(c, n)


def _measures_table(c: Any, res: DiffResult) -> None:
    """One row per differing measure: its names on both sides, how many values differ, the
    aggregates, the largest gap; the explanation in a last column when its longest word and 30
    cells fit, else under the table broken at spaces."""
    from rich.markup import escape
    from rich.table import Table

    from auditeval.render.textgrid import wrap

    t = Table(title="differing measures", title_justify="left")
    heads = ["measure", "values", "A all", "B all", "max |A-B|"]
    for col in heads:
        t.add_column(col, justify="left" if col == "measure" else "right", no_wrap=True)
    rows, why = [], []
    for m in res.differing_measures:
        ds = [d for d in res.differences if d.measure == m]
        agg = next((d for d in ds if d.topic == "all"), None)
        gaps = [abs(d.a.value - d.b.value) for d in ds if d.kind == "value"
                and not isinstance(d.a.value, str) and not isinstance(d.b.value, str)]
        names = dict.fromkeys(e.raw for d in ds for e in (d.a, d.b) if e is not None)
        rows.append([m + ("" if list(names) == [m] else f" ({' / '.join(names)})"), str(len(ds)),
                     _shown(agg.a) if agg else "=", _shown(agg.b) if agg else "=", fmt(max(gaps)) if gaps else "-"])
        why.append(res.explanations[m].summary() if m in res.explanations else "")
    left = room(c.width, heads, rows)
    longest = max([0, *(len(w) for x in why for w in x.split())])
    inline = bool(res.explanations) and left >= max(30, longest)  # else: under the table, at spaces
    if inline:
        t.add_column("explained by (axis: A -> B)")
    for row, x in zip(rows, why, strict=True):
        t.add_row(*(escape(v) for v in row), *([escape(x)] if inline else []))
    c.print(t)
    if res.explanations and not inline:
        c.print("explained by (axis: A -> B):")
        for row, x in zip(rows, why, strict=True):
            if x:
                c.print(escape("\n".join(wrap(x, c.width, indent=4, first=f"  {row[0]}: "))))


def _values_table(c: Any, res: DiffResult) -> None:
    """Every differing value: measure, topic, each side as printed and the line it is on."""
    from rich.markup import escape
    from rich.table import Table

    t = Table(title="every differing value", title_justify="left")
    for col in ("measure", "topic", "A", "B", "A line", "B line"):
        t.add_column(col, justify="right" if col in ("A", "B") else "left", no_wrap=True)
    for d in res.differences:
        t.add_row(*(escape(x) for x in (d.measure, d.topic, _shown(d.a), _shown(d.b), _line(d.a), _line(d.b))))
    c.print(t)


def _shown(e: Entry | None) -> str:
    """A value as its file printed it: at its decimals, full precision (``repr``) when the
    file printed every digit, a string as it is; ``(absent)`` for a side without it."""
    if e is None:
        return "(absent)"
    if isinstance(e.value, str):
        return e.value
    if e.decimals is None:
        return repr(e.value)
    return f"{e.value:.{e.decimals}f}"


def _line(e: Entry | None) -> str:
    """The line number of a value in its file ('' when absent or not known)."""
    return "" if e is None or e.line is None else str(e.line)
