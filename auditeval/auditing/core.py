"""``audit()``: run the references beside the native engine and explain every difference.

Order of work: read the inputs once; plan each reference's requests (its own profile, and
the chosen profile when one is given, emulated where the tool declares it can be); start
the references in their own processes, at most one per core, longest expected cost first
(:mod:`auditeval.adapters.runner`; ``quick`` leaves out those expected to cost more than
``QUICK_FACTOR`` times pytrec_eval, and says what they would have added); while they run,
the native engine computes the input diagnostics, the sensitivity sweep and the tie envelope; then each reference's values
are checked against the native engine under the same variant (:mod:`.tool_agreement`), the
convention diff and the attributions are built (:mod:`.attribution`). See
:mod:`auditeval.results.audit` for what the result holds.
"""

from __future__ import annotations

import copy
import os
import tempfile
import time
from contextlib import nullcontext
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

import numpy as np

from auditeval.adapters import references
from auditeval.adapters.base import Adapter
from auditeval.adapters.pytrec_eval import PytrecEval
from auditeval.adapters.runner import Outcome, Request, Running, cores, expected_seconds, start
from auditeval.api import read_runs
from auditeval.auditing import attribution, input_diagnostics, official, tool_agreement
from auditeval.auditing.inputs import plain_path, rewritten_run, tool_file
from auditeval.auditing.native import Native, same
from auditeval.auditing.sensitivity import read_axes, sweep
from auditeval.auditing.tie_envelope import envelope
from auditeval.engine import ENGINE
from auditeval.io import qrels_from
from auditeval.io.hashing import source_sha256 as file_sha256
from auditeval.results.audit import (
    AgreementRow,
    Attribution,
    AuditReport,
    AxisEffect,
    ConvDiffRow,
    EngineInfo,
    InputFile,
    TieRow,
)
from auditeval.vocab.conventions import (
    AXES,
    AXIS_ORDER,
    DEFAULT_PROFILE,
    Convention,
    load_profile,
    resolve,
)
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.measure import Measure
from auditeval.vocab.model import Qrels, Run
from auditeval.vocab.specs import AUDIT_MEASURES, SPECS
from auditeval.vocab.variant import Variant, parse_measures

DEFAULT_MEASURES = list(AUDIT_MEASURES)  # the audit's list, under its public name (auditeval.auditing)
TIE_TOPICS_SHOWN = 20  # per run and measure, widest envelopes first
QUICK_FACTOR = 3.0  # --quick: references whose declared cost is at most this times pytrec_eval's


@dataclass(frozen=True, kw_only=True)
class AuditOptions:
    """How :func:`audit` runs, every field one of its keywords (``audit(q, r, quick=True)`` and
    ``audit(q, r, options=AuditOptions(quick=True))`` are the same call).

    ``trec_eval``: trec_eval binaries to run.
    ``progress``: a display to feed (``auditeval.render.progress.audit_progress(sys.stderr)``, what
    the command line passes on a terminal), or None. ``seed``, ``samples``: the tie envelope's
    sampling. ``timeout``: seconds per reference invocation. ``yield_cpu`` (the command line sets
    it) lowers this process's priority once the references run, so on a busy machine they, the
    slowest part, get the processor first. ``jobs``: at most this many references at once
    (default: the cores this process may use), longest expected cost first. ``quick``: only the
    references whose declared cost (:attr:`~auditeval.adapters.base.Adapter.cost`) is at most
    ``QUICK_FACTOR`` times pytrec_eval's; the others are listed with status ``left out`` and what
    only they would have checked. ``judgments``: ``"prefs"``, ``"qrels_prefs"`` or ``"qrels_jg"``
    when ``qrels`` holds trec_eval's preference judgments: the trec_eval binaries run with ``-R``
    (:mod:`auditeval.auditing.prefs_audit`). ``backend``: where the per-run native analyses (input
    diagnostics, tie envelope) run (an :mod:`auditeval.execution` backend: ``share``/``map``,
    results in run order; None: in this process, on the audit's own staged runs); the report does
    not depend on it. The sensitivity sweep compares runs (ranking swaps) and stays in this process.
    """

    trec_eval: list[str] | None = None
    progress: Any = None
    seed: int = 0
    samples: int = 50
    timeout: float | None = None
    yield_cpu: bool = False
    jobs: int | None = None
    quick: bool = False
    judgments: str = "qrels"
    backend: Any = None


@dataclass(frozen=True, kw_only=True)
class _Asked:
    """What the audit computes: the measures as parsed and as the user wrote them (the labels of
    every row), the chosen convention and its name, and whether it was chosen (then references
    are asked under it too)."""

    measures: list[Measure]
    labels: list[str]
    base: Convention
    base_name: str
    explicit: bool


@dataclass(frozen=True, kw_only=True)
class _ToolFiles:
    """What the references read: the qrels and run files, the work folder for rewritten runs, and
    (once read) the objects behind the files, from which a run is rewritten under an emulated
    convention (None when the references start before auditeval reads the inputs)."""

    qfile: str
    rfiles: list[str]
    work: Path
    q: Qrels | None = None
    runs: list[Run] | None = None


def audit(qrels: Any, runs: Any, measures: list[str | Measure] | None = None,
          against: list[str] | str | None = None, profile: str | Path | Convention | None = None, *,
          options: AuditOptions | None = None, **kw: Any) -> AuditReport:
    """Audit ``runs`` against ``qrels`` with every reference in ``against`` (reference names: a
    list, or one comma-separated string; default: all installed).

    ``profile`` is the chosen convention (default trec_eval-9.0.8) that the sensitivity sweep
    and the tie envelope start from; when given, references are also asked to compute under it
    (emulated by rewriting the input where a tool declares it can). How the audit runs is one
    :class:`AuditOptions` (``options=``), or its fields as keywords (``trec_eval``, ``progress``,
    ``seed``, ``samples``, ``timeout``, ``yield_cpu``, ``jobs``, ``quick``, ``judgments``,
    ``backend``: what each does is said there; given beside ``options=`` they replace its
    fields). A KeyboardInterrupt
    kills every reference's process before it propagates. Returns an
    :class:`~auditeval.results.audit.AuditReport` (``auditeval.render_audit(rep, fmt)``, ``.to_frame()``,
    ``.exit_status``).
    """
    opts = _options(options, kw)
    if opts.judgments != "qrels":
        from auditeval.auditing.prefs_audit import audit_judgments

        return audit_judgments(qrels, runs, [str(m) for m in measures or []], opts.judgments, opts.trec_eval,
                               opts.timeout)
    t0 = time.perf_counter()
    # pyarrow imports pandas on its first conversion (ChunkedArray.to_numpy, pa.array) inside
    # Cython code that swallows exceptions: a Ctrl-C landing during that import is lost, and
    # the audit would wait for its references instead of stopping them. Load it before any
    # reference starts (the audit's tables need it anyway).
    import pandas  # noqa: F401

    run_in = list(runs) if isinstance(runs, list | tuple) else [runs]
    pairs = parse_measures(measures or DEFAULT_MEASURES)  # as every -m reads them ("P", "ndcg_cut.1,4")
    base = resolve(profile if profile is not None else DEFAULT_PROFILE)
    asked = _Asked(measures=[m for _, m in pairs], labels=[label for label, _ in pairs], base=base,
                   base_name=_profile_name(profile), explicit=profile is not None)
    against_list = against.split(",") if isinstance(against, str) else against
    # copies: the audit's own settings (--timeout) never reach the shared adapter objects, so one
    # audit's options do not outlive it in a process that runs several (a test session, a notebook)
    refs = [copy.copy(a) for a in references(None if against_list is None else [a.strip() for a in against_list
                                                                              if a.strip()], opts.trec_eval)]
    rep = AuditReport(qrels=str(qrels), runs=[], measures=asked.labels, profile=asked.base_name,
                      native_engine=ENGINE, profile_axes=axes_of(base))
    if opts.progress is True:
        raise TypeError("audit(progress=...): pass a display, auditeval.render.progress.audit_progress(sys.stderr), "
                        "or None")
    rep.jobs = max(1, opts.jobs or cores())
    nat, waited = _audit_inputs(rep, asked, refs, opts, qrels, run_in, early=profile is None)
    rep.notes.extend(n for n in nat.notes if n not in rep.notes)
    rep.seconds = time.perf_counter() - t0
    rep.native_seconds = rep.seconds - waited
    for e in rep.engines:
        if e.name == "native":
            e.seconds = rep.native_seconds
    return rep


def _audit_inputs(rep: AuditReport, asked: _Asked, refs: list, opts: AuditOptions, qrels: Any, run_in: list,
                  *, early: bool) -> tuple[Native, float]:
    """Start the references, read the inputs, do the native work, wait for and compare the
    references' outcomes: the audit's body, in ``rep``. Returns the native engine's state and
    the seconds spent waiting for the references."""
    plain = [plain_path(r) for r in run_in]
    qplain = plain_path(qrels)
    # with no emulated request the tools read the user's files as they are: start them before
    # auditeval reads the inputs itself, so its reading overlaps with the references' work
    early = early and qplain is not None and all(p is not None for p in plain)
    base = asked.base
    bar = opts.progress or None  # a display the caller made (the command line: render.progress.audit_progress)
    with tempfile.TemporaryDirectory(prefix="auditeval-audit-") as wd, bar if bar is not None else nullcontext(), \
            _Stop() as stop:
        work = Path(wd)
        if early:
            files = _ToolFiles(qfile=qplain, rfiles=[str(p) for p in plain], work=work)
            tasks, requested, stop.running = _start_references(refs, asked, files, rep, opts, bar)
        q = qrels_from(qrels)
        rep.qrels = q.source
        rep.notes.extend(q.notes)
        qfile = qplain if early else tool_file(qrels, q, work, "qrels", rep.notes)
        loaded = read_runs(run_in)
        run_objs = [r for r, _ in loaded]
        rep.runs = [r.name for r in run_objs]
        rep.notes.extend(n for _, n in loaded if n)
        nat = Native(q, run_objs, base)
        for sr in nat.staged:  # the input rule of every command (engine door): what eval refuses
            sr.check_inputs(base, asked.measures)
        if not early:
            rfiles = [tool_file(r_in, r, work, f"run{i}", rep.notes)
                      for i, (r_in, r) in enumerate(zip(run_in, run_objs, strict=True))]
            files = _ToolFiles(qfile=qfile, rfiles=rfiles, work=work, q=q, runs=run_objs)
            tasks, requested, stop.running = _start_references(refs, asked, files, rep, opts, bar)
        rep.engines.insert(0, EngineInfo("native", ENGINE, asked.base_name, "ok", "auditeval's own engine",
                                         axes=axes_of(base)))
        rep.inputs = [InputFile("qrels", "qrels", q.source, file_sha256(q.source))] + [
            InputFile("run", r.name, r.source, file_sha256(r.source)) for r in run_objs]
        _native_work(rep, nat, asked, opts, bar, qrels)

        t_wait = time.perf_counter()
        outcomes: list[Outcome] = stop.running.results()
        waited = time.perf_counter() - t_wait
        _compare(rep, nat, outcomes, tasks, requested, asked, refs, bar)
    return nat, waited


def _options(options: AuditOptions | None, kw: dict[str, Any]) -> AuditOptions:
    """``options`` with the keywords given beside it (an unknown keyword is a TypeError, as for any
    function)."""
    known = AuditOptions.__dataclass_fields__
    for name in kw:
        if name not in known:
            raise TypeError(f"audit() got an unexpected keyword argument {name!r}")
    return replace(options, **kw) if options is not None else AuditOptions(**kw)


def _start_references(refs: list[Adapter], asked: _Asked, files: _ToolFiles, rep: AuditReport,
                      opts: AuditOptions, bar) -> tuple[list, dict, Running]:
    """Plan each reference's requests, start them (:func:`_schedule`), then yield the processor to
    them when asked: the tasks started, the requests by (reference, key), what runs them."""
    tasks, requested = _plan(refs, asked, files, rep, opts.timeout)
    tasks, running = _schedule(tasks, rep, opts.quick, rep.jobs, bar)
    _yield(opts.yield_cpu and bool(tasks))
    return tasks, requested, running


def _max_grade(q: Qrels) -> int:
    return int(q.table.column("grade").to_numpy().max()) if len(q) else 1


def _native_work(rep: AuditReport, nat: Native, asked: _Asked, opts: AuditOptions, bar, qrels: Any) -> None:
    """What the native engine computes while the references run: the input diagnostics and the tie
    envelope of every run, the sensitivity sweep, the official-value check of an ``irds:`` qrels."""
    q, base, parsed = nat.qrels, asked.base, asked.measures
    rep.diagnostics["qrels"] = input_diagnostics.qrels_facts(q, base.rel)
    task = bar.add_task("diagnostics and tie envelope", total=len(rep.runs)) if bar else None
    per_run = _per_run(nat, q, parsed, base, opts.samples, opts.seed, opts.backend,
                       (lambda *_: bar.advance(task)) if bar else None)
    rep.ties = []
    for r, (facts, ties) in zip(nat.runs, per_run, strict=True):
        rep.diagnostics[r.name] = facts
        rep.ties.extend(ties)
    max_grade = _max_grade(q)
    n_axes = sum(len(attribution.axis_values(a, base, max_grade)) for a in read_axes(parsed, base))
    task = bar.add_task("sensitivity sweep", total=n_axes) if bar else None
    rep.sensitivity, rep.swaps = sweep(nat, rep.runs, parsed, base, max_grade,
                                       tick=(lambda: bar.advance(task)) if bar else None)
    if isinstance(qrels, str) and qrels.startswith("irds:"):
        rep.official = official.check(qrels[5:], parsed, base)


def _compare(rep: AuditReport, nat: Native, outcomes: list[Outcome], tasks: list, requested: dict, asked: _Asked,
             refs: list[Adapter], bar) -> None:
    """Each reference's values against the native engine's (agreement), then the convention diff,
    the attributions and the per-topic deltas built on the conventions found effective."""
    parsed, labels, names, base = asked.measures, asked.labels, rep.runs, asked.base
    task = bar.add_task("agreement and attribution", total=3) if bar else None
    effective = _agreement(rep, nat, outcomes, {a.name: a for a, _, _ in tasks}, requested, parsed, labels, names,
                           _max_grade(nat.qrels))
    _conv_diff(rep, nat, effective, parsed, labels, names, base, refs)
    if bar:
        bar.advance(task)
    _attributions(rep, nat, effective, parsed, labels, names, base, asked.base_name)
    if bar:
        bar.advance(task)
    _topic_deltas(rep, nat, effective, parsed, labels, names, base)
    if bar:
        bar.advance(task)


# ------------------------------------------------------------------------------ helpers
def axes_of(conv: Convention) -> dict[str, str]:
    """Every axis of ``conv`` as the profiles and variant strings spell it."""
    return {a: AXES[a].format(getattr(conv, a)) for a in AXIS_ORDER}


def _profile_name(profile: Any) -> str:
    if profile is None:
        return DEFAULT_PROFILE
    if isinstance(profile, Convention):
        return "custom"
    return load_profile(profile).name


def _run_facts(nat: Native, ri: int, q, base: Convention) -> dict[str, Any]:
    """Diagnostics of run ``ri`` on its prepared lists under ``base``; where the input refuses
    ``base`` (duplicates under dups=error, a missing topic under topics=strict), under the
    nearest convention that accepts it, and said so."""
    try:
        return input_diagnostics.run_facts(q, nat.runs[ri], nat.prepared(ri, base), base)
    except AuditEvalError as exc:
        conv = base.replace(dups="first" if base.dups == "error" else base.dups,
                            topics="both" if base.topics == "strict" else base.topics)
        try:
            facts = input_diagnostics.run_facts(q, nat.runs[ri], nat.prepared(ri, conv), conv)
        except AuditEvalError as exc2:
            return {"error": str(exc2)}
        return {"computed_under": f"dups={conv.dups}, topics={conv.topics} ({exc})", **facts}


def _yield(on: bool) -> None:
    """Lower this process's scheduling priority (the references, started before, keep theirs)."""
    if on and hasattr(os, "nice"):
        try:
            os.nice(10)
        except OSError:  # pragma: no cover - not permitted here
            pass


class _Stop:
    """Stops the references (kills their processes) when the audit ends by an exception,
    KeyboardInterrupt above all: no reference outlives the audit."""

    running: Running | None = None

    def __enter__(self) -> _Stop:
        return self

    def __exit__(self, kind, exc, tb) -> None:
        if kind is not None and self.running is not None:
            self.running.stop()


def _schedule(tasks: list, rep: AuditReport, quick: bool, jobs: int, bar) -> tuple[list, Running]:
    """Leave out the costly references under ``quick`` (each one's engine row says why and what
    only it would have checked), then start the rest (LPT, at most ``jobs`` at once)."""
    expected = {a.name: expected_seconds(a, reqs) for a, _, reqs in tasks}
    info = {e.name: e for e in rep.engines}
    for name, sec in expected.items():
        info[name].expected_seconds = sec
    if quick:
        limit = QUICK_FACTOR * PytrecEval.cost
        kept = [t for t in tasks if t[0].cost <= limit]
        out = [t for t in tasks if t[0].cost > limit]
        for a, _, _ in out:
            _left_out(info[a.name], a, [k[0] for k in kept], info)
            rep.left_out.append(a.name)
        tasks = kept
    on_event = None
    if bar is not None:
        on_event = bar.references(sorted(((a.name, expected[a.name]) for a, _, _ in tasks), key=lambda x: -x[1]))
    return tasks, start(tasks, jobs, on_event=on_event)


def _left_out(e: EngineInfo, a: Adapter, kept: list[Adapter], info: dict[str, EngineInfo]) -> None:
    """``e`` (a reference --quick leaves out): status ``left out``, and what only it checks: the
    requested measures no kept reference computes, and its profile when no kept one shares it."""
    others = {m for k in kept for m in info[k.name].computes}
    only = [m for m in e.computes if m not in others]
    same_profile = [k.name for k in kept if k.profile == a.profile]
    adds = []
    if only:
        adds.append(f"the only reference computing {', '.join(only)}")
    adds.append(f"its profile {a.profile} " + (f"is also checked by {', '.join(same_profile)}" if same_profile
                                                 else "(no other reference checks it)"))
    e.status = "left out"
    e.message = (f"--quick: declared cost {a.cost:g} s per 100,000 run lines, more than {QUICK_FACTOR:g}x "
                 f"pytrec_eval's {PytrecEval.cost:g} (expected {e.expected_seconds:.1f} s CPU); would add: "
                 + "; ".join(adds))
    e.unsupported = []


def _plan(refs: list[Adapter], asked: _Asked, files: _ToolFiles, rep: AuditReport, timeout: float | None):
    """Requests per reference; records unavailable references and unsupported variants in ``rep``."""
    base, q, runs, rfiles, work = asked.base, files.q, files.runs, files.rfiles, files.work
    tasks, requested = [], {}
    rewritten: dict[tuple, str] = {}
    for a in refs:
        if timeout is not None:
            a.timeout = timeout
        reason = a.available()
        if reason is not None:
            status = "not installed" if reason.startswith("not installed") else "unsupported"
            rep.engines.append(EngineInfo(a.name, a.name, a.profile, status, reason, axes=axes_of(a.own())))
            continue
        own = a.own()
        reqs: list[Request] = []
        skipped: list[str] = []
        modes = [("own", own)] + ([("chosen", base)] if asked.explicit and base != own else [])
        for label, m in zip(asked.labels, asked.measures, strict=True):
            for mode, conv in modes:
                plan = a.plan(m, conv)
                if plan.unsupported:
                    skipped.append(f"{label}{' (chosen profile)' if mode == 'chosen' else ''}: {plan.unsupported}")
                    continue
                for ri in range(len(rfiles)):
                    run_file = rfiles[ri]
                    if plan.rewrite:
                        rk = (ri,) + tuple(getattr(conv, x) for x in ("ties", "sim", "depth", "dups", "self_hits", "unjudged"))
                        if rk not in rewritten:
                            try:
                                rewritten[rk] = rewritten_run(q, runs[ri], conv, work / f"rewritten{len(rewritten)}.txt")
                            except AuditEvalError as exc:  # the input cannot be ranked under conv (dups=error, ...)
                                rewritten[rk] = None
                                skipped.append(f"{label} (chosen profile): unsupported: the rewritten run needs {exc}")
                        run_file = rewritten[rk]
                        if run_file is None:
                            continue
                    key = f"{ri}|{mode}|{label}"
                    shown = "" if runs is None else f"run {runs[ri].name}" + (" rewritten" if plan.rewrite else "")
                    empty = tuple(runs[ri].empty_topics) if runs is not None else ()
                    reqs.append(Request(key, run_file, plan.tool_measure, plan.options, shown, empty))
                    requested[(a.name, key)] = (ri, label, m, conv, mode, plan.rewrite)
        info = EngineInfo(a.name, a.engine(), a.profile, "ok", "", computes=list(dict.fromkeys(
            requested[(a.name, r.key)][1] for r in reqs)), unsupported=skipped, axes=axes_of(own))
        rep.engines.append(info)
        if reqs:
            tasks.append((a, files.qfile, reqs))
        else:
            info.status, info.message = "nothing to compute", "computes none of the requested measures"
    return tasks, requested


def _agreement(rep, nat, outcomes, adapters, requested, parsed, labels, names, max_grade):
    """Agreement rows; returns effective conventions {(engine, ri, label): Convention} for attribution."""
    effective: dict[tuple[str, int, str], Convention] = {}
    info = {e.name: e for e in rep.engines}
    for out in outcomes:
        a = adapters[out.adapter]
        e = info[a.name]
        e.engine, e.seconds, e.cpu_seconds = out.engine, out.seconds, out.cpu_seconds
        if out.status != "ok" or out.message:  # ok with a message: some invocation refused its input
            e.status = out.status
            e.message = out.message
        for (aname, key), (ri, label, m, conv, mode, rewrite) in requested.items():
            if aname != a.name:
                continue
            variant = str(Variant.of(m, conv))
            tv = nat.get(ri, m, conv)
            val = out.values.get(key)
            row = AgreementRow(names[ri], label, a.name, out.engine, variant, None, tv.aggregate, ENGINE, "", "")
            if mode == "chosen":
                row.detail = "emulated: input rewritten by auditeval; " if rewrite else "native options; "
            if val is None or "error" in val:
                err = (val or {}).get("error") or out.message or "no value returned"
                if not tv.ok:
                    row.status, row.detail = "match", row.detail + f"both refuse: tool: {err}; native: {tv.error}"
                    effective[(a.name, ri, label)] = conv if mode == "own" else effective.get((a.name, ri, label), conv)
                else:
                    row.status = out.status if out.status != "ok" else "failed"
                    row.detail += err
                rep.agreement.append(row)
                continue
            row.value = val.get("aggregate")
            ok, detail, n_topics, worst = tool_agreement.matches(a, val, tv, m, conv)
            row.topics, row.max_topic_diff = n_topics, worst
            if ok:
                row.status, row.detail = "match", row.detail + detail
                if mode == "own":
                    effective[(a.name, ri, label)] = conv
            else:
                c1, why = tool_agreement.explain(nat, ri, a, val, m, conv, max_grade)
                if why:
                    row.status, row.detail = "explained", row.detail + f"{detail}; {why}"
                    if mode == "own" and c1 is not None:
                        effective[(a.name, ri, label)] = c1
                else:
                    row.status, row.detail = "MISMATCH", row.detail + f"{detail}; no axis flip or tie ordering explains it"
            rep.agreement.append(row)
    return effective


def _groups(effective, ri: int, label: str, m: Measure) -> dict[str, tuple[list[str], Convention]]:
    """Engines of one run/measure grouped by variant string of their effective convention."""
    out: dict[str, tuple[list[str], Convention]] = {}
    for (eng, r2, l2), conv in effective.items():
        if r2 == ri and l2 == label:
            v = str(Variant.of(m, conv))
            out.setdefault(v, ([], conv))[0].append(eng)
    return out


def _conv_diff(rep, nat, effective, parsed, labels, names, base, refs):
    used = {eng for (eng, _, _) in effective}
    convs = {a.name: a.own() for a in refs if a.name in used}
    convs = {f"native ({rep.profile})": base, **convs}
    read = read_axes(parsed, base)
    for axis in read:
        settings = {eng: AXES[axis].format(getattr(c, axis)) for eng, c in convs.items()}
        if len(set(settings.values())) < 2:
            continue
        row = ConvDiffRow(axis, settings, AXES[axis].format(getattr(base, axis)))
        others = sorted({getattr(c, axis) for c in convs.values()} - {getattr(base, axis)}, key=str)
        for value in others:
            flipped = base.replace(**{axis: value})
            for label, m in zip(labels, parsed, strict=True):
                if axis not in attribution.differing_axes(m, base, flipped):
                    continue
                for ri, name in enumerate(names):
                    b, v = nat.get(ri, m, base), nat.get(ri, m, flipped)
                    moved, _, _ = attribution.compare(b, v)
                    delta = None if (b.aggregate is None or v.aggregate is None) else v.aggregate - b.aggregate
                    row.effects.append(AxisEffect(name, label, AXES[axis].format(value), str(v.variant), v.aggregate,
                                                  delta, moved, v.error or ""))
        rep.conv_diff.append(row)


def _attributions(rep, nat, effective, parsed, labels, names, base, base_name):
    for ri, name in enumerate(names):
        for label, m in zip(labels, parsed, strict=True):
            groups = _groups(effective, ri, label, m)
            bv = str(Variant.of(m, base))
            groups.setdefault(bv, ([], base))[0].insert(0, f"native ({base_name})")
            items = [(bv, groups[bv])] + sorted((k, g) for k, g in groups.items() if k != bv)  # chosen profile first
            for i in range(len(items)):
                for j in range(i + 1, len(items)):
                    (va, (ea, ca)), (vb, (eb, cb)) = items[i], items[j]
                    ta, tb = nat.get(ri, m, ca), nat.get(ri, m, cb)
                    if same(ta, tb):
                        continue
                    ab = attribution.minimal_flips(nat, ri, m, ca, cb)
                    ba = attribution.minimal_flips(nat, ri, m, cb, ca)
                    ev = attribution.topic_evidence(nat, ri, m, ca, ab[0], cb) if ab else []
                    moved, _, _ = attribution.compare(ta, tb)
                    rep.attributions.append(Attribution(
                        name, label, ", ".join(ea), ", ".join(eb), va, vb, ta.aggregate, tb.aggregate,
                        [[f"{x}={AXES[x].format(getattr(cb, x))}" for x in s] for s in ab],
                        [[f"{x}={AXES[x].format(getattr(ca, x))}" for x in s] for s in ba],
                        bool(ab and ba), ev, moved))


@dataclass(frozen=True)
class RunShared:
    """What each run's native analyses read (:func:`run_analyses`)."""

    qrels: Qrels
    parsed: list[Measure]
    base: Convention
    samples: int
    seed: int


def run_analyses(shared: RunShared, run: Run) -> tuple[dict[str, Any], list[TieRow]]:
    """One run's input diagnostics and tie envelope (the task of a backend): the same
    functions as in process, on a :class:`Native` of that run alone."""
    nat = Native(shared.qrels, [run], shared.base)
    return _one_run(nat, 0, shared)


def _one_run(nat: Native, ri: int, s: RunShared) -> tuple[dict[str, Any], list[TieRow]]:
    return _run_facts(nat, ri, s.qrels, s.base), _ties(nat, [nat.runs[ri].name], s.parsed, s.base, s.samples, s.seed, ri)


def _per_run(nat: Native, q: Qrels, parsed: list[Measure], base: Convention, samples: int, seed: int,
             backend: Any, tick: Any) -> list[tuple[dict[str, Any], list[TieRow]]]:
    """Every run's diagnostics and tie rows, in run order: here on ``nat``, or on ``backend``."""
    shared = RunShared(q, parsed, base, samples, seed)
    if backend is None:
        out = []
        for ri in range(len(nat.runs)):
            out.append(_one_run(nat, ri, shared))
            if tick is not None:
                tick()
        return out
    return list(backend.map(run_analyses, backend.share(shared), nat.runs, [r.source for r in nat.runs], tick))


def _ties(nat, names, parsed, base, samples, seed, first: int = 0) -> list[TieRow]:
    """The tie envelope rows of runs ``first, first + 1, ...`` (named ``names``) of ``nat``."""
    rows = []
    for ri, name in enumerate(names, start=first):
        for m in parsed:
            if SPECS[m.name].fmt == "str":  # a string (relstring) has no minimum or maximum: no envelope
                continue
            try:
                p = nat.prepared(ri, base, m)
            except Exception:  # noqa: BLE001 - the sweep reports the error for this variant
                continue
            env = envelope(p, nat.runs[ri], m, base, samples=samples, seed=seed)
            v = str(Variant.of(m, base))
            a_val, a_lo, a_hi, a_ex = env.agg
            n_orders = float(np.sum(env.orderings))
            rows.append(TieRow(name, str(m), "all", v, a_val, a_lo, a_hi, a_ex, env.agg_method, _orders(n_orders)))
            width = env.maximum - env.minimum
            for i in np.argsort(-width, kind="stable")[:TIE_TOPICS_SHOWN]:
                if width[i] <= 0:
                    break
                rows.append(TieRow(name, str(m), str(env.topics[i]), v, float(env.value[i]), float(env.minimum[i]),
                                   float(env.maximum[i]), float(env.expected[i]), env.method,
                                   _orders(float(env.orderings[i]))))
    return rows


def _orders(log10: float) -> str:
    if log10 <= 0:
        return "1"
    if log10 < 6:
        return f"{10 ** log10:.0f}"
    exp = int(np.floor(log10))  # mantissa x 10^exp, printed without forming 10^log10 (it may overflow)
    return f"{10 ** (log10 - exp):.1f}e+{exp:02d}"


def _topic_deltas(rep, nat, effective, parsed, labels, names, base):
    for ri, name in enumerate(names):
        for label, m in zip(labels, parsed, strict=True):
            b = nat.get(ri, m, base)
            if not b.ok:
                continue
            bd = b.as_dict()
            for (eng, r2, l2), conv in effective.items():
                if r2 != ri or l2 != label:
                    continue
                v = nat.get(ri, m, conv)
                if not v.ok:
                    continue
                d = {t: x - bd[t] for t, x in v.as_dict().items() if t in bd and abs(x - bd[t]) > 1e-12}
                if d:
                    rep.topic_deltas.setdefault(name, {}).setdefault(label, {})[eng] = d
