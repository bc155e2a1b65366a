"""Every path that prints a number beside a variant string agrees with ``auditeval.evaluate``.

The product promise: two numbers are comparable exactly when their variant strings are equal.
So for random qrels and runs (ties, missing and extra topics, unjudged documents, grades 0-3 and
an occasional negative, duplicates where the convention admits them) every (variant string,
value) pair printed by a command (``eval``, ``sweep``, ``audit``, ``compare``, ``card``,
``verify``, ``reproduce``, ``pool bias/growth/coverage``, the trec_eval drop-in's ``--variants``)
or returned by an integration (ir_measures provider, PyTerrier frames) is parsed back
(``auditeval.parse_variant``) and evaluated with ``auditeval.evaluate`` directly; the two must be
equal to 1e-12 (the drop-in prints ``%.4f``: to its rounding). The expectation never comes from
the path under test: it is ``evaluate`` of the printed string alone.

A path that prints a value over a subset of the topics says so in the string: the variant plus
``|subset=RULE(K/N:-t1,-t2)`` (:mod:`auditeval.results.subset`). Such a value is checked against
the mean of ``evaluate``'s per-topic values (of the plain string) over exactly the kept topics:
the full set is the topics ``evaluate`` gives the run(s) the value is of, the dropped ones are
those the JSON names (a ``dropped`` list or ``subset`` record) or, failing that, the marker; the
marker's ``K``, ``N`` and ids (or their SHA-256) are checked against them. A value computed
against derived qrels carries ``|qrels=without(GROUP:-J/N)`` (pool bias: the judgments only
that group's runs put into the depth-k pool removed) or ``|qrels=pool(K,#H:-J/N)`` (pool
growth's final pool: only the judgments inside the pool of every run kept); it is checked
against ``evaluate`` on those qrels, rebuilt here from the qrels and runs in plain Python.
"""

from __future__ import annotations

import hashlib
import json
import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import ir_measures
import pytest
from cli_helpers import run_cli
from hypothesis import HealthCheck, Phase, example, given, settings
from hypothesis import strategies as st

import auditeval
from auditeval.integrations import pyterrier_frames
from auditeval.integrations.ir_measures_provider import to_auditeval
from auditeval.vocab.conventions import resolve
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import parse_measure

pytestmark = pytest.mark.slow

#: the temp directory of the session's cases (set by the autouse fixture below)
_BASE_DIR: list[Path] = []

#: one representative parameterisation of every measure of the spec table (checked below)
MEASURES = [
    "NumQ", "NumRet", "NumRel", "NumRelRet", "P@5", "R@10", "AP", "AP@5", "GMAP", "RR", "RR@5",
    "Rprec", "Success@5", "nDCG", "nDCG@5", "Bpref", "GMBpref", "infAP", "IPrec@0.5", "11pt",
    "RprecMult@0.5", "Utility", "RelP@5", "SetP", "SetR", "SetRelP", "SetAP", "SetF",
    "NumNonRelJudgedRet", "yaap", "relstring@5", "binG", "G", "nDCGRel", "RnDCG", "RBP",
    "RBPResid", "Unj@5", "Judged@5", "ERR@5", "SDCG(max_rel=3)@5", "Compat", "Accuracy@5",
    "NERR8(max_rel=3)@5", "NERR9(max_rel=3)@5", "NERR10(max_rel=3)", "NERR11(max_rel=3)",
    "INST(max_rel=3)", "INSQ(max_rel=3)", "BPM(max_rel=3)@5", "DCG@5", "Hits@5",
    "alpha_nDCG@5", "ERR_IA@5", "NRBP", "P_IA@5", "StRecall@5", "alpha_DCG(alpha=0.3)@5", "nERR_IA@5",
    "nNRBP(beta=0.8)", "AP_IA",
]
#: measures a statistic is taken of (compare, card, reproduce, pool): the mean-aggregated ones
MEAN_MEASURES = [m for m in MEASURES if SPECS[parse_measure(m).name].agg == "mean"]
PROFILES = ["trec_eval-9.0.8", "trec_eval-10.0", "ir_measures-0.4"]
SETTINGS = [
    [], [], ["topics=qrels"], ["ties=docno-asc"], ["ties=file-order"], ["depth=3"],
    ["dups=first"], ["dups=last", "topics=qrels"], ["gain=exp2"], ["ties=rank", "topics=qrels"],
]
#: the qualifiers a value computed on fewer topics / other qrels carries (results/subset.py)
SUBSET_RE = re.compile(r"\|subset=([^|(]+)\((\d+)/(\d+):([^)]*)\)$")
QRELS_RE = re.compile(r"\|qrels=(without|pool)\(([^|]*):-(\d+)/(\d+)\)$")
TOL = 1e-12
ORACLE_BASE = resolve("trec_eval-9.0.8", ["dups=first"])
TOPICS = ["1", "2", "3", "10"]
DOCS = [f"d{i}" for i in range(1, 9)]
SCORES = ["1", "1.5", "2", "3"]
#: bounded: a fixed seed, few examples, no shrinking (a failure prints its whole example)
_HEALTH = [HealthCheck.too_slow, HealthCheck.data_too_large]
PROPERTY = settings(max_examples=3, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                    suppress_health_check=_HEALTH)
SLOW = settings(max_examples=2, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=_HEALTH)
ONCE = settings(max_examples=1, deadline=None, derandomize=True, phases=[Phase.explicit, Phase.generate],
                suppress_health_check=_HEALTH)


_CASE_COUNTER = [0]


def _case_dir() -> Path:
    """A fresh directory under the session's temp dir (pytest's ``tmp_path_factory``)."""
    _CASE_COUNTER[0] += 1
    base = _BASE_DIR[0] if _BASE_DIR else Path("/tmp")
    d = base / f"case{_CASE_COUNTER[0]}"
    d.mkdir(parents=True)
    return d


@dataclass
class Case:
    """One random input: qrels lines, runs (tag -> lines), a profile and ``--set`` settings.

    Files are written lazily (hand cases are built at import time, before the temp dir is
    known); the loaded qrels/runs and the oracle are shared by every path of one case."""

    qrels: list[str]
    runs: dict[str, list[str]]
    profile: str
    settings: list[str]

    def __post_init__(self) -> None:
        self._dir: Path | None = None
        self._oracle: Oracle | None = None

    @property
    def dir(self) -> Path:
        if self._dir is None:
            self._dir = _case_dir()
            (self._dir / "qrels.txt").write_text("".join(line + "\n" for line in self.qrels))
            for tag, lines in self.runs.items():
                (self._dir / f"{tag}.txt").write_text("".join(line + "\n" for line in lines))
        return self._dir

    @property
    def oracle(self) -> Oracle:
        if self._oracle is None:
            self._oracle = Oracle(self)
        return self._oracle

    @property
    def qrels_path(self) -> str:
        return str(self.dir / "qrels.txt")

    def run_path(self, tag: str) -> str:
        return str(self.dir / f"{tag}.txt")

    @property
    def run_paths(self) -> list[str]:
        return [self.run_path(t) for t in self.runs]

    def set_args(self) -> list[str]:
        return [a for s in self.settings for a in ("--set", s)]

    def __repr__(self) -> str:  # hypothesis prints this for the falsifying example
        return (f"Case(profile={self.profile!r}, settings={self.settings!r},\n qrels={self.qrels!r},\n"
                f" runs={self.runs!r})")

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Case) and (self.qrels, self.runs, self.profile, self.settings) == (
            other.qrels, other.runs, other.profile, other.settings)

    __hash__ = None  # type: ignore[assignment]


@st.composite
def cases(draw: st.DrawFn, profiles: list[str] = PROFILES, with_settings: bool = True, shared: int = 1) -> Case:
    """A random case; every run ranks the first ``shared`` qrels topics (statistics need 2)."""
    profile = draw(st.sampled_from(profiles))
    sets = draw(st.sampled_from(SETTINGS)) if with_settings else []
    dups_ok = resolve(profile, sets).dups != "error"
    q_topics = draw(st.lists(st.sampled_from(TOPICS), min_size=shared, max_size=3, unique=True))
    qrels: list[str] = []
    for t in q_topics:
        docs = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5, unique=True))
        for d in docs:
            g = draw(st.sampled_from([0, 0, 1, 1, 2, 3, -1]) if draw(st.integers(0, 9)) == 0
                     else st.sampled_from([0, 0, 1, 1, 2, 3]))
            qrels.append(f"{t} 0 {d} {g}")
    runs: dict[str, list[str]] = {}
    for tag in ("A", "B"):
        others = draw(st.lists(st.sampled_from([*TOPICS, "7"]), max_size=3, unique=True))
        r_topics = [*q_topics[:shared], *[t for t in others if t not in q_topics[:shared]]]
        lines: list[str] = []
        for t in r_topics:
            docs = draw(st.lists(st.sampled_from([*DOCS, "u1", "u2"]), min_size=1, max_size=6,
                                 unique=not dups_ok))
            for rank, d in enumerate(docs, 1):
                lines.append(f"{t} Q0 {d} {rank} {draw(st.sampled_from(SCORES))} {tag}")
        runs[tag] = lines
    return Case(qrels, runs, profile, sets)


@dataclass
class Claim:
    """One printed number: ``value`` of ``run`` on ``topic`` under ``variant`` (a difference
    ``run - minus`` when ``minus`` is set), as ``path`` printed it."""

    path: str
    variant: str
    run: str
    value: Any
    topic: str = "all"
    minus: str | None = None
    dropped: list[str] | None = None  # the dropped topics the JSON names beside a subset value


def _ranked_top(lines: list[str], depth: int, ties: str, dups: str, sim: str) -> set[tuple[str, str]]:
    """Plain-Python depth-k contribution of a run: per topic, one line per document (the first
    or last of duplicates as ``dups`` says), ordered as ``ties`` says (score descending, then
    docno descending / ascending as byte strings, or input order; ``rank``: the rank column),
    scores stored as ``sim`` says; the first ``depth`` (topic, doc) pairs."""
    import numpy as np

    by_topic: dict[str, dict[str, tuple[int, float, int]]] = {}
    for i, line in enumerate(lines):
        t, _, d, rank, score, _ = line.split()
        sc = float(np.float32(float(score))) if sim == "float32" else float(score)
        docs = by_topic.setdefault(t, {})
        if d in docs and dups != "last":
            continue
        docs[d] = (i, sc, int(rank))
    out: set[tuple[str, str]] = set()
    for t, docs in by_topic.items():
        items = [(d, *v) for d, v in docs.items()]
        if ties == "rank":
            items.sort(key=lambda x: (x[3], x[1]))
        else:
            if ties == "docno-desc":
                items.sort(key=lambda x: x[0].encode(), reverse=True)
            elif ties == "docno-asc":
                items.sort(key=lambda x: x[0].encode())
            else:  # file-order
                items.sort(key=lambda x: x[1])
            items.sort(key=lambda x: -x[2])
        out |= {(t, x[0]) for x in items[:depth]}
    return out


class Oracle:
    """``auditeval.evaluate`` of a variant string alone: its measure (the first field) under
    its axes as ``--set`` settings. The base profile's other axes cannot change the value; the
    base keeps duplicates (``dups=first``) so that a measure whose string omits ``dups`` (NumQ)
    is not refused by a ``dups=error`` it does not read.

    One oracle per case: the qrels and runs are read once and every result is cached; the
    variants a path prints are evaluated in batches (:meth:`prefetch`: one ``evaluate`` call per
    distinct settings list, every run and every measure with exactly those settings), and each
    result's own variant string is checked to be the printed one."""

    def __init__(self, case: Case):
        self.case = case
        self.cache: dict[tuple[str, str, str], dict[str, Any]] = {}
        self.pool: str | None = None  # the pool string of a pool command (for qrels markers)
        self.errors: dict[tuple[str, str, str], str] = {}  # evaluate's refusals
        self._qrels: dict[str, Any] = {}
        self._runs = {t: auditeval.read_run(case.run_path(t)) for t in case.runs}

    # -- qrels: the case's, or derived from it as a qrels marker says
    def qrels_for(self, marker: str) -> Any:
        if marker not in self._qrels:
            if not marker:
                self._qrels[marker] = auditeval.read_qrels(self.case.qrels_path)
            else:
                self._qrels[marker] = auditeval.read_qrels(self._derived_qrels(marker))
        return self._qrels[marker]

    def _derived_qrels(self, marker: str) -> str:
        m = QRELS_RE.fullmatch(marker)
        assert m, f"unreadable qrels marker {marker!r}"
        rule, what, removed, total = m.group(1), m.group(2), int(m.group(3)), int(m.group(4))
        assert self.pool, "a qrels marker outside a pool command"
        axes = dict(a.split("=", 1) for a in self.pool.split("|")[1:])
        if rule == "pool":  # K,#H: the depth and the SHA-256 of the pool string printed beside it
            assert what == f"{axes['depth']},#{hashlib.sha256(self.pool.encode()).hexdigest()[:8]}", what
        depth = int(axes["depth"])
        tops = {t: _ranked_top(lines, depth, axes["ties"], axes["dups"], axes["sim"]) for t, lines in self.case.runs.items()}
        if rule == "pool":
            keep = set().union(*tops.values())
            gone = lambda key: key not in keep  # noqa: E731
        else:  # the pairs only group `what` (one run per group: the default) put into the pool
            assert what in tops, f"group {what!r} is not a run"
            unique = tops[what] - set().union(*(v for k, v in tops.items() if k != what))
            gone = lambda key: key in unique  # noqa: E731
        kept = [ln for ln in self.case.qrels if not gone(tuple(ln.split()[0:3:2]))]
        assert (total, removed) == (len(self.case.qrels), len(self.case.qrels) - len(kept)), \
            f"{marker}: {len(self.case.qrels) - len(kept)} of {len(self.case.qrels)} judgments removed by the rule"
        # the marker's rule: a topic left without judgment stays evaluated (every document
        # unjudged); a grade-0 judgment of a document no run retrieves keeps it in the qrels
        # file with R = 0 and every retrieved document unjudged
        emptied = dict.fromkeys(ln.split()[0] for ln in self.case.qrels)
        for ln in kept:
            emptied.pop(ln.split()[0], None)
        kept += [f"{t} 0 zz-nowhere 0" for t in emptied]
        path = self.case.dir / f"qrels-{hashlib.sha256(marker.encode()).hexdigest()[:12]}.txt"
        path.write_text("".join(ln + "\n" for ln in kept))
        return str(path)

    @staticmethod
    def split(variant: str) -> tuple[str, str, str]:
        """(plain variant, subset marker, qrels marker) of a printed string."""
        qm = re.search(r"\|qrels=.*$", variant)
        q = qm.group(0) if qm else ""
        rest = variant[: len(variant) - len(q)] if q else variant
        sm = re.search(r"\|subset=.*$", rest)
        sub = sm.group(0) if sm else ""
        return (rest[: len(rest) - len(sub)] if sub else rest), sub, q

    def prefetch(self, keys: set[tuple[str, str]]) -> None:
        """Evaluate every (plain variant, qrels marker) of ``keys`` not cached yet."""
        groups: dict[tuple[str, tuple[str, ...]], list[str]] = {}
        for variant, qm in keys:
            if (variant, qm, next(iter(self.case.runs))) in self.cache:
                continue
            parts = str(auditeval.parse_variant(variant)).split("|")
            groups.setdefault((qm, tuple(parts[1:])), []).append(variant)
        for (qm, sets), variants in groups.items():
            measures = list(dict.fromkeys(v.split("|")[0] for v in variants))
            for tag in self.case.runs:
                for v in variants:
                    self.cache.setdefault((v, qm, tag), {})
            try:
                results = [auditeval.evaluate(self.qrels_for(qm), list(self._runs.values()), measures,
                                              profile=ORACLE_BASE, settings=list(sets))]
            except AuditEvalError:  # one run refused (topics=strict): each run alone
                results = []
                for tag, run in self._runs.items():
                    try:
                        results.append(auditeval.evaluate(self.qrels_for(qm), [run], measures, profile=ORACLE_BASE,
                                                          settings=list(sets)))
                    except AuditEvalError as exc:
                        self.errors.update({(v, qm, tag): str(exc) for v in variants})
            for res in results:
                for x in res.values:
                    key = (str(x.variant), qm, x.run)
                    assert key in self.cache, f"evaluate of {x.measure} under {sets} reports {x.variant}"
                    self.cache[key][x.topic] = x.value

    def values(self, variant: str, run: str, qm: str = "") -> dict[str, Any]:
        """topic -> value (and ``"all"`` -> the aggregate) of ``run`` under the plain ``variant``."""
        key = (variant, qm, run)
        if key not in self.cache:
            self.prefetch({(variant, qm)})
        assert key not in self.errors, f"evaluate refuses {run} under {variant}{qm}: {self.errors[key]}"
        return self.cache[key]

    def kept(self, c: Claim, base: str, sub: str, qm: str) -> list[str]:
        """The topics a subset value is over: the full set (the topics ``evaluate`` gives the
        run(s) of the claim) minus those dropped, after checking the marker against them."""
        m = SUBSET_RE.fullmatch(sub)
        assert m, f"{c.path}: unreadable subset marker {sub!r}"
        k, n, ids = int(m.group(2)), int(m.group(3)), m.group(4)
        full: dict[str, None] = {}
        for r in (c.run, c.minus):
            if r is not None:
                full.update(dict.fromkeys(t for t in self.values(base, r, qm) if t != "all"))
        if c.dropped is not None:
            dropped = [str(t) for t in c.dropped]
        else:
            assert not ids.startswith("#"), f"{c.path}: {sub}: the dropped topics are hashed and not listed"
            dropped = [t.removeprefix("-") for t in ids.split(",")]
        assert set(dropped) <= set(full), f"{c.path}: dropped {dropped} outside the full set {list(full)}"
        kept = [t for t in full if t not in set(dropped)]
        assert (k, n) == (len(kept), len(full)), f"{c.path}: {sub} but {len(kept)} of {len(full)} topics kept"
        if ids.startswith("#"):
            text = "\x1f".join(sorted(dropped, key=lambda t: t.encode())).encode()
            assert ids == "#" + hashlib.sha256(text).hexdigest()[:8], f"{c.path}: {sub}: hash of {dropped}"
        else:
            assert sorted(ids.split(",")) == sorted(f"-{t}" for t in dropped), f"{c.path}: {sub} names other topics than {dropped}"
        assert kept, f"{c.path}: {sub} keeps no topic"
        return kept

    def expected(self, c: Claim) -> Any:
        base, sub, qm = self.split(c.variant)
        if sub:
            kept = self.kept(c, base, sub, qm)
            a = self.values(base, c.run, qm)
            b = self.values(base, c.minus, qm) if c.minus is not None else {}
            per = [a.get(t, math.nan) - (b.get(t, math.nan) if c.minus is not None else 0.0) for t in kept]
            return sum(per) / len(per)
        want = self.values(base, c.run, qm).get(c.topic)
        if c.minus is not None:
            w2 = self.values(base, c.minus, qm).get(c.topic)
            want = None if want is None or w2 is None else want - w2
        return want

    def check(self, claims: list[Claim], tol: float = TOL) -> None:
        """Every claim equals ``evaluate`` under its variant string; the list is not empty."""
        assert claims, "the path printed no (variant, value) pair"
        keys = set()
        for c in claims:
            base, _, qm = self.split(c.variant)
            keys.add((base, qm))
        self.prefetch(keys)
        bad: list[str] = []
        for c in claims:
            want = self.expected(c)
            if isinstance(c.value, str) or isinstance(want, str):
                ok = str(c.value).strip("'") == str(want)
            elif _num(c.value) and math.isnan(c.value) and (want is None or (_num(want) and math.isnan(want))):
                ok = True  # NaN where evaluate reports no value (Accuracy undefined) or NaN (absent=empty IPrec)
            else:
                ok = want is not None and abs(float(c.value) - float(want)) <= tol
            if not ok:
                diff = f"{c.run} - {c.minus}" if c.minus else c.run
                bad.append(f"{c.path}: {diff} topic {c.topic}: printed {c.value!r}, "
                           f"evaluate gives {want!r} under {c.variant}")
        assert not bad, f"{len(bad)} of {len(claims)} printed values disagree with evaluate:\n" + "\n".join(bad[:25])


def _num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


VALUE_KEYS = ("value", "native", "aggregate", "mean", "full")
DIFF_KEYS = ("mean_diff", "full_gap", "final_gap")


def collect(obj: Any, path: str, variant: str | None = None, run: str | None = None,
            subset: list[str] | None = None) -> list[Claim]:
    """Every (variant, value) pair in a JSON document: a dict's numeric ``value``, ``native``,
    ``aggregate``, ``mean`` or ``full`` under the nearest ``variant`` (its own or an enclosing
    dict's) and ``run``; differences ``a - b`` (``mean_diff``, ``full_gap``, ``final_gap``) and
    ``run - baseline`` (``difference``); ``variant_a``/``value_a`` pairs of the native side;
    a card's ``variants`` + ``results`` tables. References' own values (an ``engine`` that is
    not auditeval's) and statistics of two runs (``statistic``) are not evaluate's."""
    out: list[Claim] = []
    if isinstance(obj, list):
        for x in obj:
            out += collect(x, path, variant, run, subset)
        return out
    if not isinstance(obj, dict):
        return out
    if isinstance(obj.get("variant"), str) and "|" in obj["variant"]:
        variant = obj["variant"]
    if isinstance(obj.get("run"), str):
        run = obj["run"]
    if isinstance(obj.get("dropped"), list):  # the dropped topics named beside a subset value
        subset = [str(t) for t in obj["dropped"]]
    elif isinstance(obj.get("subset"), dict) and isinstance(obj["subset"].get("dropped"), list):
        subset = [str(t) for t in obj["subset"]["dropped"]]
    topic = str(obj.get("topic", "all"))
    foreign = isinstance(obj.get("engine"), str) and not obj["engine"].startswith("auditeval")
    if variant is not None and "statistic" not in obj:
        for k in VALUE_KEYS:
            if k in obj and (_num(obj[k]) or (k == "value" and "axis" not in obj and str(obj.get("measure", "")).startswith("relstring"))):
                if k == "value" and foreign:
                    continue
                if run is not None:
                    out.append(Claim(f"{path}:{k}", variant, run, obj[k], topic, None, subset))
        for k in DIFF_KEYS:
            if _num(obj.get(k)) and isinstance(obj.get("a"), str) and isinstance(obj.get("b"), str):
                out.append(Claim(f"{path}:{k}", variant, obj["a"], obj[k], topic, obj["b"], subset))
        if _num(obj.get("difference")) and isinstance(obj.get("baseline"), str) and run is not None:
            out.append(Claim(f"{path}:difference", variant, run, obj["difference"], topic, obj["baseline"], subset))
    for side in ("a", "b"):
        va, xa = obj.get(f"variant_{side}"), obj.get(f"value_{side}")
        if isinstance(va, str) and _num(xa) and str(obj.get(side, "")).startswith("native") and run:
            out.append(Claim(f"{path}:value_{side}", va, run, xa, topic, None, subset))
    if isinstance(obj.get("variants"), dict) and isinstance(obj.get("results"), dict):
        for r, row in obj["results"].items():
            for label, x in row.items():
                if label in obj["variants"] and (_num(x) or isinstance(x, str)):
                    out.append(Claim(f"{path}:results", obj["variants"][label], r, x, "all", None, subset))
    for k, x in obj.items():
        if k not in ("variants", "results"):
            out += collect(x, f"{path}/{k}", variant, run, subset)
    return out


def _json(argv: list[str]) -> Any:
    code, out, err = run_cli(*argv)
    assert code == 0, f"auditeval {' '.join(argv)} exited {code}: {err}"
    return json.loads(out)


def _refused(case: Case) -> bool:
    """Whether the profile refuses one of the runs (then every path must refuse; see
    :func:`test_eval_json` for the refusal's own check)."""
    try:
        auditeval.evaluate(case.qrels_path, case.run_paths, ["AP"], profile=case.profile, settings=case.settings)
    except AuditEvalError:
        return True
    return False


#: hand-made cases beside the random ones (hypothesis ``@example``): graded qrels, a run that
#: lacks a qrels topic (A misses topic 3), unjudged documents, ties at the top
_KNOWN_QRELS = ["1 0 d1 2", "1 0 d2 1", "1 0 d3 0", "2 0 d1 1", "2 0 d4 3", "2 0 d5 0", "3 0 d9 1"]
_KNOWN_RUNS = {
    "A": ["1 Q0 d1 1 2 A", "1 Q0 d2 2 2 A", "1 Q0 u1 3 1 A", "2 Q0 d4 1 3 A", "2 Q0 u2 2 1 A", "2 Q0 d1 3 1 A"],
    "B": ["1 Q0 d3 1 2 B", "1 Q0 d2 2 1 B", "2 Q0 d1 1 3 B", "2 Q0 d5 2 3 B", "3 Q0 d9 1 1 B", "7 Q0 d1 1 1 B"],
}
KNOWN_PLAIN = Case(_KNOWN_QRELS, _KNOWN_RUNS, "trec_eval-9.0.8", [])
KNOWN_EXP2_QRELS = Case(_KNOWN_QRELS, _KNOWN_RUNS, "trec_eval-9.0.8", ["gain=exp2", "topics=qrels"])


@pytest.fixture(autouse=True, scope="module")
def _case_files(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Every case's files go under one pytest temp dir (cleaned up by pytest)."""
    _BASE_DIR[:] = [tmp_path_factory.mktemp("variant-paths")]


# --------------------------------------------------------------------------------------------
# the spec table is covered


def test_measure_list_covers_the_spec_table() -> None:
    assert {parse_measure(m).name for m in MEASURES} == set(SPECS)


# --------------------------------------------------------------------------------------------
# eval and sweep


@PROPERTY
@example(KNOWN_PLAIN)
@example(KNOWN_EXP2_QRELS)
@given(cases())
def test_eval_json(case: Case) -> None:
    argv = ["eval", case.qrels_path, *case.run_paths, "-m", " ".join(MEASURES), "--profile", case.profile,
            *case.set_args(), "-q", "--format", "json"]
    if _refused(case):
        code, _, err = run_cli(*argv)
        assert code == 2 and "error" in err
        return
    doc = _json(argv)
    case.oracle.check(collect(doc["values"], "eval"))


@PROPERTY
@given(cases())
def test_evaluate_api_round_trip(case: Case) -> None:
    """``evaluate`` under a profile equals ``evaluate`` of each printed string (the oracle's
    base profile differs, so this checks that the string names every axis that matters)."""
    if _refused(case):
        return
    res = auditeval.evaluate(case.qrels_path, case.run_paths, MEASURES, profile=case.profile, settings=case.settings)
    case.oracle.check([Claim("evaluate", str(v.variant), v.run, v.value, v.topic) for v in res.values])


@PROPERTY
@given(cases(), st.sampled_from(["ties", "topics", "depth=3,all", "rel", "sim", "gain", "dups=first,last"]))
def test_sweep_api_and_cli(case: Case, vary: str) -> None:
    if _refused(case):
        return
    axis, _, vals = vary.partition("=")
    vary_arg = {axis: vals.split(",") if vals else "all"}
    oracle = case.oracle
    res = auditeval.sweep(case.qrels_path, case.run_paths, MEASURES, profile=case.profile, vary=vary_arg,
                          settings=case.settings)
    frame = res.to_frame()
    oracle.check([Claim("sweep api", r.variant, r.run, r.value, str(r.topic)) for r in frame.itertuples()])
    doc = _json(["sweep", case.qrels_path, *case.run_paths, "-m", " ".join(MEASURES), "--profile", case.profile,
                 *case.set_args(), "--vary", vary, "-q", "--format", "json"])
    oracle.check(collect(doc["values"], "sweep cli"))


# --------------------------------------------------------------------------------------------
# the audit: native values, sensitivity, tie envelope


@ONCE
@example(KNOWN_PLAIN)
@example(KNOWN_EXP2_QRELS)
@given(cases(with_settings=True))
def test_audit_native_sensitivity_ties(case: Case) -> None:
    if _refused(case):
        return
    conv = resolve(case.profile, case.settings)
    rep = auditeval.audit(case.qrels_path, case.run_paths, MEASURES, against=[], profile=conv)
    doc = rep.to_dict()
    oracle = case.oracle
    for part in ("agreement", "sensitivity", "ties", "conv_diff", "attributions", "swaps"):
        claims = collect(doc.get(part, []), f"audit {part}")
        if part in ("sensitivity", "ties"):
            oracle.check(claims)
        elif claims:
            oracle.check(claims)


def test_audit_takes_relstring(tmp_path: Path) -> None:
    """The audit accepts every measure evaluate accepts, relstring too: its values are strings
    ("01-" is no number, "10" must stay "10"), compared exactly between conventions."""
    (tmp_path / "q").write_text("1 0 d1 1\n1 0 d2 0\n2 0 d3 1\n")
    (tmp_path / "r").write_text("1 Q0 d2 1 2 A\n1 Q0 d1 2 2 A\n1 Q0 u 3 1 A\n2 Q0 d3 1 1 A\n")
    rep = auditeval.audit(str(tmp_path / "q"), [str(tmp_path / "r")], ["relstring@5", "AP"], against=[])
    ties = [t for t in rep.to_dict()["ties"] if t["measure"] == "AP" and t["topic"] == "all"]
    assert ties and ties[0]["value"] == 0.75  # topic 1: d2 (0) ranks above d1 (1) under docno-desc: 1/2; topic 2: 1
    # ties=docno-asc puts d1 first: relstring of topic 1 changes from "01-" to "10-" (1 topic moves)
    rows = [r for r in rep.to_dict()["sensitivity"] if r["measure"] == "relstring@5"]
    flip = [r for r in rows if r["axis"] == "ties" and r["value"] == "docno-asc"]
    assert flip and flip[0]["topics_changed"] == 1 and flip[0]["largest_topic"] == "1"


# --------------------------------------------------------------------------------------------
# compare, card, verify, reproduce


@SLOW
@example(KNOWN_PLAIN)
@example(KNOWN_EXP2_QRELS)
@given(cases(shared=2))
def test_compare_json(case: Case) -> None:
    if _refused(case):
        return
    doc = _json(["compare", case.qrels_path, *case.run_paths, "-m", " ".join(MEAN_MEASURES), "--profile",
                 case.profile, *case.set_args(), "--trials", "30", "--format", "json"])
    claims: list[Claim] = []
    for m in doc["measures"]:
        assert m["variant"] == m["variant_full"] + (f"|{m['subset']['marker']}" if m["subset"]["marker"] else "")
        for s in m["systems"]:
            claims.append(Claim("compare systems.mean", s["variant"], s["run"], s["mean"], "all", None, s["dropped"]))
            claims.append(Claim("compare systems.mean_full", m["variant_full"], s["run"], s["mean_full"]))
        for row in m["pairs"]["rows"]:
            claims.append(Claim("compare pairs.mean_diff", m["variant"], row["a"], row["mean_diff"], "all", row["b"],
                                m["subset"]["dropped"]))
    case.oracle.check(claims)


@SLOW
@example(KNOWN_PLAIN)
@given(cases(profiles=["trec_eval-9.0.8", "ir_measures-0.4"], with_settings=False, shared=2))
def test_card_json(case: Case) -> None:
    doc = _json(["card", case.qrels_path, *case.run_paths, "-m", " ".join(MEAN_MEASURES), "--profile", case.profile,
                 "--baseline", case.run_path("A"), "--format", "json"])
    case.oracle.check(collect(doc, "card"))


@ONCE
@given(cases(profiles=["trec_eval-9.0.8", "ir_measures-0.4"], with_settings=False))
def test_verify_json(case: Case) -> None:
    """verify's reproducing variants (and the ones it calls equivalent) give the value it prints."""
    if _refused(case):
        return
    res = auditeval.evaluate(case.qrels_path, case.run_path("A"), ["AP"], profile=case.profile)
    claims = [f"{v.measure}={v.value:.4f}" for v in res.aggregates()]
    argv = ["verify", case.qrels_path, case.run_path("A"), "--show", "3", "--departures", "1", "--json"]
    for c in claims:
        argv += ["--claim", c]
    doc = _json(argv)
    out: list[Claim] = []
    for c in doc["claims"]:
        for r in c["reproduced"]:
            out.append(Claim("verify reproduced", r["variant"], "A", r["value"]))
            for e in r.get("equivalent", []):
                out.append(Claim(f"verify equivalent ({e['label']})", e["variant"], "A", r["value"]))
    case.oracle.check(out)


@SLOW
@example(KNOWN_PLAIN)
@given(cases(profiles=["trec_eval-9.0.8", "ir_measures-0.4"], with_settings=False, shared=2))
def test_reproduce_rmse(case: Case) -> None:
    """reproduce's RMSE under a variant string is the root mean square of the per-topic
    differences ``evaluate`` gives under that string, over the topics both runs have."""
    if _refused(case):
        return
    doc = _json(["reproduce", "--qrels", case.qrels_path, case.run_path("A"), case.run_path("B"),
                 "-m", " ".join(MEAN_MEASURES), "--profile", case.profile, "--json"])
    oracle = case.oracle
    bad = []
    rows = [v for v in doc["values"] if v["statistic"] == "RMSE"]
    assert rows
    for v in rows:
        a, b = oracle.values(v["variant"], "A"), oracle.values(v["variant"], "B")
        common = sorted((set(a) & set(b)) - {"all"})
        want = math.sqrt(sum((a[t] - b[t]) ** 2 for t in common) / len(common)) if common else None
        if want is None or abs(v["value"] - want) > TOL:
            bad.append(f"reproduce RMSE {v['variant']}: printed {v['value']!r}, evaluate gives {want!r}")
    assert not bad, "\n".join(bad)


# --------------------------------------------------------------------------------------------
# pool bias, growth, coverage


@SLOW
@example(KNOWN_PLAIN)
@example(KNOWN_EXP2_QRELS)
@given(cases(profiles=["trec_eval-9.0.8", "ir_measures-0.4"], shared=2))
def test_pool_bias_growth_coverage(case: Case) -> None:
    if _refused(case):
        return
    oracle = case.oracle
    common = [case.qrels_path, *case.run_paths, "--depth", "3", "--profile", case.profile, *case.set_args(),
              "--format", "json"]
    # Compat is refused by pool bias/growth (its ideal ranking needs the qrels line order), and so
    # are the intent-aware measures (frozen labels keep no subtopics): said so
    pooled = [m for m in MEAN_MEASURES if not SPECS[parse_measure(m).name].reads_ids]
    bias = _json(["pool", "bias", *common, "-m", " ".join(pooled), "--trials", "20"])
    oracle.pool = bias["pool"]
    claims = collect(bias["measures"], "pool bias")
    assert any("|qrels=without(" in c.variant for c in claims)  # the reduced scores are checked too
    oracle.check(claims)
    for m in ("AP", "nDCG@5", "RBP", "yaap"):
        growth = _json(["pool", "growth", *common, "-m", m, "--orders", "5"])
        assert growth["pool"] == oracle.pool
        claims = collect(growth, f"pool growth {m}")
        assert any("|qrels=pool(" in c.variant for c in claims) and growth["qrels_final"]
        oracle.check(claims)
    cov = _json(["pool", "coverage", *common])
    oracle.check(collect(cov["runs"], "pool coverage"))


# --------------------------------------------------------------------------------------------
# the trec_eval drop-in's --variants column


@PROPERTY
@given(cases(profiles=["trec_eval-9.0.8", "trec_eval-10.0"], with_settings=False), st.booleans())
def test_trec_eval_variants(case: Case, complete: bool) -> None:
    build = case.profile.removeprefix("trec_eval-")
    for tag in case.runs:
        argv = ["trec-eval", "--as", build, "--variants", "-q", *(["-c"] if complete else []), "-m", "all_trec",
                case.qrels_path, case.run_path(tag)]
        code, out, err = run_cli(*argv)
        if code != 0:
            assert _refused(case) or "No queries" in err, err
            continue
        oracle = case.oracle
        bad = []
        n = 0
        for line in out.splitlines():
            fields = line.split("\t")
            if len(fields) != 4 or "|" not in fields[3]:
                continue
            n += 1
            name, topic, printed, variant = fields[0].strip(), fields[1], fields[2], fields[3]
            want = oracle.values(variant, tag).get(topic)
            if isinstance(want, str) or not _looks_numeric(printed):
                ok = printed.strip("'") == str(want)  # relstring is printed quoted
            else:
                ok = want is not None and abs(float(printed) - float(want)) <= 5e-5 + TOL
            if not ok:
                bad.append(f"trec-eval --as {build}{' -c' if complete else ''} {name} topic {topic}: printed "
                           f"{printed}, evaluate gives {want!r} under {variant}")
        assert n > 0
        assert not bad, "\n".join(bad[:25])


def _looks_numeric(s: str) -> bool:
    try:
        float(s)
    except ValueError:
        return False
    return True


# --------------------------------------------------------------------------------------------
# integrations: the ir_measures provider, PyTerrier frames


def _ir_measures_objects() -> list[Any]:
    """The measures of :data:`MEASURES` that ir_measures spells and the provider computes."""
    out = []
    for m in MEASURES:
        try:
            obj = ir_measures.parse_measure(m)
            to_auditeval(obj)
        except (ValueError, NameError, KeyError):
            continue
        out.append(obj)
    return out


@PROPERTY
@given(cases(profiles=PROFILES))
def test_ir_measures_provider(case: Case) -> None:
    if _refused(case):
        return
    provider = ir_measures.providers.registry["auditeval"].using(case.profile, case.settings)
    measures = _ir_measures_objects()
    assert len(measures) >= 30
    qrels = auditeval.read_qrels(case.qrels_path)
    claims: list[Claim] = []
    for tag in case.runs:
        ev = provider.evaluator(measures, qrels)
        for metric in ev.iter_calc(auditeval.read_run(case.run_path(tag))):
            variant = getattr(metric, "variant", None)
            if variant is not None:
                claims.append(Claim(f"ir_measures {metric.measure}", str(variant), tag, metric.value, metric.query_id))
    case.oracle.check(claims)


@PROPERTY
@given(cases(profiles=PROFILES))
def test_pyterrier_frames(case: Case) -> None:
    import pandas as pd

    if _refused(case):
        return
    frames = {}
    for tag, lines in case.runs.items():
        rows = [ln.split() for ln in lines]
        frames[tag] = pd.DataFrame({"qid": [r[0] for r in rows], "docno": [r[2] for r in rows],
                                    "rank": [int(r[3]) for r in rows], "score": [float(r[4]) for r in rows]})
    res = pyterrier_frames.audit_frames(frames, case.qrels_path, MEASURES, profile=case.profile, settings=case.settings)
    oracle = case.oracle
    oracle.check([Claim("pyterrier audit_frames", str(v.variant), v.run, v.value, v.topic) for v in res.values])
    df = pyterrier_frames.experiment_frame(res)
    claims = [Claim(f"pyterrier experiment_frame {m}", df.attrs["variants"][m], row["name"], row[m])
              for _, row in df.iterrows() for m in df.columns
              if m != "name" and row[m] is not None and not (isinstance(row[m], float) and math.isnan(row[m]))]
    oracle.check(claims)
