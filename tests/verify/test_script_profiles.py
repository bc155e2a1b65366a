"""Profiles of the evaluation scripts papers cite: beir-2.2, msmarco_eval-passage,
msmarco_eval-document, pyserini-trec_eval, trec-dl.

References: BEIR's real ``EvaluateRetrieval.evaluate`` (beir 2.2.0, on pytrec_eval); the real
trec_eval 9.0.8 binary (for pyserini.eval.trec_eval, which shells out to the trec_eval inside
jtreceval, and for the TREC DL settings); for the MS MARCO scripts (pyserini downloads them at
import, so they are not importable here) a plain-Python model written from their source,
anserini-tools scripts/msmarco/msmarco_passage_eval.py:46-138 and msmarco_doc_eval.py:67-164
(the model was also checked by hand against the real scripts on these files).
"""

from __future__ import annotations

import copy
import gzip
import subprocess
from pathlib import Path

import pytest

import auditeval as ae
from auditeval.io.memory import qrels_from, run_from
from auditeval.io.readers import parse_run, read_run
from auditeval.verify.claims import parse_claim, verify_claim
from auditeval.vocab.conventions import load_profile


def _robust(ROBUST: Path, run: str = "input.MU03rob01.gz") -> tuple[dict, dict]:
    qrels: dict[str, dict[str, int]] = {}
    for ln in open(ROBUST / "qrels.robust03.txt"):
        t, _, d, g = ln.split()
        qrels.setdefault(t, {})[d] = int(g)
    res: dict[str, dict[str, float]] = {}
    with gzip.open(ROBUST / "runs" / run, "rt") as fh:
        for ln in fh:
            t, _, d, _r, s, _tag = ln.split()
            res.setdefault(t, {})[d] = float(s)
    return qrels, res


# ---------------------------------------------------------------------------------- BEIR

K = [1, 3, 5, 10, 100, 1000]


def test_beir_evaluate_matches_profile_on_robust03(robust03):
    ROBUST = robust03.dir
    from beir.retrieval.evaluation import EvaluateRetrieval

    qrels, res = _robust(ROBUST)
    # self hits: a document whose id is the query id, on top of 20 topics (10 of them judged
    # relevant there), which BEIR's ignore_identical_ids=True removes before pytrec_eval
    for i, t in enumerate(sorted(res)[:20]):
        res[t][t] = max(res[t].values()) + 1.0
        if i % 2 == 0:
            qrels[t][t] = 1
    ndcg, _map, recall, prec = EvaluateRetrieval.evaluate(copy.deepcopy(qrels), copy.deepcopy(res), K)
    ours = ae.evaluate(qrels, res, [f"{m}@{k}" for m in ("nDCG", "AP", "R", "P") for k in K], profile="beir-2.2")
    digits = load_profile("beir-2.2").print_digits
    assert digits == 5
    n = 0
    for name, table in (("nDCG", ndcg), ("AP", _map), ("R", recall), ("P", prec)):
        for (key, value), k in zip(table.items(), K, strict=True):
            ours_v = ours.get(f"{name}@{k}").value
            assert round(ours_v, digits) == value, (key, ours_v, value)  # BEIR's printed precision
            n += 1
    assert n == 24
    assert "self_hits=drop" in ours.get("nDCG@10").variant.__str__()
    # the self hits matter: without dropping them nDCG@10 moves far beyond the rounding
    keep = ae.evaluate(qrels, res, ["nDCG@10"], profile="beir-2.2", settings=["self_hits=keep"]).get("nDCG@10").value
    assert abs(keep - ndcg["NDCG@10"]) > 1e-3


def _p1_data(n: int, hits: int) -> tuple[dict, dict]:
    """n topics, one retrieved document each, relevant for the first ``hits``: P@1 = hits/n."""
    qrels = {f"q{i}": {"rel": 1} for i in range(n)}
    run = {f"q{i}": {"rel" if i < hits else "other": 1.0} for i in range(n)}
    return qrels, run


def test_verify_finds_a_number_only_beirs_rounding_gives():
    from beir.retrieval.evaluation import EvaluateRetrieval

    # P@1 = 5/11 = 0.454545...; BEIR returns round(., 5) = 0.45455, which a paper printing 4
    # decimals writes 0.4546; the unrounded mean prints 0.4545
    qrels, run = _p1_data(11, 5)
    beir_p1 = EvaluateRetrieval.evaluate(copy.deepcopy(qrels), copy.deepcopy(run), [1])[3]["P@1"]
    assert beir_p1 == 0.45455 and f"{beir_p1:.4f}" == "0.4546" and f"{5 / 11:.4f}" == "0.4545"
    v = verify_claim(qrels_from(qrels), run_from(run), parse_claim("P@1=0.4546"), {}, max_departures=1)
    assert v.reproduced, "verify found no variant"
    found = [c for f in v.reproduced for c in (f.candidate, *f.equivalent)]
    assert all(c.digits == 5 and c.profile == "beir-2.2" for c in found)
    assert v.reproduced[0].label == "beir-2.2 (aggregate rounded to 5 decimals)"
    assert v.reproduced[0].value == 0.45455
    # the unrounded number is found under the ordinary profiles
    v2 = verify_claim(qrels_from(qrels), run_from(run), parse_claim("P@1=0.4545"), {}, max_departures=0)
    assert v2.reproduced and v2.reproduced[0].candidate.digits is None


# ------------------------------------------------------------------------- MS MARCO scripts

def _passage_model(ref: list[tuple[str, str, str, str]], cand: list[tuple[str, str, str]]) -> tuple[float, dict[int, float]]:
    """msmarco_passage_eval.py, modelled: every reference line relevant (grade unread, l.26-32),
    pid placed at slot rank-1 of 1000 (l.54-64), 1/(i+1) for the first relevant slot i < 10
    (l.121-131), sum over candidate queries with a reference / number of reference queries (l.135)."""
    relevant: dict[int, set[int]] = {}
    for q, _, d, _g in ref:
        relevant.setdefault(int(q), set()).add(int(d))
    slots: dict[int, list[int]] = {}
    for q, d, r in cand:
        slots.setdefault(int(q), [0] * 1000)[int(r) - 1] = int(d)
    per = {q: next((1 / (i + 1) for i in range(10) if s[i] in relevant[q]), 0.0) for q, s in slots.items() if q in relevant}
    return sum(per.values()) / len(relevant), per


def _doc_model(ref: list[tuple[str, str, str, str]], cand: list[tuple[str, str, str]]) -> tuple[float, dict[int, float]]:
    """msmarco_doc_eval.py, modelled: every reference line relevant (l.39-45), each query's
    (docid, rank) sorted by (rank, docid) (l.89), 1/(i+1) for the first relevant position over
    the whole list (l.147-157), / number of reference queries (l.161)."""
    relevant: dict[int, set[str]] = {}
    for q, _, d, _g in ref:
        relevant.setdefault(int(q), set()).add(d)
    lists: dict[int, list[tuple[str, int]]] = {}
    for q, d, r in cand:
        lists.setdefault(int(q), []).append((d, int(r)))
    per = {}
    for q, lst in lists.items():
        if q in relevant:
            ranked = sorted(lst, key=lambda x: (x[1], x[0]))
            per[q] = next((1 / (i + 1) for i, (d, _) in enumerate(ranked) if d in relevant[q]), 0.0)
    return sum(per.values()) / len(relevant), per


# qrels: q1 rel 12 (grade 0: the scripts count it relevant) and 15; q2 rel 21; q3 (no candidates)
REF = [("1", "0", "12", "0"), ("1", "0", "15", "1"), ("2", "0", "21", "1"), ("3", "0", "31", "1")]


def _files(tmp_path: Path, ref, cand) -> tuple[Path, Path]:
    q = tmp_path / "qrels.txt"
    q.write_text("".join(" ".join(r) + "\n" for r in ref))
    c = tmp_path / "cand.tsv"
    c.write_text("".join("\t".join(r) + "\n" for r in cand))
    return q, c


def _cand_rows() -> list[tuple[str, str, str]]:
    rows = [("1", "11", "1"), ("1", "12", "2"), ("1", "15", "3")]
    rows += [("2", d, str(r)) for r, d in enumerate(["20", "22", "23", "24", "25", "26", "27", "28", "29", "30", "21"], 1)]
    rows += [("4", "40", "1")]  # a candidate query without reference: ignored
    return rows


@pytest.mark.parametrize("profile,measure,model", [("msmarco_eval-passage", "RR@10", _passage_model),
                                                   ("msmarco_eval-document", "RR", _doc_model)])
def test_msmarco_scripts_match_profiles(tmp_path, profile, measure, model):
    cand = _cand_rows()
    q, c = _files(tmp_path, REF, cand)
    run = read_run(c, format="auto")
    assert any("MS MARCO candidate file" in n for n in run.notes)
    # the grade-0 line the scripts count relevant: --set rel=0 ([sources] rel of the profiles)
    res = ae.evaluate(q, run, [measure], profile=profile, settings=["rel=0"])
    agg, per = model(REF, cand)
    # by hand: q1 1/2 (12, grade 0, at rank 2), q2 passage 0 (21 at rank 11 > 10) / document 1/11, q3 0
    assert agg == pytest.approx((0.5 + (0.0 if measure == "RR@10" else 1 / 11)) / 3, abs=1e-15)
    assert res.get(measure).value == pytest.approx(agg, abs=1e-15)
    for qid, value in per.items():
        assert res.get(measure, topic=str(qid)).value == pytest.approx(value, abs=1e-15)
    assert res.get(measure, topic="3").value == 0.0  # a reference query without candidates


def test_msmarco_document_on_robust03_rank_column(tmp_path, robust03):
    """The document script on a robust03 run converted to qid docid rank (its own rank column)."""
    ROBUST = robust03.dir
    ref = [tuple(ln.split()) for ln in open(ROBUST / "qrels.robust03.txt") if not ln.endswith(" 0\n")]
    with gzip.open(ROBUST / "runs" / "input.MU03rob01.gz", "rt") as fh:
        cand = [(f[0], f[2], f[3]) for f in (ln.split() for ln in fh)]
    q, c = _files(tmp_path, ref, cand)
    res = ae.evaluate(q, read_run(c, format="msmarco"), ["RR"], profile="msmarco_eval-document")
    agg, per = _doc_model(ref, cand)
    assert res.get("RR").value == pytest.approx(agg, abs=1e-12)
    assert all(res.get("RR", topic=str(t)).value == pytest.approx(v, abs=1e-12) for t, v in per.items())


def test_msmarco_reader_notes_what_the_scripts_read_differently():
    run = parse_run(b"1\t7\t1\n1\t8\t3\n1\t9\t3\n2\t5\t0\n", "c.tsv", format="msmarco")
    assert list(run.table.column("score").to_pylist()) == [-1.0, -3.0, -3.0, -0.0]
    text = " ".join(run.notes)
    assert "not 1..n (gaps)" in text and "rank given twice" in text and "outside 1..1000" in text
    with pytest.raises(ValueError, match="run format"):
        parse_run(b"1 7 1\n", format="tsv")
    trec = parse_run(b"1 Q0 a 1 2.5 t\n", "r.txt", format="auto")
    assert trec.table.column("score").to_pylist() == [2.5] and trec.name == "t"


def test_verify_finds_a_number_only_the_rank_column_gives():
    # scores and rank column disagree: by score the relevant doc is first (RR 1), by the rank
    # column second (RR 1/2); three topics
    lines = []
    for t in ("1", "2", "3"):
        lines.append(f"{t} Q0 n{t} 1 1.0 r\n{t} Q0 r{t} 2 5.0 r\n")
    run = parse_run("".join(lines).encode(), "r.txt")
    qrels = qrels_from({t: {f"r{t}": 1} for t in ("1", "2", "3")})
    v = verify_claim(qrels, run, parse_claim("MRR@10=0.5000"), {}, max_departures=1)
    assert v.reproduced
    first = v.reproduced[0]
    assert first.departures == 0 and first.candidate.profile.startswith("msmarco_eval-")
    assert all(c.convention.ties == "rank" for f in v.reproduced for c in (f.candidate, *f.equivalent))
    by_score = verify_claim(qrels, run, parse_claim("MRR@10=1.0"), {}, max_departures=0)
    assert by_score.reproduced and by_score.reproduced[0].candidate.convention.ties != "rank"


# ------------------------------------------------------------------ pyserini and TREC DL

def _trec_eval(binary: Path, args: list[str], qrels: Path, run: Path) -> dict[tuple[str, str], float]:
    out = subprocess.run([str(binary), *args, str(qrels), str(run)], capture_output=True, text=True, check=True).stdout
    return {(f[0], f[1]): float(f[2]) for f in (ln.split() for ln in out.splitlines())}


def test_pyserini_trec_eval_remove_unjudged(tmp_path, trec_eval_bins, robust03):
    """pyserini.eval.trec_eval -remove-unjudged on an MS MARCO run: score = 1/rank
    (trec_eval.py:97-105), keep the (query, doc) pairs in the qrels (l.117-124), then trec_eval."""
    ROBUST = robust03.dir
    qrels_d, res = _robust(ROBUST)
    topics = sorted(res)[:30]
    cand = []
    for t in topics:
        ranked = sorted(res[t].items(), key=lambda x: (-x[1], x[0]))[:200]
        cand += [(t, d, str(r)) for r, (d, _) in enumerate(ranked, 1)]
    c = tmp_path / "run.msmarco.tsv"
    c.write_text("".join("\t".join(r) + "\n" for r in cand))
    judged = {(t, d) for t, docs in qrels_d.items() for d in docs}
    kept = [r for r in cand if (r[0], r[1]) in judged]
    assert 0 < len(kept) < len(cand)
    trec = tmp_path / "run.trec"
    trec.write_text("".join(f"{t}\tQ0\t{d}\t{r}\t{1 / int(r)}\tTEMPRUN\n" for t, d, r in kept))
    qrels = ROBUST / "qrels.robust03.txt"
    ref = _trec_eval(trec_eval_bins["9.0.8"], ["-q", "-m", "map", "-m", "P.10", "-m", "ndcg_cut.10", "-m", "recip_rank"],
                     qrels, trec)
    ours = ae.evaluate(qrels, read_run(c, format="msmarco"), ["AP", "P@10", "nDCG@10", "RR"],
                       profile="pyserini-trec_eval", settings=["unjudged=drop"])
    names = {"map": "AP", "P_10": "P@10", "ndcg_cut_10": "nDCG@10", "recip_rank": "RR"}
    n = 0
    for (m, t), value in ref.items():
        if m in names:
            assert round(ours.get(names[m], topic=t).value, 4) == pytest.approx(value, abs=1e-9), (m, t)
            n += 1
    assert n == 4 * 31
    plain = ae.evaluate(qrels, read_run(c, format="msmarco"), ["AP"], profile="pyserini-trec_eval").get("AP").value
    assert abs(plain - ref[("map", "all")]) > 1e-3  # -remove-unjudged moves the number


def test_trec_dl_profile_is_trec_eval_c_l2(tmp_path, trec_eval_bins, robust03):
    """trec-dl = pyserini/2cr/msmarco.py's DL passage commands: -c -l 2 for map, recall.1000 and
    recip_rank, -c for ndcg_cut.10; robust03 (grades 0-2) with 10 topics removed from the run."""
    ROBUST = robust03.dir
    run_path = tmp_path / "run.txt"
    with gzip.open(ROBUST / "runs" / "input.MU03rob01.gz", "rt") as fh:
        lines = fh.readlines()
    drop = sorted({ln.split()[0] for ln in lines})[:10]
    run_path.write_text("".join(ln for ln in lines if ln.split()[0] not in drop))
    qrels = ROBUST / "qrels.robust03.txt"
    binary = trec_eval_bins["9.0.8"]
    ref = _trec_eval(binary, ["-c", "-l", "2", "-m", "map", "-m", "recall.1000", "-m", "recip_rank"], qrels, run_path)
    ref |= _trec_eval(binary, ["-c", "-m", "ndcg_cut.10"], qrels, run_path)
    ours = ae.evaluate(qrels, run_path, ["AP", "R@1000", "RR", "nDCG@10"], profile="trec-dl")
    for m, name in (("map", "AP"), ("recall_1000", "R@1000"), ("recip_rank", "RR"), ("ndcg_cut_10", "nDCG@10")):
        assert round(ours.get(name).value, 4) == pytest.approx(ref[(m, "all")], abs=1e-9), m
    assert "rel=2" in str(ours.get("AP").variant) and "topics=qrels" in str(ours.get("AP").variant)
