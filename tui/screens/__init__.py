"""Screens of the corpusdb TUI: one per task, plus small modal dialogs that return a value."""
