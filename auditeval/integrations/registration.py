"""``ir_measures.providers.registry['auditeval']`` without importing ir_measures up front.

``import auditeval`` must stay cheap (the trec_eval drop-in is called once per run by scripts),
yet ``registry['auditeval']`` must exist whenever a user has both packages. So: if ir_measures is
already imported, the provider is registered at once; otherwise a one-shot finder on
``sys.meta_path`` (the import system's own hook, PEP 451) wraps ir_measures' loader so that the
provider is registered right after ``import ir_measures`` completes. Nothing of ir_measures or of
the provider module is imported before then.
"""

from __future__ import annotations

import importlib.util
import sys
from types import ModuleType
from typing import Any

__all__ = ["register_with_ir_measures"]


def _register() -> None:
    """Import the provider module: it registers itself when its import completes (so when it is
    the one importing ir_measures, the provider is registered at its end, not here)."""
    if "auditeval.integrations.ir_measures_provider" not in sys.modules:
        import auditeval.integrations.ir_measures_provider  # noqa: F401


class _AfterImport:  # a sys.meta_path finder (duck-typed: importlib.abc costs 20 ms to import)
    """Finds nothing itself; for ``ir_measures`` it returns the real spec with a loader that
    registers the provider once the module has run."""

    def find_spec(self, name: str, path=None, target=None) -> Any:
        if name != "ir_measures":
            return None
        sys.meta_path.remove(self)  # one shot; also keeps find_spec below from finding us
        spec = importlib.util.find_spec(name)
        if spec is None or spec.loader is None or not hasattr(spec.loader, "exec_module"):
            return spec
        run = spec.loader.exec_module

        def exec_module(module: ModuleType) -> None:
            run(module)
            _register()

        spec.loader.exec_module = exec_module  # type: ignore[method-assign]
        return spec


def register_with_ir_measures() -> None:
    """Register now when ir_measures is loaded, else as soon as it is (never imports it)."""
    if "ir_measures" in sys.modules:
        _register()
    elif not any(isinstance(f, _AfterImport) for f in sys.meta_path):
        sys.meta_path.insert(0, _AfterImport())
