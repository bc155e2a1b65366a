"""``pool bias`` and ``pool growth`` on a hand-checked three-run example, plus input errors.

Depth-2 pools, topic 1 (qrels a=1, b=1, x=1, c=0), topic 2 (y=1, every run ranks y first):

    run A: a c x   top 2 {a, c}     unique: c (judged non-relevant)
    run B: b a x   top 2 {b, a}     unique: b (relevant)
    run C: x a c   top 2 {x, a}     unique: x (relevant)

AP on topic 1 with R = 3: A (1 + 2/3)/3 = 5/9, B 1, C (1 + 1)/3 = 2/3; topic 2: 1 for all.
Without C's unique pair x (R = 2): A 1/2, B 1, C (1/2)/2 = 1/4. Means: A 7/9 -> 3/4,
B 1 -> 1, C 5/6 -> 5/8: C loses 5/24 and drops below A (a swap). Without B's b (R = 2):
A (1 + 2/3)/2 = 5/6, B (1/2 + 2/3)/2 = 7/12, C 1.
"""

from __future__ import annotations

import json

import numpy as np
import pytest
from cli_helpers import run_cli
from paths import EXAMPLES

import auditeval as ae
from auditeval.pooling.growth import pool_growth
from auditeval.pooling.pools import build_pools


@pytest.fixture()
def files(tmp_path):
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 1\n1 0 x 1\n1 0 c 0\n2 0 y 1\n")
    runs = []
    for name, docs in (("A", "acx"), ("B", "bax"), ("C", "xac")):
        p = tmp_path / name
        p.write_text("".join(f"1 Q0 {d} {i + 1} {3 - i} {name}\n" for i, d in enumerate(docs)) + f"2 Q0 y 1 1 {name}\n")
        runs.append(str(p))
    return str(q), runs, tmp_path


def test_bias_hand_checked(files):
    q, runs, _ = files
    code, out, err = run_cli("pool", "bias", q, *runs, "--depth", "2", "--trials", "2000", "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    assert doc["pool"] == "pool|depth=2|dups=error|self_hits=keep|sim=float32|ties=docno-desc"
    (m,) = doc["measures"]
    assert m["variant"].startswith("AP|ap_denom=R|depth=all|")
    assert [r["value"] for r in m["full"]] == pytest.approx([7 / 9, 1.0, 5 / 6], abs=1e-15)
    g = {x["group"]: x for x in m["groups"]}
    assert [(g[k]["unique_pairs"], g[k]["unique_relevant"]) for k in "ABC"] == [(1, 0), (1, 1), (1, 1)]
    # the scores without C are against the qrels less C's one unique judged pair (1 x, of 5 judgments)
    lp = dict(g["C"]["largest_penalty"])
    assert lp.pop("variant_reduced") == m["variant"] + "|qrels=without(C:-1/5)" == g["C"]["variant_reduced"]
    assert lp == pytest.approx({"run": "C", "full": 5 / 6, "reduced": 5 / 8, "penalty": 5 / 24})
    assert [r["value"] for r in g["C"]["reduced"]] == pytest.approx([3 / 4, 1.0, 5 / 8])
    assert g["B"]["largest_penalty"]["reduced"] == pytest.approx((7 / 12 + 1) / 2)
    (swap,) = g["C"]["swaps"]
    assert (swap["a"], swap["b"]) == ("A", "C")
    assert swap["full_gap"] == pytest.approx(7 / 9 - 5 / 6) and swap["reduced_gap"] == pytest.approx(3 / 4 - 5 / 8)
    # A - C per topic: -1/9 and 0; a resample reverses only when it draws topic 2 twice (p = 1/4, a tie:
    # half a reversal), so the swap probability is about 1/8, above alpha: within noise
    assert 0.09 < swap["swap_probability"] < 0.16 and swap["within_noise"]
    assert g["A"]["swaps"] == [] and g["A"]["largest_penalty"]["penalty"] == 0.0
    code, text, _ = run_cli("pool", "bias", q, *runs, "--depth", "2", "--trials", "200")
    assert "without C: A vs C: gap -0.0556 -> +0.1250" in text
    assert max(len(x) for x in text.splitlines()) <= 100


def test_bias_groups_file(files):
    q, runs, tmp = files
    groups = tmp / "groups.csv"
    groups.write_text("run,group\nA,team1\nB,team1\n")
    code, out, err = run_cli("pool", "bias", q, *runs, "--depth", "2", "--groups", str(groups), "--trials", "100",
                             "--format", "json")
    assert code == 0, err
    doc = json.loads(out)
    g = {x["group"]: x for x in doc["measures"][0]["groups"]}
    assert g["team1"]["runs"] == ["A", "B"] and g["C"]["runs"] == ["C"]
    assert (g["team1"]["unique_pairs"], g["team1"]["unique_relevant"]) == (2, 1)  # b and c; a is also C's
    assert any("not listed form a group each: C" in n for n in doc["notes"])
    groups.write_text("A,team1\nZ,team2\n")
    code, _, err = run_cli("pool", "bias", q, *runs, "--groups", str(groups))
    assert code == 2 and err.startswith(f"auditeval: error: {groups}:2: run 'Z' is not among the runs given")
    groups.write_text("A;team1\n")
    code, _, err = run_cli("pool", "bias", q, *runs, "--groups", str(groups))
    assert code == 2 and f"{groups}:1: expected 'run,group'" in err


def test_growth_hand_checked(tmp_path):
    """Four runs, depth 2; topic 1 qrels a, b, x, z relevant, c not; topic 2: y, found by all.

        A: a c z    (z at rank 3: only D pools it)     B: b a x     C: c x a     D: z b

    With every run pooled (R = 4): A = (1 + 2/3)/4 = 5/12, C = (1/2 + 2/3)/4 = 7/24: A ahead.
    Without D, z is unjudged: pool {A, C} has R = 2 (A 1/2, C 7/12), {A, B, C} R = 3 (A 1/3,
    C 7/18): C ahead. So A-C reverses in exactly the orders where D comes after both A and C.
    """
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 1\n1 0 x 1\n1 0 z 1\n1 0 c 0\n2 0 y 1\n")
    runs = []
    for name, docs in (("A", "acz"), ("B", "bax"), ("C", "cxa"), ("D", "zb")):
        p = tmp_path / name
        p.write_text("".join(f"1 Q0 {d} {i + 1} {3 - i} {name}\n" for i, d in enumerate(docs)) + f"2 Q0 y 1 1 {name}\n")
        runs.append(ae.read_run(p))
    rep = pool_growth(ae.read_qrels(q), runs, 2, ae.load_profile("trec_eval-9.0.8").convention, ae.parse_measure("AP"),
                      n_orders=60, seed=5)
    # B: b a x all relevant (3/4), D: z b (2/4); every run has AP 1 on topic 2
    assert rep.final.tolist() == pytest.approx([(5 / 12 + 1) / 2, (3 / 4 + 1) / 2, (7 / 24 + 1) / 2, (2 / 4 + 1) / 2], abs=1e-15)
    frame = rep.to_frame()  # tidy: one row per (order, step, run present)
    last = frame[(frame.order == 0) & (frame.systems == 4)].set_index("run").value
    assert last.to_dict() == pytest.approx({"A": 17 / 24, "B": 7 / 8, "C": 31 / 48, "D": 3 / 4}, abs=1e-15)
    assert len(frame) == 60 * (1 + 2 + 3 + 4)
    pos = np.argsort(rep.orders, axis=1)
    expected = (pos[:, 3] > np.maximum(pos[:, 0], pos[:, 2])).mean()
    a, b, share, _ = rep.pairs()
    k = [(x, y) for x, y in zip(a.tolist(), b.tolist(), strict=True)].index((0, 2))
    assert share[k] == expected and 0.15 < expected < 0.5
    # an order with D last: after A, C the scores are (1/2 + 1)/2 and (7/12 + 1)/2
    o = int(np.flatnonzero((rep.orders[:, 3] == 3) & (pos[:, 0] < pos[:, 2]))[0])
    step = int(pos[o, 2])  # 0-based step at which C (after A) joins
    got = rep.scores[o, step, [0, 2]].tolist()
    if step == 1:
        assert got == pytest.approx([3 / 4, 19 / 24])
    else:  # B came before: R = 3
        assert got == pytest.approx([(1 / 3 + 1) / 2, (7 / 18 + 1) / 2])


def test_text_views_fit_100_columns_and_carry_the_pool_variant(files):
    q, runs, _ = files
    for argv in (["stats", *runs, "--depth", "2", "--per-topic"], ["growth", q, *runs, "--depth", "2"],
                 ["coverage", q, *runs, "--depth", "2"]):
        code, out, err = run_cli("pool", *argv)
        assert code == 0, err
        assert max(len(x) for x in out.splitlines()) <= 100
        assert out.startswith("pool: pool|depth=2|dups=error|self_hits=keep|sim=float32|ties=docno-desc\n")
    code, out, _ = run_cli("pool", "stats", *runs, "--depth", "2", "--orders", "10")
    # A {a, c}, B {b, a}, C {x, a} on topic 1 and {y} each on topic 2: 9 pairs unpooled,
    # 5 pooled (a, b, c, x, y): reuse 1 - 5/9
    assert "unpooled cost 9 pairs" in out and "pooled cost 5 pairs; reuse rate 1 - pooled / unpooled = 44.44%" in out


def test_pools_of_more_than_63_systems():
    """System sets span several 63-bit words: marginal and unique costs against plain sets."""
    rng = np.random.default_rng(4)
    runs, sets = [], []
    for r in range(70):
        docs = {t: rng.choice(40, size=5, replace=False) for t in ("1", "2")}
        runs.append(ae.run_from({t: {f"d{d}": float(10 - i) for i, d in enumerate(ds)} for t, ds in docs.items()}, name=f"r{r}"))
        sets.append({(t, f"d{d}") for t, ds in docs.items() for d in ds[:3]})
    pools = build_pools(runs, 3, ae.load_profile("trec_eval-9.0.8").convention)
    assert pools.pooled == len(set().union(*sets)) and pools.unpooled == 70 * 6
    for i in (0, 40, 69):
        assert pools.unique()[i] == len(sets[i] - set().union(*(s for j, s in enumerate(sets) if j != i)))
    order = rng.permutation(70)
    added, _ = pools.marginal(order[None, :])
    seen: set = set()
    for step, s in enumerate(order):
        assert added[0, step] == len(sets[s] - seen)
        seen |= sets[s]


def test_stats_plot(files):
    q, runs, tmp = files
    code, _, err = run_cli("pool", "stats", *runs, "--depth", "2", "--plot", str(tmp / "p.txt"))
    assert code == 2 and "--plot writes .png or .svg" in err
    code, out, err = run_cli("pool", "stats", *runs, "--depth", "2", "--orders", "5", "--plot", str(tmp / "p.png"),
                             "--format", "json")
    assert code == 0, err
    assert json.loads(out)["plot"] == str(tmp / "p.png")
    assert (tmp / "p.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_bias_rbp_equals_eval_under_one_variant_string():
    """``pool bias`` prints the full-pool RBP of each run under the same variant string as
    ``auditeval eval``, so the two numbers must be equal. RBP's gain is the grade (spec
    ``fixed={"gain": "linear"}``): nDCG's ``gain=exp2`` must not leak into it (it did when
    pooling called the kernel directly: bm25 0.24345). 0.28429 is bm25's RBP on the bundled
    examples (p = 0.9, rbp_gain=minmax); trec_eval 10.0 ``-m rbp`` prints 0.2843."""

    ex = EXAMPLES
    q, bm25, rerank = str(ex / "qrels.txt"), str(ex / "bm25.txt"), str(ex / "rerank.txt")
    code, out, err = run_cli("eval", q, bm25, "-m", "RBP", "--set", "gain=exp2", "--format", "json")
    assert code == 0, err
    (row,) = [v for v in json.loads(out)["values"] if v["run"] == "bm25" and v["topic"] == "all"]
    code, out, err = run_cli("pool", "bias", q, bm25, rerank, "-m", "RBP", "--set", "gain=exp2", "--format", "json")
    assert code == 0, err
    (block,) = json.loads(out)["measures"]
    (full,) = [r["value"] for r in block["full"] if r["run"] == "bm25"]
    assert block["variant"] == row["variant"]
    assert "rbp_gain=minmax" in row["variant"] and "gain=exp2" not in row["variant"].replace("rbp_gain", "")
    assert full == row["value"]
    assert round(full, 5) == 0.28429
