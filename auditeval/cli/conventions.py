"""``auditeval conventions list | show NAME | diff A B``: the profiles and axes, explained
(laid out by :mod:`auditeval.render.conventions_text`)."""

from __future__ import annotations

import argparse
from typing import TextIO

from auditeval.vocab.conventions import diff, load_profile, profile_names, resolve

__all__ = ["cmd_conventions", "conventions_parser"]


def conventions_parser(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="profiles and axes")
    s = sub.add_parser("show", help="every axis value of one profile, with sources")
    s.add_argument("name", metavar="PROFILE", help="a profile name (conventions list) or a TOML file")
    d = sub.add_parser("diff", help="axes on which two profiles differ")
    d.add_argument("a", metavar="A", help="a profile name or a TOML file")
    d.add_argument("b", metavar="B", help="the profile compared with A")


def cmd_conventions(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.render import conventions_text as view

    if args.action == "list":
        view.render_profiles([load_profile(n) for n in profile_names()], out)
        return 0
    if args.action == "show":
        view.render_profile(load_profile(args.name), out)
        return 0
    if args.action == "diff":
        view.render_profile_diff(args.a, args.b, diff(resolve(args.a), resolve(args.b)), out)
        return 0
    raise AssertionError(args.action)  # pragma: no cover
