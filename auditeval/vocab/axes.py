"""The convention axes and the :class:`Convention` record: every setting that can move an
evaluation number, one value per axis.

A :class:`Convention` holds one value for every axis in :data:`AXES`; nothing has a default
in code. The axis table below is the single home of what each value means and which tool uses
it; ``auditeval conventions list`` prints it. Sources are in ``../shared/docs/conventions.md``.
Profiles (named conventions, ``conventions/*.toml``) and ``--set`` overrides are read by
:mod:`auditeval.vocab.conventions`, which re-exports these names; the measure spec table
(:mod:`auditeval.vocab.specs`) reads the axes from here, below the profiles, whose ``[route]``
tables name measures.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any

from auditeval.vocab.errors import ConventionError


@dataclass(frozen=True)
class Axis:
    """One convention axis: its values (or value kind) and what each mirrors."""

    name: str
    doc: str
    values: dict[str, str]  # value -> which tools/flags use it (empty for numeric axes)
    kind: str = "enum"  # enum | int | float | int-or-all
    bounds: tuple[float, float] | None = None  # open interval a float value a user writes must lie in

    def parse(self, text: Any, bounded: bool = True) -> Any:
        """Parse and validate a value given as text (or as a TOML scalar). ``bounded=False``
        skips :attr:`bounds` (a float stays finite): the bounds guard what a user writes (a
        profile, ``--set``, the measure syntax), not where the formula is defined."""
        if self.kind == "enum":
            value = str(text)
            if value not in self.values:
                raise ConventionError(
                    f"axis {self.name!r} has no value {value!r}; choose one of: {', '.join(self.values)}"
                )
            return value
        if self.kind == "int-or-all":
            if str(text) == "all":
                return "all"
            value = _as_int(self.name, text)
            if value < 0:  # 0: no document evaluated (trec_eval -M 0, as -M abc)
                raise ConventionError(f"axis {self.name!r} must be a non-negative integer or 'all', got {text!r}")
            return value
        if self.kind == "int":
            return _as_int(self.name, text)
        if self.kind == "float":
            try:
                value = float(text)
            except (TypeError, ValueError):
                raise ConventionError(f"axis {self.name!r} needs a number, got {text!r}") from None
            if not math.isfinite(value):
                raise ConventionError(f"axis {self.name!r} needs a finite number, got {text!r}")
            if bounded and self.bounds is not None and not self.bounds[0] < value < self.bounds[1]:
                lo, hi = self.bounds
                raise ConventionError(
                    f"axis {self.name!r} must be greater than {lo:g}"
                    + (f" and less than {hi:g}" if math.isfinite(hi) else "")
                    + f", got {text!r}"
                )
            return value
        raise AssertionError(self.kind)  # pragma: no cover

    def format(self, value: Any) -> str:
        """Canonical text of a value (``parse(format(v)) == v``)."""
        if self.kind == "float":
            return repr(float(value))
        return str(value)


def _as_int(name: str, text: Any) -> int:
    if isinstance(text, bool):
        raise ConventionError(f"axis {name!r} needs an integer, got {text!r}")
    if isinstance(text, int):
        return text
    try:
        return int(str(text), 10)
    except ValueError:
        raise ConventionError(f"axis {name!r} needs an integer, got {text!r}") from None


AXES: dict[str, Axis] = {
    a.name: a
    for a in [
        Axis(
            "ties",
            "order of documents with equal scores",
            {
                "docno-desc": "score desc, then docno descending as byte strings: trec_eval (form_res_rels.c comp_sim_docno), pytrec_eval, gdeval",
                "docno-asc": "score desc, then docno ascending: ir_measures msmarco/judged providers, MS MARCO eval script, pyndeval (sorted by (-score, doc id)), much paper code",
                "docno-asc-numeric": "score desc, then docno ascending as numbers where numeric: seed code with integer ids",
                "rank": "the rank column (ascending), ignoring scores: TREC submissions read literally",
                "file-order": "score desc, ties in input order (stable sort): cwl_eval, trectools NDCG, ranx small ties",
            },
        ),
        Axis(
            "sim",
            "precision scores are stored in before sorting",
            {
                "float32": "C float: trec_eval tag v9.0.8, pytrec_eval-terrier (scores equal in ~7 digits tie)",
                "float64": "double: trec_eval 9.0.8 (2023 build) and 10.0, Python tools",
            },
        ),
        Axis(
            "topics",
            "which topics are evaluated and averaged",
            {
                "both": "topics in both run and qrels: trec_eval 9 default, pytrec_eval",
                "qrels": "every qrels topic, one missing from the run scored as the absent axis says: trec_eval -c, ir_measures, ranx make_comparable",
                "strict": "every qrels topic; a qrels topic missing from the run is an error: trec_eval 10 default",
                "run": "every run topic, topics without qrels score 0: trectools",
            },
        ),
        Axis(
            "absent",
            "how a qrels topic missing from the run is scored under topics=qrels (read by the measures "
            "whose value there can differ from 0: yaap, Utility, IPrec, 11pt, relstring, RBPResid, RnDCG, Accuracy)",
            {
                "zero": "every measure 0 (the topic adds nothing to the sum; a geometric mean counts gm_floor): "
                "trec_eval 9.0.8 -c (trec_eval.c:362-367 loops over run topics only; meas_avg.c:37-42 divides by "
                "num_q_rels, meas_avg.c:73-85 adds log(MIN_GEO_MEAN) per missing topic), pytrec_eval, "
                "ir_measures (providers/base.py:22-27 fills measure.DEFAULT = 0)",
                "empty": "measured on an empty ranking, as a run that retrieved nothing: yaap = log(1/(1+R)), "
                "Utility = c R + d (num_docs - R), IPrec at a zero cut-off 0/0 = NaN, Accuracy undefined: "
                "ranx make_comparable (adds an empty ranking per missing qrels topic)",
                "bogus": "trec_eval 10.0 -c: measured on a one-document ranking, ceci_nest_pas_un_docno (score 1, "
                "not in the qrels; trec_eval.c:154-156, 383-387), then the values named num_ret, utility, "
                "rbp_resid, relstring and unj* reset (trec_eval.c:416-430): NumRet, Unj@k, RBPResid, Utility "
                "without parameters 0 and relstring without a cut-off ''; otherwise as a ranking of one "
                "unjudged document (IPrec 0 where empty is 0/0; Utility(b=..) counts it: b + c R + "
                "d (num_docs - 1 - R)), the empty ranking when unjudged=drop or depth=0 removes it",
            },
        ),
        Axis(
            "unjudged",
            "documents absent from the qrels",
            {
                "nonrel": "count as non-relevant: every tool's default",
                "drop": "removed from the ranking before measuring (ranks close up): trec_eval -J, judged_only=True",
            },
        ),
        Axis(
            "negatives",
            "qrels entries with a negative grade",
            {
                "pooled": "pooled but unjudged: never relevant, not judged for bpref, dropped by -J, unjudged for unj: trec_eval, pytrec_eval",
                "nonrel": "judged non-relevant (grade 0): ranx, ir_measures Judged, cwl_eval",
            },
        ),
        Axis("rel", "minimum grade that counts as relevant (trec_eval -l, ir_measures rel=); below 0, trec_eval's "
             "reading of its lists (form_res_rels.c: -1 a document outside the qrels, -2 one of negative grade): "
             "from -1 a retrieved document outside the qrels counts as relevant, from -2 one of negative grade too, "
             "while R and num_rel_ret count judged documents only", {}, kind="int"),
        Axis("depth", "documents kept per topic after sorting (trec_eval -M); 'all' keeps every one", {}, kind="int-or-all"),
        Axis(
            "dups",
            "the same document twice for one topic (run or qrels)",
            {
                "error": "refuse the input: trec_eval (exit 4 'duplicate docs'), pytrec_eval parsers",
                "first": "keep the first line, drop later ones (counted and reported)",
                "last": "keep the last line: ir_measures, ranx and every dict-based loader",
            },
        ),
        Axis(
            "iprec",
            "how recall level r becomes a count of relevant documents for interpolated precision",
            {
                "ceil": "textbook: max precision at any rank with recall >= r",
                "trunc09": "(long)(r*R + 0.9): trec_eval <= 9.0.8, pytrec_eval, ranx (m_iprec_at_recall.c:65)",
                "lround": "lround(r*R): trec_eval 10.0 (m_iprec_at_recall.c:71)",
            },
        ),
        Axis("gm_floor", "floor applied to each value before the geometric mean (trec_eval MIN_GEO_MEAN)", {}, kind="float", bounds=(0.0, math.inf)),
        Axis(
            "gain",
            "nDCG gain of a graded document",
            {
                "linear": "gain = grade (Jarvelin-Kekalainen): trec_eval ndcg, pytrec_eval, ranx ndcg",
                "exp2": "gain = 2^grade - 1 (Burges): gdeval, ranx ndcg_burges, ir_measures dcg='exp-log2'",
            },
        ),
        Axis(
            "ideal_sort",
            "how the gain levels of the ideal ranking are ordered (matters only with custom gains)",
            {
                "exact": "by gain, exactly: the textbook ideal ranking, ranx, gdeval",
                "trec-int": "qsort with the int-truncating comparator (int)(gain1 - gain2): gains less than 1 apart "
                "count as equal and stay in input order, so -m ndcg.1=0.5,2=0.8,3=0.9 has ideal DCG 0: "
                "trec_eval 9.0.8 (m_ndcg.c comp_rel_gain) and 10.0 (gain_init.c:90-93), pytrec_eval",
            },
        ),
        Axis(
            "recall_denom",
            "denominator of Recall@k",
            {
                "R": "all relevant documents: trec_eval recall_k, ranx recall",
                "min-R-k": "capped recall min(R, k): BEIR R_cap, some papers",
            },
        ),
        Axis(
            "ap_denom",
            "denominator of AP and AP@k",
            {
                "R": "all relevant documents: trec_eval map/map_cut, pytrec_eval, ranx",
                "min-R-k": "min(R, k): 'MAP@k' in recommender and Kaggle code",
                "rel-ret": "relevant documents retrieved (within depth): cwl_eval APCWLMetric",
            },
        ),
        Axis(
            "rbp_gain",
            "RBP gain of a graded document",
            {
                "minmax": "grade rescaled to [0,1] per topic when grades exceed 1: trec_eval 10 m_rbp.c",
                "raw": "raw grade (can exceed 1): ranx rbp, trectools binary_topical_relevance=False",
                "binary": "1 if grade >= rel else 0: ir_measures RBP(rel=..), cwl_eval, trectools default",
            },
        ),
        Axis(
            "rbp_resid",
            "when the RBP residual is reported",
            {
                "always": "p^n + (1-p) * sum of p^(i-1) over unjudged ranks i, for every topic (Moffat & Zobel 2008)",
                "if-unjudged": "only when the ranking holds an unjudged document, else 0 (a fully judged ranking gets 0, "
                "not p^n): trec_eval 10 m_rbp_resid.c:81-83",
            },
        ),
        # (0, 1) bounds what a user writes; m_rbp.c's (1 - p) sum gain p^(rank-1) is defined for every
        # finite p, and trec_eval 10 computes it (rbp.p=1.5: exit 0): a measure built in code with
        # p= outside, as the drop-in builds -m rbp.p=1.5, folds past the bounds (variant.fold)
        Axis("rbp_p", "default RBP persistence p (0.9 trec_eval 10; 0.8 ir_measures, trectools)", {}, kind="float", bounds=(0.0, 1.0)),
        Axis(
            "judged_denom",
            "denominator of Judged@k / unj@k",
            {
                "k": "k, even when fewer documents were retrieved: trec_eval 10 unj_k, trectools",
                "min-k-ret": "min(k, documents retrieved): ir_measures Judged@k",
            },
        ),
        Axis(
            "self_hits",
            "documents whose id equals the topic id",
            {
                "keep": "evaluated like any other document: trec_eval, ir_measures, ranx",
                "drop": "removed before measuring: BEIR ignore_identical_ids=True (default there)",
            },
        ),
    ]
}

AXIS_ORDER: tuple[str, ...] = tuple(sorted(AXES))


@dataclass(frozen=True)
class Convention:
    """A full set of axis values. Build one with :func:`~auditeval.vocab.conventions.load_profile` or :meth:`replace`."""

    ties: str
    sim: str
    topics: str
    unjudged: str
    negatives: str
    rel: int
    depth: int | str
    dups: str
    iprec: str
    gm_floor: float
    gain: str
    ideal_sort: str
    recall_denom: str
    ap_denom: str
    rbp_gain: str
    rbp_p: float
    rbp_resid: str
    judged_denom: str
    self_hits: str
    absent: str

    def __post_init__(self) -> None:
        for f in fields(self):
            AXES[f.name].parse(getattr(self, f.name))

    @classmethod
    def _unchecked(cls, values: dict[str, Any]) -> Convention:
        """A convention from ``values`` (every axis, each already parsed by its :class:`Axis`)
        without validating them again: :meth:`replace` and the sweep's grid build one per
        variant from a valid convention and parsed values, and the 20 checks of
        ``__post_init__`` were a third of a sweep's per-variant cost."""
        obj = object.__new__(cls)
        obj.__dict__.update(values)
        return obj

    def __hash__(self) -> int:
        """The hash of the axis values, computed once per object: conventions key the stage
        caches of :class:`~auditeval.engine.StagedRun`, looked up several times per variant.
        The cached number is process-local (string hashes are salted per process), so it is
        never pickled (:meth:`__getstate__`)."""
        h = self.__dict__.get("_hash")
        if h is None:
            h = hash(tuple(self.__dict__[name] for name in _FIELD_NAMES))
            object.__setattr__(self, "_hash", h)
        return h

    def __getstate__(self) -> dict[str, Any]:
        return {name: self.__dict__[name] for name in _FIELD_NAMES}

    @classmethod
    def from_mapping(cls, values: dict[str, Any], where: str = "convention") -> Convention:
        unknown = set(values) - set(AXES)
        if unknown:
            raise ConventionError(f"{where}: unknown axis {sorted(unknown)[0]!r}; axes are: {', '.join(AXIS_ORDER)}")
        missing = set(AXES) - set(values)
        if missing:
            raise ConventionError(f"{where}: no value for axis {sorted(missing)[0]!r} (every axis must be named)")
        try:
            return cls(**{k: AXES[k].parse(v) for k, v in values.items()})
        except ConventionError as exc:
            raise ConventionError(f"{where}: {exc}") from None

    def as_dict(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in AXIS_ORDER}

    def replace(self, bounded: bool = True, **changes: Any) -> Convention:
        """This convention with ``changes`` (axis -> value, each parsed by its :class:`Axis`;
        ``bounded=False``: past the axes' bounds, see :meth:`Axis.parse`)."""
        values = self.as_dict()
        for k, v in changes.items():
            if k not in AXES:
                raise ConventionError(f"unknown axis {k!r}; axes are: {', '.join(AXIS_ORDER)}")
            values[k] = AXES[k].parse(v, bounded)
        return Convention._unchecked(values)  # self is valid, the changes parsed above

    def with_settings(self, settings: list[str] | tuple[str, ...] | None) -> Convention:
        """Apply ``AXIS=VALUE`` overrides (the ``--set`` option)."""
        changes: dict[str, Any] = {}
        for s in settings or ():
            if "=" not in s:
                raise ConventionError(f"--set needs AXIS=VALUE, got {s!r}")
            k, v = s.split("=", 1)
            changes[k.strip()] = v.strip()
        return self.replace(**changes)


_FIELD_NAMES: tuple[str, ...] = tuple(f.name for f in fields(Convention))


# The measure parameters that are conventions: parameter -> (axis, value mapping or None for
# identity). ``AP(rel=2)`` is AP under rel=2 (:func:`auditeval.vocab.variant.fold`); the names'
# hints (:mod:`auditeval.vocab.names`) and the variant grammar both read it.
FOLDED: dict[str, tuple[str, dict[Any, str] | None]] = {
    "rel": ("rel", None),
    "judged_only": ("unjudged", {True: "drop", False: "nonrel"}),
    "p": ("rbp_p", None),
    "dcg": ("gain", {"log2": "linear", "exp-log2": "exp2"}),  # ir_measures nDCG(dcg='exp-log2')
}
