"""Audit renderers: one report, five formats, every id escaped for its format; the HTML
file renders in a real headless browser; the official-measure check."""

from __future__ import annotations

import json
import re
import subprocess

import pytest
from paths import need_program

import auditeval as ae
from auditeval.auditing.official import check
from auditeval.render.audit import render_audit
from auditeval.vocab.conventions import resolve
from auditeval.vocab.variant import parse_measure

TOPIC = "q_1%&#$~^\\{x}|<b>"  # every character LaTeX, Markdown and HTML give meaning to
DOC_A = "<script>alert(1)</script>"
DOC_B = "[bold]B[/bold]"  # rich markup must print literally
TAG = "<img_src=x_onerror=alert(2)>"


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    d = tmp_path_factory.mktemp("hostile")
    q = d / "qrels"
    q.write_text(f"{TOPIC} 0 {DOC_A} 1\n{TOPIC} 0 zz 0\n")
    r = d / "run"
    r.write_text(f"{TOPIC} Q0 {DOC_A} 1 1.0 {TAG}\n{TOPIC} Q0 {DOC_B} 2 1.0 {TAG}\n")
    # chosen profile: trec_eval 9.0.8 with ties by docno ascending; pytrec_eval (docno-desc) is
    # asked for both its own profile and the chosen one (emulated: auditeval ranks, it scores)
    conv = resolve("trec_eval-9.0.8", ["ties=docno-asc"])
    return ae.audit(str(q), [str(r)], measures=["AP", "P@1"], against=["pytrec_eval"], profile=conv, samples=5)


def test_the_hostile_case_is_explained(report):
    assert report.exit_status == 0
    rows = {(r.measure, r.detail.startswith("emulated")): r for r in report.agreement}
    # own profile: docno-desc puts DOC_B ('[' > '<') first: AP 1/2; chosen (docno-asc, emulated): AP 1
    assert rows[("AP", False)].value == 0.5 and rows[("AP", False)].status == "match"
    assert rows[("AP", True)].value == 1.0 and rows[("AP", True)].status == "match"
    att = [a for a in report.attributions if a.measure == "AP"][0]
    assert att.a_to_b == [["ties=docno-desc"]]
    assert att.evidence == [f"ties: topic {TOPIC}: 2 documents tied at 1.0 from rank 1; docno-asc puts {DOC_A} first, "
                            f"docno-desc puts {DOC_B} first (AP 1.0000 -> 0.5000)"]


def test_html_escapes_every_id(report):
    html = render_audit(report, "html")
    for raw in (DOC_A, TAG, "<b>"):
        assert raw not in html
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in html
    assert "q_1%&amp;#$~^\\{x}|&lt;b&gt;" in html
    for fetch in ('src="', 'href="http', "<link", "@import", "<script"):  # self-contained: nothing to load
        assert fetch not in html
    assert re.search(r"url\((?!#)", html) is None  # only the SVG's own clip paths (url(#id))


def test_latex_markdown_text_json_escape(report):
    tex = render_audit(report, "latex").replace(r"\allowbreak{}", "")  # break points (no overfull box)
    assert r"q\_1\%\&\#\$\textasciitilde{}\textasciicircum{}\textbackslash{}\{x\}\textbar{}\textless{}b\textgreater{}" in tex
    assert TOPIC not in tex
    md = render_audit(report, "markdown")
    assert r"q\_1%&amp;\#\$\~^\\\{x\}\|&lt;b&gt;" in md  # every Markdown special escaped
    assert TOPIC not in md and DOC_A not in md
    text = render_audit(report, "text", width=100)
    assert DOC_B in text  # printed literally, not taken as markup
    assert max(len(line) for line in text.splitlines()) <= 100
    data = json.loads(render_audit(report, "json"))
    assert data["exit_status"] == 0
    assert {r["engine_version"] for r in data["agreement"]} == {report.engines[1].engine}
    # one axis flipped from the chosen docno-asc at a time, by hand: only docno-desc puts DOC_B
    # ('[' 0x5b > '<' 0x3c) first, which makes AP 1/2 (the relevant DOC_A at rank 2) and P@1 0
    sens = {(r["measure"], r["axis"], str(r["value"])): r["aggregate"] for r in data["sensitivity"]}
    for axis, value in (("ties", "docno-asc"), ("ties", "file-order"), ("ties", "rank"), ("unjudged", "drop"),
                        ("sim", "float64")):
        assert (sens[("AP", axis, value)], sens[("P@1", axis, value)]) == (1.0, 1.0), (axis, value)
    assert (sens[("AP", "ties", "docno-desc")], sens[("P@1", "ties", "docno-desc")]) == (0.5, 0.0)
    assert all(r["engine"] == report.native_engine for r in data["sensitivity"])
    assert {r["variant"] for r in data["sensitivity"] if (r["axis"], str(r["value"])) == ("ties", "docno-desc")} == {
        str(ae.parse_variant(v)) for v in (
            "AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc|"
            "topics=both|unjudged=nonrel",
            "P@1|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc|"
            "topics=both|unjudged=nonrel")}
    frame = report.to_frame()
    assert set(frame.columns) == {"run", "measure", "topic", "variant", "engine", "value", "section"}


def test_html_renders_in_headless_chromium(report, tmp_path):
    browser = need_program("chromium", "chromium-browser", install="Debian: apt-get install chromium")
    page = tmp_path / "audit.html"
    page.write_text(render_audit(report, "html"), encoding="utf-8")
    dom = subprocess.run([browser, "--headless", "--no-sandbox", "--disable-gpu", "--dump-dom", page.as_uri()],
                         capture_output=True, text=True, timeout=120).stdout
    assert "every difference explained" in dom
    assert "Tie envelope" in dom and "Attribution" in dom
    assert "<script" not in dom and "onerror" not in dom.replace("_onerror=alert(2)&gt;", "")
    assert "&lt;script&gt;alert(1)&lt;/script&gt;" in dom


def test_official_measures_of_trec_dl_2019():
    conv = resolve("trec_eval-9.0.8")
    rows = check("msmarco-passage/trec-dl-2019/judged", [parse_measure(m) for m in ("AP", "nDCG@10", "RR(rel=2)")], conv)
    got = [(r.measure, r.official, r.status) for r in rows]
    assert got == [("AP", "AP(rel=2)", "departs"), ("nDCG@10", "nDCG@10", "ok"), ("RR(rel=2)", "RR(rel=2)", "ok")]
    assert rows[0].detail == "official AP(rel=2) counts grade >= 2 as relevant; requested uses rel=1"
