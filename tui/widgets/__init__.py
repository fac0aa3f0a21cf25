"""Widgets of the corpusdb TUI: the document view (text, spans, relation markers) and tables."""
