"""``verify``: which conventions reproduce a published number, if any.

A **claim** is ``MEASURE=VALUE`` as printed in a paper: ``MAP=0.3066``, ``nDCG@10=41.4``
(a value above 1 for a measure bounded by 1 is read as a percentage), ``P@10=.52``. The
printed value stands for an interval: with ``d`` digits after the point, ``0.3066`` means
``[0.30655, 0.30665)``.

**Readings.** The measure name is read leniently (case-insensitive paper spellings: MAP,
MRR, NDCG, Recall; any ir_measures or trec_eval name through
:func:`auditeval.vocab.variant.parse_measure`), and plausible other readings join the search:
``MAP`` may have been ``map`` or ``map_cut.1000`` or ``AP@100``; ``MRR`` may be ``RR`` or
``RR@10``. A reading other than the first counts as one departure.

**Search.** For each reading, :func:`.search.candidates` lists every shipped profile with
up to two changed axes (every axis value the measure reads), and :func:`.search.evaluate_candidates`
evaluates them on the sweep's shared stages. Reproducing variants are listed simplest
first: fewest departures, then profile order, each with its variant string. When none
reproduces, the nearest variants and their distance to the claimed interval are reported.

Candidates whose aggregates agree to 12 digits compute the same number *on this input*
(``dups`` when the run repeats no document, ``topics`` when run and qrels hold the same
topics, ``depth=100`` for ``AP@100``, ...): they form one entry, represented by its simplest
member, the others listed as equivalent here.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

import numpy as np

from auditeval.verify.search import Candidate, candidates, evaluate_candidates, profile_order
from auditeval.vocab.errors import AuditEvalError, InputError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import parse_measure

# paper spellings (lower case) -> auditeval measure names; anything else goes to parse_measure
PAPER_NAMES = {"map": "AP", "ap": "AP", "mrr": "RR", "rr": "RR", "ndcg": "nDCG", "p": "P", "prec": "P",
               "precision": "P", "recall": "R", "r": "R", "bpref": "Bpref", "gmap": "GMAP",
               "rprec": "Rprec", "r-prec": "Rprec", "r-precision": "Rprec", "success": "Success"}
_CLAIM = re.compile(r"^\s*(?P<m>.+?)\s*=\s*(?P<v>[+-]?(?:\d+\.?\d*|\.\d+))\s*(?P<pct>%?)\s*$")
_PAPER = re.compile(r"^(?P<n>[A-Za-z-]+)(?:@(?P<k>\d+))?$")


@dataclass(frozen=True)
class Claim:
    text: str
    measure: str  # as written
    readings: tuple[Measure, ...]
    value: float  # on the measure's scale (percentages divided by 100)
    low: float  # the printed interval [low, high) (rounded to doubles, for display)
    high: float
    percent: bool
    exact: tuple[Decimal, Decimal] = (Decimal(0), Decimal(0))  # the interval, exactly

    def holds(self, value: float) -> bool:
        """Is ``value`` (its exact binary value) in the printed interval ``[low, high)``?"""
        d = Decimal(value)
        return self.exact[0] <= d < self.exact[1]

    def restated(self, value: float) -> str:
        """The claim as printed with ``value`` (on the measure's scale) in place of its number:
        the same measure text, digits after the point and scale (``MAP=0.3066`` with 0.30712 ->
        ``MAP=0.3071``; ``nDCG@10=41.4`` with 0.4152 -> ``nDCG@10=41.5``)."""
        mt = _CLAIM.match(self.text)
        raw, pct = mt.group("v"), mt.group("pct")
        decimals = len(raw.split(".")[1]) if "." in raw else 0
        shown = value * 100 if self.percent else value
        return f"{self.measure}={shown:.{decimals}f}{pct}"


def parse_claim(text: str, where: str = "--claim") -> Claim:
    """``'MAP=0.3066'`` -> a :class:`Claim` with its readings and printed interval."""
    mt = _CLAIM.match(text)
    if not mt:
        raise InputError(where, None, f"claim {text!r} is not MEASURE=VALUE (e.g. MAP=0.3066, nDCG@10=41.4)")
    name, raw = mt.group("m"), mt.group("v")
    readings = _readings(name, where)
    decimals = len(raw.split(".")[1]) if "." in raw else 0
    value = float(raw)
    bounded = SPECS[readings[0].name].fmt == "float" and SPECS[readings[0].name].agg != "sum"
    percent = bool(mt.group("pct")) or (bounded and value > 1)
    scale = Decimal(100 if percent else 1)
    half = Decimal(5).scaleb(-decimals - 1)
    lo, hi = (Decimal(raw) - half) / scale, (Decimal(raw) + half) / scale
    return Claim(text, name, readings, value / float(scale), float(lo), float(hi), percent, (lo, hi))


def _readings(name: str, where: str) -> tuple[Measure, ...]:
    try:
        first = parse_measure(name)
    except AuditEvalError as exc:
        mp = _PAPER.match(name)
        if not mp or mp.group("n").lower() not in PAPER_NAMES:
            raise InputError(where, None, f"unknown measure in claim: {str(exc).splitlines()[0]}") from None
        first = parse_measure(PAPER_NAMES[mp.group("n").lower()] + (f"@{mp.group('k')}" if mp.group("k") else ""))
    alts = {("AP", None): ["AP@1000", "AP@100"], ("RR", None): ["RR@10"], ("nDCG", None): ["nDCG@1000"]}
    more = alts.get((first.name, first.cutoff), [])
    if first.name in ("AP", "RR") and first.cutoff is not None and not first.params:
        more = [first.name]
    return (first, *(parse_measure(x) for x in more))


@dataclass(frozen=True)
class Found:
    """A reproducing (or nearest) variant: its simplest candidate and the equivalent ones."""

    candidate: Candidate
    measure: Measure  # the reading
    value: float
    departures: int  # changed axes + 1 for a non-first reading
    equivalent: tuple[Candidate, ...] = ()
    distance: float = 0.0  # to the claimed interval (0 when inside)
    readings: tuple[Measure, ...] = ()  # the reading of each equivalent candidate
    readings_all: tuple[Measure, ...] = ()  # the claim's readings, the first one as written

    @property
    def label(self) -> str:
        return self.candidate.label + self._as(self.measure)

    def _as(self, m: Measure) -> str:
        return "" if not self.readings_all or m == self.readings_all[0] else f" (read as {m})"

    def member_labels(self) -> list[str]:
        """Labels of the equivalent candidates, each with its reading when not the first."""
        return [c.label + self._as(m) for c, m in zip(self.equivalent, self.readings, strict=True)]

    def as_dict(self) -> dict[str, Any]:
        return {"variant": self.candidate.variant, "label": self.label, "reading": str(self.measure),
                "value": self.value, "departures": self.departures, "distance": self.distance,
                "profile": self.candidate.profile, "settings": self.candidate.settings,
                "equivalent": [{"label": lab, "variant": c.variant}
                               for lab, c in zip(self.member_labels(), self.equivalent, strict=True)]}

    def members(self) -> list[tuple[Candidate, Measure]]:
        """Every (candidate, reading) of this entry, the simplest first."""
        return [(self.candidate, self.measure), *zip(self.equivalent, self.readings, strict=True)]


@dataclass
class Verdict:
    claim: Claim
    reproduced: list[Found] = field(default_factory=list)
    nearest: list[Found] = field(default_factory=list)
    searched: int = 0  # variants evaluated
    notes: list[str] = field(default_factory=list)

    def to_frame(self):
        """Tidy pandas DataFrame: one row per variant found (reproducing ones first, then the
        nearest): claim, status, measure as read, value, variant, label, changed axes."""
        import pandas as pd

        rows = [{"claim": self.claim.text, "status": status, "measure": str(m), "value": f.value,
                 "variant": c.variant, "label": c.label, "departures": f.departures, "distance": f.distance}
                for status, found in (("reproduces", self.reproduced), ("nearest", self.nearest))
                for f in found for c, m in f.members()]
        return pd.DataFrame(rows, columns=["claim", "status", "measure", "value", "variant", "label", "departures",
                                           "distance"])

    def as_dict(self) -> dict[str, Any]:
        c = self.claim
        return {"claim": c.text, "measure": c.measure, "readings": [str(m) for m in c.readings],
                "interval": [c.low, c.high], "percent": c.percent, "searched": self.searched,
                "reproduced": [f.as_dict() for f in self.reproduced], "nearest": [f.as_dict() for f in self.nearest],
                "notes": self.notes}


def verify_claim(qrels: Qrels, run: Run, claim: Claim, cache: dict | None = None, max_departures: int = 2,
                 n_nearest: int = 5) -> Verdict:
    """Every variant (up to ``max_departures`` changes from a profile, over the claim's
    readings) whose aggregate lies in the claim's printed interval, simplest first."""
    cache = {} if cache is None else cache
    verdict = Verdict(claim, notes=list(dict.fromkeys([*qrels.notes, *run.notes])))
    order = profile_order()
    rows: list[tuple[int, int, int, Candidate, Measure, float, tuple[float, bool]]] = []
    for ri, m in enumerate(claim.readings):
        cands = candidates(m, max_departures, qrels)
        ev = evaluate_candidates(qrels, run, m, cands, cache)
        verdict.searched += len(cands)
        note = ev.error_note(m)
        if note:
            verdict.notes.append(note)
        raw = ev.aggregates if ev.raw_aggregates is None else ev.raw_aggregates
        for c, agg, unrounded in zip(ev.candidates, ev.aggregates, raw, strict=True):
            if np.isnan(agg):
                continue
            # the same number on this input: one entry (a tool's rounded output, BEIR's, joins
            # its unrounded twin unless the rounding decides the claim)
            key = (round(float(unrounded), 12), claim.holds(float(agg)))
            rank = order.index(c.profile)
            rows.append((len(c.departures) + (ri > 0), rank, ri, c, m, float(agg), key))
    rows.sort(key=lambda r: (r[0], r[1], r[2]))
    groups: dict[tuple[float, bool], list] = {}
    for row in rows:
        groups.setdefault(row[6], []).append(row)
    found = []
    for members in groups.values():
        dep, _rank, _ri, c, m, value, _key = members[0]
        dist = 0.0 if claim.holds(value) else min(abs(value - claim.low), abs(value - claim.high))
        found.append(Found(c, m, value, dep, tuple(x[3] for x in members[1:]), dist, tuple(x[4] for x in members[1:]),
                           claim.readings))
    verdict.reproduced = [f for f in found if f.distance == 0.0]
    if not verdict.reproduced:
        verdict.nearest = sorted(found, key=lambda f: (f.distance, f.departures))[:n_nearest]
    return verdict


def read_table(path: str) -> list[tuple[str, str, str, int]]:
    """A results table ``run,measure,value`` (CSV or TSV, optional header): (run, measure, value, line)."""
    import csv

    from auditeval.io.files import read_text

    text = read_text(path, allow_empty=False)  # missing, directory, binary, not UTF-8, empty: InputError
    delim = "\t" if "\t" in text.splitlines()[0] else ","
    out = []
    for i, row in enumerate(csv.reader(text.splitlines(), delimiter=delim), 1):
        if not row or not "".join(row).strip():
            continue
        if i == 1 and [c.strip().lower() for c in row] == ["run", "measure", "value"]:
            continue
        if len(row) != 3:
            raise InputError(path, i, f"expected run,measure,value, found {len(row)} field(s)")
        out.append((row[0].strip(), row[1].strip(), row[2].strip(), i))
    if not out:
        raise InputError(path, None, "no rows")
    return out
