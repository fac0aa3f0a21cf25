"""The document text with its spans, a cursor and a selection: a Line API widget.

Why the Line API (``ScrollView.render_line``): only visible lines are rendered, each from a cached
base strip (span colours), with the cursor and selection overlaid on the one or two lines they
touch. Layout is recomputed only when the width changes, paint only when the spans change.

Relations are drawn where the text is: under a line whose spans are relation ends, marker rows
say ``R1 Lives_In:Bacterium→`` / ``→R1 Location`` at each span's first column (type labels too,
``L``). Marker rows are rows of their own, never cells inside the text, so columns and offsets stay
the text's; the cursor and up/down move over text lines only. Without relations nor labels the
rows are the text lines (no mapping at all).

Where a relation goes: with a connector margin (``margin``, two columns left of the text, set by a
screen whose schema has relations), the active relations are drawn as a line from the row of one
end to the row of the other (``╭─`` at the first, ``╰►`` at the end it points to), when both ends
fit on one screen.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from time import perf_counter
from typing import ClassVar

from rich.segment import Segment
from rich.style import Style
from textual import events
from textual.binding import BindingType
from textual.geometry import Region, Size
from textual.message import Message
from textual.scroll_view import ScrollView
from textual.strip import Strip

from corpusdb.basics.records import Entity, Relation, Span
from tui import colours, keymap
from tui.paint import UNKNOWN_COLOR, SpanPaint, contrast, split_runs
from tui.relations import RelationIndex, marker_lines, span_tag
from tui.textmodel import Boundaries, TextLayout, char_cells, display_char
from tui.widgets.lists import set_virtual_size

CURSOR = Style(reverse=True, bold=True)
# The fixed colours are tui.colours' (type colours keep their distance from them).
SELECTION = Style(bgcolor=colours.SELECTION, color="#ffffff", underline=True)
MARK = Style(bold=True, underline=True, color="#ffff00", bgcolor=colours.MARK_BG)
HIT = Style(bold=True, color="#000000", bgcolor=colours.HIT)
"""The hits of a search in the document (``/``), under the other overlays."""
PARTNER = Style(bold=True, underline=True, color="#000000", bgcolor=colours.PARTNER)
"""The other ends of the active span's relations (or of the relation selected in the list)."""
REL_MARKER = Style(color="#af87ff")
REL_HOT = Style(color="#000000", bgcolor=colours.PARTNER, bold=True)
"""The markers of the active span and its partners: the partners' pink, to read as one relation."""
MAX_MARKER_ROWS = 3
CONNECTOR = Style(color=colours.PARTNER, bold=True)
"""The connector in the margin: the partners' pink, as the ends it joins."""


def suggestion_style(color: str) -> Style:
    """How a suggestion reads: its type's colour as the *text* colour, bold, underlined and italic,
    never a background (the annotator's own items have their colour as background). All of it
    survives a 16-colour terminal (the colour becomes the nearest of the 16, where bold also makes
    dark colours brighter; a terminal without italics still underlines)."""
    return Style(color=color, bold=True, underline=True, italic=True)


class DocumentView(ScrollView, can_focus=True):
    """Read-mostly view of a document; moves the cursor and reports it, never edits by itself."""

    DEFAULT_CSS = """
    DocumentView { overflow-x: hidden; overflow-y: scroll; scrollbar-size-vertical: 1; }
    """

    BINDINGS: ClassVar[list[BindingType]] = keymap.bindings("text")

    class CursorMoved(Message):
        """The cursor or the selection changed (the screen shows what is under the cursor)."""

        def __init__(self, view: DocumentView, offset: int) -> None:
            super().__init__()
            self.view = view
            self.offset = offset

    def __init__(self, *, name: str | None = None, id: str | None = None, classes: str | None = None) -> None:
        super().__init__(name=name, id=id, classes=classes)
        self.text = ""
        self.bounds = Boundaries("")
        self.paint = SpanPaint(0, (), {})
        self.type_colors: Mapping[str, str] = {}
        self.layout_: TextLayout | None = None
        self.cursor = 0
        self.sel_anchor: int | None = None
        self.marking = False
        self.marks: list[tuple[int, int]] = []
        self.hits: list[tuple[int, int]] = []
        self.partners: list[tuple[int, int]] = []
        self.suggested: list[tuple[int, int, Style]] = []
        """Suggestions (``corpusdb.recommend``): drawn under everything else, in their own style."""
        self.hot: frozenset[str] = frozenset()
        """Spans whose marker rows are emphasised (the active span and its partners)."""
        self.relations: RelationIndex | None = None
        self.undirected: frozenset[str] = frozenset()
        """Relation types drawn with ``↔`` (the screen sets it from the schema)."""
        self.show_types = False
        """Type labels under every span (``L``), not only relation markers."""
        self.margin = 0
        """Columns left of the text for relation connectors (0: none; the screen sets 2)."""
        self.connectors: list[tuple[int, int]] = []
        """(source offset, target offset) of the relations drawn in the margin."""
        self._gutter: dict[int, str] = {}
        """Row → the margin's two cells there (rows without a connector are blank)."""
        self._markers: dict[str, tuple[str, str]] = {}
        """Span id → its relation markers (full, short)."""
        self._labels: dict[int, list[list[tuple[int, str, tuple[str, int]]]]] = {}
        self._rows: list[tuple[int, int]] | None = None
        self._row_of: list[int] | None = None
        self._goal_x: int | None = None
        self._cache: dict[int, Strip] = {}
        self._spans_key: tuple[object, ...] | None = None
        self._cache_style: Style | None = None
        self._frame_style: Style | None = None
        self._dragging = False
        self._display = ""
        self.cursor_listener: Callable[[int], None] | None = None
        """Called with the offset on every cursor or selection change (set by the owning screen)."""
        self.first_render: float | None = None
        """When the first line of the loaded text was rendered (``perf_counter``; the bench reads it)."""
        self.last_render = 0.0

    # -- content ----------------------------------------------------------------------------------
    def load(
        self,
        text: str,
        spans: Sequence[Span],
        colors: Mapping[str, str],
        relations: Sequence[Relation] = (),
        entities: Sequence[Entity] = (),
    ) -> None:
        """Show a new document (resets the cursor); its relations' markers are there from the first
        paint (added later, they would push the text down under the reader's eyes)."""
        self.text = text
        self._display = "".join(display_char(c) for c in text) if not text.isprintable() else text
        self.bounds = Boundaries(text)
        self.type_colors = colors
        self.cursor = 0
        self.sel_anchor = None
        self.marking = False
        self.layout_ = None
        self.first_render = None
        self._spans_key = None
        self.set_spans(spans, relations, entities)
        if self.size.width:  # not yet laid out: the first Resize (or paint) lays the text out once
            self._relayout()

    def set_spans(
        self, spans: Sequence[Span], relations: Sequence[Relation] = (), entities: Sequence[Entity] = ()
    ) -> None:
        """Repaint after an edit: the layout stays, the line cache is dropped. ``relations`` (and
        the ``entities`` they may point at) are drawn as markers under their ends."""
        key = (tuple(spans), tuple(relations), tuple(entities), self.type_colors, self.undirected)
        last = self._spans_key
        if last is not None and all(a is b for a, b in zip(key, last, strict=True)):
            return  # the same (immutable) items: the screen's first refresh after ``load``
        old = last[0] if last is not None and last[3] is self.type_colors else None
        self._spans_key = key
        if old is None:
            self.paint = SpanPaint(len(self.text), key[0], self.type_colors)
        elif len(old) != len(key[0]) or any(a is not b for a, b in zip(old, key[0], strict=True)):
            self.paint = self.paint.updated(key[0])  # else a relation edit: the paint stays
        else:
            self.paint.dirty = (0, 0)
        self.relations = RelationIndex(spans, relations, entities, self.undirected) if relations else None
        markers = self.relations.markers() if self.relations else {}
        old_markers = self._markers
        self._markers = {
            k: (" ".join(m.full for m in v), " ".join(m.short for m in v)) for k, v in markers.items()
        }
        dirty = self.paint.dirty
        if (
            dirty is not None
            and old is not None
            and self.layout_ is not None
            and not self.show_types
            and self._markers == old_markers
            and not self._moved_marked(old, key[0])
        ):
            # Only span colours changed, over ``dirty``: the rows and markers stay; redraw its lines.
            if dirty[1] > dirty[0]:
                self._refresh_range(*dirty)
            return
        self._cache.clear()
        if self.layout_ is not None:
            self._rebuild_labels()
        self.refresh()

    def _moved_marked(self, old: Sequence[Span], new: Sequence[Span]) -> bool:
        """Whether a span with relation markers was added, removed or changed (its markers move)."""
        if not self._markers:
            return False
        before = {id(sp) for sp in old}
        after = {id(sp) for sp in new}
        return any(sp.id in self._markers for sp in old if id(sp) not in after) or any(
            sp.id in self._markers for sp in new if id(sp) not in before
        )

    def set_show_types(self, show: bool) -> None:
        """Type labels under every span on or off (relation markers stay)."""
        self.show_types = show
        self._cache.clear()
        self._rebuild_labels()
        self.scroll_to_cursor()
        self.refresh()

    def set_partners(self, ranges: Sequence[tuple[int, int]], hot: Sequence[str] = ()) -> None:
        """Highlight a relation's other ends (``ranges``) and emphasise the markers of ``hot``
        spans; only the lines touched are redrawn."""
        new, hot_new = list(ranges), frozenset(hot)
        if new == self.partners and hot_new == self.hot:
            return
        old, self.partners = self.partners, new
        old_hot, self.hot = self.hot, hot_new
        # Hot spans are the marked span (redrawn by ``set_marks``) and the partners: redrawing the
        # partners' lines redraws their marker rows too. Spans hot before but not partners now:
        spans = self.paint.by_id if old_hot - hot_new else {}
        cooled = [f for sid in old_hot - hot_new if sid in spans for f in spans[sid].fragments[:1]]
        self._refresh_ranges(old + new + cooled)

    def set_suggestions(self, ranges: Sequence[tuple[int, int, Style]]) -> None:
        """Draw suggestions (not the annotator's items: no background, see ``SUGGESTION``); only the
        lines the old and new ones touch are redrawn."""
        new = list(ranges)
        if new == self.suggested:
            return
        old, self.suggested = self.suggested, new
        self._refresh_ranges([(a, max(a + 1, b)) for a, b, _ in old + new])

    def set_marks(self, marks: Sequence[tuple[int, int]]) -> None:
        """Emphasise some ranges (the active span, the item jumped to, the conflict under review);
        only the lines the old and new marks touch are redrawn."""
        new = list(marks)
        if new == self.marks:
            return
        old, self.marks = self.marks, new
        for a, b in old + new:
            self._refresh_range(a, max(a + 1, b))

    def set_hits(self, hits: Sequence[tuple[int, int]]) -> None:
        """Highlight a search's hits (none: clear them); only the lines touched are redrawn."""
        new = list(hits)
        if new == self.hits:
            return
        old, self.hits = self.hits, new
        self._refresh_ranges([(a, max(a + 1, b)) for a, b in old + new])

    @property
    def selection(self) -> tuple[int, int] | None:
        """The selected range ``[start, end)``, or None."""
        if self.sel_anchor is None or self.sel_anchor == self.cursor:
            return None
        return (min(self.sel_anchor, self.cursor), max(self.sel_anchor, self.cursor))

    def clear_selection(self) -> None:
        old = self.selection
        self.sel_anchor = None
        self.marking = False
        if old:
            self._refresh_range(*old)

    # -- layout -----------------------------------------------------------------------------------
    def _wrap_width(self) -> int:
        return max(8, (self.scrollable_content_region.width or self.size.width or 80) - self.margin)

    def set_connectors(self, pairs: Sequence[tuple[int, int]]) -> None:
        """Draw relations in the margin: each (source offset, target offset) as a line between their
        rows, pointing at the target; only the rows the old and new lines touch are redrawn."""
        new = list(pairs) if self.margin else []
        if new == self.connectors:
            return
        old_rows = set(self._gutter)
        self.connectors = new
        self._rebuild_gutter()
        rows = old_rows | set(self._gutter)
        for row in rows:
            self._cache.pop(row, None)
        if rows:
            self.refresh_lines(min(rows), max(rows) - min(rows) + 1)

    def _rebuild_gutter(self) -> None:
        """The margin's cells per row for ``connectors`` (when the rows move: layout, markers)."""
        self._gutter = {}
        if not self.connectors or self.layout_ is None:
            return
        lay = self.layout_
        height = max(3, self.scrollable_content_region.height or self.size.height or 24)
        down: set[int] = set()
        up: set[int] = set()
        through: set[int] = set()
        heads: set[int] = set()
        flat: set[int] = set()
        for a, b in self.connectors:
            ra, rb = self._row(lay.line_of(a)), self._row(lay.line_of(b))
            if ra == rb:
                flat.add(ra)
                heads.add(rb)
                continue
            lo, hi = min(ra, rb), max(ra, rb)
            if hi - lo >= height:  # both ends never on one screen: the markers and list say it
                continue
            down.add(lo)
            up.add(hi)
            through.update(range(lo + 1, hi))
            heads.add(rb)
        for row in down | up | through | flat:
            if row in flat and row not in down | up | through:
                first = "─"
            elif (row in down and (row in up or row in through)) or (row in up and row in through):
                first = "├"
            elif row in down:
                first = "╭"
            elif row in up:
                first = "╰"
            else:
                first = "│"
            ends = row in down or row in up or row in flat
            second = "►" if row in heads else "─" if ends else " "
            self._gutter[row] = first + second

    def _relayout(self) -> None:
        width = self._wrap_width()
        if self.layout_ is None or self.layout_.width != width or self.layout_.text is not self.text:
            self.layout_ = TextLayout(self.text, width)
            self._cache.clear()
            self._rebuild_labels()
            self._rebuild_gutter()
            self.refresh()

    def _rebuild_labels(self) -> None:
        """Place relation markers (and type labels) under the lines of their spans; map rows to
        text lines. Runs when the spans or the width change, never on a keystroke."""
        lay = self.layout_lines
        self._labels = {}
        if not self._markers and not self.show_types:
            self._rows = self._row_of = None
            self.virtual_size = Size(lay.width, len(lay))
            return
        per_line: dict[int, list[tuple[int, str, str, tuple[str, int]]]] = {}
        for s in self.paint.spans:
            markers = self._markers.get(s.id)
            if (not markers and not self.show_types) or not s.fragments or s.start < 0:
                continue
            a, b = s.fragments[0]
            line = lay.line_of(a)
            line_end = lay.lines[line][1]
            col = lay.x_of(a)
            stop = min(b, line_end)
            width = max(1, stop - a if lay.ascii else sum(char_cells(c) for c in self.text[a:stop]))
            head = span_tag(s.type, width) if self.show_types else ""
            full = " ".join(x for x in (head, markers[0] if markers else "") if x)
            brief = " ".join(x for x in (head, markers[1] if markers else "") if x)
            per_line.setdefault(line, []).append((col, full, brief, (s.id, len(head))))
        rows: list[tuple[int, int]] = []
        row_of: list[int] = []
        for line in range(len(lay)):
            row_of.append(len(rows))
            rows.append((line, 0))
            items = per_line.get(line)
            if items:
                items.sort(key=lambda x: x[0])
                placed = marker_lines(items, lay.width, MAX_MARKER_ROWS)
                self._labels[line] = placed
                rows.extend((line, k + 1) for k in range(len(placed)))
        self._rows, self._row_of = rows, row_of
        set_virtual_size(self, Size(lay.width, len(rows)))
        if self.connectors:
            self._rebuild_gutter()

    def _row(self, line: int) -> int:
        """The screen row (virtual y) of a text line."""
        return line if self._row_of is None else self._row_of[line]

    def _line_at_row(self, row: int) -> int:
        """The text line a row shows or is under (a marker row belongs to the line above)."""
        if self._rows is None:
            return row
        return self._rows[min(max(0, row), len(self._rows) - 1)][0] if self._rows else 0

    def on_resize(self, _event: events.Resize) -> None:
        self._relayout()
        self.scroll_to_cursor()

    @property
    def layout_lines(self) -> TextLayout:
        if self.layout_ is None:
            self.layout_ = TextLayout(self.text, self._wrap_width())
            self._rebuild_labels()
        return self.layout_

    # -- cursor -----------------------------------------------------------------------------------
    def move_to(self, offset: int, *, extend: bool = False, keep_goal: bool = False) -> None:
        """Put the cursor at ``offset``; ``extend`` grows the selection from its anchor."""
        offset = max(0, min(offset, len(self.text)))
        old_cursor, old_sel = self.cursor, self.selection
        if extend or self.marking:
            if self.sel_anchor is None:
                self.sel_anchor = old_cursor
        else:
            self.sel_anchor = None
        self.cursor = offset
        if not keep_goal:
            self._goal_x = None
        self._refresh_range(old_cursor, old_cursor + 1)
        self._refresh_range(offset, offset + 1)
        new_sel = self.selection
        if old_sel != new_sel:
            for r in (old_sel, new_sel):
                if r:
                    self._refresh_range(*r)
        self.scroll_to_cursor()
        self._cursor_changed()

    def _cursor_changed(self) -> None:
        """Tell the screen at once (same frame: a second frame would double a keystroke's cost),
        or post ``CursorMoved`` when nobody listens directly."""
        if self.cursor_listener is not None:
            self.cursor_listener(self.cursor)
        else:
            self.post_message(self.CursorMoved(self, self.cursor))

    def select(self, start: int, end: int) -> None:
        """Select ``[start, end)`` with the cursor at its end."""
        self.move_to(start)
        self.sel_anchor = start
        self.move_to(end, extend=True)

    def scroll_to_cursor(self) -> None:
        lay = self.layout_lines
        line = lay.line_of(self.cursor)
        row = self._row(line)
        last = row + len(self._labels.get(line, ()))  # the line's marker rows stay in sight with it
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_y)
        if height <= 0:
            return
        if row < top:
            self.scroll_to(y=row, animate=False, immediate=True)
        elif last >= top + height:
            self.scroll_to(y=min(row, last - height + 1), animate=False, immediate=True)

    def reveal(self, start: int, end: int) -> None:
        """Scroll ``[start, end)`` into sight without moving the cursor (a relation picked in a
        list): left alone when already visible, else its first line a third of the way down."""
        lay = self.layout_lines
        first = self._row(lay.line_of(start))
        last_line = lay.line_of(max(start, end - 1))
        last = self._row(last_line) + len(self._labels.get(last_line, ()))
        height = self.scrollable_content_region.height or self.size.height
        top = round(self.scroll_y)
        if height <= 0 or (top <= first and last < top + height):
            return
        self.scroll_to(y=max(0, first - height // 3), animate=False, immediate=True)

    def action_move(self, unit: str, step: int, extend: bool = False) -> None:
        lay, b, cur = self.layout_lines, self.bounds, self.cursor
        keep_goal = False
        if unit == "char":
            target = cur + step
        elif unit == "word":
            if step > 0:
                target = b.word_end(cur) if (extend or self.marking) else b.next_word(cur)
            else:
                target = b.prev_word(cur)
        elif unit == "sentence":
            target = b.next_sentence(cur) if step > 0 else b.prev_sentence(cur)
        elif unit == "line":
            line = lay.line_of(cur)
            if self._goal_x is None:
                self._goal_x = lay.x_of(cur)
            target = lay.offset_at(line + step, self._goal_x) if 0 <= line + step < len(lay) else cur
            if not 0 <= line + step < len(lay):
                target = 0 if step < 0 else len(self.text)
            keep_goal = True
        elif unit == "home":
            target = lay.lines[lay.line_of(cur)][0]
        elif unit == "end":
            target = lay.lines[lay.line_of(cur)][1]
        elif unit == "top":
            target = 0
        elif unit == "bottom":
            target = len(self.text)
        elif unit == "span":
            found = self.paint.next_start(cur, step)
            target = cur if found is None else found
            if target == cur:  # say why nothing moved (issue #15.7)
                where = "after" if step > 0 else "before"
                self.notify(
                    f"no span {where} the cursor" if self.paint.starts else "no span in this document"
                )
        else:
            return
        self.move_to(target, extend=extend, keep_goal=keep_goal)

    def action_toggle_mark(self) -> None:
        if self.marking:
            self.marking = False
        else:
            self.marking = True
            self.sel_anchor = self.cursor
        self._cursor_changed()

    def action_clear_selection(self) -> None:
        self.clear_selection()
        self._cursor_changed()

    # -- mouse ------------------------------------------------------------------------------------
    def _offset_from_mouse(self, event: events.MouseEvent) -> int:
        pos = event.get_content_offset_capture(self)
        x = max(0, pos.x - self.margin)
        return self.layout_lines.offset_at(self._line_at_row(round(self.scroll_y) + pos.y), x)

    def on_mouse_down(self, event: events.MouseDown) -> None:
        if event.button != 1:
            return
        self.focus()
        self._dragging = True
        self.capture_mouse()
        self.marking = False
        self.move_to(self._offset_from_mouse(event))
        self.sel_anchor = self.cursor

    def on_mouse_move(self, event: events.MouseMove) -> None:
        if self._dragging:
            at = self._offset_from_mouse(event)
            if self.sel_anchor is not None and at > self.sel_anchor:  # dragging on: the cell under
                at = min(at + 1, len(self.text))  # the pointer is selected too, as in a terminal
            self.move_to(at, extend=True)

    def on_mouse_up(self, _event: events.MouseUp) -> None:
        if self._dragging:
            self._dragging = False
            self.capture_mouse(False)
            if self.sel_anchor == self.cursor:
                self.sel_anchor = None

    # -- rendering --------------------------------------------------------------------------------
    def _refresh_range(self, start: int, end: int) -> None:
        first, last = self._rows_of_range(start, end)
        self.refresh_lines(first, last - first + 1)

    def _rows_of_range(self, start: int, end: int) -> tuple[int, int]:
        """First and last row showing ``[start, end)`` (marker rows included); their cached
        strips are dropped."""
        lay = self.layout_lines
        first, last = lay.line_of(start), lay.line_of(max(start, end - 1))
        first, last = self._row(first), self._row(last) + len(self._labels.get(last, ()))
        for row in range(first, last + 1):
            self._cache.pop(row, None)
        return first, last

    def _refresh_ranges(self, ranges: Sequence[tuple[int, int]]) -> None:
        """Redraw several ranges as one region: partners are often a few lines apart, and one
        region costs the compositor less than several (the rows between are cached strips)."""
        if not ranges:
            return
        rows = [self._rows_of_range(a, max(a + 1, b)) for a, b in ranges]
        first, last = min(r[0] for r in rows), max(r[1] for r in rows)
        self.refresh_lines(first, last - first + 1)

    def _overlays(self, start: int, end: int) -> list[tuple[int, int, Style]]:
        out: list[tuple[int, int, Style]] = []
        for a, b, style in self.suggested:
            if a < end and b > start:
                out.append((max(a, start), min(b, end), style))
        for a, b in self.hits:
            if a < end and b > start:
                out.append((max(a, start), min(b, end), HIT))
        for a, b in self.partners:
            if a < end and b > start:
                out.append((max(a, start), min(b, end), PARTNER))
        for a, b in self.marks:
            if a < end and b > start:
                out.append((max(a, start), min(b, end), MARK))
        sel = self.selection
        if sel and sel[0] < end and sel[1] > start:
            out.append((max(sel[0], start), min(sel[1], end), SELECTION))
        if start <= self.cursor < end:
            out.append((self.cursor, self.cursor + 1, CURSOR))
        return out

    def render_lines(self, crop: Region) -> list[Strip]:
        # Why: ``rich_style`` walks every ancestor's styles; once per frame is enough.
        self._frame_style = self.rich_style
        return super().render_lines(crop)

    def render_line(self, y: int) -> Strip:
        self.last_render = perf_counter()
        if self.first_render is None and self.text:
            self.first_render = self.last_render
        base = self._frame_style or self.rich_style
        if base != self._cache_style:
            self._cache.clear()
            self._cache_style = base
        width = self.size.width
        row = round(self.scroll_y) + y
        lay = self.layout_lines
        rows = self._rows
        if row >= (len(lay) if rows is None else len(rows)):
            return Strip.blank(width, base)
        cached = self._cache.get(row)
        if cached is not None:
            return cached
        index, sub = (row, 0) if rows is None else rows[row]
        built = self._build_line(index, base) if sub == 0 else self._build_markers(index, sub - 1, base)
        if self.margin:
            cells = self._gutter.get(row, "").ljust(self.margin)
            gutter = Strip([Segment(cells, base + CONNECTOR if cells.strip() else base)])
            strip = Strip.join([gutter, built.crop_extend(0, width - self.margin, base)])
        else:
            strip = built.crop_extend(0, width, base)
        self._cache[row] = strip
        return strip

    def marker_text(self, line: int) -> list[str]:
        """The marker rows under text line ``line`` as plain text (what the tests read)."""
        out = []
        for placed in self._labels.get(line, ()):
            cells = ""
            for col, text, _key in placed:
                cells = cells.ljust(col) + text
            out.append(cells)
        return out

    def _build_markers(self, line: int, k: int, base: Style) -> Strip:
        segments: list[Segment] = []
        x = 0
        spans = self.paint.by_id if self.show_types else {}
        for col, text, (span_id, head) in self._labels[line][k]:
            if col > x:
                segments.append(Segment(" " * (col - x), base))
            hot = span_id in self.hot
            x = col + len(text)
            if head:
                sp = spans.get(span_id)
                color = self.type_colors.get(sp.type, UNKNOWN_COLOR) if sp else UNKNOWN_COLOR
                tag = Style(color=contrast(color), bgcolor=color, bold=hot, underline=hot)
                segments.append(Segment(text[:head], base + tag))
                text = text[head:]
            if text:
                segments.append(Segment(text, base + (REL_HOT if hot else REL_MARKER)))
        return Strip(segments)

    def _build_line(self, index: int, base: Style) -> Strip:
        start, end = self.layout_lines.lines[index]
        runs = self.paint.runs(start, end)
        overlays = self._overlays(start, end)
        styles = self.paint.styles
        text = self._display or self.text
        at_end = self.cursor == end and self.layout_lines.line_of(end) == index
        if not overlays and not at_end:
            return Strip(
                [Segment(text[s:e], base + styles[c] if c else base) for s, e, c in runs],
            )
        cuts = [p for a, b, _ in overlays for p in (a, b)]
        segments: list[Segment] = []
        for s, e, c in split_runs(runs, cuts):
            style = base + styles[c] if c else base
            for a, b, extra in overlays:
                if a <= s and e <= b:
                    style = style + extra
            segments.append(Segment(text[s:e], style))
        if at_end:  # the cursor after the last character of the line (on the newline)
            segments.append(Segment(" ", base + CURSOR))
        return Strip(segments)
