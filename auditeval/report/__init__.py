"""Renderers: one :class:`~auditeval.results.ResultSet` in, text / TSV / JSON out."""

from __future__ import annotations

from .json import render_json
from .text import render_text
from .tsv import render_tsv

RENDERERS = {"text": render_text, "tsv": render_tsv, "json": render_json}

__all__ = ["RENDERERS", "render_json", "render_text", "render_tsv"]
