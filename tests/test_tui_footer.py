"""The footer follows the state (issue #25.3): a submitted set or finished gold offers no editing
key, and offers the next document; submit and finish can go straight on to it."""

from __future__ import annotations

import pytest

from corpusdb.api import Corpus
from tui.app import build_app
from tui.facade import open_facade
from tui.sample import build_sample
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.annotate import AnnotateScreen
from tui.testing import burst, press, run_async, screen_text, settle, wait_until


def footer(app) -> str:  # type: ignore[no-untyped-def]
    return screen_text(app).rstrip("\n").splitlines()[-1]


@pytest.fixture
def url(sqlite_url: str) -> str:
    if not callable(getattr(Corpus, "submit", None)):
        pytest.skip("the workflow module (submit) is not in this build")
    build_sample(sqlite_url)
    return sqlite_url


@run_async
async def test_submit_and_open_the_next_then_a_submitted_set_offers_no_editing_key(url: str) -> None:
    app = build_app(open_facade(url, "demo", "alice"), start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        # the key bar is drawn once the set is there (a worker): on a loaded machine after the settle
        await wait_until(pilot, lambda: "Annotate" in footer(app), "the key bar drawn")
        assert "Annotate" in footer(app) and "Submit" in footer(app) and "Next document" not in footer(app)
        await burst(pilot, "a", "p", "S", "N")  # a span, submit, and on to the next document: one burst
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d2"
        alice = Corpus.open("demo", url=url, user="alice")
        assert alice.my_set("d1").info.status == "submitted"
        await press(pilot, "q")
        app.open_document("d1")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.document == "d1"
        text = footer(app)
        assert "Next document" in text
        assert not any(word in text for word in ("Annotate", "Relation", "Link", "Undo", "Submit"))
        await press(pilot, "a", "p")  # not offered, not done: nothing is written
        assert len(alice.my_set("d1").annotations.spans) == 1
        await press(pilot, "N")
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d2"


@run_async
async def test_finished_gold_offers_no_decision_key(sqlite_url: str) -> None:
    if not callable(getattr(Corpus, "finish_gold", None)):
        pytest.skip("the workflow module is not in this build")
    build_sample(sqlite_url, submitted=True)
    app = build_app(open_facade(sqlite_url, "demo", "carol"), start=None)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        assert "Take A" in footer(app) and "Neither" in footer(app)
        assert "Next document" not in footer(app)
        carol = Corpus.open("demo", url=sqlite_url, user="carol")
        for _ in range(3):  # decide everything (relations once their spans are in gold), then finish
            for x in carol.conflicts("d1")[0].conflicts:
                if not x.blocked:
                    carol.resolve("d1", x.key, take="alice")
                elif "refused" in x.blocked:
                    carol.resolve("d1", x.key, reject=True)
        carol.finish_gold("d1", force=True)
        await press(pilot, "R")
        assert isinstance(app.screen, AdjudicateScreen)
        text = footer(app)
        assert "Next document" in text
        assert not any(word in text for word in ("Take A", "Neither", "Edit"))
        n = len(carol.decisions("d1"))
        await press(pilot, "1", "0", "u")  # not offered: nothing is written
        assert len(carol.decisions("d1")) == n
        await press(pilot, "N")  # no other document waits: said
        assert any("no other document" in x.message for x in app._notifications)
