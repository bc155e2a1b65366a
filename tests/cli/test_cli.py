"""The auditeval command line: eval formats, conventions commands, errors and exit codes.

The example data is tiny and ships in the repo; the numbers below are checked by hand on
topic 101 of examples/qrels.txt where noted.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from cli_helpers import run_cli
from paths import EXAMPLES, REPO

from auditeval import parse_variant
from auditeval.cli.main import main

ROOT = REPO
EX = ROOT / "examples"


@pytest.fixture()
def tiny(tmp_path: Path) -> tuple[Path, Path]:
    # Topic 1: R = 2 (a, c). Ranking by score: a(3) b(2) c(1) -> AP = (1/1 + 2/3)/2 = 0.8333.
    # Topic 2: R = 1 (x). Ranking: y(2) x(1) -> AP = 1/2 = 0.5. MAP = 0.6667.
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 0\n1 0 c 2\n2 0 x 1\n2 0 y 0\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 3 tiny\n1 Q0 b 2 2 tiny\n1 Q0 c 3 1 tiny\n2 Q0 y 1 2 tiny\n2 Q0 x 2 1 tiny\n")
    return q, r


def test_eval_json_records_have_provenance(tiny):
    q, r = tiny
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "-m", "P@2", "--format", "json", "-q")
    assert code == 0
    doc = json.loads(out)
    assert set(doc) == {"profiles", "values", "refused", "notes"} and doc["refused"] == []
    assert doc["profiles"][0]["name"] == "trec_eval-9.0.8" and doc["profiles"][0]["axes"]["ties"] == "docno-desc"
    recs = doc["values"]
    assert all(set(rec) == {"run", "measure", "variant", "engine", "topic", "value", "profile"} for rec in recs)
    by = {(rec["measure"], rec["topic"]): rec for rec in recs}
    assert by[("AP", "1")]["value"] == pytest.approx((1 + 2 / 3) / 2, abs=1e-15)
    assert by[("AP", "2")]["value"] == 0.5
    assert by[("AP", "all")]["value"] == pytest.approx(((1 + 2 / 3) / 2 + 0.5) / 2, abs=1e-15)
    assert by[("P@2", "all")]["value"] == pytest.approx((1 / 2 + 1 / 2) / 2)
    for rec in recs:
        assert str(parse_variant(rec["variant"])) == rec["variant"]
        assert rec["engine"].startswith("auditeval")
        assert rec["run"] == "tiny"


def test_eval_text_full_variants_prints_every_variant_string(tiny):
    q, r = tiny
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "-m", "nDCG@10", "--variants", "full", "--width", "200")
    assert code == 0
    assert "0.6667" in out
    assert "AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel" in out
    assert "nDCG@10|depth=all|dups=error|gain=linear|" in out


def test_eval_tsv_set_override_changes_variant_and_value(tiny):
    q, r = tiny
    # rel=2: topic 1 has R = 1 (c at rank 3) -> AP 1/3; topic 2 has R = 0 -> 0. MAP = 1/6.
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "--set", "rel=2", "--format", "tsv")
    assert code == 0
    header, row = out.strip().split("\n")
    assert header.split("\t") == ["run", "measure", "topic", "value", "variant", "engine", "profile"]
    fields = row.split("\t")
    assert float(fields[3]) == pytest.approx(1 / 6, abs=1e-15)
    assert "|rel=2|" in fields[4]


def test_eval_unknown_measure_exits_2_with_message(tiny):
    q, r = tiny
    code, out, err = run_cli("eval", str(q), str(r), "-m", "MAPP")
    assert code == 2
    assert "unknown measure 'MAPP'" in err


def test_eval_bad_axis_value(tiny):
    q, r = tiny
    code, _, err = run_cli("eval", str(q), str(r), "--set", "ties=random")
    assert code == 2
    assert "axis 'ties' has no value 'random'" in err


def test_eval_example_data_notes_missing_topic():
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(EX / "rerank.txt"), "-m", "AP", "--format", "tsv")
    assert code == 0
    assert "1 qrels topic(s) absent from the run not evaluated (topics=both): '105'" in err
    assert "skipped 1 comment line(s)" in err


def test_conventions_list_show_diff():
    code, out, _ = run_cli("conventions", "list")
    assert code == 0
    for name in ("trec_eval-9.0.8", "trec_eval-9.0.8-double", "trec_eval-10.0", "ir_measures-0.4", "ranx-0.3", "textbook"):
        assert name in out
    code, out, _ = run_cli("conventions", "show", "trec_eval-10.0")
    assert code == 0 and "lround" in out and "strict" in out
    code, out, _ = run_cli("conventions", "diff", "trec_eval-9.0.8", "trec_eval-10.0")
    assert code == 0
    assert "4 axis(es) differ" in out
    for axis in ("absent", "iprec", "sim", "topics"):
        assert axis in out


def test_conventions_unknown_profile():
    code, _, err = run_cli("conventions", "show", "trec_eval-8")
    assert code == 2
    assert "unknown profile 'trec_eval-8'" in err


def test_measures_lists_table():
    code, out, _ = run_cli("measures")
    assert code == 0
    for name in ("AP", "nDCG", "P", "RR", "GMAP", "NumQ"):
        assert name in out


def test_runs_with_the_same_tag_stay_apart():
    import auditeval as ae

    qrels = {"1": {"a": 1, "b": 0}}
    # run 1 ranks a first (AP 1); run 2 ranks b first (AP 1/2); both are named "run".
    res = ae.evaluate(qrels, [{"1": {"a": 2.0, "b": 1.0}}, {"1": {"a": 1.0, "b": 2.0}}], ["AP"])
    assert [(v.run, v.value) for v in res.aggregates()] == [("run", 1.0), ("run#2", 0.5)]
    assert "<dict>: run tag 'run' already used by an earlier run; reported as 'run#2'" in res.notes


def test_iprec_level_outside_unit_interval_is_a_syntax_error():
    import auditeval as ae

    with pytest.raises(ae.MeasureSyntaxError) as exc:
        ae.parse_measure("IPrec@1.5")
    assert str(exc.value) == "IPrec cutoff must lie in [0, 1] at position 6\n    IPrec@1.5\n          ^"


def test_eval_compares_profiles_side_by_side(tmp_path):
    # a (relevant) and b tie at score 1: trec_eval orders docno descending (b, a): AP = 1/2;
    # textbook orders docno ascending (a, b): AP = 1.
    q = tmp_path / "qrels"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r = tmp_path / "run"
    r.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n")
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "--profile", "trec_eval-9.0.8", "--profile", "textbook", "--format", "tsv")
    assert code == 0
    rows = [line.split("\t") for line in out.strip().split("\n")[1:] if not line.startswith("#")]
    assert [(float(row[3]), "ties=docno-desc" in row[4], "ties=docno-asc" in row[4], row[6]) for row in rows] == [
        (0.5, True, False, "trec_eval-9.0.8"),
        (1.0, False, True, "textbook"),
    ]
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "--profile", "trec_eval-9.0.8", "--profile", "textbook", "--width", "100")
    assert code == 0
    lines = out.split("\n")
    assert lines[0].startswith("profiles trec_eval-9.0.8 | textbook")
    header = next(line for line in lines if line.startswith("run"))
    assert header.split() == ["run", "measure", "trec_eval-9.0.8", "textbook", "variants", "differ", "on"]
    row = next(line for line in lines if line.startswith("t "))
    # one row, one column per profile; the variants differ on the axes the profiles set apart
    assert row.split()[:4] == ["t", "AP", "0.5000", "1.0000"]
    assert "negatives sim ties topics" in row


def test_no_mean_over_no_topic(tmp_path):
    """A run sharing no topic with the qrels: no mean is printed (trec_eval exits 7), a note says why;
    counts stay (NumQ = 0)."""
    import auditeval as ae

    q = tmp_path / "q"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("999 Q0 X 1 1.0 t\n")
    res = ae.evaluate(str(q), str(r), ["AP", "NumQ"])
    assert [(v.measure, v.value) for v in res.aggregates()] == [("NumQ", 0)]
    assert any("no mean of AP reported" in n for n in res.notes)


def test_sweep_takes_set(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 1.0 t\n1 Q0 b 2 1.0 t\n")  # tied: docno-desc puts b first (AP 1/2), asc a (AP 1)
    out, err = io.StringIO(), io.StringIO()
    assert main(["sweep", str(q), str(r), "-m", "AP", "--set", "ties=docno-asc", "--vary", "depth=1,2",
                 "--format", "tsv"], out, err) == 0
    rows = [ln.split("\t") for ln in out.getvalue().splitlines()[1:]]
    assert [(x[3], "ties=docno-asc" in x[4]) for x in rows] == [("1.0", True), ("1.0", True)]


def test_text_views_on_a_terminal_that_is_not_utf8():
    """LANG=C / PYTHONIOENCODING=ascii: the box rules, '·' and arrows used to raise
    UnicodeEncodeError mid-report (a traceback); the entry point wraps such streams, so rich
    draws ASCII boxes and the rest is transliterated. Values and ids are unchanged."""
    from auditeval.render.terminal import safe_stream

    ex = EXAMPLES
    raw = io.BytesIO()
    out = io.TextIOWrapper(raw, encoding="ascii")
    err = io.TextIOWrapper(io.BytesIO(), encoding="ascii")
    args = ["eval", str(ex / "qrels.txt"), str(ex / "bm25.txt"), "-m", "AP", "--profile", "trec_eval-9.0.8",
            "--profile", "textbook", "--width", "100"]
    assert main(args, safe_stream(out), safe_stream(err)) == 0
    out.flush()
    text = raw.getvalue().decode("ascii")
    assert "profiles trec_eval-9.0.8 | textbook - engine" in text
    assert "-" * 60 in text and "bm25   AP                 0.5742     0.6188" in text
    utf = io.StringIO()
    assert safe_stream(utf) is utf  # a UTF-8 (or encoding-less) stream is used as it is


def test_verify_table_set_states_the_profile_with_settings(tmp_path):
    # rerank lacks topic 105: AP 0.6236 = (0.7881 + 0.7971 + 0.7666 + 0.7660 + 0) / 5 is the
    # topics=qrels reading; P@10 0.625 = (0.5 + 0.6 + 0.8 + 0.6) / 4 the topics=both one
    table = tmp_path / "t.csv"
    table.write_text("run,measure,value\nrerank,AP,0.6236\nrerank,P@10,0.625\n")
    base = [str(EX / "qrels.txt"), str(EX / "rerank.txt"), "--table", str(table), "--json"]
    docs = []
    for extra in ([], ["--set", "topics=qrels"]):
        out = io.StringIO()
        main(["verify", *base, *extra], out, io.StringIO())
        docs.append(json.loads(out.getvalue()))
    plain, qrels = ({c["measure"]: c for c in d["cells"]} for d in docs)
    assert (plain["AP"]["status"], plain["P@10"]["status"]) == ("other", "stated")
    assert docs[1]["profile"] == "trec_eval-9.0.8 with topics=qrels"
    assert qrels["AP"]["status"] == "stated" and qrels["AP"]["detail"] == "trec_eval-9.0.8 with topics=qrels"
    assert qrels["AP"]["value"] == pytest.approx(0.6235659180, abs=1e-10)
    assert qrels["P@10"]["status"] == "other"


def _subparsers(parser):
    return next((a.choices for a in parser._actions if a.__class__.__name__ == "_SubParsers"), {})


@pytest.mark.parametrize("command", ["eval", "sweep", "compare", "audit", "card", "reproduce", "verify"])
def test_every_evaluating_command_takes_profile_and_set(command):
    from auditeval.cli.main import build_parser

    sub = _subparsers(build_parser([command]))[command]
    flags = {f for a in sub._actions for f in a.option_strings}
    assert {"--profile", "--set"} <= flags


def test_every_pool_command_with_a_profile_takes_set():
    from auditeval.cli.main import build_parser

    pools = _subparsers(_subparsers(build_parser(["pool"]))["pool"])
    with_profile = []
    for name, p in pools.items():
        flags = {f for a in p._actions for f in a.option_strings}
        if "--profile" in flags:
            with_profile.append(name)
            assert "--set" in flags, name
    assert {"stats", "bias", "growth"} <= set(with_profile)


@pytest.mark.parametrize("chunk", [1 << 24, 3])
def test_control_characters_are_found_as_the_regular_expression_finds_them(chunk, monkeypatch):
    """``escape_controls`` checks Latin-1 text as bytes (``_has_control``, a piece at a time): on random texts of
    printable ASCII, line ends, tabs, C0 and C1 controls, DEL, Latin-1 letters, bidi marks and
    emoji it must find what the regular expression finds, and escape the same."""
    import random

    from auditeval.render import terminal
    from auditeval.render.terminal import _CONTROL, _has_control, escape_controls

    monkeypatch.setattr(terminal, "_CHUNK", chunk)  # 3: every text checked over several pieces

    rng = random.Random(5)
    pools = ["abc 0.5|=", "\n\t", "\x00\x07\x0b\x1b\x1f", "\x7f\x80\x9f", "·éÿ\xa0", "\u200e\u202a\u2069", "😀─"]
    for _ in range(3000):
        chosen = rng.sample(pools, rng.randint(1, 3))
        text = "".join(rng.choice(rng.choice(chosen)) for _ in range(rng.randint(0, 12)))
        assert _has_control(text) == (_CONTROL.search(text) is not None), repr(text)
    assert escape_controls("run\x1bA·\tb\n\x85") == "run\\x1bA·\tb\n\\x85"
    assert not _has_control("sweep · profile\n\tr1=a\n") and _has_control("é\x9b")
