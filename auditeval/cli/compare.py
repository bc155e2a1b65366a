"""``auditeval compare``: paired statistics for runs on the same topics, per measure.

    auditeval compare QRELS RUN... [-m MEASURE]... [--baseline RUN] [--strata FILE]
        [--qrels-b QRELS2] [--trials N] [--seed S] [--level 0.95] [--correction holm]
        [--format text|markdown|json|latex] [--plot FILE]

Per-topic values come from :func:`auditeval.evaluate` under ``--profile``; the statistics
are :func:`auditeval.stats.run_comparison.analyze`. The strata file has one ``topic,stratum`` line
per topic (``#`` comments, blank lines and a ``topic,stratum`` header are skipped).
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING, Any, TextIO

from auditeval.stats.corrections import METHODS
from auditeval.vocab.errors import InputError

if TYPE_CHECKING:  # loaded by the command itself, when it runs
    from auditeval.execution import Backend
    from auditeval.render.progress import Steps
    from auditeval.results.values import ResultSet
    from auditeval.stats.run_comparison import Settings


def read_strata(path: str) -> dict[str, str]:
    """``topic -> stratum`` from a ``topic,stratum`` file; errors as ``path:line: reason``."""
    from auditeval.io.files import read_text

    out: dict[str, str] = {}
    for k, raw in enumerate(read_text(path, allow_empty=False).splitlines(), start=1):
        line = raw.strip()
        if not line or line.startswith("#") or (k == 1 and line.replace(" ", "").lower() == "topic,stratum"):
            continue
        parts = [f.strip() for f in line.split(",")]
        if len(parts) != 2 or not all(parts):
            raise InputError(path, k, f"expected 'topic,stratum', got {raw!r}")
        t, s = parts
        if t in out and out[t] != s:
            raise InputError(path, k, f"topic {t!r} already in stratum {out[t]!r}")
        out[t] = s
    if not out:
        raise InputError(path, None, "no topic,stratum lines")
    return out


def _fraction(text: str) -> float:
    v = float(text)
    if not 0 < v < 1:
        raise argparse.ArgumentTypeError(f"must be between 0 and 1 (exclusive), got {text}")
    return v


def _positive(text: str) -> int:
    v = int(text)
    if v < 1:
        raise argparse.ArgumentTypeError(f"must be >= 1, got {text}")
    return v


def _seed(text: str) -> int:
    v = int(text)
    if v < 0:
        raise argparse.ArgumentTypeError(f"must be >= 0, got {text}")
    return v


def compare_parser(p: argparse.ArgumentParser) -> None:
    from auditeval.cli.common import add_execution, add_measures, add_settings
    from auditeval.vocab.conventions import DEFAULT_PROFILE
    from auditeval.vocab.specs import DEFAULT_MEASURES

    p.description = ("paired statistics per measure: bootstrap intervals and reversal rates, randomization, t, "
                     "Wilcoxon and sign tests with corrections, rank intervals, topic-set size, topic diagnostics, "
                     "agreement with a second qrels")
    p.add_argument("qrels", help="qrels file (plain, .gz) or irds:DATASET_ID")
    p.add_argument("runs", nargs="+", help="run files (plain or .gz)")
    add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"convention profile (default {DEFAULT_PROFILE})")
    add_settings(p)
    p.add_argument("--baseline", metavar="RUN", help="test every run against this run: its path or its tag (default: all pairs)")
    p.add_argument("--strata", metavar="FILE", help="topic,stratum file: stratified bootstrap")
    p.add_argument("--qrels-b", metavar="QRELS2", help="second qrels: agreement of the system orderings")
    p.add_argument("--trials", type=_positive, default=10000, help="bootstrap resamples and sign flips (10000)")
    p.add_argument("--seed", type=_seed, default=0, help="seed of every random stream (0)")
    p.add_argument("--level", type=_fraction, default=0.95, help="interval level; tests at 1 - level (0.95)")
    p.add_argument("--correction", choices=METHODS, default="holm", help="multiple-comparison correction (holm)")
    p.add_argument("--threshold", type=_fraction, default=0.05,
                   help="swap probability above which two runs are not distinguishable (0.05)")
    p.add_argument("--min-diff", type=float, default=0.05, help="topic-set size: difference to detect (0.05)")
    p.add_argument("--power", type=_fraction, default=0.8, help="topic-set size: power (0.8)")
    p.add_argument("--ci-width", type=float, default=0.1, help="topic-set size: interval width (0.1)")
    p.add_argument("--floor", type=float, default=0.1, help="diagnostics: hard topic below this median (0.1)")
    p.add_argument("--near", type=float, default=0.01, help="diagnostics: 'near 0 or 1' tolerance (0.01)")
    p.add_argument("--format", choices=("text", "markdown", "json", "latex"), default="text", help="output format (default text)")
    add_execution(p, "run, then one per block of 2048 trials, 16 swap-matrix rows, 512 pairs or 1024 subset-curve pairs")
    p.add_argument("--plot", metavar="FILE", help="write rank intervals and per-topic differences (.png/.svg)")


def cmd_compare(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.cli.common import backend
    from auditeval.cli.eval import measure_list
    from auditeval.render.progress import Steps
    from auditeval.stats.run_comparison import Settings
    from auditeval.vocab.variant import parse_measure

    measures = measure_list(args.measures)
    for m in measures:
        parse_measure(m)  # syntax errors before any reading
    if args.plot:  # a bad destination fails before any work
        from auditeval.io.files import check_output

        check_output(args.plot)
    strata = read_strata(args.strata) if args.strata else None
    s = Settings(trials=args.trials, seed=args.seed, level=args.level, correction=args.correction,
                 threshold=args.threshold, baseline=args.baseline, min_diff=args.min_diff, power=args.power,
                 ci_width=args.ci_width, floor=args.floor, near=args.near, strata_source=args.strata)
    with backend(args, None, err) as be:
        with Steps(err, 2 + len(args.runs) + len(measures), "reading qrels") as steps:
            analyses, res, res_b, run_notes = _analyses(args, be, steps, measures, s, strata)
        _write(args, out, err, be, analyses, res, res_b, run_notes)
    return 0


def _analyses(args: argparse.Namespace, be: Backend, steps: Steps, measures: list[str], s: Settings,
              strata: dict[str, str] | None) -> tuple[list[dict], ResultSet, ResultSet | None, list[str]]:
    """Read, evaluate every run on ``be``, and analyse each measure (``steps``: the progress)."""
    from auditeval.cli.common import task_progress
    from auditeval.execution.tasks import evaluate_runs
    from auditeval.io import qrels_from, run_from
    from auditeval.stats.matrix import measure_matrix
    from auditeval.stats.run_comparison import analyze

    qrels = qrels_from(args.qrels)
    qrels_b = qrels_from(args.qrels_b) if args.qrels_b else None
    steps.advance("evaluating")
    items = [run_from(p) if p == "-" else p for p in args.runs]  # a path is read by its task (one run each)
    progress = task_progress(steps, "evaluating runs")
    res, names, run_notes = evaluate_runs(be, qrels, items, measures, args.profile, args.settings, progress)
    if args.baseline is not None:  # a path of one of the runs or its label, as card takes it
        from dataclasses import replace

        from auditeval.cli.common import baseline_index
        from auditeval.results.parts import RunHeader

        headers = [RunHeader(n, p) for n, p in zip(names, args.runs, strict=True)]
        s = replace(s, baseline=names[baseline_index(args.baseline, args.runs, headers)])
    res_b = None
    if qrels_b is not None:
        res_b, _, _ = evaluate_runs(be, qrels_b, items, measures, args.profile, args.settings)
    analyses = []
    for m in measures:
        steps.advance(f"statistics: {m} ({args.trials} trials)")
        mm = measure_matrix(res, m)
        mm_b = measure_matrix(res_b, m) if res_b is not None else None
        analyses.append(analyze(mm, s, strata, mm_b, args.qrels_b or "", be))
    return analyses, res, res_b, run_notes


def _write(args: argparse.Namespace, out: TextIO, err: TextIO, be: Backend, analyses: list[dict], res: ResultSet,
           res_b: ResultSet | None, run_notes: list[str]) -> None:
    """The analyses in the chosen format (and the plot); JSON's pair rows encoded on ``be``
    (:class:`~auditeval.render.json_out.Deferred`)."""
    notes = run_notes + list(res.notes) + ([f"qrels B: {n}" for n in res_b.notes] if res_b is not None else [])
    if args.plot:
        from auditeval.render.compare_plots import plot

        plot(analyses, args.plot)
        notes.append(f"plot written to {args.plot}")
    if args.format == "json":
        from auditeval.render.compare_json import render_json
        from auditeval.render.json_out import items_text

        def encode(blocks: list) -> Any:
            return be.map(items_text, None, blocks, [f"JSON of {len(b[0])} pair rows" for b in blocks])

        render_json(analyses, notes, res.profile, out, encode)
    elif args.format == "latex":
        from auditeval.render.compare_latex import render_latex

        render_latex(analyses, notes, out)
    else:
        from auditeval.render.compare_text import render_markdown, render_text

        if args.format == "text":
            from auditeval.render.eval_text import detect_width

            render_text(analyses, notes, out, detect_width(out))
        else:
            render_markdown(analyses, notes, out)
    if args.format != "text":
        for n in notes:
            err.write(f"auditeval: note: {n}\n")

