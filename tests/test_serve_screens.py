"""The TUI's other screens in a real browser (headless Chromium through Playwright), issue 23:
"everything the TUI does works in the browser". Through served sessions: the help (f1) and the
command palette (ctrl+p) open and close; a mouse drag over a word in the text makes a selection that
`a` annotates, and the span is saved; a lead opens the lead view's agreement tab; an adjudicator
takes a version on a conflict; a judge grades a unit of a trec-relevance project (saved). Waits for texts, never for positions (the screens change).
Skipped with the reason when no Chromium is installed.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.serve_support import CHROMIUM_ARGS, Tab, browser_or_skip, served
from tests.test_serve import saved_spans, sqlite_project

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_playwright, chromium = browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


class MouseTab(Tab):
    """A tab that also knows the terminal grid its page asked for (the resize it sent), to turn a
    text's place on the screen into pixels for the mouse."""

    def __init__(self, *a: Any, **kw: Any) -> None:
        self.grid: tuple[int, int] | None = None
        super().__init__(*a, **kw)

    def _socket(self, ws: Any) -> None:
        super()._socket(ws)
        ws.on("framesent", self._sent)

    def _sent(self, payload: Any) -> None:
        if isinstance(payload, str) and '"resize"' in payload:
            with_size = json.loads(payload)[1]
            self.grid = (int(with_size["width"]), int(with_size["height"]))

    def wait_gone(self, needle: str, timeout: float = 45.0) -> None:
        deadline = time.monotonic() + timeout
        while needle in self.text():
            if time.monotonic() > deadline:
                raise AssertionError(f"{needle!r} never went from the browser; the screen:\n{self.text()}")
            self.page.wait_for_timeout(50)

    def where(self, needle: str) -> tuple[int, int]:
        """(column, row) of the first cell of ``needle`` on the screen."""
        for row, line in enumerate(self.screen.display):
            if (col := line.find(needle)) >= 0:
                return col, row
        raise AssertionError(f"{needle!r} not on the screen:\n{self.text()}")

    def pixel(self, col: int, row: int) -> tuple[float, float]:
        assert self.grid is not None, "the page never sent its terminal size"
        box = self.page.locator(".xterm-screen").bounding_box()
        cw, ch = box["width"] / self.grid[0], box["height"] / self.grid[1]
        return box["x"] + (col + 0.5) * cw, box["y"] + (row + 0.5) * ch

    def drag_over(self, needle: str) -> None:
        col, row = self.where(needle)
        mouse = self.page.mouse
        mouse.move(*self.pixel(col, row))
        mouse.down()
        mouse.move(*self.pixel(col + len(needle) // 2, row), steps=2)
        # onto the word's last cell: the cell under the pointer is selected too
        mouse.move(*self.pixel(col + len(needle) - 1, row), steps=2)
        mouse.up()


def test_help_palette_and_a_mouse_selection_that_a_annotates(
    browser: Any, sqlite_url: str, tmp_path: Path
) -> None:
    sqlite_project(sqlite_url)
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = MouseTab(browser, base)
        tab.open()
        tab.log_in("alice", "alice-pw")
        tab.wait_for("3 not started")
        tab.type("enter")  # d1
        tab.wait_for("0 spans")
        tab.page.keyboard.press("F1")  # the help, then back
        tab.wait_for("Keys — d1")
        tab.type("escape")
        tab.wait_gone("Keys — d1")  # (a key right behind Escape would read as alt+key: wait)
        tab.page.keyboard.press("Control+p")  # the command palette: it finds the document's text
        tab.wait_for("Search")
        tab.type("STAT5")
        tab.wait_for("STAT5 is phosphorylated")  # a hit: the sentence, in the palette's list
        tab.type("escape")
        tab.wait_gone("🔎")
        tab.drag_over("CD25")  # not the word under the cursor (IL-2): the mouse chose it
        tab.type("a")
        tab.wait_for("picks its type")
        tab.type("/pro")
        tab.wait_for("▊  pro")
        tab.type("enter")
        tab.wait_for("protein T1 CD25")
        spans = saved_spans(sqlite_url)
        assert [(s.type, s.text) for s in spans] == [("protein", "CD25")]
        tab.page.close()


def test_the_lead_view_and_its_agreement_in_the_browser(
    browser: Any, sqlite_url: str, tmp_path: Path
) -> None:
    from tui.sample import build_sample

    owner = build_sample(sqlite_url, submitted=True)  # alice and bob submitted d1
    owner.team_login("lena", password="lena-pw")  # the lead
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = MouseTab(browser, base)
        tab.open()
        tab.log_in("lena", "lena-pw")
        tab.wait_for("Project progress — lena (lead)")
        tab.wait_for("1 ready for adjudication")
        tab.type("3")  # the agreement tab
        tab.wait_for("mean pairwise F1")
        tab.page.close()


def test_an_adjudicator_decides_a_conflict_in_the_browser(
    browser: Any, sqlite_url: str, tmp_path: Path
) -> None:
    from tui.sample import build_sample

    owner = build_sample(sqlite_url, submitted=True)  # alice and bob disagree on d1
    owner.team_login("carol", password="carol-pw")  # the adjudicator
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = MouseTab(browser, base)
        tab.open()
        tab.log_in("carol", "carol-pw")
        tab.wait_for("Adjudication queue — carol")
        tab.wait_for("5 open conflict(s)")
        tab.type("enter")  # d1, its first conflict: alice's IL-2, absent in bob's
        tab.wait_for("Adjudicate d1 — carol · 5 open")
        tab.wait_for("(A=alice)")
        tab.type("1")  # take A
        tab.wait_for("Adjudicate d1 — carol · 4 open")
        tab.page.close()


def test_a_judge_grades_a_unit_in_the_browser(browser: Any, sqlite_url: str, tmp_path: Path) -> None:
    from tests.test_tui_judge import graded, pooled

    owner = pooled(sqlite_url)  # a trec-relevance project, two runs pooled, alice to judge
    owner.team_login("alice", password="alice-pw")
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = MouseTab(browser, base)
        tab.open()
        tab.log_in("alice", "alice-pw")
        tab.wait_for("1/d DR definitely relevant")  # the judging screen, its grade keys in sight
        assert "runA" not in tab.text() and "runB" not in tab.text()
        tab.type("2")  # PR for the first unit
        deadline = time.monotonic() + 30
        while not [g for _, g in graded(sqlite_url) if g] and time.monotonic() < deadline:
            time.sleep(0.2)
        assert [g for _, g in graded(sqlite_url) if g] == ["PR"]
        tab.page.close()
