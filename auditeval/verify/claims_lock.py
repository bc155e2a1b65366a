"""Locking a claims file: each claim's current value and variant string written into it.

``pytest --auditeval-update`` hands :func:`lock` one ``(claim, variant)`` pair per claim index
(:meth:`.claim_check.Outcome.current`); the file is parsed with tomlkit, which keeps comments,
blank lines, key order and quoting, only the ``claim`` and ``variant`` keys of those tables are
set (a value keeps its line and its comment; a new ``variant`` goes right after ``claim``), and the
text is written atomically (:func:`auditeval.io.files.write_text`: a temporary
file in the same folder, renamed over the old one) and only when it changed.
"""

from __future__ import annotations

from pathlib import Path

from auditeval.io.files import read_text, write_text
from auditeval.vocab.errors import InputError


def lock(path: str | Path, updates: dict[int, tuple[str, str]]) -> list[str]:
    """Write ``claim`` and ``variant`` of the ``[[claim]]`` tables ``updates`` names (by their
    0-based index); returns one line per changed claim (nothing written when none changed)."""
    import tomlkit
    from tomlkit.exceptions import TOMLKitError

    text = read_text(path, allow_empty=False)
    try:
        doc = tomlkit.parse(text)
    except TOMLKitError as exc:
        raise InputError(str(path), getattr(exc, "line", None), f"not valid TOML ({exc})") from None
    tables = doc.get("claim")
    if tables is None:
        raise InputError(str(path), None, "no [[claim]] table")
    changed = []
    for i, (claim, variant) in sorted(updates.items()):
        if i >= len(tables):
            raise InputError(str(path), None, f"claim {i + 1} is gone from the file since it was read")
        t = tables[i]
        before = (t.get("claim"), t.get("variant"))
        if before == (claim, variant):
            continue
        _set(t, "claim", claim, None)
        _set(t, "variant", variant, "claim")
        name = t.get("id") or t.get("source") or f"claim {i + 1}"
        what = [f"{before[0]} -> {claim}"] if before[0] != claim else []
        what += ["variant locked" if before[1] is None else "variant changed"] if before[1] != variant else []
        changed.append(f"{path}: {name}: {', '.join(what)}")
    new = tomlkit.dumps(doc)
    if new != text:
        write_text(path, new)
    return changed


def _set(table, key: str, value: str, after: str | None) -> None:
    """``table[key] = value``, keeping the old value's trailing comment; a new key right after
    ``after`` (tomlkit appends at the table's end, after the comments that lead the next table)."""
    import tomlkit

    if key in table:
        old, new = table.item(key), tomlkit.item(value)
        new.trivia.comment_ws, new.trivia.comment = old.trivia.comment_ws, old.trivia.comment
        table[key] = new
    elif after is not None and hasattr(table.value, "_insert_after"):  # tomlkit's Container
        table.value._insert_after(after, key, value)
    else:
        table[key] = value
