"""Tied blocks of a ranking.

* :func:`tied_blocks`: documents of one topic with equal scores (as the ``sim`` axis stores
  them, :func:`~auditeval.engine.sim.as_sim`: float32 under trec_eval <= 9.0.8 /
  pytrec_eval) form a *tied block*; a block is *mixed* when grades differ inside it. The tie
  rule (``ties`` axis) orders each block; the audit's tie envelope and evidence read them.
Caches live on the :class:`Prepared` object itself (its instance dict, so
``dataclasses.replace`` copies do not inherit them), never in module dicts keyed by id().
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from auditeval.engine.ranked_lists import Prepared
from auditeval.engine.sim import as_sim
from auditeval.vocab.model import Run

__all__ = ["Blocks", "ranked_scores", "tied_blocks"]


@dataclass
class Blocks:
    """Tied blocks of a prepared ranking: per row its block, per block start row and size."""

    block: np.ndarray  # block index per ranked row
    start: np.ndarray  # first row of each block
    size: np.ndarray  # rows per block
    mixed: np.ndarray  # bool per block: grades differ inside it

    @cached_property
    def mixed_rows(self) -> np.ndarray:
        return self.mixed[self.block]


def _memo(p: Prepared) -> dict:
    """The ranked-row memo of ``p`` (its own, not shared with ``replace`` copies)."""
    return p.__dict__.setdefault("_ties_memo", {})


def ranked_scores(p: Prepared, run: Run) -> np.ndarray:
    """The score of each ranked row of ``p`` (float64, rank order), memoised on ``p``."""
    memo = _memo(p)
    hit = memo.get("scores")
    if hit is not None and hit[0] is run:
        return hit[1]
    s = run.table.column("score").to_numpy()[p.run_row] if len(p.run_row) else np.zeros(0)
    memo["scores"] = (run, s)
    return s


def tied_blocks(p: Prepared, run: Run, sim: str) -> Blocks:
    """Blocks of equal scores (in ``sim`` precision) within each topic's ranking, memoised on ``p``."""
    memo = _memo(p)
    hit = memo.get(("blocks", sim))
    if hit is not None and hit[0] is run:
        return hit[1]
    b = _tied_blocks(p, run, sim)
    memo[("blocks", sim)] = (run, b)
    return b


def _tied_blocks(p: Prepared, run: Run, sim: str) -> Blocks:
    score = as_sim(ranked_scores(p, run), sim)  # the engine's float32 rule (no overflow warning)
    n = len(score)
    new = np.ones(n, bool)
    if n:
        new[1:] = score[1:] != score[:-1]
        new[p.offsets[:-1][p.num_ret > 0]] = True
    start = np.flatnonzero(new)
    block = np.cumsum(new) - 1
    size = np.diff(np.append(start, n))
    mixed = np.zeros(len(start), bool)
    if n:  # a block is mixed when some row's grade differs from the row above it in the block
        differs = np.flatnonzero(~new[1:] & (p.grade[1:] != p.grade[:-1])) + 1
        mixed[block[differs]] = True
    return Blocks(block, start, size, mixed)
