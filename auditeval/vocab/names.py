"""ir_measures spellings of the measures auditeval computes, and hints for wrong ones.

:func:`normalize` maps a parsed ir_measures spelling onto auditeval's measure table:

* aliases: ``MAP`` -> ``AP``, ``MRR`` -> ``RR``, ``NDCG`` -> ``nDCG``, ``BPref`` -> ``Bpref``,
  ``RPrec`` -> ``Rprec``, ``Precision`` -> ``P``, ``Recall`` -> ``R``, ``α_nDCG`` -> ``alpha_nDCG``,
  ``α_DCG`` -> ``alpha_DCG``, ``MAP_IA`` -> ``AP_IA`` (ir_measures/measures);
* the cut-off given as a parameter: ``P(cutoff=10)`` -> ``P@10``, ``IPrec(recall=0.25)`` ->
  ``IPrec@0.25`` (ir_measures' ``AT_PARAM``);
* ``SetP(relative=True)`` -> ``SetRelP`` (ir_measures' SetRelP), ``NumRet(rel=k)`` ->
  ``NumRelRet(rel=k)`` (ir_measures counts relevant retrieved under NumRet with rel=);
* ``SetP(relative=False)`` is ``SetP``.

``nDCG(dcg=...)`` keeps its parameter, which folds into the ``gain`` axis (``'exp-log2'`` ->
``gain=exp2``, ``'log2'`` -> ``gain=linear``; :data:`auditeval.vocab.axes.FOLDED`), as ``rel=``
and ``judged_only=`` do.

:func:`syntax_hint` and :func:`unknown_hint` turn a failed parse into a pointer to the right
spelling (``nDCG@10(judged_only)`` -> ``nDCG(judged_only=True)@10``).
"""

from __future__ import annotations

import re
from collections.abc import Collection, Mapping
from typing import Any

from auditeval.vocab.axes import AXES, FOLDED
from auditeval.vocab.measure import Measure

ALIASES = {"MAP": "AP", "MRR": "RR", "NDCG": "nDCG", "BPref": "Bpref", "RPrec": "Rprec", "Precision": "P", "Recall": "R",
           "α_nDCG": "alpha_nDCG", "α_DCG": "alpha_DCG",  # ir_measures measures/diversity.py registers these
           "MAP_IA": "AP_IA"}
CUTOFF_PARAMS = ("cutoff", "recall")  # ir_measures' AT_PARAM names
# auditeval measures ir_measures names otherwise: auditeval name -> (ir_measures name, the parameter
# that selects it); read both ways (normalize, and the ir_measures adapter's spellings)
IR_MEASURES_SPELLING = {"SetRelP": ("SetP", ("relative", True))}

# ranx 0.3 metric names (ranx/metrics/__init__.py metric_switch): ranx name -> (auditeval name, the
# gain axis value it implies, or None). Read by the ranx adapter (auditeval -> ranx) and by
# unknown_hint (a ranx name given where auditeval's is expected). ranx's ``-lN`` suffix is the rel axis.
RANX_NAMES: dict[str, tuple[str, str | None]] = {
    "map": ("AP", None), "precision": ("P", None), "recall": ("R", None), "mrr": ("RR", None),
    "bpref": ("Bpref", None), "r-precision": ("Rprec", None), "hit_rate": ("Success", None),
    "ndcg": ("nDCG", "linear"), "ndcg_burges": ("nDCG", "exp2"),
    "dcg": ("DCG", "linear"), "dcg_burges": ("DCG", "exp2"), "hits": ("Hits", None),
}
_DCG_PARAM = {"linear": "", "exp2": "(dcg='exp-log2')"}  # the gain as ir_measures' nDCG(dcg=) spells it

def normalize(m: Measure) -> Measure:
    """An ir_measures spelling of a measure as auditeval's (see the module docstring)."""
    name = ALIASES.get(m.name, m.name)
    params = dict(m.params)
    cutoff = m.cutoff
    for key in CUTOFF_PARAMS:
        if key in params and cutoff is None and isinstance(params[key], int | float) and not isinstance(params[key], bool):
            cutoff = params.pop(key)
    for ours, (theirs, (key, value)) in IR_MEASURES_SPELLING.items():
        if name == theirs and params.get(key) is value:
            params.pop(key)
            name = ours
    if name == "SetP" and params.get("relative") is False:  # SetP(relative=False) is SetP
        params.pop("relative")
    if name == "NumRet" and "rel" in params:
        name = "NumRelRet"
    if (name, tuple(sorted(params.items())), cutoff) == (m.name, m.params, m.cutoff):
        return m
    return Measure(name, tuple(sorted(params.items())), cutoff)


_AT_THEN_PARAMS = re.compile(r"^(?P<name>[^@(]+)@(?P<k>[0-9.]+)\((?P<params>[^)]*)\)$")


def _split_outside(text: str, is_sep) -> list[str]:
    """``text`` split where ``is_sep(ch)`` holds outside quotes, parentheses and braces."""
    parts, cur, depth, quote = [], [], 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch in "({":
            depth += 1
        elif ch in ")}":
            depth -= 1
        elif depth <= 0 and is_sep(ch):
            parts.append("".join(cur))
            cur = []
            continue
        cur.append(ch)
    parts.append("".join(cur))
    return parts


def _top_level(params: str) -> list[str]:
    """``params`` split at commas outside braces and quotes."""
    return [p.strip() for p in _split_outside(params, lambda ch: ch == ",") if p.strip()]


_FLAG = re.compile(r"^[A-Za-z_]\w*$")


def _with_values(params: str) -> str:
    """``judged_only`` -> ``judged_only=True`` (a bare parameter name reads as a flag)."""
    return ",".join(f"{p}=True" if _FLAG.match(p) else p for p in _top_level(params))


def syntax_hint(text: str) -> str | None:
    """The right spelling for a common slip, or None."""
    from auditeval.vocab.measure import parse_syntax

    t = text.strip()
    m = _AT_THEN_PARAMS.match(t)
    if m:
        return f"parameters come before the cut-off: {m['name']}({_with_values(m['params'])})@{m['k']}"
    m = re.match(r"^(?P<name>[^@(]+)\((?P<params>.*)\)(?P<rest>@[0-9.]+)?$", t)
    if m and any(_FLAG.match(p) for p in _top_level(m["params"])):
        return f"every parameter needs a value: {m['name']}({_with_values(m['params'])}){m['rest'] or ''}"
    bare = re.search(r"[(,]\s*(?P<key>[A-Za-z_]\w*)\s*=\s*(?P<value>[A-Za-z_][\w.-]*)\s*[,)]", t)
    if bare and bare["value"] not in ("True", "False"):
        if bare["key"] in FOLDED:  # rel=x, p=x: the parser's own "expected a number" says it
            return None

        head = re.match(r"^(?P<name>[^@(]+)\(.*\)(?:@(?P<k>[0-9.]+))?$", t)
        m = Measure(head["name"], (), _number(head["k"])) if head else None
        return axis_hint(bare["key"], bare["value"], m).removeprefix("; ") or (
            f"text values need quotes: {bare['key']}={bare['value']!r}"
        )
    tokens = t.split()
    if len(tokens) > 1:
        try:
            for tok in tokens:
                parse_syntax(tok)
        except ValueError:
            return None
        return "one measure per name here; give a list in Python, or several per -m on the command line ('nDCG@10 P@10')"
    return None


def axis_hint(key: str, value: Any, m: Measure | None) -> str:
    """``; 'gain' is a convention axis ...`` when a measure parameter names an axis, else ''."""
    if key not in AXES:
        return ""
    shown = value if isinstance(value, str) else repr(value)
    extra = ""
    if key == "gain" and m is not None and m.name == "nDCG":
        dcg = {"exp2": "exp-log2", "linear": "log2"}.get(str(value), "exp-log2")
        extra = f", or nDCG(dcg={dcg!r}){'' if m.cutoff is None else '@' + str(m.cutoff)} (ir_measures' spelling)"
    return f"; {key!r} is a convention axis, not a measure parameter: set it with --set {key}={shown}{extra}"


def _number(text: str | None) -> int | float | None:
    if text is None:
        return None
    return int(text) if text.isdigit() else float(text)


def unknown_hint(m: Measure, known: Collection[str], trec_aliases: Mapping[str, tuple] | None = None) -> str | None:
    """Why an unknown name is unknown, or the spelling meant, or None."""
    rest = str(Measure("X", m.params, m.cutoff))[1:]
    if m.name in RANX_NAMES and not m.params and m.name not in known:
        ours, gain = RANX_NAMES[m.name]
        at = "" if m.cutoff is None else f"@{m.cutoff}"
        return f"{m.name!r} is ranx's name for {ours}: did you mean {ours + _DCG_PARAM.get(gain or '', '') + at!r}?"
    for cand in known:
        if cand.lower() == m.name.lower():
            return f"did you mean {cand + rest!r}?"
    for alias, canonical in ALIASES.items():
        if alias.lower() == m.name.lower():
            return f"did you mean {canonical + rest!r}?"
    lowered = {a.lower(): (a, v[0]) for a, v in (trec_aliases or {}).items()}
    if m.name.lower() in lowered:
        trec, canonical = lowered[m.name.lower()]
        return f"{trec!r} is trec_eval's name for {canonical}: did you mean {canonical + rest!r}?"
    cut = re.match(r"^(?P<base>.+?)[_.](?P<arg>\d+(?:\.\d*)?)$", m.name)  # Ndcg_Cut_10
    if cut and cut["base"].lower() in lowered and cut["base"] not in (trec_aliases or {}) and not m.params and m.cutoff is None:
        trec, canonical = lowered[cut["base"].lower()]
        kind = (trec_aliases or {})[trec][1]
        if kind is None or (kind == "int" and not cut["arg"].isdigit()):
            return None
        return f"{trec!r} is trec_eval's name for {canonical}: did you mean {canonical + '@' + cut['arg']!r} (or {trec}_{cut['arg']})?"
    bare = re.match(r"^([A-Za-z]+?)(\d+)$", m.name)  # P10 -> P@10
    if bare and bare.group(1) in known and m.cutoff is None:
        return f"did you mean {bare.group(1) + '@' + bare.group(2)!r}?"
    return None


# trec_eval's default parameters of its cut-off families, what ``-m P`` or ``-m ndcg_cut`` (no
# parameters) computes: measures.c te_trec_measures[] (long_cutoff_array, float_cutoff_array;
# unj is trec_eval 10.0's). The trec_eval drop-in's table (auditeval.trec_eval.catalog, above this
# layer) holds the same values; tests/engine/test_dcg_and_counts_at_cutoff.py checks that they agree.
_LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
TREC_FAMILY_DEFAULTS: dict[str, tuple[int, ...] | tuple[float, ...]] = {
    "P": _LONG_CUTS, "recall": _LONG_CUTS, "ndcg_cut": _LONG_CUTS, "map_cut": _LONG_CUTS,
    "relative_P": _LONG_CUTS, "success": (1, 5, 10), "unj": (5, 10, 20),
    "iprec_at_recall": (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0),
    "Rprec_mult": (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0),
}


def split_measures(text: str) -> list[str]:
    """Measure names in one argument: separated by spaces outside parentheses, braces and
    quotes (``'nDCG@10 P(rel=2)@5'``); a trec_eval name with several cut-offs
    (``ndcg_cut.5,10``, ``iprec_at_recall..10,.25``) becomes one name per cut-off, and a bare
    trec_eval cut-off family (``P``, ``ndcg_cut``, ``iprec_at_recall``) one name per default
    cut-off of the trec_eval drop-in (:data:`TREC_FAMILY_DEFAULTS`: ``P`` -> ``P.5``, ``P.10``,
    ..., ``P.1000``, as ``trec_eval -m P`` prints P_5 ... P_1000). Every reader of measure lists
    goes through here (:func:`auditeval.vocab.variant.parse_measures`; the command line's ``-m``)."""
    from auditeval.vocab.specs import TREC_ALIASES

    tokens = [t for t in _split_outside(text, str.isspace) if t]
    out = []
    for tok in tokens:
        base, dot, params = tok.partition(".")
        kind = TREC_ALIASES.get(base, (None, None))[1]
        if dot and kind is not None and "," in params and "(" not in tok:
            out.extend(f"{base}.{p}" for p in params.split(","))
        elif tok in TREC_FAMILY_DEFAULTS and TREC_ALIASES.get(tok, (None, None))[1] is not None:
            float_kind = TREC_ALIASES[tok][1] == "float"
            out.extend(f"{tok}.{c:.2f}" if float_kind else f"{tok}.{c}" for c in TREC_FAMILY_DEFAULTS[tok])
        else:
            out.append(tok)
    return out


# trec_eval's preference measures (-R prefs / qrels_prefs, m_prefs_*.c) and judgment-group
# measures (-R qrels_jg, m_*_avgjg.c), in its te_trec_measures[] order (measures.c:151-167).
TREC_PREFS_MEASURES = (
    "prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp", "prefs_pair",
    "prefs_avgjg", "prefs_avgjg_Rnonrel", "prefs_simp_ret", "prefs_pair_ret", "prefs_avgjg_ret",
    "prefs_avgjg_Rnonrel_ret", "prefs_simp_imp", "prefs_pair_imp", "prefs_avgjg_imp",
)
TREC_JG_MEASURES = ("map_avgjg", "P_avgjg", "Rprec_mult_avgjg")
