"""The drop-in under ``-R prefs``, ``-R qrels_prefs`` and ``-R qrels_jg`` (trec_eval.c ``main``
with another ``rel_info_format``; formats.c ``te_rel_info_format[]``).

Control flow, as trec_eval.c:

1. the rel_info file is read in its format (:mod:`auditeval.io.prefs_files`; ``Illegal rel_format``
   exit 2 for a format no build knows, before the results are read), then the results
   (:mod:`.parse`), then the ``-Z`` file (:mod:`.zscores`), then marked measures are initialised;
2. topics: 10.0 loops over the rel_info topics (a topic without results: ``not found``, exit 4;
   with ``-c`` its bogus one-document ranking ``ceci_nest_pas_un_docno``, trec_eval.c:153-156);
   9.0.8 over the results topics that have rel_info (``-c`` divides by the rel_info topics);
3. per topic, measures in table order: ``runid``/``num_q`` read nothing; a measure of another
   format fails there (its calc's format check: form_res_rels.c:75-80, form_prefs_counts.c:
   233-241, form_res_rels_jg.c:80-85) and so does a topic whose preferences are inconsistent
   (exit 4, after ``-q`` lines of earlier topics); values are computed by the engine
   (:func:`auditeval.engine.prefs_topic_values`, :func:`auditeval.engine.jg_topic_values`);
4. ``-Z``: converted per topic, then accumulated; summary: means over topics, ``num_*`` sums.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TextIO

import numpy as np

from auditeval.engine import (
    PrefsAbort,
    PrefsFailure,
    aggregate,
    jg_topic_values,
    judgment_variant,
    prefs_topic_values,
    ranked_docs,
)
from auditeval.io.prefs_files import (
    DuplicateJudgment,
    PrefsCrash,
    PrefsLineError,
    PrefsReadError,
    read_prefs,
    read_qrels_jg,
)
from auditeval.trec_eval import zscores as zs
from auditeval.trec_eval.catalog import is_10
from auditeval.trec_eval.format import line, value_text
from auditeval.trec_eval.order import sort_topics
from auditeval.trec_eval.params import Instance
from auditeval.trec_eval.parse import TrecError, check_results_format, read_run
from auditeval.trec_eval.quirks import _malloc_limit
from auditeval.trec_eval.rel_formats import REL_FORMATS, wrong_format
from auditeval.trec_eval.text import fs_path
from auditeval.vocab.model import Run
from auditeval.vocab.variant import Variant

BOGUS_DOC = "ceci_nest_pas_un_docno"  # trec_eval.c:154 (10.0 -c, a topic without results)


def read_rel_info(path: str, fmt: str, version: str):
    """The ``-R`` file in trec_eval's words on failure (exit 2 with ``Quit in file``)."""
    if fmt not in REL_FORMATS[1:]:
        raise TrecError(f"trec_eval: Illegal rel_format '{fmt}'\n", 2)
    where = {"prefs": "get_prefs", "qrels_prefs": "get_qrels_prefs", "qrels_jg": "get_qrels_jg"}[fmt]
    quit_ = f"trec_eval: Quit in file '{path}'\n"
    try:
        if fmt == "qrels_jg":
            return read_qrels_jg(fs_path(path), comments=is_10(version))
        return read_prefs(fs_path(path), fmt, comments=is_10(version))
    except PrefsReadError:
        what = "qrels" if fmt == "qrels_jg" else "prefs"
        read_where = "get_qrels_jg" if fmt == "qrels_jg" else "get_prefs"
        raise TrecError(f"trec_eval.{read_where}: Cannot read {what} file '{path}'\n{quit_}", 2) from None
    except PrefsLineError as exc:
        raise TrecError(f"trec_eval.{where}: Malformed line {exc.count}\n{quit_}", 2) from None
    except DuplicateJudgment as exc:
        raise TrecError(f"trec_eval.get_qrels: duplicate docs {exc.docno}\n{quit_}", 2) from None
    except PrefsCrash as exc:
        where_ = f"{path}:{exc.line}" if exc.line is not None else path
        raise TrecError(f"auditeval trec-eval: {where_}: {exc.reason}; trec_eval 10.0 crashes here (segmentation fault, exit 139)\n",
                        2) from None


@dataclass
class _RunTopics:
    docs: dict[str, list[str]]
    scores: dict[str, np.ndarray]


def _run_topics(run: Run) -> _RunTopics:
    t = run.table
    topic = t.column("topic").to_pylist()
    doc = t.column("doc").to_pylist()
    score = t.column("score").to_numpy(zero_copy_only=False).astype(np.float64)
    by: dict[str, list[int]] = {}
    for i, q in enumerate(topic):
        by.setdefault(q, []).append(i)
    return _RunTopics({q: [doc[i] for i in ix] for q, ix in by.items()},
                      {q: score[np.asarray(ix, dtype=np.int64)] for q, ix in by.items()})


def evaluate(a, init: Callable[[], list[Instance]], conv, out: TextIO, err: TextIO) -> int:
    """Run the drop-in on a ``-R`` prefs / qrels_prefs / qrels_jg file (``a``: parsed flags;
    ``init``: the marked measures' initialisation, done after the files are read)."""
    rel = read_rel_info(a.qrels, a.rel_format, a.version)
    check_results_format(a)
    run = read_run(a.run, a.version)
    z = zs.load(a.zscores, a.version) if a.zscores is not None else None
    return _loop(a, rel, run, init(), conv, z, out, err)


def _topic_values(rel, fmt: str, qid: str, docs: list[str], scores: np.ndarray, insts: list[Instance],
                  conv) -> list[float]:
    """Every value of one topic in table order (``num_q`` is 1), or PrefsFailure naming the
    measure whose calc stopped (form_prefs_counts / form_res_rels_jg run once per topic, at the
    first measure of their family: trec_eval caches them by qid)."""
    float32 = conv.sim == "float32"
    depth = None if conv.depth == "all" else int(conv.depth)
    prefs_vals: dict[str, float] = {}
    jg_vals: dict[str, float] = {}  # printed name -> value
    out: list[float] = []
    for inst in insts:
        if inst.measure is None:
            continue
        name = inst.spec.name
        bad = wrong_format(inst, fmt)
        if bad is not None:
            raise PrefsFailure(bad + f"trec_eval: Can't calculate measure '{name}'\n")
        try:
            if name == "num_q":
                out.append(1.0)
            elif inst.spec.rel_format == "prefs":
                if not prefs_vals:
                    t = rel.topics[qid]
                    _check_prefs_allocation(t)
                    ranked = ranked_docs(docs, scores, float32, depth, doc_desc=False)
                    names = [i.spec.name for i in insts if i.spec.rel_format == "prefs"]
                    prefs_vals = dict(zip(names, prefs_topic_values(t.jg, t.jsg, t.level, t.doc, ranked, names,
                                                                    float32), strict=True))
                out.append(prefs_vals[name])
            else:
                if not jg_vals:
                    _check_jg_allocation(rel.topics[qid].groups)
                    ranked = ranked_docs(docs, scores, float32, depth, doc_desc=True)
                    fams = {i.spec.name: [j for j in insts if j.spec.name == i.spec.name]
                            for i in insts if i.spec.rel_format == "qrels_jg"}
                    vals = jg_topic_values(rel.topics[qid].groups, ranked,
                                           [(n, [i.measure.cutoff for i in f]) for n, f in fams.items()],
                                           conv.rel, conv.unjudged == "drop")
                    jg_vals = {i.name: v for f, vs in zip(fams.values(), vals, strict=True)
                               for i, v in zip(f, vs, strict=True)}
                out.append(jg_vals[inst.name])
        except PrefsFailure as exc:
            raise PrefsFailure(exc.message + f"trec_eval: Can't calculate measure '{name}'\n") from None
    return out


def _check_prefs_allocation(t) -> None:
    """form_prefs_counts.c:296-320: a ``J x J`` unsigned short count array (J judged docs of the
    topic) and ``J x J`` bytes per judgment group with sub-groups; where malloc refuses (more
    than memory and swap, :mod:`.quirks`) the calc fails (exit 4, no message of its own)."""
    nj = len(set(t.doc))
    subs: dict[str, set[str]] = {}
    for g, s in zip(t.jg, t.jsg, strict=True):
        subs.setdefault(g, set()).add(s)
    n_pa = sum(1 for v in subs.values() if len(v) > 1)
    if max(2 * nj * nj, (n_pa + 2) * nj * nj if n_pa else 0) > _malloc_limit():
        raise PrefsFailure("")


def _check_jg_allocation(groups) -> None:
    """form_res_rels_jg.c:158-162: ``(max_rel + 1) * num_jgs`` longs; a grade so large that malloc
    refuses them fails the calc (exit 4), as form_res_rels.c does (:mod:`.quirks`)."""
    max_rel = max([0] + [int(r.max()) for _g, _d, r in groups if len(r)])
    if (max_rel + 1) * len(groups) * 8 > _malloc_limit():
        raise PrefsFailure("")


def _variant(inst: Instance, conv) -> str:
    """``--variants``: the value's variant string (preference and judgment-group measures: with
    their fixed tie rule, :func:`auditeval.engine.judgment_variant`)."""
    if inst.spec.rel_format == "qrels":
        return str(Variant.of(inst.measure, conv))
    return str(judgment_variant(inst.measure, conv))


def _loop(a, rel, run: Run, insts: list[Instance], conv, z, out: TextIO, err: TextIO) -> int:
    ten = is_10(a.version)
    fmt = a.rel_format
    rt = _run_topics(run)
    rel_topics = list(rel.topics)  # strcmp order
    r_set = set(rt.docs)
    loop = rel_topics if ten else [t for t in sort_topics(r_set) if t in rel.topics]
    valued = [i for i in insts if i.measure is not None]
    names = [i.name for i in valued]
    variant = {id(i): _variant(i, conv) for i in valued} if a.variants else {}
    rows: list[list[float]] = []
    chunks: list[str] = []
    for t in loop:
        if t in r_set:
            docs, scores = rt.docs[t], rt.scores[t]
        elif a.complete:
            docs, scores = [BOGUS_DOC], np.ones(1)
        else:
            out.write("".join(chunks))
            err.write(f"trec_eval: result qid '{t}' not found in qrels\n")
            return 4
        try:
            vals = _topic_values(rel, fmt, t, docs, scores, insts, conv)
        except PrefsFailure as exc:
            out.write("".join(chunks))
            err.write(exc.message)
            return 4
        except PrefsAbort as exc:
            raise TrecError(f"auditeval trec-eval: topic '{t}': {exc}\n", 2) from None
        if z is not None:
            vals = zs.convert(z, t, names, vals)
        rows.append(vals)
        if a.query:
            for inst, v in zip(valued, vals, strict=True):
                if inst.spec.per_topic:
                    chunks.append(zs.z_line(inst.name, t, v) if z is not None else
                                  line(inst.name, t, value_text(v, inst.spec.fmt), variant.get(id(inst))))
    if not rows:
        out.write("".join(chunks))
        err.write("trec_eval: No queries with both results and relevance info\n")
        return 7
    if a.summary:
        n = len(rel_topics) if a.complete else len(rows)
        mat = np.asarray(rows, dtype=np.float64).T
        k = 0
        for inst in insts:
            if inst.measure is None:
                chunks.append(line("runid", "all", run.name, "-" if a.variants else None))
                continue
            col = mat[k]
            k += 1
            if inst.spec.name == "num_q":
                v = float(n)
            elif inst.spec.fmt == "long":
                v = aggregate(col, "sum", 0.0)
            else:
                v = float(np.cumsum(col)[-1]) / n
            chunks.append(zs.z_line(inst.name, "all", v) if z is not None else
                          line(inst.name, "all", value_text(v, inst.spec.fmt), variant.get(id(inst))))
    out.write("".join(chunks))
    return 0
