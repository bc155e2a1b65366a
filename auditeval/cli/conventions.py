"""``auditeval conventions list | show NAME | diff A B``: the profiles and axes, explained."""

from __future__ import annotations

import argparse
from typing import TextIO

from rich.console import Console
from rich.table import Table

from auditeval.vocab.conventions import AXES, AXIS_ORDER, diff, load_profile, profile_names, resolve

__all__ = ["cmd_conventions", "conventions_parser"]


def conventions_parser(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="profiles and axes")
    s = sub.add_parser("show", help="every axis value of one profile, with sources")
    s.add_argument("name", metavar="PROFILE", help="a profile name (conventions list) or a TOML file")
    d = sub.add_parser("diff", help="axes on which two profiles differ")
    d.add_argument("a", metavar="A", help="a profile name or a TOML file")
    d.add_argument("b", metavar="B", help="the profile compared with A")


def _console(out: TextIO) -> Console:
    from auditeval.render.eval_text import make_console

    return make_console(out)


def _flush(console: Console, out: TextIO) -> None:
    from auditeval.render.eval_text import flush

    flush(console, out)


def cmd_conventions(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    console = _console(out)
    if args.action == "list":
        t = Table(title="profiles", title_justify="left")
        t.add_column("name", style="bold", no_wrap=True)
        t.add_column("engine")
        for n in profile_names():
            prof = load_profile(n)
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
        _flush(console, out)
        return 0
    if args.action == "show":
        prof = load_profile(args.name)
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
        _flush(console, out)
        return 0
    if args.action == "diff":
        a, b = resolve(args.a), resolve(args.b)
        d = diff(a, b)
        if not d:
            out.write(f"{args.a} and {args.b} agree on every axis\n")
            return 0
        t = Table(title=f"{args.a} vs {args.b}: {len(d)} axis(es) differ", title_justify="left")
        t.add_column("axis", style="bold", no_wrap=True)
        t.add_column(args.a)
        t.add_column(args.b)
        for k, (va, vb) in d.items():
            t.add_row(k, f"{AXES[k].format(va)}: {AXES[k].values.get(str(va), '')}", f"{AXES[k].format(vb)}: {AXES[k].values.get(str(vb), '')}")
        console.print(t)
        _flush(console, out)
        return 0
    raise AssertionError(args.action)  # pragma: no cover


