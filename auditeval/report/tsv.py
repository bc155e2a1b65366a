"""TSV: one value per line, full precision, variant and engine as their own fields."""

from __future__ import annotations

from typing import TextIO

from ..results import ResultSet

COLUMNS = ("run", "measure", "topic", "value", "variant", "engine")


def render_tsv(res: ResultSet, out: TextIO, per_topic: bool = False) -> None:
    out.write("\t".join(COLUMNS) + "\n")
    for v in res.values if per_topic else res.aggregates():
        value = repr(v.value) if isinstance(v.value, float) else str(v.value)
        out.write("\t".join((v.run, v.measure, v.topic, value, v.variant, v.engine)) + "\n")
