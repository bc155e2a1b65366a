"""The preparation's stages: THE place where ranking conventions are applied (trec_eval's
``form_res_rels.c``).

:class:`~auditeval.engine.staged_run.StagedRun` (many conventions; :func:`~auditeval.engine.staged_run.prepare`
for one) runs them and caches each result under the axes it reads. Together they turn a :class:`~auditeval.vocab.model.Qrels`, a :class:`~auditeval.vocab.model.Run`
and a :class:`~auditeval.vocab.conventions.Convention` into a :class:`~auditeval.engine.ranked_lists.Prepared`: one ranked,
judged list per evaluated topic, stored as flat arrays with topic offsets (CSR). Every
measure reads only this structure, so no measure ever re-decides a convention.

The stages, one module each, in the order data flows:

1. :mod:`.join` -- no axis: topic codes (byte order), the qrels keys; once per run.
2. :mod:`.judgments` -- ``dups`` only when the qrels hold a duplicate (topic, doc): the qrels
   rows kept and each run row's grade, looked up once in file order.
3. :mod:`.ranking` -- ``ties``, ``sim``, ``dups``, ``self_hits``: the rows kept and their order
   (one sort per distinct key), with the grade of every ranked row.
4. :mod:`.qrels_side` -- ``negatives``, ``topics`` (and the qrels' ``dups``): the evaluated
   topics and their judged documents, grades sorted descending.
5. :mod:`.cut` -- ``depth``, ``unjudged`` (and ``negatives``, ``dups=error``) on a ranking:
   masks over its rows, no sort; gives the :class:`~auditeval.engine.ranked_lists.Prepared` lists.

Order of operations within them (trec_eval's, form_res_rels.c:100-230):

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
