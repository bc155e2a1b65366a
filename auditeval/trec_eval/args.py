"""Command-line flags of trec_eval (trec_eval.c ``main``: ``getopt_long`` with
``"hvqm:cl:nD:JN:M:R:T:oZ:"``), plus the drop-in's own ``--as`` and ``--variants``.

GNU getopt permutes, so flags may follow the file names, as with trec_eval. Numbers are
read with C ``atol`` (``-M abc`` is ``-M 0``). An unknown flag or a wrong number of file
names prints trec_eval's usage text and exits 1; a flag getopt refuses is first named in
getopt's own words (glibc ``getopt_long``, with ``argv[0]`` = ``trec_eval``):
``trec_eval: invalid option -- 'x'``, ``unrecognized option '--bogus'``, ``option requires
an argument -- 'm'``, ``option '--measure' requires an argument``, ``option '--help' doesn't
allow an argument``, ``option '--R' is ambiguous; possibilities: ...``.
"""

from __future__ import annotations

import getopt
from dataclasses import dataclass, field

from auditeval.io import c_atol
from auditeval.trec_eval.catalog import DEFAULT_VERSION, VERSIONS

USAGE = """Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file
   -h: Give full help information, including other options
   -q: In addition to summary evaluation, give evaluation for each query
   -m: calculate and print measures indicated by 'measure'
       ('-m all_qrels' prints all qrels measures, '-m official' is default)
"""

DROPIN_HELP = f"""auditeval trec-eval [--as {' | '.join(VERSIONS[:3])}] [--variants] [trec_eval flags] QRELS RUN

Behaves as the chosen trec_eval build (default {DEFAULT_VERSION}: tag v9.0.8, float32 scores, the
engine inside pytrec_eval-terrier): same standard output, error messages and exit status.
  --as VERSION   9.0.8 (float32 scores), 9.0.8-double (2023 tag, double scores) or 10.0;
                 also {', '.join(VERSIONS[3:])}: 9.0.5-9.0.7 behave as 9.0.8 (9.0.5 crashes
                 on every evaluation), 8.x is another program: trec_eval 8.0 / 8.1 of the
                 2000s, flags before the files (-q -a -o -c -lN -J -NN -MN -U[abcd]X -T)
  --variants     add the auditeval variant string of each value as a fourth column (the one
                 flag no build has; everything else is the build's)
trec_eval flags: -q -c -J -n -M N -l N -N N -m MEASURE[.params] (also -m all_trec, -m official,
-m set, -m all_prefs, -m prefs, -m qrels_jg); -N is the number of documents in the collection
(only utility reads it); -R qrels_jg|prefs|qrels_prefs reads preference judgments; -Z FILE
prints z-scores (qid measure mean stddev lines); -T trec_results; -D and -o are read and do
nothing (the debug output is not reproduced).
--as V -h prints that build's own help text; RUN may be '-' for standard input under 10.0
(9.x opens a file named '-'). Ids, tags and file names are bytes: written back as read.
"""

_SHORT = "hvqm:cl:nD:JN:M:R:T:oZ:"
_LONG = [
    "help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted", "level_for_rel=",
    "nosummary", "Debug_level=", "Judged_docs_only", "Number_docs_in_coll=", "Max_retrieved_per_topic=",
    "Rel_info_format=", "Results_format=", "Output_old_results_format=", "Zscore=", "as=", "variants",
]


class UsageError(Exception):
    """Bad command line: trec_eval prints ``message`` (getopt's, may be empty), then its usage
    text, and exits 1."""

    def __init__(self, message: str = ""):
        super().__init__(message)
        self.message = message


def getopt_message(exc: getopt.GetoptError, prog: str = "trec_eval") -> str:
    """glibc getopt_long's stderr line for what Python's getopt refused."""
    opt, msg = exc.opt, exc.msg
    long = len(opt) > 1
    if msg.endswith("not recognized"):
        return f"{prog}: unrecognized option '--{opt}'\n" if long else f"{prog}: invalid option -- '{opt}'\n"
    if msg.endswith("requires argument"):
        return f"{prog}: option '--{opt}' requires an argument\n" if long else f"{prog}: option requires an argument -- '{opt}'\n"
    if msg.endswith("must not have an argument"):
        return f"{prog}: option '--{opt}' doesn't allow an argument\n"
    if msg.endswith("not a unique prefix"):
        names = " ".join(f"'--{o.rstrip('=')}'" for o in _LONG if o.startswith(opt))
        return f"{prog}: option '--{opt}' is ambiguous; possibilities: {names}\n"
    return f"{prog}: {msg}\n"


@dataclass
class Args:
    version: str = DEFAULT_VERSION
    variants: bool = False
    help: bool = False
    show_version: bool = False
    query: bool = False
    complete: bool = False
    judged_only: bool = False
    summary: bool = True
    rel_level: int = 1
    max_docs: int | None = None
    num_docs: int = 0
    measures: list[str] = field(default_factory=list)
    qrels: str = ""
    run: str = ""
    rel_format: str = "qrels"  # -R: qrels, qrels_jg, prefs, qrels_prefs (trec_eval/prefs_dropin.py)
    zscores: str | None = None  # -Z FILE (trec_eval/zscores.py)
    results_format: str = "trec_results"  # -T: formats.c has no other


def parse_args(argv: list[str]) -> Args:
    try:
        opts, rest = getopt.gnu_getopt(list(argv), _SHORT, _LONG)
    except getopt.GetoptError as exc:
        raise UsageError(getopt_message(exc)) from None
    a = Args()
    for opt, val in opts:
        if opt in ("-h", "--help"):
            a.help = True
        elif opt in ("-v", "--version"):
            a.show_version = True  # trec_eval exits here: later flags are never read
            break
        elif opt in ("-q", "--query_eval_wanted"):
            a.query = True
        elif opt in ("-m", "--measure"):
            a.measures.append(val)
        elif opt in ("-c", "--complete_rel_info_wanted"):
            a.complete = True
        elif opt in ("-l", "--level_for_rel"):
            a.rel_level = c_atol(val)
        elif opt in ("-n", "--nosummary"):
            a.summary = False
        elif opt in ("-J", "--Judged_docs_only"):
            a.judged_only = True
        elif opt in ("-M", "--Max_retrieved_per_topic"):
            a.max_docs = c_atol(val)
        elif opt == "--as":
            if val not in VERSIONS:
                raise UsageError(f"auditeval trec-eval: --as must be one of {', '.join(VERSIONS)}, got {val!r}\n")
            a.version = val
        elif opt == "--variants":
            a.variants = True
        elif opt in ("-N", "--Number_docs_in_coll"):
            a.num_docs = c_atol(val)  # only utility reads it (its d * non-relevant-not-retrieved term)
        elif opt in ("-D", "--Debug_level"):
            pass  # debug output only
        elif opt in ("-R", "--Rel_info_format"):
            a.rel_format = val
        elif opt in ("-Z", "--Zscore"):
            a.zscores = val
        elif opt in ("-T", "--Results_format"):
            a.results_format = val
        # -o, --Output_old_results_format: "Obsolete, no longer supported" (trec_eval.c), no effect
    if a.help or a.show_version:
        return a
    if len(rest) != 2:
        raise UsageError()  # trec_eval prints only its usage text
    a.qrels, a.run = rest
    return a
