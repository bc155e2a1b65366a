"""evaluate(): qrels x runs x measures under one convention -> a ResultSet."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from .. import __version__
from ..conventions import Convention, load_profile, resolve
from ..io import qrels_from, run_from
from ..measures import Measure
from ..model import Qrels, Run
from ..results import ResultSet, Value
from ..variant import Variant, fold, parse_measure
from .aggregate import aggregate
from .measures import MEASURES
from .prepare import Prepared, prepare

ENGINE = f"auditeval {__version__} (native)"

# Axes that change the prepared lists (one prepare per distinct combination).
PREPARE_AXES = ("ties", "sim", "topics", "unjudged", "negatives", "depth", "dups", "self_hits")


def _prepare_key(c: Convention) -> tuple:
    return tuple(getattr(c, a) for a in PREPARE_AXES)


def evaluate_prepared(
    qrels: Qrels, run: Run, measures: Sequence[Measure], conv: Convention, cache: dict | None = None
) -> list[tuple[Measure, Variant, Prepared, np.ndarray, float]]:
    """Per measure: (measure, variant, prepared lists, per-topic values, aggregate or None)."""
    cache = {} if cache is None else cache
    out = []
    for m in measures:
        m2, c2 = fold(m, conv)
        key = _prepare_key(c2)
        if key not in cache:
            cache[key] = prepare(qrels, run, c2)
        p = cache[key]
        d = MEASURES[m2.name]
        per_topic = d.fn(p, m2, c2)
        agg = aggregate(per_topic, d.agg, c2.gm_floor)
        out.append((m, Variant.of(m, conv), p, per_topic, agg))
    return out


def evaluate(
    qrels: Any,
    runs: Any,
    measures: Iterable[str | Measure],
    profile: str | Path | Convention = "trec_eval-9.0.8",
    settings: list[str] | None = None,
    per_topic: bool = True,
) -> ResultSet:
    """Evaluate one run or several under a profile (name, TOML path or Convention).

    ``qrels``/``runs`` accept paths, :class:`Qrels`/:class:`Run`, DataFrames and
    dict-of-dicts (see :mod:`auditeval.io`). ``settings`` are ``AXIS=VALUE`` overrides.
    Returns every per-topic value (when ``per_topic``) and the aggregate (topic ``"all"``),
    each with its variant string and engine.
    """
    q = qrels_from(qrels)
    run_list = list(runs) if isinstance(runs, list | tuple) else [runs]
    conv = resolve(profile, settings)
    profile_name = "custom" if isinstance(profile, Convention) else load_profile(profile).name
    if settings:
        profile_name += " with " + ", ".join(settings)
    parsed = [m if isinstance(m, Measure) else parse_measure(m) for m in measures]
    labels = [str(m) if isinstance(m, Measure) else str(m) for m in measures]
    result = ResultSet(profile=profile_name, convention=conv)
    result.notes.extend(q.notes)
    seen_notes = set(result.notes)
    names: dict[str, int] = {}
    for r_in in run_list:
        r = run_from(r_in)
        if r.name in names:  # two runs with one tag: keep them apart, and say so
            names[r.name] += 1
            new_name = f"{r.name}#{names[r.name]}"
            result.notes.append(f"{r.source}: run tag {r.name!r} already used by an earlier run; reported as {new_name!r}")
            r = Run(r.table, name=new_name, source=r.source, notes=r.notes, skipped=r.skipped)
        else:
            names[r.name] = 1
        rows = evaluate_prepared(q, r, parsed, conv)
        for label, (_m, variant, p, vals, agg) in zip(labels, rows, strict=True):
            d = MEASURES[variant.measure.name]
            v_str = str(variant)
            if per_topic:
                for t, x in zip(p.topics, vals, strict=True):
                    result.values.append(Value(r.name, label, v_str, ENGINE, str(t), _typed(x, d.fmt)))
            if agg is not None:
                result.values.append(Value(r.name, label, v_str, ENGINE, "all", _typed(agg, d.fmt)))
            for n in p.notes:
                if n not in seen_notes:
                    seen_notes.add(n)
                    result.notes.append(n)
    return result


def _typed(x, fmt: str) -> float | int | str:
    if fmt == "str":
        return str(x)
    return int(round(x)) if fmt == "int" else float(x)
