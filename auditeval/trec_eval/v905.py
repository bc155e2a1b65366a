"""trec_eval 9.0.5's crashes, found before they happen (``--as 9.0.5``).

9.0.5 is 9.0.6 but for trec_eval.c:125-133, which declares the table sizes ``extern long``
where measures.c:168,212 and formats.c:232,253,283 define them ``int``. On x86-64 the 8-byte
read takes the next variable as its upper half (gdb on the built binary):

* ``te_num_trec_measures`` reads ``0x600000034`` (52, and ``te_num_trec_measure_nicknames`` = 6
  above it): every loop over the measure table runs past its 52 entries, so the measure
  initialisation (trec_eval.c:338, after both files are read) and ``-h`` (trec_eval_help's list)
  always end in SIGSEGV;
* ``te_num_trec_measure_nicknames`` has the low half of a relocated pointer above it, so each
  ``-m NAME`` (trec_eval.c:514 ``mark_measure``, while the flags are read) crashes or not at
  random under ASLR (about half of the runs of one command, measured);
* ``te_num_rel_info_format`` / ``te_num_results_format``: the default formats are the first
  entries, so reading the files works; a ``-R`` or ``-T`` name the table lacks walks past it
  (SIGSEGV where trec_eval would print ``Illegal rel_format`` / ``Illegal retrieval results
  format``).

What 9.0.5 does without crashing is 9.0.6's (:func:`flag_crash` returns None for those command
lines: ``-v``, usage and getopt errors, ``-m NAME.`` with an empty parameter, and without any
``-m`` an unreadable or malformed input file); elsewhere the drop-in stops with exit 2 and the
reason (:func:`crash_text`), as it does where other builds crash.
"""

from __future__ import annotations

import getopt

from auditeval.trec_eval.args import _LONG, _SHORT

ALWAYS = "always"
RANDOM = "random"
FORMAT = "format"


def _options_before_error(argv: list[str]) -> tuple[list[tuple[str, str]], bool]:
    """The options getopt reads, in order, up to the first one it refuses (and whether one is)."""
    try:
        opts, _ = getopt.gnu_getopt(list(argv), _SHORT, _LONG)
        return opts, False
    except getopt.GetoptError:
        pass
    for k in range(len(argv), -1, -1):  # the longest prefix getopt accepts
        try:
            opts, _ = getopt.gnu_getopt(argv[:k], _SHORT, _LONG)
            return opts, True
        except getopt.GetoptError:
            continue
    return [], True  # pragma: no cover (the empty prefix always parses)


def flag_crash(argv: list[str]) -> str | None:
    """How 9.0.5 ends while reading its flags: RANDOM at the first ``-m NAME`` with a name
    (mark_measure walks the nickname table), None if it gets through them (``-v`` exits 0
    first; ``-m NAME.`` fails before the walk, trec_eval.c:476-480)."""
    opts, _ = _options_before_error(argv)
    for opt, val in opts:
        if opt in ("-v", "--version"):
            return None
        if opt in ("-m", "--measure"):
            name, dot, param = val.partition(".")
            if dot and param == "":
                return None  # 'improper measure in parameter', exit 1, no table walk
            return RANDOM
    return None


def crash_text(kind: str) -> str:
    if kind == FORMAT:
        return ("auditeval trec-eval: trec_eval 9.0.5 crashes here (trec_eval.c:125-133 reads the int "
                "te_num_rel_info_format / te_num_results_format as a long: a format name it lacks walks past "
                "the table, segmentation fault)\n")
    if kind == RANDOM:
        return ("auditeval trec-eval: -m: trec_eval 9.0.5 may crash here at random (trec_eval.c:125-133 reads "
                "the int te_num_trec_measure_nicknames as a long: its upper half is pointer bits, "
                "segmentation fault in mark_measure or later)\n")
    return ("auditeval trec-eval: trec_eval 9.0.5 crashes here (trec_eval.c:125-133 reads the int "
            "te_num_trec_measures as a long, 0x600000034 measures: segmentation fault in the measure loop)\n")
