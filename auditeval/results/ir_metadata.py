"""The evaluation section of ir_metadata (https://www.ir-metadata.org), as run files carry it.

ir_metadata annotates a run file with a YAML block of ``#`` lines at its top::

    # ir_metadata.start
    # research goal:
    #   evaluation:
    #     reported measures: [AP, nDCG@10]
    #     evaluator: {name: auditeval, version: 0.1.0, ...}
    # ir_metadata.end

:func:`evaluation_block` writes the ``research goal / evaluation`` part for auditeval
results: the evaluator and its version, the engine, each profile with every axis value,
the variant string of every measure, the qrels' SHA-256 and the aggregate values per run
(a run the engine refused under a profile: ``refused: {run: reason}`` in that profile).
:func:`read_block` reads a block back (from text or a run file); auditeval's run readers
skip the block's ``#`` lines with a note, and repro_eval's ``MetadataHandler.read_metadata``
reads the same dict (the block must then open the file).

The qrels hash (:func:`auditeval.io.hashing.qrels_sha256`) is taken over the judgments, not the file bytes, so a plain file, its .gz
and a DataFrame of the same judgments agree: SHA-256 of the lines ``topic doc grade\\n``
sorted by (topic, doc) in byte order.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import yaml

from auditeval._version import __version__
from auditeval.io.files import read_text, write_text
from auditeval.io.hashing import QRELS_HASH_OF, qrels_sha256
from auditeval.results.values import ResultSet, variant_text
from auditeval.vocab.model import Qrels

START = "# ir_metadata.start"
END = "# ir_metadata.end"


def evaluation_section(results: ResultSet | Sequence[ResultSet], qrels: Qrels | str | Path | None = None) -> dict[str, Any]:
    """The ``research goal: evaluation:`` mapping as Python objects."""
    results = [results] if isinstance(results, ResultSet) else list(results)
    measures = list(dict.fromkeys(v.measure for res in results for v in res.aggregates()))
    engines = sorted({v.engine for res in results for v in res.values})
    profiles = []
    for res in results:
        variants: dict[str, str] = {}
        runs: dict[str, dict[str, Any]] = {}
        for v in res.aggregates():
            variants.setdefault(v.measure, variant_text(v.variant))
            runs.setdefault(v.run, {})[v.measure] = v.value
        entry = {
            "name": res.profile,
            "axes": dict(res.convention.as_dict()) if res.convention is not None else None,
            "variants": variants,
            "results": runs,
        }
        if res.refusals:  # runs the engine refused under this profile, with its message
            entry["refused"] = {r.run: r.reason for r in res.refusals}
        profiles.append(entry)
    evaluator: dict[str, Any] = {"name": "auditeval", "version": __version__, "engine": ", ".join(engines), "profiles": profiles}
    if qrels is not None and not isinstance(qrels, Qrels):  # a path: read by the library's reader
        from auditeval.io import qrels_from

        qrels = qrels_from(qrels)
    if qrels is not None:
        evaluator["qrels"] = {
            "source": qrels.source,
            "judgments": len(qrels),
            "topics": len(qrels.topics),
            "sha256": qrels_sha256(qrels),
            "hash of": QRELS_HASH_OF,
        }
    notes = list(dict.fromkeys(n for res in results for n in res.notes))
    if notes:
        evaluator["notes"] = notes
    return {"reported measures": measures, "evaluator": evaluator}


def evaluation_block(results: ResultSet | Sequence[ResultSet], qrels: Qrels | str | Path | None = None) -> str:
    """The evaluation section as an ir_metadata block (``# ir_metadata.start`` ... ``end``)."""
    doc = {"research goal": {"evaluation": evaluation_section(results, qrels)}}
    body = yaml.safe_dump(doc, sort_keys=False, allow_unicode=True, width=4096, default_flow_style=False)
    lines = [START] + [f"# {line}".rstrip() for line in body.splitlines()] + [END]
    return "\n".join(lines) + "\n"


def write_evaluation_block(path: str | Path, results: ResultSet | Sequence[ResultSet], qrels: Qrels | str | Path | None = None) -> None:
    """Write :func:`evaluation_block` to ``path`` (prepend it to a run file to annotate it)."""
    write_text(path, evaluation_block(results, qrels))  # atomic; OutputError on a bad folder


def read_block(source: str | Path) -> dict[str, Any] | None:
    """The first ir_metadata block of a text or a file, as a dict (None when there is none).

    ``source`` is a path when it names an existing file, otherwise the text itself."""
    text = source
    if isinstance(source, Path) or ("\n" not in str(source) and Path(str(source)).is_file()):
        text = read_text(source)  # the checked opener
    lines = str(text).splitlines()
    try:
        start = next(i for i, line in enumerate(lines) if line.strip() == START)
    except StopIteration:
        return None
    body = []
    for line in lines[start + 1 :]:
        if line.strip() == END:
            break
        body.append(line[2:] if line.startswith("# ") else line.lstrip("#"))
    return yaml.safe_load("\n".join(body)) or {}
