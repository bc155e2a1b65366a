"""trec_eval 8.0, 8.1, 9.0.5, 9.0.6, 9.0.7 beside 9.0.8: what the releases share and where they
differ, each asserted against the real binaries (``trec_eval_bins``) and the drop-in
(``auditeval trec-eval --as VERSION``), byte for byte.

* 9.0.6 and 9.0.7 print 9.0.8's bytes (their sources differ in no value, name, layout or flag;
  conventions/trec_eval-9.0.7.toml): shown on 12 robust03 topics with ``-q -m all_trec``.
* 9.0.5 crashes on every evaluation (int counts read as long): the binary dies of SIGSEGV, the
  drop-in stops with exit 2 naming the cause; what 9.0.5 does before crashing is 9.0.6's.
* 8.0 and 8.1 print the same bytes on 12 robust03 topics at the default level, and differ under -l2
  (8.0's bpref bug) and in the message for an unreadable results file.
* 8.x's -a (every measure of measures.c's tables) and -T (increasing scores, the time
  measures): hand-checked values, and byte for byte on 12 robust03 topics.
* ircl_prn's cut-off (8.x: ceil(r R) in integers; 9.x: (long)(r R + 0.9)): a hand case.
* verify finds trec_eval-8.1 for a claim only its conventions (float32 scores and the ceil cut-off)
  reproduce; the audit's probe names every build.
"""

from __future__ import annotations

import gzip
import io
import json
import subprocess
from pathlib import Path

import pytest
from cli_helpers import run_cli

from auditeval.adapters.trec_eval import probe
from auditeval.trec_eval import main
from auditeval.vocab.conventions import load_profile

# a hand case: relevant r1 r2 z3 (R = 3), z3 and a5 score 0.3 and 0.30000001, one C float:
# tied, docno descending puts z3 (relevant) 4th. Precision at the ranks of the relevant
# documents: 1/1, 2/2, 3/4.
HAND_QRELS = "t 0 r1 1\nt 0 r2 1\nt 0 z3 1\nt 0 n1 0\nt 0 a5 0\n"
HAND_RUN = "t Q0 r1 1 0.9 x\nt Q0 r2 2 0.8 x\nt Q0 n1 3 0.7 x\nt Q0 a5 4 0.30000001 x\nt Q0 z3 5 0.3 x\n"


def _bin(bins: dict[str, Path], version: str, *argv: str) -> tuple[str, str, int]:
    p = subprocess.run([str(bins[version]), *argv], capture_output=True, timeout=60)
    return p.stdout.decode(), p.stderr.decode(), p.returncode


def _mine(version: str, *argv: str) -> tuple[str, str, int]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["--as", version, *argv], out, err)
    return out.getvalue(), err.getvalue(), code


@pytest.fixture(scope="module")
def robust(robust03, tmp_path_factory) -> tuple[str, str]:
    d = tmp_path_factory.mktemp("robust")
    run = d / "InexpC2"
    run.write_bytes(gzip.decompress((robust03.run("InexpC2")).read_bytes()))
    return str(robust03.qrels), str(run)


@pytest.fixture(scope="module")
def robust_part(robust: tuple[str, str], tmp_path_factory) -> tuple[str, str]:
    """InexpC2 on 12 topics with grade-2 judgments (12,000 lines), the whole robust03 qrels."""
    q, r = robust
    graded = {ln.split()[0] for ln in Path(q).read_text().splitlines() if ln.split()[3] == "2"}
    lines = Path(r).read_text().splitlines(True)
    keep = [t for t in dict.fromkeys(ln.split()[0] for ln in lines) if t in graded][:12]
    part = tmp_path_factory.mktemp("part") / "InexpC2-graded"
    part.write_text("".join(ln for ln in lines if ln.split()[0] in keep))
    return q, str(part)


@pytest.fixture()
def hand(tmp_path: Path) -> tuple[str, str]:
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text(HAND_QRELS)
    r.write_text(HAND_RUN)
    return str(q), str(r)


def test_profiles_say_which_release_is_which() -> None:
    base = load_profile("trec_eval-9.0.8").convention
    for v in ("9.0.7", "9.0.6", "9.0.5"):
        assert load_profile(f"trec_eval-{v}").convention == base, v
    old = load_profile("trec_eval-8.1").convention
    assert load_profile("trec_eval-8.0").convention == old
    assert {a for a, x in old.as_dict().items() if base.as_dict()[a] != x} == {"iprec"}
    assert old.iprec == "ceil"


def test_9_0_6_and_9_0_7_print_9_0_8s_bytes(trec_eval_bins, robust_part) -> None:
    q, r = robust_part
    ref = _bin(trec_eval_bins, "9.0.8", "-q", "-m", "all_trec", q, r)
    assert ref[2] == 0 and ref[0].count("\n") == 12 * 91 + 94  # 91 values per topic, 94 in the summary
    for v in ("9.0.7", "9.0.6"):
        assert _bin(trec_eval_bins, v, "-q", "-m", "all_trec", q, r) == ref, v
    assert _mine("9.0.7", "-q", "-m", "all_trec", q, r) == ref
    # -v: the Makefile's VERSIONID (9.0.6 still says 9.0.4; tag v9.0.8 says 9.0.7)
    for v, said in (("9.0.8", "9.0.7"), ("9.0.7", "9.0.7"), ("9.0.6", "9.0.4"), ("9.0.5", "9.0.4"),
                    ("8.1", "8.1"), ("8.0", "8.0")):
        want = ("", f"trec_eval version {said}\n", 0)
        assert _bin(trec_eval_bins, v, "-v") == want == _mine(v, "-v"), v


def test_9_0_5_crashes_where_the_drop_in_stops(trec_eval_bins, hand, tmp_path) -> None:
    q, r = hand
    assert _bin(trec_eval_bins, "9.0.5", q, r)[2] == -11  # SIGSEGV in the measure loop, nothing printed
    out, err, code = _mine("9.0.5", q, r)
    assert (out, code) == ("", 2) and "crashes here" in err and "0x600000034" in err
    # -m: mark_measure walks the nickname table, whose size reads as pointer bits: at random
    out, err, code = _mine("9.0.5", "-m", "map", q, r)
    assert (out, code) == ("", 2) and "may crash here at random" in err
    # before the measures: 9.0.6's behaviour, byte for byte
    missing = str(tmp_path / "missing")
    want = ("", f"trec_eval.get_qrels: Cannot read qrels file '{missing}'\ntrec_eval: Quit in file '{missing}'\n", 2)
    assert _bin(trec_eval_bins, "9.0.5", missing, r) == want == _mine("9.0.5", missing, r)
    assert _bin(trec_eval_bins, "9.0.5", "-m", "map.", q, r) == _mine("9.0.5", "-m", "map.", q, r)
    assert _mine("9.0.5", "-m", "map.", q, r)[2] == 1


def test_ircl_prn_cut_off_by_hand(trec_eval_bins, hand) -> None:
    """R = 3, r = 0.7: 8.x needs (3*7 + 9) / 10 = 3 relevant documents (precision 3/4 at
    rank 4), 9.x (long)(0.7*3 + 0.9) = (long)2.9999999999999996 = 2 (precision 2/2 at rank 2)."""
    q, r = hand
    for v in ("8.1", "8.0"):
        real = _bin(trec_eval_bins, v, "-q", q, r)
        assert real == _mine(v, "-q", q, r) and real[2] == 0
        assert "ircl_prn.0.70  \tt\t0.7500\n" in real[0] and "ircl_prn.0.70  \tall\t0.7500\n" in real[0]
        assert "P5             \tall\t0.6000\n" in real[0] and "num_q          \tall\t1\n" in real[0]
    nine = _bin(trec_eval_bins, "9.0.8", "-m", "iprec_at_recall.0.7", q, r)
    assert nine == ("iprec_at_recall_0.70  \tall\t1.0000\n", "", 0) == _mine("9.0.8", "-m", "iprec_at_recall.0.7", q, r)


def test_8_0_and_8_1_on_robust03(trec_eval_bins, robust_part) -> None:
    q, r = robust_part
    same = _bin(trec_eval_bins, "8.1", "-q", q, r)
    assert same[2] == 0 and same == _bin(trec_eval_bins, "8.0", "-q", q, r)
    assert _mine("8.1", "-q", q, r) == same == _mine("8.0", "-q", q, r)
    assert "num_q          \tall\t12\n" in same[0] and "num_ret        \tall\t12000\n" in same[0]
    # -l2: 8.0's bpref counts only grade 0 as judged nonrelevant (grade 1 is skipped)
    a, b = _bin(trec_eval_bins, "8.0", "-l2", q, r), _bin(trec_eval_bins, "8.1", "-l2", q, r)
    bp = [[ln for ln in x[0].splitlines() if ln.startswith("bpref")] for x in (a, b)]
    assert bp[0] != bp[1]
    assert _mine("8.0", "-l2", q, r) == a and _mine("8.1", "-l2", q, r) == b
    old = _bin(trec_eval_bins, "8.1", "-o", "-c", q, r)
    assert old == _mine("8.1", "-o", "-c", q, r) and old[0].startswith("\nQueryid (Num):\tAll\n")


def test_8x_errors_and_flags(trec_eval_bins, hand, tmp_path) -> None:
    q, r = hand
    missing = str(tmp_path / "missing")
    for v, word in (("8.1", "results"), ("8.0", "qrels")):  # get_top.c:49: 8.0 says qrels
        want = ("", f"trec_eval: input error: in trec_eval: 'Cannot read {word} file' Illegal parameter value - Quit\n", 2)
        assert _bin(trec_eval_bins, v, q, missing) == want == _mine(v, q, missing)
        for argv in ((q, r, "-q"), ("-x", q, r), ("-m", "map", q, r)):  # flags only before the files
            real = _bin(trec_eval_bins, v, *argv)
            assert real[2] == 1 and real[1].startswith("Usage: trec_eval [-h] [-q] [-a] [-o] [-v]")
            assert _mine(v, *argv) == real
    dup = tmp_path / "dup"
    dup.write_text(HAND_RUN + "t Q0 r1 6 0.1 x\n")
    want = ("", "trec_eval: form_tr_vec error: in trec_eval: 'Duplicate top docs docno' Illegal parameter value - Quit\n", 3)
    assert _bin(trec_eval_bins, "8.1", q, str(dup)) == want == _mine("8.1", q, str(dup))
    empty = tmp_path / "empty"
    empty.write_text("")
    assert _bin(trec_eval_bins, "8.1", q, str(empty)) == ("", "", 255) == _mine("8.1", q, str(empty))
    for v in ("8.0", "8.1"):  # -a's hundred measures and -T's ranking by increasing score
        for argv in (("-a", "-q", q, r), ("-T", "-q", q, r), ("-a", "-T", "-q", q, r), ("-a", "-q", q, str(dup))):
            assert _mine(v, *argv) == _bin(trec_eval_bins, v, *argv)


def test_verify_finds_8_1(hand) -> None:
    """0.7500 needs float32 scores (z3 ties a5, docno descending puts it first) and the ceil
    cut-off (three relevant documents for recall 0.7): trec_eval-8.1, no other profile as
    shipped (8.0 has the same variant string: one candidate, named 8.1 first)."""
    q, r = hand
    code, out, _err = run_cli("verify", q, r, "--claim", "IPrec@0.7=0.7500", "--departures", "0", "--json")
    assert code == 0
    claim = json.loads(out)["claims"][0]
    assert [x["label"] for x in claim["reproduced"]] == ["trec_eval-8.1"]
    assert claim["reproduced"][0]["value"] == 0.75
    code, out, _err = run_cli("verify", q, r, "--claim", "IPrec@0.7=1.0000", "--departures", "0", "--json")
    labels = [x["label"] for x in json.loads(out)["claims"][0]["reproduced"]]
    assert "trec_eval-9.0.8" in labels and "trec_eval-8.1" not in labels


def test_the_audit_probe_names_every_build(trec_eval_bins) -> None:
    found = {v: probe(str(p))[0] for v, p in trec_eval_bins.items()}
    # tag v9.0.7 is 9.0.8's program and says what 9.0.8 says: the build 9.0.8
    assert found == {"9.0.8": "9.0.8", "9.0.8-double": "9.0.8-double", "10.0": "10.0", "9.0.7": "9.0.8",
                     "9.0.6": "9.0.6", "9.0.5": "9.0.5", "8.1": "8.1", "8.0": "8.0"}


def test_8x_variants_column_evaluates_to_the_printed_values(hand) -> None:
    """Each ``--variants`` string of ``--as 8.1``, evaluated by ``auditeval.evaluate``, gives the
    printed value (as a C float at 4 decimals; counts exactly)."""
    import numpy as np

    import auditeval

    q, r = hand
    out, err, code = _mine("8.1", "--variants", "-q", "-c", q, r)
    assert code == 0 and err == ""
    checked = 0
    for ln in out.splitlines():
        name, topic, text, variant = ln.split("\t")
        if variant == "-":
            assert name.strip() == "num_q"
            continue
        parts = str(auditeval.parse_variant(variant)).split("|")
        res = auditeval.evaluate(q, r, [parts[0]], profile="trec_eval-8.1", settings=parts[1:])
        got = {x.topic: x.value for x in res.values}
        v = got["all" if topic == "all" else topic]
        want = str(int(v)) if name.startswith("num_") else f"{float(np.float32(v)):6.4f}"
        assert text == want, ln
        checked += 1
    assert checked == 2 * 27 + 1  # 27 values per topic (gm_ap is summary-only), 28 in the summary


def test_the_audit_runs_the_8_1_binary(trec_eval_bins, hand) -> None:
    """The audit asks trec_eval 8.1 for its default measures (no -m) and reads its names; 9.0.5
    is named and left out (it crashes on every evaluation)."""
    q, r = hand
    code, out, _err = run_cli("audit", q, r, "-m", "IPrec@0.7", "-m", "P@5", "--against", "trec_eval",
                              "--trec-eval", str(trec_eval_bins["8.1"]), "--trec-eval", str(trec_eval_bins["9.0.5"]),
                              "--profile", "trec_eval-8.1", "--width", "100")
    lines = out.splitlines()
    assert code == 0 and lines[0].startswith("every difference explained: 2 reference value(s) reproduced"), out
    assert any(ln.split()[:2] == ["trec_eval-8.1", "ok"] for ln in lines), out
    assert any(ln.split()[:2] == ["trec_eval-9.0.5", "unsupported"] for ln in lines), out


def test_8x_sums_ap_in_float(trec_eval_bins, tmp_path) -> None:
    """R = 80, relevant at ranks 1, 2, 3, 5, 6, 9 of 10: AP = (1 + 1 + 1 + 4/5 + 5/6 + 6/9) / 80
    = 5.3 / 80 = 0.06625, a tie at 4 decimals. The float nearest the double value lies below it
    (0.066249996: a double AP stored as a C float would print 0.0662); 8.x adds float
    precisions from rank 9 back to rank 1 and divides in float: 0.066250004, printed 0.0663, as
    9.0.8's double. Found on robust03 (UAmsT03RDesc, topic 375, -M10)."""
    import numpy as np

    q, r = tmp_path / "q", tmp_path / "r"
    rel = [1, 2, 3, 5, 6, 9]
    q.write_text("".join(f"t 0 d{k} 1\n" for k in range(80)) + "t 0 n0 0\n")
    r.write_text("".join(f"t Q0 {'d' + str(rel.index(k)) if k in rel else 'x' + str(k)} {k} {20 - k} run\n"
                         for k in range(1, 11)))
    assert f"{float(np.float32(5.3 / 80)):6.4f}" == "0.0662"
    acc = np.float32(0)
    for i in reversed(range(len(rel))):
        acc = np.float32(acc + np.float32(i + 1) / np.float32(rel[i]))
    assert f"{float(np.float32(acc / np.float32(80))):6.4f}" == "0.0663"
    for v in ("8.1", "8.0"):
        real = _bin(trec_eval_bins, v, str(q), str(r))
        assert "map            \tall\t0.0663\n" in real[0] and real == _mine(v, str(q), str(r))


def test_8_0_bpref_under_l0_by_hand(trec_eval_bins, tmp_path) -> None:
    """-l0, qrels d1 grade 0 and d2 grade 1, ranked d1, d2. R = 2 (both grades >= 0); num_nonrel
    = qrels lines - R = 0. 8.0 tests rel == 0 first: d1 is judged nonrelevant, so d2 adds
    1 - MIN(1, 2) / MIN(0, 2) = 1 - 1/0 = -inf (float division). 8.1: both relevant, 2/2 = 1."""
    q, r = tmp_path / "q", tmp_path / "r"
    q.write_text("t 0 d1 0\nt 0 d2 1\n")
    r.write_text("t Q0 d1 1 2.0 run\nt Q0 d2 2 1.0 run\n")
    for v, want in (("8.0", "  -inf"), ("8.1", "1.0000")):
        real = _bin(trec_eval_bins, v, "-q", "-l0", str(q), str(r))
        assert f"bpref          \tt\t{want}\n" in real[0] and f"bpref          \tall\t{want}\n" in real[0]
        assert _mine(v, "-q", "-l0", str(q), str(r)) == real


def _table(text: str) -> dict[tuple[str, str], str]:
    return {(f[0].rstrip(), f[1]): f[2] for f in (ln.split("\t") for ln in text.splitlines())}


def test_8x_all_measures_by_hand(trec_eval_bins, hand) -> None:
    """-a on the hand case: ranking r1 r2 n1 z3 a5 (R, R, N, R, N; R = 3, two judged nonrelevant).

    exact_prec 3/5; 11-pt_avg: interpolated precision 1 at recall 0 .. 0.6, 3/4 at 0.7 .. 1
    (ceil(3 r) relevant documents): (7 + 4 * 0.75) / 11 = 0.9091; map_at_R sums precision at
    ranks j < R only (trvec_teval.c:543): (1 + 1) / 3; avg_relative_prec (1 + 1 + 2/3 + 1 + 1)
    / 5; bpref (1 + 1 + 1 - 1/2) / 3; bpref_num_correct counts pairs only where a nonrelevant
    document ranks above (trvec_teval.c:357-359, not in the a == 0 branch): 2 - 1 = 1, of 3 * 2
    possible (micro_bpref 1/6); infAP (1 + (1/2 + 1/2 (1 + e)/(1 + 2e)) + (1/4 + 3/4 * 2/3)) / 3;
    2.00R-prec: 6 documents needed, 3 / 6; rcl_at_142_nonrel (1 + 2/3 + 140 * 1) / 142;
    fallout_recall_0 the recall before the first nonrelevant document's successor: 2/3;
    utility (1, -1, 0, 0): 3 - 2."""
    q, r = hand
    for v in ("8.0", "8.1"):
        out, err, code = _mine(v, "-a", "-q", q, r)
        assert (out, err, code) == _bin(trec_eval_bins, v, "-a", "-q", q, r)
        got = _table(out)
        want = {"exact_prec": "0.6000", "exact_recall": "1.0000", "11-pt_avg": "0.9091", "3-pt_avg": "0.9167",
                "map_at_R": "0.6667", "int_map": "0.9167", "avg_doc_prec": "0.9167", "avg_relative_prec": "0.9333",
                "bpref": "0.8333", "old_bpref": "0.8333", "bpref_num_correct": "1", "bpref_num_possible": "6",
                "0.20R-prec": "1.0000", "1.00R-prec": "0.6667", "2.00R-prec": "0.5000", "recall5": "1.0000",
                "unranked_avg_prec5": "0.6000", "rcl_at_142_nonrel": "0.9977", "fallout_recall_0": "0.6667",
                "fallout_recall_14": "1.0000", "utility_1.0_-1.0_0.0_0.0": "1.0000", "rank_first_rel": "1"}
        assert {k: got[(k, "t")] for k in want} == want
        assert got[("micro_bpref", "all")] == "0.1667" and got[("micro_prec", "all")] == "0.6000"
        assert (("infAP", "t") in got) == (v == "8.1") == (("num_nonrel_judged_ret", "t") in got)
    assert _table(_mine("8.1", "-a", "-q", q, r)[0])[("infAP", "t")] == "0.9167"


def test_8x_time_flag_by_hand(trec_eval_bins, hand) -> None:
    """-T ranks by increasing score (form_trvec.c:46-50, comp_negsim_docno): z3 a5 n1 r2 r1
    (z3 and a5 tie as floats, docno decreasing), map (1 + 2/4 + 3/5) / 3 = 0.7. With -a the time
    measures: every score below 5 falls in bucket 0, whose values (3/5 precision: calc_time_measures
    never lowers its rel_so_far) fill buckets 1 .. 59; the integral averages buckets 1 .. 59 over 60:
    59 * 0.6 / 60 = 0.59; the summary's time_precis is 1.2, the field listed twice in param_meas
    and so accumulated twice (measures.c:243-250)."""
    q, r = hand
    for v in ("8.0", "8.1"):
        for argv in (("-T", q, r), ("-a", "-T", "-q", q, r)):
            assert _mine(v, *argv) == _bin(trec_eval_bins, v, *argv)
    got = _table(_mine("8.1", "-a", "-T", "-q", q, r)[0])
    assert got[("map", "t")] == "0.7000" and got[("time_integral_prec", "t")] == "0.5900"
    assert got[("time_num_rel_0", "t")] == "3.0000" and got[("time_num_nonrel_0", "t")] == "2.0000"
    assert got[("time_precis_295", "t")] == "0.6000" and got[("time_precis_295", "all")] == "1.2000"
    assert got[("time_integral_cum_rel", "t")] == "3.0000"


def test_8x_all_on_robust03_topics(trec_eval_bins, robust_part) -> None:
    """-a on 12 robust03 topics (InexpC2, the whole qrels): 8.0 and 8.1 byte for byte under
    -a -q, -a -c -q and -a -T -q -l2 (all 12 runs on all topics: README's recorded check)."""
    q, r = robust_part
    for v in ("8.0", "8.1"):
        for flags in (("-a", "-q"), ("-a", "-c", "-q"), ("-a", "-T", "-q", "-l2")):
            real = _bin(trec_eval_bins, v, *flags, q, r)
            assert real[2] == 0 and len(real[0].splitlines()) > 12 * 130
            assert _mine(v, *flags, q, r) == real, (v, flags)


def test_8x_all_with_variants_says_so(hand) -> None:
    q, r = hand
    out, err, code = _mine("8.1", "--variants", "-a", q, r)
    assert code == 0 and out == _mine("8.1", "-a", q, r)[0]
    assert err == ("auditeval trec-eval: --variants is not printed under -a or -T (its port of 8.x's measures "
                   "names no convention)\n")
