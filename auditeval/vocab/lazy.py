"""Names a package offers but loads on first use (PEP 562), so that importing the package, or
the command line, loads only what a command uses.

:func:`lazy_exports` makes a package's ``__getattr__`` and ``__dir__`` from a table
``name -> module``: the first lookup of ``name`` imports its module, binds the value in the
package's namespace (later lookups never reach ``__getattr__``) and returns it; an unknown
name is Python's own ``AttributeError`` message. Every package of auditeval that defers
imports uses it (``auditeval``, ``engine``, ``auditing``, ``stats``,
``pooling``, ``testing``).
"""

from __future__ import annotations

import importlib
import sys
from collections.abc import Callable, Mapping
from typing import Any


def lazy_exports(package: str, where: Mapping[str, str]) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package`` whose names in ``where`` live in the modules
    it maps them to (absolute names, or relative to ``package`` when they start with ``.``)."""

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module, package), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted(set(vars(sys.modules[package])) | set(where))

    return __getattr__, __dir__
