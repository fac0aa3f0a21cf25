"""Pure text geometry for the document view: soft-wrapped lines, words, sentences.

Why a module without Textual: the view must stay fast on long documents (open < 100 ms, a
keystroke < 30 ms), so layout is computed once per width and queried with ``bisect``; keeping it
pure lets the bench and the tests exercise it without a terminal.
"""

from __future__ import annotations

import re
from bisect import bisect_left, bisect_right
from collections.abc import Sequence

from rich.cells import get_character_cell_size

# A word keeps inner hyphens, slashes, dots and apostrophes: IL-2, alpha/beta, 3.5, Crohn's.
_WORD = re.compile(r"\w+(?:[-/.'’]\w+)*|[^\w\s]")
# A sentence ends at . ! ? (optionally closed by quotes/brackets) followed by space and a capital,
# digit or opening bracket, or at a blank line. Good enough for abstracts; no abbreviation list.
_SENTENCE_END = re.compile(r"""[.!?]["')\]]*\s+(?=[A-Z0-9("\[])|\n\s*\n""")


def display_char(ch: str) -> str:
    """What a character shows as: tabs and other control characters become one space."""
    return " " if ch < " " or ch == "\x7f" else ch


def char_cells(ch: str) -> int:
    """Terminal cells a character takes (wide CJK: 2; zero-width shown as 1 to stay clickable)."""
    if ch < "\u0300":
        return 1
    return max(1, get_character_cell_size(ch))


class TextLayout:
    """A document's text soft-wrapped at ``width`` cells into visual lines of offsets.

    ``lines[i] = (start, end)``: code-point offsets, end exclusive and without the newline. The
    cursor may also sit at ``end`` (the newline, or the end of the text), shown after the last cell.
    """

    def __init__(self, text: str, width: int) -> None:
        self.text = text
        self.width = max(8, width)
        self.ascii = text.isascii()
        self.lines: list[tuple[int, int]] = _wrap(text, self.width, self.ascii)
        self.starts: list[int] = [s for s, _ in self.lines]

    def __len__(self) -> int:
        return len(self.lines)

    def line_of(self, offset: int) -> int:
        """The visual line showing ``offset``."""
        return max(0, bisect_right(self.starts, offset) - 1)

    def x_of(self, offset: int) -> int:
        """Cell column of ``offset`` on its visual line."""
        start, _end = self.lines[self.line_of(offset)]
        if self.ascii:
            return offset - start
        return sum(char_cells(c) for c in self.text[start:offset])

    def offset_at(self, line: int, x: int) -> int:
        """The offset shown at cell column ``x`` of visual line ``line`` (clamped)."""
        line = min(max(0, line), len(self.lines) - 1)
        start, end = self.lines[line]
        if self.ascii:
            return min(start + max(0, x), end)
        cells = 0
        for i in range(start, end):
            w = char_cells(self.text[i])
            if cells + w > x:
                return i
            cells += w
        return end


def _wrap(text: str, width: int, ascii_only: bool) -> list[tuple[int, int]]:
    lines: list[tuple[int, int]] = []
    para_start = 0
    n = len(text)
    while True:
        nl = text.find("\n", para_start)
        para_end = n if nl < 0 else nl
        _wrap_paragraph(text, para_start, para_end, width - 1, ascii_only, lines)
        if nl < 0:
            break
        para_start = nl + 1
    return lines


def _wrap_paragraph(
    text: str, start: int, end: int, width: int, ascii_only: bool, out: list[tuple[int, int]]
) -> None:
    """Greedy word wrap of ``text[start:end]``; one column stays free for the end-of-line cursor."""
    pos = start
    while True:
        if ascii_only:
            stop = min(end, pos + width)
        else:
            stop, cells = pos, 0
            while stop < end and cells + char_cells(text[stop]) <= width:
                cells += char_cells(text[stop])
                stop += 1
        if stop >= end:
            out.append((pos, end))
            return
        brk = text.rfind(" ", pos, stop)
        if brk > pos:
            stop = brk + 1  # the space stays at the end of this line
        elif stop == pos:
            stop = pos + 1  # a character wider than the line: never loop forever
        out.append((pos, stop))
        pos = stop


class Boundaries:
    """Word and sentence starts of a text, for cursor moves by word and by sentence."""

    def __init__(self, text: str) -> None:
        self.text = text
        words = [(m.start(), m.end()) for m in _WORD.finditer(text)]
        self.word_starts = [s for s, _ in words]
        self.word_ends = [e for _, e in words]
        starts = [0]
        for m in _SENTENCE_END.finditer(text):
            if m.end() < len(text):
                starts.append(m.end())
        self.sentence_starts = starts

    @staticmethod
    def _next(points: Sequence[int], offset: int, limit: int) -> int:
        i = bisect_right(points, offset)
        return points[i] if i < len(points) else limit

    @staticmethod
    def _prev(points: Sequence[int], offset: int) -> int:
        i = bisect_left(points, offset)
        return points[i - 1] if i > 0 else 0

    def next_word(self, offset: int) -> int:
        return self._next(self.word_starts, offset, len(self.text))

    def prev_word(self, offset: int) -> int:
        return self._prev(self.word_starts, offset)

    def word_end(self, offset: int) -> int:
        """End of the word at or after ``offset`` (for extending a selection word by word)."""
        i = bisect_right(self.word_ends, offset)
        return self.word_ends[i] if i < len(self.word_ends) else len(self.text)

    def next_sentence(self, offset: int) -> int:
        return self._next(self.sentence_starts, offset, len(self.text))

    def prev_sentence(self, offset: int) -> int:
        return self._prev(self.sentence_starts, offset)

    def word_at(self, offset: int) -> tuple[int, int] | None:
        """The word (or punctuation mark) covering ``offset``, else the one just before it."""
        i = bisect_right(self.word_starts, offset) - 1
        if i >= 0 and self.word_starts[i] <= offset < self.word_ends[i]:
            return self.word_starts[i], self.word_ends[i]
        if i >= 0 and self.word_ends[i] == offset:
            return self.word_starts[i], self.word_ends[i]
        return None


def trim(text: str, start: int, end: int) -> tuple[int, int]:
    """A selection without surrounding whitespace (annotators rarely mean to include it)."""
    while start < end and text[start].isspace():
        start += 1
    while end > start and text[end - 1].isspace():
        end -= 1
    return start, end
