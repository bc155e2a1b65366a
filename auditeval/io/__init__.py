"""TREC qrels and run readers/writers, plus in-memory inputs.

Modules: :mod:`.readers` (``read_qrels``, ``read_run``, ``parse_qrels``, ``parse_run``:
files and bytes), :mod:`.fast` (the one-pass Arrow path for regular files, shared with the
trec_eval drop-in as ``read_regular``), :mod:`.lines` (bytes, gzip, UTF-8, BOM, the general
path's split lines), :mod:`.numbers` (C ``atof``/``atol``, number columns),
:mod:`.memory` (``qrels_from``/``run_from``: paths, DataFrames, dicts, ``irds:``),
:mod:`.irds` (``qrels_from_irds``: an ir_datasets dataset's qrels),
:mod:`.ranx_json` (``read_run_path``: a TREC run file, or ranx's ``Run.save`` JSON),
:mod:`.writers`. Every reader builds its table with
:func:`auditeval.vocab.model.qrels_table` / :func:`auditeval.vocab.model.run_table`.

Errors are :class:`~auditeval.vocab.errors.InputError` as ``path:line: reason``; every decision
(skipped comment and blank lines, a removed byte order mark, coerced numbers, several run
tags) is a note on the returned :class:`~auditeval.vocab.model.Qrels` / :class:`~auditeval.vocab.model.Run`.
"""

from auditeval.io.fast import header_lines, last_value, read_regular, run_tags
from auditeval.io.irds import qrels_from_irds
from auditeval.io.lines import BOM
from auditeval.io.memory import qrels_from, run_from
from auditeval.io.numbers import c_atof, c_atol
from auditeval.io.ranx_json import read_run_path
from auditeval.io.readers import (
    QRELS_FIELDS,
    RUN_FIELDS,
    parse_qrels,
    parse_run,
    read_qrels,
    read_run,
    run_format_of,
)
from auditeval.io.writers import write_qrels, write_run

__all__ = [
    "BOM",
    "QRELS_FIELDS",
    "RUN_FIELDS",
    "c_atof",
    "c_atol",
    "header_lines",
    "last_value",
    "parse_qrels",
    "parse_run",
    "qrels_from",
    "qrels_from_irds",
    "read_qrels",
    "read_regular",
    "read_run",
    "read_run_path",
    "run_format_of",
    "run_from",
    "run_tags",
    "write_qrels",
    "write_run",
]
