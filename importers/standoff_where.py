"""Where an item of a brat/BioNLP document was written: its annotation file and line.

Why apart from the reader: the reader keeps positions only where a round trip needs them (see
``importers.standoff``), so a problem found later — a type the project's schema does not define, a
relation that fails the submit check — would name the document's ``.txt``. This finds the line again,
only for the few items a refusal names.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

__all__ = ["item_line"]

_STAR = re.compile(r"^\*(\d+)\.\d+$")


def item_line(annotation_files: Sequence[str], item_id: str) -> tuple[str, int] | None:
    """``(file, line)`` of the line that defines ``item_id`` (``T3``, ``E1``, ``#2``; ``*2.1``: the
    second ``*`` line, as the reader numbers them), or None when no line does."""
    star = _STAR.match(item_id)
    stars = 0
    head = f"{item_id}\t"
    for file in annotation_files:
        try:
            with open(file, encoding="utf-8", errors="replace") as fh:
                lines = fh.read().split("\n")
        except OSError:
            continue
        for n, line in enumerate(lines, 1):
            if star is not None:
                if line.startswith("*"):
                    stars += 1
                    if stars == int(star.group(1)):
                        return file, n
            elif line.startswith(head):
                return file, n
    return None
