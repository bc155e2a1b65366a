"""The text of ``auditeval conventions``: ``list`` (the profiles, then every axis with its
meaning and values), ``show`` (one profile's every axis value with its meaning and source),
``diff`` (the axes on which two profiles differ). Rich tables drawn into a buffer and written
with trailing blanks cut (:func:`auditeval.render.eval_text.make_console` / ``flush``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any, TextIO

from auditeval.vocab.conventions import AXES, AXIS_ORDER

if TYPE_CHECKING:
    from auditeval.vocab.conventions import Profile

__all__ = ["render_profile", "render_profile_diff", "render_profiles"]


def render_profiles(profiles: Sequence[Profile], out: TextIO) -> None:
    """The table of ``profiles`` (name, engine), then the table of every axis: its meaning and
    each value with who uses it."""
    from rich.table import Table

    from auditeval.render.eval_text import flush, make_console

    console = make_console(out)
    t = Table(title="profiles", title_justify="left")
    t.add_column("name", style="bold", no_wrap=True)
    t.add_column("engine")
    for prof in profiles:
        t.add_row(prof.name, prof.engine)
    console.print(t)
    rows = [(name, AXES[name].doc, "\n".join(f"{v}: {w}" for v, w in AXES[name].values.items())
             or f"({AXES[name].kind})") for name in AXIS_ORDER]
    # both text columns break at spaces; each is at least as wide as its longest word (rich
    # would cut that word short), the values column taking half of the room or more
    longest = [max(len(w) for r in rows for w in r[c].split()) for c in (1, 2)]
    room = console.width - max(len(r[0]) for r in rows) - 10  # 3 columns: 2 blanks + 1 rule each, 1 edge
    values_w = max(longest[1], room // 2)
    a = Table(title="axes", title_justify="left", show_lines=True)
    a.add_column("axis", style="bold", no_wrap=True)
    a.add_column("meaning", width=max(longest[0], room - values_w))
    a.add_column("values: who uses them", width=values_w)
    for r in rows:
        a.add_row(*r)
    console.print(a)
    flush(console, out)


def render_profile(prof: Profile, out: TextIO) -> None:
    """One profile: its name, engine, description and file, then each axis's value with the
    value's meaning (else the axis's) and the profile's source for it (dim)."""
    from rich.table import Table

    from auditeval.render.eval_text import flush, make_console

    console = make_console(out)
    console.print(f"[bold]{prof.name}[/] — {prof.engine}\n{prof.description}\n(file: {prof.path})", highlight=False)
    t = Table(show_lines=False)
    t.add_column("axis", style="bold", no_wrap=True)
    t.add_column("value", style="cyan", no_wrap=True)
    t.add_column("meaning / source")
    for k, v in prof.convention.as_dict().items():
        meaning = AXES[k].values.get(str(v), AXES[k].doc)
        src = prof.sources.get(k)
        t.add_row(k, AXES[k].format(v), meaning + (f"\n[dim]{src}[/]" if src else ""))
    console.print(t)
    flush(console, out)


def render_profile_diff(a: str, b: str, differ: Mapping[str, tuple[Any, Any]], out: TextIO) -> None:
    """The axes on which profiles ``a`` and ``b`` differ (``differ``: axis -> (value in a, value
    in b), as :func:`auditeval.vocab.conventions.diff` gives), each value with its meaning; one
    line when they agree on every axis."""
    if not differ:
        out.write(f"{a} and {b} agree on every axis\n")
        return
    from rich.table import Table

    from auditeval.render.eval_text import flush, make_console

    console = make_console(out)
    t = Table(title=f"{a} vs {b}: {len(differ)} axis(es) differ", title_justify="left")
    t.add_column("axis", style="bold", no_wrap=True)
    t.add_column(a)
    t.add_column(b)
    for k, (va, vb) in differ.items():
        t.add_row(k, f"{AXES[k].format(va)}: {AXES[k].values.get(str(va), '')}", f"{AXES[k].format(vb)}: {AXES[k].values.get(str(vb), '')}")
    console.print(t)
    flush(console, out)
