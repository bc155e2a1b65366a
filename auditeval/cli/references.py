"""``auditeval references list | build [VERSION...]``: the reference tools the audit can run.

``list`` shows every reference: the Python tools (package found, version), the bundled
trec_eval releases (built, buildable, or what is missing) and any other ``trec_eval`` on PATH.
``build`` compiles bundled releases (all by default) with the system's C compiler into the
user's cache folder (``$AUDITEVAL_CACHE_DIR`` overrides it), where ``audit``, ``verify`` and
the tests find them without ``--trec-eval``.

Exit status: 0 done; 2 a build could not be made (no compiler: the message names what to
install; an unknown version; make failed), one ``auditeval: error:`` line.
"""

from __future__ import annotations

import argparse
from typing import TextIO

__all__ = ["cmd_references", "references_parser"]


def references_parser(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True, metavar="ACTION")
    ls = sub.add_parser("list", help="every reference the audit can run here, with versions and paths")
    ls.add_argument("--format", choices=("text", "json"), default="text", help="output format (text)")
    b = sub.add_parser("build", help="compile the bundled trec_eval sources into the cache folder")
    b.add_argument("versions", nargs="*", metavar="VERSION",
                   help="releases to build: 10.0 9.0.8 9.0.8-double 9.0.7 9.0.6 9.0.5 8.1 8.0 (default: all)")
    b.add_argument("--force", action="store_true", help="rebuild releases already built from the same sources")
    b.add_argument("--format", choices=("text", "json"), default="text", help="output format (text)")


def cmd_references(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.render.references import render_build_note, render_references

    if args.action == "build":
        import time

        from auditeval.adapters.trec_eval_builds import build, built, cache_dir

        before = {v for v, b in built().items() if b.built}
        start = time.monotonic()
        made = [b.version for b in build(tuple(args.versions), force=args.force)
                if args.force or b.version not in before]
        render_build_note(made, cache_dir(), time.monotonic() - start, err)
    from auditeval.adapters.inventory import inventory

    rows = inventory()
    if args.action == "build":
        chosen = {f"trec_eval-{v}" for v in args.versions}
        rows = [r for r in rows if r.kind == "trec_eval build" and (not chosen or r.name in chosen)]
    render_references(rows, args.format, out)
    return 0
