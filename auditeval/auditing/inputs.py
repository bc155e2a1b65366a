"""Files the reference tools read: the user's files where a tool can read them as they are,
plain-text copies otherwise, and rewritten runs for emulated conventions.

* A plain file path is handed over unchanged (the tool reads exactly what the user gave),
  unless it holds lines that only some tools skip (``#`` comments, an ir_metadata header,
  blank lines, a UTF-8 byte-order mark, CR line ends: pytrec_eval and ir_measures stop on
  them, trec_eval 9 rejects ``#``); then every tool reads one clean copy written from the
  rows auditeval parsed, and a note says so.
* A ``.gz`` file is decompressed byte for byte; an in-memory input (DataFrame, dict,
  :class:`~auditeval.vocab.model.Run`) is written in TREC format (:func:`auditeval.io.write_run`).
* An emulated convention (``ties``, ``sim``, ``depth``, ``dups``, ``self_hits``,
  ``unjudged=drop``): auditeval prepares the run under the requested convention and writes
  its ranked rows (``Prepared.run_row``) with strictly decreasing integer scores
  (``n - position`` per topic, exact in float32), so the tool's own tie rule and score
  precision cannot reorder them (design.md, "the rescoring trick").
"""

from __future__ import annotations

import gzip
import mmap
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.csv as pacsv

from auditeval.engine import prepare
from auditeval.io import run_format_of, write_qrels, write_run
from auditeval.vocab.conventions import Convention
from auditeval.vocab.model import Qrels, Run


def plain_path(obj: Any) -> str | None:
    """The path itself when ``obj`` names an uncompressed file on disk that every tool reads
    as auditeval does (no line that only some tools skip: see the module docstring)."""
    if isinstance(obj, str | Path) and not str(obj).startswith("irds:") and str(obj) != "-":
        p = Path(obj)
        if (p.is_file() and not p.name.endswith(".gz") and not has_skippable_lines(p)
                and run_format_of(p) == "trec"):  # an MS MARCO candidate file: the tools get a TREC copy
            return str(p.resolve())
    return None


def has_skippable_lines(path: Path) -> bool:
    """Whether the file holds a ``#`` line, a blank line, a BOM or a CR (one pass over a map)."""
    if path.stat().st_size == 0:
        return False
    with open(path, "rb") as fh, mmap.mmap(fh.fileno(), 0, access=mmap.ACCESS_READ) as m:
        return (m[:1] in (b"#", b"\n") or m[:3] == b"\xef\xbb\xbf" or m.find(b"\n#") >= 0
                or m.find(b"\n\n") >= 0 or m.find(b"\r") >= 0)


def tool_file(obj: Any, loaded: Qrels | Run, workdir: Path, stem: str, notes: list[str] | None = None) -> str:
    """A plain TREC file holding ``obj`` for the tools (see the module docstring); a clean
    copy written for a file with skippable lines is noted in ``notes``."""
    out = workdir / f"{stem}.txt"
    if isinstance(loaded, Run) and loaded.format != "trec":  # the tools read TREC runs
        write_run(loaded, out)
        if notes is not None:
            notes.append(f"{obj}: an MS MARCO candidate file (qid pid rank); every reference read a TREC copy "
                         f"of its {len(loaded)} line(s), score = -rank")
        return str(out)
    direct = plain_path(obj)
    if direct is not None:
        return direct
    if isinstance(obj, str | Path) and Path(obj).is_file() and not str(obj).endswith(".gz"):
        (write_qrels if isinstance(loaded, Qrels) else write_run)(loaded, out)
        if notes is not None:
            notes.append(f"{obj}: holds lines some reference tools cannot parse (comments, blank lines, "
                         f"a byte-order mark or CR line ends); every reference read a clean copy of the "
                         f"{len(loaded)} parsed line(s)")
        return str(out)
    if isinstance(obj, str | Path) and str(obj).endswith(".gz") and Path(obj).is_file():
        with gzip.open(obj, "rb") as src, open(out, "wb") as dst:
            shutil.copyfileobj(src, dst)
    elif isinstance(loaded, Qrels):
        write_qrels(loaded, out)
    else:
        write_run(loaded, out)
    return str(out)


def rewritten_run(qrels: Qrels, run: Run, conv: Convention, path: Path) -> str:
    """Write ``run`` ranked under ``conv`` with scores ``n - position`` per topic."""
    c = conv.replace(topics="run")  # every run topic: the tool decides its own topic set
    p = prepare(qrels, run, c)
    rows = pa.array(p.run_row)
    topic = pa.array(p.topics.tolist(), pa.string()).take(pa.array(p.row_topic))
    rank = p.rank
    n = np.repeat(p.num_ret, p.num_ret)
    table = pa.table({
        "topic": topic,
        "q0": pa.array(np.full(len(rank), "Q0")),
        "doc": run.table.column("doc").take(rows),
        "rank": pa.array(rank),
        "score": pa.array((n - rank + 1).astype(np.int64)),
        "tag": pa.array(np.full(len(rank), run.name or "run")),
    })
    opts = pacsv.WriteOptions(include_header=False, delimiter=" ", quoting_style="none")
    pacsv.write_csv(table, str(path), write_options=opts)
    return str(path)
