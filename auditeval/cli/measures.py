"""``auditeval measures [NAME]``: the spec table, or one measure's formula, source and axes."""

from __future__ import annotations

import argparse
from typing import TextIO

from auditeval.vocab.conventions import AXIS_ORDER

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
        from auditeval.render.eval_text import detect_width

        out.write(_measure_help(spec, detect_width(out)))
        return 0
    from auditeval.render.eval_text import detect_width
    from auditeval.render.textgrid import grid, wrap
    from auditeval.vocab.spec_table import RANKING

    width = detect_width(out)
    ranking = " ".join(a for a in AXIS_ORDER if a in RANKING)
    lines = wrap(f"measures (ir_measures spelling; the trec_eval name is an alias). Every measure that ranks also "
                 f"reads the ranking axes: {ranking}. 'auditeval measures NAME' prints one measure's formula and "
                 "source.", width)
    cutoff = {"none": "", "optional": "opt", "required": "req"}
    rows = []
    for name, d in sorted(SPECS.items(), key=lambda kv: kv[0].lower()):
        ordered = RANKING <= d.axes and not {"ties", "sim"} & set(d.only_if)
        ranks = RANKING - {"ties", "sim"} <= d.axes
        extra = [a for a in AXIS_ORDER if a in d.axes and not (ranks and a in RANKING)]
        axes = ("ranking " if ordered else "ranking (no order) " if ranks else "") + " ".join(extra)
        rows.append([name, d.trec_name or "", cutoff.get(d.cutoff, d.cutoff), d.agg, axes.strip(), d.doc])
    # names and tokens never break; axes and definitions break at spaces (a long definition goes under its row)
    lines += [x for x, _ in grid(["name", "trec_eval", "@k", "agg", "axes read", "definition"], rows, width,
                                 wrap_cols=[4, 5], inline=3)]
    out.write("".join(x + "\n" for x in lines))
    return 0


def _measure_help(spec, width: int = 100) -> str:
    """One measure's row of the spec table, as trec_eval's per-measure help prints it, within
    ``width`` columns (broken at spaces only)."""
    from auditeval.render.textgrid import wrap
    from auditeval.vocab.specs import CONDITIONS

    trec = ", ".join(t + {"int": ".K", "float": ".X"}.get(k or "", "") for t, k in spec.trec_names) or "(none)"
    cut = {"none": "none", "optional": "optional", "required": "required"}[spec.cutoff]
    if spec.cutoff != "none":
        cut += f" (@k, {spec.cutoff_type.__name__})"
    params = ", ".join(f"{k} ({v.__name__})" for k, v in spec.params.items()) or "none"
    axes = " ".join(a + (f" ({CONDITIONS[spec.only_if[a]]})" if a in spec.only_if else "")
                    for a in AXIS_ORDER if a in spec.axes)
    agg = {"mean": "mean over topics", "sum": "sum over topics", "gmean": "geometric mean (gm_floor)",
           "mean-defined": f"mean over the topics with a value (none when {spec.undefined})",
           "none": "none (per topic only)"}[spec.agg]
    missing = "computed on an empty ranking" if spec.missing is None else repr(spec.missing)
    rows = [("formula", spec.formula), ("source", spec.source), ("trec_eval", trec), ("cut-off", cut),
            ("parameters", params), ("aggregate", agg), ("format", spec.fmt), ("axes read", axes),
            ("absent topic", missing)]
    lines = wrap(f"{spec.name}: {spec.doc}", width, indent=2)
    for k, v in rows:
        lines += wrap(v, width, indent=16, first=f"  {k + ':':<14}")
    return "\n".join(lines) + "\n"


