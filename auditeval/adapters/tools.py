"""What runs inside a reference's child process: ``python .../adapters/tools.py SPEC OUT``.

This file imports nothing from auditeval (only the standard library and the tool), so a
child starts as fast as the tool alone: it reads the JSON spec written by
:mod:`auditeval.adapters.runner`, runs the tool and writes the values as JSON. A crash
exits non-zero with the traceback on stderr; the parent reports its tail.

* pytrec_eval: per-topic ``gm_*`` values come back as logs, ``log(max(x, 1e-5))``; they are
  returned as ``max(x, 1e-5)`` so they compare with auditeval's floored per-topic values.
  Aggregates are pytrec_eval's own ``compute_aggregated_measure``.
* ir_measures: one provider pinned (``providers.registry[NAME].evaluator``). The pyndeval
  provider gets one measure per evaluator: with measures of different (rel, alpha, beta) it
  builds one pyndeval evaluator per group and hands them all the same run iterator
  (pyndeval_provider.py ``PyNdEvalEvaluator._iter_calc``), so every group after the first sees
  it exhausted and ir_measures fills 0 for each of its topics (ir_measures 0.4.3: ``NRBP(alpha=0.3)``
  with ``alpha_nDCG@20`` gives alpha_nDCG@20 = 0.0); measured one at a time they are pyndeval's.
* ranx: ``make_comparable=True``; per-topic values from ``run.scores``.
* beir: ``EvaluateRetrieval.evaluate`` on dicts of dicts (a repeated pair keeps its last line);
  its rounded means come back as text with 5 decimals, as BEIR's ``round(x, 5)`` gives them.
* pyndeval: the qrels as ``topic subtopic doc grade``, the run as (topic, doc, score) grouped by
  topic, one ``RelevanceEvaluator`` per (relevance_level, alpha, beta); the aggregate is the
  mean over the topics it yields (pyndeval has none of its own).
"""

from __future__ import annotations

import json
import math
import sys
from typing import Any

# trec_eval measures whose per-topic value is kept as log(max(x, floor))
GEOMETRIC = frozenset({"gm_map", "gm_bpref"})


def pytrec_eval_values(spec: dict[str, Any]) -> dict[str, Any]:
    """Child-process side: parse both files with pytrec_eval and evaluate each request group."""
    import pytrec_eval

    with open(spec["qrels"], encoding="utf-8") as fh:
        qrel = pytrec_eval.parse_qrel(fh)
    out: dict[str, Any] = {}
    for job in spec["jobs"]:
        with open(job["run"], encoding="utf-8") as fh:
            run = pytrec_eval.parse_run(fh)
        for t in job.get("empty", ()):  # an in-memory run's topic with no result: an empty ranking
            run.setdefault(t, {})
        groups: dict[tuple, list] = {}
        for req in job["requests"]:
            groups.setdefault(tuple(req["options"]), []).append(req)
        for opts, reqs in groups.items():
            kw = dict(o.split("=", 1) for o in opts)
            level = int(kw.get("relevance_level", 1))
            names = {r["tool"].split()[0] for r in reqs}
            try:
                res = pytrec_eval.RelevanceEvaluator(qrel, names, relevance_level=level).evaluate(run)
            except Exception as exc:  # noqa: BLE001 - reported for these values, the other groups go on
                for r in reqs:
                    out[r["key"]] = {"error": f"{type(exc).__name__}: {exc} (pytrec_eval)"}
                continue
            for r in reqs:
                printed = r["tool"].split()[1]
                if any(printed not in v for v in res.values()):
                    out[r["key"]] = {"error": f"pytrec_eval printed no {printed!r}"}
                    continue
                vals = {t: float(v[printed]) for t, v in res.items()}
                agg = pytrec_eval.compute_aggregated_measure(printed, list(vals.values())) if vals else None
                if printed in GEOMETRIC:
                    vals = {t: math.exp(v) for t, v in vals.items()}
                out[r["key"]] = {"topics": vals, "aggregate": agg}
    return out


def ir_measures_values(spec: dict[str, Any]) -> dict[str, Any]:
    """Child-process side: one pinned provider, every run of the job list."""
    import ir_measures

    if spec["provider"] == "ranx":
        _pandas_object_strings()
    prov = ir_measures.providers.registry[spec["provider"]]
    qrels = list(ir_measures.read_trec_qrels(spec["qrels"]))
    out: dict[str, Any] = {}
    for job in spec["jobs"]:
        run = list(ir_measures.read_trec_run(job["run"]))
        reqs = job["requests"]
        parsed = {r["key"]: ir_measures.parse_measure(r["tool"]) for r in reqs}
        try:
            if spec["provider"] == "pyndeval":  # one evaluator per measure: see ONE_PASS_PROVIDERS
                results = {}
                for meas in set(parsed.values()):
                    results.update(_provider_values(prov, [meas], qrels, run))
            else:
                results = _provider_values(prov, list(set(parsed.values())), qrels, run)
        except Exception:  # noqa: BLE001 - one measure's crash must not hide the others: one by one
            results = {}
            for meas in set(parsed.values()):
                try:
                    results.update(_provider_values(prov, [meas], qrels, run))
                except Exception as exc:  # noqa: BLE001 - reported per measure, as the tool said it
                    results[meas] = {"error": f"{type(exc).__name__}: {exc} (Python exception in the provider)"}
        for key, meas in parsed.items():
            out[key] = results[meas]
    return out


def _provider_values(prov: Any, measures: list, qrels: list, run: list) -> dict[Any, dict[str, Any]]:
    """Per-topic values and aggregates of ``measures`` from one provider's evaluator."""
    ev = prov.evaluator(measures, qrels)
    per: dict[Any, dict[str, float]] = {}
    for metric in ev.iter_calc(run):
        per.setdefault(metric.measure, {})[metric.query_id] = float(metric.value)
    agg = ev.calc_aggregate(run)
    return {m: {"topics": per.get(m, {}), "aggregate": float(agg[m]) if m in agg else None} for m in measures}


def _pandas_object_strings() -> None:
    """pandas 3 infers its ``str`` dtype for text columns; ir_measures' ranx provider asserts
    object dtype (ranx issue #79) and fails on every input. Under pandas 3 the old inference is
    still an option (deprecated, removed in pandas 4): this child process sets it."""
    import warnings

    import pandas as pd

    if int(pd.__version__.split(".")[0]) >= 3:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            pd.set_option("future.infer_string", False)


def ranx_values(spec: dict[str, Any]) -> dict[str, Any]:
    import warnings

    warnings.filterwarnings("ignore")
    import ranx

    qrels = ranx.Qrels.from_file(spec["qrels"], kind="trec")
    out: dict[str, Any] = {}
    for job in spec["jobs"]:
        run = ranx.Run.from_file(job["run"], kind="trec")
        names = sorted({r["tool"] for r in job["requests"]})
        means = ranx.evaluate(qrels, run, names, make_comparable=True)
        if len(names) == 1:
            means = {names[0]: means}
        for r in job["requests"]:
            per = {t: float(v) for t, v in run.scores[r["tool"]].items()}
            out[r["key"]] = {"topics": per, "aggregate": float(means[r["tool"]])}
    return out


def _dicts(path: str, column: int, cast: Any) -> dict[str, dict[str, Any]]:
    """A TREC file as BEIR's dict of dicts: ``{topic: {doc: cast(column)}}``, the last line of a
    repeated pair kept (beir/retrieval/evaluation.py:70-71 takes dicts; a dict keeps the last)."""
    out: dict[str, dict[str, Any]] = {}
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            parts = line.split()
            if len(parts) > column:
                out.setdefault(parts[0], {})[parts[2]] = cast(parts[column])
    return out


def beir_values(spec: dict[str, Any]) -> dict[str, Any]:
    """Child-process side: one ``EvaluateRetrieval.evaluate`` call per run and option set,
    with every requested cut-off."""
    from beir.retrieval.evaluation import EvaluateRetrieval

    qrels = _dicts(spec["qrels"], 3, int)
    out: dict[str, Any] = {}
    for job in spec["jobs"]:
        groups: dict[tuple, list] = {}
        for req in job["requests"]:
            groups.setdefault(tuple(req["options"]), []).append(req)
        for opts, reqs in groups.items():
            keep = "ignore_identical_ids=False" in opts
            ks = sorted({int(r["tool"].split("@")[1]) for r in reqs})
            try:
                res = EvaluateRetrieval.evaluate({q: dict(d) for q, d in qrels.items()},
                                                 _dicts(job["run"], 4, float), ks, ignore_identical_ids=not keep)
            except Exception as exc:  # noqa: BLE001 - reported for these values
                for r in reqs:
                    out[r["key"]] = {"error": f"{type(exc).__name__}: {exc} (beir)"}
                continue
            means = {k: v for d in res for k, v in d.items()}
            for r in reqs:
                out[r["key"]] = {"topics": {}, "aggregate": f"{means[r['tool']]:.5f}"}
    return out


def pyndeval_values(spec: dict[str, Any]) -> dict[str, Any]:
    import pyndeval

    with open(spec["qrels"], encoding="utf-8") as fh:
        qrels = [(t, s, d, int(g)) for t, s, d, g in (line.split() for line in fh if line.strip())]
    out: dict[str, Any] = {}
    for job in spec["jobs"]:
        by_topic: dict[str, list] = {}
        with open(job["run"], encoding="utf-8") as fh:
            for line in fh:
                if line.strip():
                    t, _, d, _, score, _ = line.split()
                    by_topic.setdefault(t, []).append((t, d, float(score)))
        run = [row for rows in by_topic.values() for row in rows]  # one block per topic, as pyndeval reads it
        groups: dict[tuple, list] = {}
        for req in job["requests"]:
            name, *kw = req["tool"].split()
            opts = dict(o.split("=", 1) for o in [*req["options"], *kw])
            key = (int(opts.get("relevance_level", 1)), float(opts["alpha"]), float(opts["beta"]))
            groups.setdefault(key, []).append((name, req))
        for (level, alpha, beta), reqs in groups.items():
            names = sorted({name for name, _ in reqs})
            try:
                res = pyndeval.RelevanceEvaluator(qrels, names, relevance_level=level, alpha=alpha, beta=beta).evaluate(run)
            except Exception as exc:  # noqa: BLE001 - reported for these values, the other groups go on
                for _, r in reqs:
                    out[r["key"]] = {"error": f"{type(exc).__name__}: {exc} (pyndeval)"}
                continue
            for name, r in reqs:
                vals = {t: float(v[name]) for t, v in res.items()}
                out[r["key"]] = {"topics": vals, "aggregate": sum(vals.values()) / len(vals) if vals else None}
    return out


COMPUTE = {"pytrec_eval": pytrec_eval_values, "ranx": ranx_values, "beir": beir_values,
           "pyndeval": pyndeval_values}


def main(argv: list[str]) -> int:
    with open(argv[0], encoding="utf-8") as fh:
        spec = json.load(fh)
    name = spec["adapter"]
    compute = COMPUTE.get(name, ir_measures_values)
    values = compute(spec)
    with open(argv[1], "w", encoding="utf-8") as fh:
        json.dump(values, fh)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
