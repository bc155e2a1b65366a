"""The trec_eval measures each version knows, their default parameters and nicknames.

Order matters: trec_eval computes and prints measures in the order of its
``te_trec_measures[]`` table (measures.c), whatever order ``-m`` flags come in. Nicknames
(``all_trec``, ``official``, ``set``) only mark measures; they never reorder them.

Each :class:`Spec` says how trec_eval reads the measure's parameter string
(meas_init.c: ``te_init_meas_*``) and which auditeval measure computes it. The version
differences (measures.c at tags v9.0.8 and v10.0, checked against the reference outputs
in ``../shared/reference``): 10.0 adds ``rbp``, ``rbp_resid`` and ``unj`` to the table
and to ``all_trec``.
"""

from __future__ import annotations

from dataclasses import dataclass

from auditeval.vocab.names import TREC_PREFS_MEASURES as PREFS_MEASURES
from auditeval.vocab.specs import TREC_ALIASES

VERSIONS = ("9.0.8", "9.0.8-double", "10.0", "9.0.7", "9.0.6", "9.0.5", "8.1", "8.0")
DEFAULT_VERSION = "9.0.8"
PROFILES = {v: f"trec_eval-{v}" for v in VERSIONS}
# What ``-v`` prints (to stderr) per build: ``trec_eval version %s`` (the Makefile's VERSIONID:
# 9.0.5 and 9.0.6 still say 9.0.4, tag v9.0.8 says 9.0.7).
VERSION_IDS = {"9.0.8": "9.0.7", "9.0.8-double": "9.0.8", "10.0": "10.0-rc3", "9.0.7": "9.0.7", "9.0.6": "9.0.4",
               "9.0.5": "9.0.4", "8.1": "8.1", "8.0": "8.0"}
# The 9.x releases whose measures, names, output and flags are 9.0.8's (sources diffed: 9.0.5 ->
# 9.0.6 changes only trec_eval.c:125-133 ``extern long`` -> ``extern int``; 9.0.6 -> 9.0.7 the
# Makefile's VERSIONID and sysfunc.h's bzero/bcopy guards; 9.0.7 -> 9.0.8 get_qrels.c open/lseek ->
# fopen/fseek, an mmap cast and Windows headers: no change in values, names, format or exit status).
SAME_AS_908 = ("9.0.7", "9.0.6", "9.0.5")

LONG_CUTS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)


@dataclass(frozen=True)
class Spec:
    """One entry of trec_eval's measure table.

    ``params``: how the ``-m NAME.PARAMS`` string is read (meas_init.c):

    * ``none``: no parameters (``te_init_meas_s_double`` / ``s_long``);
    * ``long_cut``: comma list of integer cut-offs, sorted, one value each, named ``NAME_%ld``;
    * ``double_cut``: comma list of float cut-offs, sorted, named ``NAME_%3.2f``;
    * ``double_params``: comma list of floats, one value named ``NAME_<params as typed>``;
    * ``pairs``: ``name=value`` list (gains, ``p=``), one value named ``NAME_<params as typed>``.

    :attr:`canonical` is the auditeval measure name, from the spec table's trec_eval names
    (:data:`auditeval.vocab.specs.TREC_ALIASES`, the one name map). ``fmt``:
    ``float`` (``%6.4f``), ``long`` (``%ld``) or ``str`` (relstring, quoted).
    ``per_topic`` / ``summary``: whether the value is printed per topic (``-q``) / in the
    ``all`` block (gm_* and num_q, runid are summary-only; relstring per-topic only).
    """

    name: str
    params: str = "none"
    default: tuple = ()
    fmt: str = "float"
    per_topic: bool = True
    summary: bool = True
    since: str = "9"  # "9" = every version here, "10" = 10.0 only
    rel_format: str = "qrels"  # the -R formats its calc accepts ("prefs": prefs and qrels_prefs)

    @property
    def canonical(self) -> str:
        """The auditeval measure computing this entry (``runid`` is the run tag, no measure;
        preference and judgment-group measures keep their trec_eval name, :mod:`.prefs_dropin`)."""
        if self.name == "runid" or self.rel_format != "qrels":
            return self.name
        return TREC_ALIASES[self.name][0]


_IPREC = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
_RPREC_MULT = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)

# te_trec_measures[] order (measures.c); the prefs / qrels_jg measures are computed by :mod:`.prefs_dropin`.
TABLE: tuple[Spec, ...] = (
    Spec("runid", fmt="str", per_topic=False),
    Spec("num_q", fmt="long", per_topic=False),
    Spec("num_ret", fmt="long"),
    Spec("num_rel", fmt="long"),
    Spec("num_rel_ret", fmt="long"),
    Spec("map"),
    Spec("gm_map", per_topic=False),
    Spec("Rprec"),
    Spec("bpref"),
    Spec("recip_rank"),
    Spec("iprec_at_recall", "double_cut", _IPREC),
    Spec("P", "long_cut", LONG_CUTS),
    Spec("relstring", "double_params", (10.0,), fmt="str", summary=False),
    Spec("recall", "long_cut", LONG_CUTS),
    Spec("infAP"),
    Spec("gm_bpref", per_topic=False),
    Spec("Rprec_mult", "double_cut", _RPREC_MULT),
    Spec("utility", "double_params", (1.0, -1.0, 0.0, 0.0)),
    Spec("11pt_avg", "double_params", _IPREC),
    Spec("binG"),
    Spec("G", "pairs"),
    Spec("ndcg", "pairs"),
    Spec("ndcg_rel", "pairs"),
    Spec("Rndcg", "pairs"),
    Spec("ndcg_cut", "long_cut", LONG_CUTS),
    Spec("map_cut", "long_cut", LONG_CUTS),
    Spec("relative_P", "long_cut", LONG_CUTS),
    Spec("success", "long_cut", (1, 5, 10)),
    Spec("set_P"),
    Spec("set_relative_P"),
    Spec("set_recall"),
    Spec("set_map"),
    Spec("set_F", "double_params", (1.0,)),
    Spec("num_nonrel_judged_ret", fmt="long"),
    *(Spec(n, fmt="long" if "_num_" in n else "float", rel_format="prefs") for n in PREFS_MEASURES),
    Spec("map_avgjg", rel_format="qrels_jg"),
    Spec("P_avgjg", "long_cut", LONG_CUTS, rel_format="qrels_jg"),
    Spec("Rprec_mult_avgjg", "double_cut", _RPREC_MULT, rel_format="qrels_jg"),
    Spec("yaap"),
    Spec("rbp", "pairs", since="10"),
    Spec("rbp_resid", "pairs", since="10"),
    Spec("unj", "long_cut", (5, 10, 20), since="10"),
)

_OFFICIAL = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map", "Rprec", "bpref",
             "recip_rank", "iprec_at_recall", "P")
_ALL_TREC_9 = _OFFICIAL + ("relstring", "recall", "infAP", "gm_bpref", "utility", "11pt_avg", "ndcg",
                           "relative_P", "Rprec_mult", "success", "map_cut", "ndcg_cut", "ndcg_rel", "Rndcg",
                           "binG", "G", "set_P", "set_recall", "set_relative_P", "set_map", "set_F",
                           "num_nonrel_judged_ret")
_SET = ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P", "set_recall",
        "set_relative_P", "set_map", "set_F")


def is_10(version: str) -> bool:
    return version.startswith("10")


def is_8(version: str) -> bool:
    """trec_eval 8.0 / 8.1: a different program (:mod:`auditeval.trec_eval.v8`)."""
    return version.startswith("8.")


def table(version: str) -> tuple[Spec, ...]:
    """The measure table of ``version``, in trec_eval's computing/printing order."""
    return tuple(s for s in TABLE if s.since == "9" or is_10(version))


def nicknames(version: str) -> dict[str, tuple[str, ...]]:
    """Nickname -> measure names (measures.c ``te_trec_measure_nicknames``)."""
    all_trec = _ALL_TREC_9 + (("rbp", "rbp_resid", "unj") if is_10(version) else ())
    return {"official": _OFFICIAL, "set": _SET, "all_trec": all_trec, "all_prefs": ("runid", "num_q") + PREFS_MEASURES,
            "prefs": ("runid", "num_q") + PREFS_MEASURES[:6], "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg",
                                                                           "Rprec_mult_avgjg")}


# ------------------------------------------------------------------------------ trec_eval 8.x
CUTOFFS_8 = (5, 10, 15, 20, 30, 100, 200, 500, 1000)  # 8.1 trec_eval.h:161 CUTOFF_VALUES


@dataclass(frozen=True)
class Out8:
    """One value trec_eval 8.x prints by default (8.1 measures.c:82-230, ``print_short_flag``):
    its printed name, the 9.x table entry whose auditeval measure computes it (``index``: which
    of that entry's values), ``long`` counts (summed, not averaged) or ``float`` values."""

    name: str  # as printed
    source: str  # catalog name of the 9.x measure computing it
    index: int = 0  # which value of that catalog entry
    kind: str = "float"  # float, long
    summary_only: bool = False


SHORT_8: tuple[Out8, ...] = (
    Out8("num_ret", "num_ret", kind="long"),
    Out8("num_rel", "num_rel", kind="long"),
    Out8("num_rel_ret", "num_rel_ret", kind="long"),
    Out8("map", "map"),
    Out8("gm_ap", "map", summary_only=True),
    Out8("R-prec", "Rprec"),
    Out8("bpref", "bpref"),
    Out8("recip_rank", "recip_rank"),
    *(Out8(f"ircl_prn.{i / 10:4.2f}", "iprec_at_recall", i) for i in range(11)),
    *(Out8(f"P{k}", "P", j) for j, k in enumerate(CUTOFFS_8)),
)
