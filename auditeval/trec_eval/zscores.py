"""``-Z FILE``: trec_eval's z-scores, as a convention of the drop-in's output path.

The file holds ``qid measure mean stddev`` lines (:func:`auditeval.io.prefs_files.read_zscores`;
errors: ``trec_eval.get_zscores: Malformed line N``, ``Cannot read zscores file`` -- worded
``trec_eval.get_prefs:`` by 9.0.8, get_zscores.c:91 -- and exit 255: trec_eval.c returns
UNDEF from ``main``). For each evaluated topic, after its measures are computed and before they
are accumulated (trec_eval.c:433-437, 9.0.8 l.396-400, convert_zscores.c ``te_convert_to_zscore``), every value
``v`` named ``NAME`` (``P_5``, ``num_ret``, ``num_q``...) becomes

* ``(v - mean) / stddev`` with the file's (qid, NAME) line;
* ``0`` if ``stddev`` is 0 and ``v == mean``, else :data:`MISSING` (-1000000,
  trec_eval.h:218 ``MISSING_ZSCORE_VALUE``);
* :data:`MISSING` when the file has no line for (qid, NAME) or no line for qid.

The summary is then formed from the converted values as usual (mean over topics; counts are
summed; ``num_q`` stays the topic count, ``num_rel`` under ``-c`` the qrels count; gm_* store
``log(max(v, 1e-5))`` per topic, m_gm_map.c:60-61, so that log is converted and the summary is
``exp`` of the mean z), and
every value line -- counts too -- is printed ``Z%-22s\\t%s\\t%6.4f`` (meas_print_single.c:43-66,
meas_print_final.c:41-58); ``runid`` keeps its line. With ``--variants`` a z-score line carries
no variant column: a z-score is no value of the measure the variant would name. With 9.0.8 ``-c`` a topic without results
is never evaluated, so it adds 0, unconverted, to the mean's sum.

The lookups are binary searches with ``end = n`` (convert_zscores.c:67-107): looking up a
measure past the last one of its qid reads the next qid's first line (so that line's mean and
stddev are used when its measure has the same name); past the last qid, or past the last line
of the file, trec_eval reads beyond its array and crashes (exit 139): the drop-in stops with a
message instead.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import numpy as np

from auditeval.io.prefs_files import PrefsLineError, PrefsReadError, Zscores, read_zscores
from auditeval.trec_eval.catalog import is_10
from auditeval.trec_eval.parse import TrecError
from auditeval.trec_eval.text import fs_path

MISSING = -1000000.0  # trec_eval.h:218 MISSING_ZSCORE_VALUE
EXIT = 255  # trec_eval.c: return (UNDEF) from main


def load(path: str, version: str) -> Zscores:
    """Read the ``-Z`` file, failing with trec_eval's words and exit status."""
    try:
        return replace(read_zscores(fs_path(path)), source=path)
    except PrefsReadError:
        where = "get_zscores" if is_10(version) else "get_prefs"
        raise TrecError(f"trec_eval.{where}: Cannot read zscores file '{path}'\n", EXIT) from None
    except PrefsLineError as exc:
        raise TrecError(f"trec_eval.get_zscores: Malformed line {exc.count}\n", EXIT) from None


def _crash(z: Zscores, what: str) -> TrecError:
    return TrecError(
        f"auditeval trec-eval: {z.source}: {what}; trec_eval reads past its z-score array here and crashes "
        "(segmentation fault, exit 139)\n", 2)


def _search(keys: Sequence[str], key: str, beyond) -> int | None:
    """convert_zscores.c ``find_qid``/``find_meas``: index of ``key``; ``beyond()`` is called
    when the search probes index ``len(keys)`` and returns the key stored there."""
    start, end = 0, len(keys)
    while start <= end:
        cur = (start + end) // 2
        k = keys[cur] if cur < len(keys) else beyond()
        if key < k:
            end = cur - 1
        elif key > k:
            start = cur + 1
        else:
            return cur
    return None


def convert(z: Zscores, qid: str, names: Sequence[str], values: Sequence[float]) -> list[float]:
    """One topic's values after ``te_convert_to_zscore``."""
    def past_qids() -> str:
        raise _crash(z, f"topic '{qid}' sorts after every z-score topic")

    qi = _search(z.qids, qid, past_qids)
    if qi is None:
        return [MISSING] * len(values)
    entries = z.entries[qi][1]
    keys = [e[0] for e in entries]
    nxt = z.entries[qi + 1][1][0] if qi + 1 < len(z.qids) else None
    out = []
    for name, v in zip(names, values, strict=True):

        def beyond(name: str = name) -> str:
            if nxt is None:
                raise _crash(z, f"measure '{name}' sorts after every measure of the last topic '{qid}'")
            return nxt[0]

        k = _search(keys, name, beyond)
        if k is None:
            out.append(MISSING)
            continue
        _m, mean, sd = entries[k] if k < len(entries) else nxt
        if sd:
            out.append((v - mean) / sd)
        else:
            out.append(0.0 if v == mean else MISSING)
    return out


def convert_matrix(z: Zscores, topics: Sequence[str], names: Sequence[str], values: np.ndarray,
                   evaluated: np.ndarray) -> np.ndarray:
    """``values[name, topic]`` converted topic by topic; topics not ``evaluated`` (9.0.8 -c:
    no results) keep their value."""
    out = np.array(values, dtype=np.float64, copy=True)
    for ti, t in enumerate(topics):
        if evaluated[ti]:
            out[:, ti] = convert(z, t, names, out[:, ti].tolist())
    return out


def z_line(name: str, topic: str, value: float) -> str:
    """A value line under ``-Z``: ``Z`` before the padded name, always ``%6.4f``."""
    from auditeval.trec_eval.format import c_float, line

    return "Z" + line(name, topic, c_float(value))


def converted(z: Zscores, insts, res: dict, p, ten: bool, gm_floor: float) -> dict:
    """The standard path's results (``id(inst) -> (measure, variant, lists, values, aggregate)``)
    with every per-topic value converted and each aggregate formed again from the z-values
    (the measure's own aggregation, :func:`auditeval.engine.aggregate`); ``num_q`` keeps its
    count. 9.0.8 ``-c``: topics without results (``p.missing``) are not converted."""
    from auditeval.engine import aggregate
    from auditeval.vocab.specs import SPECS

    topics = [str(t) for t in p.topics]
    valued = [i for i in insts if id(i) in res and i.spec.fmt != "str"]
    mat = np.zeros((len(valued), len(topics)))
    geo = np.zeros(len(valued), bool)
    for k, inst in enumerate(valued):
        m, _v, p2, vals, _agg = res[id(inst)]
        if inst.spec.name == "num_q":
            mat[k] = 1.0
            continue
        if p2 is p:
            mat[k] = np.asarray(vals, dtype=np.float64)
        else:
            where = {str(t): j for j, t in enumerate(p2.topics)}
            mat[k] = [vals[where[t]] for t in topics]
        if SPECS[m.name].agg == "gmean":  # gm_*: the topic's value is log(max(v, floor)) (m_gm_map.c:60-61)
            geo[k] = True
            mat[k] = np.log(np.maximum(mat[k], gm_floor))
    evaluated = np.ones(len(topics), bool) if ten else ~np.asarray(p.missing, bool)
    zmat = convert_matrix(z, topics, [i.name for i in valued], mat, evaluated)
    out = dict(res)
    for k, inst in enumerate(valued):
        m, variant, _p2, _vals, agg = res[id(inst)]
        if geo[k]:  # meas_avg.c te_calc_avg_meas_s_gm: exp((sum + missing * log(floor)) / n)
            s = float(np.cumsum(zmat[k][evaluated])[-1]) if evaluated.any() else 0.0
            s += (len(topics) - int(evaluated.sum())) * float(np.log(gm_floor))
            agg = float(np.exp(s / len(topics))) if len(topics) else 0.0
        elif inst.spec.name != "num_q":
            agg = aggregate(zmat[k], SPECS[m.name].agg, gm_floor)
        out[id(inst)] = (m, variant, p, zmat[k], agg)
    return out
