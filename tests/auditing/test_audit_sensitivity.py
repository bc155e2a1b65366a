"""Sensitivity sweep: per axis value the aggregate, delta and topics changed; run order swaps."""

from __future__ import annotations

import pytest

import auditeval as ae
from auditeval.auditing.native import Native
from auditeval.auditing.sensitivity import sweep
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure

QRELS = {"1": {"a": 1}, "2": {"z": 1}}
# A: a and b tied in topic 1 (docno-desc: b first, AP 1/2; docno-asc: a first, AP 1), z at rank 3
# in topic 2 (AP 1/3): mean 0.4167 or 0.6667. B: a at rank 1 (1), z at rank 5 (1/5): 0.6 always.
RUN_A = {"1": {"a": 1.0, "b": 1.0}, "2": {"p": 3.0, "q": 2.0, "z": 1.0}}
RUN_B = {"1": {"a": 2.0, "b": 1.0}, "2": {"p": 5.0, "q": 4.0, "r": 3.0, "s": 2.0, "z": 1.0}}


def test_ties_swap_two_runs():
    base = resolve("trec_eval-9.0.8")
    runs = [ae.run_from(RUN_A, name="A"), ae.run_from(RUN_B, name="B")]
    nat = Native(ae.qrels_from(QRELS), runs, base)
    rows, swaps = sweep(nat, ["A", "B"], [parse_measure("AP")], base, max_grade=1)
    by = {(r.run, r.axis, r.value): r for r in rows}
    chosen = by[("A", "ties", "docno-desc")]
    assert chosen.is_base and chosen.aggregate == pytest.approx((0.5 + 1 / 3) / 2)
    asc = by[("A", "ties", "docno-asc")]
    assert asc.aggregate == pytest.approx((1 + 1 / 3) / 2)
    assert asc.delta == pytest.approx(0.25) and asc.topics_changed == 1
    assert (asc.largest_topic, asc.largest_change) == ("1", pytest.approx(0.5))
    assert by[("B", "ties", "docno-asc")].topics_changed == 0
    swap = [w for w in swaps if (w.axis, w.value) == ("ties", "docno-asc")][0]
    assert swap.order_changed and swap.swapped == ["A/B"]
    # depth 10 keeps every line of these short runs: nothing changes, no swap
    d1 = [w for w in swaps if (w.axis, w.value) == ("depth", "10")][0]
    assert not d1.order_changed


def test_compat_under_another_tie_rule_is_the_full_evaluation(tmp_path):
    """Two relevant documents of one grade tied at the top: no *mixed* block, yet Compat (RBO
    against the ideal a, b: grade, then run score, then qrels line) moves when the tie rule puts
    b first. The audit's sensitivity row must be evaluate's under that string (found on robust03
    aplrob03a by benchmarks/robust03_paths.py: 0.37683 printed, 0.37886 evaluated)."""
    import json

    import auditeval as ae
    from auditeval.render.audit import render_audit
    from auditeval.vocab.conventions import resolve

    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("1 0 a 1\n1 0 b 1\n1 0 c 0\n")
    r.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n1 Q0 c 3 0.5 t\n")
    rep = ae.audit(str(q), [str(r)], measures=["Compat"], against=[],
                   profile=resolve("trec_eval-9.0.8", ["ties=docno-asc"]), samples=5)
    rows = {str(x["value"]): x for x in json.loads(render_audit(rep, "json"))["sensitivity"]
            if x["axis"] == "ties"}
    asc = ae.evaluate(str(q), str(r), ["Compat"], profile="trec_eval-9.0.8", settings=["ties=docno-asc"])
    desc = ae.evaluate(str(q), str(r), ["Compat"], profile="trec_eval-9.0.8", settings=["ties=docno-desc"])
    assert asc.get("Compat").value == 1.0 and desc.get("Compat").value < 1.0  # the tie rule moves it
    assert rows["docno-desc"]["aggregate"] == desc.get("Compat").value
    assert rows["docno-asc"]["aggregate"] == 1.0
