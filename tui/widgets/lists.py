"""An OptionList that lays out thousands of rows without wrapping each one to measure it.

Why: ``OptionList`` learns how many lines each option takes by wrapping its prompt at the list's
width, for every option, whenever the options change. A full-text article's span list has thousands
of rows, and every edit refills it: that wrapping was the largest cost of an edit (~0.3 s at 3,000
spans). A row none of whose lines is wider than the list takes one line per line, which their
lengths say; only the others (rows too long for the width, markup strings) are measured as before. What is drawn is unchanged: only the layout arithmetic is shortcut.

It overrides ``OptionList._update_lines`` (private): Textual is pinned exactly in pyproject.toml,
so an upgrade re-checks it (the TUI tests fill these lists and read them back).
"""

from __future__ import annotations

from typing import Any

from rich.cells import cell_len
from rich.text import Text
from textual.content import Content
from textual.geometry import Size
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


class SideList(OptionList):
    """The annotation screen's side lists (spans, links, relations, entities)."""

    MEASURED_MAX = 20_000

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._measured: dict[tuple[str, bool | None, str | None, int], int] = {}
        """Heights of rows by text and width: an edit refills the list with rows that are mostly the
        same (a relation's row wraps at 80 columns), measured once."""

    def _height(self, option: Option, room: int) -> int:
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
        if not self.scrollable_content_region:
            return
        line_cache = self._line_cache
        lines = line_cache.lines
        next_index = lines[-1][0] + 1 if lines else 0
        width = self.scrollable_content_region.width - self._get_left_gutter_width()
        if next_index < len(self.options):
            padding = self.get_component_styles("option-list--option").padding
            room = width - padding.width
            for index, option in enumerate(self.options[next_index:], next_index):
                line_cache.index_to_line[index] = len(lines)
                line_count = self._height(option, room) + option._divider
                line_cache.heights[index] = line_count
                lines.extend([(index, line_no) for line_no in range(line_count)])
        last_divider = self.options and self.options[-1]._divider
        virtual_size = Size(width, len(lines) - (1 if last_divider else 0))
        if virtual_size != self.virtual_size:
            self.virtual_size = virtual_size
            self._scroll_update(virtual_size)
