"""Span highlighting computed once per edit: a style code per character, runs per line.

Why: redrawing must not walk every span for every line on every keystroke. An edit repaints the
code array (O(characters covered)); a line's runs are cut from it on demand and cached by the view;
a cursor move only re-renders the two lines it touches.
"""

from __future__ import annotations

import bisect
import itertools
from bisect import bisect_right
from collections.abc import Iterable, Mapping, Sequence
from functools import cached_property

from rich.style import Style

from corpusdb.basics.records import Span
from tui.colours import faint

UNKNOWN_COLOR = "#808080"
BUCKET = 64
"""Characters per bucket of the span index (``SpanPaint.covering``)."""


def contrast(color: str) -> str:
    """Black or white text, whichever reads better on ``color`` (#rrggbb)."""
    r, g, b = (int(color[i : i + 2], 16) for i in (1, 3, 5))
    return "#000000" if 0.299 * r + 0.587 * g + 0.114 * b > 140 else "#ffffff"


def span_style(
    color: str, *, nested: bool = False, discontinuous: bool = False, outer: bool = False
) -> Style:
    """How a span's characters look: its type colour as background; underlined where spans nest;
    overlined all along a span that holds another (the outer span reads as one piece around the
    inner one); italic for the fragments of a discontinuous span."""
    return Style(
        color=contrast(color), bgcolor=color, underline=nested, italic=discontinuous, overline=outer or None
    )


def bridge_style(color: str) -> Style:
    """The gap between two fragments of a discontinuous span: a faint band of its colour, so the
    eye joins the fragments across it."""
    return Style(bgcolor=faint(color))


BRIDGE_MAX = 200
"""Gaps longer than this (characters) get no band: far fragments are joined by the mark only."""


class SpanPaint:
    """Which style each character of a document gets from the spans covering it.

    The innermost (shortest) span wins the colour, so nested spans stay visible inside their parent;
    a character covered by two spans or more is underlined, a span holding another is overlined over
    its whole width, and the gaps between a discontinuous span's fragments are a faint band of its
    colour.
    """

    def __init__(self, length: int, spans: Sequence[Span], colors: Mapping[str, str]) -> None:
        self.spans = tuple(spans)
        self.styles: list[Style | None] = [None]
        keys: dict[tuple[str, bool, bool, bool, bool], int] = {}
        codes = [0] * (length + 1)
        depth = [0] * (length + 1)
        owner: list[Span | None] = [None] * (length + 1)
        # Longest first, so that shorter (inner) spans paint over their parents.
        for s in sorted(self.spans, key=lambda sp: -sum(e - b for b, e in sp.fragments)):
            for b, e in s.fragments:
                for i in range(max(0, b), min(e, length)):
                    depth[i] += 1
                    owner[i] = s
        # Spans holding another (a fragment of another span lies within one of theirs): overlined.
        # By intervals, not characters: an edit of a full-text article repaints in one pass.
        frags = sorted((b, e, k) for k, sp in enumerate(self.spans) for b, e in sp.fragments if e > b)
        starts = [f[0] for f in frags]
        outer = [False] * (length + 1)
        holders: set[int] = set()
        for b, e, k in frags:
            j = bisect.bisect_left(starts, b)
            while j < len(frags) and frags[j][0] < e:
                if frags[j][2] != k and frags[j][1] <= e:
                    holders.add(k)
                    break
                j += 1
        for k in holders:
            for b, e in self.spans[k].fragments:
                b, e = max(0, b), min(e, length)
                if e > b:
                    outer[b:e] = [True] * (e - b)
        # Gaps between a discontinuous span's fragments, where no span is: a faint band.
        bridge: dict[int, str] = {}
        for sp in self.spans:
            if len(sp.fragments) < 2:
                continue
            for (_a, gap_start), (gap_end, _b) in itertools.pairwise(sorted(sp.fragments)):
                if 0 < gap_end - gap_start <= BRIDGE_MAX:
                    color = colors.get(sp.type, UNKNOWN_COLOR)
                    for i in range(max(0, gap_start), min(gap_end, length)):
                        if owner[i] is None:
                            bridge[i] = color
        local: dict[tuple[int, bool, bool], int] = {}
        for i in range(length):
            s = owner[i]
            if s is None:
                if i not in bridge:
                    continue
                key = (bridge[i], False, False, False, True)
            else:
                lk = (id(s), depth[i] > 1, outer[i])
                code = local.get(lk)
                if code is not None:
                    codes[i] = code
                    continue
                key = (colors.get(s.type, UNKNOWN_COLOR), lk[1], len(s.fragments) > 1, lk[2], False)
            code = keys.get(key)
            if code is None:
                code = keys[key] = len(self.styles)
                self.styles.append(
                    bridge_style(key[0])
                    if key[4]
                    else span_style(key[0], nested=key[1], discontinuous=key[2], outer=key[3])
                )
            if s is not None:
                local[(id(s), key[1], key[3])] = code
            codes[i] = code
        self.codes = codes

    def runs(self, start: int, end: int) -> list[tuple[int, int, int]]:
        """``(start, end, code)`` runs of equal style over ``[start, end)``."""
        out: list[tuple[int, int, int]] = []
        codes = self.codes
        i = start
        while i < end:
            c = codes[i]
            j = i + 1
            while j < end and codes[j] == c:
                j += 1
            out.append((i, j, c))
            i = j
        return out

    @cached_property
    def _buckets(self) -> dict[int, list[int]]:
        """Which spans (indices into ``spans``) have a fragment over each ``BUCKET`` of characters.

        Why: the cursor asks what covers it on every keystroke; scanning thousands of spans each
        time (a full-text article) costs milliseconds, a bucket holds a handful."""
        out: dict[int, list[int]] = {}
        for i, s in enumerate(self.spans):
            for b, e in s.fragments:
                if e <= b:
                    continue
                for k in range(b // BUCKET, (e - 1) // BUCKET + 1):
                    ids = out.setdefault(k, [])
                    if not ids or ids[-1] != i:
                        ids.append(i)
        return out

    def covering(self, offset: int) -> list[Span]:
        """Spans covering ``offset``, innermost first (what the cursor is on)."""
        spans = self.spans
        found = [
            spans[i]
            for i in self._buckets.get(offset // BUCKET, ())
            if any(b <= offset < e for b, e in spans[i].fragments)
        ]
        found.sort(key=lambda sp: (sum(e - b for b, e in sp.fragments), sp.start))
        return found

    @cached_property
    def by_id(self) -> dict[str, Span]:
        """The spans by id."""
        return {s.id: s for s in self.spans}

    @cached_property
    def starts(self) -> list[int]:
        """The distinct start offsets of the spans, in order (``n``/``N`` go from one to the next)."""
        return sorted({s.start for s in self.spans if s.start >= 0})

    def next_start(self, offset: int, step: int) -> int | None:
        """The first span start after ``offset`` (``step`` > 0) or the last one before it."""
        starts = self.starts
        if step > 0:
            i = bisect_right(starts, offset)
            return starts[i] if i < len(starts) else None
        i = bisect_right(starts, offset - 1)
        return starts[i - 1] if i > 0 else None


def split_runs(runs: Iterable[tuple[int, int, int]], cuts: Iterable[int]) -> list[tuple[int, int, int]]:
    """The same runs cut at extra offsets (selection and cursor edges)."""
    points = sorted(set(cuts))
    out: list[tuple[int, int, int]] = []
    for s, e, c in runs:
        cur = s
        for p in points:
            if cur < p < e:
                out.append((cur, p, c))
                cur = p
        out.append((cur, e, c))
    return out
