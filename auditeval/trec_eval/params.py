"""trec_eval's ``-m NAME[.PARAMS]`` syntax -> printed names and auditeval measures.

trec_eval (trec_eval.c ``mark_measure``) splits ``-m`` at the first ``.``: the left part
is a measure or nickname, the right part a parameter string remembered per measure name
(the first ``-m`` naming a measure wins; ``-m P.5 -m all_trec`` prints ``P_5`` only).
The string is read at initialisation (meas_init.c) according to the measure's kind:

* long cut-offs ``P.5,7,3``: ``str_to_long`` each, sorted ascending, printed ``P_3 P_5 P_7``;
  a cut-off <= 0 -> "Negative cutoff detected", a repeat -> "duplicate cutoffs detected";
* float cut-offs ``iprec_at_recall..10,.25``, ``Rprec_mult.0.2,0.35``: ``atof`` each, sorted,
  printed ``%3.2f`` (``iprec_at_recall_0.10``);
* float parameters ``utility.2,-1,0,0``: one value printed ``utility_2,-1,0,0`` (params as typed);
* pairs ``ndcg.1=3,2=9``, ``rbp.p=0.8``: one value printed ``ndcg_1=3,2=9``; a malformed list
  -> "malformed pair parameters in '...'" (meas_init.c ``get_param_pairs``).

Each printed value becomes one auditeval :class:`~auditeval.vocab.measure.Measure`; parameters
equal to trec_eval's defaults are left out so the measure (and its variant string) is the
plain one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from auditeval.io import c_atof, c_atol
from auditeval.trec_eval.catalog import Spec
from auditeval.vocab.measure import Measure


class ParamError(Exception):
    """A parameter string trec_eval refuses at initialisation (exit 2).

    ``lines`` are the messages trec_eval prints before "Cannot initialize measure".
    """

    def __init__(self, lines: list[str]):
        super().__init__("\n".join(lines))
        self.lines = lines


@dataclass(frozen=True)
class Instance:
    """One printed value: trec_eval name (``P_5``), its table entry, the auditeval measure."""

    name: str
    spec: Spec
    measure: Measure | None  # None for runid


def _split(param: str) -> list[str]:
    return param.split(",")


def _fmt_double(x: float) -> str:
    return f"{x:3.2f}"


_LONG_MIN, _LONG_MAX = -(2**63), 2**63 - 1


def _atol(text: str) -> int:
    """C ``atol`` as glibc's ``strtol``: saturated at the long range (``P.99999999999999999999``
    is ``P_9223372036854775807``)."""
    return min(max(c_atol(text), _LONG_MIN), _LONG_MAX)


def instances(spec: Spec, param: str | None, ten: bool = False) -> list[Instance]:
    """The values ``spec`` prints given its ``-m`` parameter string (None = defaults);
    ``ten``: trec_eval 10.0's reading of gain pairs (:func:`parse_pairs`)."""
    kind = spec.params
    if spec.name == "runid":
        return [Instance("runid", spec, None)]
    if kind == "none" or (param is None and kind in ("pairs", "double_params")):
        return [Instance(spec.name, spec, Measure(spec.canonical))]
    if kind == "long_cut":
        cuts = list(spec.default) if param is None else [_atol(s) for s in _split(param)]
        cuts.sort()
        if cuts[0] <= 0:
            raise ParamError(["trec_eval: Negative cutoff detected"])
        if any(a == b for a, b in zip(cuts, cuts[1:], strict=False)):
            raise ParamError(["trec_eval: duplicate cutoffs detected"])
        return [Instance(f"{spec.name}_{k}", spec, Measure(spec.canonical, (), int(k))) for k in cuts]
    if kind == "double_cut":
        cuts = list(spec.default) if param is None else [c_atof(s) for s in _split(param)]
        cuts.sort()
        if any(a == b for a, b in zip(cuts, cuts[1:], strict=False)):
            raise ParamError(["trec_eval: duplicate cutoffs detected"])
        return [Instance(f"{spec.name}_{_fmt_double(x)}", spec, Measure(spec.canonical, (), float(x))) for x in cuts]
    assert param is not None
    name = f"{spec.name}_{param}"
    if kind == "double_params":
        values = tuple(c_atof(s) for s in _split(param))
        return [Instance(name, spec, _double_params_measure(spec, values))]
    if kind == "pairs":
        return [Instance(name, spec, _pairs_measure(spec, param, ten))]
    raise AssertionError(kind)  # pragma: no cover


# Parameter names of the auditeval measures for trec_eval's positional float parameters.
DOUBLE_PARAM_NAMES: dict[str, tuple[str, ...]] = {
    "utility": ("a", "b", "c", "d"),
    "set_F": ("beta",),
}


def _double_params_measure(spec: Spec, values: tuple[float, ...]) -> Measure:
    m = Measure(spec.canonical)
    if spec.name == "11pt_avg":
        if values == tuple(spec.default):
            return m
        return m.with_params(levels=",".join(repr(float(v)) for v in values))
    if spec.name == "relstring":  # typed, even as 10: trec_eval 10.0 -c resets only 'relstring' (absent=bogus)
        return m.with_cutoff(int(values[0]))
    names = DOUBLE_PARAM_NAMES.get(spec.name, ())
    changes = {}
    for i, n in enumerate(names):
        v = values[i] if i < len(values) else spec.default[i]
        # utility keeps every typed value: 10.0 -c resets only the value named 'utility' (absent=bogus)
        if v != spec.default[i] or (spec.name == "utility" and i < len(values)):
            changes[n] = float(v)
    return m.with_params(**changes) if changes else m


def parse_pairs(param: str) -> list[tuple[str, float]]:
    """``1=3,2=9`` -> [("1", 3.0), ("2", 9.0)] with trec_eval's malformed-pair check."""
    last = ","
    for ch in param:
        if ch == ",":
            if last == ",":
                break
            last = ","
        elif ch == "=":
            if last == "=":
                last = ","
                break
            last = "="
    if last != "=":
        raise ParamError([f"trec_eval: malformed pair parameters in '{param}'"])
    out = []
    for item in _split(param):
        k, _, v = item.partition("=")
        out.append((k, c_atof(v)))
    return out


_INT = re.compile(r"[+-]?[0-9]+")


def _pairs_measure(spec: Spec, param: str, ten: bool) -> Measure:
    """Gain pairs ``LEVEL=GAIN``: 9.x reads LEVEL with ``atol`` (``a=1`` is level 0), 10.0's
    gain_init.c skips a LEVEL that is not an optional sign and digits (``valid_int``)."""
    pairs = parse_pairs(param)
    m = Measure(spec.canonical)
    gains = []
    for k, v in pairs:
        if k == "p" and spec.name in ("rbp", "rbp_resid"):
            m = m.with_params(p=float(v))
        elif not ten or _INT.fullmatch(k):
            gains.append((_atol(k), float(v)))
    if gains:
        m = m.with_params(gains=tuple(sorted(gains)))
    return m
