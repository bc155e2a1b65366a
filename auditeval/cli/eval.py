"""``auditeval eval``: read the qrels and runs once, evaluate them under one profile or
several, and report in the chosen format (text that fits the terminal, TSV, JSON).

Runs are evaluated one at a time, so ``-q`` text streams: each run's per-topic lines are
written as soon as it is done (a progress bar shows on a terminal). A profile that refuses a
run (an ``EvaluationError``) becomes a :class:`~auditeval.results.values.Refusal` beside the other
profiles' values; only when nothing is evaluated is it the command's error (exit 2).
"""

from __future__ import annotations

import argparse
from typing import Any, TextIO

from auditeval.cli.common import add_execution, add_settings
from auditeval.vocab.conventions import DEFAULT_PROFILE
from auditeval.vocab.specs import DEFAULT_MEASURES

EVAL_DESCRIPTION = """\
Evaluate runs against qrels under a convention profile. Every number carries its variant
string (the measure plus every axis that can change it): the text view prints the profile
once and, per row, only the axes that depart from it; TSV and JSON carry the full string."""

EVAL_EPILOG = """\
examples:
  auditeval eval qrels.txt run1.txt run2.txt.gz
  auditeval eval qrels.txt run.txt -m 'AP nDCG@10 P(rel=2)@5' -m ndcg_cut.5,10
  auditeval eval qrels.txt runs/*.txt --matrix
  auditeval eval qrels.txt run.txt --profile trec_eval-9.0.8 --profile ir_measures-0.4
  zcat run.gz | auditeval eval irds:msmarco-passage/dev/small - -q --format tsv

refusals: a profile may refuse a run (topics=strict, as trec_eval 10, refuses a run that lacks
a qrels topic). With several profiles or runs the others are still reported: the refused
values show 'refused', and a note names the profile, the run and the reason (text, TSV and
JSON, which also lists it under "refused"; the note goes to standard error too).

exit status:
  0  values were reported (a refusal beside them is a note, not a failure)
  2  bad input or options; a refusal when only one profile and one run were given; or every
     profile refused every run (one 'auditeval: error:' line per refusal)"""


def eval_parser(p: argparse.ArgumentParser) -> None:
    p.description = EVAL_DESCRIPTION
    p.epilog = EVAL_EPILOG
    p.formatter_class = argparse.RawDescriptionHelpFormatter
    p.add_argument("qrels", help="qrels file (plain or .gz), - for standard input, or irds:DATASET_ID")
    p.add_argument("runs", nargs="+", metavar="run", help="run files (plain or .gz); one of qrels and runs may be - (standard input)")
    p.add_argument(
        "-m", "--measure", action="measures", dest="measures", metavar="MEASURE",
        help="measures in ir_measures spelling (nDCG@10, AP(rel=2)) or trec_eval names (map, ndcg_cut.5,10); "
        f"several per argument separated by spaces; repeatable (default: {' '.join(DEFAULT_MEASURES)})",
    )
    p.add_argument(
        "--profile", action="append", dest="profiles", metavar="PROFILE",
        help=f"convention profile: a name (auditeval conventions list) or a TOML file (default {DEFAULT_PROFILE}); "
        "repeat to compare profiles side by side",
    )
    add_settings(p)
    p.add_argument("-q", "--per-topic", action="store_true", help="print per-topic values too")
    p.add_argument("--format", choices=("text", "tsv", "json"), default="text", help="output format (default text)")
    p.add_argument("--matrix", action="store_true", help="text: one row per run, one column per measure")
    p.add_argument("--variants", choices=("short", "full"), default="short",
                   help="text: short = only axes departing from the profile (default); full = every variant string")
    p.add_argument("--width", type=int, metavar="COLUMNS", help="text: line width (default: the terminal's, else $COLUMNS, else 100)")
    add_execution(p)
    p.add_argument("--ir-metadata", metavar="FILE", dest="ir_metadata",
                   help="also write the evaluation section as an ir_metadata block (# ir_metadata.start ... end) to FILE")


def measure_list(args_measures: list[str] | None) -> list[str]:
    """The measures asked for, several per argument allowed, read as ``evaluate`` reads them
    (:func:`auditeval.vocab.variant.parse_measures`: ``ndcg_cut.1,4``, a bare ``P``)."""
    from auditeval.vocab.variant import parse_measures

    if not args_measures:
        return list(DEFAULT_MEASURES)
    return [label for label, _ in parse_measures(args_measures)]


def cmd_eval(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.cli.common import backend, task_progress
    from auditeval.execution.tasks import eval_parts
    from auditeval.io import qrels_from, run_from
    from auditeval.render import renderer as render_for
    from auditeval.render.progress import Steps
    from auditeval.results.parts import labels_of
    from auditeval.vocab.conventions import resolve_profile
    from auditeval.vocab.errors import EvaluationError
    from auditeval.vocab.variant import parse_measure

    if [args.qrels, *args.runs].count("-") > 1:
        from auditeval.vocab.errors import InputError

        raise InputError("-", None, "standard input can be read once: give - for the qrels or for one run, not both")
    measures = measure_list(args.measures)
    for m in measures:
        parse_measure(m)  # syntax errors before any reading
    # each profile resolved once, with --set: the objects travel to every task (no task loads one again)
    profiles = [resolve_profile(p, args.settings) for p in args.profiles or [DEFAULT_PROFILE]]
    if args.format == "text":  # the text view alone draws with rich (tsv and json load none of it)
        from auditeval.render.width import detect_width

        width = args.width or detect_width(out)
    streaming = args.format == "text" and args.per_topic
    with backend(args, len(args.runs), err) as be, Steps(out, 1 + len(args.runs), "reading qrels") as steps:
        qrels = qrels_from(args.qrels)  # read once, evaluated under every profile
        steps.advance("evaluating")
        items = [run_from(p) if p == "-" else p for p in args.runs]  # a path is read by its task
        parts = list(eval_parts(be, qrels, items, measures, profiles, (), True,
                                task_progress(steps, "evaluating runs")))
    labels, run_notes = labels_of([part.header for part in parts])  # colliding tags: the one rule (io.labels)
    stream = None
    if streaming:
        from auditeval.render.eval_text import TopicStream

        stream = TopicStream(out, [rp.label for rp in profiles], labels, width)
    alone = len(profiles) == 1 and len(args.runs) == 1  # a refusal is the command's error, as ever
    results = _gathered(parts, labels, run_notes, profiles, qrels.notes, alone=alone, stream=stream)
    refusals = [x for res in results for x in res.refusals]
    if len(refusals) == len(parts) * len(profiles):  # nothing evaluated: the refusals are the errors
        if len({x.reason for x in refusals}) == 1 and len(parts) == 1:
            raise EvaluationError(refusals[0].reason)
        err.write("".join(f"auditeval: error: {x.note()}\n" for x in refusals))
        return 2
    if stream is not None:
        stream.close()
    renderer = render_for(args.format)
    if args.format == "text":
        renderer(results, out, per_topic=args.per_topic, width=width, matrix=args.matrix, variants=args.variants, topic_lines=False)
        for x in refusals:  # also where a redirected stdout would hide it
            err.write(f"auditeval: note: {x.note()}\n")
    else:
        renderer(results, out, per_topic=args.per_topic)
        for n in dict.fromkeys(n for res in results for n in res.notes):
            err.write(f"auditeval: note: {n}\n")
    if args.ir_metadata:
        from auditeval.results.ir_metadata import write_evaluation_block

        write_evaluation_block(args.ir_metadata, results, qrels)
    return 0


def _gathered(parts: list, labels: list[str], run_notes: list[str], profiles: list, read_notes: list[str], *,
              alone: bool, stream: Any) -> list:
    """One :class:`~auditeval.results.values.ResultSet` per profile from the runs' parts, in run
    order: each run renamed to its label, its tie note added, a refused run a
    :class:`~auditeval.results.values.Refusal` (the command's error when it is the only run and
    profile); ``stream`` (eval ``-q``'s text lines) gets each run as it is gathered."""
    from auditeval.auditing.tie_note import tie_note
    from auditeval.results.parts import renamed
    from auditeval.results.values import Refusal, ResultSet
    from auditeval.vocab.errors import EvaluationError

    results = [ResultSet(profile=rp.label, convention=rp.convention, notes=list(run_notes)) for rp in profiles]
    for index, (part, label) in enumerate(zip(parts, labels, strict=True)):
        per_run = []
        for got, rp in zip(part.profiles, profiles, strict=True):
            if got.result is None:
                if alone:
                    raise EvaluationError(got.refusal or "refused")
                refusal = Refusal(run=label, profile=rp.label, reason=got.refusal or "refused", index=index)
                notes = [*read_notes, *part.notes, refusal.note()]  # what reading found still holds
                res = ResultSet(profile=rp.label, convention=rp.convention, notes=notes, refusals=[refusal])
                note = None
            else:
                res = renamed(got.result, label)
                note = tie_note(label, got.ties or [], rp.convention.ties)
            if note:
                res.notes.append(note if len(profiles) == 1 else f"[{res.profile}] {note}")
            per_run.append(res)
        for total, res in zip(results, per_run, strict=True):
            total.values.extend(res.values)
            total.refusals.extend(res.refusals)
            total.notes.extend(n for n in res.notes if n not in total.notes)
        if stream is not None and any(res.values for res in per_run):  # a run every profile refused: the note only
            stream.write(per_run)
    return results
