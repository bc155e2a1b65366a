"""The ``verify`` command: claims or a results table against the convention space.

The first line of the output (``headline`` in JSON) says what happened, and the exit status
matches it (:data:`auditeval.results.audit.EXIT_STATUSES`): 0 every claim reproduced (with
``--table``: under the stated convention); 1 a claim not reproduced by any variant evaluated;
2 bad input; 3 nothing was checked (no variant could be evaluated for any claim); 4 incomplete
(the claims checked are reproduced, but no variant could be evaluated for some claim).
"""

from __future__ import annotations

import argparse
from typing import TextIO

from auditeval.cli.common import add_execution, add_settings
from auditeval.render.json_out import write_json
from auditeval.vocab.conventions import DEFAULT_PROFILE

EXIT_MEANING = {0: "every claim reproduced (--table: under the stated convention)",
                1: "a claim not reproduced by any variant evaluated",
                3: "nothing was checked (no variant could be evaluated for any claim)",
                4: "incomplete: no variant could be evaluated for some claim, the others reproduced"}


def verdict(ok: list[bool], unchecked: list[bool]) -> tuple[int, str]:
    """(exit status, first line) from, per claim, whether it is reproduced and whether no
    variant at all could be evaluated for it."""
    n = len(ok)
    bad = sum(1 for a, u in zip(ok, unchecked, strict=True) if not a and not u)
    none = sum(unchecked)
    if bad:
        more = f"; {none} claim(s) not checked (no variant could be evaluated)" if none else ""
        return 1, f"NOT REPRODUCED: {bad} of {n} claim(s) reproduced by no variant evaluated{more} (exit 1)"
    if none == n:
        return 3, f"NOTHING CHECKED: no variant could be evaluated for any of the {n} claim(s) (exit 3)"
    if none:
        return 4, (f"INCOMPLETE: {n - none} of {n} claim(s) reproduced; {none} not checked (no variant could be "
                   "evaluated) (exit 4)")
    return 0, f"reproduced: every one of the {n} claim(s) (exit 0)"


def verify_parser(p: argparse.ArgumentParser) -> None:
    from auditeval.results.audit import exit_epilog

    p.epilog = exit_epilog(EXIT_MEANING)
    p.add_argument("qrels", help="qrels file")
    p.add_argument("runs", nargs="*", metavar="RUN", help="the run (with --table: runs the table names)")
    p.add_argument("--claim", action="append", default=[], metavar="MEASURE=VALUE",
                   help="a published number as printed: MAP=0.3066, nDCG@10=41.4 (percent), P@10=.52; repeatable")
    p.add_argument("--table", help="results table, CSV or TSV 'run,measure,value' (run: a RUN given, by file "
                   "name, stem or tag, or a run file path relative to the table)")
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"the stated profile (--table; default {DEFAULT_PROFILE})")
    add_settings(p, " (--table: the stated convention is the profile with these settings)")
    p.add_argument("--departures", type=int, default=2, help="axes changed from a profile at most (default 2)")
    add_execution(p, "run of the --table")
    p.add_argument("--show", type=int, default=5, help="reproducing variants listed per claim (default 5)")
    p.add_argument("--json", action="store_true", help="JSON instead of tables")


def cmd_verify(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.io import qrels_from, read_run_path
    from auditeval.verify.claims import parse_claim, verify_claim
    from auditeval.vocab.conventions import load_profile
    from auditeval.vocab.errors import InputError

    load_profile(args.profile)
    _stated_settings(args)  # a bad --set fails before any reading
    if not args.claim and not args.table:
        raise InputError("verify", None, "give at least one --claim MEASURE=VALUE or a --table")
    if args.claim and len(args.runs) != 1:
        raise InputError("verify", None, f"--claim needs exactly one RUN, got {len(args.runs)}")
    claims = [parse_claim(c) for c in args.claim]
    qrels = qrels_from(args.qrels)
    if args.table:
        return _verify_table(args, qrels, out, err)
    from auditeval.render.progress import Steps

    run = read_run_path(args.runs[0])
    cache: dict = {}
    verdicts = []
    with Steps(out, len(claims), "verify") as steps:
        for cl in claims:
            steps.describe(f"searching variants for {cl.text}")
            verdicts.append(verify_claim(qrels, run, cl, cache, args.departures))
            steps.advance()
    status, head = verdict([bool(v.reproduced) for v in verdicts], [not v.reproduced and not v.nearest for v in verdicts])
    if args.json:
        write_json(out, {"headline": head, "exit_status": status, "qrels": args.qrels, "run": args.runs[0],
                         "claims": [v.as_dict() for v in verdicts]}, indent=1)
        return status
    from auditeval.render.verify_text import render_claims

    render_claims(verdicts, out, status=status, head=head, show=args.show, engine=_engine())
    return status


def _engine() -> str:
    from auditeval.engine import ENGINE

    return ENGINE


def _stated_settings(args: argparse.Namespace) -> set[str]:
    """The stated convention's departures from ``--profile`` as ``axis=value`` (formatted as
    :attr:`~auditeval.verify.search.Candidate.settings`): ``--set`` resolved as eval resolves it."""
    from auditeval.vocab.conventions import AXES, diff, resolve

    moved = diff(resolve(args.profile), resolve(args.profile, args.settings))
    return {f"{a}={AXES[a].format(b)}" for a, (_, b) in moved.items()}


def _read(moved: set[str], m) -> set[str]:
    """The settings in ``moved`` on axes measure ``m`` reads (the only ones a candidate departs on)."""
    from auditeval.verify.search import searched_axes

    axes = set(searched_axes(m))
    return {s for s in moved if s.split("=", 1)[0] in axes}


def _verify_table(args: argparse.Namespace, qrels, out: TextIO, err: TextIO | None = None) -> int:
    import os

    from auditeval.api import profile_label
    from auditeval.cli.common import backend, task_progress
    from auditeval.execution.tasks import ClaimsShared, verify_run
    from auditeval.io import read_run_path
    from auditeval.verify.claims import parse_claim, read_table
    from auditeval.vocab.errors import InputError

    rows = read_table(args.table)
    given = {}
    for r in args.runs:
        run = read_run_path(r)
        base = os.path.basename(r)
        for key in {base, base.split(".gz")[0], os.path.splitext(base)[0], run.name, r}:
            given[key] = run
    runs: dict[str, object] = {}
    for name, _m, _v, line in rows:
        if name in runs:
            continue
        if name in given:
            runs[name] = given[name]
        else:
            path = os.path.join(os.path.dirname(args.table), name)
            if not os.path.exists(path):
                raise InputError(args.table, line, f"run {name!r} is neither a RUN given nor a file next to the table")
            runs[name] = read_run_path(path)
    cells = []
    notes: list[str] = []
    from auditeval.render.progress import Steps

    claims = [parse_claim(f"{meas}={value}", where=f"{args.table}:{line}") for _n, meas, value, line in rows]
    moved = _stated_settings(args)
    label = profile_label(args.profile, args.settings)
    order = list(runs)  # one task per run: its claims in table order, one staged run (cache) shared
    per_run = [[k for k, row in enumerate(rows) if row[0] == name] for name in order]
    items = [(runs[name], [claims[k] for k in ks]) for name, ks in zip(order, per_run, strict=True)]
    with backend(args, len(items), err) as be, Steps(out, len(items), "verify") as steps:
        shared = be.share(ClaimsShared(qrels, max(args.departures, len(moved))))
        got = list(be.map(verify_run, shared, items, order, task_progress(steps, "verify")))
    verdicts: list = [None] * len(rows)
    for ks, vs in zip(per_run, got, strict=True):
        for k, v in zip(ks, vs, strict=True):
            verdicts[k] = v
    for (name, meas, value, line), claim, v in zip(rows, claims, verdicts, strict=True):
        notes += [n for n in v.notes if n not in notes]
        stated = next((f for f in v.reproduced if any(
            c.profile == args.profile and set(c.settings) == _read(moved, m) and m == claim.readings[0]
            for c, m in f.members())), None)
        if stated is not None:
            status, detail = "stated", label
        elif v.reproduced:
            status, detail = "other", v.reproduced[0].label
        else:
            status, detail = "no", f"nearest {v.nearest[0].value:.4f} ({v.nearest[0].label})" if v.nearest else "nothing evaluated"
        best = stated or (v.reproduced[0] if v.reproduced else (v.nearest[0] if v.nearest else None))
        cells.append({"run": name, "measure": meas, "claimed": value, "status": status, "detail": detail,
                      "variant": best.candidate.variant if best else None, "value": best.value if best else None,
                      "line": line})
    status, head = verdict([x["status"] == "stated" for x in cells], [x["value"] is None for x in cells])
    if args.json:
        write_json(out, {"headline": head, "exit_status": status, "table": args.table, "profile": label, "cells": cells,
                         "notes": notes}, indent=1)
        return status
    from auditeval.render.verify_text import render_matrix

    render_matrix(cells, list(runs), out, status=status, head=head, table=args.table, label=label, notes=notes)
    return status
