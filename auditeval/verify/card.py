"""Provenance cards: everything a reviewer needs to check a results table.

Per number: the value, its variant string, the engine and its version. Once per card:
SHA-256 of the qrels file and of each run file (``sha256sum`` of the bytes as read, gzip
included); auditeval's version and the installed reference tools' (the adapter table);
per run the topics evaluated and the qrels topics it lacks, the run topics without
judgments, the evaluated topics without a relevant document ("empty": R = 0 at the
profile's ``rel``); tie counts (ranked documents in tied blocks, scores stored as the
profile's ``sim`` says) and float32 collapses (neighbouring distinct double scores of a
topic that are equal as C floats, as trec_eval 9 and pytrec_eval store them), both from
the audit's :func:`auditeval.auditing.input_diagnostics.run_facts`; the topics where ties can move
each measure (:func:`auditeval.auditing.tie_note.tie_counts`); the judged share at 10
(``Judged@10``, a number with its variant string).

With a baseline: per run and measure the paired bootstrap of the mean difference over the
topics both evaluate (fewer than either run has: its variant carries ``|subset=paired(K/N:...)``,
:mod:`auditeval.results.subset`) (:func:`auditeval.stats.bootstrap.paired_bootstrap`: 10,000
resamples, seed 0, percentile interval at 95%) and its reversal rate (share of resamples
in which the sign of the mean difference flips).

The card ends with a methods paragraph (:func:`methods_paragraph`). Whether the evaluated
runs contributed to the judgment pool is "unknown" unless ``pooled`` lists the runs that
did (``--pooled RUN`` / ``--pooled-file FILE``).
"""

from __future__ import annotations

import importlib.metadata as md
from dataclasses import asdict, dataclass, field, replace
from typing import Any

import numpy as np

from auditeval._version import __version__
from auditeval.api import evaluate, profile_label
from auditeval.auditing.input_diagnostics import run_facts
from auditeval.auditing.tie_note import tie_counts
from auditeval.engine import ENGINE, StagedRun
from auditeval.io import qrels_from, run_from
from auditeval.io.hashing import sha256_file
from auditeval.results.ir_metadata import evaluation_section
from auditeval.results.parts import RunHeader, labels_of, merged
from auditeval.results.subset import TopicSubset
from auditeval.results.values import ResultSet, variant_text
from auditeval.vocab.conventions import AXES, DEFAULT_PROFILE, resolve
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import parse_measure

JUDGED = "Judged@10"
TRIALS, SEED, LEVEL = 10_000, 0, 0.95


@dataclass
class RunInfo:
    name: str
    path: str
    sha256: str
    topics_evaluated: int
    missing: list[str]  # qrels topics absent from the run
    unjudged_topics: list[str]  # run topics without judgments
    empty: list[str]  # evaluated topics without a relevant document
    docs: int
    tied_docs: int  # ranked documents in a tied block (equal scores as the profile's sim stores them)
    float32_collapsed: int  # neighbouring distinct double scores of a topic equal as C floats
    tie_topics: dict[str, list[int]] = field(default_factory=dict)  # measure -> [topics ties can move, evaluated]


@dataclass
class Number:
    run: str
    measure: str
    value: float
    topics: int
    variant: str
    engine: str


@dataclass
class Comparison:
    run: str
    baseline: str
    measure: str
    difference: float
    low: float
    high: float
    reversal_rate: float
    topics: int
    variant: str
    engine: str


@dataclass
class Card:
    qrels_path: str
    qrels_sha256: str
    judgments: int
    qrels_topics: int
    profile: str
    axes: dict[str, str]
    auditeval: str
    references: dict[str, str]
    runs: list[RunInfo]
    numbers: list[Number]
    comparisons: list[Comparison]
    baseline: str | None
    pooled: str  # "unknown" or a sentence
    notes: list[str]
    methods: str = ""
    ir_metadata: dict[str, Any] = field(default_factory=dict)  # the evaluation section (ir_metadata.py)

    def as_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out.pop("ir_metadata")
        return out


def reference_versions() -> dict[str, str]:
    """Installed reference tools (the adapter table) and the libraries the card's numbers use."""
    from auditeval.adapters import references

    out: dict[str, str] = {}
    for a in references():  # the adapter table and the trec_eval binaries on PATH
        why = a.available()
        out[a.name] = a.engine() if why is None else f"unavailable ({why})"
    for dist in ("numpy", "scipy", "pyarrow"):
        try:
            out[dist] = md.version(dist)
        except md.PackageNotFoundError:  # pragma: no cover - hard dependencies
            out[dist] = "not installed"
    return out


def build_card(qrels_path: str, run_paths: list[str], measures: list[str], profile: str = DEFAULT_PROFILE,
               baseline: str | None = None, pooled: list[str] | None = None,
               settings: list[str] | None = None, backend: Any = None) -> Card:
    """Evaluate and collect everything the card shows (see the module docstring).

    Each run is one task (:func:`card_run`: its values and facts under its tag; labelled once
    every tag is known, :mod:`auditeval.results.parts`), here or on ``backend`` (an
    :mod:`auditeval.execution` backend: ``share``/``map`` in run order); the card does not depend on it.

    The convention is ``profile`` with ``settings`` (``--set AXIS=VALUE``) applied, exactly as
    ``eval`` applies them (:func:`auditeval.vocab.conventions.resolve` and
    :func:`auditeval.api.evaluate`); the card names it as eval does (``profile_label``)."""
    qrels = qrels_from(qrels_path)
    conv = resolve(profile, settings)
    paths = list(run_paths) + ([baseline] if baseline and baseline not in run_paths else [])
    labels = list(dict.fromkeys(measures))
    shared = CardShared(qrels, tuple(labels), profile, tuple(settings or ()))
    if backend is None:
        parts = [card_run(shared, p) for p in paths]
    else:
        parts = list(backend.map(card_run, backend.share(shared), paths, paths))
    names, label_notes = labels_of([h for h, _, _ in parts])  # colliding tags: the one rule (io.labels), noted
    res = merged([r for _, r, _ in parts], names, qrels.notes)
    infos = [replace(info, name=n) for (_, _, info), n in zip(parts, names, strict=True)]
    numbers = [Number(v.run, v.measure, float(v.value), _n_topics(res, v.run, v.measure), variant_text(v.variant), v.engine)
               for v in res.aggregates()]
    comparisons = []
    base_name = None
    if baseline:
        base_name = names[paths.index(baseline)]
        comparisons = _comparisons(res, [n for n in names if n != base_name], base_name, labels)
    card = Card(
        qrels_path=str(qrels_path), qrels_sha256=sha256_file(qrels_path), judgments=len(qrels),
        qrels_topics=len(qrels.topics), profile=profile_label(profile, settings),
        axes={k: AXES[k].format(v) for k, v in conv.as_dict().items()},
        auditeval=f"auditeval {__version__}", references=reference_versions(), runs=infos, numbers=numbers,
        comparisons=comparisons, baseline=base_name, pooled=_pooled(names, pooled),
        notes=label_notes + list(res.notes),
    )
    card.methods = methods_paragraph(card)
    card.ir_metadata = evaluation_section(res, qrels)
    return card


@dataclass(frozen=True)
class CardShared:
    """What every run's card task reads: the qrels, the measures, the profile and settings."""

    qrels: Qrels
    measures: tuple[str, ...]
    profile: str
    settings: tuple[str, ...]


def card_run(shared: CardShared, path: str) -> tuple[RunHeader, ResultSet, RunInfo]:
    """One run of the card: its values (:func:`auditeval.api.evaluate`, with Judged@10) and its
    facts, both under the run's tag."""
    s = shared
    run = run_from(path)
    labels = list(s.measures)
    settings = list(s.settings) or None
    res = evaluate(s.qrels, [run], labels + ([JUDGED] if JUDGED not in labels else []), profile=s.profile,
                   settings=settings)
    return RunHeader(run.name, run.source), res, _run_info(s.qrels, run, path, labels, resolve(s.profile, settings))


def _n_topics(res, run: str, measure: str) -> int:
    return sum(1 for v in res.values if v.run == run and v.measure == measure and v.topic != "all")


def _run_info(qrels: Qrels, run: Run, path: str, labels: list[str], conv) -> RunInfo:
    q_topics, r_topics = set(qrels.topics), set(run.topics)
    g = qrels.table.column("grade").to_numpy()
    qt = np.asarray(qrels.table.column("topic").to_pylist(), dtype=object)
    with_rel = set(qt[g >= conv.rel])
    evaluated = sorted(q_topics & r_topics if conv.topics in ("both",) else q_topics if conv.topics != "run" else r_topics)
    facts = run_facts(qrels, run, StagedRun(qrels, run).prepared(conv), conv)
    ties = {label: [n, of] for label, n, of in tie_counts(qrels, run, [(x, parse_measure(x)) for x in labels], conv)}
    key = lambda s: s.encode("utf-8")  # noqa: E731 - byte order, as trec_eval
    return RunInfo(
        name=run.name, path=str(path), sha256=sha256_file(path), topics_evaluated=len(evaluated),
        missing=sorted(q_topics - r_topics, key=key), unjudged_topics=sorted(r_topics - q_topics, key=key),
        empty=sorted((t for t in evaluated if t not in with_rel), key=key), docs=len(run),
        tied_docs=facts["tied_rows"], float32_collapsed=facts["float32_collapses"], tie_topics=ties,
    )


def _comparisons(res, names: list[str], base: str, labels: list[str]) -> list[Comparison]:
    from auditeval.stats.bootstrap import paired_bootstrap

    per: dict[tuple[str, str], dict[str, float]] = {}
    variant: dict[tuple[str, str], str] = {}
    for v in res.per_topic():
        per.setdefault((v.run, v.measure), {})[v.topic] = float(v.value)
        variant[(v.run, v.measure)] = variant_text(v.variant)
    out = []
    for name in names:
        for m in labels:
            a, b = per.get((name, m), {}), per.get((base, m), {})
            common = sorted(set(a) & set(b))
            if len(common) < 2:
                continue
            x = np.array([a[t] for t in common])
            y = np.array([b[t] for t in common])
            iv = paired_bootstrap(x, y, trials=TRIALS, seed=SEED, level=LEVEL)
            out.append(Comparison(name, base, m, float(iv.observed[0]), float(iv.percentile[0, 0]),
                                  float(iv.percentile[0, 1]), float(iv.reversal_rate[0]), len(common),
                                  _paired_variant(variant[(name, m)], common, set(a) | set(b)),
                                  f"{ENGINE} + auditeval.stats paired_bootstrap"))
    return out


def _paired_variant(base: str, common: list[str], either: set[str]) -> str:
    """The comparison's variant: ``base`` when the paired topics are all either run has, else
    with the subset marker (:mod:`auditeval.results.subset`): not the difference of eval's means."""
    key = lambda s: s.encode("utf-8")  # noqa: E731 - byte order, as trec_eval
    return TopicSubset(tuple(common), tuple(sorted(either, key=key)), "paired").variant(base)


def _pooled(runs: list[str], pooled: list[str] | None) -> str:
    if pooled is None:
        return "unknown"
    yes = [r for r in runs if r in pooled]
    no = [r for r in runs if r not in pooled]
    parts = []
    if yes:
        parts.append(f"contributed to the judgment pool: {', '.join(yes)}")
    if no:
        parts.append(f"did not contribute to the pool: {', '.join(no)}")
    return "; ".join(parts)


def methods_paragraph(card: Card) -> str:
    """A paragraph a reviewer can paste (plain text; renderers escape it)."""
    n_runs = len(card.runs)
    topics = sorted({r.topics_evaluated for r in card.runs})
    first = card.numbers[0] if card.numbers else None
    parts = [
        f"We evaluate {n_runs} run{'s' if n_runs != 1 else ''} against {card.judgments} judgments on "
        f"{card.qrels_topics} topics (qrels SHA-256 {card.qrels_sha256[:16]}...) with {card.auditeval} under the "
        f"{card.profile} profile (ties={card.axes['ties']}, sim={card.axes['sim']}, topics={card.axes['topics']}, "
        f"unjudged={card.axes['unjudged']}, rel={card.axes['rel']}); every value is a mean over "
        + (f"{topics[0]}" if len(topics) == 1 else f"{topics[0]}-{topics[-1]}")
        + " topics and is reported with its variant string."
    ]
    if first is not None:
        parts.append(f"For example, {first.run} scores {first.measure} = {first.value:.4f} "
                     f"(mean over {first.topics} topics; variant {first.variant}).")
    if card.comparisons:
        c = card.comparisons[0]
        parts.append(
            f"Against the baseline {c.baseline}, a paired bootstrap over topics ({TRIALS:,} resamples, seed {SEED}) "
            f"gives a difference in {c.measure} of {c.difference:+.4f} for {c.run} with a {LEVEL:.0%} percentile "
            f"interval [{c.low:.4f}, {c.high:.4f}]; the sign of the difference reverses in "
            f"{c.reversal_rate:.1%} of resamples (ties counted half; "
            + ("same variant" if first is not None and c.variant == first.variant else f"variant {c.variant}")
            + (f"; {len(card.comparisons)} comparisons in the table" if len(card.comparisons) > 1 else "") + ")."
        )
    parts.append("Whether the evaluated runs contributed to the judgment pool: "
                 + (card.pooled if card.pooled != "unknown" else "unknown") + ".")
    return " ".join(parts)
