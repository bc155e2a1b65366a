"""TSV: one value per line, full precision, variant, engine and profile as their own fields.

Notes (every decision taken) follow the values as ``# note: ...`` lines, so the header stays
the first line (``pandas.read_csv(path, sep="\\t", comment="#")`` reads the values).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TextIO

from auditeval.render.common import all_notes, as_list, full_value, rows
from auditeval.results.values import ResultSet, variant_text

LINES_PER_WRITE = 8192

COLUMNS = ("run", "measure", "topic", "value", "variant", "engine", "profile")


def render_tsv(results: ResultSet | Sequence[ResultSet], out: TextIO, per_topic: bool = False, **_: object) -> None:
    results = as_list(results)
    out.write("\t".join(COLUMNS) + "\n")
    for res in results:
        values = rows(res, per_topic)
        for at in range(0, len(values), LINES_PER_WRITE):  # a block at a time: the text is never held whole
            out.write("".join(
                "\t".join((v.run, v.measure, v.topic, full_value(v.value), variant_text(v.variant), v.engine,
                           res.profile)) + "\n"
                for v in values[at:at + LINES_PER_WRITE]))
    for n in all_notes(results):
        out.write("# note: " + n.replace("\n", " ") + "\n")
