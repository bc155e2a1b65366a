"""Judgment pools: cost, reuse, coverage, a judgment store, a judge hook, pool bias, growth.

Python use::

    from auditeval.pooling import build_pools, pool_bias, pool_growth
    pools = build_pools(runs, depth=100, conv=ae.load_profile("trec_eval-9.0.8").convention)
    pools.pooled, pools.unpooled, pools.reuse, pools.marginal(orders)

The command line is ``auditeval pool stats | coverage | todo | add | qrels | judge | bias |
growth`` (:mod:`auditeval.cli.pool`). Module map: ``HACKING.md``.
"""

from __future__ import annotations

from auditeval.vocab.lazy import lazy_exports

# lazy exports: ``auditeval pool`` builds its parser without importing the engine
_WHERE = {
    "BiasReport": ".bias", "pool_bias": ".bias",
    "Coverage": ".coverage", "pool_coverage": ".coverage",
    "GrowthReport": ".growth", "pool_growth": ".growth",
    "JudgeOptions": ".judge", "SimulatedJudge": ".judge", "run_judge": ".judge", "simulated": ".judge",
    "Pools": ".pools", "build_pools": ".pools", "random_orders": ".pools",
    "JudgmentStore": ".store",
}
__all__ = sorted(_WHERE)


__getattr__, __dir__ = lazy_exports(__name__, _WHERE)
