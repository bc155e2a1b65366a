"""The native evaluation engine, and its one door: prepare (conventions) -> measures -> aggregate.

Every package outside ``auditeval/engine/`` imports from here (``from auditeval.engine import
...``), never from a submodule (``tests/project/test_layers.py`` checks). What it offers:

* staging: :class:`StagedRun` (one qrels and one run, many conventions, shared work),
  :func:`staged_for`, :func:`evaluate_prepared`, :func:`prepare`, :class:`Prepared`,
  :class:`TopicValues`, :data:`PREPARE_AXES`, :data:`ORDER_AXES` (tie order only), the grade sentinels :data:`NONPOOL` /
  :data:`UNJUDGED`, :func:`has_duplicate_pairs`, :func:`run_topics` (a run's topics, from the
  index its join shares), :func:`as_sim` (the float32 rule);
* values: :func:`measure_on`, the one application of a kernel with every spec wrapper
  (``check_convention``, ``fixed``, ``missing``, ``agg``), which :meth:`StagedRun.evaluate`
  calls too; :func:`aggregate`, trec_eval 8.x's float arithmetic (:func:`c_float_ap`,
  :func:`c_float_bpref`, :func:`c_float_sum`, :func:`c_float_mean`, :func:`c_float_gmean`,
  :func:`c_float_logs`, :func:`c_float_means`, :func:`as_c_float`), :func:`undefined_note`, :func:`gain_of` (nDCG's gain);
* trec_eval 8.x's every measure (``-a``, ``-T``) from its tr_vec, in C float:
  :func:`trec8_topic` (one topic's TREC_EVAL fields), :func:`trec8_accumulate` (the summary's
  sums), :func:`trec8_printed` (the values printed), :class:`Trec8Params` (its flags);
* lists rebuilt from another's rows: :func:`subset`, :func:`reorder`, :func:`stacked`,
  :func:`head`, :func:`relabel` (pooling's frozen labels);
* tied blocks: :class:`Blocks`, :func:`tied_blocks`, :func:`ranked_scores`;
* pool growth's step sums: :func:`growth_means`; glibc's qsort order: :func:`glibc_msort`;
* trec_eval's preference and judgment-group measures, one topic at a time (their judgments are
  no grades): :func:`evaluate_judgments` (every topic of a run), :func:`ranked_docs`, :func:`prefs_topic_values`, :func:`jg_topic_values`,
  :class:`PrefsFailure` / :class:`PrefsAbort` (where trec_eval stops or aborts);
* sweeps: :func:`run_sweep` (= :func:`sweep_plan`, :func:`sweep_part` per run,
  :func:`sweep_assemble`: the parts can run elsewhere), :func:`axis_grid`, :func:`vary_values`, :func:`readable_axes`,
  :data:`DEPTH_GRID`, :class:`SweepResult`, :class:`SweepBlock`.

Measure facts (aggregation, format, axes, properties) are the spec table's
(:data:`auditeval.vocab.specs.SPECS`), not the engine's.
"""

from auditeval.engine.aggregation import aggregate, undefined_note
from auditeval.engine.evaluate import ENGINE, evaluate_prepared, staged_for
from auditeval.engine.glibc_sort import glibc_msort
from auditeval.engine.ids import has_duplicate_pairs, run_topics
from auditeval.engine.measures.core import gain_of
from auditeval.engine.preparation import prepare
from auditeval.engine.ranked_lists import NONPOOL, UNJUDGED, Prepared
from auditeval.engine.rebuild import head, relabel, reorder, stacked, subset
from auditeval.engine.sim import as_sim
from auditeval.engine.staged_run import (
    ORDER_AXES,
    PREPARE_AXES,
    StagedRun,
    TopicValues,
    check_measure,
    measure_on,
)
from auditeval.engine.ties import Blocks, ranked_scores, tied_blocks

# Loaded on first use (PEP 562): what the drop-in's small call never needs (trec_eval 8.x's float
# sums, the preference measures, sweeps, pool growth's sums) stays out of its start-up (~55 ms).
_LAZY = {
    **dict.fromkeys(("as_c_float", "c_float_ap", "c_float_bpref", "c_float_gmean", "c_float_logs",
                     "c_float_mean", "c_float_means", "c_float_sum"), "auditeval.engine.c_float"),
    **dict.fromkeys(("Trec8Params", "trec8_accumulate", "trec8_printed", "trec8_topic"), "auditeval.engine.trec8"),
    "growth_means": "auditeval.engine.growth_sums",
    **dict.fromkeys(("JudgmentValues", "PrefsAbort", "PrefsFailure", "evaluate_judgments", "jg_topic_values",
                     "judgment_variant", "prefs_topic_values", "ranked_docs"), "auditeval.engine.measures.prefs"),
    **dict.fromkeys(("DEPTH_GRID", "SweepBlock", "SweepPart", "SweepPlan", "SweepResult", "axis_grid",
                     "readable_axes", "run_sweep", "sweep_assemble", "sweep_part", "sweep_plan", "vary_values"),
                    "auditeval.engine.sweep"),
}


def __getattr__(name: str):
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'auditeval.engine' has no attribute {name!r}")
    import importlib

    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value

__all__ = [
    "DEPTH_GRID",
    "ENGINE",
    "NONPOOL",
    "ORDER_AXES",
    "PREPARE_AXES",
    "UNJUDGED",
    "Blocks",
    "JudgmentValues",
    "Prepared",
    "PrefsAbort",
    "PrefsFailure",
    "StagedRun",
    "SweepBlock",
    "SweepPart",
    "SweepPlan",
    "SweepResult",
    "TopicValues",
    "Trec8Params",
    "aggregate",
    "as_c_float",
    "as_sim",
    "axis_grid",
    "c_float_ap",
    "c_float_bpref",
    "c_float_gmean",
    "c_float_logs",
    "c_float_mean",
    "c_float_means",
    "c_float_sum",
    "check_measure",
    "evaluate_judgments",
    "evaluate_prepared",
    "gain_of",
    "glibc_msort",
    "growth_means",
    "has_duplicate_pairs",
    "head",
    "jg_topic_values",
    "judgment_variant",
    "measure_on",
    "prefs_topic_values",
    "prepare",
    "ranked_docs",
    "run_topics",
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
    "trec8_accumulate",
    "trec8_printed",
    "trec8_topic",
    "undefined_note",
    "vary_values",
]
