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
  trec-eval    drop-in for the trec_eval command line (--as 9.0.8 | 9.0.8-double | 10.0)
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable, Sequence
from typing import TextIO

from rich.console import Console
from rich.table import Table

from auditeval._version import __version__
from auditeval.cli.eval import DEFAULT_MEASURES, cmd_eval, eval_parser
from auditeval.vocab.conventions import AXES, AXIS_ORDER, diff, load_profile, profile_names, resolve
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

__all__ = ["COMMANDS", "DEFAULT_MEASURES", "build_parser", "main"]


# ----------------------------------------------------------------------------- conventions
def _conv_parser(p: argparse.ArgumentParser) -> None:
    sub = p.add_subparsers(dest="action", required=True)
    sub.add_parser("list", help="profiles and axes")
    s = sub.add_parser("show", help="every axis value of one profile, with sources")
    s.add_argument("name", metavar="PROFILE", help="a profile name (conventions list) or a TOML file")
    d = sub.add_parser("diff", help="axes on which two profiles differ")
    d.add_argument("a", metavar="A", help="a profile name or a TOML file")
    d.add_argument("b", metavar="B", help="the profile compared with A")


def _console(out: TextIO) -> Console:
    from auditeval.render.eval_text import make_console

    return make_console(out)


def _flush(console: Console, out: TextIO) -> None:
    from auditeval.render.eval_text import flush

    flush(console, out)


def cmd_conventions(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    console = _console(out)
    if args.action == "list":
        t = Table(title="profiles", title_justify="left")
        t.add_column("name", style="bold", no_wrap=True)
        t.add_column("engine")
        for n in profile_names():
            prof = load_profile(n)
            t.add_row(prof.name, prof.engine)
        console.print(t)
        rows = [(name, AXES[name].doc, "\n".join(f"{v}: {w}" for v, w in AXES[name].values.items())
                 or f"({AXES[name].kind})") for name in AXIS_ORDER]
        # both text columns break at spaces; each is at least as wide as its longest word (rich
        # would cut that word short), the values column taking half of the room or more
        longest = [max(len(w) for r in rows for w in r[c].split()) for c in (1, 2)]
        room = console.width - max(len(r[0]) for r in rows) - 10  # 3 columns: 2 blanks + 1 rule each, 1 edge
        values_w = max(longest[1], room // 2)
        a = Table(title="axes", title_justify="left", show_lines=True)
        a.add_column("axis", style="bold", no_wrap=True)
        a.add_column("meaning", width=max(longest[0], room - values_w))
        a.add_column("values: who uses them", width=values_w)
        for r in rows:
            a.add_row(*r)
        console.print(a)
        _flush(console, out)
        return 0
    if args.action == "show":
        prof = load_profile(args.name)
        console.print(f"[bold]{prof.name}[/] — {prof.engine}\n{prof.description}\n(file: {prof.path})", highlight=False)
        t = Table(show_lines=False)
        t.add_column("axis", style="bold", no_wrap=True)
        t.add_column("value", style="cyan", no_wrap=True)
        t.add_column("meaning / source")
        for k, v in prof.convention.as_dict().items():
            meaning = AXES[k].values.get(str(v), AXES[k].doc)
            src = prof.sources.get(k)
            t.add_row(k, AXES[k].format(v), meaning + (f"\n[dim]{src}[/]" if src else ""))
        console.print(t)
        _flush(console, out)
        return 0
    if args.action == "diff":
        a, b = resolve(args.a), resolve(args.b)
        d = diff(a, b)
        if not d:
            out.write(f"{args.a} and {args.b} agree on every axis\n")
            return 0
        t = Table(title=f"{args.a} vs {args.b}: {len(d)} axis(es) differ", title_justify="left")
        t.add_column("axis", style="bold", no_wrap=True)
        t.add_column(args.a)
        t.add_column(args.b)
        for k, (va, vb) in d.items():
            t.add_row(k, f"{AXES[k].format(va)}: {AXES[k].values.get(str(va), '')}", f"{AXES[k].format(vb)}: {AXES[k].values.get(str(vb), '')}")
        console.print(t)
        _flush(console, out)
        return 0
    raise AssertionError(args.action)  # pragma: no cover


# ----------------------------------------------------------------------------- measures
def _measures_parser(p: argparse.ArgumentParser) -> None:
    p.add_argument("name", nargs="?", help="one measure (auditeval or trec_eval name): its formula, source and axes")


def cmd_measures(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    from auditeval.vocab.spec_table import RANKING
    from auditeval.vocab.specs import SPECS, TREC_ALIASES

    if args.name:
        spec = SPECS.get(args.name) or SPECS.get(TREC_ALIASES.get(args.name, ("",))[0])
        if spec is None:
            from auditeval.vocab.errors import UnknownMeasureError

            raise UnknownMeasureError(f"unknown measure {args.name!r} (auditeval measures lists them)")
        from auditeval.render.eval_text import detect_width

        out.write(_measure_help(spec, detect_width(out)))
        return 0
    from auditeval.render.eval_text import detect_width
    from auditeval.render.textgrid import grid, wrap

    width = detect_width(out)
    ranking = " ".join(a for a in AXIS_ORDER if a in RANKING)
    lines = wrap(f"measures (ir_measures spelling; the trec_eval name is an alias). Every measure that ranks also "
                 f"reads the ranking axes: {ranking}. 'auditeval measures NAME' prints one measure's formula and "
                 "source.", width)
    cutoff = {"none": "", "optional": "opt", "required": "req"}
    rows = []
    for name, d in sorted(SPECS.items(), key=lambda kv: kv[0].lower()):
        ordered = RANKING <= d.axes and not {"ties", "sim"} & set(d.only_if)
        ranks = RANKING - {"ties", "sim"} <= d.axes
        extra = [a for a in AXIS_ORDER if a in d.axes and not (ranks and a in RANKING)]
        axes = ("ranking " if ordered else "ranking (no order) " if ranks else "") + " ".join(extra)
        rows.append([name, d.trec_name or "", cutoff.get(d.cutoff, d.cutoff), d.agg, axes.strip(), d.doc])
    # names and tokens never break; axes and definitions break at spaces (a long definition goes under its row)
    lines += [x for x, _ in grid(["name", "trec_eval", "@k", "agg", "axes read", "definition"], rows, width,
                                 wrap_cols=[4, 5], inline=3)]
    out.write("".join(x + "\n" for x in lines))
    return 0


def _measure_help(spec, width: int = 100) -> str:
    """One measure's row of the spec table, as trec_eval's per-measure help prints it, within
    ``width`` columns (broken at spaces only)."""
    from auditeval.render.textgrid import wrap
    from auditeval.vocab.specs import CONDITIONS

    trec = ", ".join(t + {"int": ".K", "float": ".X"}.get(k or "", "") for t, k in spec.trec_names) or "(none)"
    cut = {"none": "none", "optional": "optional", "required": "required"}[spec.cutoff]
    if spec.cutoff != "none":
        cut += f" (@k, {spec.cutoff_type.__name__})"
    params = ", ".join(f"{k} ({v.__name__})" for k, v in spec.params.items()) or "none"
    axes = " ".join(a + (f" ({CONDITIONS[spec.only_if[a]]})" if a in spec.only_if else "")
                    for a in AXIS_ORDER if a in spec.axes)
    agg = {"mean": "mean over topics", "sum": "sum over topics", "gmean": "geometric mean (gm_floor)",
           "mean-defined": f"mean over the topics with a value (none when {spec.undefined})",
           "none": "none (per topic only)"}[spec.agg]
    missing = "computed on an empty ranking" if spec.missing is None else repr(spec.missing)
    rows = [("formula", spec.formula), ("source", spec.source), ("trec_eval", trec), ("cut-off", cut),
            ("parameters", params), ("aggregate", agg), ("format", spec.fmt), ("axes read", axes),
            ("absent topic", missing)]
    lines = wrap(f"{spec.name}: {spec.doc}", width, indent=2)
    for k, v in rows:
        lines += wrap(v, width, indent=16, first=f"  {k + ':':<14}")
    return "\n".join(lines) + "\n"


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
    "eval": ("evaluate runs; every number carries its variant string", eval_parser, cmd_eval),
    "conventions": ("explain profiles and axes: list | show NAME | diff A B", _conv_parser, cmd_conventions),
    "measures": ("list measures; NAME: its formula, source and axes", _measures_parser, cmd_measures),
    "sweep": ("evaluate under every variant along the varied axes", *_lazy("cli.sweep", "build_parser", "cmd_sweep")),
    "audit": ("run reference tools beside the native engine; explain every difference",
              *_lazy("cli.audit", "audit_parser", "cmd_audit")),
    "verify": ("which settings reproduce a published number (MAP=0.3066)",
               *_lazy("cli.verify", "verify_parser", "cmd_verify")),
    "diff": ("align two tools' outputs; every difference, explained by axis", *_lazy("cli.verify_tools", "diff_parser", "cmd_diff")),
    "card": ("provenance card for a results table (markdown, latex, html, json)",
             *_lazy("cli.verify_tools", "card_parser", "cmd_card")),
    "reproduce": ("how closely a re-run reproduces a run: KTU, RBO, RMSE, ER, DRI",
                  *_lazy("cli.verify_tools", "reproduce_parser", "cmd_reproduce")),
    "compare": ("paired bootstrap, tests, rank intervals, topic-set size", *_lazy("cli.compare", "compare_parser", "cmd_compare")),
    "pool": ("judgment pools: stats coverage todo add qrels judge bias growth", *_lazy("cli.pool", "pool_parser", "cmd_pool")),
}


def _tune_memory() -> None:
    """Process-level memory settings for a command-line run (library use keeps the defaults).

    A run allocates and frees many large short-lived numpy arrays (56 MB per column on a
    7-million-line run), and first-touch page faults on fresh memory dominated the system
    time. Two settings, each skipped when its environment variable is set:

    * numpy asks for transparent huge pages on large arrays; where the kernel must compact
      memory to find them (THP ``defrag=madvise``) a fresh 56 MB array costs ~0.1 s instead
      of ~0.02 s (``NUMPY_MADVISE_HUGEPAGE``).
    * glibc maps every block above 32 MB afresh and unmaps it when freed; keeping freed
      blocks in the heap lets the next array reuse them (``MALLOC_MMAP_MAX_``,
      ``MALLOC_TRIM_THRESHOLD_``). Measured: ``-m all_trec`` 7.2-8.7 s -> 4.6-5.0 s.
    """
    if "NUMPY_MADVISE_HUGEPAGE" not in os.environ:
        try:
            from numpy._core.multiarray import _set_madvise_hugepage
        except ImportError:  # pragma: no cover - numpy < 2
            try:
                from numpy.core.multiarray import _set_madvise_hugepage
            except ImportError:
                _set_madvise_hugepage = None
        if _set_madvise_hugepage is not None:
            _set_madvise_hugepage(False)
    if sys.platform.startswith("linux") and not {"MALLOC_MMAP_MAX_", "MALLOC_TRIM_THRESHOLD_"} & set(os.environ):
        try:
            import ctypes

            libc = ctypes.CDLL("libc.so.6")
            libc.mallopt(-4, 0)  # M_MMAP_MAX: serve large blocks from the heap
            libc.mallopt(-1, 2**31 - 1)  # M_TRIM_THRESHOLD: keep freed memory for reuse
        except (OSError, AttributeError):  # pragma: no cover - not glibc
            pass


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
    chosen = next((a for a in argv if not a.startswith("-")), None)
    args = build_parser([chosen] if chosen else []).parse_args(argv)  # only the chosen command is built
    from auditeval.render.eval_text import WIDTH

    token = WIDTH.set(getattr(args, "width", None))  # every text view of this command reads it
    try:
        return COMMANDS[args.command][2](args, out, err)
    except AuditEvalError as exc:
        err.write(f"auditeval: error: {exc}\n")
        return 2
    finally:
        WIDTH.reset(token)


def entry() -> None:
    """Console-script entry point (``auditeval``): process-level memory tuning, then :func:`main`."""
    _tune_memory()
    if sys.argv[1:2] == ["trec-eval"]:  # the drop-in writes what trec_eval writes, byte for byte
        sys.exit(main())
    from auditeval.render.terminal import safe_stream

    sys.exit(main(None, safe_stream(sys.stdout), safe_stream(sys.stderr)))


if __name__ == "__main__":  # pragma: no cover
    entry()
