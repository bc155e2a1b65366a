"""A claims file as provenance cards (``auditeval card claims.toml``).

Each claim is checked (:func:`.claim_check.check_claim`) and placed under the convention that
decides it: its stated profile and settings; a locked variant's axes on the default profile;
else the profile and changed axes of the simplest variant that reproduces it (the default
profile when none does). Claims sharing qrels and convention make one card
(:func:`.card.build_card`: the runs and the measures as read, hashes, versions, facts); each
card's notes say, per claim, where it is printed, what it claims and whether it holds.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from auditeval.verify.card import Card, build_card
from auditeval.verify.claim_check import Stated, check_claim
from auditeval.verify.claims_file import read_claims


def claims_cards(path: str | Path, qrels: str | None = None, profile: str | None = None,
                 settings: tuple[str, ...] = (), backend: Any = None) -> list[Card]:
    """One card per (qrels, profile, settings) among the claims of ``path`` (see the module
    docstring), in the order their first claim appears."""
    from auditeval.io import qrels_from, run_from

    specs = read_claims(path, qrels, profile, settings)
    inputs: dict[str, Any] = {}
    groups: dict[tuple[str, str, tuple[str, ...]], dict[str, list]] = {}
    for s in specs:
        q = inputs.setdefault(s.qrels, qrels_from(s.qrels))
        r = inputs.setdefault(s.run, run_from(s.run))
        o = check_claim(q, r, s.claim, Stated(s.profile, s.settings, s.variant), {}, where=s.where)
        p = o.stated or o.decided or o.reference
        g = groups.setdefault((s.qrels, p.profile, p.settings), {"runs": [], "measures": [], "notes": []})
        if s.run not in g["runs"]:
            g["runs"].append(s.run)
        if str(p.measure) not in g["measures"]:
            g["measures"].append(str(p.measure))
        where = f" ({s.source})" if s.source and s.source != s.name else ""
        held = f"reproduced ({p.value:.6f})" if o.passed else f"NOT reproduced ({p.measure} = {p.value:.6f} here)"
        g["notes"].append(f"claim {s.name}{where}: {s.claim} as {p.measure} under {p.label}: {held}")
    cards = []
    for (q, prof, sets), g in groups.items():
        card = build_card(q, g["runs"], g["measures"], profile=prof, settings=list(sets) or None, backend=backend)
        card.notes = g["notes"] + card.notes
        cards.append(card)
    return cards
