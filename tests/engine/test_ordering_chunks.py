"""The fast path's score comparisons read a chunked float64 column chunk by chunk: the pair
across each chunk boundary must be compared like any other."""

import numpy as np
import pyarrow as pa

from auditeval.engine.ordering import _adjacent, presorted_order


def test_adjacent_compares_across_chunk_boundaries():
    col = pa.chunked_array([[3.0, 2.0], [2.0], [], [2.5, 1.0]], pa.float64())
    nan, gt, eq = _adjacent(col)
    assert nan is False
    assert gt.tolist() == [False, False, True, False]  # 2.5 > 2.0 across the 2nd boundary
    assert eq.tolist() == [False, True, False, False]  # 2.0 == 2.0 across the 1st boundary
    assert _adjacent(pa.chunked_array([[1.0], [float("nan")]]))[0] is True


def test_presorted_order_same_for_chunked_and_numpy_scores():
    tcode = np.array([1, 1, 1, 0, 0], np.int32)
    values = [5.0, 4.0, 4.0, 2.0, 2.0]
    doc = pa.array(["a", "c", "b", "x", "y"])
    chunked = pa.chunked_array([values[:2], values[2:4], values[4:]], pa.float64())
    want = [4, 3, 0, 1, 2]  # topic 0 first; ties by docno descending: y before x, c before b
    assert presorted_order(tcode, np.array(values), doc, None, "docno-desc").tolist() == want
    assert presorted_order(tcode, chunked, doc, None, "docno-desc").tolist() == want
    rising = pa.chunked_array([[1.0], [2.0]], pa.float64())  # not ranked: the full sort decides
    assert presorted_order(np.array([0, 0], np.int32), rising, pa.array(["a", "b"]), None, "docno-desc") is None
