"""auditeval measures in trec_eval's spelling (shared by the trec_eval and pytrec_eval adapters).

``trec_name(m, version)`` gives ``(request, output)``: what ``-m`` (or pytrec_eval's measure
set) is given and the name the value is printed under (``P.10`` is printed as ``P_10``,
``iprec_at_recall.0.25`` as ``iprec_at_recall_0.25``, ``set_F.2.0`` as ``set_F_2.0``). It reads
the drop-in's measure table of that build (:mod:`auditeval.trec_eval.catalog`, itself keyed by
the spec table's trec_eval names) and checks each spelling by parsing it back with the
drop-in's own parameter reader (:func:`auditeval.trec_eval.params.instances`), so a request
is only made when trec_eval would print exactly ``m``. Convention parameters are folded into
axes before this is asked (``AP(rel=2)`` is ``map`` with ``-l2``).

Left out: ``runid`` and ``relstring`` (text, not numbers), and 10.0's ``rbp``, whose
``m_rbp.c`` reads uninitialised memory (the differential test does not compare it either).
"""

from __future__ import annotations

from functools import cache

from auditeval.adapters.tools import GEOMETRIC  # noqa: F401 - kept here for the readers of tool outputs (verify)
from auditeval.trec_eval.catalog import SHORT_8, TABLE, Spec, table
from auditeval.trec_eval.params import ParamError, instances
from auditeval.vocab.measure import Measure

SKIPPED = frozenset({"runid", "relstring", "rbp"})
_UNCUT_AS = {"R": "set_recall"}  # R without a cut-off is relret / R: trec_eval's set_recall


def _param(spec: Spec, m: Measure) -> str | None:
    """The ``-m NAME.PARAM`` string that asks ``spec`` for ``m`` (None: the defaults)."""
    if spec.params in ("long_cut", "double_cut"):
        return None if m.cutoff is None else repr(m.cutoff) if spec.params == "double_cut" else str(m.cutoff)
    if spec.params == "pairs" and m.param("gains"):
        return ",".join(f"{int(g)}={float(v)!r}" for g, v in m.param("gains"))
    if spec.params == "double_params" and m.params:
        if spec.name == "set_F" and m.param("beta") is not None:
            return repr(float(m.param("beta")))
        if spec.name == "utility":
            return ",".join(repr(float(m.param(k, d))) for k, d in zip("abcd", spec.default, strict=True))
    return None


def trec_name(m: Measure, version: str = "9.0.8") -> tuple[str, str] | None:
    """``(request, printed name)`` of ``m`` in trec_eval ``version``, or None when that build
    prints no value that is exactly ``m``. trec_eval 8.x prints its measures without ``-m``:
    the request is ``short`` (one invocation prints them all), the name 8.x's (``P10``,
    ``ircl_prn.0.10``, ``gm_ap``, ``R-prec``; :data:`auditeval.trec_eval.catalog.SHORT_8`)."""
    if version.startswith("8."):
        name = _names_8().get(m)
        return None if name is None else ("short", name)
    if m.name in _UNCUT_AS and m.cutoff is None and not m.params:
        return _UNCUT_AS[m.name], _UNCUT_AS[m.name]
    for spec in table(version):
        if spec.name in SKIPPED or spec.canonical != m.name:
            continue
        param = _param(spec, m)
        if spec.params in ("long_cut", "double_cut") and param is None:
            continue  # a cut-off family asked without a cut-off
        try:
            found = instances(spec, param)
        except (ParamError, ValueError):
            continue
        hit = next((i for i in found if i.measure == m), None)
        if hit is not None:
            return (spec.name if param is None else f"{spec.name}.{param}"), hit.name
    return None


@cache
def _names_8() -> dict[Measure, str]:
    """auditeval measure -> the name trec_eval 8.x prints it under (its default measures)."""
    specs = {s.name: s for s in table("9.0.8")}
    out: dict[Measure, str] = {}
    for o in SHORT_8:
        source = "gm_map" if o.name == "gm_ap" else o.source  # gm_ap: the geometric mean of map
        found = instances(specs[source], None)
        m = found[o.index].measure
        if m is not None:
            out[m] = o.name
    return out


KIND = {spec.name: spec.params for spec in TABLE}  # trec_eval measure -> how -m reads its parameters


def batches(requests: list[str]) -> list[tuple[list[str], list[int]]]:
    """Invocations for ``requests`` (``P.10``, ``set_F.2.0``, ``map``): per invocation its
    ``-m`` arguments and the indices of the requests it answers.

    trec_eval keeps the first parameter string given for a measure name (trec_eval.c
    ``mark_measure``: ``-m P.5 -m P.10`` prints ``P_5`` only), so the cut-offs of one family
    are merged (``P.5,10``; it sorts them) and a family asked with different parameters
    (``set_F`` and ``set_F.2.0``, ``ndcg`` and ``ndcg.0=0,1=1,2=3``) is split over several
    invocations, the fewest needed."""
    cuts: dict[str, list[str]] = {}
    cut_of: dict[str, list[int]] = {}
    out: list[tuple[dict[str, str], list[int]]] = []  # family -> -m argument, request indices
    for i, r in enumerate(requests):
        family, _, param = r.partition(".")
        if param and KIND.get(family) in ("long_cut", "double_cut"):
            if param not in cuts.setdefault(family, []):
                cuts[family].append(param)
            cut_of.setdefault(family, []).append(i)
            continue
        for args, idx in out:
            if args.get(family, r) == r:
                args[family] = r
                idx.append(i)
                break
        else:
            out.append(({family: r}, [i]))
    merged = ([f"{f}.{','.join(ps)}" for f, ps in cuts.items()], [i for f in cuts for i in cut_of[f]])
    calls = [(list(args.values()), idx) for args, idx in out]
    if merged[0]:
        if calls:
            calls[0] = (merged[0] + calls[0][0], merged[1] + calls[0][1])
        else:
            calls = [merged]
    return calls
