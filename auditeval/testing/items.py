"""The pytest nodes of a claims file: one :class:`ClaimsFile` per file, one :class:`ClaimItem`
per claim (named by its ``id``, else its ``source``, else ``claim N``).

A claim item checks its claim (:func:`auditeval.verify.claim_check.check_claim`) on inputs read
once per session (qrels by path or ``irds:`` id, runs by path, the engine's stages shared by
every claim of one (qrels, run) pair). Passing, its report carries the variant that
reproduced it and the engine as ``user_properties`` (JUnit XML properties). Failing, its
report is the check's explanation, not a traceback; bad input is one ``path:line: reason``.
Under ``--auditeval-update`` it passes and records the claim's current value and variant
string, which the plugin writes into the file at the end of the session.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

UPDATE_KEY = "auditeval_update"


class ClaimFailed(Exception):
    """A claim that does not hold (its message is the check's explanation)."""


class Inputs:
    """Qrels, runs and engine caches read once per session."""

    def __init__(self) -> None:
        self.qrels: dict[str, Any] = {}
        self.runs: dict[str, Any] = {}
        self.caches: dict[tuple[str, str], dict] = {}

    def get(self, qrels: str, run: str) -> tuple[Any, Any, dict]:
        from auditeval.io import qrels_from, run_from

        if qrels not in self.qrels:
            self.qrels[qrels] = qrels_from(qrels)
        if run not in self.runs:
            self.runs[run] = run_from(run)
        return self.qrels[qrels], self.runs[run], self.caches.setdefault((qrels, run), {})


class ClaimsFile(pytest.File):
    def collect(self):
        from auditeval.verify.claims_file import read_claims
        from auditeval.vocab.errors import AuditEvalError

        opt = self.config.getoption
        shown = os.path.relpath(self.path, self.config.invocation_params.dir)  # messages name paths as given
        try:
            specs = read_claims(str(self.path) if shown.startswith("..") else shown, opt("auditeval_qrels"),
                                opt("auditeval_profile"),
                                tuple(opt("auditeval_set") or ()))
        except AuditEvalError as exc:
            raise self.CollectError(f"auditeval: error: {exc}") from None
        seen: dict[str, int] = {}
        for spec in specs:
            name = spec.name.replace("::", ":")
            seen[name] = seen.get(name, 0) + 1
            if seen[name] > 1:
                name = f"{name} [{seen[name]}]"
            item = ClaimItem.from_parent(self, name=name, spec=spec)
            item.add_marker("auditeval_claim")
            yield item


_STATE = pytest.StashKey["State"]()


class State:
    """What the session's claim items share: their inputs, read once (:class:`Inputs`)."""

    def __init__(self) -> None:
        self.inputs = Inputs()


def state(config: pytest.Config) -> State:
    if _STATE not in config.stash:
        config.stash[_STATE] = State()
    return config.stash[_STATE]


class ClaimItem(pytest.Item):
    def __init__(self, *, spec: Any, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.spec = spec

    def runtest(self) -> None:
        from auditeval.verify.claim_check import Stated, check_claim

        s = self.spec
        st = state(self.config)
        qrels, run, cache = st.inputs.get(s.qrels, s.run)
        outcome = check_claim(qrels, run, s.claim, Stated(s.profile, s.settings, s.variant), cache, where=s.where)
        props = self.user_properties
        props.append(("auditeval_claim", s.claim))
        props.append(("auditeval_index", str(s.index)))  # the summary lists claims in file order
        props.append(("auditeval_engine", outcome.engine))
        if s.source:
            props.append(("auditeval_source", s.source))
        if self.config.getoption("auditeval_update"):
            now = outcome.current()
            if now is None:
                raise ClaimFailed(f"{s.claim}: no current value to lock (nothing evaluable)\n" + outcome.message())
            props.append((UPDATE_KEY, json.dumps({"path": str(s.path), "index": s.index, "claim": now[0],
                                                  "variant": now[1], "table": s.path.endswith((".csv", ".tsv"))})))
            props.append(("auditeval_variant", now[1]))
            return
        if not outcome.passed:
            raise ClaimFailed(outcome.message())
        props.append(("auditeval_variant", outcome.decided.variant))
        props.append(("auditeval_reproduced_by", outcome.decided.label))

    def repr_failure(self, excinfo, style=None):
        from auditeval.vocab.errors import AuditEvalError

        if isinstance(excinfo.value, ClaimFailed):
            return f"{self.spec.where}: {self.spec.name}: {excinfo.value}"
        if isinstance(excinfo.value, AuditEvalError):
            return f"auditeval: error: {excinfo.value}"
        return super().repr_failure(excinfo)

    def reportinfo(self):
        return self.path, (self.spec.line or 1) - 1, f"claim {self.name}: {self.spec.claim}"
