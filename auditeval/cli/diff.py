"""The ``diff`` command: two tools' output files aligned at printed precision
(:func:`auditeval.verify.diff.diff_outputs`), each difference explained by axis when the qrels
and run are given (:func:`auditeval.verify.diff.explain`); the text by
:mod:`auditeval.render.diff_text`. The exit status is the verdict's (:data:`DIFF_EXIT`)."""

from __future__ import annotations

import argparse
from typing import TextIO

from auditeval.render.json_out import write_json

__all__ = ["DIFF_EXIT", "cmd_diff", "diff_parser"]

DIFF_EXIT = {0: "every value both files print agrees at printed precision",
             1: "some value differs", 3: "nothing was compared (the two files print no value in common)"}


def diff_parser(p: argparse.ArgumentParser) -> None:
    from auditeval.results.audit import exit_epilog
    from auditeval.verify.tool_output import FORMATS

    p.epilog = exit_epilog({**DIFF_EXIT, 4: "(not used by diff)"})

    p.add_argument("a", help="first tool's output file")
    p.add_argument("b", help="second tool's output file")
    p.add_argument("--qrels", help="qrels the outputs were computed from (with --run: explain each difference)")
    p.add_argument("--run", help="the run the outputs were computed from (TREC, or JSON as ranx Run.save)")
    p.add_argument("--format-a", choices=FORMATS, metavar="FORMAT",
                   help=f"format of A: {', '.join(FORMATS)} (default: detected)")
    p.add_argument("--format-b", choices=FORMATS, metavar="FORMAT", help="format of B (default: detected)")
    p.add_argument("--departures", type=int, default=1,
                   help="axes changed from a profile at most when explaining (default 1)")
    p.add_argument("--summary", action="store_true", help="one line per measure, not every differing value")
    p.add_argument("--json", action="store_true", help="JSON instead of tables")


def cmd_diff(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.io import qrels_from, read_run_path
    from auditeval.verify.diff import diff_outputs, explain
    from auditeval.verify.tool_output import read_output
    from auditeval.vocab.errors import InputError

    if (args.qrels is None) != (args.run is None):
        raise InputError("--qrels/--run", None, "give both --qrels and --run to explain differences, or neither")
    a, b = read_output(args.a, args.format_a), read_output(args.b, args.format_b)
    from auditeval.render.progress import Steps

    res = diff_outputs(a, b)
    if args.qrels is not None and res.differences:
        with Steps(out, len(res.differing_measures), "explaining") as steps:
            explain(qrels_from(args.qrels), read_run_path(args.run), res, args.departures, progress=steps.advance)
    status, head = res.verdict()
    if args.json:
        write_json(out, {"headline": head, "exit_status": status, **res.as_dict()}, indent=1)
        return status
    from auditeval.render.diff_text import render_diff

    render_diff(res, out, summary=args.summary)
    return status
