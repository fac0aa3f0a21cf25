"""A full-text article in the annotation screen (issue #25.10): 60,000 characters, 3,000 spans
(nested and discontinuous among them) and 500 relations, read back from what the screen paints
after the view has scrolled far into the text. Correctness only: speed is in bench/bench_tui.py.

The expectations are computed here from the spans themselves (the innermost span's type colour,
the relations' ends), not from the view's paint or index, so an index that answers wrongly (a span
missing from a bucket, a line painted from a stale cache) shows as a wrong cell."""

from __future__ import annotations

import re
from typing import Any

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from tui.app import build_app
from tui.colours import type_colours
from tui.facade import open_facade
from tui.sample import long_document
from tui.screens.annotate import AnnotateScreen
from tui.testing import press, run_async, settle, wait_until
from tui.textmodel import TextLayout

CHARS, SPANS, RELATIONS = 60_000, 3_000, 500


def build_fulltext(url: str) -> tuple[str, tuple[Span, ...], tuple[Relation, ...]]:
    """alice's set on one full-text-sized document, written through the API."""
    owner = Corpus.create("ft", "biorelex-1.0", url=url)
    owner.add_annotator("alice")
    text, spans = long_document(CHARS, SPANS)
    step = len(spans) // RELATIONS
    rels = tuple(
        Relation(f"R{i + 1}", "bind", (Argument("Arg1", spans[k].id), Argument("Arg2", spans[k + 1].id)), 1)
        for i, k in enumerate(range(0, step * RELATIONS, step))
    )
    owner.add_documents([Document("pmc", text)])
    owner.create_set("pmc", "alice", annotations=Annotations(spans=spans, relations=rels))
    return text, spans, rels


def expected_colour(offset: int, spans: tuple[Span, ...], colors: dict[str, str]) -> str | None:
    """The type colour of the innermost span over ``offset`` (None: no span; "?": two innermost
    spans of the same length but different types, which the test does not decide)."""
    covering = [s for s in spans if any(a <= offset < b for a, b in s.fragments)]
    if not covering:
        return None
    size = min(sum(b - a for a, b in s.fragments) for s in covering)
    types = {s.type for s in covering if sum(b - a for a, b in s.fragments) == size}
    return colors[types.pop()].lower() if len(types) == 1 else "?"


def painted_rows(app: Any, region: Any) -> list[list[tuple[str, Any]]]:
    """The cells (character, style) of the screen rows inside ``region``, as composited."""
    strips = app.screen._compositor.render_strips()
    rows = []
    for y in range(region.y, region.y + region.height):
        cells: list[tuple[str, Any]] = []
        for seg in strips[y]:
            if seg.control:
                continue
            cells.extend((ch, seg.style) for ch in seg.text)
        rows.append(cells[region.x : region.x + region.width])
    return rows


@run_async
async def test_a_full_text_article_paints_its_spans_and_markers_at_their_columns_far_down(
    sqlite_url: str,
) -> None:
    text, spans, rels = build_fulltext(sqlite_url)
    app = build_app(open_facade(sqlite_url, "ft", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        app.open_document("pmc")
        await wait_until(
            pilot,
            lambda: isinstance(app.screen, AnnotateScreen) and app.screen.session is not None,
            "the article open",
        )
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        # The cursor to a spot no span covers, two thirds down the article: the view scrolls there,
        # and no active span, partner or selection colours the cells looked at.
        target = next(
            i
            for i in range(2 * CHARS // 3, CHARS)
            if text[i] == " " and all(not (a <= i < b) for s in spans for a, b in s.fragments)
        )
        view.move_to(target)
        await press(pilot, "escape")
        await settle(pilot)
        assert view.scroll_y > 1000  # far down: most lines were never rendered before

        # the colours the view assigns (tui.colours keeps them apart), the text right of the connector margin
        colors = {k: v.lower() for k, v in type_colours(app.facade.schema).items()}
        layout = TextLayout(text, view.scrollable_content_region.width - view.margin)
        line_texts = {text[a:b].rstrip(): (a, b) for a, b in layout.lines}
        rows = painted_rows(app, view.scrollable_content_region)
        top, bottom = layout.lines[view._line_at_row(round(view.scroll_y))][0], view.cursor + 5_000
        near = tuple(s for s in spans if any(a < bottom and b > top - 5_000 for a, b in s.fragments))
        ends = {s.id: [r.id for r in rels if s.id in (a.ref for a in r.args)] for s in near}

        text_rows = markers = 0
        checked_spans = 0
        last_line: tuple[int, int] | None = None
        for row in rows:
            cells = row[view.margin :]
            shown = "".join(ch for ch, _ in cells).rstrip()
            if shown in line_texts and shown:  # a text line: every cell is its character and colour
                last_line = start, end = line_texts[shown]
                text_rows += 1
                for x, offset in enumerate(range(start, end)):
                    ch, style = cells[x]
                    assert ch == text[offset], (offset, ch)
                    if offset == view.cursor:
                        continue
                    want = expected_colour(offset, near, colors)
                    got = style.bgcolor.name.lower() if style.bgcolor is not None else None
                    if want is None:
                        assert got not in colors.values(), (offset, got)
                    elif want != "?":
                        assert got == want, (offset, text[offset - 5 : offset + 5], got, want)
                        checked_spans += 1
            elif shown.strip():  # a marker row: its first marker is under an end of that relation
                markers += 1
                assert last_line is not None, shown
                m = re.search(r"[→↔]?R(\d+)", shown)
                assert m is not None, shown
                col, rel = m.start(), f"R{m.group(1)}"
                start, end = last_line
                under = [s for s in near if s.fragments[0][0] == start + col and s.fragments[0][0] < end]
                assert any(rel in ends[s.id] for s in under), (shown, col, [s.id for s in under])
        assert text_rows >= 10  # most of the 24 rows are text (the rest marker rows, header, footer)
        assert checked_spans > 50  # and plenty of span cells were among them
        assert markers >= 2  # relation markers under the text too

        # A keystroke far down repaints only what it touches: the next span is still painted right.
        before = view.cursor
        await press(pilot, "n")
        assert view.cursor > before
        nxt = min(s.start for s in spans if s.start > before)
        assert view.cursor == nxt
        # What the cursor is on (the status line, the active span) is the innermost span there.
        for _ in range(20):
            here = [s for s in near if any(a <= view.cursor < b for a, b in s.fragments)]
            size = min(sum(b - a for a, b in s.fragments) for s in here)
            inner = [s.id for s in here if sum(b - a for a, b in s.fragments) == size]
            assert screen.active in inner, (view.cursor, screen.active, inner)
            await press(pilot, "n")
