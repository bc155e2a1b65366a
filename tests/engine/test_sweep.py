"""The sweep: hand-checked numbers on a tiny case, sampled equality with ``evaluate`` on a
real robust03 run, variant collapsing, the staged sharing, and the command line."""

from __future__ import annotations

import random
import warnings
from pathlib import Path

import numpy as np
import pytest
from cli_helpers import run_cli
from paths import EXAMPLES

import auditeval as ae
from auditeval.engine.staged_run import StagedRun
from auditeval.engine.sweep import axis_grid, measure_variants
from auditeval.io import qrels_from, run_from
from auditeval.vocab.conventions import resolve
from auditeval.vocab.model import Run, run_table

# q1: d1 grade 2, d2 grade 1, d3 grade 0; d4 unjudged. Scores d4 3, d1 2, d2 2 (tie), d3 1.
#   docno-desc ranks d4 d2 d1 d3; docno-asc ranks d4 d1 d2 d3.
#   AP rel=1 (R=2): relevant at ranks 2 and 3 either way: (1/2 + 2/3) / 2 = 7/12.
#   AP rel=2 (R=1, d1): desc rank 3 -> 1/3; asc rank 2 -> 1/2.
#   unjudged=drop (d4 removed): rel=1 -> (1 + 1) / 2 = 1; rel=2: desc d1 at 2 -> 1/2, asc at 1 -> 1.
# q2: only in the qrels (d9 grade 1): not evaluated under topics=both, AP 0 under topics=qrels.
QRELS = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d9": 1}}
RUN = {"q1": {"d4": 3.0, "d1": 2.0, "d2": 2.0, "d3": 1.0}}
HAND = {  # (ties, rel, unjudged) -> AP of q1
    ("docno-desc", 1, "nonrel"): 7 / 12,
    ("docno-asc", 1, "nonrel"): 7 / 12,
    ("docno-desc", 2, "nonrel"): 1 / 3,
    ("docno-asc", 2, "nonrel"): 1 / 2,
    ("docno-desc", 1, "drop"): 1.0,
    ("docno-asc", 1, "drop"): 1.0,
    ("docno-desc", 2, "drop"): 1 / 2,
    ("docno-asc", 2, "drop"): 1.0,
}


def test_tiny_sweep_matches_hand_computed_ap():
    res = ae.sweep(QRELS, RUN, ["AP"], vary={"ties": ["docno-desc", "docno-asc"], "rel": [1, 2], "unjudged": "all",
                                             "topics": ["both", "qrels"]})
    b = res.block("AP")
    assert len(b.variants) == 16 and len(set(b.variants)) == 16
    assert b.runs == ["run"] and b.topics == ["q1", "q2"]
    for vi, conv in enumerate(b.conventions):
        want = HAND[(conv.ties, conv.rel, conv.unjudged)]
        assert b.values[vi, 0, 0] == pytest.approx(want, abs=1e-15)
        if conv.topics == "both":
            assert np.isnan(b.values[vi, 0, 1])
            assert b.aggregates[vi, 0] == pytest.approx(want, abs=1e-15)
        else:
            assert b.values[vi, 0, 1] == 0.0
            assert b.aggregates[vi, 0] == pytest.approx(want / 2, abs=1e-15)
        assert f"ties={conv.ties}" in b.variants[vi] and f"rel={conv.rel}" in b.variants[vi]
    frame = res.to_frame()
    assert set(frame.columns) == {"run", "topic", "measure", "variant", "engine", "value"}
    assert len(frame) == 16 * 2 + 8  # aggregates + q1 everywhere + q2 under topics=qrels
    assert frame["engine"].str.startswith("auditeval").all()


def test_only_axes_a_measure_reads_multiply_and_equal_variants_collapse():
    base = resolve("trec_eval-9.0.8")
    vary = {"ties": list(axis_grid("ties")), "rel": [1, 2], "gain": ["linear", "exp2"]}
    assert len(measure_variants(ae.parse_measure("NumQ"), base, vary)) == 1  # reads topics only
    assert len(measure_variants(ae.parse_measure("AP"), base, vary)) == 5 * 2  # gain is nDCG's
    assert len(measure_variants(ae.parse_measure("AP(rel=2)"), base, vary)) == 5  # rel fixed by the measure
    assert len(measure_variants(ae.parse_measure("nDCG@10"), base, vary)) == 5 * 2  # nDCG ignores rel
    # an order-free count reads ties only under a finite depth
    v = measure_variants(ae.parse_measure("NumRet"), base, {"ties": ["docno-desc", "rank"], "depth": [1, "all"]})
    assert sorted(c.depth == 1 for _, c in v) == [False, True, True]


def test_grids():
    q = qrels_from(QRELS)
    assert axis_grid("rel", q) == [1, 2]
    assert axis_grid("depth") == [5, 10, 20, 100, 1000, "all"]
    assert axis_grid("rbp_p") == [0.8, 0.9]  # the values the shipped profiles use
    assert axis_grid("sim") == ["float32", "float64"]


def test_stages_shared_across_conventions():
    q, r = qrels_from(QRELS), run_from(RUN)
    sr = StagedRun(q, r)
    base = resolve("trec_eval-9.0.8")
    p = sr.prepared(base)
    # no (topic, doc) repeats, no self hit, no negative grade, depth beyond every ranking:
    for change in ({"dups": "last"}, {"self_hits": "drop"}, {"negatives": "nonrel"}, {"depth": 4}):
        assert sr.prepared(base.replace(**change)) is p
    assert sr.prepared(base.replace(depth=3)) is not p
    assert list(p.run_row) == [0, 2, 1, 3]  # d4 d2 d1 d3: rows of run.table in rank order
    a = sr.evaluate("AP", base.replace(rel=2))
    assert a.values[0] == pytest.approx(1 / 3) and a.aggregate == pytest.approx(1 / 3)
    assert "rel=2" in str(a.variant)


def test_dups_error_is_a_note_and_nan_not_a_crash():
    run = Run(run_table(["q1", "q1", "q1"], ["d1", "d1", "d2"], [2.0, 1.0, 0.5]))
    res = ae.sweep(QRELS, run, ["P@2"], vary={"dups": "all"})
    b = res.block("P@2")
    by_dups = {c.dups: vi for vi, c in enumerate(b.conventions)}
    assert np.isnan(b.aggregates[by_dups["error"], 0]) and (by_dups["error"], 0) in b.errors
    assert b.aggregates[by_dups["first"], 0] == 1.0  # d1 d2: both relevant
    assert any("dups=error" in n and "not evaluated" in n for n in res.notes)


def test_float32_overflow_is_a_note_without_numpy_warning():
    run = run_from({"q1": {"d1": -1e308, "d2": 1.0}})
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        p = StagedRun(qrels_from(QRELS), run).prepared(resolve("trec_eval-9.0.8"))
    assert any("1 score(s) overflow float32 and became -inf/inf" in n for n in p.notes)


@pytest.fixture(scope="module")
def robust(robust03):
    q = ae.read_qrels(robust03.qrels)
    r = ae.read_run(robust03.run("MU03rob01"))
    return q, r


def test_sampled_sweep_values_equal_evaluate(robust):
    q, r = robust
    vary = {"ties": "all", "sim": "all", "depth": "all", "rel": "all", "unjudged": "all", "ap_denom": "all",
            "gain": "all"}
    measures = ["AP", "nDCG@10", "P@10", "RR"]
    res = ae.sweep(q, r, measures, vary=vary)
    assert res.n_variants >= 1000
    rng = random.Random(6)
    for m in measures:
        b = res.block(m)
        for vi in rng.sample(range(len(b.variants)), 4):
            conv = b.conventions[vi]
            settings = [f"{a}={v}" for a, v in conv.as_dict().items() if v != getattr(res.convention, a)]
            ev = ae.evaluate(q, r, [m], settings=settings)
            agg = ev.get(m)
            assert str(agg.variant) == b.variants[vi]
            assert b.aggregates[vi, 0] == agg.value
            per = {v.topic: v.value for v in ev.per_topic()}
            got = {t: b.values[vi, 0, ti] for ti, t in enumerate(b.topics) if not np.isnan(b.values[vi, 0, ti])}
            assert got == per


@pytest.fixture()
def tiny_files(tmp_path: Path) -> tuple[str, str]:
    q = tmp_path / "qrels"
    q.write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d9 1\n")
    r = tmp_path / "run"
    r.write_text("q1 Q0 d4 1 3 tiny\nq1 Q0 d1 2 2 tiny\nq1 Q0 d2 3 2 tiny\nq1 Q0 d3 4 1 tiny\n")
    return str(q), str(r)


def test_cli_text_fits_100_columns_and_names_departures(tiny_files):
    code, out, err = run_cli("sweep", *tiny_files, "-m", "AP", "--vary", "ties=docno-desc,docno-asc", "--vary", "rel")
    assert code == 0, err
    assert max(len(line) for line in out.splitlines()) <= 100
    rows = [line.split() for line in out.splitlines()]
    assert ["(the", "profile)", "0.5833"] in rows
    assert ["rel=2", "ties=docno-asc", "0.5000"] in rows
    assert ["rel=2", "0.3333"] in rows
    assert ["ties=docno-asc", "0.5833"] in rows
    assert "note:" in out  # q2 absent from the run


def test_cli_tsv_and_json_carry_full_variant_strings(tiny_files):
    code, out, err = run_cli("sweep", *tiny_files, "-m", "AP", "--vary", "rel", "--format", "tsv")
    assert code == 0, err
    rows = [line.split("\t") for line in out.splitlines()[1:]]
    assert {r[2] for r in rows} == {"all"} and len(rows) == 2
    for r in rows:
        assert ae.parse_variant(r[4]) and r[5].startswith("auditeval")
    got = {r[4].split("|rel=")[1][0]: float(r[3]) for r in rows}
    assert got == {"1": pytest.approx(7 / 12, abs=1e-15), "2": pytest.approx(1 / 3, abs=1e-15)}
    code, out, err = run_cli("sweep", *tiny_files, "-m", "AP", "--vary", "rel", "--format", "json", "-q")
    assert code == 0
    import json

    doc = json.loads(out)
    assert {(v["topic"], round(v["value"], 4)) for v in doc["values"]} == {("q1", 0.5833), ("all", 0.5833), ("q1", 0.3333), ("all", 0.3333)}


def test_cli_bad_vary_exits_2(tiny_files):
    code, _, err = run_cli("sweep", *tiny_files, "--vary", "nonsense")
    assert code == 2 and "unknown axis 'nonsense'" in err
    code, _, err = run_cli("sweep", *tiny_files, "--vary", "depth=-1")
    assert code == 2 and "depth" in err


def test_a_nan_value_is_kept_apart_from_a_topic_not_evaluated():
    # -J empties q1's ranking: IPrec@0 is 0/0 = NaN there (trec_eval prints -nan), yet evaluated
    res = ae.sweep({"q1": {"a": 1}}, {"q1": {"b": 1.0}}, ["IPrec@0.0"], vary={"unjudged": "all"})
    b = res.block("IPrec@0.0")
    drop = [c.unjudged for c in b.conventions].index("drop")
    assert np.isnan(b.values[drop, 0, 0]) and b.evaluated[drop, 0, 0]
    frame = res.to_frame()
    assert len(frame) == 4 and frame["value"].isna().sum() == 2


def test_qrels_memo_is_not_shared_with_other_qrels_arrays():
    import dataclasses

    sr = StagedRun(qrels_from(QRELS), run_from(RUN))
    p = sr.prepared(resolve("trec_eval-9.0.8"))
    assert list(p.num_rel(1)) == [2]  # q1: d1, d2
    q = dataclasses.replace(p, qgrade=np.array([2, 0, 0]))  # as if d2 were judged 0
    assert list(q.num_rel(1)) == [1] and list(p.num_rel(1)) == [2]
    assert sr.prepared(resolve("trec_eval-9.0.8").replace(depth=3)).num_rel(1) is p.num_rel(1)  # one side


def test_a_topic_without_a_value_is_left_out_with_a_note():
    """Accuracy@5 on the bundled rerank run: topic 101's top 5 are D101-20, -02, -16 (relevant),
    -12 (not), -22 (relevant): 1 - 1/(1 * 4) = 0.75. Topic 105 is absent from the run: under
    topics=qrels and absent=empty it is evaluated on an empty ranking, where Accuracy has no value;
    it must not come out as NaN (invalid JSON) but be left out, with a note."""
    import json

    ex = EXAMPLES
    code, out, err = run_cli("sweep", str(ex / "qrels.txt"), str(ex / "rerank.txt"), "-m", "Accuracy@5",
                             "--vary", "topics", "--set", "absent=empty", "-q", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)  # strict JSON: no NaN
    rows = [(v["topic"], v["value"], v["variant"].rsplit("topics=", 1)[1].split("|")[0]) for v in doc["values"]]
    assert ("101", 0.75, "qrels") in rows and not any(t == "105" for t, _, _ in rows)
    assert any("Accuracy@5 has no value for 1 topic(s) under some variant(s)" in n and "'105'" in n for n in doc["notes"])
    res = ae.sweep(ex / "qrels.txt", ex / "rerank.txt", ["Accuracy@5"], vary={"topics": "all"})
    assert not res.to_frame().value.isna().any()


def test_the_profiles_own_variant_comes_first_in_every_view():
    """Under --vary the "(the profile)" row was wherever the axis product put it
    (line 16,326 of --vary all); the profile's variant is listed first in text, tsv and json."""
    import json

    ex = EXAMPLES
    own = ("AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|"
           "ties=docno-desc|topics=both|unjudged=nonrel")
    args = ["sweep", str(ex / "qrels.txt"), str(ex / "bm25.txt"), "-m", "AP", "--vary", "depth", "--vary", "ties"]
    code, out, err = run_cli(*args)
    assert code == 0, err
    lines = out.splitlines()
    head = next(i for i, x in enumerate(lines) if x.startswith("departs from the profile"))
    assert lines[head + 1].startswith("(the profile)") and lines[head + 1].split()[-1] == "0.5742"
    code, out, _ = run_cli(*args, "--format", "tsv")
    first = out.splitlines()[1].split("\t")
    assert code == 0 and first[4] == own and first[2] == "all"
    code, out, _ = run_cli(*args, "--format", "json")
    assert code == 0 and json.loads(out)["values"][0]["variant"] == own
    # the first variant of measure_variants itself, whatever the order of the varied values
    from auditeval.vocab.conventions import resolve
    from auditeval.vocab.variant import parse_measure

    base = resolve("trec_eval-9.0.8", None)
    vs = measure_variants(parse_measure("AP"), base, {"depth": [5, 10, "all"], "ties": ["rank", "docno-desc"]})
    assert vs[0] == (own, base) and len(vs) == 6


def test_plan_resolved_once_matches_evaluate_on_every_run(robust03):
    """The sweep resolves each (measure, convention) once in its plan and reuses the record on
    every run: two runs, measures that share conventions (AP and AP(rel=2), which folds ``rel``),
    a routed profile's per-measure bases (RR@10 goes to ir_measures' msmarco provider) and the
    varied ``rel`` grid must still give, variant by variant, what ``evaluate`` gives; and a plan
    that travelled to a worker (pickled) gives the same parts."""
    import pickle

    from auditeval.api import sweep_setup
    from auditeval.engine import sweep_part, sweep_plan
    from auditeval.engine.staged_run import resolve_variant
    from auditeval.vocab.variant import Variant

    q = ae.read_qrels(robust03.qrels)
    runs = [ae.read_run(robust03.run(n)) for n in ("MU03rob01", "InexpC2")]
    measures = ["AP", "AP(rel=2)", "RR", "RR@10", "nDCG@10"]
    profile = "ir_measures-0.4"
    vary = {"ties": ["docno-desc", "docno-asc"], "rel": "all", "depth": [10, "all"], "unjudged": "all"}
    res = ae.sweep(q, runs, measures, profile=profile, vary=vary)
    assert res.base_for("RR@10") != res.convention  # routed
    setup = sweep_setup(q, measures, profile, vary)
    plan = sweep_plan(setup.parsed, setup.labels, setup.base, setup.values, setup.bases)
    travelled = pickle.loads(pickle.dumps(plan))
    assert travelled.texts is None and travelled.per_run == plan.per_run  # travels as combinations
    for mi, m in enumerate(plan.measures):
        reference = measure_variants(m, plan.bases[mi], plan.values)  # combination by combination
        assert list(plan.texts[mi]) == [text for text, _ in reference]
        for vi, (text, conv) in enumerate(reference):
            r = plan.resolution(mi, vi)
            assert plan.convention(mi, vi) == conv and plan.conventions(mi)[vi] == conv
            assert r == resolve_variant(m, conv) and str(r.variant) == text == str(Variant.of(m, conv))
            assert travelled.convention(mi, vi) == conv and travelled.resolution(mi, vi) == r
    for run in runs:
        a, b = sweep_part(q, run, plan), sweep_part(q, run, travelled)
        assert a.notes == b.notes and a.errors == b.errors
        for row_a, row_b in zip(a.values, b.values, strict=True):
            for x, y in zip(row_a, row_b, strict=True):
                assert x.variant == y.variant and np.array_equal(x.values, y.values, equal_nan=True)
    rng = random.Random(11)
    for m in measures:
        b = res.block(m)
        assert len(set(b.variants)) == len(b.variants)
        base = res.base_for(m)
        for vi in rng.sample(range(len(b.variants)), 3):
            conv = b.conventions[vi]
            settings = [f"{a}={v}" for a, v in conv.as_dict().items() if v != getattr(base, a)]
            for ri, run in enumerate(runs):
                ev = ae.evaluate(q, run, [m], profile=profile, settings=settings)
                agg = ev.get(m)
                assert str(agg.variant) == b.variants[vi]
                assert b.aggregates[vi, ri] == agg.value
                per = {v.topic: v.value for v in ev.per_topic()}
                got = {t: b.values[vi, ri, ti] for ti, t in enumerate(b.topics) if b.evaluated[vi, ri, ti]}
                assert got == per


def test_aggregates_only_parts_give_the_full_sweeps_aggregates_notes_and_refusals():
    """``sweep`` without ``-q`` keeps each run's aggregates only (``SweepAggregates``): the
    aggregates, refusals and notes (the undefined topics of a mean-defined measure among them)
    must be those of the full parts. Hand-checked pieces: a repeated pair refuses P@2 under
    dups=error (d1 d2 under dups=first: 1.0); Accuracy@1 of q1 has no value when its top
    document is relevant and nothing non-relevant is retrieved above a relevant one."""
    from auditeval.api import sweep_setup
    from auditeval.engine import sweep_assemble, sweep_part, sweep_plan
    from auditeval.results.parts import RunHeader

    q = qrels_from(QRELS)
    runs = [Run(run_table(["q1", "q1", "q1"], ["d1", "d1", "d2"], [2.0, 1.0, 0.5]), name="dup"),
            Run(run_table(["q1", "q1", "q1", "q1"], ["d4", "d1", "d2", "d3"], [3.0, 2.0, 2.0, 1.0]), name="tie")]
    measures = ["P@2", "AP", "Accuracy@1"]
    setup = sweep_setup(q, measures, "trec_eval-9.0.8", {"dups": "all", "ties": "all", "rel": "all"})
    full = sweep_plan(setup.parsed, setup.labels, setup.base, setup.values, setup.bases)
    slim = sweep_plan(setup.parsed, setup.labels, setup.base, setup.values, setup.bases, per_topic=False)
    heads = [RunHeader(r.name, r.source) for r in runs]
    a = sweep_assemble(q, full, heads, [sweep_part(q, r, full) for r in runs])
    b = sweep_assemble(q, slim, heads, [sweep_part(q, r, slim) for r in runs])
    assert a.notes == b.notes
    assert any("has no value" in n for n in a.notes)  # the undefined note is among them
    for m in measures:
        x, y = a.block(m), b.block(m)
        assert x.variants == y.variants and x.errors == y.errors
        assert np.array_equal(x.aggregates, y.aggregates, equal_nan=True)
    p2 = b.block("P@2")
    by = {(c.dups, c.ties, c.rel): vi for vi, c in enumerate(p2.conventions)}
    assert (by[("error", "docno-desc", 1)], 0) in p2.errors
    assert p2.aggregates[by[("first", "docno-desc", 1)], 0] == 1.0
    assert b.block("AP").values.shape[2] == 0  # no per-topic value kept


def _variant_by_variant(q, run, plan):
    """The reference for :func:`sweep_part`'s classes: every variant evaluated on its own
    (``StagedRun.evaluate``), refusals and notes collected variant after variant, each note
    text once and tagged with the first variant it comes from."""
    from auditeval.engine.sweep import _under
    from auditeval.vocab.errors import AuditEvalError

    sr = StagedRun(q, run)
    values, errors, notes, seen = [], [], [], set(q.notes)
    for mi, m in enumerate(plan.measures):
        row, errs = [], {}
        for vi, conv in enumerate(plan.conventions(mi)):
            try:
                tv = sr.evaluate(m, conv)
            except AuditEvalError as exc:
                errs[vi] = str(exc)
                row.append(None)
                continue
            row.append(tv)
            for n in sr.notes(m, conv):
                if n not in seen:
                    seen.add(n)
                    notes.append((n, n if n in run.notes else _under(n, conv, plan.bases[mi])))
        values.append(row)
        errors.append(errs)
    return values, errors, notes


@pytest.mark.slow
@pytest.mark.parametrize("case", ["tiny", "subtopics"])
def test_sweep_parts_merge_variants_into_classes_without_changing_a_value_note_or_refusal(case, tmp_path):
    """A run evaluates one variant per class of variants it computes alike (``VariantClasses``,
    merged on the run's list keys): every value, aggregate, refusal and note must be what
    evaluating each variant on its own gives, on inputs where classes merge and split for
    every reason: a repeated (topic, doc) pair (``dups=error`` refuses, ``first``/``last``
    differ), a topic missing from the run (``topics=strict`` refuses, ``absent`` matters
    under ``topics=qrels``), depths beyond the lists (``depth=5`` is ``all`` on 4 documents),
    ``rbp_gain=binary`` refusing RBP's gains (the spec's check), a mean-defined measure with
    undefined topics, and a subtopic qrels whose intent-aware measures read merged lists."""
    from auditeval.api import sweep_setup
    from auditeval.engine import sweep_part, sweep_plan
    from auditeval.engine.sweep import SweepAggregates

    if case == "tiny":
        q = qrels_from(QRELS)
        run = Run(run_table(["q1"] * 5, ["d4", "d1", "d2", "d2", "d3"], [3.0, 2.0, 2.0, 1.5, 1.0]), name="dup")
        measures = ["AP", "P@2", "Accuracy@1", "RBP(gains={0:0,1:1,2:3})", "nDCG@3"]
        vary = {"ties": "all", "dups": "all", "depth": [1, 2, 5, "all"], "topics": "all", "absent": "all",
                "rbp_gain": "all", "rel": "all", "unjudged": "all"}
    else:
        from test_diversity import _two_subtopic_case

        qp, rp, _, _ = _two_subtopic_case(tmp_path)
        q, run = qrels_from(qp), run_from(rp)
        measures = ["alpha_nDCG@5", "ERR_IA@5", "P@5", "AP"]
        vary = {"dups": "all", "depth": [5, 10, "all"], "rel": "all", "topics": "all"}
    setup = sweep_setup(q, measures, "trec_eval-9.0.8", vary)
    for per_topic in (True, False):
        plan = sweep_plan(setup.parsed, setup.labels, setup.base, setup.values, setup.bases, per_topic)
        assert sum(c.n_kernels for c in plan.classes) <= plan.per_run
        part = sweep_part(q, run, plan)
        want_values, want_errors, want_notes = _variant_by_variant(q, run, plan)
        assert part.notes == want_notes and part.errors == want_errors
        assert any(want_errors) and want_notes  # the case refuses some variants and notes something
        for mi, (got, want) in enumerate(zip(part.values, want_values, strict=True)):
            if per_topic:
                for g, w in zip(got, want, strict=True):
                    assert (g is None) == (w is None)
                    if w is not None:
                        assert g.variant == w.variant and list(g.topics) == list(w.topics)
                        assert np.array_equal(g.values, w.values, equal_nan=True) and g.aggregate == w.aggregate
                continue
            assert isinstance(got, SweepAggregates)
            aggs = [np.nan if w is None or w.aggregate is None else w.aggregate for w in want]
            assert np.array_equal(got.aggregates, np.array(aggs, float), equal_nan=True)
            undefined = {vi: list(w.topics[np.isnan(w.values)]) for vi, w in enumerate(want)
                         if w is not None and plan.measures[mi].name == "Accuracy" and np.isnan(w.values).any()}
            assert {vi: list(t) for vi, t in got.undefined.items()} == undefined
    if case == "tiny":  # the merging is real: depth 5 = all on these lists, dups idle where no pair repeats
        assert len(_variant_by_variant(q, run, plan)[0][0]) > len(set(part.values[0].aggregates.tolist()))


@pytest.mark.parametrize("block", [None, 1, 7])
@pytest.mark.parametrize("per_topic", [False, True])
def test_sweep_tsv_built_column_wise_has_every_record_line_in_order(per_topic, block, monkeypatch):
    """The TSV view builds a numeric block's lines column-wise (Arrow): it must give, line for
    line, the records the JSON view reads (``_records``, one Python tuple per value), on a sweep
    with refused variants (dups=error on a repeated pair), an integer measure, a mean-defined
    one with undefined topics, a text measure and topics only some variants evaluate; in
    blocks of the default size, of one line and of seven (a block is whole variants)."""
    import io

    from auditeval.render import sweep_out
    from auditeval.render.sweep_out import render_tsv
    from auditeval.render.sweep_out import value_records as _records

    if block is not None:
        monkeypatch.setattr(sweep_out, "LINES_PER_BLOCK", block)

    run = Run(run_table(["q1", "q1", "q1", "q1"], ["d4", "d1", "d1", "d2"], [3.0, 2.0, 1.5, 2.0]), name="r")
    res = ae.sweep(QRELS, [run, RUN], ["AP", "NumRel", "Accuracy@1", "relstring@3", "P@2"],
                   vary={"dups": "all", "ties": "all", "topics": "all", "rel": "all"})
    assert any(b.errors for b in res.blocks.values())
    out = io.StringIO()
    render_tsv(res, out, per_topic)

    def text(v):
        return repr(v) if isinstance(v, float) else str(v)

    want = ["run\tmeasure\ttopic\tvalue\tvariant\tengine"] + [
        f"{run}\t{label}\t{topic}\t{text(v)}\t{variant}\t{res.engine}"
        for run, label, variant, pairs in _records(res, per_topic) for topic, v in pairs]
    assert out.getvalue().split("\n")[:-1] == want and len(want) > 40


def test_the_text_view_puts_six_runs_side_by_side_and_is_the_apis_result_rendered(tmp_path, monkeypatch):
    """``sweep``'s text view on 8 runs (a table of 6, one of 2), with refused variants (a
    repeated pair under ``dups=error``), an integer and a text measure: the second table is
    headed by r7 and r8, and the command prints what :func:`render_text` makes of
    ``ae.sweep``'s result."""
    import io

    from auditeval.render.sweep_text import render_text

    q = tmp_path / "q.txt"
    q.write_text("q1 0 d1 2\nq1 0 d2 1\nq1 0 d3 0\nq2 0 d9 1\n")
    paths = []
    for k in range(8):
        r = tmp_path / f"r{k}.txt"
        docs = ["d4", "d1", "d2", "d3"][k % 4:] + ["d4", "d1", "d2", "d3"][: k % 4] + (["d1"] if k == 3 else [])
        r.write_text("".join(f"q1 Q0 {d} {i + 1} {9 - i - k / 10:.1f} run{k}\n" for i, d in enumerate(docs)))
        paths.append(str(r))
    args = ["-m", "AP", "-m", "NumRel", "-m", "relstring@3", "--vary", "dups", "--vary", "rel"]
    monkeypatch.setenv("COLUMNS", "100")
    code, out, err = run_cli("sweep", str(q), *paths, *args)
    assert code == 0, err
    res = ae.sweep(str(q), paths, ["AP", "NumRel", "relstring@3"], vary={"dups": "all", "rel": "all"})
    assert any(b.errors for b in res.blocks.values())
    at_once = io.StringIO()
    render_text(res, at_once, 100)
    assert out == at_once.getvalue()
    heads = [line.split() for line in out.splitlines() if line.startswith("departs from the profile")]
    assert heads[:2] == [["departs", "from", "the", "profile", "r1", "r2", "r3", "r4", "r5", "r6"],
                         ["departs", "from", "the", "profile", "r7", "r8"]]


def _numbered_one_by_one(sr: StagedRun, conventions) -> list[int]:
    """The plain model of ``StagedRun.key_numbers``: ``prepare_key`` convention by convention,
    numbered by first appearance, a refused convention a number of its own."""
    from auditeval.vocab.errors import AuditEvalError

    numbers: dict = {}
    out = []
    for i, c in enumerate(conventions):
        try:
            key = sr.prepare_key(c)
        except AuditEvalError:
            key = ("refused", i)
        out.append(numbers.setdefault(key, len(numbers)))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("case", ["plain", "run-dups", "qrels-dups-negative-self-hit", "topics-differ"])
def test_key_numbers_equal_prepare_key_convention_by_convention(case, tmp_path):
    """The sweep numbers each run's lists by their key axis by axis (``key_numbers``): on
    inputs where each rule of the key applies (a repeated run pair: dups matter and
    ``dups=error`` refuses; a repeated qrels pair, a negative grade and a document named like
    its topic: dups, negatives and self_hits matter; topics on one side only; depths past the
    lists), the numbers are those of ``prepare_key`` asked convention by convention."""
    from auditeval.api import sweep_setup
    from auditeval.engine import sweep_plan
    from auditeval.engine.staged_run import prepare_table

    qrels = {"q1": {"d1": 2, "d2": 1, "d3": 0}, "q2": {"d9": 1, "d8": 0}}
    rows = (["q1"] * 4 + ["q2"] * 2, ["d4", "d1", "d2", "d3", "d9", "d7"], [3.0, 2.0, 2.0, 1.0, 5.0, 5.0])
    if case == "run-dups":
        rows = (rows[0] + ["q1"], rows[1] + ["d2"], rows[2] + [0.5])
    q = qrels_from(qrels)
    if case == "qrels-dups-negative-self-hit":
        lines = [f"{t} 0 {d} {g}\n" for t, docs in qrels.items() for d, g in docs.items()]
        path = tmp_path / "q.txt"
        path.write_text("".join(lines) + "q1 0 d5 -1\nq2 0 d9 0\n")  # a negative grade, a repeated pair
        q = ae.read_qrels(path)
        rows = (rows[0] + ["q2"], rows[1] + ["q2"], rows[2] + [4.0])
    if case == "topics-differ":
        rows = (rows[0] + ["q3"], rows[1] + ["d1"], rows[2] + [1.0])
    run = Run(run_table(*rows), name="r")
    setup = sweep_setup(q, ["AP", "P@2"], "trec_eval-9.0.8", {"all": "all"})
    plan = sweep_plan(setup.parsed, setup.labels, setup.base, setup.values, setup.bases, False)
    got = StagedRun(q, run).key_numbers(prepare_table(plan.prepare))
    want = _numbered_one_by_one(StagedRun(q, run), plan.prepare)
    assert got.tolist() == want
    assert 1 < len(set(want)) < len(want)  # keys merge and split

