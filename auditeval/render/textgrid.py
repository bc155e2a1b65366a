"""Plain-text tables that fit a width without splitting a token.

:func:`grid` lays out ``headers`` and ``rows`` (raw strings) in aligned columns within
``width`` display cells. Identifiers (engine names, variant labels, topic ids) are never cut:
only the columns named in ``wrap`` break, and only at spaces. When the table is still too
wide, either the value columns are split into several blocks that each repeat the key
columns (``chunk=True``: matrices such as reference x measure), or the columns that do not
fit move to indented ``header: value`` lines under their row. :func:`wrap` is the word
wrapper every audit text block uses; a single word longer than the line stands alone (it
may exceed the width: it is never split). :func:`wrap_variant` is THE breaker of a variant
string (``AP|ap_denom=R|...``): after a ``|`` only, continuation lines indented.

Both return ``(line, row)`` pairs: ``row`` is the index of the row a line belongs to, or -1
for headers and rules, so a renderer can colour a row by its status.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len

GAP = 2
RULE = "─"


def wrap(text: str, width: int, indent: int = 0, first: str = "") -> list[str]:
    """``first + text`` wrapped at spaces to ``width``; continuation lines indented by ``indent``."""
    size = len if _one_cell_each(first) and _one_cell_each(text) else cell_len
    words = text.split()
    if size is len and len(first) + len(" ".join(words)) <= width:  # one line: the loop would not break
        return [(first + " ".join(words)).rstrip()]
    lines: list[str] = []
    line = first
    base = used = size(first)  # the cells of ``line`` so far (a sum: each character's cells)
    for w in words:
        cells = size(w)
        if used > base and used + 1 + cells > width:
            lines.append(line)
            line = " " * indent
            base = used = indent
        if used > base:
            line, used = f"{line} {w}", used + 1 + cells
        else:
            line, used = line + w, used + cells
    lines.append(line)
    return [x.rstrip() for x in lines]


def _one_cell_each(text: str) -> bool:
    """Whether every character of ``text`` takes one cell (printable ASCII): there ``len`` is
    the cell width, and :func:`wrap` needs no per-call ``cell_len`` (a sweep wraps a line per
    variant, tens of thousands of them)."""
    return text.isascii() and text.isprintable()


def wrap_variant(text: str, width: int, indent: int = 2, first: str = "") -> list[str]:
    """``first + text`` in lines of at most ``width`` cells, broken only after a ``|`` of the
    variant string ``text``; continuation lines start with ``indent`` blanks. An axis longer than
    the room stands alone on its line (it is never split). Joining the lines with their
    indentation removed gives back ``first + text``."""
    lines: list[str] = []
    line = first
    base = cell_len(first)
    parts = text.split("|")
    for k, part in enumerate(parts):
        piece = part + ("|" if k < len(parts) - 1 else "")
        if cell_len(line) > base and cell_len(line) + cell_len(piece) > width:
            lines.append(line)
            line = " " * indent
            base = indent
        line += piece
    lines.append(line)
    return lines


def _pad(text: str, w: int, right: bool) -> str:
    fill = " " * max(0, w - cell_len(text))
    return fill + text if right else text + fill


def _widths(headers: Sequence[str], rows: Sequence[Sequence[str]]) -> list[int]:
    return [max([cell_len(h), *(cell_len(r[c]) for r in rows)]) for c, h in enumerate(headers)]


def _longest_word(texts: Sequence[str]) -> int:
    return max([1, *(cell_len(w) for t in texts for w in t.split())])


def _fit(headers, rows, cols: list[int], width: int, wrap_cols: set[int], gap: int = GAP) -> dict[int, int] | None:
    """Column widths for ``cols`` within ``width`` (wrap columns shrunk to no less than their
    longest word), or None when they cannot fit."""
    nat = _widths(headers, rows)
    w = {c: nat[c] for c in cols}
    total = sum(w.values()) + gap * (len(cols) - 1)
    if total <= width:
        return w
    flex = [c for c in cols if c in wrap_cols]
    # a wrap column keeps its longest word whole; the last one may be as narrow as 12 cells (a
    # text that would take more than two lines there goes on lines under its row: see _lines)
    floor = {c: max(cell_len(headers[c]), min(nat[c], 12 if c == cols[-1] else max(
        _longest_word([r[c] for r in rows]), 12))) for c in flex}  # a header is never wrapped
    fixed = sum(w[c] for c in cols if c not in wrap_cols) + gap * (len(cols) - 1)
    room = width - fixed
    if not flex or room < sum(floor.values()):
        return None
    # give each wrap column its floor, then share what is left in proportion to the rest it wants
    spare = room - sum(floor.values())
    want = {c: nat[c] - floor[c] for c in flex}
    total_want = sum(want.values()) or 1
    for c in flex:
        w[c] = floor[c] + spare * want[c] // total_want
    return w


def _lines(headers, rows, cols, w, wrap_cols, right, gap: int = GAP, inline: int = 2,
           label: bool = False) -> list[tuple[str, int]]:
    sep = " " * gap
    out = [(sep.join(_pad(headers[c], w[c], c in right) for c in cols).rstrip(), -1)]
    out.append((RULE * (sum(w[c] for c in cols) + gap * (len(cols) - 1)), -1))
    last = cols[-1]
    width = sum(w[c] for c in cols) + gap * (len(cols) - 1)
    for i, r in enumerate(rows):
        cells = {c: (wrap(r[c], w[c]) if c in wrap_cols else [r[c]]) for c in cols}
        under: list[str] = []
        if last in wrap_cols and (_longest_word([r[last]]) > w[last] or len(cells[last]) > inline):
            first = f"    {headers[last]}: " if label else "    "
            cells[last], under = [""], wrap(r[last], width, indent=4, first=first)  # long text: under the row
        for k in range(max(len(v) for v in cells.values())):
            parts = [_pad(cells[c][k] if k < len(cells[c]) else "", w[c], c in right) for c in cols]
            out.append((sep.join(parts).rstrip(), i))
        out += [(x, i) for x in under]
    return out


def _chunk_size(headers, rows, keys: list[int], rest: list[int], width: int, wrap_set: set[int], gap: int) -> int:
    """Columns per block so that the blocks are as even as the greedy count of blocks allows."""
    n_blocks, left = 0, list(rest)
    while left:
        take = 1
        while take < len(left) and _fit(headers, rows, keys + left[:take + 1], width, wrap_set, gap) is not None:
            take += 1
        left = left[take:]
        n_blocks += 1
    return max(1, -(-len(rest) // max(1, n_blocks)))


def grid(headers: Sequence[str], rows: Sequence[Sequence[str]], width: int, *, wrap_cols: Sequence[int] = (),
         right: Sequence[int] = (), keys: int = 1, chunk: bool = False, gap: int = GAP,
         inline: int = 2) -> list[tuple[str, int]]:
    """The table as (line, row index) pairs, every line within ``width`` (see the module doc);
    ``gap`` blanks between columns; the last column's text, when it is a wrap column that would
    take more than ``inline`` lines (or holds a word wider than it), goes on lines under its row."""
    # a first-column id wider than half the line (a binary's path) gets a line of its own
    # above its row, so it does not widen the column for every row
    over = {i: r[0] for i, r in enumerate(rows) if cell_len(r[0]) > width // 2}
    rows = [["", *r[1:]] if i in over else list(r) for i, r in enumerate(rows)]
    out: list[tuple[str, int]] = []
    seen: set[int] = set()
    for t, i in _grid(headers, rows, width, wrap_cols, right, keys, chunk, gap, inline):
        if i in over and i not in seen:
            out += [(x, i) for x in wrap(over[i], width, indent=2)]
        seen.add(i)
        out.append((t[:width] if i < 0 and t.startswith(RULE) else t, i))
    return out


def _grid(headers, rows, width, wrap_cols, right, keys, chunk, gap, inline) -> list[tuple[str, int]]:
    wrap_set, right_set = set(wrap_cols), set(right)
    n = len(headers)
    cols = list(range(n))
    w = _fit(headers, rows, cols, width, wrap_set, gap)
    if w is not None:
        return _lines(headers, rows, cols, w, wrap_set, right_set, gap, inline)
    key_cols = list(range(min(keys, n)))
    if chunk:
        out: list[tuple[str, int]] = []
        rest = [c for c in cols if c not in key_cols]
        per = _chunk_size(headers, rows, key_cols, rest, width, wrap_set, gap)
        while rest:
            take = rest[:per] if len(rest) > per else rest
            if _fit(headers, rows, key_cols + take, width, wrap_set, gap) is None:
                take = [rest[0]]
                for c in rest[1:]:
                    if _fit(headers, rows, key_cols + take + [c], width, wrap_set, gap) is None:
                        break
                    take.append(c)
            w = _fit(headers, rows, key_cols + take, width, wrap_set, gap) or {
                c: v for c, v in zip(cols, _widths(headers, rows), strict=True)}
            if out:
                out.append(("", -1))
            out += _lines(headers, rows, key_cols + take, w, wrap_set, right_set, gap, inline)
            rest = rest[len(take):]
        return out
    # the columns that fit (taken in order, skipping those that do not) stay in the table; the
    # others become lines under each row
    shown = list(key_cols)
    for c in cols[len(key_cols):]:
        if _fit(headers, rows, shown + [c], width, wrap_set, gap) is not None:
            shown.append(c)
    moved = [c for c in cols if c not in shown]
    w = _fit(headers, rows, shown, width, wrap_set, gap)
    if w is None:  # even the key columns are too wide: they break at spaces too (a longer word stays whole)
        nat = _widths(headers, rows)
        wrap_set = wrap_set | set(shown)
        w = {c: max(cell_len(headers[c]), (width - gap * (len(shown) - 1)) // len(shown)) for c in shown}
        w = {c: min(nat[c], v) for c, v in w.items()}
    out = [(x, -1) for x, _ in _lines(headers, [], shown, w, set(), right_set, gap, inline)]
    for i, r in enumerate(rows):
        out += [(x, i) for x, _ in _lines(headers, [r], shown, w, wrap_set, right_set, gap, inline, True)[2:]]
        for c in moved:
            if r[c]:
                out += [(x, i) for x in wrap(r[c], width, indent=4, first=f"    {headers[c]}: ")]
    return out
