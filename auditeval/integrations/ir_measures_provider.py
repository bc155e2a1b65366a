"""auditeval as an ir_measures provider: ``ir_measures.providers.registry['auditeval']``.

Registered when :mod:`auditeval` is imported (ir_measures 0.4.3 discovers providers only
through that registry: it has no entry-point group). Then::

    import auditeval, ir_measures
    from ir_measures import AP, nDCG
    prov = ir_measures.providers.registry["auditeval"]          # profile ir_measures-0.4
    prov.calc_aggregate([AP(rel=2), nDCG@10], qrels, run)
    ev = prov.using("trec_eval-10.0").evaluator([AP], qrels)    # any profile, any --set
    ev.calc_aggregate(run); ev.variants[AP]                     # -> the Variant of each measure

Every metric :meth:`AuditevalEvaluator.iter_calc` yields is a :class:`VariantMetric` (an
``ir_measures.Metric`` with a ``variant`` attribute); ``evaluator.variants`` maps each
measure to its :class:`~auditeval.vocab.variant.Variant`.

The default profile, ``ir_measures-0.4``, is ir_measures' default pipeline
(``ir_measures.calc_aggregate``): each measure under the conventions of the provider that
pipeline sends it to, the first in its provider list that supports it (the profile's
``[route]`` table, :meth:`auditeval.vocab.conventions.Profile.convention_for`): the trec
measures under its pytrec_eval provider's (float32 scores, ties by docno descending, missing
qrels topics scored 0), RR@k, Judged@k and Compat under ``ir_measures-0.4-msmarco`` (ties by
docno ascending), Accuracy under ``ir_measures-0.4-accuracy`` (ties in file order), ERR@k and
``nDCG(dcg='exp-log2')@k`` under ``ir_measures-0.4-gdeval``, RBP, SDCG, NERR8-11, INST, INSQ,
BPM under ``cwl_eval-1.0``. One provider's conventions for every measure:
``using("ir_measures-0.4-msmarco")`` and the like.

Measures are translated spelling by spelling (:func:`to_auditeval`): ``SetP(relative=True)``
is ``SetRelP``, ``NumRet(rel=1)`` is ``NumRelRet``, ``nDCG(dcg='exp-log2')`` folds into the
``gain`` axis (``gain=exp2``), ``IPrec@0.25`` keeps its recall level as the cut-off.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

import ir_measures
from ir_measures import measures as irm
from ir_measures.providers.base import NOT_PROVIDED, Choices, Evaluator, Provider
from ir_measures.providers.base import Any as AnyParam
from ir_measures.util import Metric

from auditeval.vocab.conventions import resolve
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.variant import Variant, parse_measure

DEFAULT_PROFILE = "ir_measures-0.4"

# ir_measures name -> auditeval name; parameters pass through unless handled below.
NAMES = {
    "P": "P", "RR": "RR", "Rprec": "Rprec", "AP": "AP", "nDCG": "nDCG", "R": "R", "Bpref": "Bpref",
    "NumQ": "NumQ", "NumRel": "NumRel", "NumRet": "NumRet", "SetAP": "SetAP", "SetF": "SetF",
    "SetP": "SetP", "SetR": "SetR", "Success": "Success", "IPrec": "IPrec", "infAP": "infAP",
    "Judged": "Judged", "RBP": "RBP", "ERR": "ERR", "SDCG": "SDCG",
    "NERR8": "NERR8", "NERR9": "NERR9", "NERR10": "NERR10", "NERR11": "NERR11", "INST": "INST", "INSQ": "INSQ",
    "BPM": "BPM", "Compat": "Compat", "Accuracy": "Accuracy",
}


SUPPORTED = [
    irm._P(cutoff=AnyParam(required=True), rel=AnyParam(), judged_only=AnyParam()),
    irm._RR(cutoff=AnyParam(), rel=AnyParam(), judged_only=AnyParam()),
    irm._Rprec(rel=AnyParam(), judged_only=AnyParam()),
    irm._AP(cutoff=AnyParam(), rel=AnyParam(), judged_only=AnyParam()),
    irm._nDCG(cutoff=AnyParam(), dcg=Choices("log2", "exp-log2"), gains=AnyParam(), judged_only=AnyParam()),
    irm._R(cutoff=AnyParam(), rel=AnyParam(), judged_only=AnyParam()),
    irm._Bpref(rel=AnyParam()),
    irm._NumQ(),
    irm._NumRel(rel=AnyParam()),
    irm._NumRet(rel=AnyParam()),
    irm._SetAP(rel=AnyParam(), judged_only=AnyParam()),
    irm._SetF(rel=AnyParam(), beta=AnyParam(), judged_only=AnyParam()),
    irm._SetP(rel=AnyParam(), relative=AnyParam(), judged_only=AnyParam()),
    irm._SetR(rel=AnyParam()),
    irm._Success(cutoff=AnyParam(required=True), rel=AnyParam(), judged_only=AnyParam()),
    irm._IPrec(recall=AnyParam(required=True), rel=AnyParam(), judged_only=AnyParam()),
    irm._infAP(rel=AnyParam()),
    irm._Judged(cutoff=AnyParam()),
    irm._RBP(cutoff=Choices(NOT_PROVIDED), p=AnyParam(), rel=AnyParam()),
    irm._ERR(cutoff=AnyParam()),
    irm._SDCG(cutoff=AnyParam(required=True), dcg=Choices("log2"), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._NERR8(cutoff=AnyParam(required=True), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._NERR9(cutoff=AnyParam(required=True), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._NERR10(p=AnyParam(), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._NERR11(T=AnyParam(), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._INST(T=AnyParam(), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._INSQ(T=AnyParam(), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._BPM(cutoff=AnyParam(required=True), T=AnyParam(), min_rel=AnyParam(), max_rel=AnyParam(required=True)),
    irm._Compat(p=AnyParam(), normalize=AnyParam()),
    irm._Accuracy(cutoff=AnyParam(), rel=AnyParam()),
]


def to_auditeval(measure: Any) -> tuple[Measure, list[str]]:
    """An ir_measures measure -> (auditeval measure, ``AXIS=VALUE`` settings it implies).

    Raises :class:`ValueError` for a measure auditeval does not compute."""
    name = measure.NAME
    if name not in NAMES:
        raise ValueError(f"auditeval does not compute {measure}")
    params = {k: v for k, v in measure.params.items() if v is not NOT_PROVIDED}
    settings: list[str] = []
    cutoff = params.pop(measure.AT_PARAM, None)
    # SetP(relative=) and NumRet(rel=) need nothing here: parse_measure's normalize reads them
    if name == "SDCG":
        params.pop("dcg", None)  # only log2 exists for SDCG
    elif name == "nDCG" and "gains" in params:
        params["gains"] = "{" + ",".join(f"{int(k)}:{v}" for k, v in sorted(params["gains"].items())) + "}"
    if params.get("judged_only") is False:
        params.pop("judged_only")
    if params.get("beta") == 1.0 and name == "SetF":
        params.pop("beta")
    text = name
    if params:
        text += "(" + ",".join(f"{k}={_literal(v)}" for k, v in sorted(params.items())) + ")"
    if cutoff is not None:
        text += f"@{cutoff}"
    return parse_measure(text), settings


def _literal(v: Any) -> str:
    if isinstance(v, str) and v.startswith("{"):
        return v
    return repr(v)


class VariantMetric(Metric):
    """``ir_measures.Metric`` (query_id, measure, value) that also carries ``variant``."""

    variant: Variant


def _metric(query_id: str, measure: Any, value: float, variant: Variant) -> VariantMetric:
    m = VariantMetric(query_id, measure, value)
    m.variant = variant
    return m


def _table(obj: Any, kind: str):
    """ir_measures' input forms (dict-of-dict, DataFrame, iterable of namedtuples) -> auditeval."""
    from auditeval.io import qrels_from, run_from

    if isinstance(obj, Qrels | Run | dict) or hasattr(obj, "itertuples"):
        pass
    else:
        import pandas as pd

        conv = ir_measures.util.QrelsConverter(obj) if kind == "qrels" else ir_measures.util.RunConverter(obj)
        obj = pd.DataFrame(list(conv.as_namedtuple_iter()))
        if obj.empty:
            return None
    if isinstance(obj, dict) and not any(obj.values()):
        return None
    if hasattr(obj, "itertuples") and len(obj) == 0:
        return None
    return qrels_from(obj) if kind == "qrels" else run_from(obj, name="run")


class AuditevalEvaluator(Evaluator):
    """Evaluates runs against one qrels with auditeval's engine under one convention."""

    def __init__(self, measures: Iterable[Any], qrels: Any, profile: str, settings: list[str]):
        measures = list(measures)
        self.qrels = _table(qrels, "qrels")
        super().__init__(measures, set(self.qrels.topics) if self.qrels is not None else set())
        self.profile = profile
        self.settings = list(settings)
        self.plan: list[tuple[Any, Measure, list[str]]] = [(m, *to_auditeval(m)) for m in measures]
        self.variants: dict[Any, Variant] = {  # per measure under the profile's [route], as evaluate
            m: Variant.of(am, resolve(profile, self.settings + list(extra), am)) for m, am, extra in self.plan
        }

    def iter_calc(self, run: Any) -> Iterator[Metric]:
        """Per-topic metrics; a qrels topic without one gets the measure's default (0), as
        ir_measures' base evaluator fills it, except for a measure undefined on some topics
        (Accuracy: ``agg="mean-defined"``), whose mean leaves those out, as its provider."""
        from auditeval.vocab.specs import SPECS

        undefined_ok = {m for m, am, _ in self.plan if SPECS[am.name].agg == "mean-defined"}
        expected = {(m, q) for m in self.measures if m not in undefined_ok for q in self.qrel_qids}
        for metric in self._iter_calc(run):
            expected.discard((metric.measure, metric.query_id))
            yield metric
        for measure, query_id in sorted(expected, key=lambda x: (str(x[0]), x[1])):
            yield Metric(query_id=query_id, measure=measure, value=measure.DEFAULT)

    def _iter_calc(self, run: Any) -> Iterator[Metric]:
        from auditeval.api import evaluate

        r = _table(run, "run")
        if r is None or self.qrels is None:
            return
        groups: dict[tuple[str, ...], list[tuple[Any, Measure]]] = {}
        for m, am, extra in self.plan:
            groups.setdefault(tuple(extra), []).append((m, am))
        per_topic: dict[str, list[VariantMetric]] = {}
        for extra, items in groups.items():
            try:
                res = evaluate(self.qrels, r, [am for _, am in items], profile=self.profile, settings=self.settings + list(extra))
            except AuditEvalError as exc:
                raise ValueError(str(exc)) from exc
            by_label: dict[str, list[Any]] = {}
            for m, am in items:
                by_label.setdefault(str(am), []).append(m)
            for v in res.values:
                if v.topic == "all":
                    continue
                for m in by_label[v.measure]:
                    per_topic.setdefault(v.topic, []).append(_metric(v.topic, m, v.value, v.variant))
        for topic in per_topic:  # topics in evaluation order, measures in request order
            yield from per_topic[topic]


class AuditevalProvider(Provider):
    """auditeval's native engine behind ir_measures' provider interface."""

    NAME = "auditeval"
    SUPPORTED_MEASURES = SUPPORTED

    def __init__(self, profile: str = DEFAULT_PROFILE, settings: Iterable[str] = ()):
        super().__init__()
        self.profile = profile
        self.settings = list(settings)

    def using(self, profile: str, settings: Iterable[str] = ()) -> AuditevalProvider:
        """The same provider under another profile (name or TOML path) and axis overrides."""
        resolve(profile, list(settings))  # fail now on a bad profile or setting
        return AuditevalProvider(profile, settings)

    def _evaluator(self, measures: Iterable[Any], qrels: Any) -> AuditevalEvaluator:
        return AuditevalEvaluator(measures, qrels, self.profile, self.settings)

    def install_instructions(self) -> str:
        return "pip install auditeval"


def register() -> AuditevalProvider:
    """Put the provider in ``ir_measures.providers.registry['auditeval']`` (idempotent)."""
    existing = ir_measures.providers.registry.get(AuditevalProvider.NAME)
    if isinstance(existing, AuditevalProvider):
        return existing
    return ir_measures.providers.register(AuditevalProvider())


register()  # importing this module (it imports ir_measures) is registering the provider
