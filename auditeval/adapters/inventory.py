"""What the audit can run on this machine: ``auditeval references list``.

One :class:`Reference` row per reference: each Python tool of :data:`auditeval.adapters.ADAPTERS`
(its package found or not, its version), each bundled trec_eval release (built in the cache,
buildable from the bundled sources with the compiler found here, or neither), and any other
``trec_eval`` on PATH. A built program is probed as the audit probes it, so the row says which
build it behaves as.
"""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import dataclass

from auditeval.adapters.trec_eval_builds import built, cache_dir, compiler, sources_dir

__all__ = ["Reference", "inventory"]

READY, MISSING, BUILDABLE, UNSUPPORTED = "ready", "not installed", "buildable", "unsupported"


@dataclass(frozen=True)
class Reference:
    """One reference: ``status`` is ready / not installed / buildable / unsupported."""

    name: str
    kind: str  # python tool | trec_eval build | trec_eval on PATH
    status: str
    version: str
    where: str  # a path, or how to install it

    def as_dict(self) -> dict[str, str]:
        return {"name": self.name, "kind": self.kind, "status": self.status, "version": self.version,
                "where": self.where}


def _python_rows() -> list[Reference]:
    from auditeval.adapters import ADAPTERS

    rows = []
    for name, a in ADAPTERS.items():
        why = a.available()
        if why is None:
            rows.append(Reference(name, "python tool", READY, a.engine(), f"profile {a.profile}"))
        else:
            status = MISSING if why.startswith("not installed") else UNSUPPORTED
            rows.append(Reference(name, "python tool", status, "", why.split(": ", 1)[-1]))
    return rows


def _build_rows() -> list[Reference]:
    from auditeval.adapters.trec_eval import CRASHING, probe

    cc, make = compiler()
    can_build = cc is not None and make is not None and sources_dir() is not None
    rows = []
    for v, b in built().items():
        name = f"trec_eval-{v}"
        if b.built:
            try:
                found, said = probe(str(b.path))
            except (OSError, subprocess.SubprocessError) as exc:  # reported, not fatal
                found, said = None, f"probe failed: {exc}"
            said = "-v says " + said.removeprefix("trec_eval version ")
            if v in CRASHING:
                rows.append(Reference(name, "trec_eval build", UNSUPPORTED, said, f"{b.path}: {CRASHING[v]}"))
            elif found == v or (v == "9.0.7" and found == "9.0.8"):  # 9.0.7 probes as 9.0.8 (trec_eval.py)
                rows.append(Reference(name, "trec_eval build", READY, said, str(b.path)))
            else:
                rows.append(Reference(name, "trec_eval build", UNSUPPORTED, said,
                                      f"{b.path} behaves as {found or 'no known build'}; rebuild it"))
        elif b.sources is None:
            rows.append(Reference(name, "trec_eval build", MISSING, "", "its sources are not in this installation"))
        elif can_build:
            rows.append(Reference(name, "trec_eval build", BUILDABLE, "",
                                  f"auditeval references build {v}  (into {cache_dir()})"))
        else:
            rows.append(Reference(name, "trec_eval build", MISSING, "",
                                  "needs a C compiler and make to build from the bundled sources"))
    return rows


def inventory() -> list[Reference]:
    """Every reference the audit knows, Python tools first, then the trec_eval releases, then
    a ``trec_eval`` on PATH that is none of the built ones."""
    rows = _python_rows() + _build_rows()
    on_path = shutil.which("trec_eval")
    if on_path and not any(r.where == on_path for r in rows):
        from auditeval.adapters.trec_eval import discover

        b = discover([on_path])[0]
        why = b.available()
        rows.append(Reference(b.name, "trec_eval on PATH", READY if why is None else UNSUPPORTED, b.said,
                              on_path if why is None else why))
    return rows
