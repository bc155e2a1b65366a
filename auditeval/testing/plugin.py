"""auditeval's pytest plugin (entry point ``pytest11``: ``auditeval``; ``-p no:auditeval`` turns it off).

* **Claims files as tests**: files named ``claims*.toml``, and every path given with
  ``--auditeval-claims PATH`` (a claims TOML, or a ``run,measure,value`` table in ``verify
  --table``'s form with ``--auditeval-qrels QRELS`` and optionally ``--auditeval-profile`` /
  ``--auditeval-set``), are collected as one test per claim (:mod:`.items`). A passing claim's
  report names the variant that reproduced it (``-v``: ``PASSED (label)``; the session's
  "auditeval claims" summary; JUnit XML properties ``auditeval_variant``, ``auditeval_engine``).
* ``--auditeval-update`` writes each claim's current value and variant string into its
  claims file at the end of the session (:func:`auditeval.verify.claims_lock.lock`; under
  xdist, by the controller, from the workers' reports).
* ``assert res_a == res_b`` on two ``ResultSet`` objects explains the difference as
  :func:`~auditeval.testing.assert_same_values` does (``pytest_assertrepr_compare``).
* what ``assert_reproduces`` / ``assert_same_values`` record in a test becomes its properties.

Cheap when unused: this module imports nothing of auditeval's engine, readers or results at
import; :mod:`.items` is loaded when a claims file is collected, the checks when a claim runs.
"""

from __future__ import annotations

import fnmatch
import json
import os
import sys
from typing import Any

import pytest

CLAIMS_GLOB = "claims*.toml"
_GIVEN = pytest.StashKey[set]()  # the --auditeval-claims paths, absolute


def pytest_addoption(parser: pytest.Parser) -> None:
    g = parser.getgroup("auditeval", "auditeval claims (numbers as tests)")
    g.addoption("--auditeval-claims", action="append", default=[], metavar="PATH",
                help="a claims file (TOML) or a run,measure,value table (CSV/TSV) to collect as tests; repeatable")
    g.addoption("--auditeval-update", action="store_true",
                help="write each claim's current value and variant string into its claims file")
    g.addoption("--auditeval-qrels", metavar="QRELS", help="the qrels of a run,measure,value table")
    g.addoption("--auditeval-profile", metavar="PROFILE", help="the stated profile of a run,measure,value table")
    g.addoption("--auditeval-set", action="append", metavar="AXIS=VALUE",
                help="a setting of a run,measure,value table's stated convention; repeatable")


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "auditeval_claim: a claim of a claims file (-m auditeval_claim selects them)")
    config.stash[_GIVEN] = {os.path.abspath(p) for p in config.getoption("auditeval_claims")}
    config.pluginmanager.register(ClaimsReport(config), "auditeval-claims-report")
    have = {os.path.abspath(a.split("::")[0]) for a in config.args}
    for p in config.getoption("auditeval_claims"):
        if os.path.abspath(p) not in have:
            config.args.append(p)


def pytest_collect_file(file_path, parent):
    name = file_path.name
    given = str(file_path) in parent.config.stash.get(_GIVEN, set())
    if fnmatch.fnmatch(name, CLAIMS_GLOB) or (given and file_path.suffix in (".toml", ".csv", ".tsv")):
        from auditeval.testing.items import ClaimsFile

        return ClaimsFile.from_parent(parent, path=file_path)
    return None


@pytest.hookimpl(wrapper=True)
def pytest_runtest_call(item: pytest.Item):
    record = sys.modules.get("auditeval.testing.record")
    if record is not None:
        record.take()
    try:
        return (yield)
    finally:
        record = sys.modules.get("auditeval.testing.record")
        if record is not None:
            item.user_properties.extend(record.take())


def _props(report: Any) -> dict[str, str]:
    return dict(getattr(report, "user_properties", ()) or ())


def pytest_report_teststatus(report: Any, config: pytest.Config):
    props = _props(report)
    if report.when != "call" or "auditeval_claim" not in props or not report.passed:
        return None
    if "auditeval_update" in props:
        return "passed", "U", ("UPDATED", {"green": True})
    label = props.get("auditeval_reproduced_by")
    return ("passed", ".", (f"PASSED ({label})", {"green": True})) if label else None


class ClaimsReport:
    """The session's claim reports (each worker's too, under xdist: the controller sees every
    report) and, under ``--auditeval-update``, the writing of the claims files at its end."""

    def __init__(self, config: pytest.Config) -> None:
        self.config = config
        self.reports: list[tuple[str, str, dict[str, str]]] = []
        self.written: list[str] = []

    def pytest_runtest_logreport(self, report: Any) -> None:
        props = _props(report)
        if report.when == "call" and "auditeval_claim" in props:
            self.reports.append((report.nodeid, report.outcome, props))

    def pytest_sessionfinish(self, session: pytest.Session) -> None:
        if hasattr(self.config, "workerinput") or not self.config.getoption("auditeval_update"):
            return
        updates: dict[str, dict[int, tuple[str, str]]] = {}
        tables = set()
        for _nodeid, _outcome, props in self.reports:
            if "auditeval_update" in props:
                u = json.loads(props["auditeval_update"])
                if u["table"]:
                    tables.add(u["path"])
                else:
                    updates.setdefault(u["path"], {})[u["index"]] = (u["claim"], u["variant"])
        if updates:
            from auditeval.verify.claims_lock import lock

            for path, ups in updates.items():
                self.written += lock(path, ups) or [f"{path}: unchanged"]
        self.written += [f"{p}: a run,measure,value table has no variant column: not rewritten" for p in sorted(tables)]

    def pytest_terminal_summary(self, terminalreporter: Any) -> None:
        if not self.reports:
            return
        from auditeval.render.textgrid import wrap_variant

        tr = terminalreporter
        width = max(60, min(tr._tw.fullwidth, 120))
        tr.section("auditeval claims")
        # in file order, whichever worker ran a claim first; each variant string on its own lines,
        # broken after a '|' only, so the summary fits the terminal
        def place(report: tuple[str, str, dict]) -> tuple[str, int]:
            return report[0].split("::")[0], int(report[2].get("auditeval_index", -1))

        for nodeid, outcome, props in sorted(self.reports, key=place):
            claim = props.get("auditeval_claim", "")
            if outcome == "passed" and "auditeval_update" in props:
                u = json.loads(props["auditeval_update"])
                tr.write_line(f"UPDATED {nodeid}: {u['claim']} under")
                variant = u["variant"]
            elif outcome == "passed":
                tr.write_line(f"PASSED {nodeid}: {claim} reproduced by {props.get('auditeval_reproduced_by')}")
                variant = props.get("auditeval_variant")
            else:
                tr.write_line(f"FAILED {nodeid}: {claim} (see the failure above)")
                variant = None
            for line in wrap_variant(variant, width, indent=4, first="    ") if variant else []:
                tr.write_line(line)
        for line in self.written:
            tr.write_line(f"written: {line}")
        engines = sorted({p["auditeval_engine"] for _, _, p in self.reports if "auditeval_engine" in p})
        tr.write_line(f"engine: {', '.join(engines) or '(none ran)'}")


def pytest_assertrepr_compare(config: pytest.Config, op: str, left: Any, right: Any) -> list[str] | None:
    if op == "==" and _is_result_set(left) and _is_result_set(right):
        from auditeval.testing.asserts import result_sets_repr

        return result_sets_repr(left, right)
    return None


def _is_result_set(x: Any) -> bool:
    t = type(x)
    return t.__name__ == "ResultSet" and t.__module__ == "auditeval.results.values"
