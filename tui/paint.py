"""Span highlighting computed once per edit: a style code per character, runs per line.

Why: redrawing must not walk every span for every line on every keystroke. An edit repaints the
code array (O(characters covered)); a line's runs are cut from it on demand and cached by the view;
a cursor move only re-renders the two lines it touches.
"""

from __future__ import annotations

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


def _bucket_keys(span: Span) -> list[int]:
    """The buckets a span's fragments lie over, each once."""
    keys: list[int] = []
    for b, e in span.fragments:
        if e > b:
            keys.extend(k for k in range(b // BUCKET, (e - 1) // BUCKET + 1) if k not in keys)
    return keys


def _extent(span: Span) -> tuple[int, int]:
    """From the first character of a span to its last, gaps between fragments included."""
    frags = span.fragments
    if not frags:
        return (0, 0)
    return (min(b for b, _ in frags), max(e for _, e in frags))


class SpanPaint:
    """Which style each character of a document gets from the spans covering it.

    The innermost (shortest) span wins the colour, so nested spans stay visible inside their parent;
    a character covered by two spans or more is underlined, a span holding another is overlined over
    its whole width, and the gaps between a discontinuous span's fragments are a faint band of its
    colour.

    ``updated`` paints the next version of the spans from this one: an edit repaints the characters
    of the spans it changed and of the spans around them, not the whole article.
    """

    def __init__(self, length: int, spans: Sequence[Span], colors: Mapping[str, str]) -> None:
        self.spans = tuple(spans)
        self.length = length
        self.colors = colors
        self.styles: list[Style | None] = [None]
        self._keys: dict[tuple[str, bool, bool, bool, bool], int] = {}
        self.codes = [0] * (length + 1)
        self.dirty: tuple[int, int] | None = None
        """What was painted again (``updated``): ``(start, end)``; None: everything."""
        self._paint(0, length, self.spans)

    def updated(self, spans: Sequence[Span]) -> SpanPaint:
        """The paint of ``spans`` (the same text and colours), painting again only where a style
        may differ: the characters of the spans added or removed (items are immutable: a changed
        span is a new object), and of every span overlapping them (a span holding a new one
        becomes overlined all along). Exactly what ``SpanPaint(length, spans, colors)`` paints."""
        new = SpanPaint.__new__(SpanPaint)
        new.spans = tuple(spans)
        new.length, new.colors = self.length, self.colors
        new.styles, new._keys = self.styles, self._keys  # append-only: old codes keep their meaning
        new.codes = self.codes.copy()
        new.dirty = (0, 0)
        before = {id(sp) for sp in self.spans}
        after = {id(sp) for sp in new.spans}
        removed = [sp for sp in self.spans if id(sp) not in after]
        added = [sp for sp in new.spans if id(sp) not in before]
        new._buckets = self._buckets_after(new.spans, removed, added)
        changed = [sp for sp in removed + added if sp.fragments]
        if not changed:
            return new
        lo = min(_extent(sp)[0] for sp in changed)
        hi = max(_extent(sp)[1] for sp in changed)
        # any span overlapping the changed ones may change (nesting, overline): their extents too
        wlo, whi = lo, hi
        for sp in changed + new._near(lo, hi):
            a, b = _extent(sp)
            if a < hi and b > lo:
                wlo, whi = min(wlo, a), max(whi, b)
        wlo, whi = max(0, wlo), min(whi, new.length)
        if whi > wlo:
            new._paint(wlo, whi, new._near(wlo, whi))
            new.dirty = (wlo, whi)
        return new

    def _near(self, lo: int, hi: int) -> list[Span]:
        """The spans reaching into ``[lo, hi)`` (a fragment, or a gap short enough to be banded),
        in the order of ``spans``."""
        buckets = self._buckets
        seen: dict[int, Span] = {}
        for k in range(max(0, lo - BRIDGE_MAX) // BUCKET, (hi + BRIDGE_MAX) // BUCKET + 1):
            for sp in buckets.get(k, ()):
                seen.setdefault(id(sp), sp)
        out = [sp for sp in seen.values() if (e := _extent(sp))[0] < hi and e[1] > lo]
        if len(out) > 1:
            order = self._order
            out.sort(key=lambda sp: order[id(sp)])
        return out

    @cached_property
    def _order(self) -> dict[int, int]:
        """Each span's place in ``spans`` (by identity)."""
        return {id(sp): i for i, sp in enumerate(self.spans)}

    def _holds(self, span: Span) -> bool:
        """Whether a fragment of another span lies within one of ``span``'s."""
        buckets = self._buckets
        for b, e in span.fragments:
            if e <= b:
                continue
            for k in range(b // BUCKET, (e - 1) // BUCKET + 1):
                for other in buckets.get(k, ()):
                    if other is not span and any(b <= c and d <= e and d > c for c, d in other.fragments):
                        return True
        return False

    def _paint(self, lo: int, hi: int, spans: Sequence[Span]) -> None:
        """Paint the codes of ``[lo, hi)`` from ``spans`` (every span reaching into it, in order)."""
        colors, length = self.colors, self.length
        n = hi - lo
        depth = [0] * n
        owner: list[Span | None] = [None] * n
        # Longest first, so that shorter (inner) spans paint over their parents.
        for s in sorted(spans, key=lambda sp: -sum(e - b for b, e in sp.fragments)):
            for b, e in s.fragments:
                for i in range(max(lo, b), min(e, hi, length)):
                    depth[i - lo] += 1
                    owner[i - lo] = s
        # Spans holding another (a fragment of another span lies within one of theirs): overlined.
        # By intervals, not characters: an edit of a full-text article repaints in one pass.
        outer = [False] * n
        for sp in spans:
            if not self._holds(sp):
                continue
            for b, e in sp.fragments:
                b, e = max(lo, b), min(e, hi, length)
                if e > b:
                    outer[b - lo : e - lo] = [True] * (e - b)
        # Gaps between a discontinuous span's fragments, where no span is: a faint band.
        bridge: dict[int, str] = {}
        for sp in spans:
            if len(sp.fragments) < 2:
                continue
            for (_a, gap_start), (gap_end, _b) in itertools.pairwise(sorted(sp.fragments)):
                if 0 < gap_end - gap_start <= BRIDGE_MAX:
                    color = colors.get(sp.type, UNKNOWN_COLOR)
                    for i in range(max(lo, gap_start), min(gap_end, hi, length)):
                        if owner[i - lo] is None:
                            bridge[i] = color
        keys, codes = self._keys, self.codes
        local: dict[tuple[int, bool, bool], int] = {}
        for i in range(lo, min(hi, length)):
            s = owner[i - lo]
            if s is None:
                if i not in bridge:
                    codes[i] = 0
                    continue
                key = (bridge[i], False, False, False, True)
            else:
                lk = (id(s), depth[i - lo] > 1, outer[i - lo])
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
    def _buckets(self) -> dict[int, list[Span]]:
        """Which spans have a fragment over each ``BUCKET`` of characters, in the order of ``spans``.

        Why: the cursor asks what covers it on every keystroke; scanning thousands of spans each
        time (a full-text article) costs milliseconds, a bucket holds a handful."""
        out: dict[int, list[Span]] = {}
        for s in self.spans:
            for k in _bucket_keys(s):
                out.setdefault(k, []).append(s)
        return out

    def _buckets_after(
        self, spans: tuple[Span, ...], removed: list[Span], added: list[Span]
    ) -> dict[int, list[Span]]:
        """The buckets of ``spans`` from these: only the buckets of the spans removed or added change."""
        if not removed and not added:
            return self._buckets
        out = dict(self._buckets)
        gone = {id(sp) for sp in removed}
        touched: set[int] = set()
        for sp in removed:
            touched.update(_bucket_keys(sp))
        fresh: dict[int, list[Span]] = {}
        for sp in added:
            for k in _bucket_keys(sp):
                touched.add(k)
                fresh.setdefault(k, []).append(sp)
        order = {id(sp): i for i, sp in enumerate(spans)} if added else {}
        for k in touched:
            rows = [sp for sp in out.get(k, ()) if id(sp) not in gone] + fresh.get(k, [])
            if fresh.get(k):
                rows.sort(key=lambda sp: order[id(sp)])
            if rows:
                out[k] = rows
            else:
                out.pop(k, None)
        return out

    def covering(self, offset: int) -> list[Span]:
        """Spans covering ``offset``, innermost first (what the cursor is on)."""
        found = [
            sp
            for sp in self._buckets.get(offset // BUCKET, ())
            if any(b <= offset < e for b, e in sp.fragments)
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
