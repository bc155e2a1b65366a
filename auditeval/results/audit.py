"""The audit report: one object, plain data, feeding every renderer.

Every number is stored with its variant string and the engine that produced it. Sections:

* ``inputs``: the qrels and run files with the SHA-256 of their bytes; ``profile_axes``: every
  axis of the chosen profile;
* ``engines``: each reference (and the native engine) with status, profile, wall time taken,
  its processes' own CPU time, and its expected cost; ``left_out``: those ``--quick`` left out;
* ``agreement``: per run x measure x reference, the tool's value and the native value under
  that reference's profile, and whether they agree (``match``), disagree but the disagreement
  is explained (``explained``), or not (``MISMATCH``: exit status 1);
* ``conv_diff``: one row per axis on which the engines' settings differ, with the effect of
  that axis alone on every measure;
* ``attributions``: per disagreeing pair of engines, the smallest axis flips reproducing each
  side natively, with per-topic evidence;
* ``sensitivity`` / ``swaps``: every value of every axis the measures read;
* ``ties``: the tie envelope (min / max / expected over orderings of tied documents);
* ``diagnostics``: input facts per run; ``official``: the official-measure check.

**Exit status** (:attr:`AuditReport.exit_status`; also ``verify`` and ``diff``, see
:data:`EXIT_STATUSES`): 0 every reference value was compared and every difference is explained;
1 a difference is not explained; 2 bad input (the one error line); 3 nothing was checked (every
reference failed, timed out, refused the input or is missing: no reference value was compared);
4 incomplete (what was compared agrees or is explained, but some reference failed, timed out or
refused a value). The report's first line says which (:func:`~auditeval.render.audit.tables.verdict` in
:mod:`auditeval.render.audit.tables`), so a failed reference is never read as a clean audit.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

NATIVE_ENGINE_LABEL = "native"

EXIT_OK, EXIT_UNEXPLAINED, EXIT_BAD_INPUT, EXIT_NOTHING_CHECKED, EXIT_INCOMPLETE = 0, 1, 2, 3, 4
EXIT_STATUSES = {
    EXIT_OK: "everything was checked and every difference is explained",
    EXIT_UNEXPLAINED: "a difference is not explained",
    EXIT_BAD_INPUT: "bad input (one 'auditeval: error:' line)",
    EXIT_NOTHING_CHECKED: "nothing was checked (every reference failed, timed out or refused)",
    EXIT_INCOMPLETE: "incomplete: what was checked agrees, but some reference failed, timed out or refused",
}


def exit_epilog(meaning: dict[int, str] | None = None) -> str:
    """The exit statuses for a command's ``--help`` epilog (``meaning`` overrides the words)."""
    words = {**EXIT_STATUSES, **(meaning or {})}
    return "exit status: " + "; ".join(f"{k} {v}" for k, v in sorted(words.items()))

FAILED_ENGINE = ("failed", "timeout")  # a reference that ran and gave nothing


@dataclass
class EngineInfo:
    name: str  # adapter name, or "native"
    engine: str  # tool and version
    profile: str
    status: str  # ok | not installed | failed | timeout | unsupported
    message: str = ""
    seconds: float = 0.0  # wall time
    computes: list[str] = field(default_factory=list)  # measures it was asked for
    unsupported: list[str] = field(default_factory=list)  # "MEASURE: unsupported: ..." per variant it cannot compute
    axes: dict[str, str] = field(default_factory=dict)  # every axis of its profile (formatted values)
    cpu_seconds: float = 0.0  # its child processes' own CPU time (user + system)
    expected_seconds: float | None = None  # the scheduler's expected CPU time (adapters.runner.expected_seconds)


@dataclass
class InputFile:
    role: str  # qrels | run
    name: str  # "qrels" or the run's name
    source: str  # path (or irds: id, <memory>)
    sha256: str = ""  # of the file's bytes as stored; "" for in-memory inputs and irds: ids


@dataclass
class AgreementRow:
    run: str
    measure: str
    engine: str  # adapter name
    engine_version: str
    variant: str
    value: float | str | None  # the tool's aggregate as it reported it (text for binaries)
    native: float | None  # native under the same variant
    native_engine: str
    status: str  # match | explained | MISMATCH | unsupported | failed | not installed | timeout
    detail: str = ""
    topics: int = 0  # topics compared
    max_topic_diff: float | None = None  # largest |tool - native| per topic (doubles only)


@dataclass
class AxisEffect:
    run: str
    measure: str
    to_value: str  # the other setting
    variant: str  # variant of the flipped convention
    aggregate: float | None
    delta: float | None  # flipped - base
    topics_moved: int
    error: str = ""


@dataclass
class ConvDiffRow:
    axis: str
    settings: dict[str, str]  # engine -> its setting
    base: str  # the chosen profile's setting
    effects: list[AxisEffect] = field(default_factory=list)


@dataclass
class Attribution:
    run: str
    measure: str
    a: str  # engine names (comma-joined when engines share a profile)
    b: str
    variant_a: str
    variant_b: str
    value_a: float | None
    value_b: float | None
    a_to_b: list[list[str]]  # minimal flip sets (each a list of 'axis=value') turning a into b
    b_to_a: list[list[str]]
    explained: bool
    evidence: list[str] = field(default_factory=list)
    topics_differing: int = 0


@dataclass
class SensitivityRow:
    run: str
    measure: str
    axis: str
    value: str
    variant: str
    aggregate: float | None
    delta: float | None
    topics_changed: int
    largest_topic: str = ""
    largest_change: float | None = None
    is_base: bool = False
    error: str = ""


@dataclass
class SwapRow:
    measure: str
    axis: str
    value: str
    order_changed: bool
    swapped: list[str]  # "runA/runB"


@dataclass
class TieRow:
    run: str
    measure: str
    topic: str  # topic id, or "all" for the aggregate
    variant: str
    value: float | None
    minimum: float | None
    maximum: float | None
    expected: float | None
    method: str  # exact | sampled (seed S, N orderings)
    tied_orderings: str = ""  # e.g. "24" or "1.2e+07"


@dataclass
class OfficialRow:
    dataset: str
    measure: str
    official: str
    status: str  # ok | departs | not official
    detail: str = ""


@dataclass
class AuditReport:
    qrels: str
    runs: list[str]
    measures: list[str]
    profile: str
    inputs: list[InputFile] = field(default_factory=list)
    profile_axes: dict[str, str] = field(default_factory=dict)
    engines: list[EngineInfo] = field(default_factory=list)
    agreement: list[AgreementRow] = field(default_factory=list)
    conv_diff: list[ConvDiffRow] = field(default_factory=list)
    attributions: list[Attribution] = field(default_factory=list)
    sensitivity: list[SensitivityRow] = field(default_factory=list)
    swaps: list[SwapRow] = field(default_factory=list)
    ties: list[TieRow] = field(default_factory=list)
    diagnostics: dict[str, dict[str, Any]] = field(default_factory=dict)
    official: list[OfficialRow] = field(default_factory=list)
    topic_deltas: dict[str, dict[str, dict[str, dict[str, float]]]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    native_engine: str = ""
    seconds: float = 0.0
    native_seconds: float = 0.0  # the parent's own time: the whole audit less its waiting for references
    jobs: int = 0  # references run at once at most
    left_out: list[str] = field(default_factory=list)  # references --quick left out (their engine rows say why)

    # ------------------------------------------------------------------ verdict
    @property
    def unexplained(self) -> list[AgreementRow]:
        return [r for r in self.agreement if r.status == "MISMATCH"] + [
            _as_row(a) for a in self.attributions if not a.explained
        ]

    @property
    def checked(self) -> list[AgreementRow]:
        """Agreement rows where a reference's number was compared with a native number."""
        return [r for r in self.agreement if r.status in ("match", "explained")
                and r.value is not None and r.native is not None]

    @property
    def unchecked(self) -> list[AgreementRow]:
        """Agreement rows a reference should have given but did not: it failed, timed out, or
        it refused the input (also when the native engine refused it alike)."""
        return [r for r in self.agreement if r.status in FAILED_ENGINE
                or (r.status in ("match", "explained") and (r.value is None or r.native is None))]

    @property
    def failed_engines(self) -> list[EngineInfo]:
        return [e for e in self.engines if e.name != NATIVE_ENGINE_LABEL and e.status in FAILED_ENGINE]

    @property
    def exit_status(self) -> int:
        """1 when a disagreement is not explained; else 3 when no reference value was compared;
        else 4 when a reference failed, timed out or refused a value; else 0."""
        if self.unexplained:
            return EXIT_UNEXPLAINED
        if not self.checked:
            return EXIT_NOTHING_CHECKED
        if self.unchecked or self.failed_engines:
            return EXIT_INCOMPLETE
        return EXIT_OK

    # ------------------------------------------------------------------ views
    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["exit_status"] = self.exit_status
        return d

    def to_frame(self):
        """Tidy frame of every value shown: run, measure, topic, variant, engine, value, section."""
        import pandas as pd

        rows = []
        for r in self.agreement:
            if r.value is not None:
                rows.append((r.run, r.measure, "all", r.variant, r.engine_version, _num(r.value), "agreement"))
            if r.native is not None:
                rows.append((r.run, r.measure, "all", r.variant, r.native_engine, r.native, "agreement"))
        for s in self.sensitivity:
            if s.aggregate is not None:
                rows.append((s.run, s.measure, "all", s.variant, self.native_engine, s.aggregate, "sensitivity"))
        for t in self.ties:
            for what in ("minimum", "maximum", "expected"):
                v = getattr(t, what)
                if v is not None:
                    rows.append((t.run, t.measure, t.topic, t.variant, f"{self.native_engine} tie {what} ({t.method})",
                                 v, "ties"))
        return pd.DataFrame(rows, columns=["run", "measure", "topic", "variant", "engine", "value", "section"])


def _num(v: float | str) -> float:
    return float(v)


def _as_row(a: Attribution) -> AgreementRow:
    return AgreementRow(a.run, a.measure, f"{a.a} vs {a.b}", "", a.variant_b, a.value_b, a.value_a, "",
                        "MISMATCH", "attribution found no axis flips reproducing both sides")
