"""The public API: inputs in any supported form (paths, DataFrames, dicts, ``Qrels``/``Run``),
results with variant strings. The engine (:mod:`auditeval.engine`) reads no files; this
module reads them and hands it :class:`~auditeval.vocab.model.Qrels` and :class:`~auditeval.vocab.model.Run`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any

import numpy as np

from auditeval.engine import ENGINE, SweepResult, run_sweep, staged_for, undefined_note, vary_values
from auditeval.io import c_atof, qrels_from, run_from
from auditeval.io.prefs_files import Prefs, QrelsJg
from auditeval.io.run_labels import labelled
from auditeval.results.values import ResultSet, Value
from auditeval.vocab.conventions import DEFAULT_PROFILE, Convention, ProfileLike, resolve_profile
from auditeval.vocab.errors import UnknownMeasureError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import SPECS
from auditeval.vocab.variant import fold, parse_measures


def read_runs(runs: Any) -> list[tuple[Run, str | None]]:
    """Runs in any supported form, labelled by the one rule for colliding tags
    (:func:`auditeval.io.run_labels.run_labels`), each with the note on its label (or None)."""
    run_list = list(runs) if isinstance(runs, list | tuple) else [runs]
    return labelled([run_from(r_in) for r_in in run_list])


def profile_label(profile: ProfileLike, settings: list[str] | None = None) -> str:
    """The name results carry for ``profile`` with ``settings`` (``"trec_eval-9.0.8 with rel=2"``;
    ``"custom"`` for a :class:`Convention`): :attr:`~auditeval.vocab.conventions.ResolvedProfile.label`."""
    return resolve_profile(profile, settings).label


def evaluate(
    qrels: Any,
    runs: Any,
    measures: Iterable[str | Measure],
    profile: ProfileLike = DEFAULT_PROFILE,
    settings: list[str] | None = None,
    per_topic: bool = True,
    cache: dict | None = None,
    judgments: str = "qrels",
) -> ResultSet:
    """Evaluate one run or several under a profile (name, TOML path, Convention or a
    :class:`~auditeval.vocab.conventions.ResolvedProfile`, resolved once here).

    ``judgments``: the format of ``qrels`` -- ``"qrels"``, or trec_eval's preference formats
    ``"prefs"`` (``qid jg jsg docno level``), ``"qrels_prefs"`` (a qrels file read as preferences)
    and ``"qrels_jg"`` (``qid jg docno grade``), for the measures of those formats (``prefs_simp``,
    ``prefs_avgjg``, ... ``map_avgjg``, ``P_avgjg.5,10``: :data:`auditeval.vocab.spec_table.PREFS_SPECS`);
    see :func:`_evaluate_judgments`. A :class:`~auditeval.io.prefs_files.Prefs` or
    :class:`~auditeval.io.prefs_files.QrelsJg` object as ``qrels`` selects its format.

    ``cache``: a dict kept by the caller to share the staged join and ranking with later
    calls on the same qrels and (single) run (``engine.staged_run.staged_for``).

    ``qrels``/``runs`` accept paths, :class:`Qrels`/:class:`Run`, DataFrames and
    dict-of-dicts (see :mod:`auditeval.io`; a run topic mapped to ``{}`` is an empty ranking).
    ``measures``: names as ``-m`` takes them, read by :func:`auditeval.vocab.variant.parse_measures`
    (``"nDCG@10"``, ``"ndcg_cut.1,4"``, a bare trec_eval family ``"P"`` = P@5 ... P@1000 as the
    trec_eval drop-in reads it), or :class:`Measure` objects. ``settings`` are ``AXIS=VALUE`` overrides.
    Returns every per-topic value (when ``per_topic``) and the aggregate (topic ``"all"``),
    each with its variant string and engine. Each measure is computed under
    ``resolve_profile(profile, settings).convention_for(measure)``: a profile with a ``[route]`` table (ir_measures-0.4)
    gives a measure the axes of the profile it routes it to; ``result.convention`` is the
    profile's own axes (those of the measures it does not route).
    """
    if judgments != "qrels" or isinstance(qrels, Prefs | QrelsJg):
        return _evaluate_judgments(qrels, runs, measures, profile, settings, per_topic, judgments)
    q = qrels_from(qrels)
    rp = resolve_profile(profile, settings)  # once: name, axes and routes travel together
    labels, parsed = _measures(measures)
    convs = [rp.convention_for(m) for m in parsed]  # per measure: the profile's [route]
    result = ResultSet(profile=rp.label, convention=rp.convention)
    result.notes.extend(q.notes)
    seen_notes = set(result.notes)
    for r, tag_note in read_runs(runs):
        if tag_note:
            result.notes.append(tag_note)
        sr = staged_for(q, r, cache)
        for label, m, mconv in zip(labels, parsed, convs, strict=True):
            tv = sr.evaluate(m, mconv)
            p, vals, agg = sr.prepared(fold(m, mconv)[1], m), tv.values, tv.aggregate
            d = SPECS[tv.variant.measure.name]
            v_str = str(tv.variant)
            undefined = np.isnan(vals) if d.agg == "mean-defined" else np.zeros(len(vals), bool)
            if per_topic:
                for t, x, skip in zip(p.topics, vals, undefined, strict=True):
                    if not skip:
                        result.values.append(Value(r.name, label, v_str, ENGINE, str(t), _typed(x, d.fmt)))
            if undefined.any():
                result.notes.append(undefined_note(r.source, label, p.topics[undefined].tolist(), d.undefined, p.n_topics))
            if agg is None and d.agg == "mean-defined":
                result.notes.append(f"{r.source}: {label} is defined for no topic: no mean reported")
            elif agg is not None and p.n_topics == 0 and d.agg in ("mean", "gmean", "mean-defined"):
                # a mean over no topic is no number (trec_eval exits 7 here): say so, print none
                result.notes.append(f"{r.source}: no topic evaluated (topics={p.convention.topics}): no mean of "
                                    f"{label} reported (trec_eval: 'No queries with both results and relevance info')")
            elif agg is not None:
                result.values.append(Value(r.name, label, v_str, ENGINE, "all", _typed(agg, d.fmt)))
            for n in p.notes:
                if n not in seen_notes:
                    seen_notes.add(n)
                    result.notes.append(n)
    return result


def _evaluate_judgments(judg: Any, runs: Any, measures: Iterable[str | Measure] | str,
                        profile: ProfileLike, settings: list[str] | None, per_topic: bool,
                        fmt: str) -> ResultSet:
    """Preference / judgment-group measures (trec_eval ``-R prefs|qrels_prefs|qrels_jg``).

    ``judg``: a path read in format ``fmt`` (:mod:`auditeval.io.prefs_files`; ``#`` comment lines
    skipped as trec_eval 10.0 skips them) or a ``Prefs`` / ``QrelsJg``. ``measures``: trec_eval
    names, ``NAME.k1,k2`` for cut-offs (``P_avgjg`` alone: 5, 10, ... 1000; ``Rprec_mult_avgjg``:
    0.2 ... 2.0). Values come from :func:`auditeval.engine.evaluate_judgments`; each carries a
    variant string listing the axes the measure reads, its fixed tie rule included
    (``prefs_simp|ties=docno-asc|sim=float32|topics=both|depth=all``)."""
    from auditeval.engine import evaluate_judgments, judgment_variant
    from auditeval.io.prefs_files import read_prefs, read_qrels_jg
    from auditeval.vocab.names import TREC_FAMILY_DEFAULTS
    from auditeval.vocab.spec_table import PREFS_SPECS

    if isinstance(judg, Prefs | QrelsJg):
        j = judg
    elif fmt == "qrels_jg":
        j = read_qrels_jg(str(judg))
    elif fmt in ("prefs", "qrels_prefs"):
        j = read_prefs(str(judg), fmt)
    else:
        raise ValueError(f"judgments must be qrels, prefs, qrels_prefs or qrels_jg, got {fmt!r}")
    rp = resolve_profile(profile, settings)
    conv = rp.convention
    result = ResultSet(profile=rp.label, convention=conv)
    labels: list[str] = []
    parsed: list[Measure] = []
    for item in [measures] if isinstance(measures, str) else list(measures):
        name, _, arg = str(item).partition(".")
        spec = PREFS_SPECS.get(name)
        if spec is None:
            raise UnknownMeasureError(f"{name!r} is no preference or judgment-group measure "
                                      f"(known: {', '.join(PREFS_SPECS)})")
        if spec.cutoff == "none":
            labels.append(name)
            parsed.append(Measure(name))
            continue
        family = "P" if name == "P_avgjg" else "Rprec_mult"
        cuts = sorted(spec.cutoff_type(c_atof(x)) for x in arg.split(",")) if arg else TREC_FAMILY_DEFAULTS[family]
        for k in cuts:
            labels.append(f"{name}_{k}" if spec.cutoff_type is int else f"{name}_{k:3.2f}")
            parsed.append(Measure(name, (), k))
    result.notes.append("preference measures: ties by docno ascending (form_prefs_counts.c comp_sim_docno); "
                        "judgment-group measures: docno descending (form_res_rels_jg.c)")
    for r, tag_note in read_runs(runs):
        if tag_note:
            result.notes.append(tag_note)
        got = evaluate_judgments(j, r, parsed, conv)
        run_topics = set(r.table.column("topic").to_pylist())
        lacking = [t for t in j.topics if t not in run_topics]
        unjudged = sorted(run_topics - set(j.topics))
        if lacking:
            how = "not evaluated" if conv.topics == "both" else f"scored as absent={conv.absent} says"
            result.notes.append(f"{r.source}: {len(lacking)} judged topic(s) without results ({', '.join(lacking[:5])}"
                                f"{', ...' if len(lacking) > 5 else ''}): {how} (topics={conv.topics})")
        if unjudged:
            result.notes.append(f"{r.source}: {len(unjudged)} run topic(s) without judgments left out "
                                f"({', '.join(unjudged[:5])}{', ...' if len(unjudged) > 5 else ''})")
        for label, m, jv in zip(labels, parsed, got, strict=True):
            spec = PREFS_SPECS[m.name]
            variant = judgment_variant(m, conv)
            if per_topic:
                for t, x in zip(jv.topics, jv.values, strict=True):
                    result.values.append(Value(r.name, label, variant, ENGINE, t, _typed(x, spec.fmt)))
            if jv.topics:
                result.values.append(Value(r.name, label, variant, ENGINE, "all", _typed(jv.aggregate, spec.fmt)))
            else:
                result.notes.append(f"{r.source}: no topic evaluated: no value of {label} reported")
    return result


def _measures(measures: Iterable[str | Measure] | str) -> tuple[list[str], list[Measure]]:
    """Labels and parsed measures, read as every ``-m`` reads them
    (:func:`auditeval.vocab.variant.parse_measures`: ``"ndcg_cut.1,4"``, ``"P"``, ``"AP nDCG@10"``)."""
    pairs = parse_measures(measures)
    return [label for label, _ in pairs], [m for _, m in pairs]


def _typed(x, fmt: str) -> float | int | str:
    if fmt == "str":
        return str(x)
    return int(round(x)) if fmt == "int" else float(x)


def sweep(
    qrels: Any,
    runs: Any,
    measures: Iterable[str | Measure],
    profile: ProfileLike = DEFAULT_PROFILE,
    vary: dict[str, Any] | str | None = None,
    settings: list[str] | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> SweepResult:
    """Evaluate runs under every variant of a profile that ``vary`` spans.

    ``vary``: axis -> ``"all"`` (its grid, see :mod:`auditeval.engine.sweep`) or a list of
    values, e.g. ``{"ties": "all", "rel": [1, 2]}``; ``"all"`` varies every axis. Only axes a
    measure reads multiply its variants; equal variant strings are computed once. Returns a
    :class:`~auditeval.engine.sweep.SweepResult`: per measure a (variant x run x topic) array
    with the variant strings and aggregates, and ``.to_frame()``.
    """
    q = qrels_from(qrels)
    read = read_runs(runs)
    s = sweep_setup(q, measures, profile, vary, settings)
    res = run_sweep(q, [r for r, _ in read], s.parsed, s.labels, s.base, s.values, s.name, progress, bases=s.bases)
    res.notes[:0] = [n for _, n in read if n]
    return res


@dataclass(frozen=True)
class SweepSetup:
    """A sweep's reading of its options: the profile's name and convention, the measures'
    labels, parsed forms and routed bases, the values of each varied axis."""

    name: str
    base: Convention
    labels: list[str]
    parsed: list[Measure]
    bases: list[Convention]
    values: dict[str, list[Any]]


def sweep_setup(qrels: Qrels, measures: Iterable[str | Measure], profile: ProfileLike = DEFAULT_PROFILE,
                vary: dict[str, Any] | str | None = None, settings: list[str] | None = None) -> SweepSetup:
    """What :func:`sweep` varies, read once (``auditeval.execution`` reads it the same way)."""
    labels, parsed = _measures(measures)
    rp = resolve_profile(profile, settings)
    return SweepSetup(rp.label, rp.convention, labels, parsed,
                      [rp.convention_for(m) for m in parsed],  # per measure: the profile's [route]
                      vary_values(vary, qrels))
