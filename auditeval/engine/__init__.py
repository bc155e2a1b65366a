"""The native evaluation engine: prepare (conventions) -> measures -> aggregate."""
