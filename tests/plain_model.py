"""A plain-Python model of the measures, independent of auditeval's engine: the reference the
axis tests (``test_axes.py``) and the text-view tests (``test_text_widths.py``) compare with.

:func:`ranked` applies a convention (a dict of axis values, as a profile's TOML states them)
to qrels rows ``(topic, doc, grade, line)`` and run rows ``(topic, doc, score, rank, line)`` in
the plainest way (Python sorts, dicts); :func:`reference_value` computes one measure on one
topic's ranked grades; :func:`mean` reads a qrels and a run file itself and averages over the
topics the convention evaluates.
"""

from __future__ import annotations

import gzip
import math
import tomllib
from pathlib import Path

import numpy as np

CONVENTIONS = Path(__file__).resolve().parents[1] / "conventions"


def dedup(rows, how):
    seen = {}
    for row in rows:
        key = (row[0], row[1])
        if how == "first":
            seen.setdefault(key, row)
        else:
            seen[key] = row
    kept = set(id(r) for r in seen.values())
    return [r for r in rows if id(r) in kept]


def ranked(conv, qrels, run):
    """topic -> ranked grades (NONPOOL -1, pooled-unjudged -2) and topic -> judged grades."""
    if conv["dups"] != "error":
        qrels = dedup(qrels, conv["dups"])
    judged: dict[str, dict[str, int]] = {}
    for t, d, g, _ in qrels:
        if g < 0:
            g = -2 if conv["negatives"] == "pooled" else 0
        judged.setdefault(t, {})[d] = g
    run_topics = {r[0] for r in run}
    rows = [r for r in run if not (conv["self_hits"] == "drop" and r[0] == r[1])]
    if conv["dups"] != "error":
        rows = dedup(rows, conv["dups"])
    if conv["sim"] == "float32":
        rows = [(t, d, float(np.float32(s)), k, ln) for t, d, s, k, ln in rows]
    ranked = {}
    for topic in sorted(run_topics, key=lambda s: s.encode()):
        rs = [r for r in rows if r[0] == topic]
        ties = conv["ties"]
        if ties == "rank":
            rs.sort(key=lambda r: (r[3], r[4]))
        else:
            if ties == "docno-desc":
                rs.sort(key=lambda r: r[1].encode(), reverse=True)
            elif ties == "docno-asc":
                rs.sort(key=lambda r: r[1].encode())
            elif ties == "docno-asc-numeric":
                rs.sort(key=lambda r: (not r[1].isascii() or not r[1].isdigit(), int(r[1]) if r[1].isascii() and r[1].isdigit() else 0, r[1].encode()))
            else:
                rs.sort(key=lambda r: r[4])
            rs.sort(key=lambda r: -r[2])
        if conv["depth"] != "all":
            rs = rs[: conv["depth"]]
        grades = [judged.get(topic, {}).get(d, -1) for _, d, _, _, _ in rs]
        if conv["unjudged"] == "drop":
            grades = [g for g in grades if g >= 0]
        ranked[topic] = grades
    qtopics = set(judged)
    chosen = {"both": run_topics & qtopics, "qrels": qtopics, "run": run_topics}[conv["topics"]]
    out = {}
    for topic in sorted(chosen, key=lambda s: s.encode()):
        qg = [g for g in judged.get(topic, {}).values() if g >= 0]
        out[topic] = (ranked.get(topic, []), qg)
    return out


def reference_value(measure, conv, grades, qgrades):
    rel = conv["rel"]
    is_rel = [g >= rel and g >= 0 for g in grades]
    big_r = sum(1 for g in qgrades if g >= rel)
    name, _, k = measure.partition("@")
    k = int(k) if k else None
    top = is_rel[:k] if k else is_rel
    if name == "P":
        return sum(top) / k
    if name == "R":
        den = min(big_r, k) if (k and conv["recall_denom"] == "min-R-k") else big_r
        return sum(top) / den if den else 0.0
    if name == "AP":
        total, hits = 0.0, 0
        for i, r in enumerate(top, start=1):
            if r:
                hits += 1
                total += hits / i
        den = {"R": big_r, "min-R-k": min(big_r, k) if k else big_r, "rel-ret": hits}[conv["ap_denom"]]
        return total / den if den else 0.0
    if name == "RR":
        return next((1 / i for i, r in enumerate(top, start=1) if r), 0.0)
    if name == "Success":
        return float(any(top))
    if name == "Rprec":
        return sum(is_rel[:big_r]) / big_r if big_r else 0.0
    if name == "NumRet":
        return len(grades)
    if name == "NumRel":
        return big_r
    if name == "NumRelRet":
        return sum(is_rel)
    if name == "nDCG":
        def gain(g):
            if g <= 0:
                return 0.0
            return float(g) if conv["gain"] == "linear" else 2.0**g - 1
        ranked = grades[:k] if k else grades
        dcg = sum(gain(g) / math.log2(i + 1) for i, g in enumerate(ranked, start=1))
        ideal = sorted((gain(g) for g in qgrades), reverse=True)
        ideal = ideal[:k] if k else ideal
        idcg = sum(x / math.log2(i + 1) for i, x in enumerate(ideal, start=1))
        return dcg / idcg if idcg > 0 else 0.0
    if name == "Accuracy":  # ir_measures' accuracy provider; no value without a relevant doc in the top k
        relk = is_rel[:k] if k else is_rel
        n_rel, n_non = sum(relk), len(relk) - sum(relk)
        if n_rel == 0:
            return math.nan
        if n_non == 0:
            return 1.0
        above, seen = 0, 0
        for r in relk:
            if r:
                above += seen
            else:
                seen += 1
        return 1 - above / (n_non * n_rel)
    raise AssertionError(measure)


def profile(name: str, *settings: str) -> dict:
    """A profile's axis values read from its TOML file, with ``AXIS=VALUE`` settings on top."""
    conv = dict(tomllib.loads((CONVENTIONS / f"{name}.toml").read_text())["axes"])
    for s in settings:
        k, _, v = s.partition("=")
        conv[k] = int(v) if v.isdigit() else v
    return conv


def _lines(path: str | Path) -> list[list[str]]:
    data = Path(path).read_bytes()
    if data[:2] == b"\x1f\x8b":
        data = gzip.decompress(data)
    return [ln.split() for ln in data.decode().splitlines() if ln.strip() and not ln.lstrip().startswith("#")]


def read(qrels_path: str | Path, run_path: str | Path) -> tuple[list[tuple], list[tuple]]:
    """Qrels rows ``(topic, doc, grade, line)`` and run rows ``(topic, doc, score, rank, line)``."""
    qrels = [(f[0], f[2], int(f[3]), i) for i, f in enumerate(_lines(qrels_path), 1)]
    run = [(f[0], f[2], float(f[4]), int(f[3]), i) for i, f in enumerate(_lines(run_path), 1)]
    return qrels, run


def per_topic(qrels_path, run_path, measure: str, conv: dict) -> dict[str, float]:
    qrels, run = read(qrels_path, run_path)
    return {t: reference_value(measure, conv, g, qg) for t, (g, qg) in ranked(conv, qrels, run).items()}


def mean(qrels_path, run_path, measure: str, conv: dict) -> float:
    """The mean of ``measure`` over the topics ``conv`` evaluates (0 for a missing topic; a
    topic without a value, NaN, left out)."""
    values = [v for v in per_topic(qrels_path, run_path, measure, conv).values() if not math.isnan(v)]
    return sum(values) / len(values)
