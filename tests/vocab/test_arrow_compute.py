"""auditeval.vocab.arrow_compute (Arrow's compute functions without importing pyarrow.compute)
gives what pyarrow.compute gives, for every function auditeval calls, with positional
options, keyword options and an options object; the reference is pyarrow.compute itself."""

from __future__ import annotations

import re

import pyarrow as pa
import pyarrow.compute as real
import pytest
from paths import REPO

from auditeval.vocab import arrow_compute as pc

ROOT = REPO / "auditeval"
S = pa.array(["b", "a", None, "b", "c"])
INTS = pa.array([3, 1, None, 3, 2], pa.int64())
F = pa.array([1.5, float("nan"), None, -2.0, 0.0])
B = pa.array([True, False, None, True, False])
CH = pa.chunked_array([[1, 2], [3, None]], pa.int64())

CASES = [
    ("unique", (S,), {}), ("equal", (INTS, 3), {}), ("sum", (INTS,), {}), ("sum", (INTS,), {"min_count": 10}),
    ("index_in", (S,), {"value_set": pa.array(["a", "c"])}), ("is_in", (S,), {"value_set": pa.array(["b"])}),
    ("dictionary_encode", (S,), {}), ("sort_indices", (INTS,), {"sort_keys": [("dummy", "descending")]}),
    ("greater", (INTS, 1), {}), ("filter", (INTS, B), {}), ("match_substring_regex", (S, "^[ab]$"), {}),
    ("invert", (B,), {}), ("any", (B,), {}), ("all", (B,), {}), ("starts_with", (S,), {"pattern": "b"}),
    ("or_", (B, B), {}), ("not_equal", (INTS, 3), {}), ("min_max", (F,), {}), ("min", (INTS,), {}),
    ("is_nan", (F,), {}), ("is_finite", (F,), {}), ("if_else", (B, INTS, INTS), {}), ("greater_equal", (INTS, 2), {}),
    ("count_distinct", (S,), {}), ("binary_length", (S,), {}), ("utf8_length", (S,), {}),
    ("binary_join_element_wise", (S, S, "-"), {}), ("take", (INTS, pa.array([4, 0])), {}), ("take", (CH, pa.array([3, 0])), {}),
    ("utf8_ltrim", (pa.array(["007", "0", "x"]),), {"characters": "0"}), ("utf8_trim_whitespace", (pa.array([" a ", "b"]),), {}),
    ("utf8_split_whitespace", (pa.array(["a b  c", ""]),), {}),
    ("list_value_length", (pa.array([[1], [], None]),), {}), ("list_element", (pa.array([[1, 2], [3]]), 0), {}),
    ("max", (INTS,), {}), ("utf8_lpad", (S,), {"width": 3, "padding": " "}), ("utf8_rpad", (S, 4), {}),
    ("binary_join_element_wise", (S, pa.scalar("+"), S, pa.scalar("")), {}),
    ("replace_with_mask", (S, pa.array([True, False, True, False, False]), pa.array(["x", "y"])), {}),
    ("ascii_lpad", (S,), {"width": 3, "padding": " "}), ("ascii_rpad", (S, 4), {}),
    ("is_null", (INTS,), {}), ("is_null", (CH,), {}),
    ("split_pattern", (pa.array(["a|b||c", "", None]),), {"pattern": "|"}),
    ("utf8_slice_codeunits", (pa.array(["AP|x=1", "é|y"]),), {"start": 2}),
    ("array_filter", (INTS, B), {}), ("list_flatten", (pa.array([["a", "b"], [], None, ["c"]]),), {}),
    ("binary_join", (pa.array([["a", "b"], [], None]), " "), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_same_as_pyarrow_compute(name, args, kwargs):
    assert getattr(pc, name)(*args, **kwargs).equals(getattr(real, name)(*args, **kwargs))


def test_options_object_and_errors():
    opts = real.SetLookupOptions(value_set=pa.array(["a"]))
    assert pc.is_in(S, options=opts).equals(real.is_in(S, options=opts))
    assert pc.sum(INTS, options={"min_count": 10}).equals(real.sum(INTS, options={"min_count": 10}))
    with pytest.raises(TypeError, match="both an 'options' argument"):
        pc.is_in(S, options=opts, value_set=pa.array(["a"]))
    with pytest.raises(AttributeError, match="no Arrow compute function 'no_such_function'"):
        pc.no_such_function  # noqa: B018


def test_cast_and_fill_null():
    assert pc.cast(INTS, pa.int32()).equals(real.cast(INTS, pa.int32()))
    assert pc.cast(CH, pa.float64()).equals(real.cast(CH, pa.float64()))
    with pytest.raises(pa.ArrowInvalid):
        pc.cast(pa.array([2**40]), pa.int32())
    assert pc.cast(pa.array([2**40]), pa.int32(), safe=False).equals(real.cast(pa.array([2**40]), pa.int32(), safe=False))
    assert pc.fill_null(INTS, 0).equals(real.fill_null(INTS, 0))
    assert pc.fill_null(S, "z").equals(real.fill_null(S, "z"))
    assert pc.fill_null(INTS, pa.scalar(7, pa.int32())).equals(real.fill_null(INTS, pa.scalar(7, pa.int32())))


def test_every_function_auditeval_calls_is_covered():
    called = set()
    for f in ROOT.rglob("*.py"):
        called |= set(re.findall(r"\bpc\.([a-z_0-9]+)\(", f.read_text()))
    covered = {c[0] for c in CASES} | {"cast", "fill_null"}
    assert called - covered == set()
