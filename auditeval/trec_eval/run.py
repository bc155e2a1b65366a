"""``auditeval trec-eval``: trec_eval's command line, output, errors and exit status, with
every number computed by the auditeval engine under the matching convention.

``--as 8.0`` / ``8.1`` go to :mod:`.v8` first (another program); ``--as 9.0.5`` stops where
that build crashes (:mod:`.v905`); 9.0.6 and 9.0.7 are 9.0.8 but for ``-v``.

Flags -> convention axes (profile per ``--as``: trec_eval-9.0.8 / -9.0.8-double / -10.0 / ...):
``-J`` unjudged=drop, ``-M N`` depth=N, ``-l N`` rel=N, ``-c`` topics=qrels; without ``-c``
9.0.8 is topics=both and 10.0 topics=strict.

The control flow follows trec_eval.c ``main``:

1. flags; ``-m`` marks measures as it is read (``illegal measure`` -> exit 1);
2. qrels then results are read (:mod:`.parse`; errors exit 2);
3. marked measures are initialised in table order (:mod:`.params`; bad parameters exit 2);
4. topics are evaluated one by one -- 9.0.8 loops over the results topics that have qrels,
   10.0 over the qrels topics (a topic missing from the results is scored with ``-c`` as the
   profile's ``absent`` axis says -- 10.0 ``bogus``: its one-document ranking and resets,
   9.0.8 ``zero`` -- by the engine, and stops the run without ``-c``: exit 4 ``result qid
   'X' not found in qrels``) -- and, with ``-q``, printed as soon as evaluated; a duplicate
   document stops the run at its topic (exit 4). So per-topic lines of earlier topics are
   printed before any of these errors;
5. no topic evaluated (9.0.8): exit 7; otherwise the summary (unless ``-n``).

What trec_eval does around the measures (the ``rel_levels`` allocation that fails or crashes on
negative grades, the ``-c`` ``num_rel`` summary, duplicates only checked in evaluated
topics) is in :mod:`.quirks`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, replace
from typing import TextIO

import numpy as np
import pyarrow as pa

from auditeval.engine import evaluate_prepared, has_duplicate_pairs, run_topics, staged_for
from auditeval.trec_eval import v905
from auditeval.trec_eval.args import DROPIN_HELP, USAGE, Args, UsageError, parse_args
from auditeval.trec_eval.catalog import PROFILES, VERSION_IDS, is_8, is_10, nicknames, table
from auditeval.trec_eval.format import line, value_text
from auditeval.trec_eval.order import duplicate_errors, sort_topics
from auditeval.trec_eval.params import Instance, ParamError, instances
from auditeval.trec_eval.parse import TrecError, check_results_format, read_qrels, read_run
from auditeval.trec_eval.quirks import complete_num_rel, drop_unchecked_duplicates, rel_levels_fault
from auditeval.trec_eval.rel_formats import REL_FORMATS, wrong_format
from auditeval.trec_eval.text import ByteWriter, from_arg
from auditeval.vocab import arrow_compute as pc
from auditeval.vocab.conventions import load_profile
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.model import Qrels, Run

NOT_FORM_RES_RELS = ("runid", "num_q")  # measures whose calc never builds the ranked list


def main(argv: list[str] | None = None, stdout: TextIO | None = None, stderr: TextIO | None = None) -> int:
    """Run ``trec_eval`` with ``argv`` (without the program name); return the exit status."""
    # bytes end to end (:mod:`.text`): arguments, ids and tags one character per byte
    out = ByteWriter(sys.stdout if stdout is None else stdout)
    err = ByteWriter(sys.stderr if stderr is None else stderr)
    try:
        # C arithmetic is silent: a score such as -1e308 overflows the float32 cast to -inf
        # there, and numpy must not warn on stderr about it (the library notes it instead)
        with np.errstate(all="ignore"):
            return _main([from_arg(x) for x in (sys.argv[1:] if argv is None else argv)], out, err)
    except TrecError as exc:
        err.write(exc.text)
        return exc.code
    except AuditEvalError as exc:  # a convention or measure the engine refuses
        err.write(f"auditeval trec-eval: {exc}\n")
        return 2


def _main(argv: list[str], out: TextIO, err: TextIO) -> int:
    version = _requested_version(argv)
    if version is not None and is_8(version):
        from auditeval.trec_eval.v8 import main_v8

        return main_v8(argv, out, err)
    if version == "9.0.5" and (kind := v905.flag_crash(argv)) is not None:
        err.write(v905.crash_text(kind))
        return 2
    try:
        a = parse_args(argv)
    except UsageError as exc:
        err.write(exc.message + USAGE)
        return 1
    if a.help and version is None:  # no build named: the drop-in's own help
        out.write(DROPIN_HELP)
        return 0
    if a.help or a.show_version:  # -m is read (and refused) while the flags are (trec_eval.c)
        _mark(a.measures, a.version)
    if a.show_version:
        err.write(f"trec_eval version {VERSION_IDS[a.version]}\n")
        return 0
    if a.help:
        if a.version == "9.0.5":  # trec_eval_help's loop runs past the table (v905.py)
            err.write(v905.crash_text(v905.ALWAYS))
            return 2
        from auditeval.trec_eval.help import build_help

        out.write(build_help(a.version, _mark(a.measures, a.version)[0], a.results_format, a.rel_format))
        return 0
    marked, params = _mark(a.measures or ["official"], a.version)
    if a.version == "9.0.5" and a.rel_format not in REL_FORMATS:
        err.write(v905.crash_text(v905.FORMAT))
        return 2
    if a.rel_format != "qrels":  # -R qrels_jg / prefs / qrels_prefs (or a format no build knows)
        from auditeval.trec_eval import prefs_dropin  # -R only: its readers and kernels load then

        return prefs_dropin.evaluate(a, lambda: _init(marked, params, a.version), _convention(a), out, err)
    qrels = read_qrels(a.qrels, a.version)
    check_results_format(a)
    run = read_run(a.run, a.version)
    zfile = _zscores().load(a.zscores, a.version) if a.zscores is not None else None
    if a.version == "9.0.5":  # the measure loop runs past the table (trec_eval.c:338)
        err.write(v905.crash_text(v905.ALWAYS))
        return 2
    insts = _init(marked, params, a.version)
    if a.num_docs:
        insts = [
            replace(i, measure=i.measure.with_params(num_docs=a.num_docs)) if i.spec.name == "utility" else i
            for i in insts
        ]
    return _evaluate(a, qrels, run, insts, out, err, zfile)


def _zscores():
    """:mod:`.zscores`, imported on first use (``-Z`` only: the drop-in's start-up)."""
    from auditeval.trec_eval import zscores

    return zscores


def _requested_version(argv: list[str]) -> str | None:
    """The ``--as`` value (``--as V`` or ``--as=V``), read before the build's own flag rules."""
    for i, arg in enumerate(argv):
        if arg == "--":
            return None
        if arg == "--as" and i + 1 < len(argv):
            return argv[i + 1]
        if arg.startswith("--as="):
            return arg[5:]
    return None


def _mark(args: list[str], version: str) -> tuple[set[str], dict[str, str]]:
    """trec_eval.c ``mark_measure``: names and nicknames; first parameter string per name."""
    names = {s.name for s in table(version)}
    nick = nicknames(version)
    marked: set[str] = set()
    params: dict[str, str] = {}
    for arg in args:
        name, dot, param = arg.partition(".")
        if dot:
            if param == "":
                raise TrecError(
                    f"trec_eval: improper measure in parameter '{name}'\ntrec_eval: illegal measure '{name}'\n", 1
                )
            params.setdefault(name, param)
        if name in nick:
            marked.update(nick[name])
        elif name in names:
            marked.add(name)
        else:
            raise TrecError(f"trec_eval: illegal measure '{name}'\n", 1)
    return marked, params


def _init(marked: set[str], params: dict[str, str], version: str) -> list[Instance]:
    out: list[Instance] = []
    for spec in table(version):
        if spec.name not in marked:
            continue
        try:
            out.extend(instances(spec, params.get(spec.name), ten=is_10(version)))
        except ParamError as exc:
            text = "".join(x + "\n" for x in exc.lines)
            raise TrecError(f"{text}trec_eval: Cannot initialize measure '{spec.name}'\n", 2) from None
    return out


def _convention(a: Args):
    conv = load_profile(PROFILES[a.version]).convention
    changes: dict = {"rel": a.rel_level}
    if a.complete:
        changes["topics"] = "qrels"
    if a.judged_only:
        changes["unjudged"] = "drop"
    if a.max_docs is not None:
        if a.max_docs < 0:  # form_res_rels.c writes ranks through a negative count
            raise TrecError(
                f"auditeval trec-eval: -M {a.max_docs}: trec_eval crashes here (negative document count in "
                "form_res_rels.c, segmentation fault)\n", 2
            )
        changes["depth"] = a.max_docs
    return conv.replace(**changes)


def _evaluate(a: Args, qrels: Qrels, run: Run, insts: list[Instance], out: TextIO, err: TextIO, zfile=None) -> int:
    conv = _convention(a)
    ten = is_10(a.version)
    cache: dict = {}  # one StagedRun: duplicates found on the ranking the evaluation uses
    q_topics = sort_topics(set(pc.unique(qrels.table.column("topic")).to_pylist()))
    r_set = set(run_topics(run))  # the run's index, shared with the join: no hashing of every row
    q_set = set(q_topics)
    loop = q_topics if ten else [t for t in sort_topics(r_set) if t in q_set]

    first_calc = next((i.spec.name for i in insts if i.spec.name not in NOT_FORM_RES_RELS
                       and i.spec.rel_format == "qrels"), None)
    # a prefs / qrels_jg measure, or utility with other than 4 coefficients (m_utility.c:60),
    # fails on the first topic, unless a measure before it stops first
    order = [s.name for s in table(a.version)]
    failing = [(order.index(i.spec.name), text) for i in insts if (text := _calc_failure(i))]
    other = min(failing)[1] if failing else None
    if other is not None and first_calc is not None and order.index(first_calc) > min(failing)[0]:
        first_calc = None
    dups = duplicate_errors(staged_for(qrels, run, cache), conv) if first_calc else {}
    fault = rel_levels_fault(qrels, loop) if first_calc else None
    stop: tuple[int, str] | None = None
    for i, t in enumerate(loop):
        missing = t not in r_set
        if missing and not a.complete:
            stop = (i, f"trec_eval: result qid '{t}' not found in qrels\n")
            break
        e = dups.get(t)
        if e and (not missing or e.startswith("trec_eval.form_res_rels")):
            stop = (i, f"{e}trec_eval: Can't calculate measure '{first_calc}'\n")
            break
        if fault is not None and fault[0] == i:
            if fault[1]:
                raise TrecError(
                    f"auditeval trec-eval: topic '{t}': every qrels grade is -2 or less; trec_eval crashes here "
                    "(memset of a negative size in form_res_rels.c, segmentation fault)\n", 2
                )
            stop = (i, f"trec_eval: Can't calculate measure '{first_calc}'\n")
            break
        if other is not None:
            stop = (i, other)
            break
    # a missing topic under -c is scored by the engine as the profile's absent axis says
    # (10.0: absent=bogus, its one-document ranking; 9.0.8: absent=zero)
    if stop is not None:
        done = loop[: stop[0]]
        if a.query and done:
            keep = set(done)
            sub_q = Qrels(_filter(qrels.table, keep), source=qrels.source)
            sub_r = Run(_filter(run.table, keep), name=run.name, source=run.source)
            _print(a, sub_q, sub_r, insts, conv, _Printing(out=out, err=err, summary=False, zfile=zfile))
        err.write(stop[1])
        return 4
    if not loop:
        err.write("trec_eval: No queries with both results and relevance info\n")
        return 7
    checked = set(loop) if first_calc else set()  # duplicates elsewhere, or when no calc reads the lists, are no error
    num_rel_all = complete_num_rel(qrels) if a.complete else None
    qt = qrels.table
    q_kept = drop_unchecked_duplicates(qt, checked, has_duplicate_pairs(qt.column("topic"), qt.column("doc")))
    r_kept = drop_unchecked_duplicates(run.table, checked, has_duplicate_pairs(run))
    if q_kept is not qt or r_kept is not run.table:  # else the staged join is reused
        qrels = Qrels(q_kept, source=qrels.source)
        run = Run(r_kept, name=run.name, source=run.source)
    how = _Printing(out=out, err=err, summary=a.summary, zfile=zfile, num_rel_all=num_rel_all)
    return _print(a, qrels, run, insts, conv, how, cache=cache)


def _calc_failure(inst: Instance) -> str | None:
    """What trec_eval prints when ``inst``'s calc fails on every topic it evaluates, or None:
    a measure of another rel_info format, utility's coefficients not four (m_utility.c:60-64,
    after the lists are formed: duplicates stop first)."""
    if (text := wrong_format(inst, "qrels")) is not None:
        return f"{text}trec_eval: Can't calculate measure '{inst.spec.name}'\n"
    if inst.spec.name == "utility" and inst.name != "utility" and len(inst.name[8:].split(",")) != 4:
        return "trec_eval.calc_utility: improper number of coefficients\ntrec_eval: Can't calculate measure 'utility'\n"
    return None


def _filter(tbl: pa.Table, keep: set[str]) -> pa.Table:
    return tbl.filter(pc.is_in(tbl.column("topic"), value_set=pa.array(sorted(keep), pa.string())))


@dataclass(frozen=True, kw_only=True)
class _Printing:
    """Where and how :func:`_print` writes: the two streams, summary lines or not (``-n``),
    ``-Z``'s file (values printed as z-scores), and under ``-c`` the ``num_rel`` recounted on the
    whole qrels (m_num_rel.c)."""

    out: TextIO
    err: TextIO
    summary: bool
    zfile: object = None
    num_rel_all: int | None = None


def _print(
    a: Args, qrels: Qrels, run: Run, insts: list[Instance], conv, how: _Printing, cache: dict | None = None,
) -> int:
    from auditeval.vocab.specs import SPECS

    todo = [i for i in insts if i.measure is not None and i.measure.name in SPECS]
    absent = [i.name for i in insts if i.measure is not None and i.measure.name not in SPECS]
    try:
        rows = evaluate_prepared(qrels, run, [i.measure for i in todo], conv, cache={} if cache is None else cache)
    except AuditEvalError as exc:
        how.err.write(f"auditeval trec-eval: {exc}\n")
        return 3
    res = {id(i): r for i, r in zip(todo, rows, strict=True)}
    ten = is_10(a.version)
    p = rows[0][2] if rows else None
    if how.zfile is not None and p is not None:
        res = _zscores().converted(how.zfile, insts, res, p, ten, conv.gm_floor)
    chunks: list[str] = []
    if a.query and p is not None:
        chunks += _topic_lines(insts, res, p, ten=ten, variants=a.variants, zscores=how.zfile is not None)
    if how.summary:
        chunks += _summary_lines(insts, res, run, a.variants, how)
    how.out.write("".join(chunks))
    if absent:
        how.err.write(f"auditeval trec-eval: not implemented yet: {', '.join(absent)}\n")
        return 3
    return 0


def _topic_lines(insts: list[Instance], res: dict, p, *, ten: bool, variants: bool, zscores: bool) -> list[str]:
    """``-q``'s per-topic lines, topic by topic in ``p``'s order, measures in table order."""
    chunks: list[str] = []
    topics = [str(t) for t in p.topics]
    missing = np.asarray(p.missing, bool)
    for ti, t in enumerate(topics):
        if missing[ti] and not ten:
            continue  # 9.0.8 -c: missing topics count in the mean, never printed
        for inst in insts:
            if not inst.spec.per_topic or id(inst) not in res:
                continue
            _m, variant, p2, vals, _agg = res[id(inst)]
            v = vals[ti] if p2 is p else vals[list(p2.topics).index(t)]
            if zscores and inst.spec.fmt != "str":  # relstring keeps its line (m_relstring.c:100)
                chunks.append(_zscores().z_line(inst.name, t, v))
                continue
            chunks.append(line(inst.name, t, value_text(v, inst.spec.fmt), str(variant) if variants else None))
    return chunks


def _summary_lines(insts: list[Instance], res: dict, run: Run, variants: bool, how: _Printing) -> list[str]:
    """The ``all`` lines, measures in table order (``runid`` first as trec_eval prints it)."""
    chunks: list[str] = []
    for inst in insts:
        if not inst.spec.summary:
            continue
        if inst.measure is None:
            chunks.append(line("runid", "all", run.name, "-" if variants else None))
            if len(run.table) == 0:  # no result line: trec_eval reads results[0]
                how.err.write("auditeval trec-eval: no result lines; trec_eval prints uninitialised memory as the runid\n")
            continue
        if id(inst) not in res:
            continue
        _m, variant, _p, _vals, agg = res[id(inst)]
        if agg is None:
            continue
        if inst.name == "num_rel" and how.num_rel_all is not None:  # -Z too: m_num_rel.c recounts the qrels
            agg = how.num_rel_all
        if how.zfile is not None:
            chunks.append(_zscores().z_line(inst.name, "all", agg))
            continue
        chunks.append(line(inst.name, "all", value_text(agg, inst.spec.fmt), str(variant) if variants else None))
    return chunks
