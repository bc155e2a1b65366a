"""PyTerrier result frames in, auditeval results out.

PyTerrier transformers return result frames with columns ``qid``, ``docno``, ``score``
(and ``docid``, ``rank``, ``query``, ...); its qrels frames have ``qid``, ``docno``,
``label``. auditeval's readers take these columns as they are.

* :func:`audit_frames` evaluates result frames you already have (``{name: frame}``);
* :func:`audit_experiment` takes ``pt.Experiment``'s first arguments (systems, topics,
  qrels, eval_metrics, names), runs each system on the topics once and evaluates the frames;
* :func:`experiment_frame` shapes a result set like ``pt.Experiment``'s table (one row per
  system, one column per measure) with the variant string of every column alongside.

The default profile is ``ir_measures-0.4``: ``pt.Experiment`` computes its measures with
ir_measures (pytrec_eval for the trec measures), so the numbers agree with its table, and
each carries its variant string.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import replace
from typing import Any

from auditeval.io import qrels_from, run_from
from auditeval.results.values import ResultSet, variant_text

DEFAULT_PROFILE = "ir_measures-0.4"


def _measure_groups(measures: Iterable[Any]) -> list[tuple[list[str], list[tuple[str, Any]]]]:
    """Group the measures by the axis settings they imply: [(settings, [(label, measure)])].

    Strings are auditeval / trec_eval spellings (``"map"``, ``"nDCG@10"``); ir_measures
    measure objects are translated (``nDCG(dcg='exp-log2')`` -> nDCG under ``gain=exp2``)."""
    from auditeval.vocab.variant import parse_measure

    groups: dict[tuple[str, ...], list[tuple[str, Any]]] = {}
    for m in measures:
        if isinstance(m, str):
            groups.setdefault((), []).append((m, parse_measure(m)))
        else:
            from auditeval.integrations.ir_measures_provider import to_auditeval

            am, extra = to_auditeval(m)
            groups.setdefault(tuple(extra), []).append((str(m), am))
    return [(list(k), v) for k, v in groups.items()]


def audit_frames(
    frames: Mapping[str, Any],
    qrels: Any,
    measures: Iterable[Any],
    profile: str = DEFAULT_PROFILE,
    settings: Sequence[str] = (),
) -> ResultSet:
    """Evaluate result frames (``{system name: frame}``) against a qrels frame (or any qrels
    auditeval reads). Values are labelled with the system names and the measure as given."""
    from auditeval.api import evaluate

    q = qrels_from(qrels)
    runs = [run_from(frame, name=str(name)) for name, frame in frames.items()]
    out: ResultSet | None = None
    for extra, items in _measure_groups(measures):
        res = evaluate(q, runs, [m for _, m in items], profile=profile, settings=[*settings, *extra])
        labels = {str(m): label for label, m in items}
        values = [replace(v, measure=labels.get(v.measure, v.measure)) for v in res.values]
        if out is None:
            out = ResultSet(values=values, notes=list(res.notes), profile=res.profile, convention=res.convention)
        else:
            out.values.extend(values)
            out.notes.extend(n for n in res.notes if n not in out.notes)
    return out if out is not None else ResultSet(profile=profile)


def audit_experiment(
    retr_systems: Sequence[Any],
    topics: Any,
    qrels: Any,
    eval_metrics: Iterable[Any],
    names: Sequence[str] | None = None,
    profile: str = DEFAULT_PROFILE,
    settings: Sequence[str] = (),
) -> ResultSet:
    """``pt.Experiment(retr_systems, topics, qrels, eval_metrics, names=...)``, audited:
    each system's result frame (``system.transform(topics)``) evaluated by auditeval."""
    names = list(names) if names is not None else [str(s) for s in retr_systems]
    if len(names) != len(retr_systems):
        raise ValueError(f"{len(retr_systems)} systems but {len(names)} names")
    frames = {name: system.transform(topics) for name, system in zip(names, retr_systems, strict=True)}
    return audit_frames(frames, qrels, eval_metrics, profile=profile, settings=settings)


def experiment_frame(res: ResultSet):
    """``pt.Experiment``-shaped table: ``name`` and one column per measure (aggregates), and
    ``res.attrs["variants"]`` mapping each measure column to its variant string."""
    import pandas as pd

    aggs = res.aggregates()
    measures = list(dict.fromkeys(v.measure for v in aggs))
    names = list(dict.fromkeys(v.run for v in aggs))
    cell = {(v.run, v.measure): v.value for v in aggs}
    df = pd.DataFrame([{"name": n, **{m: cell.get((n, m)) for m in measures}} for n in names], columns=["name", *measures])
    df.attrs["variants"] = {v.measure: variant_text(v.variant) for v in aggs}
    df.attrs["profile"] = res.profile
    return df
