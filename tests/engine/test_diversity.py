"""Intent-aware measures (every one pyndeval 0.0.8 reports: alpha_DCG, alpha_nDCG, ERR_IA, nERR_IA,
NRBP, nNRBP, AP_IA (MAP-IA), P_IA, StRecall) against pyndeval per topic (doubles to 1e-12), on
hand-checked examples, seeded random cases over a grid of alpha and beta, and a realistic size;
the subtopic qrels readers and writer; refusals; the measures that are not intent-aware read a
subtopic qrels line by line (trec_eval's refusal, ir_measures' pytrec_eval provider)."""

from __future__ import annotations

import math
import random
import re
import subprocess

import numpy as np
import pyndeval
import pytest
from cli_helpers import run_cli

import auditeval as ae
from auditeval.io import parse_qrels, read_qrels, write_qrels
from auditeval.vocab.errors import InputError, MeasureSyntaxError
from auditeval.vocab.specs import SPECS

# auditeval spelling -> pyndeval name
CUT = {"alpha_nDCG": "alpha-nDCG", "ERR_IA": "ERR-IA", "P_IA": "P-IA", "StRecall": "strec"}


def write(path, lines):
    path.write_text("".join(" ".join(map(str, x)) + "\n" for x in lines))
    return str(path)


def pyndeval_topics(qrels, run, name, rel=1, alpha=0.5, beta=0.5):
    """pyndeval's per-topic values: qrels (topic, subtopic, doc, grade), run (topic, doc, score)
    grouped by topic; alpha and beta are ndeval's globals, read by every measure of the evaluator
    (ERR_IA without alpha= is ERR-IA at 0.5)."""
    grouped = sorted(run, key=lambda r: r[0])
    ev = pyndeval.RelevanceEvaluator(qrels, [name], relevance_level=rel, alpha=alpha, beta=beta)
    return {t: v[name] for t, v in ev.evaluate(grouped).items()}


def ours(qrels_path, run_path, measure, profile="pyndeval-0.0"):
    df = ae.evaluate(qrels_path, run_path, [measure], profile=profile).to_frame()
    return {t: v for t, v in zip(df.topic, df.value, strict=True) if t != "all"}


# ------------------------------------------------------------------ (a) by hand
HAND_QRELS = [("1", "A", "d1", 1), ("1", "B", "d1", 1), ("1", "A", "d2", 1), ("1", "B", "d3", 1), ("1", "A", "d4", 0)]
HAND_RUN = [("1", "d2", 3.0), ("1", "d1", 2.0), ("1", "d3", 1.0)]


@pytest.mark.parametrize(
    ("measure", "expected"),
    [
        # run gains (alpha 0.5): d2 covers A: 1; d1 covers A again (0.5) and B: 1.5; d3 covers B again: 0.5.
        # the greedy ideal: d1 (2), then d2 / d3 tie at 0.5 (the greater doc id d3 first), then d2 (0.5)
        ("alpha_nDCG@1", 1 / 2),
        ("alpha_nDCG@2", (1 + 1.5 / math.log2(3)) / (2 + 0.5 / math.log2(3))),
        ("alpha_nDCG@3", (1 + 1.5 / math.log2(3) + 0.5 / 2) / (2 + 0.5 / math.log2(3) + 0.5 / 2)),  # 0.85614
        ("ERR_IA@1", 1.0),  # rank 1 is not normalised (ndeval.c:656)
        ("ERR_IA@3", (1 / 1 + 1.5 / 2 + 0.5 / 3) / (2 / 1 + 1 / 2 + 0.5 / 3)),  # 0.71875
        ("NRBP", (1 + 1.5 * 0.5 + 0.5 * 0.25) * (1 - 0.5 * 0.5) / 2),  # 0.703125
        ("P_IA@3", 4 / (3 * 2)),
        ("P_IA@5", 4 / (5 * 2)),
        ("StRecall@1", 1 / 2),
        ("StRecall@2", 1.0),
    ],
)
def test_hand_checked_three_document_example(tmp_path, measure, expected):
    q = write(tmp_path / "q.txt", HAND_QRELS)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, i + 1, s, "run") for i, (t, d, s) in enumerate(HAND_RUN)])
    assert abs(ours(q, r, measure)["1"] - expected) < 1e-15
    name = measure.split("@")[0]
    theirs = pyndeval_topics(HAND_QRELS, HAND_RUN, CUT.get(name, name) + measure[len(name):])
    assert abs(theirs["1"] - expected) < 1e-15


def test_a_run_can_beat_the_greedy_ideal(tmp_path):
    """d0 {B,D,E}, d1 {A,C,E}, d2 {A,B,E} all gain 3 first: the greedy ideal takes d2 (greatest
    doc id), then d1 (A .5, C 1, E .5 = 2; tied with d0, greater id): 3 + 2/log2(3). The run d0,
    d1 gets 3 + (1 + 1 + .5)/log2(3): alpha_nDCG@2 = 1.0740 (alpha_nDCG is not bounded by 1)."""
    qrels = [("1", s, d, 1) for d, subs in (("d0", "BDE"), ("d1", "ACE"), ("d2", "ABE")) for s in subs]
    run = [("1", "d0", 2.0), ("1", "d1", 1.0)]
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 1, s, "x") for t, d, s in run])
    expected = (3 + 2.5 / math.log2(3)) / (3 + 2 / math.log2(3))
    assert abs(ours(q, r, "alpha_nDCG@2")["1"] - expected) < 1e-15 and expected > 1.074
    assert abs(pyndeval_topics(qrels, run, "alpha-nDCG@2")["1"] - expected) < 1e-15


def test_first_document_on_two_subtopics_gives_err_ia_at_1_of_2(tmp_path):
    """ndeval's ERR-IA@1 and alpha-DCG@1 are not divided by the ideal ideal (ndeval.c:656, 711)."""
    q = write(tmp_path / "q.txt", HAND_QRELS)
    r = write(tmp_path / "r.txt", [("1", "Q0", "d1", 1, 1.0, "run")])
    assert ours(q, r, "ERR_IA@1") == {"1": 2.0}
    assert pyndeval_topics(HAND_QRELS, [("1", "d1", 1.0)], "ERR-IA@1") == {"1": 2.0}


# ------------------------------------------------------------------ (b) seeded random cases
def _case(seed):
    rng = random.Random(seed)
    qrels, run = [], []
    for t in range(rng.randint(1, 5)):
        n_sub = rng.randint(1, 5)
        docs = list(dict.fromkeys(f"D{rng.randint(0, 40):03d}" for _ in range(rng.randint(1, 25))))
        for d in docs:
            for s in rng.sample(range(1, n_sub + 1), rng.randint(1, n_sub)):
                qrels.append((f"q{t}", str(s), d, rng.choice([0, 0, 1, 1, 2, 3, -1])))
        ranked = docs[: rng.randint(0, len(docs))] + [f"D{rng.randint(0, 60):03d}" for _ in range(rng.randint(0, 30))]
        for d in dict.fromkeys(ranked):
            run.append((f"q{t}", d, float(rng.choice([1, 2, 3, rng.random()]))))  # many ties
    rng.shuffle(qrels)
    return qrels, run


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(12))
def test_random_cases_agree_with_pyndeval_per_topic(tmp_path, seed):
    qrels, run = _case(seed)
    rng = random.Random(seed)
    rel, alpha, beta = rng.choice([0, 1, 2]), rng.choice([0.5, 0.3, 0.9, 1.0, 0.0]), rng.choice([0.5, 0.8])
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 0, repr(s), "x") for t, d, s in run])
    cases = [
        (f"alpha_nDCG(alpha={alpha},rel={rel})@{k}", f"alpha-nDCG@{k}") for k in (1, 5, 20)
    ] + [
        (f"ERR_IA(rel={rel})@{k}", f"ERR-IA@{k}") for k in (1, 10)
    ] + [
        (f"NRBP(alpha={alpha},beta={beta},rel={rel})", "NRBP"), (f"P_IA(rel={rel})@7", "P-IA@7"),
        (f"StRecall(rel={rel})@3", "strec@3"), (f"StRecall(rel={rel})@20", "strec@20"),
    ]
    df = ae.evaluate(q, r, [mine for mine, _ in cases], profile="pyndeval-0.0").to_frame()  # one call: shared stages
    for mine, theirs in cases:
        a = 0.5 if theirs.startswith("ERR") else alpha
        expected = pyndeval_topics(qrels, run, theirs, rel=rel, alpha=a, beta=beta)
        sub = df[(df.measure == str(ae.parse_measure(mine))) & (df.topic != "all")]
        got = dict(zip(sub.topic, sub.value, strict=True))
        assert set(got) == set(expected), mine
        assert max((abs(got[t] - v) for t, v in expected.items()), default=0.0) <= 1e-12, mine


# ------------------------------------------------------------------ (c) a realistic size
def test_fifty_topics_of_a_thousand_documents_and_five_subtopics(tmp_path):
    rng = np.random.default_rng(7)
    qrels, run = [], []
    for t in range(50):
        judged = rng.choice(1000, 150, replace=False)
        for d in judged:
            for s in np.flatnonzero(rng.random(5) < 0.5):
                qrels.append((str(t), str(s), f"doc{d}", int(rng.random() < 0.4)))
        scores = np.round(rng.random(1000), 3)  # ties at 3 decimals
        run += [(str(t), f"doc{d}", float(scores[d])) for d in range(1000)]
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 0, repr(s), "x") for t, d, s in run])
    res = ae.evaluate(q, r, ["alpha_nDCG@20", "ERR_IA@20", "NRBP", "P_IA@20", "StRecall@20"], profile="pyndeval-0.0")
    df = res.to_frame()
    ev = pyndeval.RelevanceEvaluator(qrels, ["alpha-nDCG@20", "ERR-IA@20", "NRBP", "P-IA@20", "strec@20"])
    expected = ev.evaluate(run)
    assert len(expected) == 50
    for mine, theirs in [("alpha_nDCG@20", "alpha-nDCG@20"), ("ERR_IA@20", "ERR-IA@20"), ("NRBP", "NRBP"),
                         ("P_IA@20", "P-IA@20"), ("StRecall@20", "strec@20")]:
        sub = df[(df.measure == mine) & (df.topic != "all")]
        got = dict(zip(sub.topic, sub.value, strict=True))
        assert max(abs(got[t] - v[theirs]) for t, v in expected.items()) <= 1e-12, mine


# ------------------------------------------------------------------ conventions named
def test_no_relevant_subtopic_scores_zero_and_missing_topics_follow_the_topics_axis(tmp_path):
    q = write(tmp_path / "q.txt", [("1", "A", "d1", 1), ("1", "B", "d2", 1), ("2", "A", "e1", 0), ("3", "A", "f1", 1)])
    r = write(tmp_path / "r.txt", [("1", "Q0", "d1", 1, 2.0, "x"), ("2", "Q0", "e1", 1, 1.0, "x")])
    assert ours(q, r, "alpha_nDCG@10") == pytest.approx({"1": 1 / (1 + 1 / math.log2(3)), "2": 0.0})
    assert ours(q, r, "NRBP")["2"] == 0.0  # |S| = 0 (ndeval.c:554)
    # pyndeval yields topics in both run and qrels; ir_measures fills a missing qrels topic with 0
    assert set(ours(q, r, "NRBP")) == {"1", "2"}
    assert ours(q, r, "NRBP", profile="ir_measures-0.4-pyndeval")["3"] == 0.0


def test_ties_by_score_then_doc_id_ascending_as_pyndeval_sorts(tmp_path):
    """Three tied documents in file order c, a, b (c on B, a and b on A): pyndeval sorts them
    a, b, c (pyndeval/__init__.py: sorted by (-score, doc id)), not in file order."""
    qrels = [("1", "A", "a", 1), ("1", "A", "b", 1), ("1", "B", "c", 1)]
    run = [("1", "c", 1.0), ("1", "a", 1.0), ("1", "b", 1.0)]
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 1, s, "x") for t, d, s in run])
    ideal_ideal = 2 / 1 + 1 / 2
    asc = ours(q, r, "ERR_IA@2")["1"]  # a (A: 1), b (A again: 0.5)
    assert asc == (1 + 0.5 / 2) / ideal_ideal == pyndeval_topics(qrels, run, "ERR-IA@2")["1"]
    df = ae.evaluate(q, r, ["ERR_IA@2"], profile="pyndeval-0.0", settings=["ties=file-order"]).to_frame()
    assert df[df.topic == "1"].value.iloc[0] == (1 + 1 / 2) / ideal_ideal  # c (B: 1), a (A: 1)


def test_a_qrels_whose_second_column_is_constant_is_one_subtopic(tmp_path):
    q = write(tmp_path / "q.txt", [("1", 0, "d1", 1), ("1", 0, "d2", 2), ("1", 0, "d3", 0)])
    r = write(tmp_path / "r.txt", [("1", "Q0", "d3", 1, 3.0, "x"), ("1", "Q0", "d2", 2, 2.0, "x"), ("1", "Q0", "d1", 3, 1.0, "x")])
    assert "subtopic" not in read_qrels(q).table.column_names
    # gains 0, 1, 0.5 at ranks 1-3; ideal 1, 0.5
    got = ours(q, r, "alpha_nDCG@3")["1"]
    assert got == pytest.approx((1 / math.log2(3) + 0.5 / 2) / (1 + 0.5 / math.log2(3)))
    assert got == pytest.approx(pyndeval_topics([("1", "0", "d1", 1), ("1", "0", "d2", 2), ("1", "0", "d3", 0)],
                                                [("1", "d3", 3.0), ("1", "d2", 2.0), ("1", "d1", 1.0)], "alpha-nDCG@3")["1"],
                                rel=1e-15)


@pytest.mark.parametrize("profile", ["pyndeval-0.0", "trec_eval-9.0.8"])  # negatives=nonrel, =pooled
def test_a_negative_grade_is_never_relevant_even_at_rel_0(tmp_path, profile):
    """pyndeval: judgment = relevance >= relevance_level on the grade as written; negatives=nonrel
    lists d1 at grade 0 for other measures, yet at rel=0 it is not relevant here."""
    qrels = [("1", "0", "d1", -1), ("1", "0", "d2", 0), ("1", "0", "d3", 1)]
    run = [("1", "d1", 3.0), ("1", "d2", 2.0), ("1", "d3", 1.0)]
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, i + 1, s, "x") for i, (t, d, s) in enumerate(run)])
    assert ours(q, r, "P_IA(rel=0)@3", profile=profile) == {"1": 2 / 3} == pyndeval_topics(qrels, run, "P-IA@3", rel=0)


# ------------------------------------------------------------------ readers, writer, refusals
def test_readers_keep_the_subtopic_column_on_both_paths_and_the_writer_writes_it(tmp_path):
    text = b"1 A d1 1\n1 B d1 0\n2 A e1 2\n"
    fast = read_qrels(write(tmp_path / "q.txt", [("1", "A", "d1", 1), ("1", "B", "d1", 0), ("2", "A", "e1", 2)]))
    general = parse_qrels(text.replace(b" ", b"  "), "q.txt")  # two spaces: the general path
    assert fast.table.equals(general.table)
    assert fast.table.column("subtopic").to_pylist() == ["A", "B", "A"]
    write_qrels(fast, tmp_path / "w.txt")
    assert (tmp_path / "w.txt").read_bytes() == text


# ------------------------------------------------------------------ (c) the other measures read lines
def _two_subtopic_case(tmp_path, seed=3):
    """A subtopic qrels where documents are judged under two or three subtopics with different
    grades, written in shuffled order (so a document's last line is often not its highest
    grade), and a run with distinct scores (no tie convention in play)."""
    rng = random.Random(seed)
    qrels, run = [], []
    for t in ("301", "302", "303"):
        for d in range(30):
            for s in rng.sample("ABC", rng.choice([1, 1, 2, 3])):
                qrels.append((t, s, f"D{d:02d}", rng.choice([0, 0, 1, 2])))
        docs = rng.sample(range(40), 25)  # D30..D39 are not judged
        run += [(t, "Q0", f"D{d:02d}", i + 1, 100.0 - i - rng.random() / 2, "x") for i, d in enumerate(docs)]
    rng.shuffle(qrels)
    qrels.insert(5, ("301", "B", "D99", 2))  # D99 judged 2 then 0: its last line reads 0, its highest grade 2
    qrels.append(("301", "A", "D99", 0))
    run.append(("301", "Q0", "D99", 26, 0.5, "x"))
    return write(tmp_path / "q.txt", qrels), write(tmp_path / "r.txt", run), qrels, run


def _first_repeat(qrels):
    """(line of its second occurrence, first line, topic, doc) of the first line in the file
    whose (topic, doc) pair occurs again (the pair trec_eval-profile refusals name)."""
    lines: dict = {}
    for i, (t, _, d, _) in enumerate(qrels, 1):
        lines.setdefault((t, d), []).append(i)
    first, second, (t, d) = min((v[0], v[1], k) for k, v in lines.items() if len(v) > 1)
    return second, first, t, d


@pytest.mark.parametrize("version", ["9.0.8", "10.0"])
def test_a_document_under_two_subtopics_is_refused_under_trec_eval_as_the_binary_does(tmp_path, version, trec_eval_bins):
    """trec_eval reads column 2 as an ignored iteration: the pair repeats, "duplicate docs"
    (form_res_rels.c:131-139); auditeval refuses under the same profile with main's message."""
    q, r, qrels, _ = _two_subtopic_case(tmp_path)
    proc = subprocess.run([str(trec_eval_bins[version]), "-m", "map", "-m", "ndcg_cut.10", "-m", "P.10", q, r],
                          capture_output=True, text=True, check=False)
    assert proc.returncode != 0 and "duplicate docs" in proc.stderr and proc.stdout == ""
    line, first, t, d = _first_repeat(qrels)
    msg = (f"{q}:{line}: duplicate judgment for topic {t!r} doc {d!r} (first at line {first}); "
           "choose dups=first or dups=last to keep one")
    with pytest.raises(InputError) as exc:
        ae.evaluate(q, r, ["AP", "nDCG@10", "P@10"], profile=f"trec_eval-{version}")
    assert str(exc.value) == msg
    status, out, err = run_cli("eval", q, r, "-m", "AP", "-m", "nDCG@10", "-m", "P@10", "--profile", f"trec_eval-{version}")
    assert (status, out, err) == (2, "", f"auditeval: error: {msg}\n")


def test_a_document_under_two_subtopics_under_dups_last_equals_ir_measures_per_topic(tmp_path):
    """ir_measures-0.4 (dups=last): its pytrec_eval provider turns the qrels into a dict, the last
    line of a (topic, doc) wins (ir_measures util.py:213); auditeval reads the same lines, with
    main's note and no merge note."""
    import ir_measures

    q, r, qrels, run = _two_subtopic_case(tmp_path)
    names = ["AP", "nDCG@10", "P@10"]
    res = ae.evaluate(q, r, names, profile="ir_measures-0.4")
    df = res.to_frame()
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.pytrec_eval.iter_calc(
        [ir_measures.parse_measure(n) for n in names], ir_measures.read_trec_qrels(q), ir_measures.read_trec_run(r))}
    mine = {(t, m): v for t, m, v in zip(df.topic, df.measure, df.value, strict=True) if t != "all"}
    assert set(mine) == set(theirs) and len(mine) == 9
    for key, v in theirs.items():
        assert abs(mine[key] - v) <= 1e-12, key
    agg = ir_measures.pytrec_eval.calc_aggregate([ir_measures.parse_measure(n) for n in names],
                                                 ir_measures.read_trec_qrels(q), ir_measures.read_trec_run(r))
    for n in names:
        assert abs(df[(df.topic == "all") & (df.measure == n)].value.iloc[0] - agg[ir_measures.parse_measure(n)]) <= 1e-12
    dropped = len(qrels) - len({(t, d) for t, _, d, _ in qrels})
    assert f"{q}: {dropped} duplicate judgment line(s) dropped (dups=last)" in res.notes
    assert not any("subtopics" in n for n in res.notes)
    # NumRelRet per topic against a plain count over the kept line of each pair (D99 of topic 301:
    # first line grade 2, last 0; neither is a maximum over its lines)
    for keep in ("first", "last"):
        grade = {}
        for t, _, d, g in qrels:
            if keep == "last" or (t, d) not in grade:
                grade[(t, d)] = g
        got = ae.evaluate(q, r, ["NumRelRet"], profile="ir_measures-0.4", settings=[f"dups={keep}"]).to_frame()
        plain = {t: sum(grade.get((t, d), 0) >= 1 for t2, _, d, *_ in run if t2 == t) for t in ("301", "302", "303")}
        assert {t: v for t, v in zip(got.topic, got.value, strict=True) if t != "all"} == plain
        assert grade[("301", "D99")] == (2 if keep == "first" else 0)


@pytest.mark.parametrize("measure", ["alpha_nDCG@10", "ERR_IA@10", "NRBP", "P_IA@10", "StRecall@10"])
def test_the_intent_aware_measures_on_that_file_still_equal_pyndeval(tmp_path, measure):
    q, r, qrels, run = _two_subtopic_case(tmp_path)
    name = CUT.get(measure.split("@")[0], measure) + ("@10" if "@" in measure else "")
    theirs = pyndeval_topics(qrels, [(t, d, s) for t, _, d, _, s, _ in run], name)
    mine = ours(q, r, measure)
    assert set(mine) == set(theirs) == {"301", "302", "303"}
    for t, v in theirs.items():
        assert abs(mine[t] - v) <= 1e-12, t
    res = ae.evaluate(q, r, [measure, "P@10"], profile="pyndeval-0.0", settings=["dups=last"])
    assert any("merged into their (topic, doc) for the intent-aware measures" in n for n in res.notes)


def test_a_repeated_subtopic_judgment_is_refused_with_its_line(tmp_path):
    q = write(tmp_path / "q.txt", [("1", "A", "d1", 1), ("1", "B", "d1", 1), ("1", "A", "d1", 0)])
    r = write(tmp_path / "r.txt", [("1", "Q0", "d1", 1, 1.0, "x")])
    with pytest.raises(InputError) as exc:
        ae.evaluate(q, r, ["alpha_nDCG@10"], profile="pyndeval-0.0", settings=["dups=first"])
    assert str(exc.value).startswith(f"{q}:3: subtopic 'A' of topic '1' judged twice for doc 'd1' (first at line 1)")
    with pytest.raises(InputError, match=r":3: duplicate judgment for topic '1' doc 'd1'"):  # dups=error, as for any pair
        ae.evaluate(q, r, ["alpha_nDCG@10"], profile="pyndeval-0.0")
    assert ae.evaluate(q, r, ["P@1"], settings=["dups=last"]).to_frame().value.iloc[0] == 0.0  # line 3's grade
    assert ae.evaluate(q, r, ["P@1"], settings=["dups=first"]).to_frame().value.iloc[0] == 1.0


@pytest.mark.parametrize(("dups", "grade"), [("first", 1), ("last", 0)])
def test_dups_first_and_last_pick_each_subtopics_first_or_last_judgment(tmp_path, dups, grade):
    """d1 judged 1 then 0 for A (and d2 for B): the other measures read the kept judgment."""
    q = write(tmp_path / "q.txt", [("1", "A", "d1", 1), ("1", "B", "d2", 0), ("1", "A", "d1", 0), ("1", "B", "d1", 0)])
    r = write(tmp_path / "r.txt", [("1", "Q0", "d1", 1, 1.0, "x")])
    res = ae.evaluate(q, r, ["P@1", "NumRel"], settings=[f"dups={dups}"]).to_frame()
    assert res[res.topic == "1"].value.tolist() == [grade, grade]


@pytest.mark.parametrize(
    ("text", "reason"),
    [("alpha_nDCG(alpha=1.5)@10", "alpha must lie in [0, 1]"), ("NRBP(beta=-1)", "beta must lie in [0, 1]"),
     ("alpha_nDCG", "needs a cutoff"), ("NRBP@10", "takes no @cutoff"), ("AP_IA(alpha=0.3)", "no parameter 'alpha'"),
     ("P_IA(beta=0.5)@10", "no parameter 'beta'"), ("ERR_IA(alpha=1.5)@10", "alpha must lie in [0, 1]"),
     ("nERR_IA(alpha=-0.1)@10", "alpha must lie in [0, 1]"), ("nNRBP(beta=1.01)", "beta must lie in [0, 1]"),
     ("alpha_DCG(beta=0.5)@10", "no parameter 'beta'"), ("AP_IA@10", "takes no @cutoff"),
     ("nERR_IA", "needs a cutoff")],
)
def test_parameters_are_checked_at_parse_time(text, reason):
    with pytest.raises(MeasureSyntaxError, match=re.escape(reason)):
        ae.parse_measure(text)


def test_a_dataframe_with_ir_measures_iteration_column_is_a_subtopic_qrels(tmp_path):
    import pandas as pd

    qrels = pd.DataFrame({"query_id": ["1"] * 5, "iteration": [s for _, s, _, _ in HAND_QRELS],
                          "doc_id": [d for _, _, d, _ in HAND_QRELS], "relevance": [g for *_, g in HAND_QRELS]})
    run = pd.DataFrame({"query_id": ["1"] * 3, "doc_id": [d for _, d, _ in HAND_RUN], "score": [s for *_, s in HAND_RUN]})
    df = ae.evaluate(qrels, run, ["alpha_nDCG@3"], profile="pyndeval-0.0").to_frame()
    expected = (1 + 1.5 / math.log2(3) + 0.5 / 2) / (2 + 0.5 / math.log2(3) + 0.5 / 2)
    assert abs(df[df.topic == "1"].value.iloc[0] - expected) < 1e-15


@pytest.mark.parametrize(
    ("text", "canonical"),
    [("α_nDCG@20", "alpha_nDCG@20"), ("alpha_nDCG(cutoff=20)", "alpha_nDCG@20"), ("P_IA(cutoff=10)", "P_IA@10"),
     ("NRBP(alpha=0.5,beta=0.5)", "NRBP(alpha=0.5,beta=0.5)"), ("StRecall(rel=2)@20", "StRecall(rel=2)@20"),
     ("α_DCG(alpha=0.3)@5", "alpha_DCG(alpha=0.3)@5"), ("MAP_IA", "AP_IA"), ("AP_IA(judged_only=True)", "AP_IA(judged_only=True)"),
     ("nERR_IA(cutoff=10)", "nERR_IA@10"), ("nNRBP(beta=0.8)", "nNRBP(beta=0.8)")],
)
def test_ir_measures_spellings(text, canonical):
    assert str(ae.parse_measure(text)) == canonical


@pytest.mark.parametrize("seed", range(4))
def test_depth_and_judged_only_equal_pyndeval_on_the_cut_or_filtered_run(tmp_path, seed):
    """depth=5 (ndeval -M 5) is pyndeval on each topic's top 5 (score desc, doc id asc);
    judged_only=True (unjudged=drop) is pyndeval on the run without documents absent from the qrels."""
    qrels, run = _case(seed + 100)
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 0, repr(s), "x") for t, d, s in run])
    ranked = sorted(run, key=lambda x: (x[0], -x[2], x[1]))
    top5 = [row for i, row in enumerate(ranked) if sum(1 for x in ranked[:i] if x[0] == row[0]) < 5]
    judged = {(t, d) for t, _, d, _ in qrels}
    for mine, theirs in [("alpha_nDCG@10", "alpha-nDCG@10"), ("NRBP", "NRBP"), ("StRecall@10", "strec@10"),
                         ("alpha_DCG@10", "alpha-DCG@10"), ("nERR_IA@10", "nERR-IA@10"), ("nNRBP", "nNRBP"),
                         ("AP_IA", "MAP-IA")]:
        df = ae.evaluate(q, r, [mine], profile="pyndeval-0.0", settings=["depth=5"]).to_frame()
        assert_per_topic(df, mine, pyndeval_topics(qrels, top5, theirs))
        name, _, k = mine.partition("@")
        spelled_ = f"{name}(judged_only=True)" + (f"@{k}" if k else "")
        df = ae.evaluate(q, r, [spelled_], profile="pyndeval-0.0").to_frame()
        expected = pyndeval_topics(qrels, [x for x in run if (x[0], x[1]) in judged], theirs)
        # a topic whose ranking is all unjudged: pyndeval never sees it (not in the filtered run)
        assert_per_topic(df[df.topic.isin(set(expected))], spelled_, expected)


# ------------------------------------------------------------------ ndeval's whole output
# auditeval name -> (pyndeval name, the ndeval globals it reads: the parameters it takes)
ALL = {"ERR_IA": ("ERR-IA", ("alpha",)), "nERR_IA": ("nERR-IA", ("alpha",)), "alpha_DCG": ("alpha-DCG", ("alpha",)),
       "alpha_nDCG": ("alpha-nDCG", ("alpha",)), "NRBP": ("NRBP", ("alpha", "beta")),
       "nNRBP": ("nNRBP", ("alpha", "beta")), "AP_IA": ("MAP-IA", ()), "P_IA": ("P-IA", ()), "StRecall": ("strec", ())}
# ndeval takes alpha and beta in [0, 1] (ndeval.c main: -alpha/-beta outside it is a usage error):
# both ends, the default 0.5, and values between
ALPHAS = (0.0, 0.1, 0.5, 0.75, 1.0)
BETAS = (0.0, 0.5, 0.9, 1.0)


def test_every_measure_pyndeval_reports_has_an_auditeval_spelling():
    assert sorted(theirs for theirs, _ in ALL.values()) == sorted(pyndeval.SUPPORTED_MEASURES)
    assert {n for n, (t, _) in ALL.items() if t in pyndeval.NOCUTOFF_MEASURES} == {"NRBP", "nNRBP", "AP_IA"}
    for name, (_, takes) in ALL.items():
        assert set(SPECS[name].params) == set(takes), name


def spelled(name, k, rel, alpha, beta):
    """(auditeval spelling, pyndeval name) of one measure at cut-off k (None: none)."""
    theirs, takes = ALL[name]
    values = {"alpha": alpha, "beta": beta}
    params = ",".join([*(f"{p}={values[p]!r}" for p in takes), f"rel={rel}"])
    at = "" if k is None else f"@{k}"
    return f"{name}({params}){at}", theirs + at


def assert_per_topic(df, mine, expected):
    """Our per-topic values of ``mine`` equal pyndeval's to 1e-12; where pyndeval says NaN
    (nNRBP's 0 / 0 only) auditeval has no value. Returns the topics compared."""
    sub = df[(df.measure == str(ae.parse_measure(mine))) & (df.topic != "all")]
    got = dict(zip(sub.topic, sub.value, strict=True))
    undefined = {t for t, v in expected.items() if v != v}
    assert not undefined or mine.startswith("nNRBP"), mine
    assert set(got) == set(expected) - undefined, mine
    assert max((abs(got[t] - v) for t, v in expected.items() if t not in undefined), default=0.0) <= 1e-12, mine
    return len(got)


# the hand-checked example above (HAND_QRELS, HAND_RUN), topic 1, S = {A, B}, |S| = 2:
# run d2 {A}, d1 {A, B}, d3 {B}; gains at alpha 0.5: 1, 0.5 + 1 = 1.5, 0.5; alpha 1: 1, 0 + 1 = 1, 0;
# alpha 0: 1, 2, 1. Greedy ideal at 0.5: d1 (2), d3 (0.5, ties d2: the greater id), d2 (0.5).
# R_A = 2 (d1, d2; d4 judged 0), R_B = 2 (d1, d3).
HAND_NEW = [
    ("alpha_DCG@1", 1.0),  # rank 1 is not normalised (ndeval.c:711)
    ("alpha_DCG@3", (1 + 1.5 / math.log2(3) + 0.5 / 2) / (2 + 1 / math.log2(3) + 0.5 / 2)),  # ideal ideal 2, 1, .5
    ("alpha_DCG(alpha=0)@2", (1 + 2 / math.log2(3)) / (2 + 2 / math.log2(3))),
    ("nERR_IA@1", 1 / 2),
    ("nERR_IA@3", (1 + 1.5 / 2 + 0.5 / 3) / (2 + 0.5 / 2 + 0.5 / 3)),  # 23/12 over 29/12 = 23/29
    ("ERR_IA(alpha=1)@3", (1 + 1 / 2) / 2),  # ideal ideal 2 + 0 + 0
    ("ERR_IA(alpha=0)@3", (1 + 2 / 2 + 1 / 3) / (2 + 2 / 2 + 2 / 3)),  # 7/11
    ("nNRBP", (1 + 1.5 * 0.5 + 0.5 * 0.25) / (2 + 0.5 * 0.5 + 0.5 * 0.25)),  # 1.875 / 2.375 = 15/19
    ("nNRBP(beta=0)", 1 / 2),  # the first document's gain over the ideal's first
    ("NRBP(alpha=1,beta=1)", (1 + 1 + 0) * (1 - 0 * 1) / 2),
    ("AP_IA", ((1 / 1 + 2 / 2) / 2 + (1 / 2 + 2 / 3) / 2) / 2),  # A: d2, d1 at 1, 2; B: d1, d3 at 2, 3: 19/24
]


@pytest.mark.parametrize(("measure", "expected"), HAND_NEW)
def test_hand_checked_new_measures(tmp_path, measure, expected):
    q = write(tmp_path / "q.txt", HAND_QRELS)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, i + 1, s, "run") for i, (t, d, s) in enumerate(HAND_RUN)])
    assert abs(ours(q, r, measure)["1"] - expected) < 1e-15
    m = ae.parse_measure(measure)
    name = ALL[m.name][0] + ("" if m.cutoff is None else f"@{m.cutoff}")
    theirs = pyndeval_topics(HAND_QRELS, HAND_RUN, name, alpha=m.param("alpha", 0.5), beta=m.param("beta", 0.5))
    assert abs(theirs["1"] - expected) < 1e-15


def test_nnrbp_has_no_value_where_ndeval_divides_zero_by_zero(tmp_path):
    """Topic 2 judges e1 not relevant: |S| = 0, the ideal's NRBP is 0 and ndeval's nNRBP 0 / 0
    (pyndeval: nan); auditeval leaves it out of per-topic output and the mean, with a note.
    At alpha 0 and beta 1 the factor 1 - (1 - alpha) beta is 0 for every topic: no value at all."""
    q = write(tmp_path / "q.txt", [*HAND_QRELS, ("2", "A", "e1", 0)])
    run = [*HAND_RUN, ("2", "e1", 1.0)]
    r = write(tmp_path / "r.txt", [(t, "Q0", d, i + 1, s, "run") for i, (t, d, s) in enumerate(run)])
    theirs = pyndeval_topics([*HAND_QRELS, ("2", "A", "e1", 0)], run, "nNRBP")
    assert theirs["1"] == pytest.approx(15 / 19, abs=1e-15) and math.isnan(theirs["2"])
    res = ae.evaluate(q, r, ["nNRBP", "nNRBP(alpha=0,beta=1)", "NRBP", "nERR_IA@5", "AP_IA"], profile="pyndeval-0.0")
    df = res.to_frame()
    assert df[df.measure == "nNRBP"].set_index("topic").value.to_dict() == pytest.approx({"1": 15 / 19, "all": 15 / 19})
    assert f"{r}: nNRBP has no value for 1 of 2 topic(s) (the ideal ranking's NRBP is 0: no relevant subtopic " \
           "judgment, or alpha = 0 with beta = 1): left out of its mean and of per-topic output: '2'" in res.notes
    assert df[df.measure == "nNRBP(alpha=0,beta=1)"].empty  # no topic, no mean
    assert any(n.startswith(f"{r}: nNRBP(alpha=0,beta=1) has no value for 2 of 2 topic(s)") for n in res.notes)
    assert all(math.isnan(v) for v in pyndeval_topics([*HAND_QRELS, ("2", "A", "e1", 0)], run, "nNRBP",
                                                      alpha=0.0, beta=1.0).values())
    for name in ("NRBP", "nERR_IA@5", "AP_IA"):  # the others score 0 there (ndeval.c:509, 554, 622, 1163)
        assert df[(df.measure == name) & (df.topic == "2")].value.tolist() == [0.0], name


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(10))
def test_random_cases_agree_with_pyndeval_per_topic_under_every_alpha_and_beta(tmp_path, seed):
    """Every measure pyndeval reports, at cut-offs 1, 2, 5, 20, under each (alpha, beta) of the
    grid (5 x 4), against one pyndeval evaluator per (alpha, beta); measures that read neither
    are compared with each evaluator too (they must not move)."""
    qrels, run = _case(seed + 200)
    rel = random.Random(seed).choice([0, 1, 1, 2])
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 0, repr(s), "x") for t, d, s in run])
    grid = {}
    for alpha in ALPHAS:
        for beta in BETAS:
            grid[(alpha, beta)] = [spelled(n, k, rel, alpha, beta) for n, (t, _) in ALL.items()
                                   for k in ((None,) if t in pyndeval.NOCUTOFF_MEASURES else (1, 2, 5, 20))]
    mine = list(dict.fromkeys(x for cases in grid.values() for x, _ in cases))
    df = ae.evaluate(q, r, mine, profile="pyndeval-0.0").to_frame()  # one call: shared stages
    grouped = sorted(run, key=lambda x: x[0])
    compared = 0
    for (alpha, beta), cases in grid.items():
        ev = pyndeval.RelevanceEvaluator(qrels, [t for _, t in cases], relevance_level=rel, alpha=alpha, beta=beta)
        res = ev.evaluate(grouped)
        for ours_, theirs in cases:
            compared += assert_per_topic(df, ours_, {t: v[theirs] for t, v in res.items()})
    assert compared > 0


@pytest.mark.slow
def test_fifty_topics_every_default_measure_of_pyndeval_under_alpha_and_beta(tmp_path):
    """pyndeval's 21 default measures (its DEFAULT_MEASURES, ndeval's CSV columns) on 50 topics
    of 1,000 ranked documents and five subtopics, under the defaults, both ends of the grid and
    one pair between."""
    rng = np.random.default_rng(11)
    qrels, run = [], []
    for t in range(50):
        for d in rng.choice(1000, 150, replace=False):
            for s in np.flatnonzero(rng.random(5) < 0.5):
                qrels.append((str(t), str(s), f"doc{d}", int(rng.random() < 0.4)))
        scores = np.round(rng.random(1000), 3)
        run += [(str(t), f"doc{d}", float(scores[d])) for d in range(1000)]
    q = write(tmp_path / "q.txt", qrels)
    r = write(tmp_path / "r.txt", [(t, "Q0", d, 0, repr(s), "x") for t, d, s in run])
    back = {theirs: name for name, (theirs, _) in ALL.items()}
    for alpha, beta in ((0.5, 0.5), (0.0, 0.0), (1.0, 1.0), (0.0, 1.0), (0.3, 0.8)):
        cases = []
        for d in pyndeval.DEFAULT_MEASURES:
            theirs, _, k = d.partition("@")
            cases.append((spelled(back[theirs], int(k) if k else None, 1, alpha, beta)[0], d))
        df = ae.evaluate(q, r, [x for x, _ in cases], profile="pyndeval-0.0").to_frame()
        expected = pyndeval.RelevanceEvaluator(qrels, alpha=alpha, beta=beta).evaluate(run)
        assert len(expected) == 50
        for mine, theirs in cases:
            n = assert_per_topic(df, mine, {t: v[theirs] for t, v in expected.items()})
            assert n == (0 if (alpha, beta) == (0.0, 1.0) and theirs == "nNRBP" else 50), mine
