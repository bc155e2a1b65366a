"""Native engine == pytrec_eval-terrier (trec_eval 9.0.8 code, float32 scores) per topic.

On the 12 TREC 2003 Robust runs, under profile ``trec_eval-9.0.8``, every measure pytrec_eval
reports that auditeval also registers (found by parsing pytrec_eval's result keys as
trec_eval names, so newly registered measures are covered automatically) must agree to
1e-12 on every topic, and the topic sets must be equal. pytrec_eval skips run topics that
are absent from the qrels (= ``topics=both``) and returns per-topic *logs* for ``gm_*``.
"""

from __future__ import annotations

import math

import ir_measures
import numpy as np
import pytest
import pytrec_eval
from paths import TIER_RUNS, TIERS

import auditeval as ae
from auditeval.engine.measures import MEASURES
from auditeval.vocab.errors import UnknownMeasureError

pytestmark = pytest.mark.slow

PROFILE = "trec_eval-9.0.8"
TOL = 1e-12
# measures the brief requires to be compared (more are compared when registered)
CORE = {"AP", "P", "R", "nDCG", "RR", "Rprec", "Success", "NumRet", "NumRel", "NumRelRet", "GMAP"}
CASES = [(tier, run) for tier in TIERS for run in TIER_RUNS[tier]]
# a run with ties in nearly every topic and one 100 deep without ties, per tier
TWO = [("robust03_like", "synTies"), ("robust03_like", "synShallow"), ("robust03", "MU03rob01"),
       ("robust03", "humR03dc")]


@pytest.fixture(scope="module")
def robust(request):
    """``get(tier) -> (collection, qrels, pytrec_eval evaluator)``, each made once."""
    made: dict[str, tuple] = {}

    def get(tier: str) -> tuple:
        if tier not in made:
            data = request.getfixturevalue(tier)
            qrels = ae.read_qrels(data.qrels)
            made[tier] = data, qrels, pytrec_eval.RelevanceEvaluator(qrels.to_dict(), pytrec_eval.supported_measures)
        return made[tier]

    return get


def shared_measures(keys) -> dict[str, ae.Measure]:
    """pytrec_eval result key -> auditeval measure, for keys auditeval registers (numeric ones)."""
    out = {}
    for key in keys:
        try:
            m = ae.parse_measure(key)
        except UnknownMeasureError:
            continue
        if MEASURES[m.name].fmt == "str":  # relstring: a string, pytrec_eval has no value for it
            continue
        out[key] = m
    return out


def test_run_files_present(robust03):
    names = sorted(p.name for p in (robust03.dir / "runs").glob("input.*.gz"))
    assert names == sorted(f"input.{n}.gz" for n in TIER_RUNS["robust03"])


@pytest.mark.parametrize(("tier", "run_name"), CASES, ids=[f"{t}-{r}" for t, r in CASES])
def test_per_topic_parity(robust, tier, run_name):
    data, qrels, evaluator = robust(tier)
    run = ae.read_run(data.run(run_name))
    expected = evaluator.evaluate(run.to_dict())
    assert len(run.to_dict()) >= len(expected) > 0

    keys = sorted(next(iter(expected.values())))
    measures = shared_measures(keys)
    assert CORE <= {m.name for m in measures.values()}, "a core measure is not compared"
    # every registered measure whose trec_eval name pytrec_eval computes is compared
    registered = {
        d.name for d in MEASURES.values() if d.trec_name in pytrec_eval.supported_measures and d.fmt != "str"
    }
    assert registered <= {m.name for m in measures.values()}

    res = ae.evaluate(qrels, run, list(measures), profile=PROFILE)
    got: dict[tuple[str, str], float] = {(v.measure, v.topic): v.value for v in res.values}
    mismatches = []
    for key, m in measures.items():
        topics = sorted(t for (label, t) in got if label == key and t != "all")
        assert topics == sorted(expected), f"{key}: topic sets differ"
        for topic in topics:
            want = expected[topic][key]
            mine = got[(key, topic)]
            if key.startswith("gm_"):
                # pytrec_eval returns log(max(value, MIN_GEO_MEAN)) per topic
                mine = math.log(max(mine, 1e-5))
            if not abs(mine - want) <= TOL:
                mismatches.append(f"{key} topic {topic}: auditeval {mine!r} pytrec_eval {want!r}")
        # the aggregate: mean (sum for num_*, exp(mean of logs) for gm_*) over the same topics
        values = [expected[t][key] for t in topics]
        if key.startswith("gm_"):
            agg = math.exp(sum(values) / len(values))
        elif MEASURES[m.name].agg == "sum":
            agg = sum(values)
        else:
            agg = sum(values) / len(values)
        if not abs(got[(key, "all")] - agg) <= TOL:
            mismatches.append(f"{key} all: auditeval {got[(key, 'all')]!r} pytrec_eval {agg!r}")
    assert not mismatches, f"{len(mismatches)} differences, first: " + "; ".join(mismatches[:10])


@pytest.mark.parametrize(("tier", "run_name"), TWO[::2], ids=[f"{t}-{r}" for t, r in TWO[::2]])
def test_gm_map_aggregate_matches_pytrec(robust, tier, run_name):
    # pytrec_eval's own aggregation of gm_map: exp(mean of per-topic logs)
    data, qrels, evaluator = robust(tier)
    run = ae.read_run(data.run(run_name))
    per_topic = evaluator.evaluate(run.to_dict())
    want = pytrec_eval.compute_aggregated_measure("gm_map", [v["gm_map"] for v in per_topic.values()])
    got = ae.evaluate(qrels, run, ["gm_map"], profile=PROFILE).get("gm_map").value
    assert got == pytest.approx(want, rel=1e-12)


def compare(expected: dict, res: ae.ResultSet, keys) -> list[str]:
    """Per-topic differences between pytrec_eval's results and ours (empty when equal to TOL)."""
    got = {(v.measure, v.topic): v.value for v in res.values}
    out = []
    for key in keys:
        topics = sorted(t for (label, t) in got if label == key and t != "all")
        if topics != sorted(expected):
            out.append(f"{key}: topics {topics} vs {sorted(expected)}")
            continue
        for topic in topics:
            mine, want = got[(key, topic)], expected[topic][key]
            if key.startswith("gm_"):
                mine = math.log(max(mine, 1e-5))
            if not (abs(mine - want) <= TOL or (math.isnan(mine) and math.isnan(want))):
                # (trec_eval itself gives NaN for iprec/11pt of a ranking emptied by -J)
                out.append(f"{key} topic {topic}: auditeval {mine!r} pytrec_eval {want!r}")
    return out


@pytest.mark.parametrize(("tier", "run_name"), TWO, ids=[f"{t}-{r}" for t, r in TWO])
@pytest.mark.parametrize(
    "kwargs, settings",
    [
        ({"relevance_level": 2}, ["rel=2"]),
        ({"judged_docs_only_flag": True}, ["unjudged=drop"]),
        ({"relevance_level": 2, "judged_docs_only_flag": True}, ["rel=2", "unjudged=drop"]),
    ],
)
def test_parity_rel_and_judged_only(robust, tier, run_name, kwargs, settings):
    # trec_eval -l2 / -J through pytrec_eval's relevance_level / judged_docs_only_flag
    data, qrels, _ = robust(tier)
    run = ae.read_run(data.run(run_name))
    evaluator = pytrec_eval.RelevanceEvaluator(qrels.to_dict(), pytrec_eval.supported_measures, **kwargs)
    expected = evaluator.evaluate(run.to_dict())
    measures = shared_measures(sorted(next(iter(expected.values()))))
    res = ae.evaluate(qrels, run, list(measures), profile=PROFILE, settings=settings)
    diffs = compare(expected, res, measures)
    assert not diffs, f"{len(diffs)} differences, first: " + "; ".join(diffs[:10])


def random_case(seed: int) -> tuple[dict, dict]:
    """Small qrels/run dicts full of edge cases: float32 ties (0.30000001 vs 0.3, 1e8 vs
    100000001), exact ties, negative grades, unjudged and unretrieved documents, topics
    without relevant documents, run-only and qrels-only topics."""
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for _ in range(int(rng.integers(1, 8))):
        tid = str(int(rng.integers(1, 200)))
        docs = [f"d{i}" for i in rng.permutation(40)[: int(rng.integers(1, 40))]]
        judged = {d: int(rng.choice([-1, 0, 0, 1, 1, 2, 3])) for d in docs[: int(rng.integers(0, len(docs) + 1))]}
        judged.update({f"e{i}": int(rng.choice([0, 1, 2])) for i in range(int(rng.integers(0, 5)))})
        if judged:  # pytrec_eval drops empty qrels topics
            qrels[tid] = judged
        if rng.random() < 0.9:
            levels = rng.choice([1.0, 0.5, 0.30000001, 0.3, 2.0, 100000001.0, 1e8], size=len(docs))
            run[tid] = {
                d: float(s) if rng.random() < 0.6 else float(rng.normal())
                for d, s in zip(rng.permutation(docs), levels, strict=True)
            }
    return qrels, run


def test_random_cases_parity():
    """200 seeded random cases (:func:`random_case`), ``-l`` 1-3 and ``-J`` on or off by seed;
    pytrec_eval evaluates each seed alone, auditeval the seeds of one ``-l``/``-J`` setting at
    once, each seed's topics renamed ``SEED:TOPIC`` (every value compared is per topic: it reads
    only the topic's own judgments and ranking), one evaluation per setting."""
    from types import SimpleNamespace

    groups: dict[tuple[int, bool], list[tuple[int, dict, set]]] = {}
    inputs: dict[tuple[int, bool], tuple[dict, dict, set]] = {}
    for seed in range(200):
        qrels, run = random_case(seed)
        if not set(qrels) & set(run):
            continue
        level, judged_only = 1 + seed % 3, bool(seed % 2)
        evaluator = pytrec_eval.RelevanceEvaluator(
            qrels, pytrec_eval.supported_measures, relevance_level=level, judged_docs_only_flag=judged_only
        )
        expected = {f"{seed}:{t}": v for t, v in evaluator.evaluate(run).items()}
        measures = shared_measures(sorted(next(iter(expected.values()))))
        groups.setdefault((level, judged_only), []).append((seed, expected, measures))
        q_all, r_all, m_all = inputs.setdefault((level, judged_only), ({}, {}, set()))
        q_all.update({f"{seed}:{t}": v for t, v in qrels.items()})
        r_all.update({f"{seed}:{t}": v for t, v in run.items()})
        m_all.update(measures)
    checked = 0
    for (level, judged_only), cases in groups.items():
        q_all, r_all, m_all = inputs[(level, judged_only)]
        settings = [f"rel={level}", f"unjudged={'drop' if judged_only else 'nonrel'}"]
        res = ae.evaluate(q_all, r_all, sorted(m_all), profile=PROFILE, settings=settings)
        for seed, expected, measures in cases:
            mine = SimpleNamespace(values=[v for v in res.values if v.topic.startswith(f"{seed}:")])
            diffs = compare(expected, mine, measures)
            assert not diffs, f"seed {seed}: {len(diffs)} differences, first: " + "; ".join(diffs[:5])
            checked += 1
    assert checked > 150


# ir_measures 0.4: its default pipeline sends these to pytrec_eval (profile ir_measures-0.4:
# every qrels topic, missing ones 0) and RR@k / Judged@k to its msmarco / judged providers
# (profile ir_measures-0.4-msmarco: docno-ascending ties, float64, negatives judged).
# NumRel is left out: ir_measures zero-fills it for topics absent from the run, while
# topics=qrels (trec_eval -c) keeps R (case 03: trec_eval -c prints num_rel 1 for topic 2).
IRM_MEASURES = {
    "ir_measures-0.4": [
        "AP", "AP@5", "AP(rel=2)", "P@5", "P(rel=2)@5", "R@10", "nDCG", "nDCG@10",
        "nDCG(gains={0:0,1:1,2:3,3:7})@5", "RR", "Rprec", "Bpref", "infAP", "Success@3",
        "NumRet", "NumRelRet", "IPrec@0.5",
    ],
    "ir_measures-0.4-msmarco": ["RR@3", "RR@10", "Judged@5", "Judged@20"],
}


@pytest.mark.parametrize("profile", sorted(IRM_MEASURES))
def test_ir_measures_parity_random_cases(profile):
    checked = 0
    for seed in range(60):
        qrels, run = random_case(seed)
        if not set(qrels) & set(run):
            continue
        names = IRM_MEASURES[profile]
        qs = [ir_measures.Qrel(t, d, g) for t, dd in qrels.items() for d, g in dd.items()]
        rs = [ir_measures.ScoredDoc(t, d, s) for t, dd in run.items() for d, s in dd.items()]
        # ir_measures 0.4.3 bug: with nDCG and nDCG(gains=...) in one call, plain nDCG sometimes
        # gets the remapped gains (it depends on hash order), so a gains measure is computed alone
        groups = [[n for n in names if "gains" not in n]] + [[n] for n in names if "gains" in n]
        expected = {}
        for group in groups:
            parsed = {str(ir_measures.parse_measure(n)): n for n in group}
            for m in ir_measures.iter_calc(list(map(ir_measures.parse_measure, group)), qs, rs):
                expected[(parsed[str(m.measure)], m.query_id)] = m.value
        res = ae.evaluate(qrels, run, names, profile=profile)
        got = {(v.measure, v.topic): v.value for v in res.values if v.topic != "all"}
        assert sorted(got) == sorted(expected), f"seed {seed}: topic sets differ"
        diffs = [f"{k}: {got[k]!r} vs {expected[k]!r}" for k in expected if not abs(got[k] - expected[k]) <= 1e-9]
        assert not diffs, f"seed {seed}: " + "; ".join(diffs[:5])
        checked += 1
    assert checked > 40
