"""The text of ``auditeval reproduce``: the document-order table (KTU, RBO), the per-measure
table of the score statistics (RMSE, nRMSE, t, p, ER, DRI), the engines and the notes.

Boxed rich tables within the width (:mod:`auditeval.render.rich_tables`); the variant column
stays beside the numbers while :data:`~auditeval.render.rich_tables.MIN_VARIANT` cells are left
for it, else each measure's variant is printed under the table.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, TextIO

from auditeval.render.rich_tables import MIN_VARIANT, console, fmt, room, variant_cell

if TYPE_CHECKING:
    from auditeval.verify.reproduce import Reproduction

__all__ = ["SCORE_STATISTICS", "render_reproduce"]

SCORE_STATISTICS = ("RMSE", "nRMSE", "t", "p_value", "ER", "DRI")
"""The per-measure statistics, in their column order."""


def render_reproduce(res: Reproduction, out: TextIO, *, original: str, reproduced: str, qrels: str,
                     qrels_b: str | None, profile: str, per_topic: bool) -> None:
    """``res`` as text on ``out``: under reproducibility the document-order table of
    ``original`` vs ``reproduced`` (the means; every topic's KTU and RBO too with ``per_topic``),
    under replicability (``res.mode``) one line naming qrels A (``qrels``) and B (``qrels_b``);
    then the statistics scored under ``profile``, the engines and every note."""
    from auditeval.render.eval_text import print_note

    c = console(out)
    rpl = res.mode == "replicability"
    if rpl:
        c.print(f"replicability: {original} scored against qrels A = {qrels}; {reproduced} "
                f"against qrels B = {qrels_b}; every value below is qrels=A+B")
    else:
        _order_table(c, res, f"document order: {original} vs {reproduced}", per_topic)
    stats = [s for s in SCORE_STATISTICS if any(v.statistic == s for v in res.values)]
    if stats:  # else no measure had a topic to score: the notes say why
        _scores_table(c, res, profile, stats, rpl)
    c.print(f"engines: {', '.join(sorted({v.engine for v in res.values}))}")
    for n in res.notes:
        print_note(c, n)


def _order_table(c: Any, res: Reproduction, title: str, per_topic: bool) -> None:
    """KTU and RBO (the mean, ``topic == "all"``; every topic with ``per_topic``), each with its variant."""
    from rich.table import Table

    t = Table(title=title, title_justify="left")
    heads = ("statistic",) + (("topic",) if per_topic else ()) + ("value",)
    for col in heads + ("variant",):
        t.add_column(col, justify="right" if col == "value" else "left", no_wrap=col != "variant")
    shown = [v for v in res.values if v.statistic in ("KTU", "RBO") and (per_topic or v.topic == "all")]
    cells = [[v.statistic, *((v.topic,) if per_topic else ()), fmt(v.value)] for v in shown]
    left = room(c.width, list(heads), cells)
    for v, row in zip(shown, cells, strict=True):
        t.add_row(*row, variant_cell(v.variant, left))
    c.print(t)


def _scores_table(c: Any, res: Reproduction, profile: str, stats: list[str], rpl: bool) -> None:
    """The per-measure table of RMSE, nRMSE, t, p, ER, DRI (a variant column where it fits)."""
    from rich.table import Table

    by = {(v.measure, v.statistic): v for v in res.values if v.measure}
    what = ("unpaired t-test (qrels A vs qrels B)" if rpl else "RMSE, nRMSE, paired t-test")
    t = Table(title=f"per-topic scores under {profile}: {what}"
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
