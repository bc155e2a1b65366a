"""The text of ``auditeval verify``: for ``--claim``, each claim's reading and the variants that
reproduce it (else the nearest) in a boxed table; for ``--table``, the reproduction matrix (runs
x measures, each cell's status) and every cell's variant under it. Both start with the verdict
line, bold (red unless every claim is reproduced), and end with the notes."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TextIO

from auditeval.render.rich_tables import console, room, variant_cell

if TYPE_CHECKING:
    from auditeval.verify.claims import Verdict

__all__ = ["render_claims", "render_matrix"]


def render_claims(verdicts: Sequence[Verdict], out: TextIO, *, status: int, head: str, show: int,
                  engine: str) -> None:
    """The verdict line ``head`` (``status``: its exit status), then per claim its reading, the
    first ``show`` reproducing variants (or the nearest ones) and its notes; last the ``engine``."""
    from rich.markup import escape

    from auditeval.render.eval_text import print_note

    c = console(out)
    c.print(escape(head), style="bold" if status == 0 else "bold red", soft_wrap=True)
    for v in verdicts:
        cl = v.claim
        scale = " (percent)" if cl.percent else ""
        c.print(f"[bold]{cl.text}[/]{scale}: [{cl.low:.6g}, {cl.high:.6g}) read as "
                f"{', '.join(str(m) for m in cl.readings)}; {v.searched} variants searched")
        if v.reproduced:
            c.print(f"reproduced by {len(v.reproduced)} distinct variant(s) on this input, simplest first:")
        else:
            c.print("[red]not reproduced[/] by any variant searched; the nearest:")
        c.print(_found_table(c, v, show))
        if len(v.reproduced) > show:
            c.print(f"... and {len(v.reproduced) - show} more (--show N, or --json for all)")
        if v.claim.percent:
            print_note(c, f"{v.claim.text}: read as a percentage ({v.claim.value:.6g} on the measure's scale)")
        for n in v.notes:
            print_note(c, n)
    c.print(f"engine: {engine}")


def _found_table(c: Any, v: Verdict, show: int) -> Any:
    """One claim's variants: the first ``show`` that reproduce it, else the nearest (with their
    distance); each with its departures, value, label, variant string and equivalent labels."""
    from rich.markup import escape
    from rich.table import Table

    rows = v.reproduced[:show] if v.reproduced else v.nearest
    t = Table(show_header=True)
    heads = ["#", "changes", "value"] + ([] if v.reproduced else ["distance"])
    for h in heads:
        t.add_column(h, justify="right", no_wrap=True)
    t.add_column("profile and changes / variant string")
    cells = [[str(i), str(f.departures), f"{f.value:.6f}"] + ([f"{f.distance:.6f}"] if not v.reproduced else [])
             for i, f in enumerate(rows, 1)]
    left = room(c.width, heads, cells)
    for f, row in zip(rows, cells, strict=True):
        eq = f"\n[dim]equivalent here: {escape(', '.join(f.member_labels()[:3]))}" \
             f"{' ...' if len(f.equivalent) > 3 else ''}[/]" if f.equivalent else ""
        t.add_row(*row, f"{escape(f.label)}\n{variant_cell(f.candidate.variant, left)}{eq}")
    return t


_MARK = {"stated": "[green]reproduced[/]", "other": "[yellow]only under[/]", "no": "[red]not reproduced[/]"}


def render_matrix(cells: Sequence[dict], runs: Sequence[str], out: TextIO, *, status: int, head: str,
                  table: str, label: str, notes: Sequence[str]) -> None:
    """The verdict line ``head``, the reproduction matrix of results table ``table`` under the
    stated convention ``label`` (a row per run of ``runs``, a column per measure; each cell the
    claimed value and ``reproduced``, ``only under`` + the label, or ``not reproduced`` + the
    nearest), each cell's variant string under it, and ``notes``. ``cells``: dicts with ``run
    measure claimed status detail variant``."""
    from rich.markup import escape
    from rich.table import Table

    from auditeval.render.eval_text import print_note
    from auditeval.render.textgrid import wrap_variant

    c = console(out)
    c.print(escape(head), style="bold" if status == 0 else "bold red", soft_wrap=True)
    measures = list(dict.fromkeys(x["measure"] for x in cells))
    t = Table(title=f"reproduction matrix ({table}; stated profile {label})", title_justify="left")
    t.add_column("run", no_wrap=True)
    for m in measures:
        t.add_column(escape(m))
    for name in runs:
        row = [name]
        for m in measures:
            x = next((x for x in cells if x["run"] == name and x["measure"] == m), None)
            row.append("" if x is None else f"{x['claimed']}: {_MARK[x['status']]}"
                       + ("" if x["status"] == "stated" else f"\n{x['detail']}"))
        t.add_row(*row)
    c.print(t)
    c.print("variants (one per cell):")
    for x in cells:
        c.print(escape("\n".join(wrap_variant(x["variant"] or "-", c.width, indent=4,
                                               first=f"  {x['run']} {x['measure']}={x['claimed']}: "))))
    for n in notes:
        print_note(c, n)
