"""The column-at-a-time text table helpers (``render/text_columns.py``), against plain Python."""

from __future__ import annotations

import math

import numpy as np
import pyarrow as pa

from auditeval.render.text_columns import (
    fixed_texts,
    join_rows,
    joined,
    longest,
    text_column,
    wrapped_column,
)
from auditeval.render.textgrid import wrap


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


# ----------------------------------------------------------------------------- fixed_texts
def _checked_values() -> np.ndarray:
    """Values where a vectorized ``.4f`` can go wrong: random ones, every tie ``k + 0.5`` at
    the 4th (and 0th, 2nd) decimal and both neighbouring doubles, signed zeros, tiny negatives
    that print ``-0.0000``, magnitudes around the fast path's limit, non-finite values."""
    rng = np.random.default_rng(7)
    ties = np.concatenate([(np.arange(-3000, 3000) + 0.5) / 10**d for d in (4, 2, 0)])
    base = np.concatenate([rng.random(20000) * 20 - 10, rng.random(2000) * 1e-3, ties,
                           [0.0, -0.0, -1e-300, -0.00004, 1 / 3, 2.0**31 / 1e4, 2.0**31, 1e300, -1e17,
                            np.inf, -np.inf, np.nan]])
    return np.concatenate([base, np.nextafter(base, np.inf), np.nextafter(base, -np.inf)])


def test_fixed_texts_is_pythons_formatting_wherever_it_decides():
    values = _checked_values()
    for decimals in (4, 0, 2):
        texts, undecided = fixed_texts(values, decimals)
        got = texts.to_pylist()
        want = [format(x, f".{decimals}f") for x in values.tolist()]
        decided = [(g, w) for g, w, u in zip(got, want, undecided.tolist(), strict=True) if not u]
        assert [g for g, _ in decided] == [w for _, w in decided]
        assert len(decided) > 0.8 * len(values)  # the fast path is the rule, not the exception
    # by hand: -0.0 and -0.00004 keep their sign; 0.00005 scales to exactly 0.5, a tie left to
    # Python (whose exact binary value, 5.000000000000000240e-05, rounds up to 0.0001)
    texts, undecided = fixed_texts(np.array([0.5, -0.0, 1 / 3, -0.00004, 12.25, 0.00005, np.nan]), 4)
    assert texts.to_pylist()[:5] == ["0.5000", "-0.0000", "0.3333", "-0.0000", "12.2500"]
    assert undecided.tolist() == [False] * 5 + [True, True]
    _, undecided = fixed_texts(np.array([2.5, 3.5, 2.4, np.inf, 1e12]), 0)  # ties, infinities, beyond 2**31
    assert undecided.tolist() == [True, True, False, True, True]


def test_text_column_with_decimals_equals_the_per_value_formatter():
    values = _checked_values()
    replace = np.zeros(len(values), bool)
    replace[::97] = True
    fast = text_column(values, _fmt, replace, "error", decimals=4)
    plain = text_column(values, _fmt, replace, "error")
    assert fast.to_pylist() == plain.to_pylist()
    assert plain.to_pylist() == ["error" if r else _fmt(x) for x, r in zip(values.tolist(), replace, strict=True)]


# ----------------------------------------------------------------------------- wrapping
def _wrap_model(text: str, width: int, indent: int) -> list[str]:
    """Greedy wrapping, widths recomputed from the lines (the implementation before it kept a
    running count); ASCII only."""
    words = text.split()
    lines, line, base = [], "", 0
    for w in words:
        if len(line) > base and len(line) + 1 + len(w) > width:
            lines.append(line)
            line, base = " " * indent, indent
        line = line + (" " if len(line) > base else "") + w
    lines.append(line)
    return [x.rstrip() for x in lines]


def test_wrap_and_wrapped_column_against_a_greedy_model():
    rng = np.random.default_rng(3)
    vocab = ["ties=qrels-order", "depth=1000", "rel=2", "x", "judged_only=yes", "a" * 30]
    texts = [" ".join(rng.choice(vocab, rng.integers(1, 9)).tolist()) for _ in range(400)] + ["(the profile)", ""]
    for width in (12, 25, 40, 200):
        assert [wrap(t, width, indent=2) for t in texts] == [_wrap_model(t, width, 2) for t in texts]
        first, tails = wrapped_column(texts, width, indent=2)
        model = [_wrap_model(t, width, 2) for t in texts]
        assert first.to_pylist() == [m[0] for m in model]
        assert tails.to_pylist() == ["\n" + "".join(f"{x}\n" for x in m[1:]) for m in model]
    # texts that are not plain (double spaces, a non-ASCII word) all go through wrap
    odd = ["a  b", "dépth=5 rel=1", " lead"]
    first, tails = wrapped_column(odd, 6, indent=2)
    assert first.to_pylist() == ["a b", "dépth=5", "lead"] and tails.to_pylist() == ["\n", "\n  rel=1\n", "\n"]


def test_ascii_rows_pad_as_python_does():
    left = pa.array(["depth=5", "ties=qrels-order rel=2", ""], pa.string())
    a = pa.array(["1.0000", "-", "error"], pa.string())
    tail = pa.array(["\n", "\n  more\n", "\n"], pa.string())
    text = join_rows(left, 10, [(a, 6)], tail)
    assert text == "".join(f"{lf.ljust(10)}  {x:>6}{t}" for lf, x, t in
                           zip(left.to_pylist(), a.to_pylist(), tail.to_pylist(), strict=True))
    assert text.splitlines()[0] == "depth=5     1.0000"


def test_greedy_wrapped_equals_wrap_on_many_plain_cases():
    from auditeval.render.text_columns import greedy_wrapped, longest_word

    rng = np.random.default_rng(11)
    vocab = ["ties=qrels-order", "depth=1000", "rel=2", "x", "judged_only=yes", "a" * 30, "bb", "c" * 11]
    checked = 0
    for _ in range(300):
        texts = [" ".join(rng.choice(vocab, rng.integers(1, 12)).tolist()) for _ in range(rng.integers(1, 30))]
        width, indent = int(rng.integers(1, 60)), int(rng.integers(0, 6))
        first, tails = greedy_wrapped(texts, width, indent)
        lines = [wrap(t, width, indent=indent) for t in texts]
        assert first.to_pylist() == [x[0] for x in lines]
        assert tails.to_pylist() == ["\n" + "".join(f"{m}\n" for m in x[1:]) for x in lines]
        assert longest_word(texts) == max(len(w) for t in texts for w in t.split())
        checked += len(texts)
    assert checked > 3000
    # by hand: a word longer than the width stands alone; indent 0 and 3
    first, tails = greedy_wrapped(["ab cd efghij k", "x"], 4, 3)
    assert first.to_pylist() == ["ab", "x"] and tails.to_pylist() == ["\n   cd\n   efghij\n   k\n", "\n"]
    first, tails = greedy_wrapped(["a b c d"], 3, 0)
    assert first.to_pylist() == ["a b"] and tails.to_pylist() == ["\nc d\n"]
    assert longest_word(["a  b", "dépth"]) == 5  # not plain: word by word
