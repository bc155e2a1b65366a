"""How closely a re-run reproduces an original run (Breuer et al., SIGIR 2020, "How to
Measure the Reproducibility of System-oriented IR Experiments"; repro_eval 0.5.0).

Document order (per topic, over the topics both runs rank; each run ordered under the
``ties``/``sim``/``dups`` axes, cut at ``depth``; repro_eval instead takes file order and
only re-orders runs of equal consecutive scores by docno descending, which is the same for
a file sorted by score):

* **KTU** (Kendall's tau Union). ``ktu=tied-last`` (default): over the union U of the two
  top-``depth`` lists, each document's rank in each list, a document missing from a list
  placed at rank ``len(list) + 1`` (tied with every other document that list lacks);
  Kendall's tau-b (scipy) of the two rank vectors. Identical lists give 1; swapping two
  adjacent documents of an ``n``-document list gives ``1 - 4 / (n (n - 1))``.
  ``ktu=repro_eval``: repro_eval 0.5.0's computation exactly (``_KTU``): the union sorted
  by doc id, each list mapped to the union positions of its documents in rank order, and
  tau-b of those two sequences paired by rank (needs equal lengths; rounded to 14 digits).
  That pairs rank ``i`` of one list with rank ``i`` of the other, so it depends on the
  doc ids (an adjacent swap of ids that have another list member between them in id order
  counts more than one discordant pair): auditeval names it but does not default to it.
* **RBO** (rank-biased overlap, persistence ``p``, default 0.95 over depth D = 1000 as
  repro_eval). ``rbo=trunc-norm`` (default; repro_eval = Clarke et al. 2020):
  ``sum_{d=1..D} p^(d-1) X_d / d  /  sum_{d=1..D} p^(d-1)`` with ``X_d`` the overlap of the
  top-d prefixes; no extrapolation, normalised by the truncated weight sum.
  ``rbo=ext``: Webber et al. (2010) eq. 32, ``RBO_ext = X_k/k p^k + (1-p)/p sum_{d=1..k}
  X_d/d p^d`` with ``k = min(len A, len B, D)`` per topic.

Scores (per measure, under one profile, over the topics evaluated for both runs; each measure
under the convention the profile's route table gives it, :func:`measure_plan`, as ``eval``
computes it). Which topics those are is the profile's ``topics`` axis: the default
(trec_eval-9.0.8, ``topics=both``) scores the topics a run and the qrels share; repro_eval 0.5.0
scores every qrels topic, a topic a run lacks as 0 (ir_measures.calc), on runs cut at 1000
(``trim``): its profile ``repro_eval-0.5`` gives its numbers on the same files. Under any other
``topics`` value, when the topics scored are not the qrels' topics, a note names them and says
that repro_eval scores another set (:func:`paired_topic_notes`, :func:`unpaired_topic_notes`).
Runs with no topic in common (or no topic the qrels judge; replicability: an original run that
ranks none of qrels A's topics, a re-run none of qrels B's) are an error naming the topic sets.

* **RMSE** ``sqrt(mean_t (orig_t - rep_t)^2)``.
* **nRMSE** (normalised RMSE, repro_eval 0.5.0 ``measure/effectiveness.py``: ``nRMSE`` line 77
  divides ``_RMSE`` by ``_maxRMSE``, whose line 61 takes ``max(x, 1 - x)`` per topic)
  ``RMSE / sqrt(mean_t max(orig_t, 1 - orig_t)^2)``: the RMSE divided by the RMSE of the
  farthest re-run a measure in [0, 1] allows (each topic at 0 or 1, whichever is farther
  from the original), over the same paired topics; 0 = identical, 1 = as far as possible.
  The normaliser is at least 0.5 for scores in [0, 1]; for a measure with an original score
  outside [0, 1] it is no longer the largest error (a note says so).
* paired two-sided **t-test** of the per-topic scores (:func:`auditeval.stats.significance.paired_t`,
  as ``scipy.stats.ttest_rel``); when
  every difference of a measure is 0 its p-value is 1 (scipy gives NaN; repro_eval turns
  the NaNs into 1 only when every measure is unchanged).
* with baselines: **ER** (effect ratio) ``mean_t(rep_t - rep_base_t) / mean_t(orig_t -
  orig_base_t)`` and **DRI** (delta relative improvement) ``RI_orig - RI_rep`` with
  ``RI = (mean(adv) - mean(base)) / mean(base)``, over the topics evaluated for all four.

**Replicability** (``qrels_b``; repro_eval's ``RplEvaluator``): the replicated runs come from
another collection (other topics, or other judgements): the original runs (``original``,
``baseline_original``) are scored against ``qrels`` (A), the replicated ones (``reproduced``,
``baseline_reproduced``) against ``qrels_b`` (B), each over its own topics. Then:

* **t-test** unpaired two-sided Student's t (``scipy.stats.ttest_ind`` with its default
  ``equal_var=True``, as repro_eval 0.5.0 ``measure/statistics.py`` line 32) of the original
  per-topic scores (A) against the replicated ones (B): ``t = (mean_A - mean_B) / (s_p
  sqrt(1/n_A + 1/n_B))`` with the pooled ``s_p^2 = ((n_A-1) s_A^2 + (n_B-1) s_B^2) / (n_A+n_B-2)``,
  ``n_A + n_B - 2`` degrees of freedom.
* **ER** ``mean_{t in B}(rep_t - rep_base_t) / mean_{t in A}(orig_t - orig_base_t)`` and
  **DRI** ``RI_A - RI_B`` with ``RI = (mean(adv) - mean(base)) / mean(base)`` over each
  collection's own topics (those scored for both of its runs; repro_eval
  ``measure/overall_effects.py`` ``mean_improvement`` and ``rel_improve``).
* no KTU, RBO, RMSE or nRMSE: they compare a topic's ranking or score with the same topic's,
  and a replication has no such pairs (a note says so).

Every number carries a variant string: the measure's own for RMSE/nRMSE/t-test/ER/DRI, and
for KTU/RBO a string of the same shape naming depth, ``p``, the tie rule, the score
precision and the variant of the formula; and ``qrels``: ``"A"`` when every run was scored
against ``qrels``, ``"A+B"`` when the original runs were scored against A and the replicated
ones against B (replicability), so a replicability number never passes as a qrels-A one.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from typing import Any

import numpy as np
import pyarrow as pa
import scipy
from scipy import stats as sstats

from auditeval.engine import ENGINE, aggregate, evaluate_prepared, prepare
from auditeval.io import qrels_from, run_from
from auditeval.stats.significance import paired_t
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.conventions import DEFAULT_PROFILE, resolve
from auditeval.vocab.errors import AuditEvalError, ConventionError
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import DEFAULT_MEASURES, SPECS
from auditeval.vocab.variant import parse_measure

KTU_FORMS = ("tied-last", "repro_eval")
RBO_FORMS = ("trunc-norm", "ext")
SCIPY_ENGINE = f"{ENGINE} + scipy {scipy.__version__} kendalltau"
STATS_ENGINE = f"{ENGINE} + auditeval.stats paired_t (scipy {scipy.__version__})"
UNPAIRED_ENGINE = f"{ENGINE} + scipy {scipy.__version__} ttest_ind(equal_var=True)"
MODES = ("reproducibility", "replicability")
QRELS_A, QRELS_AB = "A", "A+B"
NO_ORDER_NOTE = ("replicability (qrels B): KTU, RBO, RMSE and nRMSE are not computed: they pair each topic's "
                 "original ranking or score with the same topic's re-run, and a replication on another "
                 "collection has no such pairs; the t-test is unpaired, ER and DRI are means over each "
                 "collection's own topics")


@dataclass(frozen=True)
class ReproValue:
    """One reproduction number: ``statistic`` (KTU, RBO, RMSE, nRMSE, p_value, t, ER, DRI),
    the ``measure`` it is about ("" for document-order statistics), ``topic`` or "all", and
    ``qrels``: ``"A"`` (every run scored against the qrels) or ``"A+B"`` (replicability: the
    original runs against qrels A, the replicated ones against qrels B)."""

    statistic: str
    measure: str
    topic: str
    value: float
    variant: str
    engine: str
    qrels: str = QRELS_A

    def as_dict(self) -> dict[str, Any]:
        return self.__dict__.copy()


COLUMNS = ("statistic", "measure", "topic", "value", "variant", "engine", "qrels")


@dataclass
class Reproduction:
    values: list[ReproValue] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # reproducibility: measure -> (topics, original per-topic scores, reproduced ones), the
    # topics both evaluate
    scores: dict[str, tuple[list[str], np.ndarray, np.ndarray]] = field(default_factory=dict)
    mode: str = "reproducibility"
    # replicability: measure -> ((topics A, original scores on A), (topics B, replicated on B))
    unpaired: dict[str, tuple[tuple[list[str], np.ndarray], tuple[list[str], np.ndarray]]] = field(
        default_factory=dict)

    def to_frame(self):
        """Tidy pandas DataFrame: one row per number (statistic, measure, topic, value,
        variant, engine, qrels; ``topic == "all"`` rows are over every topic; ``qrels == "A+B"``
        rows compare original runs scored on qrels A with replicated ones scored on qrels B)."""
        import pandas as pd

        return pd.DataFrame([v.as_dict() for v in self.values], columns=list(COLUMNS))

    def get(self, statistic: str, measure: str = "", topic: str = "all") -> ReproValue:
        for v in self.values:
            if (v.statistic, v.measure, v.topic) == (statistic, measure, topic):
                return v
        raise KeyError((statistic, measure, topic))


def _ranked(qrels: Qrels, run: Run, conv) -> tuple[list[str], pa.Table]:
    """Each topic's ranked documents under ``conv``: (topics, table topic/doc/rank)."""
    p = prepare(qrels, run, conv)
    docs = run.table.column("doc").take(pa.array(p.run_row))
    topics = [str(t) for t in p.topics]
    tab = pa.table({"topic": pa.array(p.row_topic.astype(np.int64)), "doc": docs, "rank": pa.array(p.rank)})
    return topics, tab


def _rankings_joined(qrels, orig: Run, rep: Run, conv, notes: list[str]):
    """Full outer join of the two rankings over the topics both rank."""
    ta, a = _ranked(qrels, orig, conv)
    tb, b = _ranked(qrels, rep, conv)
    common = sorted(set(ta) & set(tb), key=lambda s: s.encode("utf-8"))
    for name, own, other in ((orig.source, ta, tb), (rep.source, tb, ta)):
        only = sorted(set(own) - set(other))
        if only:
            notes.append(
                f"{name}: {len(only)} topic(s) ranked by this run only, left out of KTU and RBO: "
                + ", ".join(repr(t) for t in only[:5]) + (" ..." if len(only) > 5 else "")
            )
    code = {t: i for i, t in enumerate(common)}

    def recode(topics: list[str], tab: pa.Table) -> pa.Table:
        m = np.array([code.get(t, -1) for t in topics], dtype=np.int64)
        new = m[tab.column("topic").to_numpy()]
        keep = new >= 0
        return pa.table({"t": pa.array(new[keep]), "doc": tab.column("doc").filter(pa.array(keep)),
                         "r": tab.column("rank").filter(pa.array(keep))})

    a2, b2 = recode(ta, a), recode(tb, b)
    len_a = np.bincount(a2.column("t").to_numpy(), minlength=len(common))
    len_b = np.bincount(b2.column("t").to_numpy(), minlength=len(common))
    j = a2.join(b2, keys=["t", "doc"], join_type="full outer", left_suffix="_a", right_suffix="_b",
                coalesce_keys=True).sort_by([("t", "ascending"), ("doc", "ascending")])
    t = j.column("t").to_numpy()
    ra = j.column("r_a").to_numpy(zero_copy_only=False)
    rb = j.column("r_b").to_numpy(zero_copy_only=False)
    return common, len_a, len_b, t, ra, rb


def rbo(t: np.ndarray, ra: np.ndarray, rb: np.ndarray, len_a, len_b, n_topics: int, p: float,
        depth: int, form: str) -> np.ndarray:
    """Per-topic RBO from joined ranks (NaN where a document is missing from one list)."""
    both = ~(np.isnan(ra) | np.isnan(rb))
    d = np.maximum(ra[both], rb[both]).astype(np.int64)  # the depth from which the doc overlaps
    keep = d <= depth
    counts = np.bincount(t[both][keep] * depth + (d[keep] - 1), minlength=n_topics * depth)
    overlap = np.cumsum(counts.reshape(n_topics, depth), axis=1)  # X_d, d = 1..depth
    dd = np.arange(1, depth + 1, dtype=np.float64)
    agree = overlap / dd
    if form == "trunc-norm":
        w = p ** (dd - 1)
        return (agree * w).sum(axis=1) / w.sum()
    k = np.minimum(np.minimum(len_a, len_b), depth)
    w = p**dd
    inside = dd[None, :] <= k[:, None]
    tail = (1 - p) / p * (agree * w * inside).sum(axis=1)
    kk = np.maximum(k, 1)
    at_k = agree[np.arange(n_topics), kk - 1] * p**kk
    return np.where(k > 0, at_k + tail, np.nan)


def ktu(t: np.ndarray, ra: np.ndarray, rb: np.ndarray, len_a, len_b, topics: list[str], form: str,
        notes: list[str]) -> np.ndarray:
    """Per-topic Kendall's tau Union (see the module docstring for the two forms)."""
    n = len(topics)
    bounds = np.searchsorted(t, np.arange(n + 1))
    out = np.full(n, np.nan)
    unequal = []
    for i in range(n):  # one scipy call per topic (O(k log k) each)
        lo, hi = bounds[i], bounds[i + 1]
        a, b = ra[lo:hi], rb[lo:hi]
        if form == "tied-last":
            x = np.where(np.isnan(a), len_a[i] + 1, a)
            y = np.where(np.isnan(b), len_b[i] + 1, b)
            if hi - lo >= 2:
                out[i] = sstats.kendalltau(x, y).statistic
        else:  # repro_eval: union positions (rows are sorted by doc id), paired by rank
            if len_a[i] != len_b[i]:
                unequal.append(topics[i])
                continue
            pos = np.arange(hi - lo)
            x = pos[~np.isnan(a)][np.argsort(a[~np.isnan(a)])]
            y = pos[~np.isnan(b)][np.argsort(b[~np.isnan(b)])]
            if len(x) >= 2:
                out[i] = round(float(sstats.kendalltau(x, y).statistic), 14)
    if unequal:
        notes.append(f"KTU (ktu=repro_eval) needs lists of equal length: {len(unequal)} topic(s) NaN: "
                     + ", ".join(repr(x) for x in unequal[:5]))
    if np.isnan(out).any() and form == "tied-last":
        notes.append(f"KTU undefined (fewer than two documents, or no order in one list) for "
                     f"{int(np.isnan(out).sum())} topic(s); left out of the mean")
    return out



def _score_sets(q_orig, q_rep, orig, rep, baseline_original, baseline_reproduced, plan):
    """Per-measure scores of the original run (and baseline) on ``q_orig`` and of the re-run (and
    its baseline) on ``q_rep`` (the same qrels for reproducibility, qrels B for replicability);
    ``bases`` None without baselines. ``plan``: :func:`measure_plan`."""
    s_orig, s_rep = _scores(q_orig, orig, plan), _scores(q_rep, rep, plan)
    bases = None
    if baseline_original is not None:
        bo, br = run_from(baseline_original), run_from(baseline_reproduced)
        bases = (_scores(q_orig, bo, plan), _scores(q_rep, br, plan))
    return s_orig, s_rep, bases


@dataclass(frozen=True)
class MeasurePlan:
    """The measures grouped by the convention each is computed under (``groups``: (convention,
    measures) pairs), and their labels in the order given (``order``)."""

    groups: tuple[tuple[Any, tuple[Any, ...]], ...]
    order: tuple[str, ...]


def measure_plan(parsed: Sequence[Any], profile: Any, settings: list[str] | None) -> MeasurePlan:
    """Each measure's convention: the profile's route table
    (:meth:`~auditeval.vocab.conventions.Profile.convention_for`, as ``eval`` resolves it: a tool
    that sends RR@10 to another provider gets that provider's axes), then ``settings``."""
    groups: dict[Any, list[Any]] = {}
    for m in parsed:
        groups.setdefault(resolve(profile, settings, m), []).append(m)
    return MeasurePlan(tuple((c, tuple(ms)) for c, ms in groups.items()), tuple(str(m) for m in parsed))


def _scores(qrels, run: Run, plan: MeasurePlan) -> dict[str, tuple[str, dict[str, float]]]:
    """label -> (variant string, {topic: value}), each measure under its convention, in the order
    the measures were given."""
    out = {}
    for conv, measures in plan.groups:
        for m, variant, p, vals, _agg in evaluate_prepared(qrels, run, measures, conv, {}):
            pairs = zip((str(t) for t in p.topics), vals.tolist(), strict=True)
            if SPECS[m.name].agg == "mean-defined":  # a topic without a value (Accuracy) is left out
                pairs = ((t, v) for t, v in pairs if v == v)
            out[str(m)] = (str(variant), dict(pairs))
    return {k: out[k] for k in dict.fromkeys(plan.order)}


def _aligned(parts: Sequence[dict[str, float]]) -> tuple[list[str], list[np.ndarray]]:
    common = sorted(set.intersection(*(set(x) for x in parts)), key=lambda s: s.encode("utf-8"))
    return common, [np.array([x[t] for t in common], dtype=np.float64) for x in parts]


def nrmse_normaliser(orig: np.ndarray) -> float:
    """``sqrt(mean_t max(orig_t, 1 - orig_t)^2)``: the RMSE of the farthest re-run of a measure
    in [0, 1] (repro_eval 0.5.0 ``measure/effectiveness.py`` ``_maxRMSE``, line 61)."""
    far = np.maximum(orig, 1.0 - orig)
    return float(np.sqrt(np.sum(far**2) / len(far)))


def _unpaired_t(a: np.ndarray, b: np.ndarray) -> tuple[float, float]:
    """Student's two-sample t (pooled variance): ``scipy.stats.ttest_ind(a, b)``, whose
    ``equal_var=True`` default repro_eval 0.5.0 keeps (``measure/statistics.py`` line 32)."""
    if len(a) < 1 or len(b) < 1 or len(a) + len(b) < 3:
        return float("nan"), float("nan")
    r = sstats.ttest_ind(a, b, equal_var=True)
    return float(r.statistic), float(r.pvalue)


@dataclass(frozen=True, kw_only=True)
class ReproduceConvention:
    """Every convention of :func:`reproduce`: the scores' (``profile`` + ``settings``, each measure
    under the route the profile gives it) and the document order's: ``depth`` (both runs cut
    there), ``rbo_p`` (RBO's persistence), ``ties``/``sim`` (the order of equal scores and the
    score precision; default repro_eval's Python-float docno-desc), ``ktu_form`` and ``rbo_form``
    (:data:`KTU_FORMS`, :data:`RBO_FORMS`; the module docstring says what each computes). A
    value out of range is a :class:`~auditeval.vocab.errors.ConventionError` when built."""

    profile: Any = DEFAULT_PROFILE
    settings: list[str] | None = None
    depth: int = 1000
    rbo_p: float = 0.95
    ties: str = "docno-desc"
    sim: str = "float64"
    ktu_form: str = "tied-last"
    rbo_form: str = "trunc-norm"

    def __post_init__(self) -> None:
        if self.ktu_form not in KTU_FORMS:
            raise ConventionError(f"ktu must be one of {', '.join(KTU_FORMS)}, got {self.ktu_form!r}")
        if self.rbo_form not in RBO_FORMS:
            raise ConventionError(f"rbo must be one of {', '.join(RBO_FORMS)}, got {self.rbo_form!r}")
        if not 0 < self.rbo_p < 1:
            raise ConventionError(f"RBO p must lie in (0, 1), got {self.rbo_p!r}")
        if self.depth < 1:
            raise ConventionError(f"depth must be a positive integer, got {self.depth!r}")


def _convention(convention: ReproduceConvention | None, kw: dict[str, Any]) -> ReproduceConvention:
    """``convention`` with the keywords given beside it (an unknown keyword is a TypeError)."""
    for name in kw:
        if name not in ReproduceConvention.__dataclass_fields__:
            raise TypeError(f"reproduce() got an unexpected keyword argument {name!r}")
    return replace(convention, **kw) if convention is not None else ReproduceConvention(**kw)


def reproduce(
    qrels: Any, original: Any, reproduced: Any, measures: Sequence[str] = DEFAULT_MEASURES, *,
    baseline_original: Any = None, baseline_reproduced: Any = None, qrels_b: Any = None, per_topic: bool = True,
    convention: ReproduceConvention | None = None, **kw: Any,
) -> Reproduction:
    """Reproducibility (``qrels_b`` None): KTU, RBO, RMSE, nRMSE and a paired t-test of
    ``reproduced`` against ``original``, all scored against ``qrels``; ER and DRI when both
    baselines are given. Replicability (``qrels_b`` given): the original runs scored against
    ``qrels``, the replicated ones (``reproduced``, ``baseline_reproduced``) against
    ``qrels_b``; an unpaired t-test, ER and DRI (see the module docstring). The conventions are
    one :class:`ReproduceConvention` (``convention=``), or its fields as keywords (``profile``,
    ``settings``, ``depth``, ``rbo_p``, ``ties``, ``sim``, ``ktu_form``, ``rbo_form``; given
    beside ``convention=`` they replace its fields). ``per_topic``: KTU and RBO per topic too."""
    rc = _convention(convention, kw)
    if (baseline_original is None) != (baseline_reproduced is None):
        raise ConventionError("give both baselines (--baseline-original and --baseline-reproduced) or neither")
    q = qrels_from(qrels)
    orig, rep = run_from(original), run_from(reproduced)
    conv = resolve(rc.profile, rc.settings)
    plan = measure_plan([parse_measure(m) for m in measures], rc.profile, rc.settings)
    scoring = Scoring(plan, _profile_words(rc.profile, rc.settings), conv)
    if qrels_b is not None:
        q_b = qrels_from(qrels_b)
        check_topics_replicability(q, q_b, orig, rep)
        return _replicability(q, q_b, orig, rep, scoring, baseline_original, baseline_reproduced)
    check_topics(q, orig, rep)
    res = Reproduction(notes=list(q.notes))
    _document_order(res, q, (orig, rep), conv, rc, per_topic)
    sets = _score_values(res, q, (orig, rep), (baseline_original, baseline_reproduced), plan)
    res.notes.extend(scoring.route_notes())
    res.notes.extend(paired_topic_notes(sets, set(_topic_set(q)), scoring))
    return res


def _document_order(res: Reproduction, q: Qrels, runs: tuple[Run, Run], conv: Any, rc: ReproduceConvention,
                    per_topic: bool) -> None:
    """KTU and RBO of the two runs' rankings (per topic when ``per_topic``, and their mean)."""
    orig, rep = runs
    depth, ties, sim = rc.depth, rc.ties, rc.sim
    order_conv = conv.replace(ties=ties, sim=sim, depth=depth, unjudged="nonrel", topics="run", self_hits="keep")
    topics, len_a, len_b, t, ra, rb = _rankings_joined(q, orig, rep, order_conv, res.notes)
    k_var = f"KTU@{depth}|dups={conv.dups}|ktu={rc.ktu_form}|sim={sim}|ties={ties}"
    r_var = f"RBO(p={rc.rbo_p!r})@{depth}|dups={conv.dups}|rbo={rc.rbo_form}|sim={sim}|ties={ties}"
    k_vals = ktu(t, ra, rb, len_a, len_b, topics, rc.ktu_form, res.notes)
    r_vals = rbo(t, ra, rb, len_a, len_b, len(topics), rc.rbo_p, depth, rc.rbo_form)
    for stat, var, vals in (("KTU", k_var, k_vals), ("RBO", r_var, r_vals)):
        if per_topic:
            res.values.extend(ReproValue(stat, "", tp, float(v), var, SCIPY_ENGINE if stat == "KTU" else ENGINE)
                              for tp, v in zip(topics, vals, strict=True))
        ok = vals[~np.isnan(vals)]
        res.values.append(ReproValue(stat, "", "all", aggregate(ok, "mean", conv.gm_floor) if len(ok) else float("nan"),
                                     var, SCIPY_ENGINE if stat == "KTU" else ENGINE))


def _score_values(res: Reproduction, q: Qrels, runs: tuple[Run, Run], baselines: tuple[Any, Any],
                  plan: MeasurePlan) -> dict[str, tuple[list[str], list[str] | None]]:
    """Per measure: RMSE, nRMSE and the paired t-test over the topics scored for both runs; ER
    and DRI over those scored for all four when baselines are given. Returns, per measure, those
    two topic lists (the second None without baselines), for the topic notes."""
    s_orig, s_rep, bases = _score_sets(q, q, runs[0], runs[1], baselines[0], baselines[1], plan)
    sets: dict[str, tuple[list[str], list[str] | None]] = {}  # label -> (paired topics, ER/DRI topics)
    for label in s_orig:
        var, o = s_orig[label]
        r = s_rep[label][1]
        common, (ov, rv) = _aligned([o, r])
        if len(common) < max(len(o), len(r)):
            res.notes.append(f"{label}: {max(len(o), len(r)) - len(common)} topic(s) evaluated for one run only, "
                             "left out of RMSE, nRMSE and the t-test")
        if not common:
            res.notes.append(f"{label}: no topic evaluated for both runs")
            continue
        diff = ov - rv
        res.scores[label] = (common, ov, rv)
        sets[label] = (common, None)
        rmse = float(np.sqrt(np.sum(diff**2) / len(diff)))
        res.values.append(ReproValue("RMSE", label, "all", rmse, var, ENGINE))
        if ((ov < 0) | (ov > 1)).any():
            res.notes.append(f"{label}: original scores outside [0, 1]; the nRMSE normaliser "
                             "sqrt(mean max(x, 1 - x)^2) is then not the largest possible error")
        res.values.append(ReproValue("nRMSE", label, "all", rmse / nrmse_normaliser(ov), var, ENGINE))
        t_stat, p_val = _paired_t_test(diff, label, res.notes)
        res.values.append(ReproValue("t", label, "all", t_stat, var, STATS_ENGINE))
        res.values.append(ReproValue("p_value", label, "all", p_val, var, STATS_ENGINE))
        if bases is not None:
            bo_s, br_s = bases[0][label][1], bases[1][label][1]
            common4, (ov4, rv4, bov, brv) = _aligned([o, r, bo_s, br_s])
            if len(common4) < len(common):
                res.notes.append(f"{label}: {len(common) - len(common4)} topic(s) lack a baseline score, "
                                 "left out of ER and DRI")
            sets[label] = (common, common4)
            er, dri = _er_dri((ov4, bov), (rv4, brv), label, res.notes)
            res.values.append(ReproValue("ER", label, "all", er, var, ENGINE))
            res.values.append(ReproValue("DRI", label, "all", dri, var, ENGINE))
    return sets


def _paired_t_test(diff: np.ndarray, label: str, notes: list[str]) -> tuple[float, float]:
    """t and p of the paired differences; p = 1 when every difference is 0 (scipy: NaN)."""
    if not diff.any():
        notes.append(f"{label}: identical per-topic scores; t-test p-value set to 1 (scipy: NaN)")
        return 0.0, 1.0
    if len(diff) < 2:
        return float("nan"), float("nan")
    tt, pp, _ci = paired_t(diff[None, :])
    return float(tt[0]), float(pp[0])


def _er_dri(orig: tuple[np.ndarray, np.ndarray], rep: tuple[np.ndarray, np.ndarray], label: str,
            notes: list[str]) -> tuple[float, float]:
    """ER ``mean(rep_adv - rep_base) / mean(orig_adv - orig_base)`` and DRI ``RI_orig -
    RI_rep``, ``RI = (mean(adv) - mean(base)) / mean(base)``; each pair over its own topics."""
    (oa, ob), (ra, rb) = orig, rep
    if not (len(oa) and len(ra)):
        notes.append(f"{label}: no topic scored for both an advanced run and its baseline; ER and DRI undefined")
        return float("nan"), float("nan")
    with np.errstate(divide="ignore", invalid="ignore"):
        mi_o, mi_r = np.mean(oa - ob), np.mean(ra - rb)
        er = float(mi_r / mi_o) if mi_o != 0 else float("nan")
        ri_o = (np.mean(oa) - np.mean(ob)) / np.mean(ob)
        ri_r = (np.mean(ra) - np.mean(rb)) / np.mean(rb)
        dri = float(ri_o - ri_r)
    if mi_o == 0:
        notes.append(f"{label}: the original improvement over its baseline is 0; ER undefined")
    if np.mean(ob) == 0 or np.mean(rb) == 0:
        notes.append(f"{label}: a baseline's mean score is 0; its relative improvement, so DRI, undefined")
    return er, dri


def _replicability(q_a: Qrels, q_b: Qrels, orig: Run, rep: Run, scoring: Scoring, baseline_original: Any,
                   baseline_reproduced: Any) -> Reproduction:
    """The replicability statistics (module docstring): original runs scored on ``q_a``,
    replicated ones on ``q_b``; every value's ``qrels`` is ``"A+B"``."""
    res = Reproduction(notes=[*(f"qrels A: {n}" for n in q_a.notes), *(f"qrels B: {n}" for n in q_b.notes)],
                       mode="replicability")
    res.notes.append(NO_ORDER_NOTE)
    s_orig, s_rep, bases = _score_sets(q_a, q_b, orig, rep, baseline_original, baseline_reproduced, scoring.plan)
    sets: dict[str, tuple[list[str], list[str]]] = {}  # label -> (topics scored on A, on B)
    for label in s_orig:
        var, o = s_orig[label]
        var_b, r = s_rep[label]
        if var_b != var:  # the strings name conventions, not data: equal unless a data-dependent axis
            res.notes.append(f"{label}: variant on qrels B is {var_b}, on qrels A {var}; values carry A's")
        if not o or not r:
            res.notes.append(f"{label}: no topic evaluated for the {'original run (qrels A)' if not o else 'replicated run (qrels B)'}")
            continue
        ta, (ov,) = _aligned([o])
        tb, (rv,) = _aligned([r])
        res.unpaired[label] = ((ta, ov), (tb, rv))
        sets[label] = (ta, tb)
        t_stat, p_val = _unpaired_t(ov, rv)
        if p_val != p_val:
            res.notes.append(f"{label}: unpaired t-test undefined (too few topics, or no variance in either "
                             f"sample); t and p are NaN")
        res.values.append(ReproValue("t", label, "all", t_stat, var, UNPAIRED_ENGINE, QRELS_AB))
        res.values.append(ReproValue("p_value", label, "all", p_val, var, UNPAIRED_ENGINE, QRELS_AB))
        if bases is not None:
            ca, (oa, ob) = _aligned([o, bases[0][label][1]])
            cb, (ra, rb) = _aligned([r, bases[1][label][1]])
            for name, own, both in (("qrels A (original runs)", o, ca), ("qrels B (replicated runs)", r, cb)):
                if len(both) < len(own):
                    res.notes.append(f"{label}: {name}: {len(own) - len(both)} topic(s) of the advanced run "
                                     "lack a baseline score, left out of ER and DRI")
            er, dri = _er_dri((oa, ob), (ra, rb), label, res.notes)
            res.values.append(ReproValue("ER", label, "all", er, var, ENGINE, QRELS_AB))
            res.values.append(ReproValue("DRI", label, "all", dri, var, ENGINE, QRELS_AB))
    res.notes.extend(scoring.route_notes())
    res.notes.extend(unpaired_topic_notes(sets, (set(_topic_set(q_a)), set(_topic_set(q_b))), scoring))
    return res


# ----------------------------------------------------------------------------- topic sets
REFERENCE = "repro_eval 0.5.0"
REFERENCE_PROFILE = "repro_eval-0.5"
REFERENCE_TOPICS = (f"{REFERENCE} scores every qrels topic, a topic a run lacks as 0 "
                    f"(--profile {REFERENCE_PROFILE}, or --set topics=qrels, scores that set)")


@dataclass(frozen=True)
class Scoring:
    """How the scores are computed: the measures' conventions (``plan``), the profile's name as
    the notes spell it (``words``) and the profile's own convention (``base``)."""

    plan: MeasurePlan
    words: str
    base: Any

    def convention(self, label: str) -> Any:
        return next(c for c, ms in self.plan.groups if label in (str(m) for m in ms))

    def route_notes(self) -> list[str]:
        """A measure the profile's route table sends to axes with another ``depth`` (repro_eval
        cuts every run at 1000 before any provider; the routed providers' profiles read it all)."""
        out = []
        for conv, ms in self.plan.groups:
            if conv.depth != self.base.depth:
                out.append(f"{', '.join(str(m) for m in ms)}: scored under the profile's route for "
                           f"{'it' if len(ms) == 1 else 'them'}, with depth={conv.depth}, not the profile's "
                           f"depth={self.base.depth}")
        return out


def _profile_words(profile: Any, settings: list[str] | None) -> str:
    name = profile if isinstance(profile, str) else getattr(profile, "name", "the given convention")
    return str(name) + (f" with {', '.join(settings)}" if settings else "")


def _topic_set(x: Qrels | Run) -> list[str]:
    """Distinct topic ids (a run's empty topics included), in byte order."""
    got = set(pc.unique(x.table.column("topic")).to_pylist()) | set(getattr(x, "empty_topics", ()))
    return sorted(got, key=lambda t: t.encode("utf-8"))


def few(topics: Any, n: int = 5) -> str:
    """``3 topic(s): '1', '2', '7'`` (the first ``n`` in byte order, then ``...``)."""
    ts = sorted(topics, key=lambda t: t.encode("utf-8"))
    shown = ", ".join(repr(t) for t in ts[:n]) + (", ..." if len(ts) > n else "")
    return f"{len(ts)} topic(s)" + (f": {shown}" if ts else "")


def check_topics(q: Qrels, orig: Run, rep: Run) -> None:
    """Reproducibility needs a topic both runs rank and the qrels judge; otherwise an error
    naming the three topic sets (nothing could be paired: not an empty table)."""
    to, tr, tq = set(_topic_set(orig)), set(_topic_set(rep)), set(_topic_set(q))
    if not to & tr:
        raise AuditEvalError(f"{orig.source} and {rep.source} rank no topic in common (original: {few(to)}; "
                             f"re-run: {few(tr)}): nothing to compare")
    if not to & tr & tq:
        raise AuditEvalError(f"{q.source} judges none of the {len(to & tr)} topic(s) both runs rank "
                             f"(both runs: {few(to & tr)}; qrels: {few(tq)}): nothing to compare")


def check_topics_replicability(q_a: Qrels, q_b: Qrels, orig: Run, rep: Run) -> None:
    """Replicability needs the original run to rank a topic of qrels A and the re-run one of
    qrels B; otherwise an error naming both topic sets."""
    for what, qr, run, flag in (("qrels A", q_a, orig, "--qrels"), ("qrels B", q_b, rep, "--qrels-b")):
        tq, tr = set(_topic_set(qr)), set(_topic_set(run))
        if not tq & tr:
            raise AuditEvalError(f"{flag} {qr.source} ({what}) judges none of the topics {run.source} ranks "
                                 f"({what}: {few(tq)}; {run.source}: {few(tr)}): nothing to score")


def paired_topic_notes(sets: dict[str, tuple[list[str], list[str] | None]], qrels_topics: set[str],
                       scoring: Scoring) -> list[str]:
    """Which topics RMSE, nRMSE, the t-test (and ER, DRI) were computed over, when that is not
    every qrels topic and the measure's convention does not score every qrels topic: one note
    per distinct topic set, saying that repro_eval scores another."""
    groups: dict[tuple, list[str]] = {}
    for label, (paired, four) in sets.items():
        if scoring.convention(label).topics == "qrels":
            continue
        if set(paired) != qrels_topics or (four is not None and set(four) != qrels_topics):
            groups.setdefault((tuple(paired), tuple(four) if four is not None else None), []).append(label)
    out = []
    for (paired, four), labels in groups.items():
        topics = {scoring.convention(x).topics for x in labels}
        text = (f"{', '.join(labels)}: RMSE, nRMSE and the t-test over the {len(paired)} topic(s) scored for both "
                f"runs under {scoring.words} (topics={'/'.join(sorted(topics))})" + _against(set(paired), qrels_topics))
        if four is not None and set(four) != set(paired):
            text += f"; ER and DRI over the {len(four)} scored for all four runs" + _against(set(four), qrels_topics)
        out.append(f"{text}; {REFERENCE_TOPICS}")
    return out


def unpaired_topic_notes(sets: dict[str, tuple[list[str], list[str]]], qrels_topics: tuple[set[str], set[str]],
                         scoring: Scoring) -> list[str]:
    """Replicability: the topics of each collection the statistics were computed over, when not
    every topic of that qrels (and the convention does not score every qrels topic)."""
    groups: dict[tuple, list[str]] = {}
    for label, (ta, tb) in sets.items():
        if scoring.convention(label).topics == "qrels":
            continue
        if set(ta) != qrels_topics[0] or set(tb) != qrels_topics[1]:
            groups.setdefault((tuple(ta), tuple(tb)), []).append(label)
    out = []
    for (ta, tb), labels in groups.items():
        topics = {scoring.convention(x).topics for x in labels}
        out.append(f"{', '.join(labels)}: scored under {scoring.words} (topics={'/'.join(sorted(topics))}) over "
                   f"{len(ta)} topic(s) of qrels A" + _against(set(ta), qrels_topics[0]) + f" and {len(tb)} of "
                   f"qrels B" + _against(set(tb), qrels_topics[1]) + f"; {REFERENCE_TOPICS}")
    return out


def _against(scored: set[str], qrels_topics: set[str]) -> str:
    """``, of the 50 qrels topic(s) (left out: 3 topic(s): ...; scored without judgments: ...)``."""
    parts = []
    if qrels_topics - scored:
        parts.append(f"left out: {few(qrels_topics - scored)}")
    if scored - qrels_topics:
        parts.append(f"scored without judgments: {few(scored - qrels_topics)}")
    return f", of the {len(qrels_topics)} qrels topic(s)" + (f" ({'; '.join(parts)})" if parts else "")
