"""The ``reproduce`` command: how closely a re-run reproduces (or replicates) a run
(:func:`auditeval.verify.reproduce.reproduce`); the text by :mod:`auditeval.render.reproduce_text`,
the plot by :mod:`auditeval.render.reproduce_plot`."""

from __future__ import annotations

import argparse
from typing import TextIO

from auditeval.cli.common import add_measures, add_settings
from auditeval.render.json_out import write_json
from auditeval.vocab.conventions import DEFAULT_PROFILE
from auditeval.vocab.specs import DEFAULT_MEASURES

__all__ = ["REPRODUCE_DESCRIPTION", "cmd_reproduce", "reproduce_parser"]

REPRODUCE_DESCRIPTION = """how closely a re-run reproduces (or replicates) a run (Breuer et al., SIGIR 2020;
checked against repro_eval 0.5.0).

reproducibility (the default: same collection, every run scored against --qrels):
  KTU, RBO          document order per topic, mean over the topics both runs rank
  RMSE, nRMSE       per measure over the paired topics; nRMSE = RMSE / sqrt(mean max(x, 1-x)^2)
                    of the original scores x (repro_eval's normalisation)
  t, p_value        paired two-sided t-test of the per-topic scores (scipy ttest_rel)
  ER, DRI           with both baselines: effect ratio, delta relative improvement

scores are computed under --profile, each measure as its route table says. The default
(trec_eval-9.0.8, topics=both) scores the topics a run and the qrels share; repro_eval scores
every qrels topic (0 where a run has none), after cutting each run at 1000: --profile
repro_eval-0.5 gives its numbers. A note names the topics scored when they are not the qrels'.

replicability (--qrels-b QRELS_B: another collection or other judgements):
  the original run and baseline are scored against --qrels (A), the re-run and its baseline
  against --qrels-b (B), each over its own topics; every value is marked qrels=A+B.
  t, p_value        unpaired two-sided Student's t-test, original (A) vs re-run (B)
                    (scipy ttest_ind, equal_var=True, as repro_eval's RplEvaluator)
  ER, DRI           with both baselines: means over each collection's own topics
  KTU, RBO, RMSE and nRMSE are not computed: they need the same topics in both.
"""


def reproduce_parser(p: argparse.ArgumentParser) -> None:
    from auditeval.verify.reproduce import KTU_FORMS, RBO_FORMS

    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.description = REPRODUCE_DESCRIPTION
    p.add_argument("original", help="the original (advanced) run, scored against --qrels")
    p.add_argument("reproduced", help="the re-run: scored against --qrels, or --qrels-b when given")
    p.add_argument("--qrels", required=True, help="qrels file (A: the original collection)")
    p.add_argument("--qrels-b", metavar="QRELS_B",
                   help="replicability: the re-runs' collection (qrels B); the re-run and its baseline are "
                        "scored against it; unpaired t-test, ER, DRI; no KTU/RBO/RMSE/nRMSE")
    p.add_argument("--baseline-original", metavar="RUN", help="the original baseline (for ER and DRI)")
    p.add_argument("--baseline-reproduced", metavar="RUN", help="the re-run baseline (for ER and DRI)")
    add_measures(p, DEFAULT_MEASURES, "measures for RMSE / nRMSE / t-test / ER / DRI")
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"profile the scores are computed under (default {DEFAULT_PROFILE})")
    add_settings(p)
    p.add_argument("--depth", type=int, default=1000, help="documents compared per topic (KTU, RBO; default 1000)")
    p.add_argument("--rbo-p", type=float, default=0.95, help="RBO persistence (default 0.95, as repro_eval)")
    p.add_argument("--ties", default="docno-desc", help="tie rule for the document order (default docno-desc)")
    p.add_argument("--sim", default="float64", choices=("float32", "float64"), help="score precision for the order")
    p.add_argument("--ktu", default="tied-last", choices=KTU_FORMS, help="KTU form (see the description above)")
    p.add_argument("--rbo", default="trunc-norm", choices=RBO_FORMS, help="RBO form (see the description above)")
    p.add_argument("-q", "--per-topic", action="store_true", help="per-topic KTU and RBO too")
    p.add_argument("--plot", metavar="FILE", help="write a plot (.png or .svg): per-topic KTU/RBO, scores orig vs re-run")
    p.add_argument("--json", action="store_true", help="JSON records instead of a table")


def cmd_reproduce(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.verify.reproduce import ReproduceConvention, reproduce
    from auditeval.vocab.conventions import AXES

    AXES["ties"].parse(args.ties)
    if args.plot:
        from pathlib import Path

        from auditeval.render.reproduce_plot import FORMATS
        from auditeval.vocab.errors import AuditEvalError

        if Path(args.plot).suffix.lower() not in FORMATS:  # before the work, not after
            raise AuditEvalError(f"{args.plot}: --plot writes .png or .svg, not {Path(args.plot).suffix or 'no suffix'!r}")
        from auditeval.io.files import check_output

        check_output(args.plot)  # a missing or read-only folder fails before the work
    convention = ReproduceConvention(profile=args.profile, settings=args.settings, depth=args.depth,
                                     rbo_p=args.rbo_p, ties=args.ties, sim=args.sim, ktu_form=args.ktu,
                                     rbo_form=args.rbo)
    res = reproduce(
        args.qrels, args.original, args.reproduced, measures=args.measures or list(DEFAULT_MEASURES),
        baseline_original=args.baseline_original, baseline_reproduced=args.baseline_reproduced,
        qrels_b=args.qrels_b, per_topic=args.per_topic or bool(args.plot), convention=convention,
    )
    if args.plot:
        from auditeval.render.reproduce_plot import plot_reproduction

        plot_reproduction(res, args.plot)
        res.notes.append(f"plot written to {args.plot}")
    if args.json:
        qrels = {"A": args.qrels, **({"B": args.qrels_b} if args.qrels_b else {})}
        write_json(out, {"mode": res.mode, "qrels": qrels, "values": [v.as_dict() for v in res.values],
                         "notes": res.notes}, indent=1)
        return 0
    from auditeval.render.reproduce_text import render_reproduce

    render_reproduce(res, out, original=args.original, reproduced=args.reproduced, qrels=args.qrels,
                     qrels_b=args.qrels_b, profile=args.profile, per_topic=args.per_topic)
    return 0
