"""The audit's terminal views on the bundled examples: the summary fits 80 and 120 columns,
never splits an engine name, a variant or a topic id, and says what the full tables say
(expected values read off the full report of examples/ and checked by hand: see each test);
the full view (--detail) keeps every table and every variant string; reference statuses
(timed out, failed, unsupported) with their reasons; the CLI's --width / --view / --detail."""

from __future__ import annotations

import io
import re
import stat

import pytest
from cli_helpers import joined_variant_lines

import auditeval as ae
from auditeval.cli.main import main
from auditeval.render.audit import render_audit
from auditeval.render.textgrid import grid, wrap

Q, BM25, RERANK = "examples/qrels.txt", "examples/bm25.txt", "examples/rerank.txt"
MEASURES = ["AP", "nDCG@10", "P@10", "RR"]
REFS = ["pytrec_eval", "ir_measures:msmarco", "ir_measures:gdeval"]


@pytest.fixture(scope="module")
def rep():
    return ae.audit(Q, [BM25, RERANK], measures=MEASURES, against=REFS, samples=5)


def _fits(text: str, width: int) -> None:
    for line in text.splitlines():
        # a token longer than the width (a variant string, a temporary path) stands alone
        assert len(line) <= width or len(line.split()) == 1, line


def _section(text: str, title: str) -> list[str]:
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] == ""), len(lines))
    return lines[start:end]


def _agreement(text: str) -> list[str]:
    """The agreement matrix's lines (every block of it)."""
    lines = text.splitlines()
    start = next(i for i, x in enumerate(lines) if x.startswith("Agreement with"))
    end = next(i for i in range(start + 1, len(lines)) if lines[i].startswith(("Differences", "Sensitivity")))
    return [x for x in lines[start:end] if not x.startswith(("  ", "─"))]


def _row(lines: list[str], name: str) -> list[str]:
    """The cells of the matrix row of ``name`` (joined over the blocks a narrow width makes)."""
    cells: list[str] = []
    for line in lines:
        if line.split(" ")[0] == name:
            cells += line.split()[1:]
    return cells


@pytest.mark.parametrize("width", [80, 120])
def test_summary_fits_and_shows_the_verdicts_and_the_axes(rep, width):
    text = render_audit(rep, "text", width=width)
    _fits(text, width)
    assert len(text.splitlines()) <= 120
    assert "every difference explained: 12 reference value(s) reproduced" in text
    agree = _agreement(text)
    # pytrec_eval runs trec_eval 9.0.8's conventions: every value equals the chosen profile's
    assert _row(agree, "pytrec_eval") == ["=", "=", "=", "="]
    # msmarco computes RR only; bm25 RR 1.0000 vs 0.9000 (ties=docno-asc: topic 104's tied pair),
    # rerank 0.8000 vs 1.0000 (topics=qrels scores the absent topic 105 as 0): largest |d| 0.2000
    assert _row(agree, "ir_measures:msmarco") == ["-", "-", "-", "0.2000", "ties", "topics"]
    # gdeval nDCG@10: bm25 0.6109 vs 0.6249 (gain=exp2), rerank 0.6723 vs 0.8425 (+ topics=qrels)
    assert _row(agree, "ir_measures:gdeval") == ["-", "0.1702", "-", "-", "gain", "topics"]


def test_summary_attributes_each_difference_with_its_evidence(rep):
    text = render_audit(rep, "text", width=100)
    lines = text.splitlines()
    i = lines.index("  gain linear -> exp2 (exp2: ir_measures:gdeval)")
    # the full report's conv_effect rows: gain=exp2 bm25 nDCG@10 -0.0139 (5 topics), rerank -0.0022 (4)
    assert lines[i + 1] == "    moves bm25: nDCG@10 -0.0139 (5); rerank: nDCG@10 -0.0022 (4)"
    assert lines[i + 2].startswith("    e.g. bm25 nDCG@10, topic 103: grades [2] ranked; gain linear = grade")
    assert "  ties docno-desc -> docno-asc (docno-asc: ir_measures:msmarco)" in lines
    # the largest per-topic change of ties: bm25 RR topic 104, 0.5 -> 1.0
    ev = " ".join(x.strip() for x in lines[lines.index("  ties docno-desc -> docno-asc (docno-asc: ir_measures:msmarco)"):][:6])
    assert ("e.g. bm25 RR, topic 104: 2 documents tied at 1.7 from rank 1; docno-desc puts D104-25 first, "
            "docno-asc puts D104-08 first (RR 0.5000 -> 1.0000)") in ev
    sens = _section(text, "Sensitivity")
    # topics=qrels from the chosen profile: rerank AP 0.6236 - 0.7795; '*': bm25 and rerank swap on P@10 and RR
    assert [x for x in sens if x.startswith("topics=qrels ")][0].split()[1:] == ["-0.1559", "-0.1685", "-0.1250*",
                                                                                 "-0.2000*"]
    ties = [x.split() for x in _section(text, "Tie envelope") if x.startswith(("bm25 ", "rerank "))]
    # the full report's tie envelope row 'bm25 AP all 0.5742 0.5696 0.6238 0.5964 exact'
    assert ["bm25", "AP", "0.5742", "0.5696", "0.6238", "0.5964", "exact"] == ties[0][:7]


def test_profiles_make_every_value_traceable(rep):
    text = render_audit(rep, "text", width=80)
    flat = " ".join(x.strip() for x in _section(text, "Profiles"))
    assert "trec_eval-9.0.8 (chosen; native, pytrec_eval): ap_denom=R depth=all dups=error" in flat
    assert ("ir_measures-0.4-gdeval (ir_measures:gdeval): departs on dups=last gain=exp2 negatives=nonrel "
            "sim=float64 topics=qrels") in flat


def test_no_identifier_is_split_at_any_width(rep):
    names = ["pytrec_eval", "ir_measures:msmarco", "ir_measures:gdeval", "trec_eval-9.0.8", "D104-25", "D104-08"]
    for view in ("summary", "full"):
        for width in (80, 120):
            text = render_audit(rep, "text", width=width, view=view)
            _fits(text, width)
            tokens = set(re.split(r"[\s,;()]+", text))
            for n in names:
                assert n in tokens, (view, width, n)
            lines = text.splitlines()
            for a, b in zip(lines, lines[1:], strict=False):  # no name cut in two over a line end
                for n in names + [r.variant for r in rep.agreement]:
                    for k in range(1, len(n)):
                        if "|" in n and n[k - 1] == "|":  # a variant string breaks after '|' only
                            continue
                        assert not (a.rstrip().endswith(n[:k]) and b.lstrip().startswith(n[k:])), (a, b)
            if view == "full":  # the legend: every variant, broken after '|' only
                joined = joined_variant_lines(text)
                assert all(r.variant in joined for r in rep.agreement), (view, width)


def test_full_view_keeps_every_table_and_every_variant_string(rep):
    text = render_audit(rep, "text", width=80, view="full")
    lines = text.splitlines()
    for title in ("Engines", "Agreement:", "Attribution:", "Evidence per topic", "Sensitivity:", "Tie envelope:",
                  "Input diagnostics", "Notes", "Variants:"):
        assert any(x.startswith(title) for x in lines), title
    shown = {s.variant for s in rep.sensitivity if s.is_base or s.delta or s.topics_changed}  # values that move
    joined = joined_variant_lines(text)
    for v in {r.variant for r in rep.agreement} | shown:
        assert v in joined  # each on lines of its own, broken after '|' only
    i = lines.index("    ties: topic 104: 2 documents tied at 1.7 from rank 1; docno-desc puts")  # under its row
    assert lines[i + 1] == "    D104-25 first, docno-asc puts D104-08 first (RR 0.5000 -> 1.0000)"
    assert lines[i - 3].split() == ["bm25", "RR", "native", "ir_measures:msmarco"]
    assert len(lines) > 3 * len(render_audit(rep, "text", width=80).splitlines())


def test_other_formats_are_unchanged_by_the_view(rep):
    md = render_audit(rep, "markdown")
    assert md == render_audit(rep, "markdown", view="full")
    assert r"ties: topic 104: 2 documents tied at 1\.7 from rank 1" in md  # Markdown specials escaped
    assert rep.inputs[1].sha256 and len(rep.inputs[1].sha256) == 64


def _fake(path, probe_rr: str, probe_11pt: str, body: str):
    path.write_text("#!/bin/sh\ncase \"$*\" in\n"
                    f"  *recip_rank*11pt_avg*) printf 'recip_rank\\tf\\t{probe_rr}\\n11pt_avg\\ti\\t{probe_11pt}\\n' ;;\n"
                    "  -v) echo 'trec_eval version fake' ;;\n"
                    f"  *) {body} ;;\nesac\n")
    path.chmod(path.stat().st_mode | stat.S_IEXEC)
    return str(path)


def test_reference_statuses_and_cli_width(tmp_path):
    slow = _fake(tmp_path / "slow", "1.0000", "0.4295", "exec sleep 30")  # probes as 9.0.8, then hangs
    broken = _fake(tmp_path / "broken", "0.5000", "0.4409", "echo 'trec_eval: fake failure' >&2; exit 3")  # 10.0
    unknown = tmp_path / "unknown"
    unknown.write_text("#!/bin/sh\necho 'trec_eval version unknown'\n")
    unknown.chmod(unknown.stat().st_mode | stat.S_IEXEC)
    out, err = io.StringIO(), io.StringIO()
    code = main(["audit", Q, BM25, "-m", "AP", "--against", "trec_eval", "--trec-eval", slow, "--trec-eval", broken,
                 "--trec-eval", str(unknown), "--timeout", "1", "--width", "80"], out, err)
    text = out.getvalue()
    assert code == 3, err.getvalue()  # every reference timed out, failed or is unsupported: nothing checked
    assert " ".join(text.split()).startswith("NOTHING CHECKED: no reference value was compared: trec_eval-9.0.8 timed out; "
                           "trec_eval-10.0 failed (exit 3)")
    _fits(text, 80)
    refs = " ".join(" ".join(_section(text, "References")).split())
    assert re.search(r"trec_eval-9\.0\.8 timed out [\d.]+ [\d.]+ timeout after 1 s", refs)
    assert re.search(r"trec_eval-10\.0 failed [\d.]+ [\d.]+ exit status 3 on .*stderr: trec_eval: fake failure", refs)
    assert f"trec_eval ({unknown}) unsupported 0.0 - unsupported: {unknown} behaves like no known trec_eval" in refs
    agree = _agreement(text)
    assert _row(agree, "trec_eval-9.0.8") == ["timed", "out"] and _row(agree, "trec_eval-10.0") == ["failed"]
    out2 = io.StringIO()
    assert main(["audit", Q, BM25, "-m", "AP", "--against", "trec_eval", "--trec-eval", broken, "--detail",
                 "--width", "120"], out2, io.StringIO()) == 3
    _fits(out2.getvalue(), 120)
    assert "Evidence per topic" not in out2.getvalue()  # nothing to attribute: an empty table is left out
    assert any(x.startswith("Variants:") for x in out2.getvalue().splitlines())
    bad = io.StringIO()
    assert main(["audit", Q, BM25, "--detail", "--view", "summary"], io.StringIO(), bad) == 2
    assert "contradicts --view summary" in bad.getvalue()


def test_grid_chunks_wraps_and_never_cuts_a_word():
    rows = [["ir_measures:pytrec_eval", "0.1559", "0.1685", "0.1250", "ties topics"], ["x", "=", "=", "=", ""]]
    lines = [t for t, _ in grid(["reference", "AP", "nDCG@10", "P@10", "axes"], rows, 50, wrap_cols=[4],
                                right=[1, 2, 3], chunk=True)]
    assert max(map(len, lines)) <= 50
    assert lines[2].split() == ["ir_measures:pytrec_eval", "0.1559", "0.1685"]  # two blocks, the key repeated
    assert ["ir_measures:pytrec_eval", "0.1250", "ties", "topics"] in [x.split() for x in lines]
    assert wrap("a " + "x" * 30 + " b", 10) == ["a", "x" * 30, "b"]  # a long word alone, whole
    rows = [["bm25", "AP", "native (trec_eval-9.0.8), pytrec_eval", "ties: topic 101: 2 documents tied at 2.0"]]
    lines = [t for t, _ in grid(["run", "measure", "A", "evidence"], rows, 30, wrap_cols=[2, 3])]
    assert max(map(len, lines)) <= 30
    assert "    evidence: ties: topic 101:" in lines  # the column that does not fit: under its row
