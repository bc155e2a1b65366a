"""Variant strings: a measure plus exactly the axes that can change its value.

Shape: ``MEASURE|axis=value|axis=value...`` with the axes sorted by name, e.g.::

    AP|depth=all|dups=error|negatives=pooled|rel=1|self_hits=keep|sim=float32|ties=docno-desc|topics=both|unjudged=nonrel

Measure parameters that are conventions (``rel=``, ``judged_only=``, RBP's ``p=``) are folded
into the axes, so ``AP(rel=2)`` under any profile prints ``AP|...|rel=2|...``: two numbers are
comparable exactly when their variant strings are equal. ``parse_variant(str(v)) == v``.
The engine (tool and version) is a separate field of each value, never part of the variant.
Which parameters fold into which axis: :data:`auditeval.vocab.axes.FOLDED`.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from auditeval.vocab.axes import FOLDED
from auditeval.vocab.conventions import AXES, Convention
from auditeval.vocab.errors import ConventionError, MeasureSyntaxError, UnknownMeasureError
from auditeval.vocab.measure import Measure, parse_syntax
from auditeval.vocab.names import axis_hint, normalize, split_measures, syntax_hint, unknown_hint
from auditeval.vocab.specs import _TREC_SPLIT, SPECS, TREC_ALIASES, resolve_alias


def parse_measure(text: str) -> Measure:
    """Parse and validate a measure name (ir_measures spelling or a trec_eval alias).

    Unknown names raise :class:`UnknownMeasureError`; malformed syntax raises
    :class:`MeasureSyntaxError` pointing at the offending character. Checked in this order:
    the name (:func:`_named`), the cut-off (:func:`_checked_cutoff`), each parameter
    (:func:`_check_param`), then the spec's own check.
    """
    text = text.strip()
    m = _named(text)
    d = SPECS[m.name]
    m = _checked_cutoff(text, m, d)
    for key, value in m.params:
        _check_param(text, m, d, key, value)
    if d.check is not None:
        problem = d.check(m)
        if problem:
            pos = text.find("(")
            raise MeasureSyntaxError(text, max(pos + 1, 0), problem)
    return m


def _named(text: str) -> Measure:
    """The measure ``text`` names (a trec_eval alias, else ir_measures syntax), known to the spec table."""
    alias = resolve_alias(text)
    family = TREC_ALIASES.get(text)
    if alias is not None and family is not None and family[1] is not None and text != family[0]:
        # a bare trec_eval cut-off family (map_cut, ndcg_cut, recall, ...) is not the uncut measure
        example = f"{text}_10" if family[1] == "int" else f"{text}_0.10"
        raise MeasureSyntaxError(text, len(text), f"{text} is a family of cut-off measures; name one, e.g. {example}")
    if alias is not None:
        m = alias
    else:
        try:
            m = normalize(parse_syntax(text))  # ir_measures spellings (MAP, SetP(relative=True), ...)
        except MeasureSyntaxError as exc:
            hint = syntax_hint(text)
            if hint is None:
                raise
            raise MeasureSyntaxError(exc.text, exc.pos, f"{exc.reason}; {hint}") from None
    if m.name not in SPECS:
        hint = unknown_hint(m, SPECS, TREC_ALIASES)
        hint = f"; {hint}" if hint else ""
        raise UnknownMeasureError(f"unknown measure {m.name!r} in {text!r}{hint} (auditeval measures lists them)")
    return m


def _checked_cutoff(text: str, m: Measure, d: Any) -> Measure:
    """``m`` with its cut-off as the spec wants it (none, required; a positive int or a float in range)."""
    if d.cutoff == "none" and m.cutoff is not None:
        pos = text.find("@")
        raise MeasureSyntaxError(text, max(pos, 0), f"{m.name} takes no @cutoff")
    if d.cutoff == "required" and m.cutoff is None:
        raise MeasureSyntaxError(text, len(text), f"{m.name} needs a cutoff, e.g. {m.name}@10")
    if m.cutoff is None:
        return m
    at = text.find("@")  # a trec_eval alias (P_0) has its cut-off after the last '_' or '.'
    if d.cutoff_type is int and (not isinstance(m.cutoff, int) or m.cutoff < 1):
        cpos = at + 1 if at >= 0 else _TREC_SPLIT.match(text).start("arg")
        raise MeasureSyntaxError(text, cpos, f"{m.name} cutoff must be a positive integer")
    if d.cutoff_type is float:
        m = m.with_cutoff(float(m.cutoff))
        lo, hi = d.cutoff_range
        if not lo <= m.cutoff <= hi:
            cpos = at + 1 if at >= 0 else _TREC_SPLIT.match(text).start("arg")
            raise MeasureSyntaxError(text, cpos, f"{m.name} cutoff must lie in [{lo:g}, {hi:g}]")
    return m


def _check_param(text: str, m: Measure, d: Any, key: str, value: Any) -> None:
    """One parameter of ``m``: a folded axis (``judged_only=``, ``rel=``: the axis' values) or one
    of the spec's own parameters (its type)."""
    pos = text.find(key + "=")
    vpos = pos + len(key) + 1 if pos >= 0 else 0  # the value, for type errors
    if _folds(d, key):
        axis, mapping = FOLDED[key]
        if axis not in d.axes:
            raise MeasureSyntaxError(text, max(pos, 0), f"{m.name} takes no parameter {key!r}")
        if mapping is not None:
            if not any(value == k and type(value) is type(k) for k in mapping):
                raise MeasureSyntaxError(text, vpos, f"parameter {key!r} must be one of {list(mapping)}")
            if axis == "gain" and m.param("gains") is not None:
                raise MeasureSyntaxError(text, max(pos, 0), f"give {key}= or gains={{...}}, not both (both set the gain)")
            return
        kind = AXES[axis].kind
        numeric = isinstance(value, int | float) and not isinstance(value, bool)
        if not numeric or (kind == "int" and not isinstance(value, int)):
            need = "an integer" if kind == "int" else "a number"
            raise MeasureSyntaxError(text, vpos, f"parameter {key!r} needs {need}")
        try:
            AXES[axis].parse(value)
        except ConventionError as exc:
            raise MeasureSyntaxError(text, vpos, str(exc)) from None
        return
    if key not in d.params:
        allowed = sorted(set(d.params) | {k for k, (a, _) in FOLDED.items() if a in d.axes and _folds(d, k)})
        raise MeasureSyntaxError(
            text, max(pos, 0),
            f"{m.name} takes no parameter {key!r} (allowed: {', '.join(allowed) or 'none'}){axis_hint(key, value, m)}",
        )
    want = d.params[key]
    ok = isinstance(value, want) if want is not float else isinstance(value, int | float) and not isinstance(value, bool)
    if not ok:
        raise MeasureSyntaxError(text, vpos, f"parameter {key!r} needs a {want.__name__}")


def parse_measures(measures: str | Measure | Iterable[str | Measure]) -> list[tuple[str, Measure]]:
    """THE reading of a list of measures, shared by ``evaluate``, ``sweep`` and ``audit`` (the
    command line's ``-m`` splits with :func:`~auditeval.vocab.names.split_measures` and parses
    each name the same way): each string is split by
    :func:`~auditeval.vocab.names.split_measures` (so ``"ndcg_cut.1,4"`` and ``"P"`` mean what
    they mean to ``-m`` and to the trec_eval drop-in), each name parsed by
    :func:`parse_measure`; a :class:`Measure` is kept as it is. Returns (label, measure) pairs, the label being the name as split; a label given twice is
    kept once (``-m P -m P.10`` asks for P@10 once)."""
    items = [measures] if isinstance(measures, str | Measure) else list(measures)
    out: dict[str, Measure] = {}
    for item in items:
        if isinstance(item, Measure):
            out.setdefault(str(item), item)
            continue
        for name in split_measures(item) or [item]:
            if name not in out:
                out[name] = parse_measure(name)
    return list(out.items())


def _folds(d: Any, key: str) -> bool:
    """Whether parameter ``key`` of a measure with spec row ``d`` is a convention: a FOLDED key
    the row does not declare as its own parameter (NERR10's ``p=`` is its persistence phi,
    RBP's ``p=`` the ``rbp_p`` axis)."""
    return key in FOLDED and (d is None or key not in d.params)


def fold_params(m: Measure) -> tuple[Measure, dict[str, Any]]:
    """``m`` without its convention-like parameters, and the axis values those set (``m``
    itself when it has no parameter: most measures, once per variant of a sweep)."""
    if not m.params:
        return m, {}
    changes: dict[str, Any] = {}
    keep = []
    d = SPECS.get(m.name)
    for key, value in m.params:
        if _folds(d, key):
            axis, mapping = FOLDED[key]
            changes[axis] = mapping[value] if mapping else value
        else:
            keep.append((key, value))
    return Measure(m.name, tuple(keep), m.cutoff), changes


def fold(m: Measure, conv: Convention) -> tuple[Measure, Convention]:
    """Move convention-like parameters of ``m`` into the convention. A parameter written in the
    measure syntax was checked against its axis's bounds by :func:`parse_measure`; one set on a
    :class:`Measure` in code is not (the formula's own domain: the drop-in's ``rbp.p=1.5``, which
    trec_eval 10 computes)."""
    m2, changes = fold_params(m)
    return m2, conv.replace(bounded=False, **changes) if changes else conv


@lru_cache(maxsize=4096)
def variant_axes(m: Measure, depth: Any = "all", topics: str | None = None, rel: int | None = None) -> tuple[str, ...]:
    """The axes that can change ``m``'s value, in canonical order: the spec row's ``axes``,
    narrowed by its ``only_if`` conditions (e.g. an order-free count reads ``ties``/``sim``
    only under a finite ``depth``, where the order decides which documents survive; ``absent``
    only under ``topics=qrels``, the one setting that scores topics missing from the run).
    Memoised: the answer depends on the spec row, ``m``, whether ``depth`` is finite and
    ``topics``, and a sweep asks for every variant. ``rel``: below 0, ``absent`` joins the
    axes of a measure reading ``rel`` (:meth:`~auditeval.vocab.specs.MeasureSpec.variant_axes`)."""
    return SPECS[m.name].variant_axes(m, depth, topics, None if rel is None or rel >= 0 else -1)


@lru_cache(maxsize=4096)
def _axis_value(axis: str, value: Any) -> tuple[str, Any]:
    """The pair ``(axis, value)``, one shared tuple per distinct pair: a sweep makes tens of
    thousands of variants from a few dozen pairs, and shared pairs are neither allocated (nor
    traversed by the garbage collector) again nor pickled again when its plan travels to a pool.
    Equal values of one axis format alike (:meth:`~auditeval.vocab.conventions.Axis.format`), so sharing one is harmless."""
    return axis, value


@lru_cache(maxsize=4096)
def _axis_text(pair: tuple[str, Any]) -> str:
    """``axis=value`` of a variant's pair (:meth:`~auditeval.vocab.conventions.Axis.format`), made once per distinct pair: a
    sweep's plan writes 69,120 variant strings from a few dozen pairs (equal values of one axis
    format alike, so a cached text serves every equal value)."""
    axis, value = pair
    return f"{axis}={AXES[axis].format(value)}"


@dataclass(frozen=True)
class Variant:
    """A measure and the values of the axes it reads."""

    measure: Measure
    axes: tuple[tuple[str, Any], ...]

    @classmethod
    def of(cls, m: Measure, conv: Convention) -> Variant:
        return cls.of_folded(*fold(m, conv))

    @classmethod
    def of_folded(cls, m2: Measure, c2: Convention) -> Variant:
        """:meth:`of` for a measure and convention already folded (``fold(m, conv)``)."""
        return cls(m2, tuple(_axis_value(a, getattr(c2, a)) for a in variant_axes(m2, c2.depth, c2.topics, c2.rel)))

    def __str__(self) -> str:
        return "|".join([str(self.measure), *map(_axis_text, self.axes)])

    def setting(self, axis: str) -> Any:
        return dict(self.axes)[axis]


def parse_variant(text: str | Variant) -> Variant:
    """Parse a variant string back into a :class:`Variant` (``parse_variant(str(v)) == v``;
    a :class:`Variant` is accepted as its string)."""
    text = "".join(str(text).split())  # canonical strings hold no white space: a wrapped copy pastes back
    parts = text.split("|")
    m = parse_measure(parts[0])
    m, _ = _unfold_check(m, parts[0])
    seen: dict[str, Any] = {}
    offset = len(parts[0]) + 1
    for part in parts[1:]:
        if "=" not in part:
            raise MeasureSyntaxError(text, offset, f"expected axis=value, found {part!r}")
        k, v = part.split("=", 1)
        if k not in AXES:
            raise MeasureSyntaxError(text, offset, f"unknown axis {k!r}")
        if k in seen:
            raise MeasureSyntaxError(text, offset, f"axis {k!r} given twice")
        try:
            seen[k] = AXES[k].parse(v)
        except ConventionError as exc:
            raise MeasureSyntaxError(text, offset + len(k) + 1, str(exc)) from None
        offset += len(part) + 1
    wanted = variant_axes(m, seen.get("depth", "all"), seen.get("topics"), seen.get("rel"))
    missing = [a for a in wanted if a not in seen]
    extra = [a for a in seen if a not in wanted]
    if missing:
        raise MeasureSyntaxError(text, len(text), f"variant lacks axis {missing[0]!r} (it can change {m})")
    if extra:
        raise MeasureSyntaxError(text, text.find(extra[0] + "="), f"axis {extra[0]!r} cannot change {m}")
    return Variant(m, tuple((a, seen[a]) for a in wanted))


def _unfold_check(m: Measure, text: str) -> tuple[Measure, None]:
    d = SPECS.get(m.name)
    for key, _ in m.params:
        if _folds(d, key):
            raise MeasureSyntaxError(
                text, text.find(key + "="), f"in a variant string {key!r} is written as axis {FOLDED[key][0]!r}"
            )
    return m, None
