"""Attribution: two engines that differ on exactly one axis are told apart by that axis alone.

Each case is a tiny input where one axis changes one measure (hand-checked values in the
comments); engine A runs under trec_eval-9.0.8 and engine B under the same profile with
that one axis changed. The report must attribute the difference to that axis, both ways,
and to nothing else.
"""

from __future__ import annotations

import pytest

import auditeval as ae
from auditeval.auditing.core import _attributions
from auditeval.auditing.native import Native
from auditeval.results.audit import AuditReport
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure

BASE = resolve("trec_eval-9.0.8")

# axis: (other value, measure, qrels {topic: {doc: grade}}, run {topic: {doc: score}}, A value, B value)
CASES = {
    # a, b tied: docno-desc puts b (non-relevant) first -> AP 1/2; docno-asc puts a first -> 1
    "ties": ("docno-asc", "AP", {"1": {"a": 1}}, {"1": {"a": 1.0, "b": 1.0}}, 0.5, 1.0),
    # 0.30000001 and 0.3 collapse as floats: docno-desc puts d2 (relevant) first -> RR 1; doubles: RR 1/2
    "sim": ("float64", "RR", {"1": {"d2": 1}}, {"1": {"d1": 0.30000001, "d2": 0.3}}, 1.0, 0.5),
    # topic 2 is judged but not retrieved: mean over 1 topic (1.0) or over 2 (0.5)
    "topics": ("qrels", "AP", {"1": {"a": 1}, "2": {"x": 1}}, {"1": {"a": 2.0}}, 1.0, 0.5),
    # n has grade -1, ranked above a: pooled-unjudged (bpref 1) or judged non-relevant (bpref 0)
    "negatives": ("nonrel", "Bpref", {"1": {"a": 1, "n": -1, "z": 0}}, {"1": {"n": 2.0, "a": 1.0}}, 1.0, 0.0),
    # grade 1 at rank 1, grade 2 at rank 2: AP 1 at rel=1, 1/2 at rel=2
    "rel": (2, "AP", {"1": {"a": 1, "b": 2}}, {"1": {"a": 2.0, "b": 1.0}}, 1.0, 0.5),
    # the relevant document is at rank 2: AP 1/2, 0 once the ranking is cut at 1
    "depth": (1, "AP", {"1": {"b": 1}}, {"1": {"a": 2.0, "b": 1.0}}, 0.5, 0.0),
    # unjudged u above the relevant a: P@1 0, or 1 once unjudged documents are dropped
    "unjudged": ("drop", "P@1", {"1": {"a": 1}}, {"1": {"u": 2.0, "a": 1.0}}, 0.0, 1.0),
    # a, b, c relevant (R=3) at ranks 2, 5, 8 of 10: 11pt 0.4295 with trunc09, 0.4409 with lround (conventions.md)
    "iprec": ("lround", "11pt", {"1": {"r2": 1, "r5": 1, "r8": 1}},
              {"1": {("r" if k in (2, 5, 8) else "n") + str(k): 20.0 - k for k in range(1, 11)}}, 0.4295, 0.4409),
    # grades 1 then 2: nDCG = (1 + 2/log2 3) / (2 + 1/log2 3) = 0.8597 linear, (1 + 3/log2 3) / (3 + 1/log2 3) = 0.7967 exp2
    "gain": ("exp2", "nDCG", {"1": {"a": 1, "b": 2}}, {"1": {"a": 2.0, "b": 1.0}}, 0.8597, 0.7967),
    # R = 2, one relevant in the top 1: R@1 = 1/2, capped min(R, 1) = 1
    "recall_denom": ("min-R-k", "R@1", {"1": {"a": 1, "b": 1}}, {"1": {"a": 2.0}}, 0.5, 1.0),
    # R = 2, the relevant a at rank 1: AP@1 = 1/2, min(R, 1) = 1
    "ap_denom": ("min-R-k", "AP@1", {"1": {"a": 1, "b": 1}}, {"1": {"a": 2.0}}, 0.5, 1.0),
    # a topic with AP 0 and one with AP 1: GMAP = sqrt(1e-5) = 0.0032 or sqrt(1e-3) = 0.0316
    "gm_floor": (0.001, "GMAP", {"1": {"a": 1}, "2": {"x": 1}}, {"1": {"a": 2.0}, "2": {"y": 1.0}}, 0.0032, 0.0316),
    # one relevant at rank 1: RBP = 1 - p: 0.1 at p = 0.9, 0.2 at p = 0.8
    "rbp_p": (0.8, "RBP", {"1": {"a": 1}}, {"1": {"a": 2.0}}, 0.1, 0.2),
    # grade 2 (max 2) at rank 1: min-max gain 1 -> 0.1; raw gain 2 -> 0.2
    "rbp_gain": ("raw", "RBP", {"1": {"a": 2, "b": 0}}, {"1": {"a": 2.0}}, 0.1, 0.2),
    # fully judged ranking of 1: residual 0 (if-unjudged) or p^1 = 0.9 (always)
    "rbp_resid": ("always", "RBPResid", {"1": {"a": 1}}, {"1": {"a": 2.0}}, 0.0, 0.9),
    # 2 documents retrieved, both judged: Judged@10 = 2/10 (k) or 2/2 (min-k-ret)
    "judged_denom": ("min-k-ret", "Judged@10", {"1": {"a": 1, "b": 0}}, {"1": {"a": 2.0, "b": 1.0}}, 0.2, 1.0),
    # the relevant document "1" is the topic's own id: kept (P@1 1) or dropped (0)
    "self_hits": ("drop", "P@1", {"1": {"1": 1}}, {"1": {"1": 2.0}}, 1.0, 0.0),
    # the same document twice: the first line (score 2, rank 1) or the last (score 0.5, below b)
    "dups": ("last", "RR", {"1": {"a": 1}}, None, 1.0, 0.5),
    # custom gains 0.5, 0.8, 0.9 sort as equal integers: ideal DCG 0 (trec-int), nDCG 0.4856 (exact; conventions.md)
    "ideal_sort": ("exact", "nDCG(gains={1:0.5,2:0.8,3:0.9})", {"1": {"a": 1, "b": 2, "c": 3}},
                   {"1": {"a": 3.0, "b": 2.0, "c": 1.0}}, 0.0, None),
}


def _dup_run():
    from auditeval.vocab.model import Run, run_table

    return Run(run_table(["1", "1", "1"], ["a", "b", "a"], [2.0, 1.0, 0.5]), name="dup")


@pytest.mark.parametrize("axis", sorted(CASES))
def test_one_axis_is_named_and_nothing_else(axis):
    other, measure, qrels, run, va, vb = CASES[axis]
    base = BASE.replace(dups="first") if axis == "dups" else BASE
    conv_b = base.replace(**{axis: other})
    q = ae.qrels_from(qrels)
    r = _dup_run() if run is None else ae.run_from(run, name="r")
    nat = Native(q, [r])
    m = parse_measure(measure)
    a_val, b_val = nat.get(0, m, base).aggregate, nat.get(0, m, conv_b).aggregate
    assert a_val == pytest.approx(va, abs=5e-5)
    if vb is not None:
        assert b_val == pytest.approx(vb, abs=5e-5)
    else:
        assert b_val > 0.4  # the exact ideal ranking gives a real value (0.4856 in conventions.md)
    rep = AuditReport("q", [r.name], [measure], "trec_eval-9.0.8")
    effective = {("A", 0, measure): base, ("B", 0, measure): conv_b}
    _attributions(rep, nat, effective, [m], [measure], [r.name], base, "trec_eval-9.0.8")
    assert len(rep.attributions) == 1
    att = rep.attributions[0]
    assert att.explained
    names = {att.a, att.b}
    assert names == {"native (trec_eval-9.0.8), A", "B"}
    forward = att.a_to_b if att.b == "B" else att.b_to_a
    backward = att.b_to_a if att.b == "B" else att.a_to_b
    fmt_other = repr(float(other)) if isinstance(other, float) else str(other)
    assert forward == [[f"{axis}={fmt_other}"]]
    assert len(backward) == 1 and [x.split("=")[0] for x in backward[0]] == [axis]
    assert att.evidence and all(line.startswith(f"{axis}: ") for line in att.evidence)


def test_evidence_names_the_tied_documents_and_the_float32_collapse():
    for axis, expected in [
        ("ties", "ties: topic 1: 2 documents tied at 1.0 from rank 1; docno-desc puts b first, docno-asc puts a first "
                 "(AP 0.5000 -> 1.0000)"),
        ("sim", "sim: topic 1: scores 0.30000001 and 0.3 collapse in float32 (ranks 1-2; 1 such pair(s) in the topic) "
                "(RR 1.0000 -> 0.5000)"),
    ]:
        other, measure, qrels, run, _, _ = CASES[axis]
        nat = Native(ae.qrels_from(qrels), [ae.run_from(run, name="r")])
        rep = AuditReport("q", ["r"], [measure], "trec_eval-9.0.8")
        m = parse_measure(measure)
        _attributions(rep, nat, {("B", 0, measure): BASE.replace(**{axis: other})}, [m], [measure], ["r"], BASE,
                      "trec_eval-9.0.8")
        assert rep.attributions[0].evidence == [expected]
