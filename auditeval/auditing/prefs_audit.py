"""The audit on preference judgments (``audit(..., judgments="prefs"|"qrels_prefs"|"qrels_jg")``):
each trec_eval binary is run with ``-R FORMAT -q`` (:meth:`~auditeval.adapters.trec_eval.TrecEvalBinary.commands`)
and every printed value, per topic and ``all``, is compared with the native value under that
build's profile (:func:`auditeval.engine.evaluate_judgments`) printed as trec_eval prints it
(``%6.4f``, counts ``%ld``): a row matches when every line is equal.

Only trec_eval computes these measures, so the other references take no part (their engine
rows say so), and no sensitivity, tie or attribution section is built: the audit of preference
judgments is the agreement table.
"""

from __future__ import annotations

import subprocess
import time
from typing import Any

from auditeval.adapters.trec_eval import discover, parse_output
from auditeval.engine import ENGINE, evaluate_judgments, judgment_variant
from auditeval.io import run_from
from auditeval.io.prefs_files import read_prefs, read_qrels_jg
from auditeval.results.audit import AgreementRow, AuditReport, EngineInfo, InputFile
from auditeval.vocab.conventions import resolve
from auditeval.vocab.errors import AuditEvalError
from auditeval.vocab.measure import Measure


def _printed(x: float, fmt: str) -> str:
    return str(int(x)) if fmt == "int" else f"{x:6.4f}".strip()


def audit_judgments(judgments: Any, runs: Any, measures: list[str], fmt: str,
                    trec_eval: list[str] | None = None, timeout: float | None = None) -> AuditReport:
    """Audit ``runs`` against preference ``judgments`` (a path in format ``fmt``) with every
    trec_eval binary found (``trec_eval`` paths, else PATH); ``measures``: trec_eval names
    without parameters (``prefs_simp``, ``map_avgjg``; default: the format's nickname set)."""
    from auditeval.vocab.spec_table import PREFS_SPECS

    t0 = time.perf_counter()
    jg = fmt == "qrels_jg"
    judg = read_qrels_jg(str(judgments)) if jg else read_prefs(str(judgments), fmt)
    names = list(measures or ([n for n in PREFS_SPECS if "avgjg" in n and not n.startswith("prefs")] if jg else
                              ["prefs_num_prefs_poss", "prefs_num_prefs_ful", "prefs_num_prefs_ful_ret", "prefs_simp",
                               "prefs_pair", "prefs_avgjg"]))
    parsed = [Measure(n, (), 10 if n == "P_avgjg" else 1.0 if n == "Rprec_mult_avgjg" else None) for n in names]
    printed = {"P_avgjg": "P_avgjg_10", "Rprec_mult_avgjg": "Rprec_mult_avgjg_1.00"}
    args = {"P_avgjg": "P_avgjg.10", "Rprec_mult_avgjg": "Rprec_mult_avgjg.1.0"}
    run_list = list(runs) if isinstance(runs, list | tuple) else [runs]
    rep = AuditReport(qrels=str(judgments), runs=[str(r) for r in run_list], measures=names,
                      profile="per binary", native_engine=ENGINE)
    rep.inputs.append(InputFile(fmt, "judgments", str(judgments)))
    rep.notes.append(f"judgments in trec_eval's '{fmt}' format: only trec_eval computes these measures")
    for b in discover(trec_eval):
        why = b.available()
        if why is not None:
            rep.engines.append(EngineInfo(b.name, b.engine() if b.build else b.path, b.profile, "unsupported", why))
            continue
        conv = resolve(b.profile)
        start = time.perf_counter()
        status, message = "ok", ""
        for r_in in run_list:
            run = run_from(r_in)
            cmd = b.commands(str(judgments), str(r_in), (), [args.get(n, n) for n in names], rel_format=fmt)
            try:
                p = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
                tool = parse_output(p.stdout) if p.returncode == 0 else None
                if tool is None:
                    status, message = "failed", p.stderr.strip()[-300:]
            except (OSError, subprocess.SubprocessError) as exc:
                tool, status, message = None, "failed", str(exc)
            try:
                native = evaluate_judgments(judg, run, parsed, conv)
            except AuditEvalError as exc:
                native, message = None, f"native: {exc}"
            for n, m, k in zip(names, parsed, range(len(names)), strict=True):
                spec = PREFS_SPECS[n]
                key = printed.get(n, n)
                row = AgreementRow(run.name, key, b.name, b.engine(), str(judgment_variant(m, conv)), None, None,
                                   ENGINE, "failed" if tool is None else "match")
                if native is not None:
                    jv = native[k]
                    row.native = jv.aggregate
                    mine = {t: _printed(x, spec.fmt) for t, x in zip(jv.topics, jv.values, strict=True)}
                    mine["all"] = _printed(jv.aggregate, spec.fmt)
                    if tool is not None:
                        theirs = tool.get(key, {})
                        row.value = theirs.get("all")
                        row.topics = len(jv.topics)
                        bad = sorted(t for t in set(mine) | set(theirs) if mine.get(t) != theirs.get(t))
                        if bad:
                            row.status = "MISMATCH"
                            row.detail = f"{len(bad)} lines differ, first {bad[0]}: {theirs.get(bad[0])} vs {mine.get(bad[0])}"
                rep.agreement.append(row)
        rep.engines.append(EngineInfo(b.name, b.engine(), b.profile, status, message, time.perf_counter() - start,
                                      computes=names))
    rep.seconds = time.perf_counter() - t0
    return rep


__all__ = ["audit_judgments"]
