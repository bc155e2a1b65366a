"""Locking a claims file: each claim's current value and variant string written into it.

``pytest --auditeval-update`` hands :func:`lock` one ``(claim, variant)`` pair per claim index
(:meth:`.claim_check.Outcome.current`); the file is parsed with tomlkit, which keeps comments,
blank lines, key order and quoting, only the ``claim`` and ``variant`` keys of those tables are
set, and the text is written atomically (:func:`auditeval.io.files.write_text`: a temporary
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
        t["claim"] = claim
        t["variant"] = variant
        name = t.get("id") or t.get("source") or f"claim {i + 1}"
        what = [f"{before[0]} -> {claim}"] if before[0] != claim else []
        what += ["variant locked" if before[1] is None else "variant changed"] if before[1] != variant else []
        changed.append(f"{path}: {name}: {', '.join(what)}")
    new = tomlkit.dumps(doc)
    if new != text:
        write_text(path, new)
    return changed
