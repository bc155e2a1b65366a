"""Reading TREC qrels and runs from files or bytes.

Formats (trec_eval's ``get_qrels.c`` / ``get_trec_results.c``)::

    qrels:  TOPIC  ITERATION  DOCNO  GRADE            (exactly 4 fields; ITERATION is the
            subtopic of a diversity qrels, kept when it holds more than one value)
    run:    TOPIC  Q0  DOCNO  RANK  SCORE  RUN_TAG    (6 fields)
    run, format="msmarco":  QID  PID  RANK            (3 fields: an MS MARCO candidate file)

Fields are separated by any whitespace. A regular file takes the fast path (:mod:`.fast`),
anything else the general one (:mod:`.lines`, :mod:`.numbers`); both give the same tables
(:func:`~auditeval.vocab.model.qrels_table`, :func:`~auditeval.vocab.model.run_table`), line numbers
and notes.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pyarrow as pa

from auditeval.io.fast import (
    FAST_NAMES,
    FAST_TYPES,
    dict_values,
    fast_table,
    header_lines,
    run_tags,
)
from auditeval.io.lines import Split, bad_field_count, head_bytes, is_plain_file, read_bytes
from auditeval.io.numbers import atof_column, int_column, parse_numbers, rank_note, score_notes
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import unique
from auditeval.vocab.model import Qrels, Run, qrels_table, run_table, subtopic_column

QRELS_FIELDS = 4
RUN_FIELDS = 6
MSMARCO_FIELDS = 3
RUN_FORMATS = ("trec", "msmarco", "auto")


def read_qrels(path: str | Path, numbers: str = "strict") -> Qrels:
    """Read a TREC qrels file (plain, ``.gz`` or ``-`` for stdin), or an ``irds:`` id."""
    if str(path).startswith("irds:"):
        from auditeval.io.irds import qrels_from_irds

        return qrels_from_irds(str(path)[5:])
    plain = is_plain_file(path)
    if plain:
        fast = fast_table(path, FAST_TYPES["qrels"], comment_header=True)
        if fast is not None:
            return _fast_qrels(fast, str(path))
    data, name = read_bytes(path)
    return _parse_qrels(data, name, numbers, try_fast=not plain)


def parse_qrels(data: bytes, name: str = "<qrels>", numbers: str = "strict") -> Qrels:
    return _parse_qrels(data, name, numbers, try_fast=True)


def _header_notes(fast: pa.Table, name: str) -> tuple[int, list[str], dict[str, tuple[int, ...]]]:
    """(lines skipped, notes, skipped) for a table from :func:`fast_table`, as :class:`Split` words them."""
    k = header_lines(fast)
    notes = [f"{name}: skipped {k} comment line(s) starting with '#'"] if k else []
    return k, notes, {"blank": (), "comment": tuple(np.arange(1, k + 1))}


def _fast_qrels(fast: pa.Table, name: str) -> Qrels:
    k, notes, skipped = _header_notes(fast, name)
    iteration = fast.column(1)  # dictionary-encoded by the CSV reader: its distinct values cost nothing
    subtopic = subtopic_column(iteration, len(dict_values(iteration)))
    table = qrels_table(fast.column(0), fast.column(2), fast.column(3), first_line=k + 1, subtopic=subtopic)
    return Qrels(table=table, source=name, notes=tuple(notes), skipped=skipped)


def _parse_qrels(data: bytes, name: str, numbers: str, try_fast: bool) -> Qrels:
    if try_fast:
        fast = fast_table(data, FAST_TYPES["qrels"], comment_header=True)
        if fast is not None:
            return _fast_qrels(fast, name)
    split = Split(data, name, "qrels")
    bad_field_count(split, split.nfields == QRELS_FIELDS, "4 (topic iteration docno grade)", "qrels")
    grade, coerced = parse_numbers(split.column(3), split, "relevance grade", "int", numbers)
    notes = list(split.notes)
    if coerced:
        notes.append(f"{name}: {coerced} grade(s) read with C atol (non-integer text)")
    iteration = split.column(1)
    subtopic = subtopic_column(iteration)
    table = qrels_table(split.column(0), split.column(2), grade, line=split.lineno, subtopic=subtopic)
    return Qrels(table=table, source=name, notes=tuple(notes), skipped=split.skipped)


def read_run(path: str | Path, numbers: str = "strict", min_fields: int = RUN_FIELDS, max_fields: int | None = RUN_FIELDS,
             format: str = "trec") -> Run:
    """Read a TREC run file (plain, ``.gz`` or ``-`` for stdin).

    trec_eval accepts more than 6 fields and ignores the extra ones; pass
    ``max_fields=None`` for that behaviour (the drop-in does). The default is strict.

    Scores are read as trec_eval reads them, with C ``atof`` (``0x1p-1`` -> 0.5, ``1e400`` ->
    inf, ``nan``, ``1.5abc`` -> 1.5, ``abc`` -> 0), each such field and each value that is not
    finite noted. The rank column, which trec_eval, the drop-in and pytrec_eval never read, may
    hold anything: a field that is not an integer (``-``, ``abc``, ``1.5``) is a null rank, noted
    with its lines; only ``ties=rank`` orders by the column, and refuses such a run naming the
    line. An MS MARCO candidate file's rank is its ordering: there a bad rank is an error.

    ``format``: ``"trec"`` (the default), ``"msmarco"`` (an MS MARCO candidate file
    ``qid<TAB>pid<TAB>rank``, see :func:`parse_msmarco_run`) or ``"auto"`` (msmarco when the
    first line that is not blank or a ``#`` comment has exactly 3 fields, as
    pyserini/eval/trec_eval.py:97 converts a run whose first line has no ``Q0``; else trec).
    """
    if format != "trec":
        if str(path) == "-" or format == "msmarco":
            data, name = read_bytes(path)
            if _run_format(data, format) == "msmarco":
                return parse_msmarco_run(data, name, numbers)
            return _parse_run(data, name, numbers, min_fields, max_fields, try_fast=True)
        if _run_format(head_bytes(path), format) == "msmarco":
            return parse_msmarco_run(*read_bytes(path), numbers)
    fast_ok = min_fields <= RUN_FIELDS and (max_fields is None or max_fields >= RUN_FIELDS)
    plain = fast_ok and is_plain_file(path)
    if plain:
        fast = _fast_run_table(path)
        if fast is not None:
            return _fast_run(fast, str(path))
    data, name = read_bytes(path)
    return _parse_run(data, name, numbers, min_fields, max_fields, try_fast=fast_ok and not plain)


def parse_run(
    data: bytes,
    name: str = "<run>",
    numbers: str = "strict",
    min_fields: int = RUN_FIELDS,
    max_fields: int | None = RUN_FIELDS,
    format: str = "trec",
) -> Run:
    """A run from bytes (``format`` as in :func:`read_run`)."""
    if _run_format(data, format) == "msmarco":
        return parse_msmarco_run(data, name, numbers)
    fast_ok = min_fields <= RUN_FIELDS and (max_fields is None or max_fields >= RUN_FIELDS)
    return _parse_run(data, name, numbers, min_fields, max_fields, try_fast=fast_ok)


def _parse_run(data: bytes, name: str, numbers: str, min_fields: int, max_fields: int | None, try_fast: bool) -> Run:
    if try_fast:
        fast = _fast_run_table(data)
        if fast is not None:
            return _fast_run(fast, name)
    split = Split(data, name, "run")
    ok = split.nfields >= min_fields
    if max_fields is not None:
        ok &= split.nfields <= max_fields
    expected = "6 (topic Q0 docno rank score tag)" if max_fields == min_fields else f"at least {min_fields}"
    bad_field_count(split, ok, expected, "run")
    notes = list(split.notes)
    score_col = split.column(4)
    score, coerced = atof_column(score_col)  # every reader reads scores as trec_eval does: C atof
    notes.extend(score_notes(name, score, coerced, lambda row: f"line {split.line_of(row)}", lambda row: score_col[row].as_py()))
    n_extra = int((split.nfields > RUN_FIELDS).sum())
    if n_extra:
        notes.append(f"{name}: ignored fields after the 6th on {n_extra} line(s)")
    rank = _rank_column(split, numbers, notes)
    tags = split.column(5)
    run_name = tags[len(tags) - 1].as_py()
    table = run_table(split.column(0), split.column(2), score, rank, line=split.lineno)
    n_tags = pc.count_distinct(tags).as_py()
    if n_tags > 1:
        notes.append(f"{name}: {n_tags} different run tags; using the last one read, {run_name!r} (as trec_eval)")
    return Run(table=table, name=run_name, source=name, notes=tuple(notes), skipped=split.skipped)


def _rank_column(split: Split, numbers: str, notes: list[str]) -> pa.Array | np.ndarray:
    """The rank column of a TREC run read on the general path. trec_eval never reads it
    (get_trec_results.c keeps the field as text; form_res_rels.c ranks by score), nor do the
    drop-in and pytrec_eval: a field that is not an integer is a null rank, noted, and only
    ``ties=rank`` (which orders by the column) refuses it, naming the line. ``numbers="atof"``
    reads such a field with C ``atol`` instead (then ``ties=rank`` reads that value)."""
    col = split.column(3)
    name = split.name
    if numbers != "strict":
        rank, rank_coerced = parse_numbers(col, split, "rank", "int", numbers)
        if rank_coerced:
            notes.append(f"{name}: {rank_coerced} rank(s) read with C atol (non-integer text; only ties=rank reads ranks)")
        return rank
    values, bad = int_column(col)
    note = rank_note(name, bad, lambda row: f"line {split.line_of(row)}", lambda row: col[row].as_py())
    if note is None:
        return values
    notes.append(note)
    return pa.array(values, mask=bad)


def _fast_run_table(source: bytes | str | Path) -> pa.Table | None:
    """A regular run's columns but Q0 and the tag (checked, then summarised: :func:`run_tags`)."""
    return fast_table(source, FAST_TYPES["run"], comment_header=True, names=FAST_NAMES["run"], keep=(0, 2, 3, 4))


def _fast_run(fast: pa.Table, name: str) -> Run:
    """The :class:`Run` of a file read by :func:`fast_table` (same table and notes as the general path)."""
    tags, run_name = run_tags(fast)
    k, notes, skipped = _header_notes(fast, name)
    table = run_table(fast["topic"], fast["doc"], fast["score"], fast["rank"], first_line=k + 1)
    n_tags = len(tags)
    if n_tags > 1:
        notes.append(f"{name}: {n_tags} different run tags; using the last one read, {run_name!r} (as trec_eval)")
    return Run(table=table, name=run_name, source=name, notes=tuple(notes), skipped=skipped)


def run_format_of(path: str | Path) -> str:
    """``"msmarco"`` when the file's first data line has 3 fields (an MS MARCO candidate file,
    as ``read_run(format="auto")`` reads it), else ``"trec"``; reads the first 64 KiB only."""
    return _run_format(head_bytes(path), "auto")


def _run_format(data: bytes, format: str) -> str:
    """``"trec"`` or ``"msmarco"`` for ``format`` (``"auto"``: 3 fields on the first data line)."""
    if format not in RUN_FORMATS:
        raise ValueError(f"run format must be one of {', '.join(RUN_FORMATS)}, got {format!r}")
    if format != "auto":
        return format
    for raw in data[: 1 << 16].splitlines():
        line = raw.strip()
        if line and not line.startswith(b"#"):
            return "msmarco" if len(line.split()) == MSMARCO_FIELDS else "trec"
    return "trec"


def parse_msmarco_run(data: bytes, name: str = "<run>", numbers: str = "strict") -> Run:
    """An MS MARCO candidate file ``qid<TAB>pid<TAB>rank`` (msmarco_passage_eval.py:46-67,
    msmarco_doc_eval.py:67-89) as a :class:`Run`.

    Decision: the file has no score, so **score = -rank** (float64, exact up to 2^53): score
    descending is rank ascending, so every ``ties`` value orders by the rank column, and equal
    ranks tie on score and go to the tie rule (``ties=rank`` keeps them in line order;
    ``docno-desc`` is what pyserini.eval.trec_eval gives, converting with score = 1/rank,
    pyserini/eval/trec_eval.py:97-105). The rank column is kept, so ``ties=rank`` reads it.

    Fields are split on any white space (the scripts split on tabs only). Three things the
    msmarco_eval scripts treat differently from a sorted ranking are noted, never dropped:
    a rank column that is not 1..n per query (the passage script places pid at slot rank-1,
    so a gap leaves an empty slot where auditeval counts positions), a rank given twice for
    one query (the passage script keeps the last line, the document script orders by docid),
    and a rank outside 1..1000 (the passage script's 1000-slot list: IOError, or rank 0
    landing in slot 1000). The run is named after the file.
    """
    fast = fast_table(data, FAST_TYPES["msmarco"], comment_header=True, names=FAST_NAMES["msmarco"])
    if fast is not None:
        k, notes, skipped = _header_notes(fast, name)
        topic, doc, rank = fast["topic"], fast["doc"], fast["rank"].to_numpy()
        line = np.arange(k + 1, k + 1 + len(rank), dtype=np.int64)
    else:
        split = Split(data, name, "run")
        bad_field_count(split, split.nfields == MSMARCO_FIELDS, "3 (qid pid rank: an MS MARCO candidate file)", "run")
        ranks, coerced = parse_numbers(split.column(2), split, "rank", "int", numbers)
        notes = list(split.notes)
        if coerced:
            notes.append(f"{name}: {coerced} rank(s) read with C atol (non-integer text; msmarco_eval raises IOError)")
        topic, doc, rank, line, skipped = split.column(0), split.column(1), np.asarray(ranks, dtype=np.int64), split.lineno, split.skipped
    notes.append(f"{name}: read as an MS MARCO candidate file (qid pid rank): score = -rank, so score order is rank order")
    notes.extend(_rank_column_notes(name, topic, rank))
    table = run_table(topic, doc, -rank.astype(np.float64), rank, line=line)
    return Run(table=table, name=Path(name).name or "msmarco", source=name, notes=tuple(notes), skipped=skipped,
               format="msmarco")


def _rank_column_notes(name: str, topic: pa.Array | pa.ChunkedArray, rank: np.ndarray) -> list[str]:
    """Notes on rank columns the msmarco_eval scripts read differently from a sorted ranking
    (vectorised: one sort by (topic, rank), then per-row comparisons)."""
    codes = pc.dictionary_encode(topic).combine_chunks() if isinstance(topic, pa.ChunkedArray) else pc.dictionary_encode(topic)
    tcode = np.asarray(codes.indices.to_numpy(zero_copy_only=False), dtype=np.int64)
    order = np.lexsort((rank, tcode))
    t, r = tcode[order], rank[order]
    start = np.r_[True, t[1:] != t[:-1]]
    first = np.flatnonzero(start)
    position = np.arange(len(r)) - np.repeat(first, np.diff(np.r_[first, len(r)])) + 1
    repeated = np.r_[False, (t[1:] == t[:-1]) & (r[1:] == r[:-1])]
    gap = (r != position) & ~repeated
    out = []
    n_gap = len(unique(t[gap]))
    if n_gap:
        out.append(f"{name}: {n_gap} query(ies) whose rank column is not 1..n (gaps): msmarco_eval-passage scores the "
                   "rank value (slot rank-1), auditeval and msmarco_eval-document the position after sorting")
    n_rep = len(unique(t[repeated]))
    if n_rep:
        out.append(f"{name}: {n_rep} query(ies) with a rank given twice: msmarco_eval-passage keeps the last such line, "
                   "msmarco_eval-document orders them by docid, ties=rank by line")
    outside = int(((rank < 1) | (rank > 1000)).sum())
    if outside:
        out.append(f"{name}: {outside} rank(s) outside 1..1000 (msmarco_eval-passage's 1000-slot list: IOError, rank 0 in slot 1000)")
    return out
