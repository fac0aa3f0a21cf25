"""``/`` searches the document on every screen that shows one (Pilot, keys sent in one burst, no
pause between them): the adjudication screen (the text, and the spans of every version with fields;
``>``/``<`` select the conflict at each hit) and the judging screen (the unit's text). A corpus
search hit opens an adjudication with the conflict at the hit selected, or the text at the hit
when no conflict is there."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

from textual.widgets import OptionList

from corpusdb.api import Corpus
from corpusdb.basics.records import Document
from corpusdb.relevance.runs import read_run
from corpusdb.relevance.topics import read_topics
from tui import adjudication as adj
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.judge import JudgeScreen
from tui.screens.search import SearchScreen
from tui.testing import burst, run_async, settle

D1 = "Bacillus lives in soil. The soil is wet; dry soil too. Soilborne microbes differ in soil."
D2 = "Streptomyces in forest soil and in the gut of worms."
TREC = Path(__file__).resolve().parent / "fixtures" / "trec"


def soils(text: str) -> list[int]:
    return [m.start() for m in re.finditer(r"(?<!\w)soil(?!\w)", text, re.I)]


def adjudicable(url: str) -> Corpus:
    """alice marks every "soil" of d1 as Soil; bob the same, but the 2nd and 4th as Habitat (two
    conflicts), and neither marks the 3rd's neighbour "wet"; both submit; judy adjudicates."""
    c = Corpus.create("bb", "bb-2011", url=url)
    for who in ("alice", "bob"):
        c.add_annotator(who)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("d1", D1), Document("d2", D2)])
    c.assign(["d1", "d2"], ["alice", "bob"])
    at = soils(D1)
    for who in ("alice", "bob"):
        me = c.as_user(who)
        me.search_annotate("soil", "Soil")
        if who == "bob":
            mine = me.my_set("d1")
            spans = tuple(replace(s, type="Habitat") if s.start in (at[1], at[3]) else s
                          for s in mine.annotations.spans)  # fmt: skip
            me.replace_set(
                mine.info.id, replace(mine.annotations, spans=spans), expected_version=mine.info.version
            )
        for h in me.sets():
            me.submit(h.id, force=True)
    return c


def conflict_offsets(screen: AdjudicateScreen) -> tuple[int, int] | None:
    """Where the selected conflict's item is."""
    c = screen._current()
    if c is None:
        return None
    assert screen.adj is not None
    return adj.conflict_ranges(c, screen.adj.source_sets)[0]


@run_async
async def test_slash_in_adjudication_searches_the_document_and_selects_the_conflict_at_each_hit(
    sqlite_url: str,
) -> None:
    adjudicable(sqlite_url)
    at = soils(D1)
    app = build_app(open_facade(sqlite_url, "bb", "judy"))
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen) and screen.adj is not None
        assert len(screen.shown) == 2  # the 2nd and 4th soil: Soil or Habitat
        main = screen.query_one("#text")
        # one burst: the prompt, the query, Enter, then > twice and < once
        await burst(
            pilot, "slash", *"soil", "enter", "greater_than_sign", "greater_than_sign", "less_than_sign"
        )
        assert isinstance(app.screen, AdjudicateScreen)
        assert main.hits == [(a, a + 4) for a in at]
        # Enter went to the first hit after the conflict's place (the 2nd soil, where the first
        # conflict is), > to the 3rd (no conflict: the selection stays), > to the 4th (the second
        # conflict selected), < back to the 3rd
        assert main.cursor == at[2]
        assert conflict_offsets(screen) == (at[3], at[3] + 4)
        await burst(pilot, "less_than_sign")
        assert main.cursor == at[1] and conflict_offsets(screen) == (at[1], at[1] + 4)
        # a query with fields finds the spans of every version: bob's two Habitat spans
        await burst(pilot, "slash", "ctrl+u", *"type:Habitat", "enter", "greater_than_sign")
        assert main.hits == [(at[1], at[1] + 4), (at[3], at[3] + 4)]
        assert main.cursor == at[3] and conflict_offsets(screen) == (at[3], at[3] + 4)


@run_async
async def test_a_search_hit_opens_the_adjudication_at_its_conflict_or_else_at_its_place(
    sqlite_url: str,
) -> None:
    adjudicable(sqlite_url)
    at = soils(D1)
    app = build_app(open_facade(sqlite_url, "bb", "judy"))
    async with app.run_test(size=(120, 32)) as pilot:
        await settle(pilot)
        await burst(pilot, "slash", *"soil doc:d1", "enter")
        search = app.screen
        assert isinstance(search, SearchScreen)
        assert [h.start for h in search.hits] == at
        await burst(pilot, "down", "down", "down", "enter")  # the 4th soil: the second conflict
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen) and screen.document == "d1"
        main = screen.query_one("#text")
        assert conflict_offsets(screen) == (at[3], at[3] + 4)
        assert main.cursor == at[3]
        ol = screen.query_one("#conflicts", OptionList)
        assert ol.highlighted == 1
        assert main.hits == [(a, a + 4) for a in at]  # the search came along
        await burst(pilot, "q")
        assert isinstance(app.screen, SearchScreen)
        await burst(pilot, "up", "enter")  # the 3rd soil: agreed, no conflict there
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        main = screen.query_one("#text")
        assert main.cursor == at[2]  # the text at the hit, not at the selected conflict
        assert conflict_offsets(screen) == (at[1], at[1] + 4)  # the first open one, as usual
        await burst(pilot, "n")  # the next conflict: the text goes with it
        assert conflict_offsets(screen) == (at[3], at[3] + 4) and main.cursor == at[3]


@run_async
async def test_slash_on_the_judging_screen_searches_the_units_text(sqlite_url: str) -> None:
    c = Corpus.create("trec", "trec-relevance", url=sqlite_url)
    c.add_annotator("alice")
    c.import_texts(TREC / "docs")
    c.add_topics(read_topics(TREC / "topics.tsv"))
    for name in ("runA", "runB"):
        c.add_run(read_run(TREC / f"{name}.run"))
    c.pool(depth=2, seed=1)
    app = build_app(open_facade(sqlite_url, "trec", "alice"))
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.units
        unit = screen.units[screen.current].unit
        text = screen.texts[unit]
        want = [m.start() for m in re.finditer("e", text, re.I)]  # a regex: every letter e
        assert len(want) >= 3, text
        await burst(pilot, "slash", *"/e/", "enter", "greater_than_sign")
        assert isinstance(app.screen, JudgeScreen)
        assert [a for a, _ in screen.search_hits] == want
        assert screen.hit_at == want[1]
        body = screen._body(text)
        marked = sorted((s.start, s.end) for s in body.spans if "reverse" in str(s.style))
        assert marked == [(want[1], want[1] + 1)]  # the hit gone to, among the marked ones
        await burst(pilot, "less_than_sign", "less_than_sign")  # round the start
        assert screen.hit_at == want[-1]
        # the next unit: the search goes on in its text
        await burst(pilot, "down")
        other = screen.texts[screen.units[screen.current].unit]
        assert [a for a, _ in screen.search_hits] == [m.start() for m in re.finditer("e", other, re.I)]
        assert [u for u, g in [(j.unit, j.grade) for j in c.as_user("alice").judgments()] if g] == []
