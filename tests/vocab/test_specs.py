"""The measure spec table: one trec_eval name map, rows apart from kernels, import hygiene,
``auditeval measures NAME``, and the spec fields the engine applies (missing, fixed, checks)."""

from __future__ import annotations

import ast
import io
import math
from pathlib import Path

import pytest

import auditeval as ae
from auditeval.cli.main import main
from auditeval.engine.measures import MEASURES
from auditeval.trec_eval.catalog import TABLE
from auditeval.vocab.errors import EvaluationError
from auditeval.vocab.spec_table import PREFS_SPECS
from auditeval.vocab.specs import SPECS, TREC_ALIASES, resolve_alias

PKG = Path(ae.__file__).resolve().parent


def _imports(path: Path) -> set[str]:
    """Modules a file imports, resolved to dotted names under ``auditeval``."""
    rel = path.relative_to(PKG.parent).with_suffix("")
    parts = list(rel.parts)
    pkg = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    out = set()
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.ImportFrom):
            base = pkg[: len(pkg) - node.level + 1] if node.level else []
            mod = ".".join(base + ([node.module] if node.module else []))
            out.add(mod)
            if node.module is None:
                out.update(f"{mod}.{a.name}" for a in node.names)
        elif isinstance(node, ast.Import):
            out.update(a.name for a in node.names)
    return out


def test_grammar_and_specs_import_no_kernel():
    for f in [PKG / "vocab" / n for n in ("variant.py", "measure.py", "specs.py", "spec_table.py")]:
        assert not {m for m in _imports(f) if m.startswith("auditeval.engine")}, f


def test_one_trec_name_map():
    names = [t for s in SPECS.values() for t, _ in s.trec_names]
    assert len(names) == len(set(names))
    assert TREC_ALIASES["map_cut"] == ("AP", "int") and TREC_ALIASES["map"] == ("AP", None)
    assert resolve_alias("ndcg_cut.10") == ae.parse_measure("nDCG@10")
    assert resolve_alias("iprec_at_recall_0.10") == ae.parse_measure("IPrec@0.1")
    for entry in TABLE:  # the drop-in's table reads the same map (preference measures: their own table)
        if entry.rel_format != "qrels":
            assert entry.canonical == entry.name and entry.name in PREFS_SPECS and entry.name not in TREC_ALIASES
            continue
        assert entry.name == "runid" or TREC_ALIASES[entry.name][0] == entry.canonical
    assert set(MEASURES) == set(SPECS)


def test_measures_name_prints_formula_and_source():
    out = io.StringIO()
    assert main(["measures", "map"], out, io.StringIO()) == 0
    text = out.getvalue()
    assert text.startswith("AP: average precision")
    assert "m_map.c, m_map_cut.c" in text and "map, map_cut.K" in text and "/ R" in text
    assert max(len(line) for line in text.splitlines()) <= 100
    out = io.StringIO()
    main(["measures", "SetP"], out, io.StringIO())
    assert "ties (under a finite depth" in " ".join(out.getvalue().split())  # wrapped to the width
    out = io.StringIO()
    main(["measures", "NumRet"], out, io.StringIO())  # NumRet@k: the order also picks the top k
    assert "ties (with a cut-off @k or under a finite depth" in " ".join(out.getvalue().split())
    err = io.StringIO()
    assert main(["measures", "nope"], io.StringIO(), err) == 2 and "unknown measure 'nope'" in err.getvalue()


def test_missing_topic_value_comes_from_the_absent_axis():
    # q2 is absent from the run; yaap on an empty ranking is log(1 / (1 + R)) = log(1/2)
    qrels = {"q1": {"a": 1}, "q2": {"b": 1}}
    run = {"q1": {"a": 1.0}}
    res = ae.evaluate(qrels, run, ["yaap", "AP"], settings=["topics=qrels"])  # trec_eval-9.0.8: absent=zero
    assert "absent" in SPECS["yaap"].axes and "absent" not in SPECS["AP"].axes
    assert res.get("yaap", topic="q2").value == 0.0
    assert res.get("AP", topic="q2").value == 0.0
    # q1: s = 1/1 = 1, R = 1: log(2 / 1)
    assert res.get("yaap", topic="q1").value == pytest.approx(0.6931471805599453)
    for absent in ("empty", "bogus"):  # the bogus document is not relevant: the same log(1/2)
        res = ae.evaluate(qrels, run, ["yaap", "AP"], settings=["topics=qrels", f"absent={absent}"])
        assert res.get("yaap", topic="q2").value == pytest.approx(math.log(0.5))
        assert res.get("AP", topic="q2").value == 0.0
        assert f"absent={absent}" in str(res.get("yaap").variant) and "absent" not in str(res.get("AP").variant)


def test_rbp_gain_is_fixed_by_the_spec_and_gains_checked_against_the_convention():
    qrels = {"q1": {"a": 2, "b": 1}}
    run = {"q1": {"a": 2.0, "b": 1.0}}
    # rbp_gain=raw, p=0.5: (1 - 0.5) * (2 + 1 * 0.5) = 1.25 whatever nDCG's gain axis says
    for gain in ("linear", "exp2"):
        res = ae.evaluate(qrels, run, ["RBP(p=0.5)"], settings=["rbp_gain=raw", f"gain={gain}"])
        assert res.get("RBP(p=0.5)").value == 1.25
    with pytest.raises(EvaluationError, match="rbp_gain=minmax or raw"):
        ae.evaluate(qrels, run, ["RBP(gains={1:3})"], settings=["rbp_gain=binary"])


# ---------------------------------------------------------------------------------- properties
PROPS = ("bounded", "tie_monotone", "envelope_exact", "tail_free", "growth_sum")


def test_property_fields_of_hand_picked_measures():
    p, rr, ap, ndcg, gmap, rbp = (SPECS[n] for n in ("P", "RR", "AP", "nDCG", "GMAP", "RBP"))
    assert (p.bounded, p.ties_effect, p.tie_monotone, p.envelope_exact, p.tail_free, p.growth_sum) == (
        True, "set-at-k", True, True, False, True)
    assert (rr.ties_effect, rr.tail_free, rr.growth_sum) == ("first-relevant", True, True)
    assert (ap.ties_effect, ap.tail_free, ap.envelope_exact) == ("order", True, True)
    assert (ndcg.envelope_exact, ndcg.growth_sum, ndcg.tail_free) == (True, False, False)
    assert (gmap.bounded, gmap.tie_monotone, gmap.envelope_exact) == (False, True, False)  # gmean: sampled
    assert not any(getattr(rbp, f) for f in PROPS) and rbp.ties_effect == "order"
    assert SPECS["Unj"].ties_effect == "set-at-k" and not SPECS["Unj"].bounded


def test_properties_set_only_where_the_spec_says_they_hold():
    """Each property follows from the row's own fields (formula, axes, aggregation)."""
    for name, s in SPECS.items():
        if s.bounded:  # a rate: a float mean, not a count or a log ratio
            assert s.fmt == "float" and s.agg in ("mean", "mean-defined"), name
        if s.ties_effect != "order":
            assert "ties" in s.axes and s.ties_effect in ("set-at-k", "first-relevant"), name
        if s.ties_effect == "set-at-k":  # the top k as a set needs a k
            assert s.cutoff != "none", name
        if s.tie_monotone:
            assert "ties" in s.axes and s.fmt == "float", name
        if s.envelope_exact:  # a closed-form expectation over tie orders of a mean
            assert s.tie_monotone and s.agg == "mean", name
        if s.tail_free:  # reads rows down to the last relevant one: relevance is binary at rel,
            # no rank cut-off required (IPrec's is a recall level)
            assert "rel" in s.axes and (s.cutoff != "required" or s.cutoff_type is float), name
        if s.growth_sum:  # a sum over relevant rows and R, no gains, no judged non-relevant count
            assert s.agg == "mean" and "rel" in s.axes and not s.params and not s.missing, name
            assert s.axes <= {"ties", "sim", "topics", "unjudged", "negatives", "depth", "dups", "self_hits",
                              "rel", "ap_denom", "recall_denom"}, name


def test_bounded_measures_stay_in_the_unit_interval_on_the_examples():
    ex = PKG.parent / "examples"
    names = [n if SPECS[n].cutoff != "required" else (f"{n}@0.5" if SPECS[n].cutoff_type is float else f"{n}@5")
             for n, s in SPECS.items() if s.bounded and not s.check]
    res = ae.evaluate(str(ex / "qrels.txt"), [str(ex / "bm25.txt"), str(ex / "rerank.txt")], names)
    vals = [v for v in res.to_frame()["value"].tolist() if v == v]
    assert len(vals) > 50 and all(0.0 <= v <= 1.0 for v in vals)


def test_set_at_k_measures_ignore_the_order_inside_the_top_k():
    """Hand-made: topic 1 judges a=1, b=0; the run ties a and b at rank 1-2 and ranks c third.
    Either tie order keeps {a, b} as the top 2: P@2 = 1/2, Success@2 = 1; AP and RR move
    (a first: 1; b first: 1/2)."""
    q = {"1": {"a": 1, "b": 0}}
    run = {"1": {"a": 2.0, "b": 2.0, "c": 1.0}}
    out = {}
    for ties in ("docno-asc", "docno-desc"):
        res = ae.evaluate(q, run, ["P@2", "Success@2", "AP", "RR"], settings=[f"ties={ties}"])
        out[ties] = {r.measure: r.value for r in res.to_frame().itertuples() if r.topic == "all"}
    assert out["docno-asc"]["P@2"] == out["docno-desc"]["P@2"] == 0.5
    assert out["docno-asc"]["Success@2"] == out["docno-desc"]["Success@2"] == 1.0
    assert sorted([out["docno-asc"]["AP"], out["docno-desc"]["AP"]]) == [0.5, 1.0]
    assert sorted([out["docno-asc"]["RR"], out["docno-desc"]["RR"]]) == [0.5, 1.0]
    assert SPECS["P"].ties_effect == SPECS["Success"].ties_effect == "set-at-k"
    assert SPECS["AP"].ties_effect == "order" and SPECS["RR"].ties_effect == "first-relevant"
