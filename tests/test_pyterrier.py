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
