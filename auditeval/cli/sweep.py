"""``auditeval sweep QRELS RUN... [-m M]... [--profile P] [--vary AXIS[=V1,V2,...]]... [--vary all]``.

The command reads its options, runs the sweep on the backend ``--jobs`` / ``--scheduler``
choose (:func:`auditeval.execution.tasks.sweep_runs`) and hands the result to the views
(:mod:`auditeval.render.sweep_text`, :mod:`auditeval.render.sweep_out`): every value carries
its variant string.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from functools import partial
from typing import Any, TextIO

from auditeval.cli.common import add_execution, add_measures, add_settings
from auditeval.vocab.conventions import AXES, DEFAULT_PROFILE
from auditeval.vocab.errors import ConventionError
from auditeval.vocab.specs import DEFAULT_MEASURES
from auditeval.vocab.variant import parse_measure


def build_parser(p: argparse.ArgumentParser) -> None:
    p.description = "Evaluate runs under every variant of a profile along the varied axes."
    p.add_argument("qrels", help="qrels file (plain, .gz, - for stdin) or irds:DATASET_ID")
    p.add_argument("runs", nargs="+", help="run files (plain or .gz)")
    add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"the profile varied from (default {DEFAULT_PROFILE})")
    add_settings(p, " (before varying)")
    vary = p.add_argument("--vary", action="append", default=[], metavar="AXIS[=V1,V2,...]",
                          help="vary one axis over the values given, or without values over its grid: every value of "
                          "a categorical axis, rel the positive grades in the qrels, depth %(depth_grid)s, "
                          "a float axis the values the profiles use; --vary all varies every axis; repeatable")
    vary.depth_grid = _DepthGrid()  # argparse fills %(name)s from the action's attributes
    p.add_argument("-q", "--per-topic", action="store_true", help="per-topic values too (tsv and json)")
    add_execution(p)
    p.add_argument("--format", choices=("text", "tsv", "json"), default="text", help="output format (default text)")


class _DepthGrid:
    """The depth grid as the help prints it, read from the engine only when help is shown: the
    engine's import (numpy, pyarrow, 0.25 s) then follows the pool's start (:func:`cmd_sweep`)."""

    def __str__(self) -> str:
        from auditeval.engine import DEPTH_GRID

        return ",".join(map(str, DEPTH_GRID))


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
    from auditeval.execution.no_pandas import skip_pandas_probe

    measures = args.measures or list(DEFAULT_MEASURES)
    for m in measures:
        parse_measure(m)  # a bad name fails before any file is read
    vary = parse_vary(args.vary)
    skip_pandas_probe()  # no DataFrame is made here: pyarrow need not import pandas
    with backend(args, len(args.runs), err) as be:  # a pool's workers start before the engine's import, the qrels, the plan
        from auditeval.execution.tasks import sweep_runs
        from auditeval.io import qrels_from, run_from
        from auditeval.render.progress import Steps

        qrels = qrels_from(args.qrels)
        items = [run_from(p) if p == "-" else p for p in args.runs]  # a path is read by its task (one run each)
        with Steps(err, len(items), "sweep") as steps:  # a bar on a terminal only
            res = sweep_runs(be, qrels, items, measures, args.profile, vary, args.settings,
                             task_progress(steps, "sweep"), per_topic=args.per_topic)
        if args.format == "text":
            be.release()  # the text view is made here: the workers end meanwhile
            from auditeval.render.eval_text import detect_width
            from auditeval.render.sweep_text import render_text

            render_text(res, out, detect_width(out))
            return 0
        from auditeval.render.sweep_out import render_json, render_tsv

        (render_tsv if args.format == "tsv" else render_json)(res, out, args.per_topic, partial(_on, be))
    for n in res.notes:
        err.write(f"auditeval: note: {n}\n")
    return 0


def _on(be: Any, fn: Any, shared: Any, items: list) -> Iterator[bytes]:
    """``fn(shared, item)`` of each item on the backend ``be``, in item order."""
    return be.map(fn, be.share(shared), items)
