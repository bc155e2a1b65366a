"""A measure's sweep variants found over the whole grid of combinations at once, as arrays.

What :func:`~auditeval.engine.sweep.measure_variants` finds combination by combination
(a convention, its fold, its :class:`~auditeval.vocab.variant.Variant` and string for each
of ``itertools.product`` over the varied axes the measure reads, then the distinct strings),
computed from integer codes: 115,200 combinations of ``--vary all`` for AP and nDCG@10 were
1.4 s of the command's serial start (every pool worker waits for the plan); the codes take
tens of milliseconds and only the 46,080 distinct variants get a string.

Why codes decide the strings. A measure's parameters that fold into axes
(:func:`~auditeval.vocab.variant.fold_params`) do not depend on the convention, so the folded
convention of combination ``c`` is the base folded (``base2``) with every varied axis not
set by the measure (``free``) at ``c``'s value. Its variant reads the axes
``variant_axes(m2, depth, topics, rel)`` of that folded convention: a function of the
``depth``, ``topics`` and ``rel`` values alone, computed once per distinct triple (the
*read set*). The string is the folded measure, then ``axis=value`` for each axis of the
read set (:meth:`~auditeval.vocab.conventions.Axis.format`: ``repr`` of a float, ``str`` of
the rest, one text per value). So two combinations have the same string exactly when they
have the same read set and the same values on the free axes of it: the code is the read
set's number and, per free axis, its value's index + 1 where the set reads it (0 where it
does not). Equal values within one axis's list would break that (two indices, one text):
:func:`grid_variants` then answers None and the plan resolves combination by combination.

Classes (:class:`~auditeval.engine.sweep.VariantClasses`) come the same way: a variant's
lists depend on its folded convention's ``PREPARE_AXES`` values (the free ones' indices, the
rest fixed), its kernel's result on the folded measure, the read set's axes outside
``PREPARE_AXES`` with their values, and the spec's ``check_convention`` answer (asked per
variant, for the one spec that has a check).
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
import pyarrow as pa

from auditeval.engine.measures import MEASURES
from auditeval.engine.staged_run import PREPARE_AXES
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.arrays import first_seen, from_numpy
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import Variant, _axis_text, fold, fold_params, variant_axes

CONTEXT_AXES = ("depth", "topics", "rel")
"""The axes whose values decide which axes a variant reads (:func:`~auditeval.vocab.variant.variant_axes`)."""


@dataclass(frozen=True)
class GridVariants:
    """One measure's distinct variants, in plan order (the profile's own first, the others by
    their first combination): ``texts`` (variant strings), ``combos`` (the index of each
    one's first combination in ``itertools.product`` over ``axes``), ``prepare_convs`` (per
    distinct ``PREPARE_AXES`` values, in order of first variant: that variant's folded
    convention) and ``prepare`` (per variant, its index there), ``kernel`` (per variant, its
    kernel class, numbered by first variant) and ``n_kernels``."""

    texts: list[str]
    combos: np.ndarray
    prepare_convs: list[Convention]
    prepare: np.ndarray
    kernel: np.ndarray
    n_kernels: int


def grid_variants(m: Measure, base: Convention, values: dict[str, list[Any]], axes: Sequence[str],
                  own: str) -> GridVariants | None:
    """:class:`GridVariants` of ``m`` around ``base`` over ``axes``' values (``values``, each
    list parsed; ``axes``: the varied axes ``m`` reads), ``own`` (the profile's own variant
    string) first when among them; None when an axis lists a value twice or the codes would
    not fit 62 bits (the caller then resolves each combination)."""
    m2, changes = fold_params(m)
    base2 = fold(m, base)[1]
    free = tuple(a for a in axes if a not in changes)
    if any(len(set(map(repr, values[a]))) != len(values[a]) for a in free):
        return None
    shape = tuple(len(values[a]) for a in axes)
    n = math.prod(shape)
    at = dict(zip(axes, np.unravel_index(np.arange(n, dtype=np.intp), shape), strict=True)) if axes else {}
    sets, set_of = _read_sets(m2, base2, values, free, at, n)
    reads = {a: np.array([a in s for s in sets]) for a in free}
    if len(sets) * math.prod(len(values[a]) + 1 for a in free) >= 1 << 62:
        return None
    code = set_of.astype(np.int64)
    for a in free:
        code = code * (len(values[a]) + 1) + np.where(reads[a][set_of], at[a] + 1, 0)
    first, _ = first_seen(code)
    texts = _texts(str(m2), sets, set_of[first], {a: at[a][first] for a in free}, values, base2)
    if own in texts and texts[0] != own:
        p = texts.index(own)
        first = np.concatenate([first[p:p + 1], first[:p], first[p + 1:]])
        texts = [texts[p], *texts[:p], *texts[p + 1:]]
    combos = first.astype(np.intp)
    var_set = set_of[first]
    var_at = {a: at[a][first] for a in free}
    space = _Space(m, base, tuple(axes), values)
    prepare_convs, prepare = _prepare(space, var_at, combos)
    kernel, n_kernels = _kernels(space, m2, free, sets, reads, var_set, var_at, combos)
    return GridVariants(texts, combos, prepare_convs, prepare, kernel, n_kernels)


def _read_sets(m2: Measure, base2: Convention, values: dict[str, list[Any]], free: tuple[str, ...],
               at: dict[str, np.ndarray], n: int) -> tuple[list[tuple[str, ...]], np.ndarray]:
    """The distinct read sets (``variant_axes`` of the folded convention) and each
    combination's number among them, asked once per distinct (depth, topics, rel)."""
    ctx = tuple(a for a in CONTEXT_AXES if a in free)
    index: dict[tuple[str, ...], int] = {}
    per_ctx = []
    for combo in itertools.product(*(values[a] for a in ctx)):
        got = dict(zip(ctx, combo, strict=True))
        read = variant_axes(m2, got.get("depth", base2.depth), got.get("topics", base2.topics),
                            got.get("rel", base2.rel))
        per_ctx.append(index.setdefault(read, len(index)))
    if not ctx:
        return list(index), np.zeros(n, np.intp)
    where = np.ravel_multi_index([at[a] for a in ctx], [len(values[a]) for a in ctx])
    return list(index), np.asarray(per_ctx, np.intp)[where]


def _texts(mtext: str, sets: list[tuple[str, ...]], cls_set: np.ndarray, cls_at: dict[str, np.ndarray],
           values: dict[str, list[Any]], base2: Convention) -> list[str]:
    """Each class's variant string: the folded measure, then ``axis=value`` per axis its read
    set reads (the class's value on a free axis, ``base2``'s on the others), joined by ``|``
    column-wise (one Arrow join per read set)."""
    out = np.empty(len(cls_set), object)
    for s, read in enumerate(sets):
        rows = np.flatnonzero(cls_set == s)
        if not len(rows):
            continue
        if not read:
            out[rows] = mtext
            continue
        cols: list[Any] = [pa.scalar(mtext)]
        for a in read:
            if a in cls_at:
                words = pa.array([_axis_text((a, v)) for v in values[a]], pa.string())
                cols.append(pc.take(words, from_numpy(cls_at[a][rows].astype(np.int64))))
            else:
                cols.append(pa.scalar(_axis_text((a, getattr(base2, a)))))
        joined = pc.binary_join_element_wise(*cols, pa.scalar("|"))
        out[rows] = joined.to_pylist() if isinstance(joined, pa.Array) else [joined.as_py()] * len(rows)
    return out.tolist()


def combination(base: Convention, axes: Sequence[str], values: dict[str, list[Any]], index: int) -> Convention:
    """The convention of combination ``index`` of ``itertools.product`` over ``axes``' values
    around ``base`` (the last axis fastest), built without validating again (the values are
    parsed): what resolving combination by combination builds for it."""
    if not axes:
        return base
    at = np.unravel_index(index, [len(values[a]) for a in axes])
    return varied(base, base.as_dict(), axes, [values[a][int(i)] for a, i in zip(axes, at, strict=True)])


def varied(base: Convention, base_values: dict[str, Any], axes: Sequence[str], combo: Sequence[Any]) -> Convention:
    """``base`` with ``axes`` set to ``combo`` (values already parsed; ``base_values`` is
    ``base.as_dict()``, made once by the caller), built without validating again
    (``Convention._unchecked``: the 20 checks per combination were a third of its cost)."""
    return Convention._unchecked({**base_values, **dict(zip(axes, combo, strict=True))}) if axes else base


def combinations(base: Convention, axes: Sequence[str], values: dict[str, list[Any]], indices: np.ndarray
                 ) -> list[Convention]:
    """:func:`combination` of each of ``indices``, the base's values read once."""
    if not axes:
        return [base] * len(indices)
    at = np.unravel_index(np.asarray(indices, np.intp), [len(values[a]) for a in axes])
    base_values = base.as_dict()
    columns = [[values[a][i] for i in ix.tolist()] for a, ix in zip(axes, at, strict=True)]
    return [varied(base, base_values, axes, combo) for combo in zip(*columns, strict=True)]


@dataclass(frozen=True)
class _Space:
    """A measure and the grid it is varied over: around ``base``, ``axes``' ``values``."""

    m: Measure
    base: Convention
    axes: tuple[str, ...]
    values: dict[str, list[Any]]


def _folded(space: _Space, indices: np.ndarray) -> list[Convention]:
    """The folded conventions of the combinations ``indices``."""
    return [fold(space.m, c)[1] for c in combinations(space.base, space.axes, space.values, indices)]


def _prepare(space: _Space, var_at: dict[str, np.ndarray], combos: np.ndarray) -> tuple[list[Convention], np.ndarray]:
    """The folded conventions of the distinct ``PREPARE_AXES`` values (one per class, its
    first variant's) and each variant's class."""
    code = np.zeros(len(combos), np.int64)
    for a in PREPARE_AXES:
        if a in var_at:
            code = code * len(space.values[a]) + var_at[a]
    first, inverse = first_seen(code)
    return _folded(space, combos[first]), inverse


def _kernels(space: _Space, m2: Measure, free: tuple[str, ...], sets: list[tuple[str, ...]], reads: dict[str, np.ndarray],
             var_set: np.ndarray, var_at: dict[str, np.ndarray], combos: np.ndarray) -> tuple[np.ndarray, int]:
    """Each variant's kernel class (numbered by first variant) and their count: equal read
    axes outside ``PREPARE_AXES`` with equal values, and the spec's check answering alike."""
    own_index: dict[tuple[str, ...], int] = {}
    own_of = np.array([own_index.setdefault(tuple(a for a in s if a not in PREPARE_AXES), len(own_index))
                       for s in sets], np.int64)
    code = own_of[var_set]
    for a in free:
        if a not in PREPARE_AXES:
            code = code * (len(space.values[a]) + 1) + np.where(reads[a][var_set], var_at[a] + 1, 0)
    check = MEASURES[m2.name].check_convention
    if check is None:
        _, kernel = first_seen(code)
        return kernel, int(kernel.max()) + 1 if len(kernel) else 0
    numbers: dict[tuple[int, Any], int] = {}
    kernel = np.array([numbers.setdefault((k, check(m2, c2)), len(numbers))
                       for k, c2 in zip(code.tolist(), _folded(space, combos), strict=True)], np.intp)
    return kernel, len(numbers)


def own_text(m: Measure, base: Convention) -> str:
    """The profile's own variant string of ``m`` (what the plan lists first)."""
    return str(Variant.of(m, base))


class GridConventions(Sequence[Convention]):
    """A measure's variants' conventions (what :attr:`~auditeval.engine.sweep.SweepBlock.conventions`
    lists), each built on first use from its combination index (:func:`combination`): a
    sweep's views read the variant strings only, and 69,120 conventions were made for none."""

    def __init__(self, base: Convention, axes: Sequence[str], values: dict[str, list[Any]], combos: np.ndarray):
        self._args = (base, tuple(axes), values)
        self._combos = combos
        self._made: dict[int, Convention] = {}

    def __len__(self) -> int:
        return len(self._combos)

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[k] for k in range(*i.indices(len(self)))]
        k = range(len(self))[i]  # negative indices, IndexError
        c = self._made.get(k)
        if c is None:
            c = self._made[k] = combination(*self._args, int(self._combos[k]))
        return c

    def __repr__(self) -> str:
        return f"GridConventions({len(self)} conventions)"
