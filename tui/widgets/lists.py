"""An OptionList that lays out thousands of rows without wrapping each one to measure it.

Why: ``OptionList`` learns how many lines each option takes by wrapping its prompt at the list's
width, for every option, whenever the options change. A full-text article's span list has thousands
of rows, and every edit refills it: that wrapping was the largest cost of an edit (~0.3 s at 3,000
spans). A row none of whose lines is wider than the list takes one line per line, which their
lengths say; only the others (rows too long for the width, markup strings) are measured as before. What is drawn is unchanged: only the layout arithmetic is shortcut.

An edit changes one row or two of thousands: ``show_rows`` replaces only the rows between the
first and the last that differ (the rows are the screen's cached ``Text`` objects, compared by
identity), keeping the measured heights above them and the scroll position, and rows are rendered
once per prompt (``_get_option_render``: Textual's cache is keyed by the option and holds the row's
index, so a refill or a shift threw every rendered row away; here the index is applied afterwards).

It overrides ``OptionList._update_lines`` and ``_get_option_render`` and keeps the option indexes
itself (private): Textual is pinned exactly in pyproject.toml, so an upgrade re-checks them (the
TUI tests fill these lists and read them back, the snapshots compare what is drawn).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from rich.cells import cell_len
from rich.segment import Segment
from rich.style import Style as RichStyle
from rich.text import Text
from textual.content import Content
from textual.geometry import Size
from textual.strip import Strip
from textual.style import Style
from textual.visual import Padding
from textual.widget import Widget
from textual.widgets import OptionList
from textual.widgets.option_list import Option


def _plain_height(option: Option, room: int) -> int | None:
    """The lines a prompt takes when none of its lines is wider than ``room`` (then no line wraps:
    one per line break), else None (measure it as OptionList does)."""
    prompt = option.prompt
    if not isinstance(prompt, (Text, Content)):
        return None  # a string may be markup, which hides or adds characters: measure it
    plain = prompt.plain
    if not plain or "\t" in plain or plain.endswith("\n"):
        return None
    lines = plain.split("\n")
    if all(0 < cell_len(line) <= room for line in lines):
        return len(lines)
    return None


def set_virtual_size(widget: Widget, size: Size) -> None:
    """Set a scrolling widget's virtual size; without laying out the screen when its scrollbar is
    shown before and after (thousands of rows, one more or less): only the scrollbar changes.

    Why: ``virtual_size`` is a layout reactive, and a layout of the screen draws every widget's
    lines again; an edit that adds a row to a list or a marker row to the text paid that."""
    old = widget.virtual_size
    if old == size:
        return
    height = widget.scrollable_content_region.height
    if (
        old.width == size.width
        and widget.show_vertical_scrollbar
        and min(old.height, size.height) > height > 0
    ):
        widget.set_reactive(Widget.virtual_size, size)
        widget._scroll_update(size)  # the scrollbar; the caller redraws the lines that changed
    else:
        widget.virtual_size = size


class SideList(OptionList):
    """The annotation screen's side lists (spans, links, relations, entities)."""

    MEASURED_MAX = 20_000
    RENDERED_MAX = 4_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._measured: dict[tuple[str, bool | None, str | None, int], int] = {}
        """Heights of rows by text and width: an edit refills the list with rows that are mostly the
        same (a relation's row wraps at 80 columns), measured once."""
        self._rendered: dict[tuple[int, bool, Style, object, int], tuple[object, list[Strip]]] = {}
        """A row's strips (without its index) by prompt, style and width: rendered once per prompt."""
        self._prompt_heights: dict[int, tuple[object, int, int]] = {}
        """Heights by prompt (kept with it: its id stays its own) and width."""
        self._lines_for: tuple[int, int] | None = None
        self._lines_shape: tuple[int, Size, bool] | None = None
        """(options, size, overflowing) the line cache was last found complete for."""
        """(options, width) the line cache was completed for: most frames change neither."""

    def show_rows(self, prompts: Sequence[Text]) -> bool:
        """Show ``prompts`` (one row each), replacing only the run of rows that changed; True when
        anything changed. Rows are compared by identity: the screen reuses a row's ``Text`` while
        its item is unchanged."""
        options = self._options
        old = [o.prompt for o in options]
        if len(old) == len(prompts) and all(a is b for a, b in zip(old, prompts, strict=True)):
            return False
        n = min(len(old), len(prompts))
        head = 0
        while head < n and old[head] is prompts[head]:
            head += 1
        tail = 0
        while tail < n - head and old[len(old) - 1 - tail] is prompts[len(prompts) - 1 - tail]:
            tail += 1
        index = self._option_to_index
        for option in options[head : len(old) - tail]:
            index.pop(option, None)
        options[head : len(old) - tail] = [Option(p) for p in prompts[head : len(prompts) - tail]]
        for i in range(head, len(options)):
            index[options[i]] = i
        # the line cache above the first changed row stays; below it is laid out again (heights
        # are remembered by text: ``_height``)
        cache = self._line_cache
        first_line = cache.index_to_line.get(head, len(cache.lines))
        if head in cache.index_to_line:
            del cache.lines[cache.index_to_line[head] :]
        for i in [k for k in cache.heights if k >= head]:
            del cache.heights[i]
        for i in [k for k in cache.index_to_line if k >= head]:
            del cache.index_to_line[i]
        self._option_render_cache.clear()  # it holds indexes; ``_rendered`` holds the rows
        self._lines_for = self._lines_shape = None
        self._mouse_hovering_over = None
        if self.highlighted is not None and self.highlighted >= len(options):
            self.highlighted = len(options) - 1 if options else None
        if self.is_mounted:
            self._update_lines()
        # only the rows from the first change down, where they are in sight, are drawn again
        top, height = round(self.scroll_y), self.scrollable_content_region.height
        if first_line < top + height:
            start = max(first_line, top)
            self.refresh_lines(start, top + height - start)
        return True

    def _get_option_render(self, option: Option, style: Style) -> list[Strip]:
        """As ``OptionList._get_option_render``, from strips rendered once per prompt: the row's
        index (which the mouse reads) is applied to them afterwards."""
        padding = self.get_component_styles("option-list--option").padding
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        cache_key = (option, style, padding)
        if (strips := self._option_render_cache.get(cache_key)) is not None:
            return strips
        prompt = option.prompt
        key = (id(prompt), option._divider, style, padding, width)
        hit = self._rendered.get(key)
        if hit is not None and hit[0] is prompt:
            plain = hit[1]
        else:
            visual = self._get_visual(option)
            if padding:
                visual = Padding(visual, padding)
            plain = [
                s.extend_cell_length(width, style.rich_style)
                for s in visual.to_strips(self, visual, width, None, style)
            ]
            if option._divider:
                rule = self.get_visual_style("option-list--separator")
                plain.append(Strip([Segment("─" * width, rule.rich_style)], width))
            if len(self._rendered) >= self.RENDERED_MAX:
                self._rendered.clear()
            self._rendered[key] = (prompt, plain)  # the prompt is kept: its id stays its own
        meta = RichStyle.from_meta({"option": self._option_to_index[option]})
        strips = [s.apply_style(meta) for s in plain]
        if option._divider and strips:  # Textual leaves the separator without the index
            strips[-1] = plain[-1]
        self._option_render_cache[cache_key] = strips
        return strips

    def _height(self, option: Option, room: int) -> int:
        prompt = option.prompt
        known = self._prompt_heights.get(id(prompt))
        if known is not None and known[0] is prompt and known[1] == room:
            return known[2]  # the same row as before an edit (``Text.plain`` joins its parts anew)
        height = self._measure(option, room)
        if len(self._prompt_heights) >= self.MEASURED_MAX:
            self._prompt_heights.clear()
        self._prompt_heights[id(prompt)] = (prompt, room, height)
        return height

    def _measure(self, option: Option, room: int) -> int:
        prompt = option.prompt
        if not isinstance(prompt, Text):
            height = _plain_height(option, room)
            return self._get_visual(option).get_height(self.styles, room) if height is None else height
        key = (prompt.plain, prompt.no_wrap, prompt.overflow, room)
        height = self._measured.get(key)
        if height is None:
            if len(self._measured) >= self.MEASURED_MAX:
                self._measured.clear()
            height = _plain_height(option, room)
            if height is None:
                height = self._get_visual(option).get_height(self.styles, room)
            self._measured[key] = height
        return height

    def _update_lines(self) -> None:
        line_cache = self._line_cache
        lines = line_cache.lines
        # It is asked on every line drawn: complete for these options at this size, nothing to do
        # (the region's width follows the size and whether the rows overflow it: the scrollbar).
        size = self.size
        shape = (len(self._options), size, self.virtual_size.height > size.height)
        if lines and self._lines_shape == shape:
            return
        region = self.scrollable_content_region
        if not region:
            return
        if self._lines_for == (len(self.options), region.width) and lines:
            self._lines_shape = shape
            return
        next_index = lines[-1][0] + 1 if lines else 0
        width = region.width - self._get_left_gutter_width()
        if next_index < len(self.options):
            padding = self.get_component_styles("option-list--option").padding
            room = width - padding.width
            for index, option in enumerate(self.options[next_index:], next_index):
                line_cache.index_to_line[index] = len(lines)
                line_count = self._height(option, room) + option._divider
                line_cache.heights[index] = line_count
                lines.extend([(index, line_no) for line_no in range(line_count)])
        self._lines_for = (len(self.options), region.width)
        self._lines_shape = (len(self._options), self.size, self.virtual_size.height > self.size.height)
        last_divider = self.options and self.options[-1]._divider
        virtual_size = Size(width, len(lines) - (1 if last_divider else 0))
        if virtual_size != self.virtual_size:
            set_virtual_size(self, virtual_size)
            self._scroll_update(virtual_size)
