"""Blindness through the TUI's search (Pilot): what alice's screens show of a search is what the API
lets her read — every text, her own spans — never bob's work; an adjudicator's search shows the
complete document's sets, never those of a document still being annotated.

The scene is test_blindness_api's: bob's span on ``open`` (in progress) and on ``done`` (submitted)
are grounded to secrets.
"""

from __future__ import annotations

from corpusdb.api import Corpus
from corpusdb.basics.records import Document, Grounding, Span
from corpusdb.services.edits import Put
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.annotate import AnnotateScreen
from tui.screens.search import SearchScreen
from tui.testing import press, run_async, screen_text, settle, type_text

TEXT = "IL-2 binds the IL-2 receptor alpha chain in zebrafish T cells."
SECRET_OPEN = "SECRET-OPEN-42"
SECRET_DONE = "SECRET-DONE-77"


def scene(url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("open", TEXT), Document("done", TEXT)])
    c.assign(["open", "done"], ["alice", "bob"])
    for who in ("alice", "bob"):
        me = c.as_user(who)
        for doc in ("open", "done"):
            s = me.my_set(doc).info
            secret = SECRET_OPEN if doc == "open" else SECRET_DONE
            span = (Span("T1", "protein", ((15, 28),), "IL-2 receptor", groundings=(Grounding(f"uniprot:{secret}"),))
                    if who == "bob" else Span("T1", "protein", ((0, 4),), "IL-2"))  # fmt: skip
            me.edit_set(s.id, [Put(span)], expected_version=s.version)
            if not (who == "bob" and doc == "open"):
                me.submit(s.id)
    return c


async def search(pilot, app, query: str) -> str:  # type: ignore[no-untyped-def]
    if not isinstance(app.screen, SearchScreen):
        await press(pilot, "slash")
    else:
        await press(pilot, "slash")
        await press(pilot, "ctrl+u")
    await type_text(pilot, query)
    await press(pilot, "enter")
    await settle(pilot)
    return screen_text(app) + " ".join(str(n.message) for n in app._notifications)


@run_async
async def test_alices_search_screens_show_texts_and_her_own_spans_only(sqlite_url: str) -> None:
    scene(sqlite_url)
    app = build_app(open_facade(sqlite_url, "p", "alice"))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        for q in ("grounding:*", "type:protein", "receptor", "/SECRET/", "grounding:uniprot:SECRET*"):
            shown = await search(pilot, app, q)
            assert SECRET_OPEN not in shown and SECRET_DONE not in shown, q
            assert {h.annotator for h in app.screen.hits if h.item is not None} <= {"alice"}, q
        assert len((await search(pilot, app, "receptor")) and app.screen.hits) == 2  # both texts
        shown = await search(pilot, app, "annotator:bob")
        assert "only their own sets" in shown and app.screen.hits == []
        # in a document: "/" with fields finds her spans only, never bob's at the same place
        await press(pilot, "escape")
        app.open_document("open")
        await settle(pilot)
        ann = app.screen
        assert isinstance(ann, AnnotateScreen)
        await press(pilot, "slash")
        await type_text(pilot, "type:protein")
        await press(pilot, "enter")
        await settle(pilot)
        assert ann.view.hits == [(0, 4)]  # hers; bob's 15-28 stays unseen
        assert SECRET_OPEN not in screen_text(app)


@run_async
async def test_the_adjudicators_search_screen_never_shows_the_open_document(sqlite_url: str) -> None:
    scene(sqlite_url)
    app = build_app(open_facade(sqlite_url, "p", "judy"))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        shown = await search(pilot, app, "grounding:*")
        assert SECRET_DONE in shown and SECRET_OPEN not in shown
        shown = await search(pilot, app, "annotator:bob")
        assert {h.document for h in app.screen.hits} == {"done"} and SECRET_OPEN not in shown


@run_async
async def test_the_document_search_of_the_adjudication_and_judging_screens_reads_only_what_is_allowed(
    sqlite_url: str,
) -> None:
    """``/`` on the adjudication screen finds every version's spans of a submitted document; the
    same search (every set the user reads in one document: the adjudication and judging screens'
    path) finds nothing of a document still being annotated for judy, and only alice's own spans
    for alice."""
    from tui.screens.adjudicate import AdjudicateScreen
    from tui.testing import burst

    scene(sqlite_url)
    judy = open_facade(sqlite_url, "p", "judy")
    assert judy.search_document("open", "type:protein") == []
    assert judy.search_document("open", "grounding:*") == []
    alice = open_facade(sqlite_url, "p", "alice")
    assert alice.search_document("open", "type:protein") == [(0, 4)]  # hers; bob's 15-28 unseen
    assert alice.search_document("done", "grounding:*") == []
    app = build_app(judy)
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        app.open_adjudication("done")
        await settle(pilot)
        assert isinstance(app.screen, AdjudicateScreen)
        await burst(pilot, "slash", *"type:protein", "enter")
        assert app.screen.query_one("#text").hits == [(0, 4), (15, 28)]  # both versions: submitted
        assert SECRET_OPEN not in screen_text(app)


def test_the_opening_glance_shows_alices_own_sets_only(sqlite_url: str) -> None:
    """The glance read without the API while ``corpusdb tui`` opens (``corpusdb.store.glance``) is a
    reading path of its own: alice's documents with her statuses (both submitted), never bob's (his
    ``open`` is still in progress); for the adjudicator, nothing (her first screen is the queue)."""
    from corpusdb.store import glance

    scene(sqlite_url)
    assert glance.my_documents(sqlite_url, "p", "alice") == [("done", "submitted"), ("open", "submitted")]
    assert glance.my_documents(sqlite_url, "p", "bob") == [("done", "submitted"), ("open", "in_progress")]
    assert glance.my_documents(sqlite_url, "p", "judy") is None
