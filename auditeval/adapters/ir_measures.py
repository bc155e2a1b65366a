"""ir_measures, one adapter per provider (providers disagree: ties, gains, topic sets).

ir_measures sends each measure to the first provider that supports it; here each adapter
pins one provider (``ir_measures.providers.registry[NAME].evaluator``) so that each
provider's conventions are audited under its own profile. Every provider sees the same
qrels (read by ``read_trec_qrels``) and runs (``read_trec_run``); missing qrels topics are
filled with the measure's default (0) by ir_measures' evaluator base class.

Which provider computes what, and its profile (sources in the profile files):

============  ==========================  ============================================
provider      measures (auditeval names)  profile
============  ==========================  ============================================
pytrec_eval   AP nDCG P R RR Bpref ...    ir_measures-0.4 (float32, docno-desc)
msmarco       RR                          ir_measures-0.4-msmarco (docno-asc, float64)
judged        Judged                      ir_measures-0.4-msmarco
gdeval        nDCG@k (gain exp2), ERR@k   ir_measures-0.4-gdeval
ranx          AP nDCG P R RR Rprec ...    ranx-0.3
trectools     AP nDCG P RR Bpref Rprec    ir_measures-0.4-trectools (file-order ties)
cwl_eval      AP P RR SDCG NERR8-11 INST  cwl_eval-1.0
              INSQ BPM
compat        Compat                      ir_measures-0.4-msmarco
accuracy      Accuracy                    ir_measures-0.4-accuracy (ties in file order)
pyndeval      alpha_DCG alpha_nDCG        ir_measures-0.4-pyndeval (docno-asc; the qrels'
              ERR_IA nERR_IA NRBP nNRBP   iteration column is the subtopic)
              AP_IA P_IA StRecall
              (k <= 20)
============  ==========================  ============================================

The pyndeval provider reads the qrels' iteration column as the subtopic; its child evaluates one
measure per evaluator (:mod:`.tools`: the provider hands one run iterator to each (rel, alpha,
beta) group, so every group after the first would score 0), and cut-offs above 20 are not sent.
Its ``ERR_IA``, ``nERR_IA`` take no ``alpha=`` (the provider runs them at 0.5,
pyndeval_provider.py ``_build_invokers``): ``alpha=0.5`` is sent without it, another alpha not at all.

The compat provider orders its ideal ranking by run score, so a run rewritten with new
scores would change it: ``ties`` and ``sim`` are fixed there, not emulated. Its ``Compat``
has no ``rel=``: the threshold is fixed at 1 (``qrels > 0``).
"""

from __future__ import annotations

import importlib.metadata as md
import shutil

from auditeval.adapters.base import ANY, Adapter, native, run_rewrite_axes
from auditeval.vocab.conventions import Convention
from auditeval.vocab.measure import Measure
from auditeval.vocab.names import IR_MEASURES_SPELLING

# provider -> (profile, pip package that makes it available, measures, measures needing a cut-off)
PROVIDERS: dict[str, tuple[str, str, frozenset[str], frozenset[str]]] = {
    "pytrec_eval": ("ir_measures-0.4", "pytrec-eval-terrier",
                    frozenset({"AP", "nDCG", "P", "R", "RR", "Bpref", "Rprec", "infAP", "Success", "NumRet",
                               "NumRel", "NumRelRet", "NumQ", "SetP", "SetRelP", "SetR", "SetF", "SetAP", "IPrec"}),
                    frozenset({"P", "R", "Success", "IPrec"})),
    "msmarco": ("ir_measures-0.4-msmarco", "ir-measures", frozenset({"RR"}), frozenset()),
    "judged": ("ir_measures-0.4-msmarco", "ir-measures", frozenset({"Judged"}), frozenset({"Judged"})),
    "gdeval": ("ir_measures-0.4-gdeval", "ir-measures", frozenset({"nDCG", "ERR"}), frozenset({"nDCG", "ERR"})),
    "ranx": ("ranx-0.3", "ranx", frozenset({"AP", "nDCG", "P", "R", "RR", "Rprec", "Success"}),
             frozenset({"P", "R", "Success"})),
    "trectools": ("ir_measures-0.4-trectools", "trectools", frozenset({"AP", "nDCG", "P", "RR", "Bpref", "Rprec"}),
                  frozenset({"P"})),
    "cwl_eval": ("cwl_eval-1.0", "cwl-eval",
                 frozenset({"AP", "P", "RR", "SDCG", "NERR8", "NERR9", "NERR10", "NERR11", "INST", "INSQ", "BPM"}),
                 frozenset({"P"})),
    "compat": ("ir_measures-0.4-msmarco", "ir-measures", frozenset({"Compat"}), frozenset()),
    "accuracy": ("ir_measures-0.4-accuracy", "ir-measures", frozenset({"Accuracy"}), frozenset()),
    "pyndeval": ("ir_measures-0.4-pyndeval", "pyndeval",
                 frozenset({"alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "NRBP", "nNRBP", "AP_IA", "P_IA", "StRecall"}),
                 frozenset({"alpha_DCG", "alpha_nDCG", "ERR_IA", "nERR_IA", "P_IA", "StRecall"})),
}
# measure parameters a provider takes as they are (auditeval spelling = ir_measures spelling)
OWN_PARAMS = {"compat": frozenset({"p", "normalize"}), "cwl_eval": frozenset({"max_rel", "min_rel", "T", "p"}),
              "pytrec_eval": frozenset({"beta"}), "pyndeval": frozenset({"alpha", "beta"})}
# pyndeval provider measures that take no alpha= (run at ndeval's default, pyndeval_provider.py _build_invokers)
AT_DEFAULT_ALPHA = {"ERR_IA", "nERR_IA"}
# auditeval name -> ir_measures spelling with the parameter that selects it (measure_names' table)
SPELLED = {ours: (theirs, [f"{k}={v!r}"]) for ours, (theirs, (k, v)) in IR_MEASURES_SPELLING.items()}
# providers that score with the run's own scores beyond their order: no rewrite of ties/sim
SCORE_READERS = {"gdeval": ("sim",), "compat": ("ties", "sim")}
NO_REL = frozenset({"gdeval", "compat"})  # no rel= parameter: the threshold is fixed at 1

# scheduling cost per provider: (CPU seconds per 100,000 run lines, start-up seconds), from the
# child's own CPU on a 100,000-line robust03 run with the default measures (benchmarks/audit_bench.py
# --calibrate): pytrec_eval 1.5 s, msmarco 1.5, gdeval 5.4 (gdeval.pl in Perl), trectools 7.1,
# cwl_eval 39 (pure Python per topic), ranx 22 (81 the first time numba compiles, cached afterwards)
COST = {"pytrec_eval": (0.5, 1.0), "msmarco": (0.5, 1.0), "judged": (0.5, 1.0), "gdeval": (4.4, 1.0),
        "ranx": (21.0, 1.0), "trectools": (6.1, 1.0), "cwl_eval": (38.0, 1.0), "compat": (1.0, 1.0),
        "accuracy": (1.0, 1.0), "pyndeval": (4.5, 0.5)}
# pyndeval: 2.5 s CPU on benchmarks/diversity.py's 50,000-line run with its five measures, one
# evaluator per measure (tools.py), 0.35 s of it start-up

# measures a provider computes only without a cut-off (RR@k is the msmarco provider's). ir_measures
# 0.4.3 parses NumRet(rel=1)@10 but its pytrec_eval provider ignores the @10 (num_rel_ret of the
# whole ranking), so NumRet@k / NumRelRet@k are never sent.
NO_CUTOFF = {"pytrec_eval": frozenset({"RR", "Bpref", "Rprec", "infAP", "NumRet", "NumRelRet"}), "ranx": frozenset({"RR", "Rprec"}),
             "cwl_eval": frozenset({"RR", "AP"}), "trectools": frozenset({"RR", "Bpref", "Rprec"})}


class IrMeasures(Adapter):
    """ir_measures with one provider pinned."""

    def __init__(self, provider: str):
        self.provider = provider
        self.profile, self.package, self.measures_supported, self.needs_cutoff = PROVIDERS[provider]
        self.name = f"ir_measures:{provider}"
        self.cost, self.startup = COST[provider]
        self.install = "pip install 'auditeval[references]'"
        skip = SCORE_READERS.get(provider, ())  # gdeval.pl reads the scores as Perl doubles
        if provider == "gdeval":  # gdeval.pl prints per-topic values with 5 decimals; ir_measures averages those
            self.exposes_per_topic, self.printed_digits, self.mean_of_printed = False, 5, True
        self.axes = {**run_rewrite_axes(self.profile, skip)}
        if provider not in NO_REL:
            self.axes["rel"] = native({ANY: ""})  # the measure's rel= parameter (see tool_measure)

    def available(self) -> str | None:
        try:
            md.version("ir-measures")
            md.version(self.package)
        except md.PackageNotFoundError:
            return f"not installed: {self.install}"
        if self.provider == "gdeval" and shutil.which("perl") is None:  # gdeval.pl needs perl
            return "not installed: perl (gdeval.pl is a Perl script)"
        return None

    def engine(self) -> str:
        extra = "" if self.package == "ir-measures" else f", {self.package} {md.version(self.package)}"
        if self.provider == "ranx" and int(md.version("pandas").split(".")[0]) >= 3:
            extra += "; pandas future.infer_string=False in its process (ranx #79)"
        return f"ir_measures {md.version('ir-measures')} ({self.provider} provider{extra})"

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        if self.provider == "pyndeval" and m.name in AT_DEFAULT_ALPHA and m.param("alpha") is not None:
            if float(m.param("alpha")) != 0.5:
                return None
            m = Measure(m.name, tuple(kv for kv in m.params if kv[0] != "alpha"), m.cutoff)
        if m.name not in self.measures_supported or any(k not in OWN_PARAMS.get(self.provider, ()) for k, _ in m.params):
            return None
        if m.name in self.needs_cutoff and m.cutoff is None:
            return None
        if m.cutoff is not None and m.name in NO_CUTOFF.get(self.provider, ()):
            return None
        if self.provider == "pyndeval" and m.cutoff is not None and not 1 <= m.cutoff <= 20:
            return None  # ndeval.c:69 DEPTH; pyndeval asserts cut-offs <= 20
        name, params = SPELLED.get(m.name, (m.name, []))
        params = [*params, *(f"{k}={v!r}" for k, v in m.params)]
        if self.provider == "gdeval" and m.name == "nDCG":
            params.append("dcg='exp-log2'")
        elif conv.rel != 1 and m.name not in ("Judged", "NumRet", "NumQ"):
            params.append(f"rel={conv.rel}")
        s = name + (f"({','.join(params)})" if params else "")
        return s + (f"@{m.cutoff}" if m.cutoff is not None else "")



ADAPTERS = {f"ir_measures:{p}": IrMeasures(p) for p in PROVIDERS}
