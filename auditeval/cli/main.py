"""Command line: ``auditeval COMMAND ...``; ``main(argv) -> int``, subcommands in one dict.

Commands:
  eval         evaluate runs under a profile; every number printed with its variant string
  conventions  list | show NAME | diff A B: explain the profiles and axes
  measures     list the measures, their trec_eval names and the axes each reads; NAME: one in full
  sweep        evaluate runs under every variant along the varied axes (auditeval.sweep)
  audit        run reference tools beside the native engine; explain every difference
  verify       which settings reproduce a published number
  diff         align two tools' output files and explain each difference
  card         provenance card for a results table
  reproduce    how closely a re-run reproduces an original run
  compare      paired bootstrap, significance tests, rank intervals, topic-set size
  pool         judgment pools, the judgment store, the judge hook, pool bias and growth
  references   the reference tools the audit can run; build the bundled trec_eval releases
  trec-eval    drop-in for the trec_eval command line (--as 9.0.8 | 9.0.8-double | 10.0)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from auditeval._version import __version__
from auditeval.vocab.errors import AuditEvalError

DESCRIPTION = """\
auditeval: information-retrieval evaluation numbers that carry their conventions.
Every number is printed with its variant string: the measure and every convention
(axis) that can change it, e.g. how tied scores are ordered or whether missing topics count."""

EPILOG = """\
examples:
  auditeval eval qrels.txt run1.txt run2.txt          evaluate (AP nDCG@10 P@10 R@1000 RR)
  auditeval eval qrels.txt run.txt --profile trec_eval-9.0.8 --profile ir_measures-0.4
  auditeval conventions diff trec_eval-9.0.8 trec_eval-10.0
  auditeval trec-eval -q -m all_trec qrels.txt run.txt   exactly trec_eval's output

'auditeval COMMAND --help' describes each command."""

__all__ = ["COMMANDS", "build_parser", "main"]


def _no_args(p: argparse.ArgumentParser) -> None:
    return None


def _lazy(module: str, build: str, run: str) -> tuple[Callable[[argparse.ArgumentParser], None], Callable[..., int]]:
    """A command whose code lives in ``auditeval.<module>`` (imported when used)."""
    import importlib

    def b(p: argparse.ArgumentParser) -> None:
        getattr(importlib.import_module(f"auditeval.{module}"), build)(p)

    def r(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
        return getattr(importlib.import_module(f"auditeval.{module}"), run)(args, out, err)

    return b, r


# ----------------------------------------------------------------------------- dispatch
COMMANDS: dict[str, tuple[str, Callable[[argparse.ArgumentParser], None], Callable[..., int]]] = {
    "eval": ("evaluate runs; every number carries its variant string", *_lazy("cli.eval", "eval_parser", "cmd_eval")),
    "conventions": ("explain profiles and axes: list | show NAME | diff A B",
                    *_lazy("cli.conventions", "conventions_parser", "cmd_conventions")),
    "measures": ("list measures; NAME: its formula, source and axes", *_lazy("cli.measures", "measures_parser", "cmd_measures")),
    "sweep": ("evaluate under every variant along the varied axes", *_lazy("cli.sweep", "build_parser", "cmd_sweep")),
    "audit": ("run reference tools beside the native engine; explain every difference",
              *_lazy("cli.audit", "audit_parser", "cmd_audit")),
    "verify": ("which settings reproduce a published number (MAP=0.3066)",
               *_lazy("cli.verify", "verify_parser", "cmd_verify")),
    "diff": ("align two tools' outputs; every difference, explained by axis", *_lazy("cli.diff", "diff_parser", "cmd_diff")),
    "card": ("provenance card for a results table (markdown, latex, html, json)",
             *_lazy("cli.card", "card_parser", "cmd_card")),
    "reproduce": ("how closely a re-run reproduces a run: KTU, RBO, RMSE, ER, DRI",
                  *_lazy("cli.reproduce", "reproduce_parser", "cmd_reproduce")),
    "compare": ("paired bootstrap, tests, rank intervals, topic-set size", *_lazy("cli.compare", "compare_parser", "cmd_compare")),
    "pool": ("judgment pools: stats coverage todo add qrels judge bias growth", *_lazy("cli.pool", "pool_parser", "cmd_pool")),
    "references": ("the reference tools the audit can run: list | build [VERSION...] (bundled trec_eval)",
                   *_lazy("cli.references", "references_parser", "cmd_references")),
}


def build_parser(commands: Sequence[str] = ()) -> argparse.ArgumentParser:
    """The ``auditeval`` parser; only the ``commands`` named get their options (and imports)."""
    from auditeval.cli.common import Parser, add_width

    parser = Parser(prog="auditeval", description=DESCRIPTION, epilog=EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--version", action="version", version=f"auditeval {__version__}")
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, (help_text, build, _) in COMMANDS.items():
        p = sub.add_parser(name, help=help_text)
        if name in commands:
            build(p)
            add_width(p)
    sub.add_parser("trec-eval", help="drop-in trec_eval (auditeval trec-eval --help)")
    return parser


def main(argv: Sequence[str] | None = None, out: TextIO | None = None, err: TextIO | None = None) -> int:
    """Run one command; returns the exit status. Library and test use: no process tuning."""
    argv = list(sys.argv[1:] if argv is None else argv)
    out = out or sys.stdout
    err = err or sys.stderr
    if argv and argv[0] == "trec-eval":
        from auditeval.trec_eval import main as trec_main

        return trec_main(argv[1:], out, err)
    from auditeval.render.terminal import control_safe

    # ids, tags and messages come from the user's files: no control sequence reaches the terminal
    out, err = control_safe(out), control_safe(err)
    chosen = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser([chosen] if chosen else []).parse_args(argv)  # only the chosen command is built
    from auditeval.render.width import WIDTH

    token = WIDTH.set(getattr(args, "width", None))  # every text view of this command reads it
    try:
        from auditeval.cli.common import preflight

        preflight(args)  # output paths writable, the scheduler answering: before any work
        code = COMMANDS[args.command][2](args, out, err)
        out.flush()  # a closed pipe shows here, inside the handler below, not at interpreter exit
        return code
    except AuditEvalError as exc:
        err.write(f"auditeval: error: {exc}\n")
        return 2
    except KeyboardInterrupt:  # Ctrl-C: the command has stopped its children; one line, no traceback
        err.write("auditeval: interrupted\n")
        return 130
    except BrokenPipeError:  # the reader went away (| head): end quietly
        _stdout_to_devnull()
        return 0
    finally:
        WIDTH.reset(token)
        unused = getattr(args, "ready_backend", None)  # the command failed before it took the cluster
        if unused is not None:
            unused.close()


def _stdout_to_devnull() -> None:
    """After a closed pipe, point the process's standard output at /dev/null so that the final
    flush at exit raises nothing (the Python docs' recipe for SIGPIPE, ``signal`` module notes)."""
    try:
        fd = sys.stdout.fileno()
    except (AttributeError, ValueError, OSError):  # not a real file (tests): nothing to redirect
        return
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def _without_pandas() -> None:
    """pyarrow's ``pa.array()`` imports pandas whenever it can (its pandas shim probes every
    input), which was half of the drop-in's start-up (0.3-0.4 s of 0.8 s); the drop-in never uses
    pandas, so its process tells pyarrow there is none. Library use and other commands are untouched."""
    if "pandas" not in sys.modules:
        from auditeval.execution.no_pandas import NoPandas

        sys.meta_path.insert(0, NoPandas())


def entry() -> None:
    """Console-script entry point (``auditeval``): process-level memory tuning
    (:func:`auditeval.execution.malloc.tune_process_memory`), then :func:`main`."""
    from auditeval.execution.malloc import tune_process_memory

    tune_process_memory()
    if sys.argv[1:2] == ["trec-eval"]:  # the drop-in writes what trec_eval writes, byte for byte
        _without_pandas()
        sys.exit(main())
    try:
        from auditeval.render.terminal import safe_stream

        code = main(None, safe_stream(sys.stdout), safe_stream(sys.stderr))
    except KeyboardInterrupt:  # outside the command itself (start-up, argument parsing)
        sys.stderr.write("auditeval: interrupted\n")
        code = 130
    sys.exit(code)


if __name__ == "__main__":  # pragma: no cover
    entry()
