"""``assert_reproduces`` and ``assert_same_values``: the checks of :mod:`auditeval.verify`
(:mod:`~auditeval.verify.claim_check`, :mod:`~auditeval.verify.same_values`) raising an
``AssertionError`` whose message explains the failure by its conventions."""

from __future__ import annotations

from typing import Any

from auditeval.io import qrels_from, run_from
from auditeval.testing import record
from auditeval.verify.claim_check import Outcome, Point, Stated, check_claim
from auditeval.verify.same_values import Comparison, compare


class ClaimNotReproduced(AssertionError):
    """A claim that does not hold; ``outcome`` is what the check found."""

    def __init__(self, outcome: Outcome):
        super().__init__(outcome.message())
        self.outcome = outcome


class ValuesDiffer(AssertionError):
    """Two sides whose values differ; ``comparison`` holds the aligned differences."""

    def __init__(self, comparison: Comparison):
        super().__init__("\n".join(comparison.lines()))
        self.comparison = comparison


def assert_reproduces(qrels: Any, run: Any, claim: str, profile: str | None = None,
                      settings: tuple[str, ...] | list[str] = ()) -> Point:
    """Assert that ``run`` reproduces the printed number ``claim`` (``"MAP=0.3066"``, verify's
    syntax, read as printed: an interval) under ``profile`` with ``settings`` (``AXIS=VALUE``);
    with no profile, under some variant (profiles with up to two changed axes).

    ``qrels``/``run``: anything :func:`auditeval.io.qrels_from` / :func:`~auditeval.io.run_from`
    take (paths, ``irds:`` ids, DataFrames, dicts, ``Qrels``/``Run``). Returns the variant that
    reproduced it (``.label``, ``.variant``, ``.value``); under the auditeval pytest plugin its
    variant string and engine are the test's properties (``auditeval_variant``,
    ``auditeval_engine``: JUnit XML). Raises :class:`ClaimNotReproduced` (an ``AssertionError``)
    with the search's answer."""
    q, r = qrels_from(qrels), run_from(run)
    outcome = check_claim(q, r, claim, Stated(profile, tuple(settings)), where="assert_reproduces")
    if not outcome.passed:
        raise ClaimNotReproduced(outcome)
    record.add("auditeval_variant", outcome.decided.variant)
    record.add("auditeval_reproduced_by", outcome.decided.label)
    record.add("auditeval_engine", outcome.engine)
    return outcome.decided


def assert_same_values(a: Any, b: Any, profile: str | None = None, settings: tuple[str, ...] | list[str] = (),
                       qrels: Any = None, run: Any = None, departures: int = 1) -> Comparison:
    """Assert that ``a`` and ``b`` hold the same values at printed precision (``auditeval diff``).

    Each side: a tool's output file (trec_eval, ir_measures, ranx, pytrec_eval, auditeval JSON,
    CSV: detected), a ``ToolOutput`` or a ``ResultSet``. A failure lists the aligned differences
    per measure, explained by axis: between the two result sets' variant strings; for tool
    outputs, given ``qrels`` and ``run``, by the variant search (up to ``departures`` changed
    axes); with ``profile`` (+ ``settings``), each side's departure from its variant string.
    Two sides with no value in common fail too (nothing was compared). Raises
    :class:`ValuesDiffer` (an ``AssertionError``); returns the comparison when equal."""
    cmp = compare(a, b, profile, tuple(settings), qrels, run, departures)
    if not cmp.equal:
        raise ValuesDiffer(cmp)
    return cmp


def result_sets_repr(a: Any, b: Any) -> list[str]:
    """``assert a == b`` on two ``ResultSet`` objects, explained (the plugin's
    ``pytest_assertrepr_compare``): the differing values by axis as :func:`assert_same_values`
    finds them; equal values, the other fields that differ."""
    if not a.values and not b.values:
        head = ["ResultSet == ResultSet: neither holds a value"]
    else:
        cmp = compare(a, b)
        if not cmp.equal:
            lines = cmp.lines()
            return [f"ResultSet == ResultSet: {lines[0]}", *lines[1:]]
        head = ["ResultSet == ResultSet: every value agrees (to 1e-12 relative)"]
    fields = [f for f in ("profile", "notes", "refusals", "convention") if getattr(a, f) != getattr(b, f)]
    if [v.as_dict() for v in a.values] != [v.as_dict() for v in b.values]:
        fields.insert(0, "values (variant strings, engines, order or digits beyond 1e-12)")
    return head + [f"they differ in: {', '.join(fields)}" if fields else "they are equal"] + [
        f"  profile: {a.profile!r} != {b.profile!r}" for _ in [0] if "profile" in fields]
