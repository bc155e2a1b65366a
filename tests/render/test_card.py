"""auditeval card: hand-checked numbers, hostile ids escaped in every format, LaTeX compiles,
every number with its variant string, the JSON inside an ir_metadata block."""

from __future__ import annotations

import hashlib
import io
import json
import re
import subprocess
from html.parser import HTMLParser
from pathlib import Path

import pytest
from paths import EXAMPLES, need_program

from auditeval.cli.main import main
from auditeval.vocab.variant import parse_variant

TAG = "r&d_$x{}\\%#^~<script>|*`"  # a run tag every format must escape
T1, T2, T3 = "<b>&_1", "x|y", "$3"  # topic ids likewise; T3 is missing from the runs


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict[str, Path]:
    d = tmp_path_factory.mktemp("card")
    q = d / "qrels.txt"
    q.write_text(f"{T1} 0 a 1\n{T1} 0 b 0\n{T1} 0 c 1\n{T2} 0 d 1\n{T3} 0 e 1\n")
    run = d / "run.txt"  # T1: a b c -> AP (1/1 + 2/3)/2 = 5/6; T2: d -> 1
    run.write_text(f"{T1} Q0 a 1 3 {TAG}\n{T1} Q0 b 2 2 {TAG}\n{T1} Q0 c 3 1 {TAG}\n{T2} Q0 d 1 1 {TAG}\n")
    base = d / "base.txt"  # T1: b a c -> AP (1/2 + 2/3)/2 = 7/12; T2: d -> 1
    base.write_text(f"{T1} Q0 b 1 3 base\n{T1} Q0 a 2 2 base\n{T1} Q0 c 3 1 base\n{T2} Q0 d 1 1 base\n")
    return {"qrels": q, "run": run, "base": base, "dir": d}


def _card(files, fmt: str, *extra: str) -> str:
    out = io.StringIO()
    rc = main(["card", str(files["qrels"]), str(files["run"]), "--baseline", str(files["base"]), "-m", "AP",
               "--format", fmt, *extra], out, io.StringIO())
    assert rc == 0
    return out.getvalue()


def test_json_numbers_hashes_bootstrap_and_ir_metadata(files):
    doc = json.loads(_card(files, "json"))
    ev = doc["research goal"]["evaluation"]
    card = ev["card"]
    assert ev["reported measures"] == ["AP", "Judged@10"] and ev["evaluator"]["name"] == "auditeval"
    assert ev["evaluator"]["profiles"][0]["variants"]["AP"] == card["numbers"][0]["variant"]
    assert card["qrels_sha256"] == hashlib.sha256(files["qrels"].read_bytes()).hexdigest()
    assert card["runs"][0]["sha256"] == hashlib.sha256(files["run"].read_bytes()).hexdigest()
    nums = {(n["run"], n["measure"]): n for n in card["numbers"]}
    assert nums[(TAG, "AP")]["value"] == pytest.approx((5 / 6 + 1) / 2, abs=1e-12)
    assert nums[("base", "AP")]["value"] == pytest.approx((7 / 12 + 1) / 2, abs=1e-12)
    # Judged@10 (trec_eval 10 unj denominator k = 10): T1 3 judged of 10, T2 1 of 10
    assert nums[(TAG, "Judged@10")]["value"] == pytest.approx((0.3 + 0.1) / 2, abs=1e-12)
    for n in card["numbers"]:
        assert str(parse_variant(n["variant"])) == n["variant"] and n["engine"].startswith("auditeval")
    r = card["runs"][0]
    assert (r["topics_evaluated"], r["missing"], r["empty"], r["tied_docs"], r["float32_collapsed"]) == (2, [T3], [], 0, 0)
    (c,) = card["comparisons"]
    # per-topic differences (1/4, 0): resample means 0, 1/8 or 1/4 -> 95% interval [0, 1/4];
    # a resample of T2 twice (probability 1/4) ties at 0 and counts half: reversal rate ~ 1/8
    assert c["difference"] == pytest.approx(0.125, abs=1e-12)
    assert (c["low"], c["high"]) == (pytest.approx(0.0), pytest.approx(0.25))
    assert c["reversal_rate"] == pytest.approx(0.125, abs=0.01)
    assert card["pooled"] == "unknown" and "judgment pool: unknown." in card["methods"]


def test_markdown_escapes_ids_and_every_number_has_its_variant(files):
    text = _card(files, "markdown")
    assert "<script>" not in text and "<b>" not in text
    assert "r&amp;d\\_\\$x\\{\\}\\\\%\\#^\\~&lt;script&gt;\\|\\*\\`" in text  # every special escaped
    rows = [ln for ln in text.splitlines() if ln.startswith("| ") and re.search(r"\| -?\+?\d\.\d{4} \|", ln)]
    assert len(rows) == 5  # 2 runs x (AP, Judged@10) + 1 comparison
    for ln in rows:
        code = re.search(r"\| `([^`]+)` \|", ln).group(1).replace("\\|", "|")
        parse_variant(code)
    assert "contributed to the judgment pool: unknown\\." in text  # the prose escaped too (Markdown specials)
    pooled = _card(files, "markdown", "--pooled", "base")
    assert "did not contribute to the pool: r&amp;d" in pooled and "contributed to the judgment pool: base" in pooled


def test_html_escapes_ids(files):
    text = _card(files, "html")
    tags: list[str] = []

    class P(HTMLParser):
        def handle_starttag(self, tag, attrs):
            tags.append(tag)

    P().feed(text)
    assert "script" not in tags and "b" not in tags
    assert "r&amp;d_$x{}\\%#^~&lt;script&gt;|*`" in text
    assert text.count("<code>AP|") == 3


def test_latex_compiles_with_hostile_ids(files, tmp_path):
    text = _card(files, "latex")
    flat = text.replace(r"\allowbreak{}", "")  # break points: after every | and in long runs
    assert r"r\&d\_\$x\{\}\textbackslash{}\%\#\textasciicircum{}\textasciitilde{}\textless{}script\textgreater{}" in flat
    assert flat.count(r"\texttt{AP\textbar{}ap\_denom=R") == 3
    need_program("pdflatex", install="Debian: apt-get install texlive-latex-base; the structure is asserted above")
    (tmp_path / "card.tex").write_text(text)
    done = subprocess.run(["pdflatex", "-interaction=nonstopmode", "-halt-on-error", "card.tex"], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:]
    assert (tmp_path / "card.pdf").stat().st_size > 1000




def _eval_all(settings: list[str]) -> dict[str, tuple[float, str]]:
    out = io.StringIO()
    args = [str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "bm25.txt"), str(EXAMPLES / "rerank.txt"), "-m", "AP"]
    assert main(["eval", *args, "--format", "tsv", *settings], out, io.StringIO()) == 0
    rows = [ln.split("\t") for ln in out.getvalue().splitlines()[1:] if not ln.startswith("#")]
    return {r[0]: (float(r[3]), r[4]) for r in rows if r[2] == "all"}


def test_card_set_applies_the_settings_as_eval_does():
    # rerank lacks topic 105; under topics=qrels it scores 0 there: AP over 5 topics
    # = (0.7880952 + 0.7971429 + 0.7666012 + 0.7659903 + 0) / 5 (trec_eval 9.0.8 -q per topic)
    out = io.StringIO()
    rc = main(["card", str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "bm25.txt"), str(EXAMPLES / "rerank.txt"),
               "-m", "AP", "--set", "topics=qrels", "--format", "json"], out, io.StringIO())
    assert rc == 0
    card = json.loads(out.getvalue())["research goal"]["evaluation"]["card"]
    assert card["profile"] == "trec_eval-9.0.8 with topics=qrels" and card["axes"]["topics"] == "qrels"
    nums = {n["run"]: n for n in card["numbers"] if n["measure"] == "AP"}
    ev = _eval_all(["--set", "topics=qrels"])
    for run in ("bm25", "rerank"):
        assert (nums[run]["value"], nums[run]["variant"]) == ev[run]
    assert "topics=qrels" in nums["rerank"]["variant"] and nums["rerank"]["topics"] == 5
    assert nums["rerank"]["value"] == pytest.approx((0.7880952380952381 + 0.7971428571428572 + 0.7666012350222876
                                                     + 0.7659902597402597) / 5, abs=1e-12)
    assert nums["rerank"]["value"] != _eval_all([])["rerank"][0]  # the setting changed the number


def test_card_comparison_on_fewer_topics_carries_the_subset_marker():
    # rerank lacks 105: bm25 - rerank AP over 101-104 = mean of (0.6158730 - 0.7880952, 0.5691249 - 0.7971429,
    # 0.6821015 - 0.7666012, 0.5617063 - 0.7659903) (trec_eval 9.0.8 -q per topic)
    out = io.StringIO()
    rc = main(["card", str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "bm25.txt"), "--baseline", str(EXAMPLES / "rerank.txt"),
               "-m", "AP", "--format", "json"], out, io.StringIO())
    assert rc == 0
    card = json.loads(out.getvalue())["research goal"]["evaluation"]["card"]
    (c,) = card["comparisons"]
    hand = ((0.6158730158730158 - 0.7880952380952381) + (0.5691249491249492 - 0.7971428571428572)
            + (0.6821015489636383 - 0.7666012350222876) + (0.5617063492063491 - 0.7659902597402597)) / 4
    assert c["difference"] == pytest.approx(hand, abs=1e-12) and c["topics"] == 4
    plain = next(n["variant"] for n in card["numbers"] if n["measure"] == "AP")
    assert c["variant"] == plain + "|subset=paired(4/5:-105)"
