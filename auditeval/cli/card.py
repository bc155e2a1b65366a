"""The ``card`` command: a provenance card for a results table
(:func:`auditeval.verify.card.build_card`), or the cards of a claims file
(:func:`auditeval.verify.claims_card.claims_cards`); laid out by :mod:`auditeval.render.card`."""

from __future__ import annotations

import argparse
from typing import TextIO

from auditeval.cli.common import add_execution, add_measures, add_settings, backend, baseline_index
from auditeval.vocab.conventions import DEFAULT_PROFILE
from auditeval.vocab.specs import DEFAULT_MEASURES

__all__ = ["card_parser", "cmd_card"]


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
