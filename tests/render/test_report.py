"""What a person reads: text that fits 100 columns, the matrix and side-by-side views, run
labels, notes in every format, the tie note, help texts, Value.variant and tidy frames.

Numbers on robust03 are trec_eval 9.0.8's own (the ``robust03`` fixture's runs); the small
cases are checked by hand in the comments.
"""

from __future__ import annotations

import io
import json

import pytest
from cli_helpers import run_cli
from paths import REPO

import auditeval as ae
from auditeval.cli.main import main
from auditeval.render.progress import Steps
from auditeval.results.values import FRAME_COLUMNS
from auditeval.vocab.names import split_measures

ROOT = REPO
EX = ROOT / "examples"


@pytest.fixture(scope="module")
def robust03(robust03) -> tuple[str, list[str]]:
    d = robust03.dir
    return str(d / "qrels.robust03.txt"), sorted(str(p) for p in (d / "runs").glob("input.*.gz"))


def _fits(out: str, width: int = 100) -> None:
    long = [line for line in out.split("\n") if len(line) > width]
    assert not long, long[:3]


def test_eval_text_on_robust03_fits_100_columns(robust03):
    qrels, runs = robust03
    code, out, _ = run_cli("eval", qrels, *runs, "--width", "100")
    assert code == 0
    _fits(out)
    # the profile is printed once; rows carry no variant string
    assert out.count("trec_eval-9.0.8: absent=zero ap_denom=R depth=all") == 1
    assert "|" not in out.split("────")[1].split("note:")[0]
    rows = {tuple(line.split()[:2]): line.split()[2] for line in out.split("\n") if line.startswith(("InexpC2 ", "pircRBa1 "))}
    # trec_eval 9.0.8: map 0.2249 / 0.3101, ndcg_cut_10 0.3807 / 0.4572, recip_rank 0.6647 / 0.7029
    assert rows[("InexpC2", "AP")] == "0.2249" and rows[("pircRBa1", "AP")] == "0.3101"
    assert rows[("InexpC2", "nDCG@10")] == "0.3807" and rows[("pircRBa1", "nDCG@10")] == "0.4572"
    assert rows[("InexpC2", "RR")] == "0.6647" and rows[("pircRBa1", "RR")] == "0.7029"
    assert len(rows) == 10


def test_eval_views_on_robust03_fit_100_columns(robust03):
    qrels, runs = robust03
    code, out, _ = run_cli(
        "eval", qrels, *runs[:3], "-q", "--matrix", "--width", "100", "-m", "AP nDCG@10 P@10 R@1000 RR Bpref P(rel=2)@10 infAP",
        "--profile", "trec_eval-9.0.8", "--profile", "trec_eval-10.0",
    )
    assert code == 0
    _fits(out)
    lines = out.split("\n")
    # per-topic lines: 3 runs x 8 measures x (100 topics + all), one value column per profile
    topic_lines = [line for line in lines if line.startswith("InexpC2 ") and len(line.split()) == 5]
    assert len(topic_lines) == 8 * 101
    assert "InexpC2  AP       all    0.2249  0.2249".split() in [line.split() for line in topic_lines]
    # the matrix: a header row with the measures (split over two tables at 100 columns)
    headers = [line.split() for line in lines if line.startswith("run ") and "AP" in line]
    assert headers and headers[0][:3] == ["run", "AP", "nDCG@10"]
    assert any("P(rel=2)@10: rel=2" in line for line in lines)


def test_matrix_view_small(tmp_path):
    # two runs, one topic, R = 1 (a). run x: a first -> AP 1, P@1 1; run y: a second -> AP 0.5, P@1 0.
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "x").write_text("1 Q0 a 1 2 x\n1 Q0 b 2 1 x\n")
    (tmp_path / "y").write_text("1 Q0 b 1 2 y\n1 Q0 a 2 1 y\n")
    code, out, _ = run_cli("eval", str(q), str(tmp_path / "x"), str(tmp_path / "y"), "-m", "AP P@1", "--matrix", "--width", "80")
    assert code == 0
    grid = [line.split() for line in out.split("\n") if line.startswith(("run", "x ", "y "))]
    assert grid == [["run", "AP", "P@1"], ["x", "1.0000", "1.0000"], ["y", "0.5000", "0.0000"]]


def test_runs_with_one_tag_are_labelled_by_file_name(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    (tmp_path / "first.txt").write_text("1 Q0 a 1 2 same\n1 Q0 b 2 1 same\n")
    (tmp_path / "second.txt").write_text("1 Q0 b 1 2 same\n1 Q0 a 2 1 same\n")
    code, out, err = run_cli("eval", str(q), str(tmp_path / "first.txt"), str(tmp_path / "second.txt"), "-m", "AP", "--format", "tsv")
    assert code == 0
    rows = [line.split("\t")[:4] for line in out.split("\n")[1:] if line and not line.startswith("#")]
    assert rows == [["first.txt", "AP", "all", "1.0"], ["second.txt", "AP", "all", "0.5"]]
    assert "run tag 'same' is used by 2 runs; they are labelled by file name: first.txt, second.txt" in out
    assert "#2" not in out


def test_notes_in_json_and_tsv():
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(EX / "rerank.txt"), "-m", "AP", "--format", "json")
    assert code == 0
    notes = json.loads(out)["notes"]
    assert any("skipped 1 comment line(s)" in n for n in notes)
    assert any("1 qrels topic(s) absent from the run not evaluated (topics=both): '105'" in n for n in notes)
    assert all(f"auditeval: note: {n}" in err for n in notes)  # and on stderr, as before
    code, out, _ = run_cli("eval", str(EX / "qrels.txt"), str(EX / "rerank.txt"), "-m", "AP", "--format", "tsv")
    tail = [line for line in out.split("\n") if line.startswith("# note: ")]
    assert [line[len("# note: "):] for line in tail] == notes
    assert out.split("\n")[0].startswith("run\tmeasure")


def test_tie_note_counts_topics_where_ties_can_change_the_measure(tmp_path):
    # topic 1: a (relevant) and b (not) tie at the top (ranks 1-2): order decides AP, RR, P@1
    #          but not P@2 (both inside the top 2);
    # topic 2: c (relevant) first, d and e (both non-relevant) tie below: no mixed block.
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n2 0 d 0\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 5 t\n1 Q0 b 2 5 t\n1 Q0 z 3 1 t\n2 Q0 c 1 3 t\n2 Q0 d 2 2 t\n2 Q0 e 3 2 t\n")
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP RR P@1 P@2 NumRet", "--format", "json")
    assert code == 0
    notes = [n for n in json.loads(out)["notes"] if "tied scores" in n]
    # ranges of the mean over tie orders: topic 1 AP/RR 1/2 (b first, docno-desc) or 1; topic 2
    # always 1 -> [0.75, 1]; P@1 topic 1 0 or 1, topic 2 1 -> [0.5, 1]
    assert notes == [
        "t: tied scores mix documents of different relevance where the order matters for "
        "AP in 1 of 2 topic(s) (mean in [0.7500, 1.0000] over tie orders); "
        "RR in 1 of 2 topic(s) (mean in [0.7500, 1.0000] over tie orders); "
        "P@1 in 1 of 2 topic(s) (mean in [0.5000, 1.0000] over tie orders) "
        "(ordered by ties=docno-desc; another tie rule can change these values)"
    ]
    from auditeval.auditing.tie_note import tie_counts

    counts = tie_counts(ae.read_qrels(q), ae.read_run(r), [(x, ae.parse_measure(x)) for x in ("AP", "P@2", "NumRet")],
                        ae.load_profile("trec_eval-9.0.8").convention)
    assert counts == [("AP", 1, 2), ("P@2", 0, 2)]  # NumRet reads no tie order


def test_eval_per_topic_text_streams_plain_lines(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n2 0 x 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 2 t\n2 Q0 y 1 2 t\n2 Q0 x 2 1 t\n")
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "RR", "-q", "--width", "80")
    assert code == 0
    lines = out.split("\n")
    assert lines[0] == "per topic under trec_eval-9.0.8: each value's variant is the measure under that"
    assert lines[2].split() == ["run", "measure", "topic", "value"]
    # RR: topic 1 -> 1, topic 2 -> 1/2, mean 0.75
    assert [line.split() for line in lines[3:6]] == [["t", "RR", "1", "1.0000"], ["t", "RR", "2", "0.5000"], ["t", "RR", "all", "0.7500"]]


def test_side_by_side_json_has_a_profile_column(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 1 t\n1 Q0 b 2 1 t\n")
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "--profile", "trec_eval-9.0.8", "--profile", "textbook", "--format", "json")
    doc = json.loads(out)
    assert [p["name"] for p in doc["profiles"]] == ["trec_eval-9.0.8", "textbook"]
    # tie a/b at score 1: docno descending puts b first (AP 1/2); ascending a first (AP 1)
    assert [(v["profile"], v["value"]) for v in doc["values"]] == [("trec_eval-9.0.8", 0.5), ("textbook", 1.0)]
    assert any(n.startswith("[textbook] t: tied scores") for n in doc["notes"])


def test_split_measures():
    assert split_measures("nDCG@10 P@10") == ["nDCG@10", "P@10"]
    assert split_measures("ndcg_cut.5,10") == ["ndcg_cut.5", "ndcg_cut.10"]
    assert split_measures("iprec_at_recall..10,.25") == ["iprec_at_recall..10", "iprec_at_recall..25"]
    assert split_measures("nDCG(gains={0:0, 1:1})@5  AP(rel=2)") == ["nDCG(gains={0:0, 1:1})@5", "AP(rel=2)"]
    assert split_measures("11pt(levels='0.2, 0.5')") == ["11pt(levels='0.2, 0.5')"]


def test_several_measures_in_one_argument_and_trec_cutoff_lists(tmp_path):
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 b 1 2 t\n1 Q0 a 2 1 t\n")
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "P@1 P@2", "-m", "P.1,2", "--format", "tsv")
    assert code == 0
    got = [tuple(line.split("\t")[1:4:2]) for line in out.split("\n")[1:] if line and not line.startswith("#")]
    assert got == [("P@1", "0.0"), ("P@2", "0.5"), ("P.1", "0.0"), ("P.2", "0.5")]


def test_help_texts_are_for_users(capsys):
    with pytest.raises(SystemExit):
        main(["--help"])
    text = capsys.readouterr().out
    assert "main(argv)" not in text and "subcommands in one dict" not in text
    assert "variant string" in text and "examples:" in text
    with pytest.raises(SystemExit):
        main(["eval", "--help"])
    text = capsys.readouterr().out
    assert "- for standard input" in text and "(standard input)" in text
    assert "--matrix" in text and "--variants" in text


def test_value_variant_is_a_variant_and_frames_are_tidy():
    res = ae.evaluate({"1": {"a": 1, "b": 0}}, {"1": {"a": 2.0, "b": 1.0}}, ["AP(rel=2)", "P@1"])
    for v in res.values:
        assert isinstance(v.variant, ae.Variant)
        assert ae.parse_variant(v.variant) == v.variant
        assert v.as_dict()["variant"] == str(v.variant)
    df = res.to_frame()
    assert list(df.columns) == FRAME_COLUMNS == ["run", "topic", "measure", "variant", "engine", "value"]
    assert df.loc[(df.measure == "P@1") & (df.topic == "all"), "value"].item() == 1.0
    assert df.variant.map(type).eq(str).all()
    assert "|rel=2|" in df.loc[df.measure == "AP(rel=2)", "variant"].iloc[0]


def test_steps_write_through_when_not_a_terminal():
    out = io.StringIO()
    with Steps(out, 3) as steps:
        steps.advance("x")
        steps.write("line\n")
    assert out.getvalue() == "line\n"


def test_steps_show_a_bar_on_a_terminal():
    class Tty(io.StringIO):
        def isatty(self) -> bool:
            return True

    out = Tty()
    with Steps(out, 3, "reading") as steps:
        steps.advance("evaluating")
        steps.write("line\n")
    text = out.getvalue()
    assert "line" in text and "\x1b[" in text  # drawn with terminal control codes


def test_text_escapes_markup_in_ids_and_notes(tmp_path):
    # rich would read "[bold]" in a run tag, and "[textbook]" in a note, as markup
    q = tmp_path / "q"
    q.write_text("1 0 a 1\n1 0 b 0\n")
    r = tmp_path / "r"
    r.write_text("1 Q0 a 1 1 [bold]x\n1 Q0 b 2 1 [bold]x\n")
    code, out, _ = run_cli("eval", str(q), str(r), "-m", "AP", "--profile", "trec_eval-9.0.8", "--profile", "textbook", "--width", "100")
    assert code == 0
    assert "[bold]x   AP" in out
    assert "note: [textbook] [bold]x: tied scores" in out


def test_three_profiles_side_by_side_at_80_columns_wrap_no_token():
    """Bundled examples, three profiles at 80 columns: the "differ on" column would be too
    narrow, so it goes below the table; profile names and measure names stay whole. rerank lacks topic 105: P@10 is 0.625 over its 4 topics (5+6+8+6 relevant in
    the top 10, counted by hand) and 0.5 under ir_measures-0.4 (topics=qrels: 2.5 / 5)."""
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(EX / "rerank.txt"),
                             "--profile", "trec_eval-9.0.8", "--profile", "trec_eval-9.0.8-double",
                             "--profile", "ir_measures-0.4", "--width", "80")
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(x) for x in lines) <= 80
    assert ["run", "measure", "trec_eval-9.0.8", "trec_eval-9.0.8-double", "ir_measures-0.4"] in [
        x.split() for x in lines]
    rows = {tuple(x.split()[:2]): x.split()[2:] for x in lines if x.startswith(("bm25 ", "rerank "))}
    assert rows[("rerank", "P@10")] == ["0.6250", "0.6250", "0.5000"]
    assert rows[("bm25", "nDCG@10")] == ["0.6249", "0.6249", "0.6249"]
    assert "variants differ on dups sim topics: AP, nDCG@10, P@10, R@1000, RR" in lines


def test_long_measure_names_stay_whole_at_80_columns():
    """The bundled bm25 run: a 40-character measure name keeps its row whole at 80 columns;
    its departures (gain=exp2 unjudged=drop) wrap at the space."""
    code, out, err = run_cli("eval", str(EX / "qrels.txt"), str(EX / "bm25.txt"), "--width", "80",
                             "-m", "AP(rel=2) nDCG(dcg='exp-log2',judged_only=True)@10")
    assert code == 0, err
    lines = out.splitlines()
    assert max(len(x) for x in lines) <= 80
    row = next(x for x in lines if x.startswith("bm25 ") and "nDCG" in x)
    assert row.split()[:2] == ["bm25", "nDCG(dcg='exp-log2',judged_only=True)@10"]
    assert row.split()[3] == "gain=exp2" and "unjudged=drop" in lines[lines.index(row) + 1]
