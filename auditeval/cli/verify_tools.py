"""The ``reproduce``, ``diff``, ``verify`` and ``card`` commands (parsers + functions).

Each is registered with one line in :data:`auditeval.cli.main.COMMANDS`; ``verify`` lives in
:mod:`.verify`.
"""

from __future__ import annotations

import argparse
import json
from typing import TextIO

from rich.console import Console
from rich.table import Table

from auditeval.cli.common import add_execution, add_measures, add_settings, backend, baseline_index
from auditeval.render.eval_text import print_note
from auditeval.render.json_out import write_json
from auditeval.vocab.conventions import DEFAULT_PROFILE
from auditeval.vocab.specs import DEFAULT_MEASURES


def console(out: TextIO) -> Console:
    """A rich console for ``out``: the terminal's width, else ``$COLUMNS``, else 100
    (:func:`~auditeval.render.eval_text.detect_width`)."""
    from auditeval.render.eval_text import detect_width
    from auditeval.render.terminal import console as safe_console

    return safe_console(file=out, width=detect_width(out), soft_wrap=False, highlight=False)


MIN_VARIANT = 30  # narrowest column of variant strings kept in a table (else they go under it)


def variant_cell(variant: str, room: int) -> str:
    """A variant string for a rich table cell ``room`` cells wide: broken after ``|`` only
    (:func:`~auditeval.render.textgrid.wrap_variant`), markup escaped."""
    from rich.markup import escape

    from auditeval.render.textgrid import wrap_variant

    return escape("\n".join(wrap_variant(variant, max(room, 20))))


def room(width: int, headers: list[str], rows: list[list[str]]) -> int:
    """Cells left for the last column of a boxed rich table ``width`` wide whose other columns
    have ``headers`` and hold ``rows`` (plain text): each column takes its longest line, one
    blank each side and one rule."""
    from rich.cells import cell_len

    used = sum(max(cell_len(x) for c in [h, *(r[i] for r in rows)] for x in c.split("\n"))
               for i, h in enumerate(headers))
    return width - used - 3 * (len(headers) + 1) - 1


def _is_tty(out: TextIO) -> bool:
    try:
        return bool(out.isatty())
    except (AttributeError, ValueError):
        return False


def fmt(x: float) -> str:
    return "nan" if x != x else f"{x:.4f}"


# ----------------------------------------------------------------------------- reproduce
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
    c = console(out)
    rpl = res.mode == "replicability"
    if rpl:
        c.print(f"replicability: {args.original} scored against qrels A = {args.qrels}; {args.reproduced} "
                f"against qrels B = {args.qrels_b}; every value below is qrels=A+B")
    else:
        t = Table(title=f"document order: {args.original} vs {args.reproduced}", title_justify="left")
        heads = ("statistic",) + (("topic",) if args.per_topic else ()) + ("value",)
        for col in heads + ("variant",):
            t.add_column(col, justify="right" if col == "value" else "left", no_wrap=col != "variant")
        shown = [v for v in res.values if v.statistic in ("KTU", "RBO") and (args.per_topic or v.topic == "all")]
        cells = [[v.statistic, *((v.topic,) if args.per_topic else ()), fmt(v.value)] for v in shown]
        left = room(c.width, list(heads), cells)
        for v, row in zip(shown, cells, strict=True):
            t.add_row(*row, variant_cell(v.variant, left))
        c.print(t)
    stats = [s for s in ("RMSE", "nRMSE", "t", "p_value", "ER", "DRI") if any(v.statistic == s for v in res.values)]
    if stats:  # else no measure had a topic to score: the notes say why
        _scores_table(c, args, res, stats, rpl)
    c.print(f"engines: {', '.join(sorted({v.engine for v in res.values}))}")
    for n in res.notes:
        print_note(c, n)
    return 0


def _scores_table(c: Console, args: argparse.Namespace, res, stats: list[str], rpl: bool) -> None:
    """The per-measure table of RMSE, nRMSE, t, p, ER, DRI (a variant column where it fits)."""
    by = {(v.measure, v.statistic): v for v in res.values if v.measure}
    what = ("unpaired t-test (qrels A vs qrels B)" if rpl else "RMSE, nRMSE, paired t-test")
    t = Table(title=f"per-topic scores under {args.profile}: {what}"
              + (", effect ratio, delta RI" if "ER" in stats else ""), title_justify="left")
    t.add_column("measure", no_wrap=True)
    if rpl:
        stats = ["qrels", *stats]
    for s in stats:
        t.add_column(s, justify="right", no_wrap=True)
    measures = list(dict.fromkeys(v.measure for v in res.values if v.measure))
    first = stats[-1]  # every statistic of a measure carries the same variant and qrels
    cells = [[m, *(by[m, first].qrels if s == "qrels" else fmt(by[m, s].value) for s in stats)] for m in measures]
    left = room(c.width, ["measure", *stats], cells)
    if left >= MIN_VARIANT:
        t.add_column("variant")
    for m, row in zip(measures, cells, strict=True):
        t.add_row(*row, *([variant_cell(by[m, first].variant, left)] if left >= MIN_VARIANT else []))
    c.print(t)
    if left < MIN_VARIANT:  # too narrow beside the numbers: one variant per measure under the table
        from rich.markup import escape

        from auditeval.render.textgrid import wrap_variant

        for m in measures:
            c.print(escape("\n".join(wrap_variant(by[m, first].variant, c.width, indent=4, first=f"{m}: "))))


# ----------------------------------------------------------------------------- diff
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
    from auditeval.io import qrels_from
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
            explain(qrels_from(args.qrels), _run(args.run), res, args.departures, progress=steps.advance)
    status, head = res.verdict()
    if args.json:
        write_json(out, {"headline": head, "exit_status": status, **res.as_dict()}, indent=1)
        return status
    from rich.markup import escape

    from auditeval.render.textgrid import wrap

    c = console(out)
    c.print(escape(head), style="bold" if status == 0 else "bold red", soft_wrap=True)
    c.print(escape(f"A: {a.path} ({a.format})\nB: {b.path} ({b.format})"))
    c.print(f"{res.compared} values compared at printed precision: {len(res.differences)} differ, in "
            f"{len(res.differing_measures)} measure(s)" + (f"; {len(res.only_a)} measure(s) only in A, "
                                                           f"{len(res.only_b)} only in B" if res.only_a or res.only_b else ""))
    if res.differing_measures:
        t = Table(title="differing measures", title_justify="left")
        heads = ["measure", "values", "A all", "B all", "max |A-B|"]
        for col in heads:
            t.add_column(col, justify="left" if col == "measure" else "right", no_wrap=True)
        rows, why = [], []
        for m in res.differing_measures:
            ds = [d for d in res.differences if d.measure == m]
            agg = next((d for d in ds if d.topic == "all"), None)
            gaps = [abs(d.a.value - d.b.value) for d in ds if d.kind == "value"
                    and not isinstance(d.a.value, str) and not isinstance(d.b.value, str)]
            names = dict.fromkeys(e.raw for d in ds for e in (d.a, d.b) if e is not None)
            rows.append([m + ("" if list(names) == [m] else f" ({' / '.join(names)})"), str(len(ds)),
                         _shown(agg.a) if agg else "=", _shown(agg.b) if agg else "=", fmt(max(gaps)) if gaps else "-"])
            why.append(res.explanations[m].summary() if m in res.explanations else "")
        left = room(c.width, heads, rows)
        longest = max([0, *(len(w) for x in why for w in x.split())])
        inline = bool(res.explanations) and left >= max(30, longest)  # else: under the table, at spaces
        if inline:
            t.add_column("explained by (axis: A -> B)")
        for row, x in zip(rows, why, strict=True):
            t.add_row(*(escape(v) for v in row), *([escape(x)] if inline else []))
        c.print(t)
        if res.explanations and not inline:
            c.print("explained by (axis: A -> B):")
            for row, x in zip(rows, why, strict=True):
                if x:
                    c.print(escape("\n".join(wrap(x, c.width, indent=4, first=f"  {row[0]}: "))))
    if not args.summary and res.differences:
        t = Table(title="every differing value", title_justify="left")
        for col in ("measure", "topic", "A", "B", "A line", "B line"):
            t.add_column(col, justify="right" if col in ("A", "B") else "left", no_wrap=True)
        for d in res.differences:
            t.add_row(*(escape(x) for x in (d.measure, d.topic, _shown(d.a), _shown(d.b), _line(d.a), _line(d.b))))
        c.print(t)
    for side, ms in (("A", res.only_a), ("B", res.only_b)):
        if ms:
            c.print(f"only in {side}: {', '.join(ms)}")
    for n in res.notes:
        print_note(c, n)
    return status


def _shown(e) -> str:
    if e is None:
        return "(absent)"
    if isinstance(e.value, str):
        return e.value
    if e.decimals is None:
        return repr(e.value)
    return f"{e.value:.{e.decimals}f}"


def _line(e) -> str:
    return "" if e is None or e.line is None else str(e.line)


def _run(path: str):
    """A run file: TREC format, or a JSON topic -> doc -> score dict (ranx ``Run.save``)."""
    from auditeval.io import run_from
    from auditeval.vocab.errors import InputError

    if str(path).endswith(".json"):
        from auditeval.io.files import read_text

        try:
            data = json.loads(read_text(path, allow_empty=False))
        except json.JSONDecodeError as exc:
            raise InputError(str(path), exc.lineno, f"not valid JSON ({exc.msg})") from None
        if not isinstance(data, dict) or not all(isinstance(v, dict) for v in data.values()):
            raise InputError(str(path), 1, "a JSON run must map topic -> doc -> score (ranx Run.save)")
        import os

        return run_from(data, name=os.path.splitext(os.path.basename(path))[0])
    return run_from(path)



# ----------------------------------------------------------------------------- card
def card_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("qrels", help="qrels file, or a claims file (claims.toml: its claims' runs, measures and "
                   "conventions, one card per qrels and convention)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files (none with a claims file)")
    add_measures(p, DEFAULT_MEASURES)
    p.add_argument("--profile", default=DEFAULT_PROFILE, help=f"profile (default {DEFAULT_PROFILE})")
    add_settings(p)
    p.add_argument("--baseline", metavar="RUN", help="baseline run (a run file, or the tag of one of the runs): paired bootstrap interval and reversal rate")
    p.add_argument("--pooled", action="append", metavar="RUN_TAG",
                   help="a run tag that contributed to the judgment pool; repeatable (default: unknown)")
    p.add_argument("--pooled-file", metavar="FILE", help="file of run tags that contributed to the pool, one a line")
    p.add_argument("--format", choices=("markdown", "latex", "html", "json"), default="markdown",
                   help="card format (default markdown)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the card to FILE (default: standard output)")
    add_execution(p)


def cmd_card(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.io.files import check_output, read_text, write_text
    from auditeval.render.card import RENDERERS
    from auditeval.verify.card import build_card

    if args.output:
        check_output(args.output)  # before any work
    if args.qrels.endswith(".toml"):
        return _claims_card(args, out)
    if not args.runs:
        from auditeval.vocab.errors import InputError

        raise InputError("card", None, "give the run files after the qrels (or a claims.toml alone)")
    pooled = list(args.pooled or [])
    if args.pooled_file:
        pooled += [ln.strip() for ln in read_text(args.pooled_file, allow_empty=False).splitlines() if ln.strip()]
    baseline = args.baseline
    if baseline is not None and baseline_index(baseline, args.runs, None) is None:
        import os

        from auditeval.io import run_from
        from auditeval.io.run_labels import relabel

        if not os.path.isfile(baseline):  # not a path: the tag or label of one of the runs
            runs, _ = relabel([run_from(p) for p in args.runs])
            baseline = args.runs[baseline_index(baseline, args.runs, runs)]
    with backend(args, len(args.runs), err) as be:
        card = build_card(args.qrels, args.runs, args.measures or list(DEFAULT_MEASURES),
                          profile=args.profile, baseline=baseline, settings=args.settings,
                          pooled=pooled if (args.pooled or args.pooled_file) else None, backend=be)
    if args.output:
        import io

        buf = io.StringIO()
        RENDERERS[args.format](card, buf)
        write_text(args.output, buf.getvalue())  # atomic: no partial card
        return 0
    RENDERERS[args.format](card, out)
    return 0


def _claims_card(args: argparse.Namespace, out: TextIO) -> int:
    """``card claims.toml``: the claims file's cards (:func:`auditeval.verify.claims_card.claims_cards`)."""
    import io

    from auditeval.io.files import write_text
    from auditeval.render.card import render_cards
    from auditeval.verify.claims_card import claims_cards
    from auditeval.vocab.errors import InputError

    if args.runs or args.measures or args.baseline or args.pooled or args.pooled_file or args.settings \
            or args.profile != DEFAULT_PROFILE:
        raise InputError(args.qrels, None, "a claims file names its runs, measures and conventions: give it alone")
    with backend(args) as be:
        cards = claims_cards(args.qrels, backend=be)
    buf = io.StringIO()
    render_cards(cards, args.format, buf)
    if args.output:
        write_text(args.output, buf.getvalue())  # atomic: no partial card
    else:
        out.write(buf.getvalue())
    return 0
