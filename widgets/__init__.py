"""Textual widgets: dumb, driven by view models (see design.md)."""
