"""What a reference adapter declares, as data, and the plan it makes for one request.

An adapter describes one reference tool (``pytrec_eval``, an ``ir_measures`` provider, a
``trec_eval`` binary, ``ranx``). Per convention axis it declares one :class:`Support`:

* ``native``: the tool sets the axis itself, with the option named per value
  (``topics``: ``{"both": "", "qrels": "-c"}`` for trec_eval 9);
* ``emulated``: any value can be reached by rewriting the input (``ties``: the run is
  ranked by auditeval under the requested rule and handed to the tool with strictly
  decreasing scores; ``depth``: the run is truncated), the tool's own value is ``value``;
* ``fixed``: the tool always uses ``value``.

:func:`plan` checks a requested convention against these declarations and returns the
options to pass, whether the run must be rewritten, and an ``unsupported: AXIS=VALUE needs
...`` reason for every variant the tool cannot compute. Nothing here runs the tool; see
:mod:`auditeval.adapters.runner`.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from auditeval.vocab.conventions import AXES, Convention, load_profile
from auditeval.vocab.measure import Measure
from auditeval.vocab.variant import fold, variant_axes

NATIVE, EMULATED, FIXED = "native", "emulated", "fixed"
ANY = "*"  # native option template for integer axes (rel, depth): "-l{}"
# axes the run rewrite (auditeval ranks, the tool gets strictly decreasing scores) can set
RUN_REWRITE_AXES = frozenset({"ties", "sim", "depth", "dups", "self_hits", "unjudged"})


@dataclass(frozen=True)
class Support:
    """How a tool honours one axis (see the module docstring)."""

    mode: str
    value: Any = None  # fixed / emulated: the tool's own value
    options: dict[Any, str] = field(default_factory=dict)  # native: value -> option text
    how: str = ""  # emulated: what is rewritten

    def option(self, value: Any) -> str | None:
        """The option text that sets ``value`` natively ('' = the default), None if none does."""
        if value in self.options:
            return self.options[value]
        if ANY in self.options and value != "all":
            return self.options[ANY].format(value)
        return None

    def describe(self) -> str:
        if self.mode == NATIVE:
            return "native: " + ", ".join(f"{AXES_FMT(k)}={v or '(default)'}" for k, v in self.options.items())
        if self.mode == EMULATED:
            return f"emulated ({self.how}); own value {AXES_FMT(self.value)}"
        return f"fixed at {AXES_FMT(self.value)}"


def AXES_FMT(v: Any) -> str:  # noqa: N802 - tiny formatting helper shared by the renderers
    return repr(float(v)) if isinstance(v, float) else str(v)


def native(options: dict[Any, str]) -> Support:
    """Values the tool sets by option; key ``ANY`` with a ``{}`` template takes any value."""
    return Support(NATIVE, options=dict(options))


def emulated(value: Any, how: str) -> Support:
    return Support(EMULATED, value=value, how=how)


def fixed(value: Any) -> Support:
    return Support(FIXED, value=value)


RANK_REWRITE = "auditeval ranks the run; the tool gets strictly decreasing scores"
_REWRITE_HOW = {
    "ties": RANK_REWRITE,
    "sim": RANK_REWRITE,
    "depth": "the run is truncated by auditeval",
    "dups": RANK_REWRITE + " (one line per document)",
    "self_hits": RANK_REWRITE + " (self hits removed)",
    "unjudged": RANK_REWRITE + " (unjudged rows removed, as trec_eval -J)",
}


def run_rewrite_axes(profile: str, skip: tuple[str, ...] = ()) -> dict[str, Support]:
    """``emulated`` declarations for every axis a rewritten run sets, own values from ``profile``."""
    conv = load_profile(profile).convention
    return {a: emulated(getattr(conv, a), how) for a, how in _REWRITE_HOW.items() if a not in skip}


@dataclass(frozen=True)
class Plan:
    """What to ask the tool for one (measure, convention) request."""

    measure: Measure  # as requested
    tool_measure: str | None  # the tool's spelling, None when unsupported
    options: tuple[str, ...] = ()
    rewrite: bool = False  # the run must be rewritten (ranked by auditeval)
    unsupported: str | None = None


class Adapter:
    """Base of every adapter: declarations are class data, behaviour is small methods.

    Subclasses set ``name``, ``profile`` (its own profile in ``conventions/``), ``install``
    (the command that installs it), ``axes`` (one :class:`Support` per axis: every axis
    not listed is ``fixed`` at the profile's value) and ``measures`` (auditeval measure
    name -> how the tool spells it; see :meth:`tool_measure`).
    """

    name: str = ""
    profile: str = ""
    install: str = ""
    axes: dict[str, Support] = {}
    measures: dict[str, str] = {}
    exposes_per_topic: bool = True  # per-topic doubles (compared to 1e-12) vs printed text
    printed_digits: int | None = None  # decimals printed, when only text is exposed
    mean_of_printed: bool = False  # the aggregate is a mean of the printed per-topic values
    summary_only: frozenset[str] = frozenset()  # measures printed for "all" only (trec_eval's num_q)
    timeout: float = 600.0
    # expected cost, for scheduling (:func:`auditeval.adapters.runner.expected_seconds`):
    # CPU seconds of the child per 100,000 run lines with the audit's default measures, and the
    # fixed part (interpreter start-up, imports). Measured on robust03 (runs of 100,000 lines,
    # benchmarks/audit_bench.py --calibrate); a relative figure, not a promise.
    cost: float = 5.0
    startup: float = 0.5

    # --------------------------------------------------------------------- declarations
    def own(self) -> Convention:
        return load_profile(self.profile).convention

    def support(self, axis: str) -> Support:
        s = self.axes.get(axis)
        return s if s is not None else fixed(getattr(self.own(), axis))

    def available(self) -> str | None:
        """None when usable, else the reason (``not installed: pip install ...``)."""
        return None

    def engine(self) -> str:
        """Tool and version, e.g. ``pytrec_eval-terrier 0.5.11 (trec_eval 9.0.x)``."""
        return self.name

    def tool_measure(self, m: Measure, conv: Convention) -> str | None:
        """The tool's name for ``m`` (folded: no convention parameters left), or None."""
        return None

    def child_command(self, spec: str, result: str) -> list[str]:
        """The child process of a Python tool: ``python -P .../adapters/tools.py SPEC RESULT``
        (-P: the script's folder, this package, is not put on the import path, where its
        pytrec_eval.py and ranx.py would shadow the tools themselves)."""
        return [sys.executable, "-P", str(Path(__file__).with_name("tools.py")), spec, result]

    # --------------------------------------------------------------------- planning
    def plan(self, m: Measure, conv: Convention) -> Plan:
        """Check every axis ``m`` reads under ``conv`` against the declarations."""
        m2, c2 = fold(m, conv)
        options: list[str] = []
        rewrite = False
        for axis in variant_axes(m2, c2.depth, c2.topics):
            want = getattr(c2, axis)
            s = self.support(axis)
            if s.mode == NATIVE:
                opt = s.option(want)
                if opt is None:
                    can = ", ".join(AXES_FMT(v) for v in s.options)
                    return Plan(m, None, unsupported=f"unsupported: {axis}={AXES_FMT(want)} needs {axis} in {{{can}}} ({self.name})")
                if opt:
                    options.append(opt)
            elif s.mode == EMULATED:
                if want != s.value:
                    rewrite = True
            elif want != s.value:
                return Plan(
                    m, None,
                    unsupported=f"unsupported: {axis}={AXES_FMT(want)} needs a tool with {axis}={AXES_FMT(want)} "
                    f"({self.name} is fixed at {AXES_FMT(s.value)})",
                )
        tm = self.tool_measure(m2, c2)
        if tm is None:
            return Plan(m, None, unsupported=f"unsupported: {self.name} does not compute {m2}")
        return Plan(m, tm, tuple(dict.fromkeys(options)), rewrite)


def check_declarations(a: Adapter) -> list[str]:
    """Declarations that contradict the adapter's own profile (a test asserts none)."""
    own = a.own()
    bad = []
    for axis in AXES:
        s = a.support(axis)
        mine = getattr(own, axis)
        if s.mode == NATIVE and s.option(mine) is None:
            bad.append(f"{a.name}: {axis} own value {mine!r} has no option")
        if s.mode in (FIXED, EMULATED) and s.value != mine:
            bad.append(f"{a.name}: {axis} declared {s.value!r}, profile says {mine!r}")
        if s.mode == EMULATED and axis not in RUN_REWRITE_AXES:
            bad.append(f"{a.name}: {axis} cannot be emulated by rewriting the run")
    return bad
