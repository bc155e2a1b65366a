"""The native evaluation engine, and its door: prepare (conventions) -> measures -> aggregate.

Every package outside ``auditeval/engine/`` imports from here (``from auditeval.engine import
...``), never from a submodule; the trec_eval drop-in alone also reaches
:mod:`auditeval.engine.dropin`, the second door, for what no analysis uses (trec_eval 8.x's C
float measures, glibc's qsort order, the preference measures one topic at a time)
(``tests/project/test_layers.py`` checks both). What this door offers:

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

# Loaded on first use (PEP 562): what the drop-in's small call never needs (the preference
# measures, sweeps, pool growth's sums) stays out of its start-up (~55 ms).
_LAZY = {
    "growth_means": "auditeval.engine.growth_sums",
    **dict.fromkeys(("evaluate_judgments", "judgment_variant"), "auditeval.engine.measures.preference"),
    **dict.fromkeys(("DEPTH_GRID", "SweepBlock", "SweepPart", "SweepPlan", "SweepResult", "axis_grid",
                     "readable_axes", "run_sweep", "sweep_assemble", "sweep_part", "sweep_plan", "vary_values"),
                    "auditeval.engine.sweep"),
}


__getattr__, __dir__ = lazy_exports(__name__, _LAZY)


__all__ = [
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
