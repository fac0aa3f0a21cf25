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


@run_async
async def test_corpusdb_tui_paints_before_the_project_opens_and_hands_keys_on(sqlite_url: str) -> None:
    """Issue #25.11: ``corpusdb tui`` builds the app with an opener; the app paints at once and opens
    the project in a worker (held back here until the keys are typed), then shows the user's own
    first screen, which replays the keys typed meanwhile once its list is read."""
    import threading

    from tui.screens.opening import OpeningScreen

    build_sample(sqlite_url)
    go = threading.Event()

    def opener() -> Any:
        assert go.wait(30)
        return open_facade(sqlite_url, "demo", "alice")

    app = build_app(None, opener=opener)
    async with app.run_test() as pilot:
        await pilot.pause()
        opening = app.screen
        assert isinstance(opening, OpeningScreen) and "Opening the project" in screen_text(app)
        await pilot.press("down", "enter")  # the second document, typed before anything is read
        assert opening.keys_wait and app.held_keys == ["down", "enter"]  # kept by the app, in order
        go.set()
        await settle(pilot)
        assert app.facade is not None and app.facade.user == "alice"
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d2"
        assert app.title == "corpusdb · demo"


@run_async
async def test_a_project_that_cannot_open_ends_the_app_with_its_error(sqlite_url: str) -> None:
    """What fails while opening (no such user) ends the app; ``corpusdb tui`` raises it after ``run``
    (one line and exit 3, tests/test_tui_review.py)."""
    from corpusdb.basics.errors import NotFound

    build_sample(sqlite_url)
    app = build_app(None, opener=lambda: open_facade(sqlite_url, "demo", "nobody"))
    async with app.run_test() as pilot:
        await settle(pilot)
    assert isinstance(app.open_error, NotFound) and app.facade is None


def test_corpusdb_tui_paints_before_loading_the_store(sqlite_url: str) -> None:
    """In a fresh interpreter, as the console script runs ``corpusdb tui``: when the first screen
    paints, neither SQLAlchemy nor the API is loaded yet (they load in the worker that opens the
    project, issue #25.11); the document list comes after."""
    import subprocess
    import sys
    from pathlib import Path

    build_sample(sqlite_url)
    probe = """
import sys
sys.argv = ["corpusdb", "--db", sys.argv[1], "--as", "alice", "tui"]
import threading
import tui.facade
from tui.app import CorpusApp
seen = []
painted = threading.Event()
opening = tui.facade.open_facade

def held_open(*args):  # the project opens once the first screen was looked at
    assert painted.wait(60)
    return opening(*args)

tui.facade.open_facade = held_open

def run(self):
    async def first_paint():
        async with self.run_test() as pilot:
            await pilot.pause()
            seen.append((type(self.screen).__name__, "sqlalchemy" in sys.modules, "corpusdb.api" in sys.modules))
            painted.set()
            from tui.testing import settle
            await settle(pilot)
            seen.append((type(self.screen).__name__, "sqlalchemy" in sys.modules, "corpusdb.api" in sys.modules))
    import asyncio
    asyncio.run(first_paint())

CorpusApp.run = run
from corpusdb.cli.main import main
assert main(sys.argv[1:]) == 0
print(seen)
"""
    repo = Path(__file__).resolve().parents[1]
    res = subprocess.run(
        [sys.executable, "-c", probe, sqlite_url], capture_output=True, text=True, cwd=repo, timeout=120
    )
    assert res.returncode == 0, res.stderr
    first, later = eval(res.stdout.strip().splitlines()[-1])  # our own probe's repr
    assert first == ("OpeningScreen", False, False)
    assert later == ("DocumentsScreen", True, True)


@run_async
async def test_the_opening_screen_lists_my_documents_before_the_api_answers(sqlite_url: str) -> None:
    """Issue #25.11: while the project opens, the opening screen lists the user's own documents as
    ``corpusdb.store.glance`` reads them with sqlite3 (the API is held back here); keys typed
    meanwhile still reach the real list, which takes its place."""
    import threading

    from corpusdb.store import glance
    from tui.screens.opening import OpeningScreen

    build_sample(sqlite_url)
    go = threading.Event()

    def opener() -> Any:
        assert go.wait(30)
        return open_facade(sqlite_url, "demo", "alice")

    app = build_app(None, opener=opener, glance=lambda: glance.my_documents(sqlite_url, "demo", "alice"))
    async with app.run_test() as pilot:
        await pilot.pause()
        await pilot.pause()
        assert isinstance(app.screen, OpeningScreen)
        text = screen_text(app)
        assert "your documents (3)" in text and all(d in text for d in ("d1", "d2", "d3"))
        await pilot.press("down", "enter")
        go.set()
        await settle(pilot)
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d2"


def test_the_glance_reads_only_my_own_sets_and_nothing_it_cannot(sqlite_url: str) -> None:
    """Blindness: the glance lists the user's own annotation sets only (bob's documents are not
    alice's), and gives None (no glance) for a lead, an unknown user, an unknown project or
    another database than an SQLite file."""
    from corpusdb.api import Corpus
    from corpusdb.basics.records import Document
    from corpusdb.store import glance

    build_sample(sqlite_url)
    owner = Corpus.open("demo", url=sqlite_url)
    owner.add_documents([Document("b9", "only bob reads this")])
    owner.assign(["b9"], ["bob"])
    for user in ("alice", "bob"):  # what the API lists as the user's own documents, no more
        rows = open_facade(sqlite_url, "demo", user).my_documents()
        assert glance.my_documents(sqlite_url, "demo", user) == [(r.document, r.status) for r in rows]
    assert "b9" not in {
        d for d, _ in glance.my_documents(sqlite_url, None, "alice") or ()
    }  # the only project
    assert ("b9", "assigned") in (glance.my_documents(sqlite_url, "demo", "bob") or ())
    assert glance.my_documents(sqlite_url, "demo", "lena") is None  # the lead: the progress view
    assert glance.my_documents(sqlite_url, "demo", "nobody") is None
    assert glance.my_documents(sqlite_url, "other", "alice") is None
    assert glance.my_documents("postgresql://postgres@127.0.0.1:5432/test", None, "alice") is None
