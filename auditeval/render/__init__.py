"""Renderers: one :class:`~auditeval.results.values.ResultSet` in, text / TSV / JSON out.

Each format's module loads on first use (PEP 562): ``eval --format tsv`` never imports rich,
which only the text view draws with (a command loads only what it uses).
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_MODULES = {"text": "eval_text", "tsv": "eval_tsv", "json": "eval_json"}


def renderer(fmt: str) -> Any:
    """The ``render_<fmt>`` function of the eval views (``text``, ``tsv``, ``json``)."""
    return getattr(import_module(f"auditeval.render.{_MODULES[fmt]}"), f"render_{fmt}")


def __getattr__(name: str) -> Any:
    if name == "RENDERERS":
        return {fmt: renderer(fmt) for fmt in _MODULES}
    if name.startswith("render_") and name[7:] in _MODULES:
        return renderer(name[7:])
    raise AttributeError(f"module 'auditeval.render' has no attribute {name!r}")


__all__ = ["RENDERERS", "render_json", "render_text", "render_tsv", "renderer"]
