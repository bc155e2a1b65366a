"""PyTerrier result frames in, auditeval results out.

The frames below have the columns PyTerrier's transformers return (qid, docid, docno, rank,
score, query) and its qrels (qid, docno, label). The same systems also run through
``pt.Experiment`` (python-terrier is in the test extra) and the numbers must agree.
"""

from __future__ import annotations

import pandas as pd
import pytest
from ir_measures import AP, nDCG

from auditeval.integrations.pyterrier_frames import audit_experiment, audit_frames, experiment_frame

TOPICS = pd.DataFrame({"qid": ["1", "2"], "query": ["apple pie", "banana"]})
QRELS = pd.DataFrame({"qid": ["1", "1", "2", "2"], "docno": ["d1", "d2", "d3", "d5"], "label": [1, 0, 2, 0]})


def _frame(qid_docs: dict[str, list[str]]) -> pd.DataFrame:
    rows = []
    for qid, docs in qid_docs.items():
        for i, d in enumerate(docs):
            rows.append({"qid": qid, "docid": int(d[1:]), "docno": d, "rank": i, "score": float(len(docs) - i),
                         "query": TOPICS.set_index("qid").loc[qid, "query"]})
    return pd.DataFrame(rows)


# system A: topic 1 d1 d2 (AP 1), topic 2 d3 d4 (AP 1) -> MAP 1
# system B: topic 1 d2 d1 (AP 1/2), topic 2 d4 d3 (AP 1/2) -> MAP 0.5
A = _frame({"1": ["d1", "d2"], "2": ["d3", "d4"]})
B = _frame({"1": ["d2", "d1"], "2": ["d4", "d3"]})


def test_audit_frames_by_hand():
    res = audit_frames({"A": A, "B": B}, QRELS, ["map", "nDCG@10", AP(rel=2)])
    got = {(v.run, v.measure): v.value for v in res.aggregates()}
    # AP(rel=2): only d3 (topic 2) is relevant at rel=2; topic 1 has R = 0 -> 0.
    # A: topic 2 AP 1 -> mean 0.5; B: d3 at rank 2 -> 1/2 -> mean 0.25.
    assert got[("A", "map")] == 1.0 and got[("B", "map")] == 0.5
    assert got[("A", "AP(rel=2)")] == 0.5 and got[("B", "AP(rel=2)")] == 0.25
    # nDCG@10 of B, topic 1: gains 0,1 -> (1/log2 3) / 1; topic 2: gains 0,2 -> (2/log2 3) / 2
    import math

    assert got[("B", "nDCG@10")] == pytest.approx(1 / math.log2(3), abs=1e-15)
    table = experiment_frame(res)
    assert list(table.columns) == ["name", "map", "nDCG@10", "AP(rel=2)"]
    assert table.set_index("name").loc["B", "map"] == 0.5
    assert table.attrs["variants"]["AP(rel=2)"].startswith("AP|") and "|rel=2|" in table.attrs["variants"]["AP(rel=2)"]
    assert table.attrs["profile"] == "ir_measures-0.4"


def test_audit_experiment_with_transformer_like_objects():
    class FromFrame:  # what pt.Transformer.from_df does: filter a frame by the topics given
        def __init__(self, df: pd.DataFrame):
            self.df = df

        def transform(self, topics: pd.DataFrame) -> pd.DataFrame:
            return self.df[self.df.qid.isin(topics.qid)]

    res = audit_experiment([FromFrame(A), FromFrame(B)], TOPICS, QRELS, [nDCG(dcg="exp-log2") @ 10], names=["A", "B"])
    got = {v.run: v for v in res.aggregates()}
    # exp2 gains 2^g - 1: B topic 2: d3 (grade 2, gain 3) at rank 2 -> (3/log2 3) / 3
    assert got["B"].value == pytest.approx(1 / __import__("math").log2(3), abs=1e-15)
    assert "|gain=exp2|" in str(got["B"].variant)


def test_numbers_agree_with_pt_experiment():
    import pyterrier as pt  # python-terrier is in the test extra

    systems = [pt.Transformer.from_df(A), pt.Transformer.from_df(B)]
    metrics = ["map", "ndcg_cut_10", "P_1", "recip_rank"]
    theirs = pt.Experiment(systems, TOPICS, QRELS, eval_metrics=metrics, names=["A", "B"]).set_index("name")
    ours = experiment_frame(audit_experiment(systems, TOPICS, QRELS, metrics, names=["A", "B"])).set_index("name")
    for name in ("A", "B"):
        for m in metrics:
            assert ours.loc[name, m] == pytest.approx(theirs.loc[name, m], abs=1e-12), (name, m)


# Ties decide RR@k and Judged@k: ir_measures sends them to its msmarco and judged providers
# (ties by docno ascending), RR without a cut-off to pytrec_eval (docno descending).
# topic 1: d1 d2 d3 d4 all score 1; judged d1 (0), d2 (0), d3 (1).
#   docno-asc d1 d2 d3 d4: RR@10 1/3, Judged@2 2/2;  docno-desc d4 d3 d2 d1: RR 1/2 (Judged@2 1/2)
# topic 2: d5 score 2, then d6, d7 score 1; judged d6 (0), d7 (1).
#   docno-asc d5 d6 d7: RR@10 1/3, Judged@2 1/2;     docno-desc d5 d7 d6: RR 1/2
# -> RR@10 = 1/3, RR = 1/2, Judged@2 = (1 + 1/2) / 2 = 0.75 (one tie rule for all: 1/2, 1/2, 1/2)
TIE_QRELS = pd.DataFrame({"qid": ["1", "1", "1", "2", "2"], "docno": ["d1", "d2", "d3", "d6", "d7"],
                          "label": [0, 0, 1, 0, 1]})
TIE_RUN = pd.DataFrame({"qid": ["1"] * 4 + ["2"] * 3, "docno": ["d4", "d2", "d3", "d1", "d7", "d5", "d6"],
                        "score": [1.0, 1.0, 1.0, 1.0, 1.0, 2.0, 1.0], "rank": [0, 1, 2, 3, 1, 0, 2]})


def test_routed_measures_by_hand_on_a_run_with_ties():
    from ir_measures import RR, Judged

    res = audit_frames({"T": TIE_RUN}, TIE_QRELS, [RR @ 10, RR, Judged @ 2])
    got = {v.measure: v for v in res.aggregates()}
    assert got["RR@10"].value == pytest.approx(1 / 3, abs=1e-15) and "|ties=docno-asc|" in str(got["RR@10"].variant)
    assert got["RR"].value == 0.5 and "|ties=docno-desc|" in str(got["RR"].variant)
    assert got["Judged@2"].value == 0.75 and "|ties=docno-asc|" in str(got["Judged@2"].variant)


def _experiment_equal(frames: dict, topics: pd.DataFrame, qrels: pd.DataFrame, metrics: list, tol: dict) -> None:
    import pyterrier as pt  # python-terrier is in the test extra

    systems = [pt.Transformer.from_df(f) for f in frames.values()]
    names = list(frames)
    theirs = pt.Experiment(systems, topics, qrels, eval_metrics=metrics, names=names).set_index("name")
    ours = experiment_frame(audit_experiment(systems, topics, qrels, metrics, names=names)).set_index("name")
    assert len(theirs.columns) == len(metrics)
    for name in names:
        for m in theirs.columns:
            assert ours.loc[name, m] == pytest.approx(theirs.loc[name, m], abs=tol.get(m, 1e-12), rel=0), (name, m)


def test_pt_experiment_on_a_run_with_ties():
    from ir_measures import RR, Judged, P

    topics = pd.DataFrame({"qid": ["1", "2"], "query": ["a", "b"]})
    _experiment_equal({"T": TIE_RUN}, topics, TIE_QRELS, [RR @ 10, RR, Judged @ 2, P @ 2, "map"], {})


def test_pt_experiment_on_robust03(robust03):
    """Every measure ``pt.Experiment`` takes that auditeval computes, on MU03rob01 (integer
    scores, ties everywhere): the frames under the default profile equal its table to 1e-12
    (RR@10 0.6476071428571427, Judged@10 0.986: ties by docno ascending, routed), ERR@10 to
    5e-6 (gdeval.pl prints 5 decimals per topic; ir_measures averages those). Not compared:
    Accuracy: pt.Experiment divides the sum of the values its provider yields by the number of
    topics (0.698610 on MU03rob01), so a topic without a relevant document in the top k counts
    0, while ir_measures.calc_aggregate (and auditeval) leave it out (0.705667 = 0.698610 / 0.99)."""
    from ir_measures import (
        AP,
        ERR,
        INST,
        NERR8,
        RBP,
        RR,
        SDCG,
        Bpref,
        Compat,
        Judged,
        NumRet,
        P,
        R,
        Rprec,
        Success,
        infAP,
    )

    d = robust03.dir
    cols = ["qid", "Q0", "docno", "rank", "score", "tag"]
    run = pd.read_csv(d / "runs" / "input.MU03rob01.gz", sep=r"\s+", header=None, names=cols, dtype={"qid": str, "docno": str})
    qrels = pd.read_csv(d / "qrels.robust03.txt", sep=r"\s+", header=None, names=["qid", "it", "docno", "label"],
                        dtype={"qid": str, "docno": str})
    topics = pd.DataFrame({"qid": sorted(qrels.qid.unique()), "query": "q"})
    metrics = [AP, nDCG @ 10, P @ 10, R @ 1000, RR, RR @ 10, Judged @ 10, Bpref, Success @ 10, Rprec, infAP, NumRet,
               Compat, RBP(rel=1), SDCG(max_rel=2) @ 10, NERR8(max_rel=2) @ 10, INST(max_rel=2), ERR @ 10,
               nDCG(dcg="exp-log2") @ 10, "P_5", "ndcg_cut_20"]
    _experiment_equal({"MU03rob01": run[["qid", "docno", "score", "rank"]]}, topics, qrels, metrics,
                      {"ERR@10": 5e-6, "nDCG(dcg='exp-log2')@10": 5e-6})
