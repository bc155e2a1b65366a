"""Named conventions: every setting that can move an evaluation number.

A :class:`Convention` holds one value for every axis in :data:`AXES`; nothing has a
default in code. Values come from a profile (``conventions/*.toml``, one per tool and
version), optionally overridden axis by axis (``--set ties=docno-asc``). Profiles are
labels: they expand to full axis sets, and the variant string of a number always spells
the axes out (see :mod:`auditeval.vocab.variant`).

The axes and the :class:`Convention` record live in :mod:`auditeval.vocab.axes` (the single
home of what each value means and which tool uses it; ``auditeval conventions list`` prints
it), re-exported here; this module reads profiles, their ``[route]`` tables and ``--set``.
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from auditeval.vocab.axes import AXES, AXIS_ORDER, Axis, Convention
from auditeval.vocab.errors import AuditEvalError, ConventionError
from auditeval.vocab.measure import parse_syntax

__all__ = ["AXES", "AXIS_ORDER", "DEFAULT_PROFILE", "Axis", "Convention", "Profile", "ProfileLike", "ResolvedProfile",
           "diff", "load_profile", "profile_dirs", "profile_names", "resolve", "resolve_profile"]

DEFAULT_PROFILE = "trec_eval-9.0.8"
"""The profile every command and API function uses when none is named: trec_eval 9.0.8, the
build behind most published TREC numbers (``conventions/trec_eval-9.0.8.toml``)."""


@dataclass(frozen=True)
class Profile:
    """A named convention: the axis set a tool and version use, plus provenance."""

    name: str
    convention: Convention
    engine: str
    description: str
    sources: dict[str, str]
    path: str
    routes: tuple[tuple[str, str], ...] = ()  # (measure pattern, profile name), the [route] table
    print_digits: int | None = None  # the tool rounds each aggregate to this many decimals (BEIR: 5)

    def route_for(self, measure: Any) -> str | None:
        """The profile the ``[route]`` table sends ``measure`` to, or None (this profile's axes).

        A pattern is a measure name, optionally with parameters the measure must carry
        (``nDCG(dcg='exp-log2')``) and optionally ``@k`` (the measure must have a cut-off).
        The most specific matching pattern wins (parameters and ``@k`` each count one); a
        profile whose patterns tie on a measure is refused when loaded."""
        best: tuple[int, str] | None = None
        for pattern, target in self.routes:
            score = _route_match(pattern, measure)
            if score is not None and (best is None or score > best[0]):
                best = (score, target)
        return None if best is None else best[1]

    def convention_for(self, measure: Any) -> Convention:
        """The convention ``measure`` is computed under: the routed profile's axes where the
        ``[route]`` table names one (a tool that sends each measure to its own backend, as
        ir_measures' default pipeline sends RR@k to its msmarco provider), else this profile's.
        Every path that evaluates a measure under a profile goes through here (via
        :func:`resolve`), so the variant string printed is the one the measure was computed under."""
        target = self.route_for(measure)
        return self.convention if target is None else load_profile(target).convention


def profile_dirs() -> list[Path]:
    """Where shipped profiles live: the wheel's ``auditeval/_conventions`` or the repo's ``conventions/``."""
    package = Path(__file__).resolve().parent.parent  # auditeval/
    return [d for d in (package / "_conventions", package.parent / "conventions") if d.is_dir()]


@cache
def _profiles() -> dict[str, Path]:
    out: dict[str, Path] = {}
    for d in profile_dirs():
        for p in sorted(d.glob("*.toml")):
            out.setdefault(p.stem, p)
    return out


def profile_names() -> list[str]:
    return sorted(_profiles())


def load_profile(name_or_path: str | Path) -> Profile:
    """Load a shipped profile by name (``trec_eval-9.0.8``) or any TOML file by path."""
    text = str(name_or_path)
    path = _profiles().get(text)
    if path is None:
        p = Path(text)
        if p.suffix == ".toml" and p.is_file():
            path = p
        else:
            raise ConventionError(
                f"unknown profile {text!r}; shipped profiles: {', '.join(profile_names())} (or give a .toml path)"
            )
    return _load_profile_file(path)


def _profile_text(path: Path) -> str:
    """The text of a profile file, checked as :func:`auditeval.io.files.read_text` checks (this
    layer sits below ``io``): a directory, an unreadable file or bytes that are not UTF-8 are one
    :class:`~auditeval.vocab.errors.InputError` naming the path (and the line of the first bad byte)."""
    from auditeval.vocab.errors import InputError

    try:
        raw = path.read_bytes()
    except IsADirectoryError:
        raise InputError(str(path), None, "is a directory, not a file") from None
    except OSError as exc:
        raise InputError(str(path), None, f"cannot read ({exc.strerror or exc})") from None
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        raise InputError(str(path), line, f"undecodable bytes (not UTF-8): {raw[exc.start:exc.end]!r}") from None


@cache
def _load_profile_file(path: Path) -> Profile:
    try:
        data = tomllib.loads(_profile_text(path))
    except tomllib.TOMLDecodeError as exc:
        raise ConventionError(f"{path}: not valid TOML ({exc})") from None
    axes = data.get("axes")
    if not isinstance(axes, dict):
        raise ConventionError(f"{path}: no [axes] table")
    conv = Convention.from_mapping(axes, where=str(path))
    routes = _routes(data.get("route", {}), path)
    return Profile(
        name=str(data.get("name", path.stem)),
        convention=conv,
        engine=str(data.get("engine", path.stem)),
        description=str(data.get("description", "")),
        sources={str(k): str(v) for k, v in data.get("sources", {}).items()},
        path=str(path),
        routes=routes,
        print_digits=_print_digits(data.get("print_digits"), path),
    )


def _print_digits(value: Any, path: Path) -> int | None:
    """A profile's top-level ``print_digits``: the tool rounds every aggregate it returns to
    this many decimals, Python ``round(x, n)`` (BEIR's EvaluateRetrieval.evaluate,
    beir/retrieval/evaluation.py:111-115, rounds to 5). An output convention, not an axis:
    the computed value and its variant string are the unrounded ones; ``verify`` compares the
    rounded aggregate with a claim made from such a tool's output."""
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value <= 17:
        raise ConventionError(f"{path}: print_digits must be an integer 0..17, got {value!r}")
    return value


def _route_pattern(pattern: str) -> tuple[str, tuple[tuple[str, Any], ...], bool]:
    """``"RR@k"`` -> (name, params, needs a cut-off); parameters in the measure grammar, the
    name as auditeval spells it (a measure's canonical name, :data:`auditeval.vocab.specs.SPECS`)."""
    from auditeval.vocab.specs import SPECS

    cut = pattern.endswith("@k")
    m = parse_syntax(pattern[:-2] if cut else pattern)
    if m.cutoff is not None:
        raise ConventionError(f"a route pattern has no cut-off value (write {m.name}@k for 'with a cut-off')")
    if m.name not in SPECS:
        raise ConventionError(f"{m.name!r} is not a measure name as auditeval spells it")
    return m.name, m.params, cut


def _route_match(pattern: str, measure: Any) -> int | None:
    name, params, cut = _route_pattern(pattern)
    if measure.name != name or (cut and measure.cutoff is None):
        return None
    have = dict(measure.params)
    if any(have.get(k, _MISSING) != v for k, v in params):
        return None
    return len(params) + int(cut)


_MISSING = object()


def _routes(table: Any, path: Path) -> tuple[tuple[str, str], ...]:
    """Validate a ``[route]`` table: patterns parse, targets are shipped profiles without routes
    of their own, and no two patterns of one measure name are equally specific (two patterns
    with as many conditions could both match one measure: which one applies would be a guess)."""
    if not isinstance(table, dict):
        raise ConventionError(f"{path}: [route] must be a table of measure pattern = profile name")
    out: list[tuple[str, str]] = []
    seen: dict[tuple[str, int], str] = {}
    for pattern, target in table.items():
        try:
            name, params, cut = _route_pattern(str(pattern))
        except AuditEvalError as exc:  # a measure syntax error names the pattern
            raise ConventionError(f"{path}: [route] pattern {pattern!r}: {exc}") from None
        if str(target) not in _profiles():
            raise ConventionError(f"{path}: [route] {pattern!r} names unknown profile {target!r}")
        if _load_profile_file(_profiles()[str(target)]).routes:
            raise ConventionError(f"{path}: [route] {pattern!r} -> {target!r}, a profile with routes of its own")
        key = (name, len(params) + int(cut))
        if key in seen:  # both could match one measure, and neither is more specific
            raise ConventionError(f"{path}: [route] patterns {seen[key]!r} and {pattern!r} are equally specific")
        seen[key] = str(pattern)
        out.append((str(pattern), str(target)))
    return tuple(out)


@dataclass(frozen=True)
class ResolvedProfile:
    """A profile resolved once, with its ``--set`` overrides: the object that travels through a
    command (the API's ``evaluate``/``sweep``, the commands that call them) instead of the
    profile's name, so no layer loads or resolves it again.

    * :attr:`label`: the name results carry (``"trec_eval-9.0.8 with rel=2"``; ``"custom"`` for a
      :class:`Convention` given as such);
    * :attr:`convention`: the profile's own axes with the overrides (for a profile with a
      ``[route]`` table: those of the measures it does not route);
    * :meth:`convention_for`: the convention one measure is computed under (its route, then the
      overrides), each routed profile loaded once.
    """

    label: str
    convention: Convention
    profile: Profile | None = None
    settings: tuple[str, ...] = ()
    _routed: dict[str, Convention] = field(default_factory=dict, compare=False, repr=False)

    def convention_for(self, measure: Any) -> Convention:
        target = None if self.profile is None else self.profile.route_for(measure)
        if target is None:
            return self.convention
        conv = self._routed.get(target)
        if conv is None:
            conv = self._routed[target] = load_profile(target).convention.with_settings(list(self.settings))
        return conv


ProfileLike = str | Path | Convention | ResolvedProfile


def resolve_profile(profile: ProfileLike = DEFAULT_PROFILE, settings: list[str] | None = None) -> ResolvedProfile:
    """``profile`` (name, TOML path, :class:`Convention` or an already resolved profile) with the
    ``settings`` overrides, resolved once. Resolving a :class:`ResolvedProfile` again without
    settings returns it; with settings, they apply after its own."""
    settings = list(settings or [])
    if isinstance(profile, ResolvedProfile):
        if not settings:
            return profile
        every = [*profile.settings, *settings]
        return ResolvedProfile(_label(profile.profile, every), profile.convention.with_settings(settings),
                               profile.profile, tuple(every))
    if isinstance(profile, Convention):
        return ResolvedProfile(_label(None, settings), profile.with_settings(settings), None, tuple(settings))
    prof = load_profile(profile)
    return ResolvedProfile(_label(prof, settings), prof.convention.with_settings(settings), prof, tuple(settings))


def _label(prof: Profile | None, settings: list[str]) -> str:
    return ("custom" if prof is None else prof.name) + (" with " + ", ".join(settings) if settings else "")


def resolve(profile: ProfileLike = DEFAULT_PROFILE, settings: list[str] | None = None,
            measure: Any = None) -> Convention:
    """The convention of a profile (name, path, :class:`Convention` or :class:`ResolvedProfile`)
    with ``--set`` overrides: :func:`resolve_profile`'s :attr:`~ResolvedProfile.convention`, or
    with ``measure`` the convention that measure is computed under
    (:meth:`ResolvedProfile.convention_for`: the profile's ``[route]`` table, then the overrides)."""
    rp = resolve_profile(profile, settings)
    return rp.convention if measure is None else rp.convention_for(measure)


def diff(a: Convention, b: Convention) -> dict[str, tuple[Any, Any]]:
    """Axes on which two conventions differ: ``{axis: (value_a, value_b)}``."""
    return {k: (getattr(a, k), getattr(b, k)) for k in AXIS_ORDER if getattr(a, k) != getattr(b, k)}
