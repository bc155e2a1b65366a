"""Compat and Accuracy (auditeval/engine/measures/pairwise.py), checked by hand.

Worked numbers are in each test's docstring; ir_measures' compat and accuracy providers are
run on the same inputs as a second witness where they can compute them.
"""

from __future__ import annotations

import json

import ir_measures
import pytest
from cli_helpers import run_cli

import auditeval as ae

PROFILE = "ir_measures-0.4-msmarco"  # the compat provider's conventions


def _write(tmp_path, qrels: str, run: str):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(qrels)
    r.write_text(run)
    return q, r


def _values(q, r, measures, profile=PROFILE, **kw) -> dict[tuple[str, str], float]:
    res = ae.evaluate(q, r, measures, profile=profile, **kw)
    return {(v.measure, v.topic): v.value for v in res.values}


def test_compat_by_hand(tmp_path):
    """Ranking x(unjudged) b(1) a(2) d(0); relevant a(2) b(1) c(1, not retrieved).
    Ideal: a, then b (score 0.8) before c (0.0): a b c; L = 3, depth max(4, 3) = 4.
    p = 0.5: weights 1, 1/2, 1/4, 1/8; overlaps at depths 1-4: 0, 1 (b), 2 (a, b), 2.
    RBO numerator 0 + 1/2 * 1/2 + 1/4 * 2/3 + 1/8 * 2/4 = 23/48; ideal's own
    1 + 1/2 + 1/4 + 1/8 * 3/4 = 59/32; normalised (23/48) / (59/32) = 46/177;
    unnormalised (23/48) / (1 + 1/2 + 1/4 + 1/8) = 23/90."""
    q, r = _write(tmp_path, "1 0 a 2\n1 0 b 1\n1 0 c 1\n1 0 d 0\n",
                  "1 Q0 x 1 0.9 t\n1 Q0 b 2 0.8 t\n1 Q0 a 3 0.7 t\n1 Q0 d 4 0.5 t\n")
    got = _values(q, r, ["Compat(p=0.5)", "Compat(p=0.5,normalize=False)"], per_topic=True)
    assert got[("Compat(p=0.5)", "1")] == pytest.approx(46 / 177, abs=1e-15)
    assert got[("Compat(p=0.5,normalize=False)", "1")] == pytest.approx(23 / 90, abs=1e-15)
    ref = ir_measures.compat.iter_calc([ir_measures.Compat(p=0.5)], ae.read_qrels(q).to_dict(), ae.read_run(r).to_dict())
    assert [x.value for x in ref] == [pytest.approx(46 / 177, abs=1e-15)]


def test_compat_ideal_breaks_score_ties_by_qrels_line(tmp_path):
    """z and y, both grade 1, both scored 1.0; the qrels list z first. Ranking (docno
    ascending): y z n; ideal (grade, score, qrels line): z y. p = 0.5, depth 3: overlaps
    0, 2, 2: numerator 1/2 * 2/2 + 1/4 * 2/3 = 2/3; ideal's own 1 + 1/2 + 1/4 * 2/3 = 5/3:
    0.4 (an ideal in docno order, y z, would give 1.0)."""
    q, r = _write(tmp_path, "1 0 z 1\n1 0 y 1\n", "1 Q0 y 1 1.0 t\n1 Q0 z 2 1.0 t\n1 Q0 n 3 0.5 t\n")
    assert _values(q, r, ["Compat(p=0.5)"], per_topic=True)[("Compat(p=0.5)", "1")] == pytest.approx(0.4, abs=1e-15)
    ref = ir_measures.compat.iter_calc([ir_measures.Compat(p=0.5)], list(ir_measures.read_trec_qrels(str(q))),
                                       list(ir_measures.read_trec_run(str(r))))
    assert [x.value for x in ref] == [pytest.approx(0.4, abs=1e-15)]


def test_compat_reads_rel_and_scores_an_absent_topic_zero(tmp_path):
    """rel=2: only a (grade 2) is relevant; it is ranked 2nd, ideal rank 1, L = 1, depth 2.
    p = 0.5: numerator 1/2 * 1/2 = 1/4, ideal's own 1 + 1/2 * 1/2 = 5/4: 0.2. Topic 2 is in
    the qrels only: 0 under topics=qrels."""
    q, r = _write(tmp_path, "1 0 a 2\n1 0 b 1\n2 0 c 1\n", "1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")
    got = _values(q, r, ["Compat(p=0.5,rel=2)"], per_topic=True)
    assert got[("Compat(p=0.5,rel=2)", "1")] == pytest.approx(0.2, abs=1e-15)
    assert got[("Compat(p=0.5,rel=2)", "2")] == 0.0
    assert got[("Compat(p=0.5,rel=2)", "all")] == pytest.approx(0.1, abs=1e-15)


def test_accuracy_by_hand_and_the_division_by_zero_the_provider_raises(tmp_path):
    """Topic 1: r n r n (relevant at 1 and 3): non-relevant above them 0 and 1, N = 2, R = 2:
    1 - 1/4 = 0.75; @2: r n: 1 - 0/(1 * 1) = 1. Topic 2: r r (no non-relevant): 1.0 here,
    where ir_measures' accuracy provider raises ZeroDivisionError. Topic 3: no relevant
    document retrieved: no value, left out of the mean (0.75 + 1.0) / 2 = 0.875, with a note."""
    q, r = _write(
        tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 1\n3 0 f 1\n",
        "1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n1 Q0 u 4 1 t\n2 Q0 d 1 2 t\n2 Q0 e 2 1 t\n3 Q0 g 1 1 t\n",
    )
    res = ae.evaluate(q, r, ["Accuracy", "Accuracy@2"], profile="ir_measures-0.4-accuracy", per_topic=True)
    got = {(v.measure, v.topic): v.value for v in res.values}
    assert got == {("Accuracy", "1"): 0.75, ("Accuracy", "2"): 1.0, ("Accuracy", "all"): 0.875,
                   ("Accuracy@2", "1"): 1.0, ("Accuracy@2", "2"): 1.0, ("Accuracy@2", "all"): 1.0}
    assert any("Accuracy has no value for 1 of 3 topic(s) (no relevant document retrieved, within the cut-off "
               "if any): left out of its mean and of per-topic output: '3'" in n for n in res.notes)
    with pytest.raises(ZeroDivisionError):
        list(ir_measures.accuracy.iter_calc([ir_measures.Accuracy], ae.read_qrels(q).to_dict(), ae.read_run(r).to_dict()))


def test_accuracy_note_reaches_json_and_the_undefined_topic_no_row(tmp_path):
    q, r = _write(tmp_path, "1 0 a 1\n2 0 f 1\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 g 1 1 t\n")
    code, out, err = run_cli("eval", str(q), str(r), "-m", "Accuracy", "-q", "--format", "json",
                             "--profile", "ir_measures-0.4-accuracy")
    assert code == 0, err
    doc = json.loads(out)
    rows = doc["results"] if "results" in doc else doc["values"]
    assert sorted((row["topic"], row["value"]) for row in rows) == [("1", 1.0), ("all", 1.0)]
    assert any("Accuracy has no value for 1 of 2 topic(s)" in n for n in json.dumps(doc["notes"]).split('", "'))


def test_audit_notes_the_topics_accuracy_has_no_value_for(tmp_path):
    """Topic 2 retrieves no relevant document: Accuracy has no value there, and the audit says so."""
    q, r = _write(tmp_path, "1 0 a 1\n1 0 b 0\n2 0 c 1\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 x 1 1 t\n")
    out_file = tmp_path / "audit.json"
    code, _, err = run_cli("audit", str(q), str(r), "-m", "Accuracy", "--against", "ir_measures:accuracy",
                           "--format", "json", "-o", str(out_file))
    assert code == 0, err
    doc = json.loads(out_file.read_text())
    assert [a["status"] for a in doc["agreement"]] == ["match"]
    assert any(n.endswith("Accuracy has no value for 1 of 2 topic(s) (no relevant document retrieved, within the "
                          "cut-off if any): left out of its mean and of per-topic output: '2'") for n in doc["notes"])


def test_audit_reports_a_crashing_measure_without_losing_the_others(tmp_path):
    """ir_measures' accuracy provider raises on Accuracy@2 (topic 2's top 2 are relevant);
    Accuracy in the same child still agrees with the native engine."""
    q, r = _write(
        tmp_path, "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n2 0 e 1\n",
        "1 Q0 a 1 4 t\n1 Q0 b 2 3 t\n1 Q0 c 3 2 t\n2 Q0 d 1 2 t\n2 Q0 e 2 1 t\n2 Q0 x 3 0.5 t\n",
    )
    out_file = tmp_path / "audit.json"
    code, _, err = run_cli("audit", str(q), str(r), "-m", "Accuracy", "-m", "Accuracy@2", "-m", "Compat",
                           "--against", "ir_measures:accuracy,ir_measures:compat", "--format", "json",
                           "-o", str(out_file))
    assert code == 4, err  # incomplete: what was checked agrees, but a reference value failed
    rows = {(a["measure"], a["engine"]): a for a in json.loads(out_file.read_text())["agreement"]}
    assert rows[("Accuracy", "ir_measures:accuracy")]["status"] == "match"
    assert rows[("Compat", "ir_measures:compat")]["status"] == "match"
    failed = rows[("Accuracy@2", "ir_measures:accuracy")]
    assert failed["status"] == "failed" and "ZeroDivisionError: float division by zero" in failed["detail"]
    doc = json.loads(out_file.read_text())
    eng = {e["name"]: e for e in doc["engines"]}["ir_measures:accuracy"]
    assert eng["status"] == "ok" and eng["message"].startswith("1 of 2 values failed; first: ZeroDivisionError")
    # every value failing: the engine itself is reported failed
    code, _, err = run_cli("audit", str(q), str(r), "-m", "Accuracy@2", "--against", "ir_measures:accuracy",
                           "--format", "json", "-o", str(out_file))
    eng = {e["name"]: e for e in json.loads(out_file.read_text())["engines"]}["ir_measures:accuracy"]
    assert (code, eng["status"]) == (3, "failed")  # nothing was checked and eng["message"].startswith("ZeroDivisionError")


def test_measures_command_lists_both():
    code, out, _ = run_cli("measures", "Compat")
    assert code == 0 and "Clarke, Vtyurina & Smucker, TOIS 2021" in out and "normalize" in out
    code, out, _ = run_cli("measures", "Accuracy")
    assert code == 0 and "accuracy_provider.py" in out


def test_compat_repeated_judgment_keeps_its_first_place_in_the_ideal(tmp_path):
    """The qrels judge z on lines 1 and 3, y on line 2 (all grade 1); a dict (ir_measures)
    keeps z at its first place, so the ideal is z y and the value 0.4 of the tie test above
    (z's kept line 3 would make it y z: 1.0), with the duplicate line noted."""
    q, r = _write(tmp_path, "1 0 z 1\n1 0 y 1\n1 0 z 1\n", "1 Q0 y 1 1.0 t\n1 Q0 z 2 1.0 t\n1 Q0 n 3 0.5 t\n")
    res = ae.evaluate(q, r, ["Compat(p=0.5)"], profile=PROFILE, per_topic=True)
    assert [(v.topic, round(v.value, 15)) for v in res.values] == [("1", 0.4), ("all", 0.4)]
    assert any("1 duplicate judgment line(s) dropped (dups=last)" in n for n in res.notes)


def test_compat_in_a_pool_analysis_refuses_with_a_reason(tmp_path):
    q, r = _write(tmp_path, "1 0 a 1\n1 0 b 0\n", "1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n")
    code, out, err = run_cli("pool", "bias", str(q), str(r), "--depth", "10", "-m", "Compat")
    assert code == 2 and out == ""
    assert err.startswith("auditeval: error: Compat orders its ideal ranking by run score and qrels line, which "
                          "lists rebuilt from frozen labels (auditeval pool bias / growth) do not keep")


def _random_case(rng):
    """Up to 4 topics of up to 8 judged documents (grades 0-3), runs with unjudged documents,
    repeated, zero and negative scores, and topics missing from the run."""
    qrels, run = [], []
    for t in range(1, rng.randint(1, 4) + 1):
        docs = [f"d{i}" for i in range(rng.randint(1, 8))]
        qrels += [ir_measures.Qrel(str(t), d, rng.choice([0, 0, 1, 1, 2, 3])) for d in rng.sample(docs, rng.randint(1, len(docs)))]
        if rng.random() < 0.9:
            pool = docs + ["x1", "x2"]
            run += [ir_measures.ScoredDoc(str(t), d, rng.choice([0.0, 1.0, 1.0, 2.0, -1.0, 0.5, 3.0]))
                    for d in rng.sample(pool, rng.randint(1, len(pool)))]
    return qrels, run


@pytest.mark.slow
def test_random_cases_equal_the_providers():
    """300 seeded random inputs: Compat (two settings) equals ir_measures' compat provider, and
    Accuracy (three) its accuracy provider where it does not divide by zero, per topic to 1e-12
    (a wider run, 400 seeds with Accuracy, Accuracy@3 and Accuracy(rel=2): 1,048 Accuracy and 800
    Compat comparisons, no difference). The providers see each seed alone; ours sees the 300 at
    once, each seed's topics renamed ``SEED:TOPIC`` (both measures are per topic: a topic's value
    reads only its own judgments and ranking), one evaluation per measure."""
    import random

    compat = ir_measures.providers.registry["auditeval"].using(PROFILE)
    acc = ir_measures.providers.registry["auditeval"].using("ir_measures-0.4-accuracy")
    cases = {}
    for seed in range(300):
        qrels, run = _random_case(random.Random(seed))
        if run:
            cases[seed] = (qrels, run)
    all_qrels = [q._replace(query_id=f"{seed}:{q.query_id}") for seed, (qs, _) in cases.items() for q in qs]
    all_run = [r._replace(query_id=f"{seed}:{r.query_id}") for seed, (_, rs) in cases.items() for r in rs]
    compared = 0
    for prov, ref, ms in ((compat, ir_measures.compat, [ir_measures.Compat(p=0.5), ir_measures.Compat(normalize=False)]),
                          (acc, ir_measures.accuracy, [ir_measures.Accuracy, ir_measures.Accuracy @ 3])):
        for m in ms:
            ours: dict[int, dict[str, float]] = {}
            for x in prov.iter_calc([m], all_qrels, all_run):
                seed, topic = x.query_id.split(":", 1)
                ours.setdefault(int(seed), {})[topic] = x.value
            for seed, (qrels, run) in cases.items():
                try:
                    theirs = {x.query_id: x.value for x in ref.iter_calc([m], qrels, run)}
                except ZeroDivisionError:  # the accuracy provider on a top k without a non-relevant document
                    continue
                mine = ours.get(seed, {})
                assert set(mine) == set(theirs), (seed, str(m))
                for t, v in theirs.items():
                    assert mine[t] == pytest.approx(v, abs=1e-12), (seed, str(m), t)
                compared += 1
    assert compared > 900
