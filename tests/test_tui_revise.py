"""The adjudicate screen's revision keys (issue #15): a decided conflict is decided again, ``u`` undoes
a decision, ``S`` checks and finishes gold behind a confirmation; each asserted on the database."""

from __future__ import annotations

import pytest

from corpusdb.api import Corpus
from tui.app import build_app
from tui.facade import open_facade
from tui.sample import build_sample
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.pickers import MessageScreen
from tui.testing import press, run_async, screen_text, settle


@pytest.fixture
def ready_url(sqlite_url: str) -> str:
    """d1 submitted by alice and bob: ready for adjudication."""
    build_sample(sqlite_url, submitted=True)
    return sqlite_url


@run_async
async def test_redecide_and_undo_with_keys(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        await press(pilot, "1")  # span:0-4, IL-2: alice's version
        carol = Corpus.open("demo", url=ready_url, user="carol")
        assert [s.start for s in carol.gold("d1").annotations.spans if s.start == 0] == [0]
        await press(pilot, "up")  # back to the decided line
        assert screen._current().key == "span:0-4"  # type: ignore[union-attr]
        await press(pilot, "2")  # decided again: bob has nothing there, so no IL-2 in gold
        assert [s for s in carol.gold("d1").annotations.spans if s.start == 0] == []
        decs = [d for d in carol.decisions("d1") if d.item_kind == "span" and d.method == "adjudicated"]
        assert [(bool(d.item_id), d.superseded_by is not None) for d in decs] == [
            (True, True),
            (False, False),
        ]
        if screen._current().key != "span:0-4":  # type: ignore[union-attr]  # moved on to the next open one
            await press(pilot, "up")
        assert screen._current().key == "span:0-4"  # type: ignore[union-attr]
        await press(pilot, "u")  # undo: the conflict is open again
        [dc] = carol.conflicts("d1")
        assert "span:0-4" in [x.key for x in dc.conflicts]  # open conflicts only
        assert [d.method for d in carol.decisions("d1")][-1] == "undone"
        assert any("span:0-4: decision undone" in n.message for n in app._notifications)
        await press(pilot, "u")  # nothing to undo now: said, nothing written
        assert [d.method for d in carol.decisions("d1")][-1] == "undone"
        assert any("not decided: nothing to undo" in n.message for n in app._notifications)


@run_async
async def test_finish_gold_with_confirmation(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        screen = app.screen
        await press(pilot, "S")  # conflicts are open: the check lists them, Enter only closes
        assert isinstance(app.screen, MessageScreen)
        text = screen_text(app)
        assert "decide span:0-4 first" in text and "open: span:0-4" in text
        await press(pilot, "enter")
        carol = Corpus.open("demo", url=ready_url, user="carol")
        assert carol.gold("d1").info.status == "in_progress"
        for _ in range(3):  # decide the rest (relations once their spans are in gold)
            for x in carol.conflicts("d1")[0].conflicts:
                if not x.blocked:
                    carol.resolve("d1", x.key, take="alice")
                elif "refused" in x.blocked:  # its argument was refused: refuse it too
                    carol.resolve("d1", x.key, reject=True)
        assert carol.conflicts("d1")[0].open == 0
        await press(pilot, "R")
        await press(pilot, "S")
        assert isinstance(app.screen, MessageScreen)
        text = screen_text(app)
        assert "gold can be finished" in text or "schema error" in text
        await press(pilot, "f" if "schema error" in text else "enter")
        assert app.screen is screen
        assert carol.gold("d1").info.status == "submitted"  # finished
        n = len(carol.decisions("d1"))
        await press(pilot, "u", "1")  # frozen: neither undo nor a new take is offered or written
        assert len(carol.decisions("d1")) == n and carol.gold("d1").info.status == "submitted"
        assert any("gold finished" in n.message for n in app._notifications)
        assert "Next document" in screen_text(app) and "Neither" not in screen_text(app)  # the footer


@run_async
async def test_a_decision_on_a_stale_screen_loses(ready_url: str) -> None:
    """Another adjudicator decided a conflict after this screen was loaded: the key is refused,
    saying who decided it (issue 22.11), nothing is written, and the screen shows their decision; a
    key on the line now shown decided is a revision. A key on a conflict still open on a screen gold
    moved on from is refused as stale."""
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        lena = Corpus.open("demo", url=ready_url, user="lena")
        lena.resolve("d1", "span:0-4", take="alice", reason="meanwhile")
        n = len(lena.decisions("d1"))
        await press(pilot, "2")  # on the screen span:0-4 is still open
        assert len(lena.decisions("d1")) == n

        def spans() -> list[tuple[str | None, bool]]:
            return [(d.decided_by, d.in_force) for d in lena.decisions("d1")
                    if d.item_kind == "span" and d.method == "adjudicated"]  # fmt: skip

        assert spans() == [("lena", True)]
        assert any("span:0-4 on d1 was decided meanwhile by lena" in n.message for n in app._notifications)
        line = next(c for c in screen.shown if c.key == "span:0-4")  # the screen shows lena's decision
        assert line.decision is not None and line.decision.decided_by == "lena"
        if screen._current().key != "span:0-4":  # type: ignore[union-attr]
            await press(pilot, "up")
        await press(pilot, "2")  # shown decided: deciding it again is a revision
        assert spans() == [("lena", False), ("carol", True)]
        first, other = [x.key for x in lena.conflicts("d1")[0].conflicts if not x.blocked][:2]
        lena.resolve("d1", first, take="alice")  # another conflict, decided behind carol's screen
        n = len(lena.decisions("d1"))
        while screen._current().key != other:  # type: ignore[union-attr]  # open on both sides
            await press(pilot, "down")
        await press(pilot, "2")
        assert len(lena.decisions("d1")) == n
        assert any("changed since you read it" in n.message for n in app._notifications)
