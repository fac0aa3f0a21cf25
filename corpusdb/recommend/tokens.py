"""Tokens with their offsets: the unit of the string matcher's boundaries and of the tagger.

Why its own tokeniser (not ``corpusdb.agreement.tokens``, which returns numpy arrays): the models
need the token strings and plain offsets, and a document open must not import numpy for them. The
rule is the same, ``\\w+|[^\\w\\s]``: runs of word characters, and every other non-space character on
its own, so ``IL-2`` is ``IL``, ``-``, ``2`` and a name ending inside ``IL-2R`` is not on a boundary.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

TOKEN_RE = re.compile(r"\w+|[^\w\s]")


@dataclass(frozen=True, slots=True)
class Tokens:
    """A text's tokens: ``spans[i]`` is ``(start, end)`` of token ``i``."""

    text: str
    spans: tuple[tuple[int, int], ...]

    @property
    def words(self) -> list[str]:
        return [self.text[a:b] for a, b in self.spans]

    def starts(self) -> frozenset[int]:
        return frozenset(a for a, _ in self.spans)

    def ends(self) -> frozenset[int]:
        return frozenset(b for _, b in self.spans)


def tokenize(text: str) -> Tokens:
    return Tokens(text, tuple((m.start(), m.end()) for m in TOKEN_RE.finditer(text)))


def covered(tokens: Tokens, fragments: Sequence[Sequence[int]]) -> list[int]:
    """Indexes of the tokens that overlap any of ``fragments``, in order."""
    out = []
    for i, (a, b) in enumerate(tokens.spans):
        if any(a < e and b > s for s, e in fragments):
            out.append(i)
    return out
