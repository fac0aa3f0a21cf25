"""The first screen after launch: keys typed while it loads its data are kept (issue #14).

The first screen paints at once with a "Loading…" line and reads its data in a worker; keys
typed meanwhile (or before the app ran: they wait in the terminal) are replayed once the data is
shown. The load is held back for real by taking every connection of the facade's pool, so the
keys surely arrive before the data. That launching loads no heavy library is checked in a fresh
interpreter in tests/test_startup.py.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import Engine
from sqlalchemy.pool import QueuePool

from tui.app import build_app
from tui.facade import open_facade
from tui.host import AppHost
from tui.sample import build_sample
from tui.screens.annotate import AnnotateScreen
from tui.screens.documents import DocumentsScreen
from tui.screens.lead import LeadScreen
from tui.testing import run_async, screen_text, settle


def take_pool(engine: Engine) -> list[Any]:
    """Every connection the engine may open: a read waits until they are given back."""
    pool = engine.pool
    assert isinstance(pool, QueuePool)
    return [pool.connect() for _ in range(pool.size() + pool._max_overflow)]


def give_back(held: list[Any]) -> None:
    for conn in held:
        conn.close()


@run_async
async def test_keys_typed_while_the_document_list_loads_are_replayed(sqlite_url: str) -> None:
    build_sample(sqlite_url)
    facade = open_facade(sqlite_url, "demo", "alice")
    app = build_app(facade)
    held = take_pool(facade.corpus.engine)
    try:
        async with app.run_test() as pilot:
            screen = app.screen
            assert isinstance(screen, DocumentsScreen)
            await pilot.pause()
            assert "Loading" in screen_text(app) and screen.rows == []  # painted, data not read yet
            await pilot.press("down", "enter")  # the second document, typed before the list is there
            assert screen.keys_wait and app.held_keys == ["down", "enter"]  # kept by the app, in order
            assert app.screen is screen and screen.rows == []
            give_back(held)  # the list is read; then the keys act, in their order
            await settle(pilot)
            assert not screen.keys_wait and app.held_keys == []
            assert [r.document for r in screen.rows] == ["d1", "d2", "d3"]
            assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d2"
    finally:
        give_back(held)


@run_async
async def test_keys_after_the_list_is_shown_act_at_once(sqlite_url: str) -> None:
    """Once the data is shown nothing is queued any more (the replay happens once per screen)."""
    build_sample(sqlite_url)
    app = build_app(open_facade(sqlite_url, "demo", "alice"))
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DocumentsScreen) and not screen.keys_wait
        await pilot.press("down", "down", "enter")
        await settle(pilot)
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d3"


@run_async
async def test_lead_view_reads_agreement_only_when_its_tab_opens(sqlite_url: str) -> None:
    """Progress shows first; the agreement (the engine, numpy) is read once its tab is opened."""
    build_sample(sqlite_url, submitted=True)
    app = build_app(open_facade(sqlite_url, "demo", "lena"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LeadScreen) and not screen.with_agreement
        assert "ready for adjudication" in screen_text(app)
        held = take_pool(app.facade.corpus.engine)
        try:
            await pilot.press("l", "l")  # to the agreement tab: its read waits for a connection
            assert screen.with_agreement and "Computing agreement" in screen_text(app)
        finally:
            give_back(held)
        await settle(pilot)
        text = screen_text(app)
        assert "protein" in text and "mean pairwise span F1" in text


def test_the_app_offers_what_screens_ask_of_it(sqlite_url: str) -> None:
    """Screens and the command palette type the app as ``tui.host.AppHost`` (not ``CorpusApp``, which
    imports them): the real app must have every member of it, so a renamed method fails here."""
    build_sample(sqlite_url)
    app = build_app(open_facade(sqlite_url, "demo", "alice"))
    assert isinstance(app, AppHost)
    missing = [m for m in ("open_document", "open_adjudication", "show_queue", "show_progress",
                           "show_my_documents") if not callable(getattr(app, m, None))]  # fmt: skip
    assert missing == [] and app.facade.user == "alice"
