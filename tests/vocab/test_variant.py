"""Measure and variant strings: canonical forms, round trips, aliases, and error messages."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import auditeval as ae
from auditeval.engine.measures import MEASURES
from auditeval.vocab.conventions import AXES, load_profile, profile_names
from auditeval.vocab.measure import Measure, parse_syntax
from auditeval.vocab.specs import TREC_ALIASES
from auditeval.vocab.variant import FOLDED, Variant, parse_measure, parse_variant, variant_axes

PROFILES = profile_names()

# ------------------------------------------------------------------------------ strategies
finite = st.floats(allow_nan=False, allow_infinity=False)
number = st.one_of(st.integers(-(10**6), 10**6), finite)


@st.composite
def gains(draw):
    keys = draw(st.lists(st.integers(-3, 10), unique=True, max_size=5))
    return tuple(sorted((k, draw(number)) for k in keys))


PARAM_VALUES = {
    tuple: gains(),
    int: st.integers(-(10**6), 10**6),
    float: number,
    bool: st.booleans(),
    str: st.text(alphabet="abcxyz_-0123456789 ", max_size=8),
}


# Parameters a measure cannot do without (SDCG: the top of the grade scale).
REQUIRED_PARAMS = {name: (("max_rel", 3),) for name in ("SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM")}

# Parameters whose text has a grammar of its own (checked at parse time).
PARAM_OVERRIDES = {
    "max_grade": st.integers(1, 10),  # ERR: a positive grade scale
    "levels": st.lists(st.floats(0, 1), min_size=1, max_size=4).map(lambda xs: ",".join(repr(x) for x in xs)),
}


@st.composite
def measures(draw, name=None):
    name = name or draw(st.sampled_from(sorted(MEASURES)))
    d = MEASURES[name]
    cutoff = None
    if d.cutoff == "required" or (d.cutoff == "optional" and draw(st.booleans())):
        if d.cutoff_type is int:
            cutoff = draw(st.integers(1, 10**9))
        else:
            cutoff = draw(st.floats(0, 1))
    params = {}
    for key, (axis, mapping) in FOLDED.items():
        if axis in d.axes and draw(st.booleans()):
            if mapping is not None:
                params[key] = draw(st.sampled_from(list(mapping)))
            elif AXES[axis].kind == "int":
                params[key] = draw(st.integers(-5, 10))
            else:
                lo, hi = AXES[axis].bounds or (-1e9, 1e9)
                params[key] = draw(st.floats(lo, min(hi, 1e9), exclude_min=True, exclude_max=True))
    for key, typ in d.params.items():
        if draw(st.booleans()):
            params[key] = draw(PARAM_OVERRIDES.get(key, PARAM_VALUES[typ]))
    if "gains" in params:
        params.pop("dcg", None)  # dcg= and gains= both set the gain: refused together
    params.update({k: v for k, v in REQUIRED_PARAMS.get(name, ()) if k not in params})
    m = Measure(name, tuple(sorted(params.items())), cutoff)
    assume(d.check is None or d.check(m) is None)  # e.g. SDCG's min_rel < max_rel
    return m


@st.composite
def conventions(draw):
    conv = load_profile(draw(st.sampled_from(PROFILES))).convention
    changes = {}
    for name, axis in AXES.items():
        if not draw(st.booleans()):
            continue
        if axis.kind == "enum":
            changes[name] = draw(st.sampled_from(list(axis.values)))
        elif axis.kind == "int":
            changes[name] = draw(st.integers(-5, 10))
        elif axis.kind == "int-or-all":
            changes[name] = draw(st.one_of(st.just("all"), st.integers(1, 10**9)))
        else:
            lo, hi = axis.bounds or (-1e300, 1e300)
            changes[name] = draw(st.floats(lo, min(hi, 1e300), exclude_min=True, exclude_max=True))
    return conv.replace(**changes)


# ------------------------------------------------------------------------------ round trips
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(measures())
def test_measure_round_trip(m):
    assert parse_measure(str(m)) == m
    assert str(parse_measure(str(m))) == str(m)


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(measures(), conventions())
def test_variant_round_trip(m, conv):
    v = Variant.of(m, conv)
    back = parse_variant(str(v))
    assert back == v
    assert str(back) == str(v)


@pytest.mark.parametrize("profile", PROFILES)
@pytest.mark.parametrize("name", sorted(MEASURES))
def test_variant_round_trip_every_measure_and_profile(name, profile):
    d = MEASURES[name]
    cutoff = None if d.cutoff == "none" else (10 if d.cutoff_type is int else 0.5)
    conv = load_profile(profile).convention
    req = REQUIRED_PARAMS.get(name, ())
    for m in (Measure(name, req), Measure(name, req, cutoff)):
        if (m.cutoff is None and d.cutoff == "required") or (m.cutoff is not None and d.cutoff == "none"):
            continue
        v = Variant.of(m, conv)
        assert parse_variant(str(v)) == v
        # the variant names exactly the axes the measure reads, sorted, with the profile's values
        assert [a for a, _ in v.axes] == sorted(variant_axes(m, conv.depth, conv.topics))
        assert dict(v.axes) == {a: getattr(conv, a) for a in variant_axes(m, conv.depth, conv.topics)}


def test_variant_string_exact():
    conv = load_profile("trec_eval-9.0.8").convention
    v = Variant.of(parse_measure("AP(rel=2)@10"), conv)
    assert str(v) == (
        "AP@10|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=2|self_hits=keep"
        "|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel"
    )
    v = Variant.of(parse_measure("nDCG(gains={0:0,1:1,2:3})@10"), conv)
    # a gains map replaces the gain axis
    assert str(v).startswith("nDCG(gains={0:0,1:1,2:3})@10|depth=all|dups=error|")
    assert "|gain=" not in str(v)
    assert "|gain=linear|" in str(Variant.of(parse_measure("nDCG@10"), conv))
    v = Variant.of(parse_measure("AP(judged_only=True)"), conv)
    assert "|unjudged=drop" in str(v) and "judged_only" not in str(v)
    v = Variant.of(parse_measure("GMAP"), conv.replace(gm_floor=1e-5))
    assert "|gm_floor=1e-05|" in str(v)


def test_variant_folded_equals_setting():
    # AP(rel=2) under rel=1 and AP under rel=2 are the same variant (comparable numbers)
    c1 = load_profile("trec_eval-9.0.8").convention
    assert Variant.of(parse_measure("AP(rel=2)"), c1) == Variant.of(parse_measure("AP"), c1.replace(rel=2))
    assert str(Variant.of(parse_measure("AP(rel=2)"), c1)) == str(Variant.of(parse_measure("AP"), c1.replace(rel=2)))


# ------------------------------------------------------------------------------ canonical forms and aliases
@pytest.mark.parametrize(
    "text, canonical",
    [
        ("nDCG(gains={0:0,1:1,2:3})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
        ("nDCG(gains={2:3, 1:1 ,0:0})@10", "nDCG(gains={0:0,1:1,2:3})@10"),
        ("nDCG(gains={1:0.5})", "nDCG(gains={1:0.5})"),
        ("AP(rel=2)", "AP(rel=2)"),
        ("P( rel = 2 )@5", "P(rel=2)@5"),
        ("AP(rel=2,judged_only=True)@10", "AP(judged_only=True,rel=2)@10"),
        ("  AP  ", "AP"),
        ("AP()", "AP"),
        ("P_10", "P@10"),
        ("P.10", "P@10"),
        ("ndcg_cut.10", "nDCG@10"),
        ("ndcg_cut_10", "nDCG@10"),
        ("ndcg", "nDCG"),
        ("map", "AP"),
        ("map_cut_100", "AP@100"),
        ("map_cut.5", "AP@5"),
        ("gm_map", "GMAP"),
        ("recall_5", "R@5"),
        ("recip_rank", "RR"),
        ("success_1", "Success@1"),
        ("num_ret", "NumRet"),
        ("num_rel", "NumRel"),
        ("num_rel_ret", "NumRelRet"),
        ("Rprec", "Rprec"),
        ("iprec_at_recall_0.10", "IPrec@0.1"),
        ("iprec_at_recall.0.10", "IPrec@0.1"),
        ("IPrec@0.7", "IPrec@0.7"),
        ("IPrec@1", "IPrec@1.0"),
        ("11pt_avg", "11pt"),
        ("11pt", "11pt"),
    ],
)
def test_canonical(text, canonical):
    m = parse_measure(text)
    assert str(m) == canonical
    assert parse_measure(canonical) == m


def test_alias_values():
    assert parse_measure("P_10") == Measure("P", (), 10)
    assert parse_measure("ndcg_cut.10") == Measure("nDCG", (), 10)
    assert parse_measure("iprec_at_recall_0.10") == Measure("IPrec", (), 0.1)
    assert parse_measure("nDCG(gains={0:0,1:1,2:3})@10") == Measure("nDCG", (("gains", ((0, 0), (1, 1), (2, 3))),), 10)
    assert parse_measure("AP(rel=2)") == Measure("AP", (("rel", 2),))


@pytest.mark.parametrize("name", sorted(n for n, d in MEASURES.items() if d.trec_name))
def test_every_trec_name_resolves(name):
    d = MEASURES[name]
    if TREC_ALIASES[d.trec_name][1] is not None:  # a cut-off family: P_5, iprec_at_recall_0.50
        text = f"{d.trec_name}_{5 if d.cutoff_type is int else '0.50'}"
    else:
        text = d.trec_name
    assert parse_measure(text).name == name


@pytest.mark.parametrize("family", ["map_cut", "ndcg_cut", "recall", "success", "iprec_at_recall"])
def test_bare_trec_cutoff_family_is_an_error(family):
    # trec_eval's ndcg_cut is ndcg_cut_5 ... ndcg_cut_1000, never the uncut ndcg
    example = f"{family}_0.10" if family == "iprec_at_recall" else f"{family}_10"
    assert syntax_error(family) == caret(
        f"{family} is a family of cut-off measures; name one, e.g. {example}", len(family), family
    )


# ------------------------------------------------------------------------------ error messages
def syntax_error(text: str) -> str:
    with pytest.raises(ae.MeasureSyntaxError) as err:
        parse_measure(text)
    return str(err.value)


def caret(reason: str, pos: int, text: str) -> str:
    return f"{reason} at position {pos}\n    {text}\n    {' ' * pos}^"


@pytest.mark.parametrize(
    "text, reason, pos",
    [
        ("P@", "expected a number", 2),
        ("P(rel=2@5", "expected ',' or ')'", 7),
        ("AP(rel=x)", "expected a number", 7),
        ("AP(rel=", "expected a number", 7),
        ("AP(", "expected a parameter name", 3),
        ("AP(rel", "expected '=', found end of text", 6),
        ("@5", "expected a measure name", 0),
        ("AP @10", "unexpected '@'", 3),
        ("P@10x", "unexpected 'x'", 4),
        ("nDCG(gains={0.5:1})", "gain keys must be integer grades", 12),
        ("nDCG(gains={0:0,1:x})", "expected a number", 18),
        ("nDCG(gains={0:0", "expected ',' or '}' in gains", 15),
        ("nDCG(gains={1:1,1:2})", "gain for grade 1 given twice", 16),
        ("nDCG(gains=3)", "parameter 'gains' needs a tuple", 11),
        ("AP(rel=2,rel=3)", "parameter 'rel' given twice", 9),
        ("AP(rel=1.5)", "parameter 'rel' needs an integer", 7),
        ("AP(rel='2')", "parameter 'rel' needs an integer", 7),
        ("AP(judged_only=1)", "parameter 'judged_only' must be one of [True, False]", 15),
        ("AP(foo=1)", "AP takes no parameter 'foo' (allowed: judged_only, rel)", 3),
        ("nDCG(rel=2)", "nDCG takes no parameter 'rel'", 5),
        ("AP@0", "AP cutoff must be a positive integer", 3),
        ("AP@-1", "AP cutoff must be a positive integer", 3),
        ("AP@1.5", "AP cutoff must be a positive integer", 3),
        ("P@10.0", "P cutoff must be a positive integer", 2),
        ("P_0", "P cutoff must be a positive integer", 2),
        ("P.0", "P cutoff must be a positive integer", 2),
        ("map_cut.0", "AP cutoff must be a positive integer", 8),
        ("P", "P needs a cutoff, e.g. P@10", 1),
        ("Rprec@5", "Rprec takes no @cutoff", 5),
        ("RBP(p=1.5)", "axis 'rbp_p' must be greater than 0 and less than 1, got 1.5", 6),
        ("RBP(p=0)", "axis 'rbp_p' must be greater than 0 and less than 1, got 0", 6),
        ("RBP(p=True)", "parameter 'p' needs a number", 6),
    ],
)
def test_syntax_errors(text, reason, pos):
    assert syntax_error(text) == caret(reason, pos, text)


def test_syntax_error_attributes():
    with pytest.raises(ae.MeasureSyntaxError) as err:
        parse_measure("P(rel=2@5")
    assert (err.value.text, err.value.pos, err.value.reason) == ("P(rel=2@5", 7, "expected ',' or ')'")


def test_syntax_only_parser_keeps_unknown_names():
    # the grammar alone does not validate names
    assert parse_syntax("Foo(x=1)@3") == Measure("Foo", (("x", 1),), 3)


@pytest.mark.parametrize(
    "text, message",
    [
        ("Foo", "unknown measure 'Foo' in 'Foo' (auditeval measures lists them)"),
        ("ap", "unknown measure 'ap' in 'ap'; did you mean 'AP'? (auditeval measures lists them)"),
        ("P_10.5", "unknown measure 'P_10.5' in 'P_10.5' (auditeval measures lists them)"),
    ],
)
def test_unknown_measure(text, message):
    with pytest.raises(ae.UnknownMeasureError) as err:
        parse_measure(text)
    assert str(err.value) == message


V = (
    "AP@10|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=2|self_hits=keep"
    "|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel"
)


@pytest.mark.parametrize(
    "text, reason, pos",
    [
        (V + "|foo=1", "unknown axis 'foo'", len(V) + 1),
        (V + "|gain=linear", "axis 'gain' cannot change AP@10", len(V) + 1),
        (V + "|rel=3", "axis 'rel' given twice", len(V) + 1),
        (V + "|x", "expected axis=value, found 'x'", len(V) + 1),
        (V.replace("|ties=docno-desc", ""), "variant lacks axis 'ties' (it can change AP@10)", len(V) - len("|ties=docno-desc")),
        (
            V.replace("rel=2", "rel=x"),
            "axis 'rel' needs an integer, got 'x'",
            V.index("rel=2") + len("rel="),
        ),
        (
            V.replace("ties=docno-desc", "ties=up"),
            "axis 'ties' has no value 'up'; choose one of: docno-desc, docno-asc, docno-asc-numeric, rank, file-order",
            V.index("ties=") + len("ties="),
        ),
    ],
)
def test_variant_errors(text, reason, pos):
    with pytest.raises(ae.MeasureSyntaxError) as err:
        parse_variant(text)
    assert str(err.value) == caret(reason, pos, text)


def test_variant_rejects_folded_parameter():
    with pytest.raises(ae.MeasureSyntaxError) as err:
        parse_variant("AP(rel=2)|ap_denom=R")
    assert str(err.value) == caret("in a variant string 'rel' is written as axis 'rel'", 3, "AP(rel=2)")


def test_variant_names_only_axes_that_can_change_the_value():
    conv = load_profile("trec_eval-9.0.8").convention
    # recall_denom needs a cut-off; R without one divides by R under either value
    assert "recall_denom" not in str(Variant.of(parse_measure("R"), conv))
    assert "|recall_denom=R|" in str(Variant.of(parse_measure("R@10"), conv))
    # counts do not read the order, unless a finite depth decides which documents survive
    assert "ties=" not in str(Variant.of(parse_measure("NumRelRet"), conv))
    assert "|ties=docno-desc|" in str(Variant.of(parse_measure("NumRelRet"), conv.replace(depth=100)))
    q = {"1": {"a": 1, "b": 1, "c": 1}}
    r = {"1": {"a": 2.0, "x": 1.0}}
    res = [
        ae.evaluate(q, r, ["R", "R@2"], profile="trec_eval-9.0.8", settings=[f"recall_denom={v}"])
        for v in ("R", "min-R-k")
    ]
    # R: 1/3 either way, same variant; R@2: 1/3 vs 1/min(3, 2), different variants
    assert res[0].get("R").variant == res[1].get("R").variant
    assert res[0].get("R").value == res[1].get("R").value == pytest.approx(1 / 3)
    assert res[0].get("R@2").variant != res[1].get("R@2").variant
    assert (res[0].get("R@2").value, res[1].get("R@2").value) == (pytest.approx(1 / 3), 0.5)


def test_a_wrapped_variant_string_parses_back():
    """A variant string copied from a wrapped terminal line (newline and indent inside) parses."""
    text = "AP|ap_denom=R|depth=all|dups=error|negatives=pooled|rel=1|self_hits=k\n    eep|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel"
    v = parse_variant(text)
    assert str(v) == text.replace("\n    ", "")
