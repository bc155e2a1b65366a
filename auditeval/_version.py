"""The package version, in a module of its own so the engine can name itself without
importing the package root (which imports the readers)."""

__version__ = "0.1.0"
