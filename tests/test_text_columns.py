"""The column-at-a-time text table helpers (``render/text_columns.py``), against plain Python."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from auditeval.render.text_columns import join_rows, joined, longest, text_column


def _fmt(x: float) -> str:
    return "-" if math.isnan(x) else f"{x:.4f}"


def test_each_cell_is_its_own_value_formatted_and_replacements_win():
    values = np.array([0.5, np.nan, 0.5, -0.0, 0.0, 1 / 3, 0.00005, 0.00015])
    col = text_column(values, _fmt, np.array([0, 0, 1, 0, 0, 0, 0, 0], bool), "error")
    # -0.0 and 0.0 are equal floats with different text: kept apart; 5e-05 rounds as its binary value does
    assert col.to_pylist() == ["0.5000", "-", "error", "-0.0000", "0.0000", "0.3333", "0.0001", "0.0001"]
    assert col.to_pylist()[6] == f"{0.00005:.4f}" and longest(col) == 7


def test_rows_are_padded_by_code_points_and_joined_in_order():
    left = pa.array(["dépth=5", "x"], pa.string())
    a = pa.array(["1.0000", "-"], pa.string())
    b = pa.array(["error", "0.25"], pa.string())
    tail = pa.array(["\n", "\n  more\n"], pa.string())
    text = join_rows(left, 9, [(a, 6), (b, 5)], tail)
    assert text == "dépth=5    1.0000  error\n" + "x               -   0.25\n  more\n"
    assert text == "".join(f"{lf.ljust(9)}  {x:>6}  {y:>5}{t}" for lf, x, y, t in
                           zip(left.to_pylist(), a.to_pylist(), b.to_pylist(), tail.to_pylist(), strict=True))
    assert joined(pa.array(["ab", "", "ç"]).slice(1)) == "ç" and joined(pa.array([], pa.string())) == ""
