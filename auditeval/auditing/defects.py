"""Known defects of reference tools, named with their upstream cause.

When a reference disagrees with the native engine and no axis flip reproduces it,
:func:`known_defect` checks whether every differing topic is one a known defect of that tool
produces; if so the disagreement is explained as that tool's defect, with the source line that
causes it (the audit's ``explained`` status), instead of an unexplained mismatch.

Each :class:`Defect` is a rule over the evidence of one comparison (:class:`Evidence`: the
tool's and the native per-topic values, R and the judged non-relevant count per topic):
``covers`` returns the differing topics the rule accounts for. A disagreement is a known defect
only when the rules of its tool and measure together cover *every* differing topic.

=====================  =======  ====================================================================
tool                   measure  defect (found with: tool version)
=====================  =======  ====================================================================
ranx                   Bpref    NaN on a topic with no judged non-relevant document (ranx 0.3.21)
ranx                   Bpref    0 on the topics after a topic with no relevant document (0.3.21)
ir_measures:trectools  Rprec    documents joined across topics under pandas >= 3 (trectools 0.0.50)
=====================  =======  ====================================================================
"""

from __future__ import annotations

import importlib.metadata as md
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

TOL = 1e-12


@dataclass(frozen=True)
class Evidence:
    """One comparison's per-topic facts, in the native engine's topic order."""

    topics: list[str]
    tool: np.ndarray  # the tool's values (NaN where it says NaN)
    native: np.ndarray
    num_rel: np.ndarray  # R per topic at the measure's relevance threshold
    num_nonrel: np.ndarray  # judged non-relevant documents per topic

    def differing(self) -> np.ndarray:
        same = (np.abs(self.tool - self.native) <= TOL) | (np.isnan(self.tool) & np.isnan(self.native))
        return ~same


@dataclass(frozen=True)
class Defect:
    tool: str  # adapter name
    measure: str  # auditeval measure name
    found: str  # the tool version it was found in
    cause: str  # what goes wrong, with the upstream file and line
    covers: Callable[[Evidence], np.ndarray]  # mask of the topics this defect accounts for

    def applies(self) -> bool:
        """Whether the installed tool can have this defect (a precondition on its environment)."""
        return True


def _ranx_nan(e: Evidence) -> np.ndarray:
    return np.isnan(e.tool) & ~np.isnan(e.native) & (e.num_nonrel == 0) & (e.num_rel > 0)


def _ranx_zero(e: Evidence) -> np.ndarray:
    """Tool 0 on a topic that sorts after some topic with no relevant document (ranx sorts its
    query ids; the zero-R topic's ZeroDivisionError ends the remaining iterations of that thread's
    share of the prange loop, which keep the zeros they were initialised with)."""
    no_rel = [t for t, r in zip(e.topics, e.num_rel, strict=True) if r == 0]
    if not no_rel:
        return np.zeros(len(e.topics), dtype=bool)
    first = min(no_rel)
    after = np.array([t > first for t in e.topics], dtype=bool)
    return (e.tool == 0.0) & (e.native != 0.0) & after


def _trectools_joined(e: Evidence) -> np.ndarray:
    """Higher than native (relevant documents counted from other topics' top R), or NaN where
    native is 0 (no relevant document of the topic in any top R: no row to count, and the
    division by R at trec_eval.py:450 aligns to NaN)."""
    return (~np.isnan(e.tool) & (e.tool > e.native + TOL)) | (np.isnan(e.tool) & (e.native == 0.0))


class _Pandas3(Defect):
    def applies(self) -> bool:
        try:
            return int(md.version("pandas").split(".")[0]) >= 3
        except (md.PackageNotFoundError, ValueError):
            return False


DEFECTS: tuple[Defect, ...] = (
    Defect("ranx", "Bpref", "ranx 0.3.21",
           "ranx/metrics/bpref.py:26-27 divides by min(R, N): NaN where a topic has no judged non-relevant "
           "document (trec_eval m_bpref.c:78-85 adds 1 for each retrieved relevant document there)", _ranx_nan),
    Defect("ranx", "Bpref", "ranx 0.3.21",
           "ranx/metrics/bpref.py:29 divides by R: a topic with no relevant document raises ZeroDivisionError "
           "inside numba's parallel prange loop (bpref.py:36), which silently ends the rest of that thread's "
           "share, leaving the zeros the scores array was made with", _ranx_zero),
    _Pandas3("ir_measures:trectools", "Rprec", "trectools 0.0.50 under pandas 3",
             "trectools/trec_eval.py:444 groupby('query').apply(...) leaves the grouping column out of each "
             "group under pandas >= 3, reset_index(drop=True) then drops it, and the merge at l.447 joins the "
             "top-R documents to every topic's relevant documents on docid alone: counts across topics "
             "(values above 1 are possible; NaN where no topic's top R holds one of the topic's relevant "
             "documents)", _trectools_joined),
)


def known_defect(tool: str, measure: str, e: Evidence, defects: tuple[Defect, ...] = DEFECTS) -> str:
    """The explanation when known defects of ``tool`` on ``measure`` account for every differing
    topic (``tool defect: ...``, each defect's topic count and cause), else ''."""
    differ = e.differing()
    if not differ.any():
        return ""
    rules = [d for d in defects if d.tool == tool and d.measure == measure and d.applies()]
    covered = np.zeros(len(differ), dtype=bool)
    parts = []
    for d in rules:
        mask = d.covers(e) & differ & ~covered
        if mask.any():
            covered |= mask
            first = next(t for t, x in zip(e.topics, mask, strict=True) if x)
            parts.append(f"{int(mask.sum())} topic(s), e.g. {first}: {d.cause} (found in {d.found})")
    if not parts or (differ & ~covered).any():
        return ""
    return f"tool defect (known) of {tool}: " + "; ".join(parts) + "; every other topic agrees"
