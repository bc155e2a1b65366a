"""Bridges to the tools researchers already use: an ir_measures provider
(:mod:`.ir_measures_provider`) and PyTerrier result frames (:mod:`.pyterrier_frames`)."""
