"""The span list's rows in text order, carried from one version of a set to the next.

Why: a full-text article has thousands of spans and an edit changes one or two; sorting them all
and looking every row up again on each edit cost milliseconds of the keystroke. Items are
immutable, so what changed is what is not the same object: those rows are taken out and put in
by bisection, the others stay.
"""

from __future__ import annotations

from bisect import bisect_left
from collections.abc import Callable, Sequence

from corpusdb.basics.records import Span

FULL = 64
"""More changes than this (an undo of a bulk action, a reload): sort everything again."""


def order_key(span: Span) -> tuple[int, int, str]:
    """Where a span's row goes: by start, then end, then id (ids are unique: no ties)."""
    return (span.start, span.end, span.id)


class SpanRows:
    """``(span id, row)`` for every span, in text order; rows made by ``label``."""

    def __init__(self) -> None:
        self._src: tuple[Span, ...] | None = None
        self._context: object = None
        self._keys: list[tuple[int, int, str]] = []
        self._spans: list[Span] = []
        self._rows: list[tuple[str, object]] = []

    def rows(
        self, spans: Sequence[Span], context: object, label: Callable[[Span], object]
    ) -> list[tuple[str, object]]:
        """The rows of ``spans``; ``context`` is what else the rows are made from (colours, notes):
        when it changes, every row is made again."""
        src = tuple(spans)
        if self._src is not None and src is self._src and context == self._context:
            return list(self._rows)
        if self._src is None or context != self._context:
            self._full(src, label)
        else:
            before = {id(sp) for sp in self._src}
            after = {id(sp) for sp in src}
            removed = [sp for sp in self._src if id(sp) not in after]
            added = [sp for sp in src if id(sp) not in before]
            if len(removed) + len(added) > FULL:
                self._full(src, label)
            else:
                for sp in removed:
                    i = bisect_left(self._keys, order_key(sp))
                    del self._keys[i], self._spans[i], self._rows[i]
                for sp in added:
                    key = order_key(sp)
                    i = bisect_left(self._keys, key)
                    self._keys.insert(i, key)
                    self._spans.insert(i, sp)
                    self._rows.insert(i, (sp.id, label(sp)))
        self._src, self._context = src, context
        return list(self._rows)

    def _full(self, spans: tuple[Span, ...], label: Callable[[Span], object]) -> None:
        self._spans = sorted(spans, key=order_key)
        self._keys = [order_key(sp) for sp in self._spans]
        self._rows = [(sp.id, label(sp)) for sp in self._spans]
