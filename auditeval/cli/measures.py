"""``auditeval measures [NAME]``: the spec table, or one measure's formula, source and axes
(laid out by :mod:`auditeval.render.measures_text`)."""

from __future__ import annotations

import argparse
from typing import TextIO

__all__ = ["cmd_measures", "measures_parser"]


def measures_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="one measure (auditeval or trec_eval name): its formula, source and axes")


def cmd_measures(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.vocab.specs import SPECS, TREC_ALIASES  # before spec_table, which imports specs

    if args.name:
        from auditeval.vocab.spec_table import PREFS_SPECS

        spec = SPECS.get(args.name) or SPECS.get(TREC_ALIASES.get(args.name, ("",))[0]) or PREFS_SPECS.get(args.name)  # -R prefs
        if spec is None:  # every spelling -m reads: nDCG@10, MAP, ndcg_cut.10, P_5, SetP(relative=True)
            from auditeval.vocab.names import split_measures
            from auditeval.vocab.variant import parse_measure

            names = split_measures(args.name) or [args.name]
            spec = SPECS[parse_measure(names[0]).name]
        from auditeval.render.measures_text import render_measure

        render_measure(spec, out)
        return 0
    from auditeval.render.measures_text import render_measures

    render_measures(SPECS, out)
    return 0
