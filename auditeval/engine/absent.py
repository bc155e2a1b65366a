"""The ``absent`` axis: the value of a qrels topic missing from the run under ``topics=qrels``.

The kernels see such a topic with an empty ranking (``Prepared.missing``). Only the spec rows
listing ``absent`` can score it other than 0; for them :func:`absent_values` applies the axis:

* ``zero`` (trec_eval 9.0.8 ``-c``, ir_measures): 0 (``''`` for a string measure);
* ``empty``: the kernel's value on the empty ranking, kept;
* ``bogus`` (trec_eval 10.0 ``-c``, trec_eval.c:154-156, 383-387): the kernel's value on a
  ranking of one document ``ceci_nest_pas_un_docno`` with score 1.0 (unjudged unless the
  qrels name it; the convention's ``unjudged`` and ``depth`` apply to it as to any document),
  then trec_eval's clean-up (trec_eval.c:416-430): the spec row's ``missing`` value replaces
  it when the measure is named without parameters (trec_eval compares the printed name:
  ``utility`` is reset, ``utility_1,-2,0,0`` is not) and without a cut-off unless the cut-off
  is required (``unj`` is matched as a prefix, so ``unj_5`` is reset; ``relstring_4`` is not).
  Rows without ``absent`` (NumRet, Unj, ...) equal 0 on both rankings after the clean-up.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np
import pyarrow as pa

from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Run, run_table

if TYPE_CHECKING:
    from auditeval.engine.measures.base import MeasureDef

BOGUS_DOCNO = "ceci_nest_pas_un_docno"  # trec_eval.c:154
BOGUS_SCORE = 1.0


def with_bogus_ranking(run: Run, topics: list[str]) -> Run:
    """``run`` plus one row (``ceci_nest_pas_un_docno``, score 1.0) for each of ``topics``."""
    if not topics:
        return run
    n = len(topics)
    extra = run_table(topics, [BOGUS_DOCNO] * n, np.full(n, BOGUS_SCORE), np.ones(n), line=np.zeros(n))  # no file line
    table = pa.concat_tables([run.table, extra.cast(run.table.schema)])
    return Run(table, name=run.name, source=run.source, notes=run.notes, skipped=run.skipped,
               empty_topics=run.empty_topics, format=run.format)


def reads_absent(d: MeasureDef, c: Convention) -> bool:
    """Whether ``c``'s ``absent`` value can change measure ``d``: its row lists the axis, or it
    reads ``rel`` and ``rel`` is below 0 (the bogus document, outside the qrels, counts as
    relevant there), and topics=qrels."""
    return c.topics == "qrels" and ("absent" in d.axes or (c.rel < 0 and "rel" in d.axes))


def resets(d: MeasureDef, m: Measure) -> bool:
    """trec_eval 10.0 resets the printed value after a bogus evaluation (trec_eval.c:416-430):
    by its printed name, which ``num_docs`` (``-N``, no part of the name) leaves plain."""
    named = any(k != "num_docs" for k, _ in m.params)
    return d.missing is not None and not named and (m.cutoff is None or d.cutoff == "required")


BogusLists = Callable[[Convention], Prepared]
"""The lists of the run with the bogus ranking added, prepared under a convention
(``lambda c: staged.bogus().prepared(c)`` for a
:class:`~auditeval.engine.staged_run.StagedRun`), called only under ``absent=bogus``."""


def absent_values(
    bogus: BogusLists | None, d: MeasureDef, m: Measure, c: Convention, p: Prepared, values: np.ndarray
) -> np.ndarray:
    """``values`` (the kernel on ``p``) with the topics ``p`` marks missing scored as
    ``c.absent`` says; ``m`` and ``c`` folded, the spec's ``fixed`` axes not yet applied.
    ``bogus``: where the bogus ranking's lists come from (None: lists rebuilt without a run,
    refused under ``absent=bogus`` unless the spec row resets the value)."""
    if not reads_absent(d, c) or not p.missing.any():
        return values
    if c.absent == "empty":
        return values
    if c.absent == "zero":
        return np.where(p.missing, "" if d.fmt == "str" else 0.0, values)
    if c.absent != "bogus":  # pragma: no cover - the axis lists three values
        raise AssertionError(c.absent)
    out = values.copy()
    if resets(d, m):
        out[p.missing] = d.missing
        return out
    if bogus is None:
        raise EvaluationError(f"{m}: absent=bogus (trec_eval 10.0 -c) scores a missing topic on a bogus ranking "
                              "of the run, which these rebuilt lists do not have; use absent=zero or absent=empty")
    pb = bogus(c)
    vb = np.asarray(d.fn(pb, m, c.replace(**d.fixed) if d.fixed else c))
    where = {t: i for i, t in enumerate(pb.topics)}
    idx = np.fromiter((where[t] for t in p.topics[p.missing]), np.int64, int(p.missing.sum()))
    out[p.missing] = vb[idx]
    return out
