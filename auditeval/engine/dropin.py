"""The engine's second door: what only the trec_eval drop-in (:mod:`auditeval.trec_eval`) uses.

The analyses reach the engine through :mod:`auditeval.engine`; the drop-in reaches it there too
(staging, values, aggregation) and, for what no analysis needs, here
(``tests/project/test_layers.py``: only ``auditeval.trec_eval`` imports this module):

* trec_eval 8.x's C ``float`` arithmetic (:mod:`.c_float`): :func:`c_float_ap`,
  :func:`c_float_bpref`, :func:`c_float_means`, :func:`as_c_float`;
* trec_eval 8.x's every measure (``-a``, ``-T``) from its tr_vec, in C float (:mod:`.trec8`):
  :func:`trec8_topic` (one topic's TREC_EVAL fields), :func:`trec8_accumulate` (the summary's
  sums), :func:`trec8_printed` (the values printed), :class:`Trec8Params` (its flags);
* glibc's qsort order where trec_eval's comparator is inconsistent: :func:`glibc_msort`;
* a run's topics from the index its join shares (no hashing of every row): :func:`run_topics`;
* the preference and judgment-group measures one topic at a time, as trec_eval's control flow
  needs them (:mod:`.measures.preference`): :func:`prefs_topic_values`, :func:`jg_topic_values`,
  :func:`ranked_docs`, :class:`PrefsFailure` / :class:`PrefsAbort` (where trec_eval stops or
  aborts). Every topic of a run at once is :func:`auditeval.engine.evaluate_judgments`.

Every name loads on first use (PEP 562), so the drop-in's 9.x/10.0 path imports none of them.
"""

from __future__ import annotations

from auditeval.vocab.lazy import lazy_exports

_LAZY = {
    **dict.fromkeys(("as_c_float", "c_float_ap", "c_float_bpref", "c_float_means"), "auditeval.engine.c_float"),
    **dict.fromkeys(("Trec8Params", "trec8_accumulate", "trec8_printed", "trec8_topic"), "auditeval.engine.trec8"),
    "glibc_msort": "auditeval.engine.glibc_sort",
    "run_topics": "auditeval.engine.ids",
    **dict.fromkeys(("PrefsAbort", "PrefsFailure", "jg_topic_values", "prefs_topic_values", "ranked_docs"),
                    "auditeval.engine.measures.preference"),
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)
