"""The text of ``auditeval measures``: the spec table (one row per measure: name, trec_eval
name, cut-off, aggregate, the axes it reads, its definition) or one measure's row in full,
within the width (:func:`auditeval.render.textgrid.grid`, broken at spaces only)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, TextIO

from auditeval.vocab.conventions import AXIS_ORDER

if TYPE_CHECKING:
    from auditeval.vocab.specs import MeasureSpec

__all__ = ["measure_help", "render_measure", "render_measures"]


def render_measures(specs: Mapping[str, MeasureSpec], out: TextIO) -> None:
    """Every row of ``specs`` in case-blind name order, under a lead naming the ranking axes
    (a measure that ranks reads them all; ``ranking (no order)``: all but ``ties`` and ``sim``)."""
    from auditeval.render.textgrid import grid, wrap
    from auditeval.render.width import detect_width
    from auditeval.vocab.spec_table import RANKING

    width = detect_width(out)
    ranking = " ".join(a for a in AXIS_ORDER if a in RANKING)
    lines = wrap(f"measures (ir_measures spelling; the trec_eval name is an alias). Every measure that ranks also "
                 f"reads the ranking axes: {ranking}. 'auditeval measures NAME' prints one measure's formula and "
                 "source.", width)
    cutoff = {"none": "", "optional": "opt", "required": "req"}
    rows = []
    for name, d in sorted(specs.items(), key=lambda kv: kv[0].lower()):
        ordered = RANKING <= d.axes and not {"ties", "sim"} & set(d.only_if)
        ranks = RANKING - {"ties", "sim"} <= d.axes
        extra = [a for a in AXIS_ORDER if a in d.axes and not (ranks and a in RANKING)]
        axes = ("ranking " if ordered else "ranking (no order) " if ranks else "") + " ".join(extra)
        rows.append([name, d.trec_name or "", cutoff.get(d.cutoff, d.cutoff), d.agg, axes.strip(), d.doc])
    # names and tokens never break; axes and definitions break at spaces (a long definition goes under its row)
    lines += [x for x, _ in grid(["name", "trec_eval", "@k", "agg", "axes read", "definition"], rows, width,
                                 wrap_cols=[4, 5], inline=3)]
    out.write("".join(x + "\n" for x in lines))


def render_measure(spec: MeasureSpec, out: TextIO) -> None:
    """One measure's row in full (:func:`measure_help`) within ``out``'s width."""
    from auditeval.render.width import detect_width

    out.write(measure_help(spec, detect_width(out)))


def measure_help(spec: MeasureSpec, width: int = 100) -> str:
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
