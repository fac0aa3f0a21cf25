"""How names are compared: casefolded, whitespace collapsed (``" Bacillus  Subtilis"`` ->
``"bacillus subtilis"``). One function, used when names are stored and when a query is typed, so
both sides always agree."""

from __future__ import annotations


def normalize(name: str) -> str:
    """The comparison form of a name."""
    return " ".join(name.casefold().split())
