"""The native evaluation engine, and its door: prepare (conventions) -> measures -> aggregate.

Every package outside ``auditeval/engine/`` imports from here (``from auditeval.engine import
...``), never from a submodule (``tests/project/test_layers.py`` checks). Its names come in two
named groups: what the analyses use (below), and :data:`DROPIN_ONLY`, what only the trec_eval
drop-in (:mod:`auditeval.trec_eval`) uses, which no other package may import (checked there too):

* trec_eval 8.x's C ``float`` arithmetic (:mod:`.c_float`): :func:`c_float_ap`,
  :func:`c_float_bpref`, :func:`c_float_means`, :func:`as_c_float`; its every measure (``-a``,
  ``-T``) from its tr_vec (:mod:`.trec8`): :func:`trec8_topic`, :func:`trec8_accumulate`,
  :func:`trec8_printed`, :class:`Trec8Params`;
* glibc's qsort order where trec_eval's comparator is inconsistent: :func:`glibc_msort`; a run's
  topics from the index its join shares: :func:`run_topics`;
* the preference and judgment-group measures one topic at a time, as trec_eval's control flow
  needs them: :func:`prefs_topic_values`, :func:`jg_topic_values`, :func:`ranked_docs`,
  :class:`PrefsFailure` / :class:`PrefsAbort` (where trec_eval stops or aborts).

What the analyses use:

* staging (:mod:`.stages`, cached by :mod:`.staged_run`): :class:`StagedRun` (one qrels and one
  run, many conventions, shared work), :func:`staged_for`, :func:`evaluate_prepared`,
  :func:`prepare`, :class:`Prepared`, :data:`ORDER_AXES` (tie order only), the grade sentinel
  :data:`NONPOOL`, :func:`has_duplicate_pairs`, :func:`as_sim` (the float32 rule), :data:`ENGINE`
  (the engine's name in provenance);
* values: :func:`measure_on`, the one application of a kernel with every spec wrapper
  (``check_convention``, ``fixed``, ``missing``, ``agg``), which :meth:`StagedRun.evaluate`
  calls too; :func:`aggregate`, :func:`undefined_note`, :func:`gain_of` (nDCG's gain);
* lists rebuilt from another's rows: :func:`subset`, :func:`reorder`, :func:`stacked`,
  :func:`head`, :func:`relabel` (pooling's frozen labels);
* tied blocks: :class:`Blocks`, :func:`tied_blocks`, :func:`ranked_scores`;
* pool growth's step sums: :func:`growth_means`;
* trec_eval's preference and judgment-group measures on every topic of a run (their judgments
  are no grades): :func:`evaluate_judgments`, :func:`judgment_variant`;
* sweeps: :func:`run_sweep` (= :func:`sweep_plan`, :func:`sweep_part` per run,
  :func:`sweep_assemble`: the parts can run elsewhere), :func:`axis_grid`, :func:`vary_values`,
  :func:`readable_axes`, :data:`DEPTH_GRID`, :class:`SweepResult`, :class:`SweepBlock`,
  :class:`SweepPart`, :class:`SweepPlan`.

Measure facts (aggregation, format, axes, properties) are the spec table's
(:data:`auditeval.vocab.specs.SPECS`), not the engine's.
"""

from auditeval.engine.aggregation import aggregate, undefined_note
from auditeval.engine.ids import has_duplicate_pairs
from auditeval.engine.measures.core import gain_of
from auditeval.engine.ranked_lists import NONPOOL, Prepared
from auditeval.engine.rebuild import head, relabel, reorder, stacked, subset
from auditeval.engine.score_ties import Blocks, ranked_scores, tied_blocks
from auditeval.engine.sim import as_sim
from auditeval.engine.staged_run import (
    ENGINE,
    ORDER_AXES,
    StagedRun,
    evaluate_prepared,
    measure_on,
    prepare,
    staged_for,
)
from auditeval.vocab.lazy import lazy_exports

# what only the trec_eval drop-in uses (tests/project/test_layers.py: no other package imports these)
DROPIN_ONLY = ("PrefsAbort", "PrefsFailure", "Trec8Params", "as_c_float", "c_float_ap", "c_float_bpref",
               "c_float_means", "glibc_msort", "jg_topic_values", "prefs_topic_values", "ranked_docs",
               "run_topics", "trec8_accumulate", "trec8_printed", "trec8_topic")

# Loaded on first use (PEP 562): what the drop-in's small call never needs (trec_eval 8.x's float
# sums, the preference measures, sweeps, pool growth's sums) stays out of its start-up (~55 ms).
_LAZY = {
    **dict.fromkeys(("as_c_float", "c_float_ap", "c_float_bpref", "c_float_means"), "auditeval.engine.c_float"),
    **dict.fromkeys(("Trec8Params", "trec8_accumulate", "trec8_printed", "trec8_topic"), "auditeval.engine.trec8"),
    "glibc_msort": "auditeval.engine.glibc_sort",
    "run_topics": "auditeval.engine.ids",
    **dict.fromkeys(("PrefsAbort", "PrefsFailure", "jg_topic_values", "prefs_topic_values", "ranked_docs"),
                    "auditeval.engine.measures.preference"),
    "growth_means": "auditeval.engine.growth_sums",
    **dict.fromkeys(("evaluate_judgments", "judgment_variant"), "auditeval.engine.measures.preference"),
    **dict.fromkeys(("DEPTH_GRID", "SweepBlock", "SweepPart", "SweepPlan", "SweepResult", "axis_grid",
                     "readable_axes", "run_sweep", "sweep_assemble", "sweep_part", "sweep_plan", "vary_values"),
                    "auditeval.engine.sweep"),
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [*DROPIN_ONLY,
    "DEPTH_GRID",
    "ENGINE",
    "NONPOOL",
    "ORDER_AXES",
    "Blocks",
    "Prepared",
    "StagedRun",
    "SweepBlock",
    "SweepPart",
    "SweepPlan",
    "SweepResult",
    "aggregate",
    "as_sim",
    "axis_grid",
    "evaluate_judgments",
    "evaluate_prepared",
    "gain_of",
    "growth_means",
    "has_duplicate_pairs",
    "head",
    "judgment_variant",
    "measure_on",
    "prepare",
    "ranked_scores",
    "readable_axes",
    "relabel",
    "reorder",
    "run_sweep",
    "stacked",
    "staged_for",
    "subset",
    "sweep_assemble",
    "sweep_part",
    "sweep_plan",
    "tied_blocks",
    "undefined_note",
    "vary_values",
]
