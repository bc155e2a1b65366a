"""THE place where ranking conventions are applied (trec_eval's ``form_res_rels.c``).

:func:`prepare` (one convention) and :class:`~auditeval.engine.staged_run.StagedRun` (many)
turn a :class:`~auditeval.vocab.model.Qrels`, a :class:`~auditeval.vocab.model.Run`
and a :class:`~auditeval.vocab.conventions.Convention` into a :class:`Prepared`: one ranked,
judged list per evaluated topic, stored as flat arrays with topic offsets (CSR). Every
measure reads only this structure, so no measure ever re-decides a convention.

Order of operations (trec_eval's, form_res_rels.c:100-230), stage by stage in
:mod:`.staged_run` (join, judgments, ranking, qrels side, cut):

1. ``self_hits``: drop rows whose doc id equals the topic id (BEIR), counted.
2. ``dups`` (``first``/``last``): collapse repeated (topic, doc) rows by file line, counted.
3. ``sim``: scores rounded to float32 when asked (C ``float sim``), so near-equal scores tie.
4. ``ties``: sort each topic by score desc and the tie rule (or by the rank column).
   NaN scores (every reader reads ``nan`` as C ``atof`` does, with a note) sort after every
   number, except under ``docno-desc``: there trec_eval's qsort order for them is
   replayed (``ordering.trec_nan_scores``).
5. ``depth``: keep the first N rows of each topic.
6. ``dups`` (``error``): a (topic, doc) pair seen twice within the depth is an error
   (trec_eval checks after ``-M``, so duplicates below the depth pass, as there).
7. judgments: each row gets its qrels grade; ``-1`` = not in the qrels (NONPOOL);
   negative grades are ``-2`` (in pool, unjudged) under ``negatives=pooled`` or 0 under
   ``negatives=nonrel``.
8. ``unjudged=drop``: rows with grade < 0 removed, ranks close up (trec_eval ``-J``).
9. ``topics``: choose the evaluated topic set (both / qrels / strict / run).

Topics are evaluated in byte order of their ids (trec_eval sorts qids with strcmp), and
all sums run in that order.
"""

from __future__ import annotations

from auditeval.engine.ids import has_duplicate_pairs
from auditeval.engine.ranked_lists import NONPOOL, UNJUDGED, Prepared
from auditeval.engine.staged_run import StagedRun
from auditeval.vocab.conventions import Convention
from auditeval.vocab.model import Qrels, Run

__all__ = ["NONPOOL", "UNJUDGED", "Prepared", "has_duplicate_pairs", "prepare"]


def prepare(qrels: Qrels, run: Run, conv: Convention) -> Prepared:
    """The :class:`Prepared` lists of ``run`` under ``conv`` (for many conventions keep one
    :class:`~auditeval.engine.staged_run.StagedRun`: it shares every stage)."""
    return StagedRun(qrels, run).prepared(conv)
