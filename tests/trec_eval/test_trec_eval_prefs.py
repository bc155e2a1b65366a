"""trec_eval's preference judgments (-R prefs / qrels_prefs), judgment groups (-R qrels_jg) and
z-scores (-Z): values checked by hand on tiny inputs, the readers' errors, and seeded random
cases (``trec_eval_diff_prefs``) through the real 9.0.8 and 10.0 binaries against the drop-in in
process (stdout, stderr and exit status equal).

``AUDITEVAL_PREFS_CASES=N`` runs N random cases instead of 240.
"""

from __future__ import annotations

import io
import os
import subprocess
from fractions import Fraction

import pytest
from trec_eval_diff_prefs import difference, make_case, run_case

from auditeval.engine import prefs_topic_values, ranked_docs
from auditeval.io.prefs_files import PrefsLineError, read_prefs, read_qrels_jg
from auditeval.trec_eval import main
from auditeval.vocab.errors import InputError

N_CASES = int(os.environ.get("AUDITEVAL_PREFS_CASES", "240"))

# Example A, one judgment group, one sub-group: A (level 2) > B (1) > C (0); the run ranks
# B, A, X (X unjudged). Docid ranks: B 0, A 1 retrieved, C 2 not. Preferences: A>B fails
# among retrieved (poss_ret 1), A>C and B>C fulfilled implied (ful_imp 2). So poss = 3,
# ful = 2, simp = 2/3, simp_ret = 0/1, pair = (0 + 1 + 1)/3; R = 2 relevant, N = 1 nonrelevant:
# Rnonrel = (2 + 2*(2-1)) / (3 + 2*(2-1)) = 4/5; Rnonrel_ret: R = 2 retrieved relevant, N = 0:
# (0 + 2*2) / (1 + 2*2) = 4/5.
PREFS_A = "1 u1 s1 A 2\n1 u1 s1 B 1\n1 u1 s1 C 0\n"
RUN_A = "1 Q0 B 1 3 r\n1 Q0 A 2 2 r\n1 Q0 X 3 1 r\n"
HAND_A = {
    "prefs_num_prefs_poss": Fraction(3), "prefs_num_prefs_ful": Fraction(2), "prefs_num_prefs_ful_ret": Fraction(0),
    "prefs_simp": Fraction(2, 3), "prefs_pair": Fraction(2, 3), "prefs_avgjg": Fraction(2, 3),
    "prefs_avgjg_Rnonrel": Fraction(4, 5), "prefs_simp_ret": Fraction(0), "prefs_pair_ret": Fraction(0),
    "prefs_avgjg_ret": Fraction(0), "prefs_avgjg_Rnonrel_ret": Fraction(4, 5), "prefs_simp_imp": Fraction(2, 3),
    "prefs_pair_imp": Fraction(2, 3), "prefs_avgjg_imp": Fraction(2, 3),
}


def _run(tmp_path, rel: str, run: str, *flags: str, version: str = "10.0", z: str | None = None):
    (tmp_path / "rel").write_text(rel)
    (tmp_path / "run").write_text(run)
    extra = []
    if z is not None:
        (tmp_path / "z").write_text(z)
        extra = ["-Z", str(tmp_path / "z")]
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", version, *flags, *extra, str(tmp_path / "rel"), str(tmp_path / "run")], out, err)
    return out.getvalue(), err.getvalue(), code


def _binary(bins, tmp_path, version: str, *flags: str) -> tuple[str, str, int]:
    p = subprocess.run([str(bins[version]), *flags, str(tmp_path / "rel"), str(tmp_path / "run")],
                       capture_output=True, text=True)
    return p.stdout, p.stderr, p.returncode


def test_hand_checked_equivalence_classes(trec_eval_bins, tmp_path) -> None:
    for version in ("9.0.8", "10.0"):
        out, err, code = _run(tmp_path, PREFS_A, RUN_A, "-q", "-R", "prefs", "-m", "all_prefs", version=version)
        assert code == 0 and err == ""
        got = {ln.split("\t")[0].strip(): ln.split("\t")[2] for ln in out.splitlines() if "\t1\t" in ln}
        fmt = {n: (str(int(v)) if "_num_" in n else f"{float(v):6.4f}") for n, v in HAND_A.items()}
        assert got == fmt
        assert (out, err, code) == _binary(trec_eval_bins, tmp_path, version, "-q", "-R", "prefs", "-m", "all_prefs")
    # the kernel at full precision
    t = read_prefs(str(tmp_path / "rel")).topics["1"]
    ranked = ranked_docs(["B", "A", "X"], [3.0, 2.0, 1.0], float32=False, depth=None, doc_desc=False)
    assert ranked == ["B", "A", "X"]
    vals = prefs_topic_values(t.jg, t.jsg, t.level, t.doc, ranked, list(HAND_A), float32=False)
    assert vals == pytest.approx([float(v) for v in HAND_A.values()], abs=1e-12)


def test_hand_checked_transitive_preferences(trec_eval_bins, tmp_path) -> None:
    # two sub-groups: A>B (s1), B>C (s2), so A>C by transitivity; the run ranks C, A, B: A>B is
    # fulfilled, B>C and A>C are not: simp = 1/3 of 3 preferences
    prefs = "1 u1 s1 A 3\n1 u1 s1 B 2\n1 u1 s2 B 5\n1 u1 s2 C 4\n"
    run = "1 Q0 C 1 3 r\n1 Q0 A 2 2 r\n1 Q0 B 3 1 r\n"
    flags = ("-R", "prefs", "-m", "prefs_simp", "-m", "prefs_num_prefs_poss")
    out, err, code = _run(tmp_path, prefs, run, *flags)
    assert out == "prefs_num_prefs_poss  \tall\t3\nprefs_simp            \tall\t0.3333\n" and code == 0
    assert (out, err, code) == _binary(trec_eval_bins, tmp_path, "10.0", *flags)


def test_hand_checked_judgment_groups_and_zscores(trec_eval_bins, tmp_path) -> None:
    # jg a: d1 1, d2 0, d3 1 (R 2); jg b: d2 1, d4 1 (R 2); run d1, d2, d4.
    # AP: a = (1/1)/2 = 1/2, b = (1/2 + 2/3)/2 = 7/12 -> map_avgjg 13/24 = 0.5417;
    # P@1: a 1, b 0 -> 0.5; P@3: a 1/3, b 2/3 -> 0.5; Rprec_mult at (long)(x*2+0.9): 0.5 -> 1, 1.0 -> 2.
    qrels = "1 a d1 1\n1 a d2 0\n1 a d3 1\n1 b d2 1\n1 b d4 1\n"
    run = "1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d4 3 1 r\n"
    flags = ("-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1,3", "-m", "Rprec_mult_avgjg.0.5,1.0")
    out, _err, code = _run(tmp_path, qrels, run, *flags, version="9.0.8")
    assert code == 0 and out == (
        "map_avgjg             \tall\t0.5417\nP_avgjg_1             \tall\t0.5000\n"
        "P_avgjg_3             \tall\t0.5000\nRprec_mult_avgjg_0.50 \tall\t0.5000\n"
        "Rprec_mult_avgjg_1.00 \tall\t0.5000\n")
    assert (out, _err, code) == _binary(trec_eval_bins, tmp_path, "9.0.8", *flags)
    # -Z: (13/24 - 0.5) / 0.25 = 1/6; stddev 0 and value == mean -> 0; no line -> -1000000
    z = "1 map_avgjg 0.5 0.25\n1 P_avgjg_1 0.5 0\nzzzz z 0 1\n"
    zflags = ("-q", "-R", "qrels_jg", "-m", "num_q", "-m", "map_avgjg", "-m", "P_avgjg.1,3")
    out, err, code = _run(tmp_path, qrels, run, *zflags, version="10.0", z=z)
    assert code == 0 and out == (
        "Zmap_avgjg             \t1\t0.1667\nZP_avgjg_1             \t1\t0.0000\n"
        "ZP_avgjg_3             \t1\t-1000000.0000\nZnum_q                 \tall\t1.0000\n"
        "Zmap_avgjg             \tall\t0.1667\nZP_avgjg_1             \tall\t0.0000\n"
        "ZP_avgjg_3             \tall\t-1000000.0000\n")
    assert (out, err, code) == _binary(trec_eval_bins, tmp_path, "10.0", *zflags, "-Z", str(tmp_path / "z"))


def test_zscores_on_the_standard_path(trec_eval_bins, tmp_path) -> None:
    # map 1 on topic 1 ((1 - 0.5) / 0.1 = 5), 1/2... topic 3 lacks a line: -1000000 each
    qrels = "1 0 d1 1\n1 0 d2 0\n2 0 d1 1\n3 0 d3 1\n"
    run = "1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n2 Q0 d1 1 1.0 r\n3 Q0 d3 1 1 r\n"
    z = "1 map 0.5 0.1\n1 num_ret 0.5 0.2\n2 map 0.5 0.2\n4 a 1 1\n"
    flags = ("-q", "-m", "map", "-m", "num_ret")
    for version in ("9.0.8", "10.0"):
        out, err, code = _run(tmp_path, qrels, run, *flags, version=version, z=z)
        assert "Znum_ret               \t1\t7.5000\n" in out and "Zmap                   \t1\t5.0000\n" in out
        assert "Znum_ret               \tall\t-1999992.5000\n" in out
        assert (out, err, code) == _binary(trec_eval_bins, tmp_path, version, *flags, "-Z", str(tmp_path / "z"))


def test_prefs_measure_on_plain_qrels_fails_like_the_binary(trec_eval_bins, tmp_path) -> None:
    qrels, run = "1 0 d1 1\n", "1 Q0 d1 1 1 r\n"
    for flags in (("-m", "prefs_simp"), ("-m", "map", "-m", "qrels_jg")):
        out, err, code = _run(tmp_path, qrels, run, *flags)
        assert code == 4 and "Can't calculate measure" in err
        assert (out, err, code) == _binary(trec_eval_bins, tmp_path, "10.0", *flags)


def test_reader_errors_name_path_and_line(tmp_path) -> None:
    p = tmp_path / "p"
    p.write_text("# comment\n1 u1 s1 A 2\n1 u1 A 2\n")
    with pytest.raises(PrefsLineError) as exc:
        read_prefs(str(p))
    assert str(exc.value) == f"{p}:3: expected 5 fields, found 4" and exc.value.count == 2
    assert isinstance(exc.value, InputError)
    out, err, code = _run(tmp_path, p.read_text(), "1 Q0 A 1 1 r\n", "-R", "prefs")
    assert (out, code) == ("", 2) and err == f"trec_eval.get_prefs: Malformed line 2\ntrec_eval: Quit in file '{tmp_path / 'rel'}'\n"
    q = tmp_path / "q"
    q.write_text("1 a d1 1\n1 a d1 0\n")
    with pytest.raises(InputError, match=r":2: docno 'd1' judged twice"):
        read_qrels_jg(str(q))


def test_random_cases_equal_the_binaries(trec_eval_bins, tmp_path) -> None:
    failures, exits = [], {}
    for seed in range(N_CASES):
        case = make_case(seed)
        real, mine = run_case(case, trec_eval_bins, tmp_path)
        exits[real[2]] = exits.get(real[2], 0) + 1
        why = difference(real, mine)
        if why is not None:
            failures.append(f"{case.describe()}: {why}")
    assert not failures, f"{len(failures)} of {N_CASES} cases differ:\n" + "\n\n".join(failures[:10])
    if N_CASES >= 240:  # values, stops (exit 4), bad files (2), bad -Z files (255), an abort
        assert exits.get(0, 0) > N_CASES // 3 and exits.get(4, 0) > 20 and exits.get(2, 0) > 5
        assert exits.get(255, 0) >= 2 and exits.get(-6, 0) >= 1, exits


def test_count_of_topics_alone_ignores_duplicates(trec_eval_bins, tmp_path) -> None:
    # found by the -Z generator: num_q (and runid) never build the ranked list, so a duplicated
    # document is no error to trec_eval (exit 0), with or without -Z
    qrels, run = "20 0 x-1 2\n1 0 d11 -1\n", "20 Q0 e10 1 0.5 t\n1 Q0 d4 1 3 t\n1 Q0 d4 99 0.1 t\n"
    for flags, z in ((("-c", "-m", "num_q"), None), (("-m", "num_q", "-m", "runid"), None),
                     (("-c", "-m", "num_q"), "20 num_q 3 0.1\nzzzz zzzz 0 1\n")):
        got = _run(tmp_path, qrels, run, *flags, z=z)
        extra = ("-Z", str(tmp_path / "z")) if z else ()
        assert got[2] == 0 and got == _binary(trec_eval_bins, tmp_path, "10.0", *flags, *extra)


def test_grade_too_large_to_allocate_stops_like_the_binary(trec_eval_bins, tmp_path) -> None:
    # form_res_rels_jg.c allocates (max_rel + 1) * num_jgs longs: 800 GB here, refused by malloc
    qrels, run = "1 a d1 99999999999\n1 a d2 0\n", "1 Q0 d1 1 3 r\n"
    for version in ("9.0.8", "10.0"):
        got = _run(tmp_path, qrels, run, "-R", "qrels_jg", "-m", "map_avgjg", version=version)
        assert got == ("", "trec_eval: Can't calculate measure 'map_avgjg'\n", 4)
        assert got == _binary(trec_eval_bins, tmp_path, version, "-R", "qrels_jg", "-m", "map_avgjg")
