"""Widgets of the corpusdb TUI."""
