"""Judgment pools: cost, reuse, coverage, a judgment store, a judge hook, pool bias, growth.

Python use::

    from auditeval.pooling import build_pools, pool_bias, pool_growth
    pools = build_pools(runs, depth=100, conv=ae.load_profile("trec_eval-9.0.8").convention)
    pools.pooled, pools.unpooled, pools.reuse, pools.marginal(orders)

The command line is ``auditeval pool stats | coverage | todo | add | qrels | judge | bias |
growth`` (:mod:`.cli`). Module map: ``HACKING.md``.
"""

from __future__ import annotations

from .bias import BiasReport, pool_bias
from .coverage import Coverage, coverage
from .growth import GrowthReport, pool_growth
from .judge import SimulatedJudge, run_judge, simulated
from .pools import Pools, build_pools, random_orders
from .store import JudgmentStore

__all__ = [
    "BiasReport",
    "Coverage",
    "GrowthReport",
    "JudgmentStore",
    "Pools",
    "SimulatedJudge",
    "build_pools",
    "coverage",
    "pool_bias",
    "pool_growth",
    "random_orders",
    "run_judge",
    "simulated",
]
