"""``auditeval trec-eval --as 8.0 | 8.1``: trec_eval 8.x, another program than 9.x.

Control flow (8.1 trec_eval.c ``main``; 8.0 the same):

1. flags (no getopt, trec_eval.c:104-160): while ``argv[1]`` starts with ``-``, its second
   character decides: ``q`` per-topic values, ``v`` version (stderr, exit 0), ``h`` help, ``a``
   every measure, ``o`` the old layout, ``c`` average over every qrels topic, ``lN`` relevance
   level, ``J`` judged documents only, ``NN`` collection size, ``MN`` depth, ``U[abcd]X``
   utility coefficients, ``T`` time measures; anything else, or not exactly two files after
   the flags, prints the usage text and exits 1. Flags after a file name are file names.
2. qrels then results are read whole (get_qrels.c, get_top.c; :func:`read_inputs`): errors are
   ``trec_eval: input error: in trec_eval: 'MESSAGE' Illegal parameter value - Quit``, exit 2.
3. topics in the order they first appear in the results file; one without qrels is skipped.
   Per topic (form_trvec.c): a repeated results docno, then a repeated qrels docno, stops the
   run (exit 3, after the per-topic lines printed so far); the values come from the engine
   under the profile (``trec_eval-8.1`` / ``-8.0``) with ``-l`` rel and ``-M`` depth (``-J`` is
   applied to the input, :func:`_judged_only`), AP and bpref summed in C float
   (:func:`auditeval.engine.c_float_ap`), every value stored as a C float; a topic that retrieves nothing prints zeros
   (trvec_teval.c:52-54) and is left out of the means (print_meas.c:34).
4. no topic evaluated: main returns UNDEF: exit 255, nothing printed. Else the summary: float
   sums over the topics divided by ``num_q`` (``-c``: the number of qrels topics), in float
   (:func:`auditeval.engine.c_float.c_float_sum`).

Printed measures (measures.c ``print_short_flag``): ``num_q`` (summary), ``num_ret``,
``num_rel``, ``num_rel_ret`` (sums), ``map``, ``gm_ap`` (summary), ``R-prec``, ``bpref``,
``recip_rank``, ``ircl_prn.0.00`` .. ``ircl_prn.1.00``, ``P5`` .. ``P1000``, as
``"%-15s\\t%s\\t%6.4f\\n"`` (print_meas.c:79-205; the topic id cut to 20 bytes, ``%.20s``);
``-o`` prints print_meas.c:212-330's old layout instead. ``-a`` (every measure of
measures.c's tables: about 135 per topic) and ``-T`` (ranking by increasing score, the score read
as a time; with ``-a`` the time measures) are computed by the engine from each topic's tr_vec
(:func:`auditeval.engine.trec8_topic`, trvec_teval.c in C float; :func:`_run_all`), every value
once, the default ones included, and printed by :mod:`auditeval.trec_eval.v8_table`; ``-N`` and
``-U`` change only ``-a``'s utility measures.

8.0 differs from 8.1 (diff -r of the sources): its bpref counts only rel == 0 as judged
nonrelevant (8.1 counts 0 <= rel < level), before asking whether a document is relevant: under
``-l2`` a grade 1 is neither, under ``-l0`` a grade 0 is relevant for R and nonrelevant for
bpref (:func:`auditeval.engine.c_float_bpref` with ``zero_only``). It keeps qrels -1 as -1 (for
the printed measures what 8.1 does with its pool-unjudged -2); an unreadable results file is
"Cannot read qrels file" (get_top.c:49).

A relevance level below 0 and 8.1's qrels grades below -2 are 8.x's own counts (:func:`_own_counts`):
there the default measures are also the port's (step 3's engine path is for the conventions
``--variants`` names), printed in the default or ``-o`` layout.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TextIO

import numpy as np

from auditeval.engine import (
    Trec8Params,
    as_c_float,
    as_sim,
    c_float_ap,
    c_float_bpref,
    c_float_means,
    evaluate_prepared,
    glibc_msort,
    trec8_accumulate,
    trec8_printed,
    trec8_topic,
)
from auditeval.io import c_atof, c_atol
from auditeval.trec_eval.catalog import CUTOFFS_8 as CUTOFFS
from auditeval.trec_eval.catalog import PROFILES, SHORT_8, VERSION_IDS, table
from auditeval.trec_eval.format import c_float
from auditeval.trec_eval.params import instances
from auditeval.trec_eval.text import field as byte_field
from auditeval.trec_eval.text import fs_path
from auditeval.trec_eval.v8_table import print_rel
from auditeval.vocab.conventions import load_profile
from auditeval.vocab.model import Qrels, Run, qrels_table, run_table

USAGE_8 = """Usage: trec_eval [-h] [-q] [-a] [-o] [-v] trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -a: Print all evaluation measures, instead of just official measures
   -o: Print requested measures in old non-relational format
"""

class Stop(Exception):
    """trec_eval 8.x stops: ``text`` to stderr, exit status ``code``."""

    def __init__(self, text: str, code: int):
        super().__init__(text)
        self.text, self.code = text, code


@dataclass
class Args8:
    """The flags of one 8.x command line and its two files."""

    version: str
    query: bool = False
    all: bool = False
    old: bool = False
    complete: bool = False
    judged_only: bool = False
    time: bool = False
    rel_level: int = 1
    max_docs: int | None = None
    num_docs: int = 0
    utility: list[float] = field(default_factory=lambda: [1.0, -1.0, 0.0, 0.0])
    files: list[str] = field(default_factory=list)


def _error(message: str) -> str:
    """error_msgs.c ``print_error`` after ``set_error (SM_ILLPA_ERR, message, "trec_eval")``."""
    return f"{message}: in trec_eval: '{{}}' Illegal parameter value - Quit\n"


def input_error(message: str) -> Stop:
    return Stop(_error("trec_eval: input error").format(message), 2)


def parse_args8(argv: list[str], version: str) -> Args8 | Stop:
    """trec_eval.c:104-160 (8.1; 8.0 the same): the flags, or the Stop they end in (``-v``: the
    version, exit 0; ``-h``: code -1, the build's help, text the utility coefficients; anything else: usage, exit 1)."""
    a = Args8(version)
    rest = list(argv)
    while rest and rest[0][:1] == "-":
        flag = rest[0][1:2]
        arg = rest[0][2:]
        if flag == "q":
            a.query = True
        elif flag == "v":
            return Stop(f"trec_eval version {VERSION_IDS[version]}\n", 0)
        elif flag == "h":  # the help names utility by the coefficients read so far
            return Stop("_".join(f"{u:3.1f}" for u in a.utility), -1)
        elif flag == "a":
            a.all = True
        elif flag == "o":
            a.old = True
        elif flag == "c":
            a.complete = True
        elif flag == "l":
            a.rel_level = c_atol(arg)
        elif flag == "J":
            a.judged_only = True
        elif flag == "N":
            a.num_docs = c_atol(arg)  # num_docs_in_coll: utility's d cell
        elif flag == "M":
            a.max_docs = c_atol(arg)
        elif flag == "U":
            if arg[:1] not in ("a", "b", "c", "d") or not arg:
                return Stop(USAGE_8, 1)
            a.utility["abcd".index(arg[0])] = c_atof(arg[1:])  # utility coefficients
        elif flag == "T":
            a.time = True
        else:
            return Stop(USAGE_8, 1)
        rest.pop(0)
    if len(rest) != 2:
        return Stop(USAGE_8, 1)
    a.files = rest
    return a


def _read(path: str) -> bytes | None:
    """The whole file, or None where open/lseek/read fail (a directory, a missing file)."""
    try:
        with open(fs_path(path), "rb") as fh:
            return fh.read()
    except OSError:
        return None


def _long(field: bytes) -> int:
    """C ``atol`` of one field (Python's int where it reads the same digits)."""
    if field.isdigit():
        return int(field)
    return c_atol(_decode(field))


def _float(field: bytes) -> float:
    """C ``atof`` of one field (Python's float where the text is a plain decimal number)."""
    try:
        if b"_" not in field:
            return float(field)
    except ValueError:
        pass
    return c_atof(_decode(field))


@dataclass
class Input8:
    """Both files as 8.x holds them: per topic, in first-appearance order, (docno, grade) and
    (docno, score) pairs in file order; the run id of the last results line."""

    q_topics: list[str]  # qrels topics, first-appearance order
    qrels: dict[str, list[tuple[str, int]]]
    r_topics: list[str]  # results topics, first-appearance order
    run: dict[str, list[tuple[str, float]]]
    run_id: str


def _decode(b: bytes) -> str:
    return byte_field(b)  # one character per byte (:mod:`.text`)


def read_inputs(a: Args8) -> Input8:
    """get_qrels.c and get_top.c: a qrels line has exactly 4 fields ("Malformed" with fewer,
    "malformed" with more; a blank line too), a results line at least 6 (blank lines skipped),
    grades C ``atol``, scores C ``atof``; an empty file holds no topic (not an error)."""
    qpath, rpath = a.files
    qdata = _read(qpath)
    if qdata is None:
        raise input_error("Cannot read qrels file")
    qrels: dict[str, list[tuple[str, int]]] = {}
    if qdata:
        data = qdata if qdata.endswith(b"\n") else qdata + b"\n"
        names: dict[bytes, list[tuple[str, int]]] = {}
        for line in data[:-1].split(b"\n"):
            f = line.split()  # bytes.split: the C isspace bytes, as get_qrels.c walks them
            if len(f) != 4:
                raise input_error("Malformed qrels line" if len(f) < 4 else "malformed qrels line")
            lst = names.get(f[0])
            if lst is None:
                lst = names[f[0]] = qrels.setdefault(_decode(f[0]), [])
            lst.append((_decode(f[2]), _long(f[3])))
    rdata = _read(rpath)
    if rdata is None:  # get_top.c:49: 8.0 names the qrels file
        raise input_error("Cannot read results file" if a.version == "8.1" else "Cannot read qrels file")
    run: dict[str, list[tuple[str, float]]] = {}
    run_id = ""
    if rdata:
        data = rdata if rdata.endswith(b"\n") else rdata + b"\n"
        topics: dict[bytes, list[tuple[str, float]]] = {}
        last = b""
        for line in data[:-1].split(b"\n"):
            f = line.split()
            if not f:
                continue  # blank lines are skipped (get_top.c:80)
            if len(f) < 6:
                raise input_error("malformed top results line")
            lst = topics.get(f[0])
            if lst is None:
                lst = topics[f[0]] = run.setdefault(_decode(f[0]), [])
            lst.append((_decode(f[2]), _float(f[4])))
            last = f[5]
        run_id = _decode(last)
    return Input8(list(qrels), qrels, list(run), run, run_id)


# ---------------------------------------------------------------------------------- measures
def _measures() -> dict[str, list]:
    """The auditeval measures behind 8.x's default values, by 9.x table name (one per value:
    ``iprec_at_recall`` its 11 levels, ``P`` its 9 cut-offs)."""
    specs = {s.name: s for s in table("9.0.8")}
    return {name: [i.measure for i in instances(specs[name], None)]
            for name in ("num_ret", "num_rel", "num_rel_ret", "map", "Rprec", "bpref", "recip_rank",
                         "iprec_at_recall", "P")}


def main_v8(argv: list[str], out: TextIO, err: TextIO) -> int:
    argv = list(argv)
    version = None
    variants = False
    rest: list[str] = []
    i = 0
    while i < len(argv):  # the drop-in's own flags, wherever they are
        if argv[i] == "--as" and i + 1 < len(argv):
            version = argv[i + 1]
            i += 2
            continue
        if argv[i].startswith("--as="):
            version = argv[i][5:]
        elif argv[i] == "--variants":
            variants = True
        else:
            rest.append(argv[i])
        i += 1
    assert version is not None
    try:
        return _run(rest, version, variants, out, err)
    except Stop as s:
        err.write(s.text)
        return s.code


def _run(argv: list[str], version: str, variants: bool, out: TextIO, err: TextIO) -> int:
    a = parse_args8(argv, version)
    if isinstance(a, Stop):
        if a.code == -1:  # -h: the build's own help text
            from auditeval.trec_eval.help import help_8

            out.write(help_8(version, a.text))
            return 0
        raise a
    inp = read_inputs(a)
    loop = [t for t in inp.r_topics if t in inp.qrels]
    # form_trvec.c:60-90: duplicates stop the run at their topic (results first, then qrels)
    stop_at, stop_text = len(loop), ""
    for k, t in enumerate(loop):
        docs = [d for d, _ in inp.run[t]]
        if len(set(docs)) != len(docs):
            stop_at, stop_text = k, "Duplicate top docs docno"
            break
        qdocs = [d for d, _ in inp.qrels[t]]
        if len(set(qdocs)) != len(qdocs):
            stop_at, stop_text = k, "Duplicate qrels docno"
            break
    done = loop[:stop_at]
    if a.all or a.time or _own_counts(a, inp, done):
        if variants:
            err.write("auditeval trec-eval: --variants is not printed under -a or -T (its port of 8.x's "
                      "measures names no convention)\n" if a.all or a.time else
                      "auditeval trec-eval: --variants is not printed under a relevance level below 0 or "
                      "a qrels grade below -2 (8.x's counts there name no convention)\n")
        return _run_all(a, inp, done, bool(loop), stop_text, out)
    values = _values(a, inp, done)
    shown = _variant_texts(a, inp, done, values) if variants and not a.old else None
    text = []
    if a.query:
        for t in done:
            text.append(_topic_text(a, t, values[t], shown))
    if stop_text:
        out.write("".join(text))
        raise Stop(_error("trec_eval: form_tr_vec error").format(stop_text), 3)
    if not loop:
        out.write("".join(text))
        return 255  # trec_eval.c:238 returns UNDEF before print_error: nothing printed
    text.append(_summary_text(a, inp, done, values, shown))
    out.write("".join(text))
    return 0


def _own_counts(a: Args8, inp: Input8, topics: list[str]) -> bool:
    """Whether 8.x's counts leave the conventions the default measures are evaluated under, so
    its port (:func:`auditeval.engine.trec8_topic`, as under ``-a``) gives the values:

    * ``-l`` below 0: num_rel counts the qrels lines of grade >= level, negative ones included
      (form_trvec.c:80-88), and every rank-based count asks ``rel >= level`` of the tr_vec,
      where a document outside the qrels is -1 (counted from ``-l-1`` on) and 8.1's qrels
      grade -1 is -2 (counted from ``-l-2`` on, though its line is in num_rel from ``-l-1``);
      8.1's bpref has no judged nonrelevant document (``0 <= rel < level`` is empty), 8.0's
      takes grade 0 as nonrelevant and any counted code as relevant;
    * 8.1, a qrels grade below -2 (any level): its bpref loop takes the document as relevant
      (the else branch, trvec_teval.c:354) though num_rel does not count it (8.0's skips it,
      as the conventions do).
    """
    return a.rel_level < 0 or (a.version == "8.1" and any(g < -2 for t in topics for _, g in inp.qrels[t]))


def tr_vec(a: Args8, inp: Input8, t: str) -> tuple[list[int], list[float], int, int]:
    """form_trvec.c:24-150 for one topic: the ranked documents' relevance values and float
    scores in rank order (by score, decreasing; ``-T``: increasing, comp_negsim_docno; ties by
    docno, decreasing), cut at rank ``-M``, without the documents outside the qrels under
    ``-J``; relevance -1 outside the qrels, 8.1 -2 for a qrels grade -1 (8.0 keeps -1); and the
    topic's qrels lines with grade >= level and the others (trec_eval.c:212 num_nonrel)."""
    docs = inp.run[t]
    raw = [s for _, s in docs]
    scores = [-s for s in raw] if a.time else raw
    if any(s != s for s in raw):
        order = _order(docs, scores)
    else:  # a consistent comparator: one order; two stable sorts (docno decreasing, then score)
        sims = as_sim(np.array(scores, dtype=np.float64), "float32").tolist()
        keys = [d.encode("latin-1") for d, _ in docs]
        order = sorted(range(len(docs)), key=lambda i: keys[i], reverse=True)
        order.sort(key=lambda i: -sims[i])
    if a.max_docs is not None:
        order = order[: max(a.max_docs, 0)]
    grades = dict(inp.qrels[t])
    rels: list[int] = []
    kept: list[float] = []
    for i in order:
        d, s = docs[i]
        g = grades.get(d)
        if g is None:
            if a.judged_only:
                continue
            r = -1
        else:
            r = -2 if (g == -1 and a.version == "8.1") else g
        rels.append(r)
        kept.append(s)
    num_rel = sum(1 for g in grades.values() if g >= a.rel_level)
    sims_out = as_sim(np.array(kept, dtype=np.float64), "float32").astype(np.float64).tolist()
    return rels, sims_out, num_rel, len(inp.qrels[t]) - num_rel


def _run_all(a: Args8, inp: Input8, done: list[str], any_topic: bool, stop_text: str, out: TextIO) -> int:
    """``-a`` / ``-T``: every measure of 8.x's table, each computed once by the engine from the
    topic's tr_vec (:func:`auditeval.engine.trec8_topic`, summed by
    :func:`auditeval.engine.trec8_accumulate`), printed as print_meas.c prints them
    (:mod:`auditeval.trec_eval.v8_table`), or ``-o``'s old layout (which ``-a`` does not change)."""
    params = Trec8Params(version=a.version, relevance_level=a.rel_level, time_flag=a.time,
                         utility=tuple(a.utility), num_docs_in_coll=a.num_docs)
    show = {"version": a.version, "all_flag": a.all, "time_flag": a.time, "utility": tuple(a.utility)}
    evals = []
    text = []
    for t in done:
        rels, sims, num_rel, num_nonrel = tr_vec(a, inp, t)
        ev = trec8_topic(params, np.array(rels, dtype=np.int64), np.array(sims), num_rel, num_nonrel)
        evals.append(ev)
        if a.query:
            vals = trec8_printed(ev)
            text.append(_old_block(_topic_id(t), _old_vals(vals)) if a.old else print_rel(vals, _topic_id(t), **show))
    if stop_text:
        out.write("".join(text))
        raise Stop(_error("trec_eval: form_tr_vec error").format(stop_text), 3)
    if not any_topic:
        out.write("".join(text))
        return 255
    acc, n = trec8_accumulate(evals)
    nq = len(inp.q_topics) if a.complete else n
    vals = trec8_printed(acc, nq, summary={"summed": n, "complete": a.complete})
    text.append(_old_block("All", _old_vals(vals)) if a.old else print_rel(vals, None, num_queries=nq, **show))
    out.write("".join(text))
    return 0


def _old_vals(ev: dict) -> dict[str, float]:
    """The printed values old_print_trec_eval_list shows (print_meas.c:212-330), by name."""
    vals = {"num_ret": ev["num_ret"], "num_rel": ev["num_rel"], "num_rel_ret": ev["num_rel_ret"],
            "map": ev["av_recall_precis"], "R-prec": ev["R_recall_precis"]}
    for i in range(11):
        vals[f"ircl_prn.{i / 10:4.2f}"] = ev["int_recall_precis"][i]
    for j, k in enumerate(CUTOFFS):
        vals[f"P{k}"] = ev["precis_cut"][j]
    return vals


def _values(a: Args8, inp: Input8, topics: list[str]) -> dict[str, dict[str, float]]:
    """Per topic: printed name -> value, as trvec_teval.c stores it (floats as C float)."""
    if not topics:
        return {}
    qt, qd, qg = [], [], []
    for t in topics:
        for d, g in inp.qrels[t]:
            qt.append(t)
            qd.append(d)
            # form_trvec.c:117-121 (8.1): -1 is pool-unjudged, any other negative grade is
            # never relevant and never judged nonrelevant: the same under negatives=pooled
            qg.append(g)
    rt, rd, rs = [], [], []
    for t in topics:
        docs = inp.run[t]
        scores = _nan_order(docs) if any(s != s for _, s in docs) else [s for _, s in docs]
        if a.judged_only:
            docs, scores = _judged_only(docs, scores, {d for d, _ in inp.qrels[t]}, a.max_docs)
        for (d, _), s in zip(docs, scores, strict=True):
            rt.append(t)
            rd.append(d)
            rs.append(s)
    qrels = Qrels(qrels_table(qt, qd, np.array(qg, dtype=np.int64)), source=a.files[0])
    run = Run(run_table(rt, rd, np.array(rs, dtype=np.float64)), name=inp.run_id, source=a.files[1])
    conv = load_profile(PROFILES[a.version]).convention
    changes: dict = {"rel": a.rel_level}
    if a.max_docs is not None and not a.judged_only:
        changes["depth"] = max(a.max_docs, 0)
    conv = conv.replace(**changes)
    if not rt:
        return {t: {o.name: 0.0 for o in SHORT_8} for t in topics}
    ms = _measures()
    flat = [m for name in ms for m in ms[name]]
    rows = evaluate_prepared(qrels, run, flat, conv, cache={})
    by = {}
    k = 0
    for name in ms:
        by[name] = rows[k:k + len(ms[name])]
        k += len(ms[name])
    # AP and bpref as 8.x computes them, in C float and with its bpref counts (engine/c_float.py)
    m, var, p, _vals, agg = by["map"][0]
    by["map"] = [(m, var, p, c_float_ap(p, conv), agg)]
    m, var, p, _vals, agg = by["bpref"][0]
    by["bpref"] = [(m, var, p, c_float_bpref(p, conv, zero_only=a.version == "8.0"), agg)]
    stored = {o.name: as_c_float(by[o.source][o.index][3]) if o.kind == "float" else by[o.source][o.index][3]
              for o in SHORT_8}
    p_topics = [str(x) for x in rows[0][2].topics]
    pos = {t: j for j, t in enumerate(p_topics)}
    out: dict[str, dict[str, float]] = {}
    for t in topics:
        j = pos.get(t, -1)
        num_ret = float(by["num_ret"][0][3][j]) if j >= 0 else 0.0
        vals: dict[str, float] = {}
        for o in SHORT_8:
            # trvec_teval.c:52-54: nothing retrieved, every value stays 0
            vals[o.name] = 0.0 if num_ret <= 0 else float(stored[o.name][j])
        out[t] = vals
    return out


def _judged_only(docs: list[tuple[str, float]], scores: list[float], judged: set[str],
                 max_docs: int | None) -> tuple[list[tuple[str, float]], list[float]]:
    """-J as form_trvec.c:100-140 applies it: the -M cut on the full ranking first, then only
    the documents in the topic's qrels (a negative grade included: in the pool), ranks renumbered.
    The engine then sees the judged ranking (the convention's unjudged=drop, applied to the input
    because 8.x keeps negative-grade documents that 9.x's -J drops)."""
    if max_docs is None:
        keep = [i for i, (d, _) in enumerate(docs) if d in judged]
        return [docs[i] for i in keep], [scores[i] for i in keep]
    order = _order(docs, scores)[: max(max_docs, 0)]
    kept = [i for i in order if docs[i][0] in judged]
    return [docs[i] for i in kept], [float(len(kept) - k) for k in range(len(kept))]


def _order(docs: list[tuple[str, float]], scores: list[float]) -> list[int]:
    """Row indices in 8.x's rank order: comp_sim_docno (form_trvec.c:160-168) under glibc qsort."""
    sims = as_sim(np.array(scores, dtype=np.float64), "float32").tolist()
    keys = [d.encode("latin-1") for d, _ in docs]

    def cmp(i: int, j: int) -> int:
        if sims[i] > sims[j]:
            return -1
        if sims[i] < sims[j]:
            return 1
        return (keys[j] > keys[i]) - (keys[j] < keys[i])

    return glibc_msort(list(range(len(docs))), cmp)


def _nan_order(docs: list[tuple[str, float]]) -> list[float]:
    """Scores that rank a topic holding a NaN score as 8.x's qsort does (form_trvec.c:44-48).

    comp_sim_docno (form_trvec.c:160-168) is inconsistent with a NaN score (neither above nor
    below: the docno decides), so the order is glibc's merge sort's, run on the topic's lines
    in file order (get_top.c keeps them so; 9.x starts from docno order). The returned scores
    n, n-1, ... give that order under any tie rule."""
    order = _order(docs, [s for _, s in docs])
    out = [0.0] * len(docs)
    for pos, idx in enumerate(order):
        out[idx] = float(len(docs) - pos)
    return out


def _line(name: str, topic: str, text: str, variant: str | None = None) -> str:
    return f"{name:<15}\t{topic}\t{text}" + ("" if variant is None else "\t" + variant) + "\n"


def _variant_texts(a: Args8, inp: Input8, topics: list[str],
                   values: dict[str, dict[str, float]]) -> dict[str, tuple[str, str]]:
    """``--variants``: printed name -> (per-topic, summary) variant strings under the stated
    convention (the profile with ``-l``, ``-M``, ``-J``, ``-c``), or ``-`` where 8.x's value is
    not that variant's: a NaN score (8.x's qsort from file order), ``-J`` with a negative grade
    in the qrels (8.x keeps such documents), bpref where 8.x's counts differ from the Bpref
    measure's (negative grades in its denominator; 8.0's grades in [1, level), or 0 under -l0),
    and summaries that leave out a topic that retrieved nothing (print_meas.c:34)."""
    from auditeval.vocab.variant import Variant

    conv = load_profile(PROFILES[a.version]).convention
    changes: dict = {"rel": a.rel_level}
    if a.judged_only:
        changes["unjudged"] = "drop"
    if a.max_docs is not None:
        changes["depth"] = max(a.max_docs, 0)
    if a.complete:
        changes["topics"] = "qrels"
    conv = conv.replace(**changes)
    grades = [g for t in topics for _, g in inp.qrels[t]]
    nan = any(sc != sc for t in topics for _, sc in inp.run[t])
    odd_all = nan or (a.judged_only and any(g < 0 for g in grades))
    odd_bpref = any((g < 0 and a.rel_level > 0) or (a.version == "8.0" and (0 < g < a.rel_level or
                                                                             (g == 0 and a.rel_level <= 0)))
                    for g in grades)
    empty = any(values[t]["num_ret"] <= 0 for t in topics)
    ms = _measures()
    specs = {sp.name: sp for sp in table("9.0.8")}
    out: dict[str, tuple[str, str]] = {}
    for o in SHORT_8:
        m = instances(specs["gm_map"], None)[0].measure if o.name == "gm_ap" else ms[o.source][o.index]
        text = "-" if odd_all or (o.source == "bpref" and odd_bpref) else str(Variant.of(m, conv))
        out[o.name] = (text, "-" if empty else text)
    return out


def _topic_id(t: str) -> str:
    return t[:20]  # print_meas.c:101 "%.20s" (one character per byte)


def _topic_text(a: Args8, t: str, vals: dict[str, float], shown: dict[str, tuple[str, str]] | None) -> str:
    if a.old:
        return _old_block(_topic_id(t), vals)
    lines = []
    for o in SHORT_8:
        if o.summary_only:
            continue
        v = vals[o.name]
        lines.append(_line(o.name, _topic_id(t), str(int(v)) if o.kind == "long" else c_float(v),
                           None if shown is None else shown[o.name][0]))
    return "".join(lines)


def _summary_text(a: Args8, inp: Input8, topics: list[str], values: dict[str, dict[str, float]],
                  shown: dict[str, tuple[str, str]] | None) -> str:
    counted = [t for t in topics if values[t]["num_ret"] > 0]  # print_meas.c:34
    n = len(inp.q_topics) if a.complete else len(counted)
    missing = n - len(counted) if a.complete else 0
    sums = {o.name: c_float_means(np.array([values[t][o.name] for t in counted], dtype=np.float64),
                                  "gm" if o.name == "gm_ap" else o.kind, n, missing) for o in SHORT_8}
    if a.old:
        return _old_block("All", sums)
    lines = [_line("num_q", "all", str(n), None if shown is None else "-")]
    for o in SHORT_8:
        v = sums[o.name]
        lines.append(_line(o.name, "all", str(int(v)) if o.kind == "long" else c_float(v),
                           None if shown is None else shown[o.name][1]))
    return "".join(lines)


def _old_block(qid: str, vals: dict[str, float]) -> str:
    """print_meas.c:212-330 ``old_print_trec_eval_list`` for one run: ``vals`` are the printed
    values (a topic's, whose division by one query changes no float, or the summary's means)."""

    def f(name: str) -> str:
        return c_float(vals[name])

    s = ["\nQueryid (Num):\t", qid, "\nTotal number of documents over all queries", "\n    Retrieved:",
         f"    {int(vals['num_ret']):5d}", "\n    Relevant: ", f"    {int(vals['num_rel']):5d}",
         "\n    Rel_ret:  ", f"    {int(vals['num_rel_ret']):5d}", "\nInterpolated Recall - Precision Averages:"]
    for i in range(11):
        s.append(f"\n    at {i / 10:4.2f}     ")
        s.append(f"  {f(f'ircl_prn.{i / 10:4.2f}')} ")
    s.append("\nAverage precision (non-interpolated) for all rel docs(averaged over queries)\n                ")
    s.append(f"  {f('map')} ")
    s.append("\nPrecision:")
    for k in CUTOFFS:
        s.append(f"\n  At {k:4d} docs:")
        s.append(f"   {f(f'P{k}')}")
    s.append("\nR-Precision (precision after R (= num_rel for a query) docs retrieved):\n    Exact:     ")
    s.append(f"   {f('R-prec')}")
    s.append("\n")
    return "".join(s)
