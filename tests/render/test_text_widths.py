"""Every command's text view fits the width and never splits a token.

Each view is rendered at 80 and 100 columns (``--width`` where the command has it, else
``$COLUMNS``: the output is not a terminal) on the bundled examples (and two robust03 runs
for ``compare``) and checked three ways:

(a) every line is at most the width, unless it holds a single token longer than the width;
(b) every variant string printed, its continuation lines (after a ``|``) joined back, is one
    of the variant strings the command's JSON output carries, and no run label, measure,
    topic id or profile name is cut over a line end;
(c) real values: bm25 P@10 = 26/50 = 0.5200 (4+6+7+4+5 relevant in the top 10 of topics
    101-105, counted in the files), rerank P@10 = 25/40 = 0.6250 (topic 105 absent), the
    pool of both runs at depth 100 = 179 distinct (topic, doc) pairs out of 150 + 120 ranked
    (``sort -u`` over the two files); every other value comes from an independent source: the
    plain-Python model of ``tests/plain_model.py`` (AP, P@k, nDCG@k, Accuracy under each
    profile's TOML axes), scipy's tau-b for KTU and repro_eval's RBO.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import plain_model as pm
import pytest
from cli_helpers import run_cli
from paths import EXAMPLES
from rich.cells import cell_len

EX = EXAMPLES
Q, BM25, RERANK = str(EX / "qrels.txt"), str(EX / "bm25.txt"), str(EX / "rerank.txt")
WIDTHS = (80, 100)
BOX = "│┃"
TE9 = pm.profile("trec_eval-9.0.8")


def f4(x: float) -> str:
    return f"{x:.4f}"


def model(run: str, measure: str, profile: str = "trec_eval-9.0.8", *settings: str, qrels: str = Q) -> str:
    """``measure``'s mean on ``run`` under ``profile`` by the plain-Python model, as printed."""
    return f4(pm.mean(qrels, run, measure, pm.profile(profile, *settings)))
NAMES = ["bm25", "rerank", "nDCG@10", "R@1000", "trec_eval-9.0.8", "ir_measures-0.4-msmarco", "101", "105"]


def _tokens(line: str) -> list[str]:
    return line.translate({ord(c): " " for c in BOX}).split()


def fits(text: str, width: int) -> None:
    """(a): each line within ``width``, or a single token standing alone."""
    assert "…" not in text  # nothing cut short with an ellipsis
    for line in text.splitlines():
        if cell_len(line) > width:
            assert len(_tokens(line)) == 1, f"{cell_len(line)} > {width}: {line!r}"


def printed_variants(text: str) -> list[str]:
    """Every variant string of ``text`` (a token holding ``|`` and ``=``), continuation
    lines joined: a piece ending in ``|`` continues with the first token of the next line."""
    lines = [_tokens(x) for x in text.splitlines()]
    used: set[tuple[int, int]] = set()
    found = []
    for i, toks in enumerate(lines):
        for j, t in enumerate(toks):
            if (i, j) in used or "|" not in t or "=" not in t or t.startswith("|"):
                continue
            acc, k = t, i
            while acc.endswith("|") and k + 1 < len(lines) and lines[k + 1]:
                k += 1
                acc += lines[k][0]
                used.add((k, 0))
            found.append(acc)
    return found


def json_variants(doc) -> set[str]:
    """Every string of a JSON document that looks like a variant string."""
    if isinstance(doc, dict):
        return set().union(*(json_variants(v) for v in doc.values())) if doc else set()
    if isinstance(doc, list):
        return set().union(*(json_variants(v) for v in doc)) if doc else set()
    return {doc} if isinstance(doc, str) and "|" in doc and "=" in doc and " " not in doc else set()


def whole(text: str, names: list[str]) -> None:
    """(b) for ids: no name is cut over a line end (a variant string only after a ``|``)."""
    lines = [x.strip(" " + BOX) for x in text.splitlines()]
    edge = r"[^\w@.\-]"  # what may stand beside an id (a space, a parenthesis, ...)
    for a, b in zip(lines, lines[1:], strict=False):
        for n in names:
            for k in range(1, len(n)):
                cut = re.search(f"(?:^|{edge}){re.escape(n[:k])}$", a) and re.match(f"{re.escape(n[k:])}(?:$|{edge})", b)
                assert not cut, (n, a, b)


def check(text: str, width: int, variants: set[str], least: int = 1) -> list[str]:
    """(a) and (b); returns the variant strings printed (at least ``least``)."""
    fits(text, width)
    whole(text, NAMES)
    shown = printed_variants(text)
    assert len(shown) >= least, text
    for v in shown:
        assert v in variants, (v, width)
    return shown


def cli_json(*argv: str) -> dict:
    code, out, err = run_cli(*argv)
    assert code in (0, 1), err
    return json.loads(out)


def cli_text(monkeypatch, width: int, *argv: str) -> str:
    monkeypatch.setenv("COLUMNS", str(width))
    code, out, err = run_cli(*argv)
    assert code in (0, 1), err
    return out


@pytest.fixture(scope="module")
def eval_variants() -> set[str]:
    out = set()
    for p in ("trec_eval-9.0.8", "ir_measures-0.4-msmarco", "ranx-0.3"):
        out |= json_variants(cli_json("eval", Q, BM25, RERANK, "--profile", p, "--format", "json"))
    return out


def rows(text: str, first: str) -> list[list[str]]:
    return [_tokens(x) for x in text.splitlines() if _tokens(x)[:1] == [first]]


@pytest.mark.parametrize("width", WIDTHS)
def test_eval_views(monkeypatch, width, eval_variants):
    def view(*extra: str) -> str:
        return cli_text(monkeypatch, width, "eval", Q, BM25, RERANK, "--width", str(width), *extra)

    short = view()
    fits(short, width)
    whole(short, NAMES)
    assert ["bm25", "P@10", "0.5200"] in rows(short, "bm25")
    assert ["rerank", "P@10", "0.6250"] in rows(short, "rerank")
    full = view("--variants", "full")
    assert len(check(full, width, eval_variants, least=10)) == 10  # every row's variant, whole
    assert ["bm25", "P@10", "0.5200"] == next(r[:3] for r in rows(full, "bm25") if "P@10" in r)
    matrix = view("--matrix", "--variants", "full")
    assert len(check(matrix, width, eval_variants, least=5)) == 5  # one per measure
    many = "AP nDCG@10 P@10 R@1000 RR GMAP Bpref P@5 P@20 nDCG@20 Rprec P@15 P@30 nDCG@5"
    matrix = view("--matrix", "-m", many)  # measures in several blocks, each within the width
    fits(matrix, width)
    assert ["bm25", model(BM25, "AP")] == rows(matrix, "bm25")[0][:2]
    assert sum(r[0] == "run" for r in (x.split() for x in matrix.splitlines()) if r) >= 2
    side = view("--variants", "full", "--profile", "trec_eval-9.0.8", "--profile", "ir_measures-0.4-msmarco")
    check(side, width, eval_variants, least=20)
    assert ["run", "measure", "trec_eval-9.0.8", "ir_measures-0.4-msmarco"] == rows(side, "run")[0][:4]
    three = view("--profile", "trec_eval-9.0.8", "--profile", "ir_measures-0.4-msmarco", "--profile", "ranx-0.3")
    fits(three, width)
    whole(three, NAMES)
    expected = [model(RERANK, "P@10", p) for p in ("trec_eval-9.0.8", "ir_measures-0.4-msmarco", "ranx-0.3")]
    assert expected[0] == "0.6250"  # 25/40, counted by hand (see the docstring)
    assert ["rerank", "P@10", *expected] in [r[:5] for r in rows(three, "rerank")]
    long = ("trec_eval-9.0.8-double", "ir_measures-0.4-msmarco", "ir_measures-0.4-gdeval")
    named = view("-m", "AP nDCG@10", *(x for p in long for x in ("--profile", p)))
    fits(named, width)
    whole(named, NAMES + list(long))
    assert ["bm25", "nDCG@10", *(model(BM25, "nDCG@10", p) for p in long)] in [r[:5] for r in rows(named, "bm25")]
    if width == 80:  # the names do not fit as headers: short labels, each name whole under the table
        assert rows(named, "run")[0][2:5] == ["p1", "p2", "p3"]
        assert "columns: p1=trec_eval-9.0.8-double, p2=ir_measures-0.4-msmarco," in named
    else:
        assert rows(named, "run")[0][2:5] == list(long)
    topics = view("-q")
    fits(topics, width)
    assert ["bm25", "P@10", "101", f4(pm.per_topic(Q, BM25, "P@10", TE9)["101"])] in rows(topics, "bm25")


@pytest.mark.parametrize("width", WIDTHS)
def test_sweep(monkeypatch, width):
    variants = json_variants(cli_json("sweep", Q, BM25, RERANK, "--vary", "ties", "--format", "json"))
    text = cli_text(monkeypatch, width, "sweep", Q, BM25, RERANK, "--vary", "ties")
    assert len(check(text, width, variants, least=5)) == 5  # each of the 5 default measures: its variant under the profile
    assert ["(the", "profile)", model(BM25, "AP"), model(RERANK, "AP")] in [x.split() for x in text.splitlines()]
    asc = [model(r, "AP", "trec_eval-9.0.8", "ties=docno-asc") for r in (BM25, RERANK)]
    assert ["ties=docno-asc", *asc] in [x.split() for x in text.splitlines()]


@pytest.mark.parametrize("width", WIDTHS)
def test_audit_summary_and_detail(width):
    base = ("audit", Q, BM25, "--against", "pytrec_eval", "-m", "AP", "-m", "nDCG@10")
    variants = json_variants(cli_json(*base, "--format", "json"))
    for view in ((), ("--detail",)):
        code, text, err = run_cli(*base, "--width", str(width), *view)
        assert code == 0, err
        shown = check(text, width, variants, least=2 if view else 0)
        if view:  # the legend: AP and nDCG@10 under the profile, whole after joining
            assert {v.split("|")[0] for v in shown} >= {"AP", "nDCG@10"}
        assert "pytrec_eval" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_verify_claims_and_table(monkeypatch, width, tmp_path):
    claims = ("verify", Q, BM25, "--claim", "MAP=0.5742", "--claim", "nDCG@10=0.651")
    variants = json_variants(cli_json(*claims, "--json"))
    text = cli_text(monkeypatch, width, *claims)
    assert len(check(text, width, variants, least=2)) == 2
    assert "0.574205" in text and "trec_eval-9.0.8" in text
    table = tmp_path / "table.csv"
    table.write_text("run,measure,value\nbm25,MAP,0.5742\nrerank,nDCG@10,0.651\n")
    args = ("verify", Q, BM25, RERANK, "--table", str(table))
    variants = json_variants(cli_json(*args, "--json"))
    text = cli_text(monkeypatch, width, *args)
    assert len(check(text, width, variants, least=2)) == 2
    assert "0.5742: reproduced" in text and "not reproduced" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_diff(monkeypatch, width, tmp_path):
    a, b = tmp_path / "trec_eval.txt", tmp_path / "auditeval.json"
    code, out, err = run_cli("trec-eval", "-q", Q, BM25)
    a.write_text(out)
    code, out, err = run_cli("eval", "-q", "--format", "json", "--set", "ties=docno-asc", "-m", "AP P@10 Rprec", Q, BM25)
    b.write_text(out)
    desc = pm.per_topic(Q, BM25, "AP", TE9)
    asc = pm.per_topic(Q, BM25, "AP", pm.profile("trec_eval-9.0.8", "ties=docno-asc"))
    largest = f4(max(abs(desc[t] - asc[t]) for t in desc))
    full = str(pm.mean(Q, BM25, "AP", pm.profile("trec_eval-9.0.8", "ties=docno-asc")))
    for extra in ((), ("--summary",), ("--qrels", Q, "--run", BM25)):
        text = cli_text(monkeypatch, width, "diff", str(a), str(b), *extra)
        check(text, width, set(), least=0)
        assert "10 differ, in 2 measure(s)" in " ".join(text.split())
        assert ["AP", "(map", "/", "AP)", "6", model(BM25, "AP"), full, largest] in rows(text, "AP")
    assert "ties: docno-desc -> docno-asc." in " ".join(text.split())


def _ranking(path: str, topic: str) -> list[str]:
    """``topic``'s documents in trec_eval 9.0.8's order: float32 score desc, docno desc."""
    import numpy as np

    rows = [r for r in pm.read(Q, path)[1] if r[0] == topic]
    rows.sort(key=lambda r: r[1].encode(), reverse=True)
    rows.sort(key=lambda r: -float(np.float32(r[2])))
    return [r[1] for r in rows]


def _shared_topics(a: str, b: str) -> list[str]:
    return sorted({r[0] for r in pm.read(Q, a)[1]} & {r[0] for r in pm.read(Q, b)[1]})


def _ktu(a: str, b: str) -> float:
    """Tied-last KTU by hand: over the union, a missing document at rank len + 1; scipy's tau-b."""
    from scipy.stats import kendalltau

    taus = []
    for t in _shared_topics(a, b):
        x, y = _ranking(a, t), _ranking(b, t)
        union = sorted(set(x) | set(y))
        rx = [x.index(d) + 1 if d in x else len(x) + 1 for d in union]
        ry = [y.index(d) + 1 if d in y else len(y) + 1 for d in union]
        taus.append(kendalltau(rx, ry).statistic)
    return sum(taus) / len(taus)


def _rbo(a: str, b: str) -> float:
    """repro_eval 0.5.0's RBO (p 0.95, depth 1000, its own reader and tie breaking) averaged over
    the topics both runs have (its reader takes no comment line: copies without them)."""
    import tempfile

    from repro_eval.measure.document_order import RBO
    from repro_eval.util import break_ties, load_run

    with tempfile.TemporaryDirectory() as d:
        runs = []
        for i, path in enumerate((a, b)):
            copy = Path(d) / f"{i}.txt"
            copy.write_text("".join(x for x in Path(path).read_text().splitlines(True) if not x.startswith("#")))
            runs.append(break_ties(load_run(str(copy))))
    per = RBO(runs[0], runs[1], p=0.95, depth=1000, pbar=False, per_topic=True)
    shared = _shared_topics(a, b)
    return sum(per[t] for t in shared) / len(shared)


@pytest.mark.parametrize("width", WIDTHS)
def test_reproduce(monkeypatch, width):
    args = ("reproduce", "--qrels", Q, BM25, RERANK, "--baseline-original", BM25, "--baseline-reproduced", RERANK)
    variants = json_variants(cli_json(*args, "-q", "--json"))
    text = cli_text(monkeypatch, width, *args)
    assert len(check(text, width, variants, least=7)) == 7  # KTU, RBO and the five measures
    assert ["KTU", f4(_ktu(BM25, RERANK))] == rows(text, "KTU")[0][:2]
    assert ["RBO", f4(_rbo(BM25, RERANK))] == rows(text, "RBO")[0][:2]
    text = cli_text(monkeypatch, width, *args, "-q")
    assert len(check(text, width, variants, least=15)) == 15  # KTU, RBO: 4 topics (105 in one run) + all; 5 measures


@pytest.mark.parametrize("width", WIDTHS)
def test_compare(monkeypatch, width, robust03):
    args = ("compare", Q, BM25, RERANK, "--trials", "200", "-m", "AP", "-m", "P@10")
    variants = json_variants(cli_json(*args, "--format", "json"))
    text = cli_text(monkeypatch, width, *args)
    assert len(check(text, width, variants, least=2)) == 2
    assert ["1", "1-1", "rerank", model(RERANK, "AP")] == rows(text, "1")[0][:4]
    runs = robust03.dir / "runs"
    args = ("compare", str(robust03.qrels), str(runs / "input.InexpC2.gz"),
            str(runs / "input.MU03rob01.gz"), "-m", "Accuracy(rel=2)@50", "--trials", "200")
    variants = json_variants(cli_json(*args, "--format", "json"))
    text = cli_text(monkeypatch, width, *args)
    assert check(text, width, variants) == [  # MU03rob01 has topics 618 and 648, InexpC2 not: a subset
        "Accuracy@50|depth=all|dups=error|negatives=pooled|rel=2|self_hits=keep|sim=float32|ties=docno-desc|"
        "topics=both|unjudged=nonrel|subset=paired(40/42:-618,-648)"]
    q = str(robust03.qrels)  # InexpC2 keeps all its topics
    want = model(str(runs / "input.InexpC2.gz"), "Accuracy@50", "trec_eval-9.0.8", "rel=2", qrels=q)
    assert ["1", "1-2", "InexpC2", want] == rows(text, "1")[0][:4]


@pytest.mark.parametrize("width", WIDTHS)
def test_pool_views(monkeypatch, width):
    for sub, args in (("stats", (BM25, RERANK, "--per-topic")), ("coverage", (Q, BM25, RERANK)),
                      ("bias", (Q, BM25, RERANK, "--trials", "50")), ("growth", (Q, BM25, RERANK, "--orders", "20"))):
        variants = json_variants(cli_json("pool", sub, *args, "--format", "json"))
        text = cli_text(monkeypatch, width, "pool", sub, *args)
        shown = check(text, width, variants)
        assert shown[0].startswith("pool|depth=100|"), sub
        if sub == "stats":
            assert "unpooled cost 270 pairs" in text and "pooled cost 179 pairs" in text


@pytest.mark.parametrize("width", WIDTHS)
def test_conventions_and_measures(monkeypatch, width):
    text = cli_text(monkeypatch, width, "conventions", "list")
    check(text, width, set(), least=0)
    assert any(_tokens(x)[:1] == ["trec_eval-9.0.8-double"] for x in text.splitlines())
    text = cli_text(monkeypatch, width, "conventions", "show", "trec_eval-9.0.8")
    check(text, width, set(), least=0)
    assert ["ties", "docno-desc"] == rows(text, "ties")[0][:2]
    text = cli_text(monkeypatch, width, "conventions", "diff", "trec_eval-9.0.8", "ir_measures-0.4-msmarco")
    check(text, width, set(), least=0)
    assert rows(text, "ties")[0][:2] == ["ties", "docno-desc:"]
    text = cli_text(monkeypatch, width, "measures")
    check(text, width, set(), least=0)
    assert ["nDCG", "ndcg", "opt", "mean"] == rows(text, "nDCG")[0][:4]
    text = cli_text(monkeypatch, width, "measures", "nDCG")
    check(text, width, set(), least=0)
    assert "  source:       m_ndcg.c, m_ndcg_cut.c" in text.splitlines()
    # every word of a definition stays whole: the words of nDCG's formula, in order
    words = " ".join(x.strip() for x in text.splitlines())
    assert "DCG / ideal DCG, DCG = sum gain_i / log2(i + 1); gain = grade (linear)," in words


def test_variant_breaker_round_trips():
    from auditeval.render.textgrid import wrap_variant

    v = "AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc"
    lines = wrap_variant(v, 34, indent=4, first="AP: ")
    assert lines == ["AP: AP|ap_denom=R|depth=all|", "    dups=error|negatives=pooled|", "    rel=1|self_hits=keep|",
                     "    sim=float32|ties=docno-desc"]
    assert "".join(x.lstrip() if i else x for i, x in enumerate(lines)) == "AP: " + v
    assert wrap_variant("a|" + "x" * 40 + "|b", 20) == ["a|", "  " + "x" * 40 + "|", "  b"]  # never split


@pytest.mark.parametrize("width", WIDTHS)
def test_a_long_run_label_stays_whole(tmp_path, width):
    """A 60-character run tag (the bm25 example renamed): -q prints it whole on a line of its
    own above its per-topic lines; the list view keeps it whole in its row."""
    tag = "bm25_" + "x" * 55
    run = tmp_path / "long.txt"
    run.write_text("".join(line.rsplit(" ", 1)[0] + f" {tag}\n" for line in Path(BM25).read_text().splitlines()
                           if not line.startswith("#")))
    code, out, err = run_cli("eval", Q, str(run), "-q", "-m", "P@10", "--width", str(width))
    assert code == 0, err
    fits(out, width)
    whole(out, [tag])
    lines = out.splitlines()
    if width == 80:  # 60 + measure + topic + value do not fit: the tag on a line of its own
        i = lines.index(tag)
        assert lines[i + 1].split() == ["P@10", "101", "0.5000"]  # 5 relevant in topic 101's top 10
    else:
        assert [tag, "P@10", "101", "0.5000"] in [x.split() for x in lines]
    assert [tag, "P@10", "0.5200"] in [x.split() for x in lines]  # the list view below


@pytest.mark.parametrize("argv", [
    ["sweep", str(EX / "qrels.txt"), str(EX / "bm25.txt"), "-m", "AP", "--vary", "ties"],
    ["verify", str(EX / "qrels.txt"), str(EX / "bm25.txt"), "--claim", "MAP=0.5742"],
    ["pool", "stats", str(EX / "bm25.txt"), str(EX / "rerank.txt"), "--depth", "10"],
    ["measures", "nDCG"],
    ["conventions", "show", "textbook"],
])
def test_every_text_command_takes_width(monkeypatch, capsys, argv):
    """``--width`` on every command (and pool / conventions subcommand) beats $COLUMNS."""
    monkeypatch.setenv("COLUMNS", "200")
    code, out, err = run_cli(*argv, "--width", "60")
    assert code == 0, err
    fits(out, 60)
    assert max(cell_len(x) for x in out.splitlines()) > 50  # the room was used, not a fixed narrow layout
    with pytest.raises(SystemExit) as exc:  # argparse's usage error
        run_cli(*argv, "--width", "20")
    assert exc.value.code == 2 and "--width must be at least 40 columns, got 20" in capsys.readouterr().err
