"""Adjudicator and lead flows, blindness through the TUI's data access, the command palette."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from corpusdb.api import Corpus
from tui.app import build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample
from tui.screens.adjudicate import AdjudicateScreen, QueueScreen
from tui.screens.annotate import AnnotateScreen
from tui.screens.documents import DocumentsScreen
from tui.screens.lead import LeadScreen
from tui.testing import press, run_async, screen_text, settle, type_text, wait_until


@pytest.fixture
def ready_url(sqlite_url: str) -> str:
    """d1 submitted by alice and bob: ready for adjudication."""
    build_sample(sqlite_url, submitted=True)
    return sqlite_url


@run_async
async def test_adjudicate_conflicts_with_one_key(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test() as pilot:
        await settle(pilot)
        assert isinstance(app.screen, QueueScreen)
        assert "5 open conflict(s)" in screen_text(app)
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        # Opening merged what both had (STAT5) into gold; the first open conflict is IL-2 (alice only).
        assert "span:0-4" in screen_text(app) and "1 agreed" in str(screen.sub_title)
        await press(pilot, "1")  # take alice's IL-2
        await press(pilot, "number_sign", "0")  # CD25: neither, with a reason
        await type_text(pilot, "not a binding partner here")
        await press(pilot, "enter")
        await press(pilot, "2")  # the second IL-2: take bob's
        assert "2 open" in str(screen.sub_title)  # the two relations remain
    carol = Corpus.open("demo", url=ready_url, user="carol")
    gold = carol.gold("d1").annotations
    assert sorted((s.start, s.end, s.type) for s in gold.spans) == [
        (0, 4, "protein"),
        (79, 84, "protein"),
        (109, 113, "protein"),
    ]
    decisions = {(d.item_kind, d.method, d.reason) for d in carol.decisions("d1")}
    assert ("span", "unanimous", "auto-merge: 2 of 2 sources agree") in decisions
    assert ("span", "adjudicated", "not a binding partner here") in decisions
    assert sum(1 for d in carol.decisions("d1") if d.method == "adjudicated") == 3


@run_async
async def test_adjudicate_edit_a_relation_label_and_side_by_side(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        await press(pilot, "1", "0", "2")  # spans first: IL-2 kept, CD25 refused, second IL-2 kept
        await press(pilot, "s")  # side by side: alice on top, bob below
        texts = screen_text(app)
        assert "A · alice" in texts and "B · bob" in texts
        await press(pilot, "n")  # the relation STAT5–IL-2 (its arguments are gold now)
        await press(pilot, "e", "0", "t", "enter")  # edit: speculative, tag title
    gold = Corpus.open("demo", url=ready_url, user="carol").gold("d1").annotations
    (rel,) = gold.relations
    spans = {s.id: s.text for s in gold.spans}
    assert (rel.label, rel.tags) == (0, ("title",))
    assert sorted(spans[a.ref] for a in rel.args) == ["IL-2", "STAT5"]


@run_async
async def test_lead_view_shows_progress_and_agreement(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "lena"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LeadScreen)
        text = screen_text(app)
        assert "1 ready for adjudication" in text and "alice" in text and "bob" in text
        await press(pilot, "l", "l")  # to the agreement tab (computed in a worker: wait for it)
        screen = app.screen
        await wait_until(
            pilot,
            lambda: (
                screen.progress is not None
                and screen.progress.lead is not None
                and screen.progress.lead.complete
            ),
            "agreement",
        )
        text = screen_text(app)
        assert "protein" in text and "0.40" in text  # 1 matched, 2 only alice, 1 only bob
        await press(pilot, "A")  # the lead can adjudicate too
        assert isinstance(app.screen, QueueScreen)


@run_async
async def test_an_annotator_never_sees_another_annotators_work(sqlite_url: str) -> None:
    """bob has spans and a relation on d1; nothing of them reaches alice's app."""
    build_sample(sqlite_url)
    facade = open_facade(sqlite_url, "demo", "alice")
    assert {r.document for r in facade.my_documents()} == {"d1", "d2", "d3"}
    assert all(r.spans == 0 for r in facade.my_documents())
    session = facade.open_document("d1")
    assert session.annotations.spans == () and session.info.annotator == "alice"
    assert {t[1] for t in facade.document_targets()} == {"annotate"}
    assert facade.progress(with_agreement=True).agreement == ()
    app = build_app(facade, start="d1")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        assert screen.view.paint.spans == () and screen.view.paint.covering(TEXTS["d1"].index("STAT5")) == []
        assert "0 spans 0 rels" in screen_text(app)
        await press(pilot, "tab")  # the span list beside the text is empty
        assert screen._list_keys == {"spans": [], "links": [], "relations": [], "entities": []}
    bob = Corpus.open("demo", url=sqlite_url, user="bob").my_set("d1")
    assert len(bob.annotations.spans) == 2  # bob's work is there, just not for alice
    carol = open_facade(sqlite_url, "demo", "carol")  # an adjudicator before anyone submitted
    assert carol.queue() == [] and carol.progress().agreement == ()


async def _palette_found(pilot: Any, text: str, timeout: float = 20.0) -> None:
    """Wait until the command palette's highlighted hit names ``text`` (its search runs in a worker:
    a fixed pause fails on a loaded machine)."""
    from textual.command import CommandList

    loop = asyncio.get_running_loop()
    end = loop.time() + timeout
    while loop.time() < end:
        hits = pilot.app.screen.query(CommandList)
        if hits:
            lst = hits.first()
            if lst.highlighted is not None and text in str(lst.get_option_at_index(lst.highlighted).prompt):
                return
        await pilot.pause(0.05)
    raise AssertionError(f"the command palette found nothing with {text!r}")


@run_async
async def test_command_palette_finds_documents_and_commands(sqlite_url: str) -> None:
    build_sample(sqlite_url)
    app = build_app(open_facade(sqlite_url, "demo", "alice"))
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "annotate d2")
        await settle(pilot)
        await _palette_found(pilot, "d2")  # the palette searches in the background
        await press(pilot, "enter")
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "d2"
        await press(pilot, "ctrl+p")
        await type_text(pilot, "guidelines")
        await _palette_found(pilot, "uideline")
        await press(pilot, "enter")
        assert "Guidelines v1" in screen_text(app)
        await press(pilot, "escape")
        assert isinstance(app.screen, AnnotateScreen)
        await press(pilot, "ctrl+p")
        await type_text(pilot, "my documents")
        await _palette_found(pilot, "My documents")  # from a document, back to the list by name
        await press(pilot, "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, DocumentsScreen), "the document list")


def test_cli_command_builds_the_app_with_the_shared_factory(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``corpusdb --db DB tui --as alice -p demo --open d1`` opens alice's facade and document."""
    from corpusdb.cli.main import main
    from tui.app import CorpusApp

    build_sample(sqlite_url)
    seen: dict[str, object] = {}

    def fake_run(self: CorpusApp) -> None:
        # As the app does: it paints first, then opens the project with the command's opener
        # (issue #25.11); what fails there ends the app and the command raises it.
        assert self.facade is None and self.opener is not None
        try:
            facade = self.opener()
        except Exception as exc:
            self.open_error = exc
            return
        seen.update(user=facade.user, role=facade.role, start=self.start)

    monkeypatch.setattr(CorpusApp, "run", fake_run)
    db = sqlite_url.removeprefix("sqlite:///")
    assert main(["--db", db, "tui", "--as", "alice", "-p", "demo", "--open", "d1"]) == 0
    assert seen == {"user": "alice", "role": "annotator", "start": "d1"}
    assert main(["--db", db, "--as", "nobody", "tui", "-p", "demo"]) == 3  # not found: one line, exit 3


@run_async
async def test_names_are_shown_as_written_in_the_tui(sqlite_url: str) -> None:
    """Issue #10.9: DataTable cells and notifications read a str as markup; names are not markup."""
    build_sample(sqlite_url)
    lead = Corpus.open("demo", url=sqlite_url)
    lead.add_annotator("[bold red]bob2")
    lead.create_set("d1", "[bold red]bob2")
    app = build_app(open_facade(sqlite_url, "demo", "lena"), start=None)
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LeadScreen)
        assert "[bold red]bob2" in screen_text(app)
        app.notify("saved [/] by [bold red]bob2\x1b[2J")  # a stray closing tag broke the toast before
        await settle(pilot)
        note = list(app._notifications)[-1]
        assert (note.message, note.markup) == ("saved [/] by [bold red]bob2?[2J", False)


@run_async
async def test_a_save_behind_an_import_is_announced_on_screen(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue #10.7 in the TUI: a save that waits behind a long import says why on the screen.
    The import is stood for by a real write transaction that leaves the import's note; the save is a
    real one, in a thread as the TUI's saves are."""
    import asyncio
    import threading

    from corpusdb.basics.records import Span
    from corpusdb.services.edits import Put
    from corpusdb.store import db, writers

    monkeypatch.setattr(db, "BUSY_TIMEOUT_MS", 100)
    build_sample(sqlite_url)
    app = build_app(open_facade(sqlite_url, "demo", "lena"), start=None)
    alice = Corpus.open("demo", engine=db.make_engine(sqlite_url), user="alice")
    set_id = alice.my_set("d1").info.id
    loop = asyncio.get_running_loop()
    async with app.run_test() as pilot:
        await settle(pilot)
        told = threading.Event()
        stop = writers.on_wait(lambda _message: told.set())  # runs after the app's own listener
        long_write = db.write(db.make_engine(sqlite_url), holder="an import of 3 documents from corpus/")
        long_write.__enter__()
        saver = threading.Thread(
            target=alice.edit_set,
            args=(set_id, [Put(Span("T9", "protein", ((0, 4),), TEXTS["d1"][:4]))]),
            kwargs={"expected_version": alice.my_set("d1").info.version},
        )
        try:
            saver.start()
            assert await loop.run_in_executor(None, told.wait, 60)  # the app loop runs meanwhile
        finally:
            long_write.__exit__(None, None, None)
            stop()
        await loop.run_in_executor(None, saver.join, 60)
        await settle(pilot)
        messages = [n.message for n in app._notifications]
        assert any(m.startswith("waiting: an import of 3 documents from corpus/") for m in messages), messages
    assert any(s.id == "T9" for s in alice.my_set("d1").annotations.spans)  # the save landed
