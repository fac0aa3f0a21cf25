"""Issue #15.4 in the TUI: the adjudicator edits the gold item fully (boundaries, type, attributes,
groundings; a relation's type, label, tags and arguments), is warned before a second overlapping
boundary alternative goes into gold, and sees the sources side by side on a wide terminal.

Every test drives the app against a real SQLite project and asserts on gold and its decisions.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import CorpusError
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from tui import adjudication as adj
from tui.app import build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample, span
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.gold_edit import GoldEditScreen
from tui.screens.info import HelpScreen
from tui.screens.pickers import MessageScreen
from tui.testing import press, run_async, screen_text, settle, type_text
from tui.textmodel import Boundaries
from tui.widgets.docview import DocumentView


@pytest.fixture
def ready_url(sqlite_url: str) -> str:
    """d1 submitted by alice and bob: ready for adjudication."""
    build_sample(sqlite_url, submitted=True)
    return sqlite_url


def _two_sources(url: str, schema: str, text: str, alice: Annotations, bob: Annotations) -> Corpus:
    """A project with one document both annotators submitted, and carol to adjudicate it."""
    owner = Corpus.create("p", schema, url=url)
    for name, role in (("alice", "annotator"), ("bob", "annotator"), ("carol", "adjudicator")):
        owner.add_annotator(name, role)
    owner.add_documents([Document("doc", text)])
    owner.create_set("doc", "alice", annotations=alice, status="submitted")
    owner.create_set("doc", "bob", annotations=bob, status="submitted")
    return owner


async def _open(app: object, pilot: object, document: str) -> AdjudicateScreen:
    await settle(pilot)  # type: ignore[arg-type]
    app.open_adjudication(document)  # type: ignore[attr-defined]
    await settle(pilot)  # type: ignore[arg-type]
    screen = app.screen  # type: ignore[attr-defined]
    assert isinstance(screen, AdjudicateScreen)
    return screen


# -- pure helpers ----------------------------------------------------------------------------------
def test_move_boundary_by_character_and_word() -> None:
    text = TEXTS["d1"]
    b = Boundaries(text)
    il2 = span(text, "T1", "protein", "IL-2")  # 0-4
    wider = adj.move_boundary(il2, text, b, "end", "word", 1)
    assert (wider.fragments, wider.text) == (((0, 10),), "IL-2 binds")
    assert adj.move_boundary(wider, text, b, "end", "word", -1) == il2
    assert adj.move_boundary(il2, text, b, "end", "char", -1).text == "IL-"
    assert adj.move_boundary(wider, text, b, "start", "word", 1).text == "binds"
    assert adj.move_boundary(il2, text, b, "start", "char", -1) == il2  # before the text: no move
    one = span(text, "T2", "protein", "I")
    assert adj.move_boundary(one, text, b, "end", "char", -1) == one  # never empty
    # a discontinuous span moves its first start and its last end
    disc = Span("T3", "protein", ((0, 4), (11, 15)), "IL-2 CD25")
    assert adj.move_boundary(disc, text, b, "end", "char", 1).fragments == ((0, 4), (11, 16))


def test_overlapping_gold_spans_of_the_same_type() -> None:
    t = TEXTS["d1"]
    gold = Annotations(spans=(span(t, "T1", "protein-complex", "receptor alpha chain"),))
    inner = span(t, "X", "protein-complex", "alpha chain")
    assert [s.id for s in adj.overlapping_gold(gold, inner)] == ["T1"]
    assert adj.overlapping_gold(gold, span(t, "X", "protein", "alpha chain")) == []  # other type
    assert adj.overlapping_gold(gold, span(t, "X", "protein-complex", "receptor alpha chain")) == []
    # the source taken marks the gold span too: a nested mention it meant, not an alternative
    both = Annotations(spans=(inner, span(t, "Y", "protein-complex", "receptor alpha chain")))
    assert adj.overlapping_gold(gold, inner, both) == []


# -- the full editor -------------------------------------------------------------------------------
@run_async
async def test_edit_a_gold_span_boundaries_type_attributes_and_grounding(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        screen = await _open(app, pilot, "d1")
        assert "span:0-4" in screen_text(app)  # alice's IL-2, bob has nothing there
        await press(pilot, "m")
        editor = app.screen
        assert isinstance(editor, GoldEditScreen)
        await press(pilot, "w", "w")  # the end by two words: «IL-2 binds CD25»
        assert editor.draft.fragments == ((0, 15),)
        await press(pilot, "b", "left", "right")  # back one word, then a character there and back
        assert editor.draft.text == "IL-2 binds"
        await press(pilot, "tab", "right")  # now the start moves: «L-2 binds»
        assert editor.draft.fragments == ((1, 10),)
        await press(pilot, "left")
        await press(pilot, "t")
        await type_text(pilot, "/protein-complex")  # "/": the schema's type keys pick at once
        await press(pilot, "enter")
        await press(pilot, "i", "m", "enter")  # the attributes checklist: tick mutant, accept
        await press(pilot, "g")
        await type_text(pilot, "uniprot:P60568")
        await press(pilot, "enter")
        assert "(changed)" in screen_text(app)
        await press(pilot, "enter")  # save
        assert app.screen is screen
        assert "1 agreed" in str(screen.sub_title)
    carol = Corpus.open("demo", url=ready_url, user="carol")
    gold = carol.gold("d1").annotations
    (edited,) = [s for s in gold.spans if s.start == 0]
    assert (edited.fragments, edited.text, edited.type) == (((0, 10),), "IL-2 binds", "protein-complex")
    assert dict(edited.attributes) == {"mutant": True}
    assert [g.ref for g in edited.groundings] == ["uniprot:P60568"]
    decision = next(d for d in carol.decisions("d1") if d.item_id == edited.id)
    assert decision.method == "edited"  # not a take: alice never said «IL-2 binds» protein-complex
    assert [(s["annotator"], s["local_id"]) for s in decision.sources] == [("alice", "T1")]
    assert decision.before is not None and decision.after is not None
    assert (decision.before["fragments"], decision.before["type"]) == ([[0, 4]], "protein")
    assert (decision.after["fragments"], decision.after["type"]) == ([[0, 10]], "protein-complex")


@run_async
async def test_escape_leaves_gold_untouched(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        screen = await _open(app, pilot, "d1")
        await press(pilot, "m", "w", "t")
        await press(pilot, "escape")  # the type picker
        await press(pilot, "escape")  # the editor
        assert app.screen is screen
    gold = Corpus.open("demo", url=ready_url, user="carol").gold("d1").annotations
    assert [s.text for s in gold.spans] == ["STAT5"]  # only what the merge put there


@run_async
async def test_edit_a_gold_relation_label_tags_and_argument(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        await _open(app, pilot, "d1")
        await press(pilot, "1", "0", "2")  # IL-2 (alice) kept, CD25 refused, the third IL-2 (bob) kept
        carol = Corpus.open("demo", url=ready_url, user="carol")
        first_il2 = next(s.id for s in carol.gold("d1").annotations.spans if s.start == 0)
        await press(pilot, "n")  # bob's relation STAT5–IL-2 (its arguments are gold now)
        await press(pilot, "m")
        editor = app.screen
        assert isinstance(editor, GoldEditScreen)
        await press(pilot, "r", "2")  # Arg2: the IL-2 at the start instead
        await type_text(pilot, f"{first_il2} ")
        await press(pilot, "enter")
        await press(pilot, "e", "0", "t", "enter")  # label speculative, tag title
        await press(pilot, "enter")
    gold = carol.gold("d1").annotations
    (rel,) = gold.relations
    spans = {s.id: s for s in gold.spans}
    assert (rel.type, rel.label, rel.tags) == ("bind", 0, ("title",))
    assert [(a.role, spans[a.ref].text, spans[a.ref].start) for a in rel.args] == [
        ("Arg1", "STAT5", TEXTS["d1"].index("STAT5")),
        ("Arg2", "IL-2", 0),
    ]
    decision = next(d for d in carol.decisions("d1") if d.item_id == rel.id)
    assert decision.method == "edited" and decision.sources[0]["annotator"] == "bob"
    assert decision.before is not None and decision.after is not None
    assert (decision.before.get("label"), decision.after["label"], decision.after["tags"]) == (
        1,
        0,
        ["title"],
    )


BB_TEXT = "E. coli was isolated from the gut of patients."


def _bb_spans() -> tuple[Span, ...]:
    return (
        span(BB_TEXT, "T1", "Bacterium", "E. coli"),
        span(BB_TEXT, "T2", "HostPart", "gut"),
        span(BB_TEXT, "T3", "Host", "patients"),
    )


@run_async
async def test_edit_a_gold_relation_type_and_arguments(sqlite_url: str) -> None:
    """BB 2011: alice said Localization(E. coli, gut); the adjudicator makes it PartOf(patients, gut)."""
    loc = Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2")))
    _two_sources(
        sqlite_url,
        "bb-2011",
        BB_TEXT,
        Annotations(spans=_bb_spans(), relations=(loc,)),
        Annotations(spans=_bb_spans()),
    )
    app = build_app(open_facade(sqlite_url, "p", "carol"), start=None)
    async with app.run_test() as pilot:
        screen = await _open(app, pilot, "doc")
        assert "3 agreed" in str(screen.sub_title)  # the spans were merged: the relation is open
        await press(pilot, "m")
        editor = app.screen
        assert isinstance(editor, GoldEditScreen)
        await press(pilot, "t")
        await type_text(pilot, "PartOf")
        await press(pilot, "enter")
        assert editor.draft.type == "PartOf" and [a.role for a in editor.draft.args] == ["Host", "Part"]
        await press(pilot, "r", "1", "enter")  # Host: the only gold span of type Host, patients
        await press(pilot, "enter")
    carol = Corpus.open("p", url=sqlite_url, user="carol")
    gold = carol.gold("doc").annotations
    (rel,) = gold.relations
    spans = {s.id: s.text for s in gold.spans}
    assert rel.type == "PartOf"
    assert [(a.role, spans[a.ref]) for a in rel.args] == [("Host", "patients"), ("Part", "gut")]


@run_async
async def test_groundings_only_where_the_schema_allows_them(sqlite_url: str) -> None:
    _two_sources(
        sqlite_url, "bb-2011", BB_TEXT, Annotations(spans=_bb_spans()), Annotations(spans=_bb_spans()[:2])
    )
    app = build_app(open_facade(sqlite_url, "p", "carol"), start=None)
    async with app.run_test() as pilot:
        await _open(app, pilot, "doc")
        await press(pilot, "m")
        editor = app.screen
        assert isinstance(editor, GoldEditScreen)
        await press(pilot, "g")
        assert app.screen is editor  # no prompt: BB 2011 has no groundings
        assert any("does not allow groundings" in str(n.message) for n in app._notifications)
        assert "g grounding" not in screen_text(app)
        await press(pilot, "enter")
    (patients,) = [s for s in Corpus.open("p", url=sqlite_url, user="carol").gold("doc").annotations.spans
                   if s.text == "patients"]  # fmt: skip
    assert patients.groundings == ()


# -- overlapping alternatives ----------------------------------------------------------------------
def _alternatives(url: str) -> Corpus:
    """alice marks «receptor alpha chain», bob «alpha chain» (one protein complex, two boundaries)."""
    t = TEXTS["d1"]
    return _two_sources(
        url,
        "biorelex-1.0",
        t,
        Annotations(spans=(span(t, "T1", "protein-complex", "receptor alpha chain"),)),
        Annotations(spans=(span(t, "T1", "protein-complex", "alpha chain"),)),
    )


@run_async
async def test_a_boundary_dispute_is_one_conflict_with_each_sources_boundaries(sqlite_url: str) -> None:
    _alternatives(sqlite_url)
    t = TEXTS["d1"]
    wide, inner = t.index("receptor alpha chain"), t.index("alpha chain")
    app = build_app(open_facade(sqlite_url, "p", "carol"), start=None)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(app, pilot, "doc")
        assert len(screen.shown) == 1 and "1 open" in str(screen.sub_title)  # one dispute, two versions
        (c,) = screen.shown
        assert sorted(v.item.text for v in c.variants if not v.absent) == [
            "alpha chain",
            "receptor alpha chain",
        ]
        a_view, b_view = screen.query_one("#src-0", DocumentView), screen.query_one("#src-1", DocumentView)
        assert a_view.marks == [(wide, wide + 20)] and b_view.marks == [(inner, inner + 11)]
        text = screen_text(app)
        assert "'receptor alpha chain'" in text and "'alpha chain'" in text
        await press(pilot, "2")  # bob's boundaries decide the dispute
        assert "0 open" in str(screen.sub_title)
    carol = Corpus.open("p", url=sqlite_url, user="carol")
    assert [s.text for s in carol.gold("doc").annotations.spans] == ["alpha chain"]
    (d,) = [d for d in carol.decisions("doc") if d.method == "adjudicated"]
    assert [s["annotator"] for s in d.sources] == ["bob"]


@run_async
async def test_taking_a_version_that_overlaps_a_gold_span_asks_first(sqlite_url: str) -> None:
    """Gold already has «alpha chain» (put there by hand): taking alice's «receptor alpha chain», an
    alternative of it, asks before both are in gold."""
    t = TEXTS["d1"]
    _two_sources(
        sqlite_url,
        "biorelex-1.0",
        t,
        Annotations(spans=(span(t, "T1", "protein-complex", "receptor alpha chain"),)),
        Annotations(),
    )
    carol = Corpus.open("p", url=sqlite_url, user="carol")
    carol.merge("doc")
    carol.add_gold("doc", span(t, "new", "protein-complex", "alpha chain"))
    app = build_app(open_facade(sqlite_url, "p", "carol"), start=None)
    async with app.run_test() as pilot:
        await _open(app, pilot, "doc")
        await press(pilot, "1")
        assert isinstance(app.screen, MessageScreen)
        assert "Gold already has" in screen_text(app)
        await press(pilot, "escape")
        assert [s.text for s in carol.gold("doc").annotations.spans] == ["alpha chain"]
        await press(pilot, "1", "enter")  # taken anyway, knowingly
    texts = sorted(s.text for s in carol.gold("doc").annotations.spans)
    assert texts == ["alpha chain", "receptor alpha chain"]


# -- side by side ----------------------------------------------------------------------------------
@run_async
async def test_wide_terminal_shows_the_sources_as_columns_beside_the_gold(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test(size=(160, 50)) as pilot:
        screen = await _open(app, pilot, "d1")
        await press(pilot, "n")  # the second open conflict: CD25, alice only
        a_view, b_view = screen.query_one("#src-0", DocumentView), screen.query_one("#src-1", DocumentView)
        gold = screen.query_one("#text", DocumentView)
        assert screen.has_class("-wide") and a_view.display and b_view.display and gold.display
        regions = [v.region for v in (a_view, b_view, gold)]
        assert regions[0].y == regions[1].y == regions[2].y  # columns, not rows
        assert regions[0].right <= regions[1].x and regions[1].right <= regions[2].x
        cd25 = TEXTS["d1"].index("CD25")
        assert a_view.marks == [(cd25, cd25 + 4)] and b_view.marks == []  # each source's own version
        assert {s.text for s in a_view.paint.spans} == {"IL-2", "CD25", "STAT5"}  # alice's set
        assert {s.text for s in b_view.paint.spans} == {"IL-2", "STAT5"}  # bob's
        assert a_view.cursor == b_view.cursor == gold.cursor == cd25  # scrolled together
        text = screen_text(app)
        assert "A · alice" in text and "B · bob" in text and "gold so far" in text
        await press(pilot, "s")  # merged: the gold alone
        assert not a_view.display and gold.display
        await press(pilot, "question_mark")
        assert isinstance(app.screen, HelpScreen)
        assert "Editing a gold item" in screen_text(app) and "Move the boundary by a word" in screen_text(app)


@run_async
async def test_narrow_terminal_keeps_the_gold_and_stacks_the_sources_on_s(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await _open(app, pilot, "d1")
        a_view, b_view = screen.query_one("#src-0", DocumentView), screen.query_one("#src-1", DocumentView)
        gold = screen.query_one("#text", DocumentView)
        assert not screen.has_class("-wide") and gold.display and not a_view.display
        await press(pilot, "s")
        assert a_view.display and b_view.display and not gold.display
        assert a_view.region.x == b_view.region.x and a_view.region.bottom <= b_view.region.y  # stacked
        await press(pilot, "1")  # keys still decide with the sources shown
    gold_ann = Corpus.open("demo", url=ready_url, user="carol").gold("d1").annotations
    assert any(s.start == 0 and s.text == "IL-2" for s in gold_ann.spans)


# -- gold items in place, and new ones -------------------------------------------------------------
@run_async
async def test_edit_a_decided_conflicts_gold_item_in_place(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    carol = Corpus.open("demo", url=ready_url, user="carol")
    async with app.run_test() as pilot:
        screen = await _open(app, pilot, "d1")
        await press(pilot, "1")  # IL-2 taken from alice; the list moves on to CD25
        (taken,) = [s for s in carol.gold("d1").annotations.spans if s.start == 0]
        await press(pilot, "up")  # back to the decided IL-2
        assert screen._current().key == "span:0-4"
        await press(pilot, "m")
        assert isinstance(app.screen, GoldEditScreen) and app.screen.draft == taken
        await press(pilot, "w", "enter")
    (now,) = [s for s in carol.gold("d1").annotations.spans if s.start == 0]
    assert (now.id, now.text) == (taken.id, "IL-2 binds")  # the same gold item, edited
    ds = [d for d in carol.decisions("d1") if d.item_id == taken.id]
    assert [d.method for d in ds] == ["adjudicated", "edited"]
    assert ds[0].superseded_by == ds[1].id and ds[1].before["fragments"] == [[0, 4]]


@run_async
async def test_edit_the_gold_span_under_the_gold_texts_cursor(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        screen = await _open(app, pilot, "d1")
        await press(pilot, "tab")  # to the gold text
        assert screen.focused is screen.query_one("#text", DocumentView)
        await press(pilot, "ctrl+home", "n")  # the first gold span: STAT5 (the merge put it there)
        await press(pilot, "m", "t")
        await type_text(pilot, "/gene")
        await press(pilot, "enter", "enter")
    carol = Corpus.open("demo", url=ready_url, user="carol")
    (stat5,) = [s for s in carol.gold("d1").annotations.spans if s.text == "STAT5"]
    assert stat5.type == "gene"
    last = [d for d in carol.decisions("d1") if d.item_id == stat5.id][-1]
    assert (last.method, last.before["type"], last.after["type"]) == ("edited", "protein", "gene")


@run_async
async def test_new_gold_span_on_a_selection_of_the_gold_text(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        await _open(app, pilot, "d1")
        await press(pilot, "tab", "ctrl+home", "w", "w", "w", "w")  # on «T»
        await press(pilot, "W", "W")  # select «T cells»
        await press(pilot, "plus")
        await type_text(pilot, "/cell")
        await press(pilot, "enter")
        editor = app.screen
        assert isinstance(editor, GoldEditScreen) and editor.draft.text == "T cells"
        await press(pilot, "enter")
    carol = Corpus.open("demo", url=ready_url, user="carol")
    (cells,) = [s for s in carol.gold("d1").annotations.spans if s.text == "T cells"]
    t = TEXTS["d1"].index("T cells")
    assert (cells.type, cells.fragments) == ("cell", ((t, t + 7),))
    (d,) = [d for d in carol.decisions("d1") if d.item_id == cells.id]
    assert (d.method, d.sources, d.before) == ("edited", (), None)  # from no annotator


@run_async
async def test_new_gold_relation_between_gold_spans(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    async with app.run_test() as pilot:
        await _open(app, pilot, "d1")
        await press(pilot, "1")  # IL-2 at 0 into gold (STAT5 is there already)
        await press(pilot, "r")
        await type_text(pilot, "IL-2")
        await press(pilot, "enter")
        await type_text(pilot, "STAT5")
        await press(pilot, "enter", "1")  # Arg1 IL-2, Arg2 STAT5, label 1
        assert isinstance(app.screen, GoldEditScreen)
        await press(pilot, "enter")
    carol = Corpus.open("demo", url=ready_url, user="carol")
    gold = carol.gold("d1").annotations
    spans = {s.id: s for s in gold.spans}
    (rel,) = gold.relations
    assert (rel.type, rel.label) == ("bind", 1)
    assert [(a.role, spans[a.ref].text, spans[a.ref].start) for a in rel.args] == [
        ("Arg1", "IL-2", 0),
        ("Arg2", "STAT5", TEXTS["d1"].index("STAT5")),
    ]
    (d,) = [d for d in carol.decisions("d1") if d.item_id == rel.id]
    assert (d.method, d.before) == ("edited", None)


def test_an_annotator_can_neither_write_nor_read_gold_through_the_tui(ready_url: str) -> None:
    """Blindness probe for the editor's paths: alice's facade is refused, gold is unchanged."""
    carol = Corpus.open("demo", url=ready_url, user="carol")
    carol.merge("d1")
    before = carol.gold("d1").annotations
    alice = open_facade(ready_url, "demo", "alice")
    with pytest.raises(CorpusError):
        alice.add_gold("d1", span(TEXTS["d1"], "new", "protein", "IL-2"))
    with pytest.raises(CorpusError):
        alice.edit_gold("d1", before.spans[0].id, replace(before.spans[0], type="gene"))
    with pytest.raises(CorpusError):
        alice.reload_adjudication("d1")  # neither gold nor bob's set through the adjudication view
    assert carol.gold("d1").annotations == before


@run_async
async def test_remove_the_gold_span_under_the_cursor_after_asking(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"), start=None)
    carol = Corpus.open("demo", url=ready_url, user="carol")
    async with app.run_test() as pilot:
        await _open(app, pilot, "d1")
        await press(pilot, "tab", "ctrl+home", "n", "delete")  # STAT5, the merged span
        assert isinstance(app.screen, MessageScreen)
        await press(pilot, "escape")
        assert [s.text for s in carol.gold("d1").annotations.spans] == ["STAT5"]
        await press(pilot, "delete", "enter")
    assert carol.gold("d1").annotations.spans == ()
    last = carol.decisions("d1")[-1]
    assert (last.method, last.before["text"], last.after) == ("edited", "STAT5", None)


@run_async
async def test_start_from_which_version_takes_the_letters_it_shows(sqlite_url: str) -> None:
    """One dialog behaviour (issue #25.2): the "start from which version?" picker shows A: and B:
    and takes a and b (it took only the arrows); then the type picker's key, in the same burst."""
    from tui.screens.pickers import PickScreen
    from tui.testing import burst

    _alternatives(sqlite_url)
    app = build_app(open_facade(sqlite_url, "p", "carol"), start=None)
    async with app.run_test(size=(160, 50)) as pilot:
        await _open(app, pilot, "doc")
        await press(pilot, "e")
        assert isinstance(app.screen, PickScreen) and "Start from which version?" in screen_text(app)
        assert "a A:" in screen_text(app) and "b B:" in screen_text(app)  # the keys, shown beside
        await press(pilot, "escape")
        await burst(pilot, "e", "b", "p")  # bob's «alpha chain», retyped protein: one burst
    carol = Corpus.open("p", url=sqlite_url, user="carol")
    assert [(s.text, s.type) for s in carol.gold("doc").annotations.spans] == [("alpha chain", "protein")]
