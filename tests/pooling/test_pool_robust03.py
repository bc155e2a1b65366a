"""Pools on the 12 TREC 2003 Robust runs, checked against plain Python over the raw files.

The expected values never go through auditeval: each run's gzip lines are parsed here,
scores rounded to C float (trec_eval 9.0.8 stores ``float sim``), each topic sorted as
trec_eval does (score descending, then docno descending), cut at depth k, and the pools,
costs, marginal costs and unique relevant documents computed with Python sets.
"""

from __future__ import annotations

import gzip
import io
import json
from array import array
from collections import defaultdict
from pathlib import Path

import numpy as np
import pytest

import auditeval as ae
from auditeval.cli.main import main
from auditeval.pooling.bias import pool_bias
from auditeval.pooling.growth import pool_growth
from auditeval.pooling.pools import build_pools
from auditeval.vocab.model import Qrels

K = 100


def top_k(path: Path, k: int) -> tuple[str, dict[str, list[str]]]:
    """(run tag, {topic: its top-k docnos}) by trec_eval's order, in plain Python."""
    topics, docs, scores = [], [], []
    tag = ""
    with gzip.open(path, "rt") as fh:
        for line in fh:
            f = line.split()
            topics.append(f[0])
            docs.append(f[2])
            scores.append(float(f[4]))
            tag = f[5]
    scores = array("f", scores).tolist()  # C float, as trec_eval 9.0.8 stores sim
    by_topic: dict[str, list[tuple[float, str]]] = defaultdict(list)
    for t, d, s in zip(topics, docs, scores, strict=True):
        by_topic[t].append((s, d))
    out = {}
    for t, rows in by_topic.items():
        rows.sort(key=lambda r: r[1], reverse=True)  # docno descending ...
        rows.sort(key=lambda r: r[0], reverse=True)  # ... within score descending (stable)
        out[t] = [d for _, d in rows[:k]]
    return tag, out


@pytest.fixture(scope="module")
def data(robust03):
    base = robust03.dir
    paths = sorted((base / "runs").glob("input.*.gz"))
    raw = [top_k(p, K) for p in paths]
    qrels = {}
    for line in (base / "qrels.robust03.txt").read_text().splitlines():
        t, _, d, g = line.split()
        qrels[(t, d)] = int(g)
    runs = [ae.read_run(p) for p in paths]
    return {
        "base": base, "paths": paths, "runs": runs, "qrels": ae.read_qrels(base / "qrels.robust03.txt"),
        "names": [tag for tag, _ in raw],
        "sets": [{(t, d) for t, docs in top.items() for d in docs} for _, top in raw],
        "rows": [sum(len(docs) for docs in top.values()) for _, top in raw],
        "qrels_dict": qrels,
        "conv": ae.load_profile("trec_eval-9.0.8").convention,
    }


@pytest.fixture(scope="module")
def pools(data):
    return build_pools(data["runs"], K, data["conv"], data["qrels"])


def test_pool_sizes_cost_and_reuse(data, pools):
    union = set().union(*data["sets"])
    assert pools.runs == data["names"]
    assert pools.pooled == len(union) == 38598
    assert pools.unpooled == sum(data["rows"]) == 111004  # NLPR03vb10 retrieves ~10 docs per topic
    assert pools.reuse == pytest.approx(1 - len(union) / sum(data["rows"]), abs=1e-15)
    per_topic = defaultdict(int)
    for t, _ in union:
        per_topic[t] += 1
    pooled, unpooled = pools.per_topic()
    assert dict(zip(pools.space.topics, pooled.tolist(), strict=True)) == dict(per_topic)
    assert int(unpooled.sum()) == 111004
    assert [len(c) for c in pools.contrib] == [len(s) for s in data["sets"]]


def test_marginal_cost_in_given_and_random_orders(data, pools):
    sets = data["sets"]
    rng = np.random.default_rng(7)
    orders = np.array([np.arange(12)] + [rng.permutation(12) for _ in range(4)])
    added, by_system = pools.marginal(orders)
    for o, order in enumerate(orders):
        seen: set = set()
        for step, s in enumerate(order):
            new = len(sets[s] - seen)
            seen |= sets[s]
            assert added[o, step] == new
            assert by_system[o, s] == new
    # unique contribution = marginal cost when added last
    for i in range(12):
        others = set().union(*(s for j, s in enumerate(sets) if j != i))
        assert pools.unique()[i] == len(sets[i] - others)
    assert pools.unique().tolist() == [500, 2615, 72, 2488, 871, 1311, 2063, 1143, 1637, 1328, 1686, 3217]


def test_leave_one_run_out_unique_relevant(data):
    sets, qd = data["sets"], data["qrels_dict"]
    expected_rel, expected_judged = [], []
    for i in range(12):
        only = sets[i] - set().union(*(s for j, s in enumerate(sets) if j != i))
        expected_rel.append(sum(1 for p in only if qd.get(p, 0) >= 1))
        expected_judged.append(sum(1 for p in only if p in qd))
    rep = pool_bias(data["qrels"], data["runs"], K, data["conv"], [ae.parse_measure("AP")], trials=200)
    assert rep.unique_relevant.tolist() == expected_rel
    assert rep.unique_judged.tolist() == expected_judged
    assert expected_rel == [3, 55, 8, 64, 5, 33, 27, 22, 121, 11, 169, 191]
    # here every left-out run loses score (not a law: removing a relevant pair it ranks low
    # also lowers R, and AP can rise)
    for g in range(12):
        assert rep.full[0, g] - rep.reduced[0, g, g] >= 0
    # uic0301's penalty: the engine's AP on the full qrels minus on the qrels without its
    # unique pairs (found with the sets above)
    only = sets[11] - set().union(*sets[:11])
    uic = data["runs"][11]
    full = ae.evaluate(data["qrels"], uic, ["AP"]).get("AP").value
    reduced = ae.evaluate(_reduced_qrels(data, set(qd) - only), uic, ["AP"]).get("AP").value
    assert rep.largest_penalty(0, 11) == (11, pytest.approx(full - reduced, abs=1e-12))
    assert full - reduced == pytest.approx(0.0092, abs=5e-5)
    frame = rep.to_frame()  # tidy: one row per (measure, left-out group, run)
    row = frame[(frame.group == rep.groups[11]) & (frame.run == rep.runs[11])].iloc[0]
    assert bool(row.own_group) and row.penalty == pytest.approx(full - reduced, abs=1e-12) and len(frame) == 144


def _reduced_qrels(data, keep_pairs: set) -> Qrels:
    t = data["qrels"].table
    mask = np.array([(a, b) in keep_pairs for a, b in zip(t.column("topic").to_pylist(), t.column("doc").to_pylist(), strict=True)])
    return Qrels(t.filter(mask), source="reduced")


def test_group_bias_equals_engine_on_reduced_qrels(data):
    """Relabelled lists give exactly what the engine computes from the reduced qrels
    (six runs; runs 1 and 3 form one group), under unjudged=nonrel and unjudged=drop."""
    runs, sets, names = data["runs"][:6], data["sets"][:6], data["names"][:6]
    groups = {n: "team" if i in (1, 3) else n for i, n in enumerate(names)}
    others = set().union(*(s for j, s in enumerate(sets) if j not in (1, 3)))
    removed = (sets[1] | sets[3]) - others
    reduced = _reduced_qrels(data, set(data["qrels_dict"]) - removed)
    for conv, measures in ((data["conv"], ["AP", "nDCG@10"]), (data["conv"].replace(unjudged="drop"), ["AP"])):
        rep = pool_bias(data["qrels"], runs, K, conv, [ae.parse_measure(m) for m in measures], groups=groups, trials=50)
        g = rep.groups.index("team")
        assert rep.members(g).tolist() == [1, 3]
        assert rep.unique_pairs[g] == len(removed)
        res = ae.evaluate(reduced, runs, measures, profile=conv)
        for mi, m in enumerate(measures):
            for si, n in enumerate(names):
                assert rep.reduced[mi, g, si] == pytest.approx(res.get(m, n).value, abs=1e-12)


def test_growth_equals_engine_on_grown_pools(data):
    """Six runs: the score after s systems equals the engine's on the qrels of their pool."""
    sets, runs = data["sets"][6:], data["runs"][6:]
    rep = pool_growth(data["qrels"], runs, K, data["conv"], ae.parse_measure("AP"), n_orders=3, seed=3)
    assert rep.method == "frozen-label sums"
    for o, s in [(0, 1), (2, 3), (1, 6)]:
        chosen = rep.orders[o, :s].tolist()
        pool = set().union(*(sets[i] for i in chosen))
        res = ae.evaluate(_reduced_qrels(data, pool), [runs[i] for i in chosen], ["AP"])
        for i in chosen:
            assert rep.scores[o, s - 1, i] == pytest.approx(res.get("AP", runs[i].name).value, abs=1e-12)
        absent = [i for i in range(6) if i not in chosen]
        assert np.isnan(rep.scores[o, s - 1, absent]).all()
    a, b, share, _ = rep.pairs()
    assert ((share >= 0) & (share <= 1)).all()


def test_growth_fast_sums_equal_the_engine_path(data):
    """The same simulation through the engine (relabelled lists, every system set) and through
    the fast sums: identical to the last bit, for AP and RR."""
    runs = data["runs"][:3]
    for m in ("AP", "RR"):
        fast = pool_growth(data["qrels"], runs, 30, data["conv"], ae.parse_measure(m), n_orders=3, seed=1)
        slow = pool_growth(data["qrels"], runs, 30, data["conv"], ae.parse_measure(m), n_orders=3, seed=1, via_engine=True)
        assert (fast.method, slow.method) == ("frozen-label sums", "engine on relabelled lists")
        np.testing.assert_array_equal(fast.scores, slow.scores)


def test_cli_stats_and_coverage_json(data):
    """The CLI documents on four runs: pool variant, costs, coverage counts, to-do pairs."""
    base, paths, sets = data["base"], [str(p) for p in data["paths"][:4]], data["sets"][:4]
    union = set().union(*sets)
    out, err = io.StringIO(), io.StringIO()
    assert main(["pool", "stats", *paths, "--depth", str(K), "--orders", "20", "--format", "json"], out, err) == 0
    doc = json.loads(out.getvalue())
    assert doc["pool"] == "pool|depth=100|dups=error|self_hits=keep|sim=float32|ties=docno-desc"
    assert (doc["depth"], doc["ties"], doc["profile"]) == (100, "docno-desc", "trec_eval-9.0.8")
    assert (doc["pooled"], doc["unpooled"]) == (len(union), sum(data["rows"][:4]))
    assert [s["given_order"] for s in doc["marginal"]["systems"]] == [
        len(sets[0]), len(sets[1] - sets[0]), len(sets[2] - sets[0] - sets[1]), len(sets[3] - sets[0] - sets[1] - sets[2])]
    assert doc["marginal"]["curve"][-1]["min"] == doc["marginal"]["curve"][-1]["max"] == len(union)
    out = io.StringIO()
    assert main(["pool", "coverage", str(base / "qrels.robust03.txt"), *paths, "--format", "json"], out, err) == 0
    doc = json.loads(out.getvalue())
    qd = data["qrels_dict"]
    assert [r["unjudged"] for r in doc["runs"]] == [sum(p not in qd for p in s) for s in sets]
    assert {(p["topic"], p["doc"]) for p in doc["todo"]} == {p for p in union if p not in qd}
    assert doc["runs"][0]["judged_at_k"]["variant"].startswith("Judged@100|depth=all|dups=error|judged_denom=k|")
    # Judged@100 of the first run: judged pairs in its top 100 / 100 per topic, mean over 100 topics
    assert doc["runs"][0]["judged_at_k"]["value"] == pytest.approx(sum(p in qd for p in sets[0]) / 100 / 100, abs=1e-12)
    from auditeval.pooling.coverage import pool_coverage

    cov = pool_coverage(data["qrels"], data["runs"][:4], K, data["conv"]).to_frame()
    assert cov.unjudged.tolist() == [r["unjudged"] for r in doc["runs"]]
    assert cov.value[0] == pytest.approx(sum(p in qd for p in sets[0]) / 100 / 100, abs=1e-12)
    text = io.StringIO()
    assert main(["pool", "coverage", str(base / "qrels.robust03.txt"), *paths[:2]], text, err) == 0
    assert max(len(x) for x in text.getvalue().splitlines()) <= 100
