"""Renderers: one :class:`~auditeval.results.values.ResultSet` in, text / TSV / JSON out."""

from __future__ import annotations

from auditeval.render.eval_json import render_json
from auditeval.render.eval_text import render_text
from auditeval.render.eval_tsv import render_tsv

RENDERERS = {"text": render_text, "tsv": render_tsv, "json": render_json}

__all__ = ["RENDERERS", "render_json", "render_text", "render_tsv"]
