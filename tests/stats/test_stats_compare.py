"""auditeval compare on small hand-built inputs: numbers, formats, escaping, errors, plots."""

from __future__ import annotations

import io
import json
from pathlib import Path

import numpy as np
import pytest
from paths import EXAMPLES

from auditeval.cli.main import main

TOPICS = [f"{k:02d}" for k in range(1, 13)]


def _write(tmp_path: Path) -> tuple[str, list[str]]:
    """12 topics, one relevant doc 'r' each. P@1 per topic:
    run 'good_run|1' (tag with LaTeX/Markdown specials): 1 on every topic;
    run 'mid': 1 on topics 01-10, 0 on 11-12; run 'bad': 1 on topics 01-06 only."""
    (tmp_path / "qrels").write_text("".join(f"{t} 0 r 1\n{t} 0 n 0\n" for t in TOPICS))
    paths = []
    for tag, hits in (("good_run&1", 12), ("mid", 10), ("bad", 6)):
        lines = []
        for k, t in enumerate(TOPICS):
            first, second = ("r", "n") if k < hits else ("n", "r")
            lines += [f"{t} Q0 {first} 1 2.0 {tag}\n", f"{t} Q0 {second} 2 1.0 {tag}\n"]
        p = tmp_path / f"{tag}.run"
        p.write_text("".join(lines))
        paths.append(str(p))
    return str(tmp_path / "qrels"), paths


def _reversal_model(variant: str, trials: int, n: int, nonzero: set[int]) -> float:
    """Reversal rate of a pair whose per-topic difference is > 0 on the topic indices
    ``nonzero`` and 0 elsewhere, by a loop over the bootstrap resamples of the documented
    stream (auditeval/stats/rng.py: PCG64(SeedSequence(seed 0, spawn_key = the four
    little-endian uint32 words of BLAKE2b-128 of "bootstrap" \\x1f variant)); one block of
    ``rng.integers(0, n, (trials, n))`` when trials <= 2048): the resample mean is > 0 when it
    draws a non-zero topic, else 0, a tie counted as half a reversal."""
    import hashlib

    digest = hashlib.blake2b(f"bootstrap\x1f{variant}".encode(), digest_size=16).digest()
    words = [int.from_bytes(digest[4 * i:4 * i + 4], "little") for i in range(4)]
    rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(0, spawn_key=words)))
    assert trials <= 2048
    ties = 0
    for row in rng.integers(0, n, size=(trials, n)).tolist():
        if not any(t in nonzero for t in row):
            ties += 1
    return ties / 2 / trials


def _run(args: list[str]) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    code = main(["compare", *args], out, err)
    return code, out.getvalue(), err.getvalue()


def test_compare_json_hand_checked(tmp_path):
    qrels, runs = _write(tmp_path)
    code, out, err = _run([qrels, *runs, "-m", "P@1", "--trials", "2000", "--format", "json", "--baseline", "mid"])
    assert code == 0, err
    m = json.loads(out)["measures"][0]
    assert m["variant"].startswith("P@1|") and m["topics"] == 12
    means = {s["run"]: s["mean"] for s in m["systems"]}
    assert means == {"good_run&1": 1.0, "mid": pytest.approx(10 / 12), "bad": 0.5}
    assert [s["rank"] for s in m["systems"]] == [1, 2, 3]
    rows = m["pairs"]["rows"]
    assert [(r["a"], r["b"]) for r in rows] == [("good_run&1", "mid"), ("bad", "mid")]  # baseline never vs itself
    good = rows[0]
    # d = 0 on ten topics, 1 on two: exact randomization (12 <= 20 topics): |sum| >= 2 only
    # when both non-zero topics keep one sign: 2 of 4 -> p = 0.5; sign test: 2 wins 0 losses
    # -> 2 * 1/4 = 0.5; holm over the two tests (0.5 and 0.125 below): 0.25, max(0.25, 0.5)
    assert good["p"]["randomization"] == 0.5 and "exact" in m["pairs"]["methods"]["randomization"]
    assert good["p"]["sign"] == pytest.approx(0.5)
    assert good["p_adjusted"]["randomization"] == 0.5
    assert rows[1]["p_adjusted"]["randomization"] == 0.25
    assert (good["wins"], good["ties"], good["losses"]) == (2, 10, 0)
    # t: mean 1/6, sd sqrt((2 (5/6)^2 + 10 (1/6)^2) / 11) = sqrt(20/132)
    assert good["t"] == pytest.approx((1 / 6) / (np.sqrt(20 / 132) / np.sqrt(12)))
    # the bootstrap difference can never be negative; a resample drawing neither topic 11 nor 12
    # ties (half a reversal): a plain-Python loop over the same seed stream, about 0.5 (10/12)^12
    want = _reversal_model(m["variant"], 2000, 12, {10, 11})
    assert good["reversal_rate"] == want and abs(want - 0.5 * (10 / 12) ** 12) < 0.02
    assert m["swap"]["matrix"][0][1] == want and good["percentile"][0] >= 0
    # bad vs mid: d = -1 on topics 07-10 (4), 0 elsewhere: exact p = 2 / 2^4
    assert rows[1]["p"]["randomization"] == 2 / 16
    assert m["bootstrap"]["trials"] == 2000 and m["bootstrap"]["seed"] == 0
    assert good["median_topic_diff"] == 0.0 and good["boot_median"] == pytest.approx(1 / 6, abs=0.09)


def test_compare_qrels_b_agreement(tmp_path):
    qrels, runs = _write(tmp_path)
    # qrels B: 'n' is the relevant doc on topics 07-12 instead of 'r' -> P@1 of bad = 1 there
    b = tmp_path / "qrels_b"
    b.write_text("".join(f"{t} 0 r {int(k < 6)}\n{t} 0 n {int(k >= 6)}\n" for k, t in enumerate(TOPICS)))
    code, out, err = _run([qrels, *runs, "-m", "P@1", "--trials", "500", "--format", "json", "--qrels-b", str(b)])
    assert code == 0, err
    ag = json.loads(out)["measures"][0]["agreement"]
    # A: good 1, mid 10/12, bad 1/2; B: good 6/12, mid 8/12 (01-06 and 11-12), bad 12/12
    assert ag["pairs"] == 3 and ag["same_order"] == 0.0 and ag["tau"] == pytest.approx(-1.0)
    assert {(g["a"], g["b"]) for g in ag["disagreements"]} == {("good_run&1", "mid"), ("good_run&1", "bad"),
                                                              ("mid", "bad")}
    code, text, _ = _run([qrels, *runs, "-m", "P@1", "--trials", "500", "--qrels-b", str(b)])
    flat = " ".join(text.split())  # as wrapped to the width
    assert "Kendall tau -1.000" in flat and "3 disagreements" in flat


def test_compare_text_fits_100_columns_and_names_settings(tmp_path):
    qrels, runs = _write(tmp_path)
    code, out, _ = _run([qrels, *runs, "-m", "P@1", "-m", "RR", "--trials", "500", "--seed", "7"])
    assert code == 0
    assert max(len(line) for line in out.splitlines()) <= 100
    assert "500 trials, seed 7, level 0.95" in out
    assert "variant: P@1|" in out and "variant: RR|" in out
    assert "good_run&1" in out
    # every run scores 1 on topics 01-06: reported as non-discriminating, mean without them
    assert "6 topics with every run >= 0.99: 01, 02, 03, 04, 05, 06" in out
    assert "mean, 6 topics" in out


def test_compare_markdown_and_latex_escape_ids(tmp_path):
    qrels, runs = _write(tmp_path)
    code, md, _ = _run([qrels, *runs, "-m", "P@1", "--trials", "300", "--format", "markdown"])
    assert code == 0 and "good\\_run&amp;1" in md and "| rank |" in md
    code, tex, err = _run([qrels, *runs, "-m", "P@1", "--trials", "300", "--format", "latex"])
    assert code == 0, err
    flat = tex.replace(r"\allowbreak{}", "")  # break points in the run column
    assert r"good\_run\&1" in flat and "good_run&1" not in tex.replace(r"\_", "_").replace(r"\&", "&X")
    # best value bold; good beats bad on 6 topics, 0 elsewhere: exact p = 2/64, holm x3 = 0.09375 > 0.05
    assert r"$\mathbf{1.0000}$" in tex
    assert "randomization test" in tex and "holm" in tex and r"\texttt{P@1\textbar{}" in tex
    code, tex, _ = _run([qrels, *runs, "-m", "P@1", "--trials", "300", "--format", "latex", "--level", "0.9",
                         "--correction", "none"])
    # alpha 0.1, no correction: good (a) beats bad (c) with p = 2/64 -> superscript c
    assert r"$\mathbf{1.0000}^{c}$" in tex


def test_compare_errors_are_clean(tmp_path):
    qrels, runs = _write(tmp_path)
    code, _, err = _run([qrels, *runs, "--baseline", "nope"])
    assert code == 2 and err.startswith("auditeval: error: --baseline nope: not one of the runs given")
    strata = tmp_path / "strata.csv"
    strata.write_text("topic,stratum\n01,a\n02\n")
    code, _, err = _run([qrels, *runs, "-m", "P@1", "--strata", str(strata)])
    assert code == 2 and f"{strata}:3: expected 'topic,stratum'" in err
    strata.write_text("01,a\n02,b\n")
    code, _, err = _run([qrels, *runs, "-m", "P@1", "--strata", str(strata)])
    assert code == 2 and "10 evaluated topic(s) have no stratum" in err
    code, _, err = _run([qrels, *runs, "-m", "P@1", "--plot", str(tmp_path / "x.pdf")])
    assert code == 2 and "--plot writes .png or .svg" in err


def test_compare_stratified_and_plots(tmp_path):
    qrels, runs = _write(tmp_path)
    strata = tmp_path / "strata.csv"
    strata.write_text("".join(f"{t},{'easy' if k < 6 else 'hard'}\n" for k, t in enumerate(TOPICS)) + "99,hard\n")
    png, svg = tmp_path / "r.png", tmp_path / "r.svg"
    code, out, err = _run([qrels, *runs, "-m", "P@1", "--trials", "400", "--strata", str(strata),
                           "--plot", str(png), "--format", "json"])
    assert code == 0, err
    m = json.loads(out)["measures"][0]
    assert "stratified by" in m["bootstrap"]["method"] and "(2 strata)" in m["bootstrap"]["method"]
    # 6 easy topics where every run scores 1: the stratified mean of 'bad' is always 0.5
    assert m["notes"] == [f"{strata}: 1 topic(s) with a stratum are not among the evaluated topics, unused: 99"]
    bad = next(s for s in m["systems"] if s["run"] == "bad")
    assert bad["ci"] == [0.5, 0.5]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    code, _, _ = _run([qrels, *runs, "-m", "P@1", "--trials", "100", "--plot", str(svg)])
    assert code == 0 and b"<svg" in svg.read_bytes()[:500]


EX_ARGS = [str(EXAMPLES / "qrels.txt"), str(EXAMPLES / "bm25.txt"), str(EXAMPLES / "rerank.txt"),
           "-m", "P@10", "--trials", "200"]


def _eval_tsv(measure: str = "P@10") -> dict[tuple[str, str], tuple[float, str]]:
    out, err = io.StringIO(), io.StringIO()
    assert main(["eval", *EX_ARGS[:3], "-m", measure, "-q", "--format", "tsv"], out, err) == 0, err.getvalue()
    rows = [line.split("\t") for line in out.getvalue().splitlines()[1:] if not line.startswith("#")]
    return {(r[0], r[2]): (float(r[3]), r[4]) for r in rows}


def test_compare_subset_mean_never_passes_as_the_full_set_number_json():
    # rerank lacks topic 105. bm25 P@10 per topic (trec_eval 9.0.8 -q): 0.5 0.4 0.7 0.6 0.4;
    # eval (5 topics): 0.52; compare's paired mean (101-104): (0.5+0.4+0.7+0.6)/4 = 0.55.
    code, out, err = _run([*EX_ARGS, "--format", "json"])
    assert code == 0, err
    m = json.loads(out)["measures"][0]
    ev = _eval_tsv()
    base = ev[("bm25", "all")][1]
    assert m["variant_full"] == base
    assert m["variant"] == base + "|subset=paired(4/5:-105)"
    assert m["subset"] == {"rule": "paired", "topics": 4, "of": 5, "dropped": ["105"],
                           "marker": "subset=paired(4/5:-105)", "reason": "not evaluated for every run compared"}
    sy = {s["run"]: s for s in m["systems"]}
    bm = sy["bm25"]
    assert bm["mean"] == pytest.approx(0.55) and bm["mean_full"] == pytest.approx(0.52)
    assert bm["mean_full"] == ev[("bm25", "all")][0]  # the number eval prints, under eval's string
    assert (bm["topics"], bm["topics_full"], bm["dropped"]) == (4, 5, ["105"])
    assert bm["variant"] == base + "|subset=paired(4/5:-105)" != ev[("bm25", "all")][1]
    # rerank's 4 topics are all it has: its mean is eval's number, under eval's string
    rr = sy["rerank"]
    assert rr["mean"] == pytest.approx((0.5 + 0.6 + 0.8 + 0.6) / 4) == ev[("rerank", "all")][0]
    assert rr["variant"] == ev[("rerank", "all")][1] and rr["dropped"] == [] and rr["topics_full"] == 4
    assert any(n.startswith("bm25 P@10 mean: over 4 of the 5 topics") and "105" in n and "0.5200" in n
               for n in m["notes"])


def test_compare_subset_in_text_markdown_latex():
    code, text, err = _run([*EX_ARGS, "--format", "text"])
    assert code == 0, err
    flat = " ".join(x.strip() for x in text.splitlines())
    assert "topics=both|unjudged=nonrel|subset=paired(4/5:-105)" in flat.replace("| ", "|")
    assert "mean, 4 topics" in text and "eval (topics)" in text
    row = next(x for x in text.splitlines() if " bm25 " in f" {x} " and "[" in x)
    assert "0.5500" in row and "0.5200 (5)" in row
    assert max(len(x) for x in text.splitlines()) <= 100
    code, md, err = _run([*EX_ARGS, "--format", "markdown"])
    assert code == 0, err
    assert r"subset=paired\(4/5:\-105\)" in md and r"0\.5200 \(5\)" in md  # every Markdown special escaped
    code, tex, err = _run([*EX_ARGS, "--format", "latex"])
    assert code == 0, err
    assert r"$0.5500^{\dagger}$" in tex and r"\textbar{}subset=paired(4/5:-105)" in tex.replace(r"\allowbreak{}", "")
    assert "over all 5: 0.5200" in tex


def test_compare_full_topic_sets_carry_no_subset_marker(tmp_path):
    qrels, runs = _write(tmp_path)
    code, out, err = _run([qrels, *runs, "-m", "P@1", "--trials", "200", "--format", "json"])
    assert code == 0, err
    m = json.loads(out)["measures"][0]
    assert "subset=" not in m["variant"] and m["variant"] == m["variant_full"] and m["subset"]["dropped"] == []
    assert all(s["variant"] == m["variant"] and s["mean"] == s["mean_full"] for s in m["systems"])


# ----------------------------------------------------------------------------- blocks on a backend
def _old_replicate_means(x, trials, rng, strata=None):
    """The serial code before the blocks became tasks: one gather per block of trials."""
    from auditeval.stats import bootstrap as bs
    from auditeval.stats.rng import blocks

    out = np.empty((x.shape[0], trials))
    for (start, c), idx in zip(blocks(trials), bs.resamples(rng, x.shape[1], trials, strata), strict=True):
        out[:, start:start + c] = x[:, idx].mean(axis=-1)
    return out


def _old_signed_sums(x, trials, rng):
    from auditeval.stats.rng import blocks

    n_top = x.shape[1]
    both = np.concatenate([x, -x], axis=1)
    out = np.empty((x.shape[0], trials))
    for start, c in blocks(trials):
        out[:, start:start + c] = both[:, np.arange(n_top) + n_top * rng.integers(0, 2, size=(c, n_top))].sum(-1)
    return out


def _old_swap_matrix(observed, reps):
    from auditeval.stats import bootstrap as bs
    from auditeval.stats.rng import blocks

    twice = np.zeros((reps.shape[0],) * 2, dtype=np.int64)
    d0 = observed[:, None] - observed[None, :]
    for start, c in blocks(reps.shape[1]):
        r = reps[:, start:start + c]
        twice += bs.reversal_counts(d0, r[:, None, :] - r[None, :, :])
    out = twice / (2.0 * reps.shape[1])
    np.fill_diagonal(out, 0.0)
    return out


def _old_subset_twice(x, trials, seed, label, points):
    from auditeval.stats import topicset
    from auditeval.stats.rng import blocks, generator

    plan = topicset.subset_plan(x, 10, points)
    i, j, full, sizes = plan.i, plan.j, plan.full, plan.sizes
    twice = np.zeros(sizes.size, dtype=np.int64)
    rng = generator(seed, "subsets", label)
    for _, c in blocks(trials):
        perm = rng.permuted(np.broadcast_to(np.arange(x.shape[1]), (c, x.shape[1])), axis=1)
        pre = np.cumsum(x[:, perm], axis=-1)[:, :, sizes - 1]
        d = pre[i] - pre[j]
        twice += np.where((full > 0)[:, None, None], d > 0, d < 0).sum(axis=(0, 1)) * 2 + (d == 0).sum(axis=(0, 1))
    return twice / (2.0 * trials * max(1, i.size))


class _Pickling:
    """A backend whose tasks see only pickled copies (shared data and items), in item order."""

    def __init__(self):
        self.maps = []

    def share(self, value):
        import pickle

        return pickle.loads(pickle.dumps(value))

    def map(self, fn, shared, items, labels=None):
        import pickle

        self.maps.append((fn.__name__, len(items)))
        for k in range(len(items)):
            yield fn(shared, pickle.loads(pickle.dumps(items[k])))


@pytest.mark.parametrize("stratified", [False, True])
def test_resample_swap_and_subset_blocks_reproduce_the_serial_results(stratified, monkeypatch):
    """The block functions, in process and on a (pickling) backend, give the old serial code's
    arrays exactly, for an odd trial count (5,001: two full blocks of CHUNK and one of 905),
    with strata, with the swap rows, subset pairs and the subset gather bound cut small."""
    from auditeval.stats import bootstrap as bs
    from auditeval.stats import run_comparison as sc
    from auditeval.stats import significance, topicset
    from auditeval.stats.rng import generator

    rng = np.random.default_rng(11)
    x = rng.random((9, 33)) ** 3
    x[4] = x[2]  # a tied pair: reversal rate 0.5, left out of the subset curve
    codes = (np.arange(33) % 4 == 0).astype(np.int64) if stratified else None
    trials, seed, variant = 5001, 5, "AP|v"
    reps = _old_replicate_means(x, trials, generator(seed, "bootstrap", variant), codes)
    sums = _old_signed_sums(x, trials, generator(seed, "randomization", variant))
    swaps = _old_swap_matrix(x.mean(1), reps)
    curve = _old_subset_twice(x, 2100, seed, variant, 7)
    assert np.array_equal(bs.replicate_means(x, trials, generator(seed, "bootstrap", variant), codes), reps)
    assert np.array_equal(significance.signed_sums(x, trials, generator(seed, "randomization", variant)), sums)
    assert np.array_equal(bs.swap_matrix(x.mean(1), reps), swaps)
    monkeypatch.setattr(topicset, "GATHER_LIMIT", 5000)  # several prefix-sum gathers and pair chunks per block
    monkeypatch.setattr(bs, "SWAP_ROWS", 2)
    monkeypatch.setattr(topicset, "SUBSET_PAIRS", 5)
    s = sc.Settings(trials=trials, seed=seed)
    for backend in (None, _Pickling()):
        got_reps, got_sums = sc.resample(x, s, variant, codes, True, backend, "AP")
        assert np.array_equal(got_reps, reps) and np.array_equal(got_sums, sums)
        shared = sc.PairShared(x, reps, sums, 0.95)
        assert np.array_equal(sc._swaps(shared, x.mean(1), trials, backend, "AP"), swaps)
        c = topicset.subset_curve(x, 2100, seed, variant, points=7, backend=backend)
        assert np.array_equal(c.agreement, curve)
    assert backend.maps == [("resample_block", 6), ("swap_task", 5), ("subset_block", 2 * 7)]
    assert sc.resample(x, s, variant, codes, False)[1] is None
