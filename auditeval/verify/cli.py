"""The ``reproduce``, ``diff``, ``verify`` and ``card`` commands (parsers + functions).

Each is registered with one line in :data:`auditeval.cli.COMMANDS`.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from rich.console import Console
from rich.table import Table

WIDTH = 120  # every table fits a 120-column terminal; variant strings fold


def console(out: TextIO) -> Console:
    return Console(file=out, width=WIDTH, soft_wrap=False, highlight=False)


def fmt(x: float) -> str:
    return "nan" if x != x else f"{x:.4f}"


# ----------------------------------------------------------------------------- reproduce
def reproduce_parser(p: argparse.ArgumentParser) -> None:
    from .reproduce import KTU_FORMS, RBO_FORMS

    p.add_argument("original", help="the original run")
    p.add_argument("reproduced", help="the re-run")
    p.add_argument("--qrels", required=True, help="qrels file")
    p.add_argument("--baseline-original", metavar="RUN", help="the original baseline (for ER and DRI)")
    p.add_argument("--baseline-reproduced", metavar="RUN", help="the re-run baseline (for ER and DRI)")
    p.add_argument("-m", "--measure", action="append", dest="measures", metavar="MEASURE",
                   help="measure for RMSE / t-test / ER / DRI; repeatable (default AP nDCG@10 P@10 R@1000 RR)")
    p.add_argument("--profile", default="trec_eval-9.0.8", help="profile the scores are computed under")
    p.add_argument("--set", action="append", dest="settings", default=[], metavar="AXIS=VALUE")
    p.add_argument("--depth", type=int, default=1000, help="documents compared per topic (KTU, RBO; default 1000)")
    p.add_argument("--rbo-p", type=float, default=0.95, help="RBO persistence (default 0.95, as repro_eval)")
    p.add_argument("--ties", default="docno-desc", help="tie rule for the document order (default docno-desc)")
    p.add_argument("--sim", default="float64", choices=("float32", "float64"), help="score precision for the order")
    p.add_argument("--ktu", default="tied-last", choices=KTU_FORMS, help="KTU form (see README)")
    p.add_argument("--rbo", default="trunc-norm", choices=RBO_FORMS, help="RBO form (see README)")
    p.add_argument("-q", "--per-topic", action="store_true", help="per-topic KTU and RBO too")
    p.add_argument("--json", action="store_true", help="JSON records instead of a table")


def cmd_reproduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from ..conventions import AXES
    from .reproduce import reproduce

    AXES["ties"].parse(args.ties)
    res = reproduce(
        args.qrels, args.original, args.reproduced, measures=args.measures or ["AP", "nDCG@10", "P@10", "R@1000", "RR"],
        profile=args.profile, settings=args.settings, baseline_original=args.baseline_original,
        baseline_reproduced=args.baseline_reproduced, depth=args.depth, rbo_p=args.rbo_p, ties=args.ties,
        sim=args.sim, ktu_form=args.ktu, rbo_form=args.rbo, per_topic=args.per_topic,
    )
    if args.json:
        json.dump({"values": [v.as_dict() for v in res.values], "notes": res.notes}, out, indent=1)
        out.write("\n")
        return 0
    c = console(out)
    t = Table(title=f"document order: {args.original} vs {args.reproduced}", title_justify="left")
    for col in ("statistic",) + (("topic",) if args.per_topic else ()) + ("value", "variant"):
        t.add_column(col, justify="right" if col == "value" else "left", overflow="fold")
    for v in res.values:
        if v.statistic in ("KTU", "RBO"):
            t.add_row(v.statistic, *((v.topic,) if args.per_topic else ()), fmt(v.value), v.variant)
    c.print(t)
    stats = [s for s in ("RMSE", "t", "p_value", "ER", "DRI") if any(v.statistic == s for v in res.values)]
    by = {(v.measure, v.statistic): v for v in res.values if v.measure}
    t = Table(title=f"per-topic scores under {args.profile}: RMSE, paired t-test"
              + (", effect ratio, delta RI" if "ER" in stats else ""), title_justify="left")
    t.add_column("measure")
    for s in stats:
        t.add_column(s, justify="right")
    t.add_column("variant", overflow="fold")
    for m in dict.fromkeys(v.measure for v in res.values if v.measure):
        t.add_row(m, *(fmt(by[m, s].value) for s in stats), by[m, stats[0]].variant)
    c.print(t)
    c.print(f"engines: {', '.join(sorted({v.engine for v in res.values}))}")
    for n in res.notes:
        c.print(f"[yellow]note:[/] {n}")
    return 0
