"""The argument parser every ``auditeval`` command is built with: help within 100 columns.

:class:`Parser` wraps option help to the terminal's width but never wider than
:data:`HELP_WIDTH` (help text is read, not scanned: long lines on a wide terminal read badly),
whatever formatter class a command chooses (``RawDescriptionHelpFormatter`` keeps its
description lines as written; they are written within 100 columns). A subcommand added with
``help=`` and no ``description=`` gets the help line as its description, so ``auditeval
COMMAND --help`` always says what the command does. Nested subcommands (``pool stats``,
``conventions show``) are built with the same class (argparse uses the parent's type).
"""

from __future__ import annotations

import argparse
import functools
import shutil
from collections.abc import Callable, Sequence
from typing import Any, NoReturn

HELP_WIDTH = 100


def help_width() -> int:
    """The terminal's width (``$COLUMNS`` first, as argparse reads it), at most :data:`HELP_WIDTH`."""
    return min(shutil.get_terminal_size().columns, HELP_WIDTH)


class _SubParsers(argparse._SubParsersAction):
    def add_parser(self, name: str, **kwargs: Any) -> argparse.ArgumentParser:
        if kwargs.get("description") is None and kwargs.get("help"):
            kwargs["description"] = kwargs["help"]
        return super().add_parser(name, **kwargs)


class _Measures(argparse._AppendAction):
    """``-m`` that takes several measures per argument, as ``eval`` does (``-m 'AP nDCG@10'``,
    ``-m ndcg_cut.5,10``): the names are split by :func:`auditeval.vocab.names.split_measures`."""

    def __call__(self, parser, namespace, values, option_string=None) -> None:  # noqa: ANN001
        from auditeval.vocab.names import split_measures

        items = list(getattr(namespace, self.dest, None) or [])
        names = split_measures(values)
        if not names:  # -m '' would compute nothing: every command refuses it alike
            raise argparse.ArgumentError(self, f"no measure given in {values!r}")
        items.extend(names)
        setattr(namespace, self.dest, items)


class Parser(argparse.ArgumentParser):
    """``argparse.ArgumentParser`` with help capped at :data:`HELP_WIDTH` columns and a
    description for every subcommand (see the module docstring)."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.register("action", "parsers", _SubParsers)
        self.register("action", "measures", _Measures)

    def error(self, message: str) -> NoReturn:
        """An argument error as every other error reads: the usage, then one line
        ``auditeval: error: MESSAGE`` (argparse's own would say ``auditeval eval: error:``), exit 2."""
        import sys

        self.print_usage(sys.stderr)
        self.exit(2, f"auditeval: error: {message}\n")

    def _get_formatter(self) -> argparse.HelpFormatter:
        chosen = self.formatter_class
        self.formatter_class = functools.partial(chosen, width=help_width())
        try:
            return super()._get_formatter()
        finally:
            self.formatter_class = chosen


def int_at_least(low: int, not_int: str, too_small: str) -> Callable[[str], int]:
    """An argparse ``type``: a whole number >= ``low``; the messages take ``{text}``."""

    def parse(text: str) -> int:
        try:
            n = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(not_int.format(text=repr(text))) from None
        if n < low:
            raise argparse.ArgumentTypeError(too_small.format(text=text))
        return n

    return parse


_columns = int_at_least(40, "--width needs a whole number of columns, got {text}",
                        "--width must be at least 40 columns, got {text}")


def add_width(parser: argparse.ArgumentParser) -> None:
    """``--width COLUMNS`` on ``parser`` and on each of its (nested) subcommands that lacks one:
    every text view reads it through :func:`auditeval.render.eval_text.detect_width`."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    for action in subs:
        for child in dict.fromkeys(action.choices.values()):
            add_width(child)
    if subs or any("--width" in a.option_strings for a in parser._actions):
        return
    parser.add_argument("--width", type=_columns, metavar="COLUMNS",
                        help="text output: line width (default: the terminal's, else $COLUMNS, else 100)")


def one_measure(text: str) -> str:
    """argparse type of an option naming one measure (``pool growth -m``): not blank."""
    if not text.strip():
        raise argparse.ArgumentTypeError(f"no measure given in {text!r}")
    return text.strip()


def add_measures(parser: argparse.ArgumentParser, default: Sequence[str], what: str = "measures") -> None:
    """``-m/--measure`` as every command takes it: several per argument, repeatable."""
    parser.add_argument("-m", "--measure", action="measures", dest="measures", metavar="MEASURE",
                        help=f"{what}, several per argument ('AP nDCG@10'); repeatable; default: {' '.join(default)}")


def add_settings(parser: argparse.ArgumentParser, note: str = "") -> None:
    """``--set AXIS=VALUE`` as every command takes it (``note`` says when it applies)."""
    parser.add_argument("--set", action="append", dest="settings", default=[], metavar="AXIS=VALUE",
                        help=f"override one axis of the profile, e.g. ties=docno-asc{note}; repeatable")


def write_notes(err: Any, notes: Sequence[str]) -> None:
    """Each distinct note once on ``err`` as ``auditeval: note: NOTE``, wrapped at spaces to the
    width of ``err`` (``--width``, the terminal, ``$COLUMNS``, else 100); continuation lines are
    indented by 4. A note reaching a command along two paths (a run's reading note, repeated by
    the pools built from it) is printed once."""
    from auditeval.render.eval_text import detect_width
    from auditeval.render.textgrid import wrap

    width = detect_width(err)
    for n in dict.fromkeys(notes):
        err.write("\n".join(wrap(n, width, indent=4, first="auditeval: note: ")) + "\n")


def _same_path(a: str, b: str) -> bool:
    import os

    if a == b:
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:
        return False


def baseline_index(value: str, paths: Sequence[str], runs: Sequence[Any] | None) -> int | None:
    """Which of the given runs ``--baseline VALUE`` names: the path of one of them (as given or
    the same file) or its label (the run tag, or the file-name label of colliding tags,
    :mod:`auditeval.io.run_labels`). ``runs``: the read, relabelled runs in the order of ``paths``
    (None: paths only, returns None when no path matches). Unknown: an error listing the choices."""
    from auditeval.vocab.errors import AuditEvalError

    for i, p in enumerate(paths):
        if _same_path(value, p):
            return i
    if runs is None:
        return None
    names = [r.name for r in runs]
    if value in names:
        return names.index(value)
    raise AuditEvalError(f"--baseline {value}: not one of the runs given; name one by its path "
                         f"({', '.join(paths)}) or its label ({', '.join(names)})")


def jobs_value(text: str) -> int | str:
    """argparse type of ``--jobs``: a whole number >= 1, or ``auto`` (the machine's cores)."""
    if text.strip().lower() == "auto":
        return "auto"
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"--jobs needs a whole number or 'auto', got {text!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"--jobs must be at least 1, got {text}")
    return n


EXECUTION_HELP = "the output is the same bytes whatever runs the tasks"


def add_execution(parser: argparse.ArgumentParser, what: str = "run") -> None:
    """``--jobs N|auto`` and ``--scheduler ADDRESS`` (:mod:`auditeval.execution`): where the
    command's tasks (one per ``what``) run; the output does not depend on it."""
    parser.add_argument("--jobs", type=jobs_value, default=1, metavar="N",
                        help=f"run the tasks (one per {what}) on N local processes (auto: one per core; "
                        f"default 1: in this process); {EXECUTION_HELP}")
    add_scheduler(parser)


def seconds_value(text: str) -> float:
    """argparse type of a duration: a positive, finite number of seconds."""
    import math

    try:
        v = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"needs a number of seconds, got {text!r}") from None
    if not (v > 0 and math.isfinite(v)):
        raise argparse.ArgumentTypeError(f"needs a positive number of seconds, got {text}")
    return v


def add_scheduler(parser: argparse.ArgumentParser) -> None:
    """``--scheduler ADDRESS``: a ``dask.distributed`` scheduler (default ``$DASK_SCHEDULER_ADDRESS``),
    and ``--scheduler-timeout SECONDS``."""
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the tasks on this dask.distributed scheduler (tcp://HOST:8786; default "
                        "$DASK_SCHEDULER_ADDRESS; needs auditeval[scale]); wins over --jobs")
    parser.add_argument("--scheduler-timeout", type=seconds_value, default=None, metavar="SECONDS",
                        help="with a scheduler: wait at most this long for it to answer, then for its first "
                        "worker, before any work (else an error; default 30)")


OUTPUT_OPTIONS = {"output": "-o/--output", "ir_metadata": "--ir-metadata", "plot": "--plot", "todo": "--todo"}
"""Every option (by ``dest``) that names a file a command writes: :func:`preflight` checks them."""
STORE_WRITERS = ("add", "judge")  # ``pool`` subcommands that create or write their ``--store``


def scheduler_address(args: argparse.Namespace) -> str | None:
    """The scheduler a command with ``--scheduler`` will use (the option, else
    ``$DASK_SCHEDULER_ADDRESS``), or None; None for a command without the option."""
    import os

    if not hasattr(args, "scheduler"):
        return None
    return args.scheduler or os.environ.get("DASK_SCHEDULER_ADDRESS") or None


def preflight(args: argparse.Namespace) -> None:
    """What can fail outside the command's own work, checked before it starts: every output path
    it will write (:data:`OUTPUT_OPTIONS`, a ``pool add``/``pool judge`` store) can be written
    (:func:`auditeval.io.files.check_output`), and its scheduler, if any, answers and has a worker
    within ``--scheduler-timeout``. The connected cluster is kept for :func:`backend`."""
    from auditeval.io.files import check_output

    for dest in OUTPUT_OPTIONS:
        path = getattr(args, dest, None)
        if isinstance(path, str) and path:
            check_output(path)
    if getattr(args, "command", None) == "pool" and getattr(args, "action", None) in STORE_WRITERS:
        check_output(args.store)
    address = scheduler_address(args)
    if address:
        from auditeval.execution import SCHEDULER_TIMEOUT, DaskCluster

        args.ready_backend = DaskCluster(address, args.scheduler_timeout or SCHEDULER_TIMEOUT)


def backend(args: argparse.Namespace, tasks: int | None = None, err: Any = None, jobs: Any = None) -> Any:
    """The execution backend ``--jobs`` / ``--scheduler`` choose (a context manager): the cluster
    :func:`preflight` connected, else :func:`auditeval.execution.backend_for` with at most
    ``tasks`` workers (when the command knows how many tasks it has); a note on ``err`` when
    ``--jobs`` (or ``jobs``, a command's own option of that kind) was lowered."""
    import sys

    from auditeval.execution import SCHEDULER_TIMEOUT, backend_for

    ready = getattr(args, "ready_backend", None)
    if ready is not None:
        args.ready_backend = None
        return ready
    be = backend_for(getattr(args, "jobs", 1) if jobs is None else jobs, getattr(args, "scheduler", None), tasks,
                     getattr(args, "scheduler_timeout", None) or SCHEDULER_TIMEOUT)
    if be.notes:
        write_notes(err if err is not None else sys.stderr, be.notes)
    return be


def task_progress(steps: Any, what: str) -> Callable[[int, int], None]:
    """A ``progress(done, total)`` for :meth:`~auditeval.execution.backends.Backend.map` advancing ``steps`` (a bar on a
    terminal only, :class:`auditeval.render.progress.Steps`)."""

    def progress(done: int, total: int) -> None:
        steps.advance(f"{what}: {done:,} of {total:,} tasks done")

    return progress
