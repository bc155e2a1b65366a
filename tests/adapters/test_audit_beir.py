"""BEIR as an audit reference: the real ``EvaluateRetrieval.evaluate`` (beir 2.2, installed
with --no-deps beside pytrec-eval-terrier) in a child process, its means rounded to 5
decimals compared as printed. Two topics, hand-checked:

q1 ranks ``q1`` (a self hit, judged relevant), d1 (relevant), d2 (not); q2 ranks d4
(relevant), x (unjudged), d3 (relevant); R = 2 for both topics.
BEIR's default drops the self hit (q1 -> d1, d2): P@2 = (1/2 + 1/2) / 2 = 0.5, R@2 = 0.5;
``ignore_identical_ids=False`` keeps it (q1 -> q1, d1): P@2 = (2/2 + 1/2) / 2 = 0.75, R@2 = 0.75.
"""

from __future__ import annotations

import copy
import json

from cli_helpers import run_cli

from auditeval.adapters import ADAPTERS
from auditeval.adapters.runner import Request, run_one
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure

QRELS = "q1 0 d1 1\nq1 0 d2 0\nq1 0 q1 1\nq2 0 d3 1\nq2 0 d4 1\n"
RUN = "q1 Q0 q1 1 3 r\nq1 Q0 d1 2 2 r\nq1 Q0 d2 3 1 r\nq2 Q0 d4 1 2 r\nq2 Q0 x 2 1.5 r\nq2 Q0 d3 3 1 r\n"


def _files(tmp_path):
    q, r = tmp_path / "qrels", tmp_path / "run"
    q.write_text(QRELS)
    r.write_text(RUN)
    return q, r


def test_audit_runs_beir_and_agrees_under_its_profile(tmp_path):
    from beir.retrieval.evaluation import EvaluateRetrieval

    q, r = _files(tmp_path)
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(q), str(r), "--against", "beir", "-m", "P@2", "-m", "R@2", "-m", "nDCG@3",
                           "-m", "AP", "--format", "json", "-o", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    rows = {x["measure"]: x for x in doc["agreement"] if x["engine"] == "beir"}
    assert set(rows) == {"P@2", "R@2", "nDCG@3"}  # AP without a cut-off: BEIR has no such measure
    assert (rows["P@2"]["value"], rows["R@2"]["value"]) == ("0.50000", "0.50000")  # hand: self hit dropped
    assert all(x["status"] == "match" and "self_hits=drop" in x["variant"] for x in rows.values())
    qrels = {"q1": {"d1": 1, "d2": 0, "q1": 1}, "q2": {"d3": 1, "d4": 1}}
    run = {"q1": {"q1": 3.0, "d1": 2.0, "d2": 1.0}, "q2": {"d4": 2.0, "x": 1.5, "d3": 1.0}}
    ndcg, _, _, _ = EvaluateRetrieval.evaluate(copy.deepcopy(qrels), copy.deepcopy(run), [3])
    assert rows["nDCG@3"]["value"] == f"{ndcg['NDCG@3']:.5f}"
    assert abs(rows["nDCG@3"]["native"] - ndcg["NDCG@3"]) < 0.5e-5
    beir = next(e for e in doc["engines"] if e["name"] == "beir")
    assert (beir["status"], beir["profile"], beir["computes"]) == ("ok", "beir-2.2", ["P@2", "R@2", "nDCG@3"])
    assert beir["unsupported"] == ["AP: unsupported: beir does not compute AP"]


def test_beir_keeps_self_hits_through_its_own_option(tmp_path):
    q, r = _files(tmp_path)
    a = ADAPTERS["beir"]
    keep = resolve("beir-2.2", ["self_hits=keep"])
    plans = {m: a.plan(parse_measure(m), keep) for m in ("P@2", "R@2")}
    assert {p.options for p in plans.values()} == {("ignore_identical_ids=False",)}
    assert not any(p.rewrite for p in plans.values())
    reqs = [Request(m, str(r), p.tool_measure, p.options) for m, p in plans.items()]
    out = run_one(a, str(q), reqs)
    assert out.status == "ok", out.message
    assert {k: v["aggregate"] for k, v in out.values.items()} == {"P@2": "0.75000", "R@2": "0.75000"}


def test_beir_plans_only_what_it_computes():
    a = ADAPTERS["beir"]
    own = a.own()
    assert a.plan(parse_measure("nDCG@10"), own).tool_measure == "NDCG@10"
    assert a.plan(parse_measure("AP@100"), own).tool_measure == "MAP@100"
    assert a.plan(parse_measure("AP"), own).unsupported == "unsupported: beir does not compute AP"
    assert a.plan(parse_measure("P@10"), own.replace(rel=2)).unsupported.startswith(
        "unsupported: rel=2 needs a tool with rel=2 (beir is fixed at 1)")


MSMARCO = "q1\tq1\t1\nq1\td1\t2\nq1\td2\t3\nq2\td4\t1\nq2\tx\t2\nq2\td3\t3\n"  # the run above as qid pid rank


def test_commands_read_msmarco_candidate_files_with_a_note(tmp_path):
    """A run file whose first line has 3 fields is an MS MARCO candidate file (score = -rank):
    eval reads it (plain or gzip) and says so; P@2 keeps the self hit under trec_eval-9.0.8:
    (2/2 + 1/2) / 2 = 0.75."""
    import gzip

    q, _ = _files(tmp_path)
    for name, data in (("m.tsv", MSMARCO.encode()), ("m.tsv.gz", gzip.compress(MSMARCO.encode()))):
        path = tmp_path / name
        path.write_bytes(data)
        code, out, err = run_cli("eval", str(q), str(path), "-m", "P@2", "--format", "tsv")
        assert code == 0, err
        row = [ln.split("\t") for ln in out.splitlines() if ln.startswith(name)]
        assert [(r[1], r[3]) for r in row] == [("P@2", "0.75")]
        assert f"{path}: read as an MS MARCO candidate file (qid pid rank): score = -rank" in err


def test_audit_hands_the_tools_a_trec_copy_of_a_candidate_file(tmp_path, trec_eval_bins):
    q, _ = _files(tmp_path)
    m = tmp_path / "m.tsv"
    m.write_text(MSMARCO)
    out = tmp_path / "a.json"
    code, _, err = run_cli("audit", str(q), str(m), "--against", "pytrec_eval,beir,trec_eval", "--trec-eval",
                           str(trec_eval_bins["9.0.8"]), "-m", "P@2", "--format", "json", "-o", str(out))
    assert code == 0, err
    doc = json.loads(out.read_text())
    rows = {x["engine"]: (x["status"], x["value"]) for x in doc["agreement"]}
    assert rows == {"pytrec_eval": ("match", 0.75), "beir": ("match", "0.50000"), "trec_eval-9.0.8": ("match", "0.7500")}
    assert any(n.startswith(f"{m}: an MS MARCO candidate file (qid pid rank); every reference read a TREC copy")
               for n in doc["notes"])
