"""``auditeval audit QRELS RUN... [-m M]... [--against NAMES] [--trec-eval PATH]... [--profile P]
[--set AXIS=VALUE]... [--format text|markdown|json|html|latex] [--view summary|full | --detail]
[--width N] [-o FILE]``.

The chosen convention is ``--profile`` with every ``--set`` applied, as ``eval`` makes it
(:func:`auditeval.vocab.conventions.resolve`), and the report names it as ``eval`` does
(:func:`auditeval.api.profile_label`, e.g. ``trec_eval-9.0.8 with topics=qrels``). Either
option makes it an explicit choice: the references are then asked to compute under it too.

The text format shows the summary by default (a screen or two); ``--detail`` (``--view
full``) every table. The other formats always hold every section.

Exit status (:data:`auditeval.results.audit.EXIT_STATUSES`; the report's first line says which):
0 every reference value compared and every difference explained; 1 a difference not explained;
2 bad input; 3 nothing was checked (every reference failed, timed out or refused the input);
4 incomplete (what was compared is explained, but some reference failed, timed out or refused).
The report goes to ``-o FILE`` atomically (:func:`auditeval.io.files.write_text`): a missing or
read-only folder is the one error line, and no partial file is left.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TextIO

from auditeval.auditing.core import AuditOptions, audit
from auditeval.cli.common import add_measures, add_scheduler, add_settings, jobs_value
from auditeval.render.audit import FORMATS, render
from auditeval.render.audit.text import VIEWS
from auditeval.render.eval_text import detect_width
from auditeval.vocab.conventions import DEFAULT_PROFILE
from auditeval.vocab.specs import AUDIT_MEASURES


def audit_parser(p: argparse.ArgumentParser) -> None:
    from auditeval.results.audit import exit_epilog

    p.epilog = exit_epilog()
    p.add_argument("qrels", help="qrels file (plain, .gz) or irds:DATASET_ID")
    p.add_argument("runs", nargs="+", help="run files (plain or .gz)")
    add_measures(p, AUDIT_MEASURES)
    p.add_argument("--against", action="append", metavar="NAME[,NAME...]",
                   help="references to run (pytrec_eval, ir_measures, ir_measures:PROVIDER, ranx, trec_eval, "
                   "trec_eval-BUILD); default: all installed")
    p.add_argument("--trec-eval", action="append", dest="trec_eval", metavar="PATH",
                   help="a trec_eval binary (repeatable; its build is recognised by behaviour); default: trec_eval on PATH")
    p.add_argument("--profile", default=None, metavar="PROFILE",
                   help=f"chosen convention for the sweep and the tie envelope (default {DEFAULT_PROFILE}); when given, "
                   "references are also asked to compute under it")
    add_settings(p, " (as eval; references are then asked to compute under it)")
    p.add_argument("--format", choices=FORMATS, default="text", help="report format (default text)")
    p.add_argument("--view", choices=VIEWS, default=None,
                   help="text: summary (default: verdicts, attributions, compact tables) or full (every table)")
    p.add_argument("--detail", action="store_true", help="text: the full view (same as --view full)")
    p.add_argument("--width", type=int, metavar="COLUMNS",
                   help="text: line width (default: the terminal's, else $COLUMNS, else 100)")
    p.add_argument("-o", "--output", metavar="FILE", help="write the report to FILE (default: standard output)")
    p.add_argument("--timeout", type=float, default=None, metavar="SECONDS", help="time limit per reference (default 600)")
    p.add_argument("--seed", type=int, default=0, help="seed of the sampled tie-envelope estimates (default 0)")
    p.add_argument("--jobs", type=int, default=None, metavar="N",
                   help="references run at once at most, longest expected first (default: the machine's cores); "
                   "the native side's tasks are set by --native-jobs / --scheduler")
    p.add_argument("--native-jobs", type=jobs_value, default=1, metavar="N", dest="native_jobs",
                   help="run the native per-run analyses (input diagnostics, tie envelope; one task per run) on N "
                   "local processes (auto: one per core; default 1: in this process, beside the references); "
                   "the report is the same whatever runs them")
    add_scheduler(p)
    p.add_argument("--judgments", choices=("qrels", "prefs", "qrels_prefs", "qrels_jg"), default="qrels",
                   help="format of QRELS: trec_eval's preference judgments are audited against its binaries run "
                   "with -R (default qrels)")
    p.add_argument("--quick", action="store_true",
                   help="only the references expected to cost at most 3x pytrec_eval; the report names those left "
                   "out and what only they would check")


def _own_process() -> bool:
    """True when this process is the ``auditeval`` command itself (not a library or test
    calling :func:`~auditeval.cli.main.main`): only then may the audit lower the process's priority."""
    name = Path(sys.argv[0]).name if sys.argv and sys.argv[0] else ""
    return name == "auditeval" or (name == "__main__.py" and Path(sys.argv[0]).parent.name == "auditeval")


def _name_profile(rep, name: str) -> None:
    """The report of a convention passed as such names it ``custom``; name it as eval does."""
    old = rep.profile
    rep.profile = name
    for e in rep.engines:
        if e.name == "native" and e.profile == old:
            e.profile = name
    for a in rep.attributions:
        a.a = a.a.replace(f"native ({old})", f"native ({name})")
        a.b = a.b.replace(f"native ({old})", f"native ({name})")


def cmd_audit(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    if args.detail and args.view == "summary":
        err.write("auditeval: error: --detail asks for the full view; it contradicts --view summary\n")
        return 2
    if args.width is not None and args.width < 40:
        err.write(f"auditeval: error: --width {args.width}: at least 40 columns\n")
        return 2
    if args.jobs is not None and args.jobs < 1:
        err.write(f"auditeval: error: --jobs {args.jobs}: at least 1\n")
        return 2
    if args.output:  # a missing or read-only folder fails before the references run
        from auditeval.io.files import check_output

        check_output(args.output)
    against = [n.strip() for a in (args.against or []) for n in a.split(",") if n.strip()] or None
    from auditeval.render.progress import audit_progress

    progress = audit_progress(err)  # None unless stderr is a terminal
    profile = args.profile
    if args.settings:  # the convention eval would use: the profile with the settings applied
        from auditeval.vocab.conventions import resolve

        profile = resolve(args.profile or DEFAULT_PROFILE, args.settings)
    from auditeval.cli.common import backend
    from auditeval.execution import InProcess

    with backend(args, len(args.runs), err, jobs=args.native_jobs) as be:
        options = AuditOptions(
            trec_eval=args.trec_eval, progress=progress, seed=args.seed, timeout=args.timeout,
            yield_cpu=_own_process(), jobs=args.jobs, quick=args.quick, judgments=args.judgments,
            backend=None if isinstance(be, InProcess) else be)  # in process: on the audit's own staged runs
        rep = audit(args.qrels, args.runs, measures=args.measures, against=against, profile=profile,
                    options=options)
    if args.settings:
        from auditeval.api import profile_label

        _name_profile(rep, profile_label(args.profile or DEFAULT_PROFILE, args.settings))
    to_terminal = args.output is None and bool(getattr(out, "isatty", lambda: False)())
    view = "full" if args.detail else (args.view or "summary")
    width = args.width or detect_width(out if args.output is None else None)
    from auditeval.render.terminal import write_trusted

    text = render(rep, args.format, color=to_terminal and args.format == "text", width=width, view=view)
    if args.output:
        from auditeval.io.files import write_text

        write_text(args.output, text)  # atomic; OutputError (one line, exit 2) on a bad folder
        err.write(f"auditeval: wrote {args.output} ({args.format}); exit status {rep.exit_status}\n")
    else:
        if args.format == "text":  # rich escaped the data's control characters and kept its colours
            write_trusted(out, text)
        else:
            out.write(text)
    for row in rep.unexplained:
        err.write(f"auditeval: UNEXPLAINED: {row.run} {row.measure} {row.engine}: {row.detail}\n")
    return rep.exit_status


if __name__ == "__main__":  # pragma: no cover
    from auditeval.cli.main import main

    sys.exit(main(["audit", *sys.argv[1:]]))
