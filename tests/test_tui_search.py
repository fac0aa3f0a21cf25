"""The TUI's search (Pilot): ``/`` searches the open document, ``>``/``<`` walk its hits; the corpus
search screen lists hits, opens a document at one, annotates every hit (``U`` undoes) and, for a
lead, corrects gold at every hit with a reason."""

from __future__ import annotations

from corpusdb.api import Corpus
from corpusdb.basics.records import Document
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.annotate import AnnotateScreen
from tui.screens.documents import DocumentsScreen
from tui.screens.pickers import MessageScreen, PickScreen, PromptScreen
from tui.screens.search import SearchScreen
from tui.testing import press, run_async, screen_text, settle, type_text

D1 = "Bacillus lives in soil. The soil is wet; dry soil too. Soilborne microbes differ."
D2 = "Streptomyces in forest soil and in the gut of worms."


def project(url: str) -> Corpus:
    c = Corpus.create("bb", "bb-2011", url=url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("d1", D1), Document("d2", D2)])
    c.assign(["d1", "d2"], ["alice", "bob"])
    return c


def soils(text: str) -> list[int]:
    import re

    return [m.start() for m in re.finditer(r"(?<!\w)soil(?!\w)", text, re.I)]


@run_async
async def test_slash_searches_the_open_document_and_angle_brackets_walk_the_hits(sqlite_url: str) -> None:
    project(sqlite_url)
    app = build_app(open_facade(sqlite_url, "bb", "alice"), start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        await press(pilot, "slash")
        assert isinstance(app.screen, PromptScreen)
        await type_text(pilot, "soil")
        await press(pilot, "enter")
        await settle(pilot)
        want = soils(D1)
        assert len(want) == 3  # "Soilborne" is another word
        assert [a for a, _ in screen.view.hits] == want
        assert screen.view.cursor == want[0]
        for expected in (want[1], want[2], want[0]):  # round the end
            await press(pilot, "greater_than_sign")
            assert screen.view.cursor == expected
        await press(pilot, "less_than_sign")
        assert screen.view.cursor == want[2]
        # n/N keep moving by span (nothing annotated yet: no span to go to), not by hit
        # a phrase, a regex, then nothing (clears)
        await press(pilot, "slash")
        await press(pilot, "ctrl+u")
        await type_text(pilot, '"dry soil"')
        await press(pilot, "enter")
        await settle(pilot)
        assert screen.view.hits == [(D1.index("dry soil"), D1.index("dry soil") + 8)]
        await press(pilot, "slash")
        await press(pilot, "ctrl+u")
        await press(pilot, "enter")
        await settle(pilot)
        assert screen.view.hits == []


@run_async
async def test_the_corpus_search_screen_opens_a_document_at_a_hit(sqlite_url: str) -> None:
    project(sqlite_url)
    app = build_app(open_facade(sqlite_url, "bb", "alice"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, DocumentsScreen)
        await press(pilot, "slash")
        assert isinstance(app.screen, SearchScreen)
        await type_text(pilot, "soil")
        await press(pilot, "enter")
        await settle(pilot)
        search = app.screen
        assert [(h.document, h.start) for h in search.hits] == [("d1", a) for a in soils(D1)] + [
            ("d2", a) for a in soils(D2)
        ]
        shown = screen_text(app)
        assert "4 place(s) in the texts" in shown and "in forest [soil] and" in shown
        await press(pilot, "down", "down", "down")  # the fourth hit: d2's
        await press(pilot, "enter")
        await settle(pilot)
        ann = app.screen
        assert isinstance(ann, AnnotateScreen) and ann.document == "d2"
        assert ann.view.cursor == soils(D2)[0] and ann.view.hits == [(soils(D2)[0], soils(D2)[0] + 4)]
        await press(pilot, "greater_than_sign")  # the search came along: > walks its hits here
        assert ann.view.cursor == soils(D2)[0]


@run_async
async def test_annotating_every_hit_from_the_search_screen_and_undoing_it(sqlite_url: str) -> None:
    c = project(sqlite_url)
    app = build_app(open_facade(sqlite_url, "bb", "alice"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        await type_text(pilot, "soil")
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "a")  # annotate (every hit): the one key map's a
        assert isinstance(app.screen, PickScreen)
        await type_text(pilot, "/Soil")
        await press(pilot, "enter")
        await settle(pilot)
        alice = c.as_user("alice")
        got = [(h.document, h.start, h.type) for h in alice.search("type:*", limit=None).hits]
        assert got == [("d1", a, "Soil") for a in soils(D1)] + [("d2", a, "Soil") for a in soils(D2)]
        assert c.as_user("bob").search("type:*").hits == ()
        await press(pilot, "u")  # undo (the bulk annotation)
        await settle(pilot)
        assert alice.search("type:*").hits == ()


@run_async
async def test_a_lead_corrects_gold_at_every_hit_from_the_search_screen(sqlite_url: str) -> None:
    c = project(sqlite_url)
    for who in ("alice", "bob"):
        me = c.as_user(who)
        me.search_annotate("soil", "Soil")
        for h in me.sets():
            me.submit(h.id, force=True)
    judy = c.as_user("judy")
    judy.merge()
    app = build_app(open_facade(sqlite_url, "bb", "judy"))
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "slash")
        assert isinstance(app.screen, SearchScreen)
        await type_text(pilot, "annotator:gold type:Soil")
        await press(pilot, "enter")
        await settle(pilot)
        assert len(app.screen.hits) == 4 and all(h.annotator == "gold" for h in app.screen.hits)
        await press(pilot, "C")
        assert isinstance(app.screen, MessageScreen)
        await press(pilot, "t")
        await settle(pilot)
        await type_text(pilot, "/Environment")
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(app.screen, PromptScreen)
        await type_text(pilot, "soil is an Environment (guideline 2.3)")
        await press(pilot, "enter")
        await settle(pilot)
        fixed = judy.corrections()
        assert len(fixed) == 4 and {c_.reason for c_ in fixed} == {"soil is an Environment (guideline 2.3)"}
        assert {h.type for h in judy.search("annotator:gold", limit=None).hits} == {"Environment"}
        # Enter on a hit opens the adjudication of its document at the hit
        await press(pilot, "slash")
        await press(pilot, "ctrl+u")
        await type_text(pilot, "gut")
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "enter")
        await settle(pilot)
        assert isinstance(app.screen, AdjudicateScreen) and app.screen.document == "d2"
        at = D2.index("gut")
        assert app.screen.query_one("#text").hits == [(at, at + 3)]
