"""trec_eval 8.x's C ``float`` arithmetic: per-topic values and their sums as 8.x stores them.

trec_eval 8.x keeps every per-topic value in a ``float`` field of its TREC_EVAL struct
(8.1 trec_eval.h:200-370) and sums in ``float``; 9.x and the engine's kernels use doubles. At 4
printed decimals the two differ now and then (one robust03 topic in about a hundred runs and
flags: AP 0.0663 against 0.0662), so the drop-in for 8.x takes its sums from here:

* :func:`c_float_ap`: trvec_teval.c:490-555, precision ``(float) rel_so_far / (float) j`` at
  each relevant rank, added to a float *from the last retrieved document to the first*, then
  ``/= num_rel`` (float by long);
* :func:`c_float_bpref`: trvec_teval.c:323-460, ``bpref += 1.0 - (float) a / (float) b`` per
  relevant judged document in rank order (double arithmetic stored in the float), then
  ``/= num_rel``, with 8.x's counts (its N counts every non-relevant qrels line; 8.0 counts
  only grade 0 as judged nonrelevant);
* :func:`c_float_sum`, :func:`c_float_mean`, :func:`c_float_gmean`, :func:`c_float_logs`: the
  means over topics (print_meas.c:26-75 and 125-145);
* the C expressions themselves, used by :mod:`auditeval.engine.trec8` (every ``-a`` measure):
  :func:`f32` (a conversion to ``float``), :func:`ddiv` (double division with IEEE's x/0),
  :func:`fdiv` (``(float) a / (float) b``), :func:`log_floor` (gm_ap's per-topic log), and
  their array forms :func:`fdiv_arr`, :func:`seq_sum` (``float acc += float`` in order) and
  :func:`seq_sum_double` (``float acc += double`` in order, the one that needs a loop).

These are sequential float sums over the few relevant rows of a topic (numpy's float32
``cumsum`` is sequential, as C's loop is); none is a measure of its own: the values are AP's and
Bpref's, rounded as 8.x rounds them.
"""

from __future__ import annotations

import math
import struct

import numpy as np

from auditeval.engine.ranked_lists import Prepared
from auditeval.vocab.conventions import Convention

_F = np.float32
_F32 = struct.Struct("f")
_EXACT = 1 << 24  # integers up to 2**24 are exact floats
NAN = -math.nan  # x86's default NaN (0.0 / 0.0): sign bit set, printed "-nan"
MIN_GEO_MEAN = 0.00001  # trec_eval.h:191


def f32(x: float) -> float:
    """C's conversion to ``float`` (round to nearest single; out of range: infinity)."""
    try:
        return _F32.unpack(_F32.pack(x))[0]
    except OverflowError:
        return float(np.float32(x))


def ddiv(a: float, b: float) -> float:
    """C double division ``a / b`` (IEEE: x/0 is +-inf, 0/0 the default NaN)."""
    if b == 0:
        if a == 0 or a != a:
            return NAN if a == 0 else a
        return math.copysign(math.inf, a) * (1.0 if math.copysign(1.0, b) > 0 else -1.0)
    return a / b


def fdiv(a: float, b: float) -> float:
    """C ``(float) a / (float) b``: the float quotient (the double quotient of two floats
    rounded once to float is the correctly rounded float quotient)."""
    if type(a) is not int or not -_EXACT <= a <= _EXACT:
        a = f32(a)
    if type(b) is not int or not -_EXACT <= b <= _EXACT:
        b = f32(b)
    if b:
        return f32(a / b)
    return f32(ddiv(float(a), float(b)))


def log_floor(v: float) -> float:
    """``(float) log ((double) MAX (v, MIN_GEO_MEAN))`` (trvec_teval.c:468, 591); ``MAX(a, b)``
    is ``((a) > (b) ? (a) : (b))``, so a NaN gives the floor."""
    return f32(math.log(v if v > MIN_GEO_MEAN else MIN_GEO_MEAN))


def fdiv_arr(a: np.ndarray, b: np.ndarray | float) -> np.ndarray:
    """:func:`fdiv` elementwise: ``(float) a / (float) b`` as float32 (x86's results for
    x/0 and 0/0: numpy divides with the same instructions)."""
    with np.errstate(all="ignore"):
        return np.asarray(a).astype(_F) / np.asarray(b).astype(_F)


def seq_sum(terms: np.ndarray, axis: int = -1) -> np.ndarray | np.float32:
    """``float acc = 0; for (...) acc += term;`` over float terms in the given order: the
    float32 ``cumsum`` (sequential, unlike ``np.sum``'s pairwise sum), whose last element is
    the total. Terms must be float values already (a double sum of two floats rounded to
    float is the float sum); a zero term leaves the total as it is, so masked terms are 0."""
    t = np.moveaxis(np.asarray(terms, dtype=_F), axis, -1)
    zero = np.zeros(t.shape[:-1] + (1,), dtype=_F)
    return np.cumsum(np.concatenate([zero, t], axis=-1), axis=-1, dtype=_F)[..., -1]


def seq_sum_double(terms: np.ndarray) -> np.ndarray:
    """``float acc[m] = 0; for each row: acc[i] += (double) term[i]``: rows in order, each
    step a double sum stored in the float. A term that is no float (``1.0 - (float) a / b``)
    rounds differently from a float32 add, so the rows are a loop (over the rows only: every
    column at once); rows whose terms are all floats take :func:`seq_sum`."""
    t = np.asarray(terms, dtype=np.float64)
    with np.errstate(all="ignore"):
        if np.array_equal(t.astype(_F).astype(np.float64), t, equal_nan=True):
            return seq_sum(t, axis=0).astype(np.float64)
        acc = np.zeros(t.shape[1:], dtype=np.float64)
        for row in t:
            acc = (acc + row).astype(_F).astype(np.float64)
    return acc


def c_float_ap(p: Prepared, c: Convention) -> np.ndarray:
    """Per topic: AP as trec_eval 8.x computes it in float (see the module docstring)."""
    rows, t, rank = p.rows_where(p.rel_mask(c.rel), None)
    big_r = p.num_rel(c.rel)
    out = np.zeros(p.n_topics, dtype=np.float64)
    order = np.lexsort((rank, t))
    t, rank = t[order], rank[order]
    bounds = np.flatnonzero(np.diff(t)) + 1
    for seg_t, seg_r in zip(np.split(t, bounds), np.split(rank, bounds), strict=True):
        if len(seg_t) == 0:
            continue
        k = np.arange(1, len(seg_r) + 1, dtype=np.float32)
        prec = k / seg_r.astype(np.float32)  # (float) rel_so_far / (float) j
        total = np.cumsum(prec[::-1], dtype=np.float32)[-1]  # from the last rank to the first
        out[seg_t[0]] = float(_F(total / _F(big_r[seg_t[0]])))
    return out


def c_float_bpref(p: Prepared, c: Convention, zero_only: bool = False) -> np.ndarray:
    """Per topic: bpref as trec_eval 8.x computes it (trvec_teval.c:323-460 of 8.1), in float.

    Over the judged ranked documents in rank order (outside the qrels, or in it with a negative
    grade: skipped, trvec_teval.c:335-341): a judged nonrelevant one (8.1: ``0 <= rel < level``;
    8.0, ``zero_only``: ``rel == 0``, tested first, trvec_teval.c:333 of 8.0) adds to ``a``; any
    other with ``rel >= level`` adds ``1.0 - (float) MIN(a, R) / (float) MIN(N, R)`` (1.0 while
    a == 0) to a float, which is divided by R at the end. ``N`` is every qrels line of the topic
    that is not relevant, negative grades included (trec_eval.c:210 passes ``num_text_qrels -
    num_rel``): here judged nonrelevant plus pooled-unjudged (negatives=pooled). Where N is 0
    and a > 0, C divides by zero: the term is -inf, as here."""
    big_r = p.num_rel(c.rel)
    n_lines = p.num_judged_nonrel(c.rel) + np.asarray(p.n_pooled_unjudged, dtype=np.int64)
    rows, t, _rank = p.rows_where(p.rel_mask(0))  # judged rows, by topic in rank order
    grade = p.grade[rows]
    acc = np.zeros(p.n_topics, dtype=np.float32)
    above = np.zeros(p.n_topics, dtype=np.int64)
    with np.errstate(divide="ignore", invalid="ignore"):
        for ti, g in zip(t.tolist(), grade.tolist(), strict=True):
            if (g == 0) if zero_only else (g < c.rel):
                above[ti] += 1
                continue
            if g < c.rel:
                continue  # 8.0: 0 < rel < level, neither relevant nor judged nonrelevant
            a = int(above[ti])
            if a > 0:
                r = int(big_r[ti])
                term = 1.0 - float(_F(min(a, r)) / _F(min(int(n_lines[ti]), r)))
            else:
                term = 1.0
            acc[ti] = _F(float(acc[ti]) + term)
        out = acc.astype(np.float64)
        has = big_r > 0
        out[has] = (acc[has] / big_r[has].astype(np.float32)).astype(np.float64)
    return out


def c_float_sum(values: np.ndarray) -> float:
    """trec_eval 8.x's accumulation (print_meas.c:26-75 ``accumulate_results``): every per-topic
    value is stored as a C ``float`` (trec_eval.h:200-370, the TREC_EVAL fields) and added to a
    ``float`` total in topic order, ``*float_accum += *float_query`` (float arithmetic)."""
    total = np.float32(0.0)
    for v in np.asarray(values, dtype=np.float64).astype(np.float32):
        total = np.float32(total + v)
    return float(total)


def c_float_mean(total: float, n: int) -> float:
    """print_meas.c:132: ``float_eval /= eval->num_queries`` (float by long: float division;
    0 topics give C's NaN or infinity)."""
    with np.errstate(all="ignore"):
        return float(np.float32(total) / np.float32(n))


def c_float_gmean(log_total: float, n: int, n_missing: int, floor: float) -> float:
    """print_meas.c:134-145, trec_eval 8.x's geometric mean: the float sum of per-topic
    ``(float) log(MAX(v, MIN_GEO_MEAN))``, plus ``n_missing * log(MIN_GEO_MEAN)`` for the qrels
    topics ``-c`` counts (double arithmetic stored in the float), then
    ``(float) exp((double)(float_eval / num_queries))``."""
    with np.errstate(all="ignore"):
        total = np.float32(np.float64(np.float32(log_total)) + n_missing * math.log(floor))
        return float(np.float32(np.exp(np.float64(np.float32(total / np.float32(n))))))


def c_float_logs(values: np.ndarray, floor: float) -> np.ndarray:
    """trvec_teval.c's per-topic ``(float) log((double) MAX(v, MIN_GEO_MEAN))`` of float values."""
    v = np.asarray(values, dtype=np.float64).astype(np.float32).astype(np.float64)
    return np.log(np.maximum(v, floor)).astype(np.float32).astype(np.float64)


def as_c_float(values: np.ndarray) -> np.ndarray:
    """Values as a C ``float`` field stores them (float32 rounding, held in float64)."""
    with np.errstate(over="ignore"):
        return np.asarray(values, dtype=np.float64).astype(_F).astype(np.float64)


def c_float_means(values: np.ndarray, kind: str, n: int, n_missing: int = 0) -> float:
    """One line of 8.x's summary from the per-topic values it sums (topic order): ``long``
    fields summed as long, ``gm`` the geometric mean of :func:`c_float_logs` (``n_missing``
    qrels topics at the floor, ``-c``), any other the float sum ``/ n`` in float."""
    if kind == "long":
        return float(int(np.asarray(values, dtype=np.float64).astype(np.int64).sum())) if len(values) else 0.0
    if kind == "gm":
        return c_float_gmean(c_float_sum(c_float_logs(values, MIN_GEO_MEAN)), n, n_missing, MIN_GEO_MEAN)
    return c_float_mean(c_float_sum(values), n)
