"""Hits as keyword-in-context lines (pure): what ``corpusdb search`` prints and the TUI lists.

A line is tab-separated: document, offsets (``start-stop``; fragments joined by ``,``), what the hit
is (``text``, or the set's annotator, the span's id and type, and its groundings with their
knowledge-base labels: ``alice T3 Habitat OBT:000001 (habitat)``), then the context: up to ``width``
characters before, the hit in brackets, up to ``width`` after, line breaks and tabs shown as spaces
so that one hit is one line.
"""

from __future__ import annotations

from corpusdb.search.engine import Hit


def flat(text: str) -> str:
    """One line: line breaks and tabs as spaces."""
    return text.translate({10: 32, 13: 32, 9: 32, 11: 32, 12: 32, 0x85: 32, 0x2028: 32, 0x2029: 32})


def where(hit: Hit) -> str:
    if len(hit.fragments) > 1:
        return ",".join(f"{a}-{b}" for a, b in hit.fragments)
    return f"{hit.start}-{hit.stop}"


def grounding_label(key: str, label: str | None) -> str:
    """``OBT:000001 (habitat)``: an id with its knowledge-base label when there is one."""
    return f"{key} ({label})" if label else key


def what(hit: Hit) -> str:
    if hit.item is None:
        return "text"
    parts = [hit.annotator or "-", hit.item, hit.type or "-"]
    parts += [grounding_label(k, lab) for k, lab in hit.groundings]
    return " ".join(parts)


def line(hit: Hit, width: int = 40) -> str:
    left = flat(hit.left)[-width:] if width else ""
    right = flat(hit.right)[:width] if width else ""
    return f"{hit.document}\t{where(hit)}\t{what(hit)}\t{left.rjust(width)}[{flat(hit.text)}]{right}"
