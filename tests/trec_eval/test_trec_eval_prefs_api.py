"""``auditeval.evaluate(..., judgments=...)``: preference and judgment-group measures in the
library, per topic to 1e-12 against a plain-Python model (preferences listed pair by pair,
closed by transitivity with a naive loop; AP / P@k per judgment group), and the variant strings.
"""

from __future__ import annotations

import random
from itertools import combinations

import pytest

import auditeval as ae
from auditeval.vocab.errors import EvaluationError

DOCS = [f"d{i}" for i in range(1, 9)]


def _random_prefs(rng: random.Random) -> tuple[str, str]:
    lines, run = [], []
    for q in ("1", "2", "3"):
        for g in range(rng.randint(1, 3)):
            docs = rng.sample(DOCS, rng.randint(2, 6))
            hidden = {d: rng.choice((0, 1, 2, 3)) for d in docs}
            for s in range(rng.randint(1, 3)):
                for d in rng.sample(docs, min(len(docs), rng.randint(2, 4))):
                    lines.append(f"{q} g{g} s{s} {d} {hidden[d]}")
        for i, d in enumerate(rng.sample(DOCS, rng.randint(1, 6))):
            run.append(f"{q} Q0 {d} {i + 1} {rng.choice((1, 2, 3, 2.5))} r")
    return "\n".join(lines) + "\n", "\n".join(run) + "\n"


def _model(prefs: str, run: str, depth: int | None = None) -> dict[str, dict[str, float]]:
    """Per topic: prefs_simp, _ret, _imp, prefs_avgjg, prefs_pair, prefs_num_prefs_* by brute force."""
    by: dict[str, dict[str, dict[str, list[tuple[str, float]]]]] = {}
    for ln in prefs.split("\n"):
        if ln:
            q, g, s, d, lev = ln.split()
            by.setdefault(q, {}).setdefault(g, {}).setdefault(s, []).append((d, float(lev)))
    ranked: dict[str, list[str]] = {}
    rows = [ln.split() for ln in run.split("\n") if ln]
    for q in {r[0] for r in rows}:
        mine = sorted((r for r in rows if r[0] == q), key=lambda r: (-float(r[4]), r[2]))  # docno ascending
        ranked[q] = [r[2] for r in mine][:depth]
    out = {}
    for q, groups in by.items():
        pos = {d: i for i, d in enumerate(ranked.get(q, []))}
        c: dict[tuple[str, str], int] = {}
        tot = dict.fromkeys(("fr", "pr", "fi", "pi", "no"), 0)
        ratios = []
        for subs in groups.values():
            rel: set[tuple[str, str]] = set()
            for lines in subs.values():
                rel |= {(a, b) for a, la in lines for b, lb in lines if la > lb}
            changed = True
            while changed:  # transitive closure, naively
                new = {(a, d) for a, b in rel for c2, d in rel if b == c2 and a != d}
                changed = not new <= rel
                rel |= new
            g = dict.fromkeys(tot, 0)
            for a, b in rel:
                c[(a, b)] = c.get((a, b), 0) + 1
                if a in pos and b in pos:
                    g["pr"] += 1
                    g["fr"] += pos[a] < pos[b]
                elif a in pos or b in pos:
                    g["pi"] += 1
                    g["fi"] += a in pos
                else:
                    g["no"] += 1
            for k in tot:
                tot[k] += g[k]
            poss = g["pr"] + g["pi"] + g["no"]
            if poss:
                ratios.append((g["fr"] + g["fi"]) / poss)
        pair_terms, n_pairs = [], 0
        judged = {d for subs in groups.values() for lines in subs.values() for d, _ in lines}
        far = len(DOCS) + 1
        for a, b in combinations(sorted(judged), 2):
            if (a, b) in c or (b, a) in c:
                n_pairs += 1
                hi, lo = (a, b) if pos.get(a, far) < pos.get(b, far) else (b, a)
                if hi in pos:
                    pair_terms.append(c.get((hi, lo), 0) / (c.get((hi, lo), 0) + c.get((lo, hi), 0)))
        poss = tot["pr"] + tot["pi"] + tot["no"]
        out[q] = {
            "prefs_num_prefs_poss": poss, "prefs_num_prefs_ful": tot["fr"] + tot["fi"],
            "prefs_num_prefs_ful_ret": tot["fr"],
            "prefs_simp": (tot["fr"] + tot["fi"]) / poss if poss else 0.0,
            "prefs_simp_ret": tot["fr"] / tot["pr"] if tot["pr"] else 0.0,
            "prefs_simp_imp": (tot["fr"] + tot["fi"]) / (tot["pr"] + tot["pi"]) if tot["pr"] + tot["pi"] else 0.0,
            "prefs_avgjg": sum(ratios) / len(groups) if sum(ratios) > 0 else 0.0,
            "prefs_pair": sum(pair_terms) / n_pairs if n_pairs else 0.0,
        }
    return out


@pytest.mark.parametrize("seed", range(30))
def test_prefs_measures_equal_a_plain_model(seed, tmp_path) -> None:
    rng = random.Random(seed)
    prefs, run = _random_prefs(rng)
    (tmp_path / "p").write_text(prefs)
    (tmp_path / "r").write_text(run)
    depth = rng.choice((None, None, 3))
    settings = [f"depth={depth}"] if depth else []
    want = _model(prefs, run, depth)
    names = list(next(iter(want.values())))
    res = ae.evaluate(str(tmp_path / "p"), str(tmp_path / "r"), names, profile="trec_eval-10.0",
                      settings=["topics=both", *settings], judgments="prefs")
    got = {(v.measure, v.topic): v.value for v in res.values if v.topic != "all"}
    run_topics = {ln.split()[0] for ln in run.split("\n") if ln}
    for q, vals in want.items():
        if q in run_topics:
            for n, x in vals.items():
                assert got[(n, q)] == pytest.approx(x, abs=1e-12), (seed, q, n)


def test_judgment_group_measures_and_variants(tmp_path) -> None:
    (tmp_path / "q").write_text("1 a d1 1\n1 a d2 0\n1 a d3 1\n1 b d2 1\n1 b d4 1\n2 a d9 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n1 Q0 d4 3 1 r\n")
    res = ae.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["map_avgjg", "P_avgjg.1,3"],
                      profile="trec_eval-9.0.8", settings=["topics=qrels"], judgments="qrels_jg")
    vals = {(v.measure, v.topic): v.value for v in res.values}
    # topic 1 by hand: AP a = 1/2, b = (1/2 + 2/3)/2; topic 2 missing (absent=zero): 0
    assert vals[("map_avgjg", "1")] == pytest.approx((1 / 2 + 7 / 12) / 2, abs=1e-12)
    assert vals[("map_avgjg", "2")] == 0.0 and vals[("map_avgjg", "all")] == pytest.approx(13 / 48, abs=1e-12)
    assert vals[("P_avgjg_3", "1")] == pytest.approx(0.5, abs=1e-12)
    v = next(x for x in res.values if x.measure == "P_avgjg_1")
    assert str(v.variant) == "P_avgjg@1|ties=docno-desc|sim=float32|topics=qrels|absent=zero|unjudged=nonrel|rel=1|depth=all"
    with pytest.raises(EvaluationError, match="needs preferences"):
        ae.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["prefs_simp"], judgments="qrels_jg")
    with pytest.raises(ae.UnknownMeasureError):
        ae.evaluate(str(tmp_path / "q"), str(tmp_path / "r"), ["AP"], judgments="qrels_jg")


def test_audit_on_preferences_runs_the_binaries_with_R(trec_eval_bins, tmp_path) -> None:
    bins = [str(trec_eval_bins["9.0.8"]), str(trec_eval_bins["10.0"])]
    for seed, fmt in ((1, "prefs"), (2, "qrels_prefs"), (3, "qrels_jg")):
        rng = random.Random(seed)
        prefs, run = _random_prefs(rng)
        if fmt != "prefs":  # qid jg docno grade, each (qid, jg, docno) once
            first = {}
            for q, g, _s, d, lev in (ln.split() for ln in prefs.splitlines()):
                first.setdefault((q, g, d), lev)
            prefs = "".join(f"{q} {g} {d} {lev}\n" for (q, g, d), lev in first.items())
        run = "".join(ln + "\n" for ln in run.splitlines() if not ln.startswith("3 "))  # topic 3 missing
        (tmp_path / "p").write_text(prefs)
        (tmp_path / "r").write_text(run)
        rep = ae.audit(str(tmp_path / "p"), str(tmp_path / "r"), trec_eval=bins, judgments=fmt)
        by = {r.engine: r for r in rep.agreement}
        assert set(by) == {"trec_eval-9.0.8", "trec_eval-10.0"}
        # 9.0.8 evaluates topics 1 and 2; 10.0 stops at the judged topic 3 missing from the run
        ok = [r for r in rep.agreement if r.engine == "trec_eval-9.0.8"]
        assert ok and all(r.status == "match" and r.topics == 2 for r in ok), [(r.measure, r.detail) for r in ok]
        assert all(r.status == "failed" for r in rep.agreement if r.engine == "trec_eval-10.0")
        assert "|sim=float32|topics=both|" in ok[0].variant


def test_dropin_variants_are_what_evaluate_gives(tmp_path) -> None:
    import io

    from auditeval.trec_eval import main

    rng = random.Random(7)
    prefs, run = _random_prefs(rng)
    (tmp_path / "p").write_text(prefs)
    (tmp_path / "r").write_text(run)
    out = io.StringIO()
    assert main(["--as", "9.0.8", "--variants", "-q", "-R", "prefs", "-m", "all_prefs", str(tmp_path / "p"),
                 str(tmp_path / "r")], out, io.StringIO()) == 0
    res = ae.evaluate(str(tmp_path / "p"), str(tmp_path / "r"), ["prefs_simp", "prefs_pair", "prefs_avgjg_Rnonrel"],
                      profile="trec_eval-9.0.8", judgments="prefs")
    lib = {(v.measure, v.topic): (f"{v.value:6.4f}", str(v.variant)) for v in res.values}
    lines = [ln.split("\t") for ln in out.getvalue().splitlines()]
    checked = 0
    for name, topic, text, variant in lines:
        key = (name.strip(), topic)
        if key in lib:
            assert lib[key] == (text, variant)
            checked += 1
    assert checked == len(lib) > 3


def test_audit_command_line_with_judgments(trec_eval_bins, tmp_path) -> None:
    from cli_helpers import run_cli

    (tmp_path / "q").write_text("1 a d1 1\n1 a d2 0\n1 b d2 1\n")
    (tmp_path / "r").write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n")
    status, out, err = run_cli("audit", "--judgments", "qrels_jg", "--trec-eval", str(trec_eval_bins["10.0"]),
                               "-m", "map_avgjg", str(tmp_path / "q"), str(tmp_path / "r"))
    assert status == 0, err
    assert out.startswith("every difference explained: 1 reference value(s) reproduced")


def test_topics_left_out_are_notes(tmp_path) -> None:
    (tmp_path / "p").write_text("1 u s A 2\n1 u s B 1\n2 u s A 1\n2 u s C 0\n")
    (tmp_path / "r").write_text("1 Q0 B 1 2 r\n1 Q0 A 2 1 r\n9 Q0 A 1 1 r\n")
    res = ae.evaluate(str(tmp_path / "p"), str(tmp_path / "r"), ["prefs_simp"], profile="trec_eval-9.0.8",
                      judgments="prefs")
    assert [v.topic for v in res.values] == ["1", "all"] and res.values[0].value == 0.0  # B above A: 0 of 1
    assert any("1 judged topic(s) without results (2): not evaluated (topics=both)" in n for n in res.notes)
    assert any("1 run topic(s) without judgments left out (9)" in n for n in res.notes)


def test_measures_command_prints_a_preference_row() -> None:
    from cli_helpers import run_cli

    status, out, _err = run_cli("measures", "prefs_simp")
    assert status == 0 and out.startswith("prefs_simp: preferences fulfilled / possible")
    assert "m_prefs_simp.c" in out and "ful / poss" in out
