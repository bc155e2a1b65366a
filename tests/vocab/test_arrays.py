"""vocab/arrays.py: ``unique`` and ``from_numpy`` give what ``np.unique`` and ``pa.array`` give
(they exist only to keep numpy.ma unloaded in the drop-in, tests/project/test_imports.py)."""

import numpy as np
import pyarrow as pa
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra import numpy as hnp

from auditeval.vocab.arrays import first_seen, from_numpy, unique, unique_pairs

DTYPES = [np.int32, np.int64, np.uint8, np.float32, np.float64]


@given(st.sampled_from(DTYPES).flatmap(lambda dt: hnp.arrays(dt, st.integers(0, 40))))
def test_unique_equals_numpy(a):
    got, want = unique(a), np.unique(a)
    assert got.dtype == want.dtype
    assert np.array_equal(got, want, equal_nan=a.dtype.kind == "f")


def test_unique_by_hand():
    assert unique(np.array([3, 1, 3, 2, 1])).tolist() == [1, 2, 3]
    assert unique(np.array([np.nan, 2.0, np.nan, -1.0])).tolist()[:2] == [-1.0, 2.0]
    assert len(unique(np.array([np.nan, np.nan]))) == 1
    assert unique(np.array([], np.int64)).tolist() == []
    assert unique(np.array(["b", "a", "b"])).tolist() == ["a", "b"]


@settings(deadline=None)  # the first pa.array call loads numpy.ma
@given(st.sampled_from([*DTYPES, np.bool_]).flatmap(lambda dt: hnp.arrays(dt, st.integers(0, 70))))
def test_from_numpy_equals_pa_array(a):
    got, want = from_numpy(a), pa.array(a)
    assert got.type == want.type
    assert got.null_count == 0 and len(got) == len(a)
    assert np.array_equal(got.to_numpy(zero_copy_only=False), a, equal_nan=a.dtype.kind == "f")
    assert got.equals(want) or a.dtype.kind == "f"  # Arrow's equals says NaN != NaN


def test_from_numpy_views_and_types():
    a = np.arange(10, dtype=np.int64)
    assert from_numpy(a[::3]).to_pylist() == [0, 3, 6, 9]  # a strided view is copied contiguous
    assert from_numpy(a, pa.int64()).to_pylist() == list(range(10))
    assert from_numpy(a, pa.int32()).type == pa.int32()  # another type: pa.array's cast
    assert from_numpy(np.array([True, False, True]), pa.bool_()).to_pylist() == [True, False, True]
    assert from_numpy(np.array([1, 2], dtype=">i4")).to_pylist() == [1, 2]  # pa.array refuses it
    with pytest.raises(pa.ArrowInvalid):
        from_numpy(np.array([1.5]), pa.int64())  # as pa.array: no silent truncation


@given(st.lists(st.tuples(st.integers(-3, 3), st.integers(0, 2**40)), max_size=60))
def test_unique_pairs_equals_numpy_unique_on_columns(pairs):
    a = np.array([p[0] for p in pairs], np.int64)
    b = np.array([p[1] for p in pairs], np.int64)
    got_a, got_b, counts = unique_pairs(a, b)
    if not pairs:
        assert len(got_a) == len(got_b) == len(counts) == 0
        return
    (want_a, want_b), want_counts = np.unique(np.stack([a, b]), axis=1, return_counts=True)
    assert got_a.tolist() == want_a.tolist() and got_b.tolist() == want_b.tolist()
    assert counts.tolist() == want_counts.tolist()


@given(hnp.arrays(np.int64, st.integers(0, 60), elements=st.integers(-5, 5)))
def test_first_seen_against_a_dict(codes):
    first, inverse = first_seen(codes)
    seen: dict[int, int] = {}
    want = [seen.setdefault(c, len(seen)) for c in codes.tolist()]
    assert inverse.tolist() == want
    assert first.tolist() == [want.index(k) for k in range(len(seen))]
