"""The sweep's text view (``render/sweep_text.py``): the departures column against a plain model."""

from __future__ import annotations

from dataclasses import replace

from auditeval.api import sweep
from auditeval.render.sweep_text import _departure, departures
from auditeval.vocab.conventions import AXES
from tests.paths import EXAMPLES


def test_departures_column_wise_equal_the_string_by_string_model():
    res = sweep(str(EXAMPLES / "qrels.txt"), [str(EXAMPLES / "bm25.txt")], ["AP", "nDCG@10"], vary="all")
    for label, b in res.blocks.items():
        base = res.base_for(label)
        profile = {f"{a}={AXES[a].format(getattr(base, a))}" for a in AXES}
        skip = len(b.variants[0].split("|")[0]) + 1  # every string starts with the folded measure
        got = departures(b, res, label)
        assert got == [_departure(t[skip:], profile) for t in b.variants]
        assert got[0] == "(the profile)" and len(set(got)) == len(got) > 1000
        # a non-ASCII string goes through the model one string at a time, with the same answer
        odd = replace(b, variants=[*b.variants[:3], b.variants[3] + "|x=é"])
        assert departures(odd, res, label) == [*got[:3], got[3] + " x=é"]
