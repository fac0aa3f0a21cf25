"""Relations where the text is (issue #15 item 3): markers under argument spans, partners, the
relation-centred list, type labels and the legend; pure rules first, then real keystrokes against a
real SQLite project (the markers and highlights are read from what the view renders)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Argument, Entity, Relation, Span
from corpusdb.services.edits import Put
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.relations import RelationIndex, marker_lines, span_tag
from tui.sample import TEXTS, build_sample, span
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.annotate import AnnotateScreen
from tui.screens.relations_panel import legend
from tui.testing import press, run_async, screen_text, settle
from tui.widgets.docview import MARK, PARTNER, REL_HOT, DocumentView

D1 = TEXTS["d1"]


def relation_items() -> list[object]:
    """alice's d1 with relations of every shape: two spans (R1), nested spans of one type (T7 in
    T8) related to a span nested in another (R2 → T5), and an entity argument (R3: E1 = both
    IL-2 mentions T1, T9, with STAT5)."""
    t = D1
    chain = t.index("chain")
    disc = span(t, "T4", "protein-region", "receptor")
    disc = Span("T4", "protein-region", (disc.fragments[0], (chain, chain + 5)), "receptor chain")
    return [
        span(t, "T1", "protein", "IL-2"),
        replace(span(t, "T2", "protein", "CD25"), attributes={"mutant": True}),
        span(t, "T3", "cell", "T cells"),
        disc,
        Span("T5", "protein-complex", ((t.index("receptor alpha"), chain + 5),), "receptor alpha chain"),
        span(t, "T6", "protein", "STAT5"),
        span(t, "T7", "protein", "IL-2", 1),
        span(t, "T8", "protein", "Mutant IL-2"),
        span(t, "T9", "protein", "IL-2", 2),
        Entity("E1", "protein", ("T1", "T9")),
        Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), 1, ("hypothesis",)),
        Relation("R2", "bind", (Argument("Arg1", "T8"), Argument("Arg2", "T5")), -1),
        Relation("R3", "bind", (Argument("Arg1", "E1"), Argument("Arg2", "T6")), 0),
    ]


def fill_relations(url: str) -> None:
    """Write :func:`relation_items` into alice's d1 through the API (one transaction)."""
    alice = Corpus.open("demo", url=url, user="alice")
    cur = alice.my_set("d1")
    alice.edit_set(cur.info.id, [Put(i) for i in relation_items()], expected_version=cur.info.version)


@pytest.fixture
def url(sqlite_url: str) -> str:
    build_sample(sqlite_url)
    fill_relations(sqlite_url)
    return sqlite_url


def app_for(url: str, user: str = "alice", start: str | None = "d1") -> CorpusApp:
    return build_app(open_facade(url, "demo", user), start=start)


def rendered_styles(view: DocumentView, offset: int) -> list[object]:
    """The styles the view renders for the character at ``offset`` (from its rendered strip)."""
    lay = view.layout_lines
    line = lay.line_of(offset)
    strip = view._build_line(line, view.rich_style)
    x, want = 0, lay.x_of(offset)
    for seg in strip:
        if x <= want < x + len(seg.text):
            return [seg.style]
        x += len(seg.text)
    return []


def has(style: object, part: object) -> bool:
    """Whether a rendered style carries the overlay ``part`` (its background and bold)."""
    return getattr(style, "bgcolor", None) == part.bgcolor and bool(getattr(style, "bold", None))  # type: ignore[attr-defined]


# -- pure rules ------------------------------------------------------------------------------------
def index(undirected: tuple[str, ...] = ()) -> RelationIndex:
    items = relation_items()
    return RelationIndex(
        [i for i in items if isinstance(i, Span)],
        [i for i in items if isinstance(i, Relation)],
        [i for i in items if isinstance(i, Entity)],
        undirected,
    )


def test_markers_say_type_role_and_direction() -> None:
    m = index().markers()
    assert [x.full for x in m["T1"]] == ["R1 bind:Arg1→", "R3 bind:Arg1@E1→"]
    assert [x.full for x in m["T2"]] == ["→R1 Arg2"]
    assert [x.short for x in m["T2"]] == ["→R1"]
    # the entity argument marks every member, the nested relation end is on the inner span only
    assert [x.full for x in m["T9"]] == ["R3 bind:Arg1@E1→"]
    assert [x.full for x in m["T8"]] == ["R2 bind:Arg1→"] and "T7" not in m
    assert [x.full for x in index(("bind",)).markers()["T6"]] == ["↔R3 Arg2"]


def test_event_arguments_and_triggers() -> None:
    spans = [Span("T1", "Protein", ((0, 4),), "IL-2"), Span("T2", "Trigger", ((5, 10),), "binds")]
    rels = [
        Relation("E1", "Binding", (Argument("Theme", "T1"),), trigger="T2", kind="event"),
        Relation("E2", "Regulation", (Argument("Theme", "E1"),), trigger="T2", kind="event"),
        Relation("E3", "Loop", (Argument("Theme", "E3"),)),  # a cycle resolves to nothing, not forever
    ]
    idx = RelationIndex(spans, rels)
    m = idx.markers()
    assert [x.full for x in m["T2"]] == ["E1 Binding→", "E2 Regulation→", "→E2 Theme=E1"]
    assert [x.full for x in m["T1"]] == ["→E1 Theme"]
    assert idx.describe(rels[1]) == "E2 Regulation: trigger T2 «binds» → Theme E1 Binding"
    assert idx.relation_ranges("E1") == ([(5, 10)], [(0, 4)])


def test_partners_roles_and_descriptions() -> None:
    idx = index(("bind",))
    assert idx.partners("T2") == [(0, 4)]
    assert idx.partners("T8") == list(idx.spans["T5"].fragments)
    assert set(idx.partners("T6")) == {(0, 4), (D1.index("IL-2", 90), D1.index("IL-2", 90) + 4)}
    assert idx.span_roles("T2") == "R1 bind: Arg1 T1 «IL-2» ↔ [Arg2]"
    assert idx.describe(idx.relations["R2"]) == (
        "R2 bind ¬: Arg1 T8 «Mutant IL-2» ↔ Arg2 T5 «receptor alpha chain»"
    )
    row = idx.list_row(idx.relations["R3"]).plain
    assert row.splitlines() == ["R3 bind ?", " ● Arg1: E1 {IL-2}", " ↔ Arg2: T6 «STAT5»"]
    # an item shown by its marks (an adjudication conflict): its spans' partners, the marked left out
    t2 = list(idx.spans["T2"].fragments)
    ranges, hot = idx.item_partners(t2)
    assert ranges == idx.partners("T2") == [(0, 4)] and hot == ["T2", "T1"]
    both = idx.item_partners([*t2, (0, 4)])[0]  # both ends of R1 marked: only T1's other relation
    assert set(both) == set(idx.partners("T1")) - {(0, 4), *t2} and (0, 4) not in both
    assert idx.item_partners([(0, 2)]) == ([], [])  # no span lies inside: nothing highlighted


def test_marker_rows_stack_then_shorten_then_cut() -> None:
    items = [(0, "R1 bind:Arg1→", "R1→", ("a", 0)), (5, "→R1 Arg2", "→R1", ("b", 0))]
    assert marker_lines(items, 40) == [[(0, "R1 bind:Arg1→", ("a", 0))], [(5, "→R1 Arg2", ("b", 0))]]
    assert marker_lines(items, 40, max_rows=1) == [[(0, "R1 bind:Arg1→", ("a", 0))]]  # no room at 5
    spread = [(0, "R1 bind:Arg1→", "R1→", "a"), (20, "→R1 Arg2", "→R1", "b"), (36, "→R9 Long", "→R9", "c")]
    one_row = [[(0, "R1 bind:Arg1→", "a"), (20, "→R1 Arg2", "b"), (36, "→R9", "c")]]  # short where cramped
    assert marker_lines(spread, 40, max_rows=1) == one_row
    # near the right edge: the short form rather than a cut full one; cut only when even that is long
    assert marker_lines([(30, "R1 bind:Arg1→", "R1→", "a")], 36) == [[(30, "R1→", "a")]]
    assert marker_lines([(30, "R1 bind:Arg1→", "R1→ R2→", "a")], 36) == [[(30, "R1→ R…", "a")]]
    assert span_tag("cell", 7) == "cell──┘" and span_tag("protein", 4) == "protein"


# -- the annotation screen ------------------------------------------------------------------------
@run_async
async def test_markers_under_the_text_and_partner_highlight(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        # under "IL-2 binds CD25 in T cells. Mutant IL-2 did not", each marker at its span's column
        assert view.marker_text(0) == [
            "R1 bind:Arg1↔ R3 bind:Arg1@E1↔",
            " " * D1.index("CD25") + "↔R1 Arg2" + " " * 9 + "R2 bind:Arg1↔",
        ]
        assert D1.index("Mutant") == D1.index("CD25") + 17
        assert view.marker_text(1) == [" " * len("bind the ") + "↔R2 Arg2"]  # "receptor alpha chain"
        assert "↔R1" in screen_text(app) and "R2 bind:Arg1↔" in screen_text(app)
        # text columns are the text's: the marker rows are rows of their own
        assert screen_text(app).splitlines()[1].startswith(" IL-2 binds CD25 in T cells.")
        await press(pilot, "w", "w")  # onto CD25: its partner IL-2 (T1) is highlighted
        assert screen.active == "T2"
        assert view.partners == [(0, 4)] and "T1" in view.hot
        assert has(rendered_styles(view, 1)[0], PARTNER)
        assert has(rendered_styles(view, D1.index("CD25") + 1)[0], MARK)
        assert not has(rendered_styles(view, D1.index("STAT5"))[0], PARTNER)
        status = str(screen.query_one("#status").render())
        assert "R1 bind: Arg1 T1 «IL-2» ↔ [Arg2]" in status
        # the hot markers are drawn emphasised
        strip = view._build_markers(0, 1, view.rich_style)
        assert any("↔R1" in seg.text and seg.style and seg.style.bgcolor == REL_HOT.bgcolor for seg in strip)
        await press(pilot, ")", ")")  # STAT5, second line: partners are both IL-2 mentions of E1
        assert screen.active == "T6"
        t9 = D1.index("IL-2", 90)
        assert sorted(view.partners) == [(0, 4), (t9, t9 + 4)]
        # the database holds what is drawn
        ann = Corpus.open("demo", url=url, user="alice").my_set("d1").annotations
        assert {r.id for r in ann.relations} == {"R1", "R2", "R3"}


@run_async
async def test_relation_view_lists_navigates_and_shows_both_ends(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        await press(pilot, "V")
        ol = screen.query_one("#relations")
        assert screen.focused is ol and screen._current_list() == "relations"
        text = screen_text(app)
        assert "R1 bind + [hypothesis]" in text and "Arg2: T2 «CD25»" in text
        assert view.marks == [(0, 4)] and view.partners == [(D1.index("CD25"), D1.index("CD25") + 4)]
        await press(pilot, "down")  # R2: both ends highlighted, the whole relation on the detail line
        t5 = D1.index("receptor alpha")
        assert view.marks == [(D1.index("Mutant"), D1.index("Mutant") + 11)]
        assert view.partners == [(t5, D1.index("chain") + 5)]
        status = str(screen.query_one("#status").render())
        assert "R2 bind ¬: Arg1 T8 «Mutant IL-2» ↔ Arg2 T5 «receptor alpha chain»" in status
        assert has(rendered_styles(view, t5 + 1)[0], PARTNER)
        assert view.cursor == 0  # navigating the list moves no cursor (nothing edits by accident)
        await press(pilot, "enter")  # Enter: to the text, on the relation's source
        assert screen.focused is view and view.cursor == D1.index("Mutant")
        assert screen.active == "T8" and view.partners == [(t5, D1.index("chain") + 5)]
        status = str(screen.query_one("#status").render())  # back in the text: the span's own line
        assert status.startswith("T8 protein «Mutant IL-2»")
        # abbreviated to fit 80 columns (the relations view and 160 columns have it whole)
        assert status.splitlines()[0].endswith("1 rel: R2 bind: [Arg1] ↔ Arg2 T5 «receptor al…»")
        assert len(status.splitlines()[0]) <= 78


@run_async
async def test_type_labels_and_legend(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        legend = str(screen.query_one("#legend").render())
        for t in ("cell", "protein", "protein-complex", "protein-region"):
            assert f" {t} " in legend
        assert view.marker_text(2) == ["↔R3 Arg2" + " " * 22 + "R3 bind:Arg1@E1↔"]  # no type label yet
        await press(pilot, "L")
        assert view.show_types
        rows = view.marker_text(0)
        col = D1.index("T cells")
        assert any(r[col:].startswith("cell──┘") for r in rows)  # the span's end is drawn
        # nested spans of one type: IL-2 (T7) inside Mutant IL-2 (T8) get a label each
        assert any(r[D1.index("Mutant") :].startswith("protein──") for r in rows)
        assert any(r[D1.index("IL-2", 30) :].startswith("protein") for r in rows)
        await press(pilot, "L")
        assert not view.show_types and not any("cell" in r for r in view.marker_text(0))


@run_async
async def test_blindness_markers_show_only_my_relations(url: str) -> None:
    """bob's R1 binds STAT5 to the third IL-2: alice's view never draws it (nor his spans)."""
    app = app_for(url)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        idx = screen.view.relations
        assert idx is not None and set(idx.relations) == {"R1", "R2", "R3"}
        bob = Corpus.open("demo", url=url, user="bob").my_set("d1").annotations
        assert [r.args[0].ref for r in bob.relations] == ["T1"]
        # bob's R1 is STAT5 ↔ IL-2: in alice's view STAT5 is only R3's end
        assert [m.full for m in idx.markers()["T6"]] == ["↔R3 Arg2"]


# -- adjudication ----------------------------------------------------------------------------------
@run_async
async def test_adjudication_gold_shows_relation_markers(sqlite_url: str) -> None:
    build_sample(sqlite_url, submitted=True)
    app = app_for(sqlite_url, user="carol", start=None)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        await press(pilot, "enter")
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        for _ in range(6):  # take alice's version of every open conflict
            if not any(c.decision is None for c in screen.shown):
                break
            await press(pilot, "1")
        gold = Corpus.open("demo", url=sqlite_url, user="carol").gold("d1").annotations
        assert gold.relations, "alice's R1 is in gold"
        view = screen.query_one("#text", DocumentView)
        rel = gold.relations[0]
        idx = view.relations
        assert idx is not None and rel.id in idx.relations
        first = idx.anchors(rel.args[0].ref)[0]
        line = view.layout_lines.line_of(first.start)
        assert any(f"{rel.id} bind:Arg1↔" in r for r in view.marker_text(line))


@run_async
async def test_help_explains_markers_and_keys(url: str) -> None:
    app = app_for(url)
    # 60 rows: the help lists every key of the screen (c for entities made it one row longer)
    async with app.run_test(size=(160, 60)) as pilot:
        await settle(pilot)
        await press(pilot, "question_mark")
        text = screen_text(app)
        assert "Relations and type labels in the text" in text
        assert "R1 Type:Role→" in text and "Type labels under the text" in text
        assert "Relations: list, text, partners" in text


@run_async
async def test_bb_2011_document_every_relation_marked_at_80_and_160(
    sqlite_url: str, tmp_path: Path, shared_data: Path
) -> None:
    """A real BB 2011 document (18 relations, equivalences, dense lines): every relation end is
    marked under its span at both widths, and the partners of "infant" are its two relations' ends."""
    import shutil

    src = shared_data / "bionlp-st-2011-bb-train"
    doc = tmp_path / "bb"
    doc.mkdir()
    for f in src.glob("BTID-10080.*"):
        shutil.copy(f, doc / f.name)
    owner = Corpus.create("bb", "bb-2011", url=sqlite_url)
    owner.add_annotator("alice")
    owner.import_brat(doc, "alice", status="in_progress")
    alice = Corpus.open("bb", url=sqlite_url, user="alice").my_set("BTID-10080").annotations
    assert len(alice.relations) == 18
    for size in ((80, 24), (160, 50)):
        app = build_app(open_facade(sqlite_url, "bb", "alice"), start="BTID-10080")
        async with app.run_test(size=size) as pilot:
            await settle(pilot)
            screen = app.screen
            assert isinstance(screen, AnnotateScreen)
            view = screen.view
            rows = "\n".join(r for i in range(len(view.layout_lines)) for r in view.marker_text(i))
            for rel in alice.relations:  # both ends of each, full or shortened
                assert rows.count(f"{rel.id}→") + rows.count(f"{rel.id} {rel.type}:") >= 1, (size, rel.id)
                assert rows.count(f"→{rel.id}") >= 1, (size, rel.id)
            infant = alice.span("T17")
            view.move_to(infant.start)
            await settle(pilot)
            assert screen.active == "T17"
            partners = {alice.span("T18").fragments[0], alice.span("T1").fragments[0]}
            assert set(view.partners) == partners
            status = str(screen.query_one("#status").render())
            assert "2 rel: E1 PartOf: [Host] → Part T18 «feces»" in status
            # the relations view: a relation with a long argument, whole at 160 columns, cut at 80
            k, rel = next(
                (i, r)
                for i, r in enumerate(alice.relations)
                if any(len(alice.span(a.ref).text) > 24 for a in r.args)
            )
            long_text = max((alice.span(a.ref).text for a in rel.args), key=len)
            await press(pilot, "V")
            screen.query_one("#relations").highlighted = k
            await settle(pilot)
            status = str(screen.query_one("#status").render())
            assert status.startswith(f"{rel.id} {rel.type}: ")
            if size[0] == 160:
                assert f"«{long_text}»" in status
            else:
                assert f"«{long_text}»" not in status and f"«{long_text[:10]}" in status and "…»" in status


@run_async
async def test_clicks_on_marker_rows_and_below_them_land_in_the_right_text(url: str) -> None:
    """Marker rows are not text: a click on one lands on the text line above it, at that column;
    a click on the next text line (below two marker rows) lands there."""
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        cd25 = D1.index("CD25")
        await pilot.click("#text", offset=(1 + cd25 + 1, 2))  # on "↔R1 Arg2", under CD25
        assert view.cursor == cd25 + 1 and screen.active == "T2"
        line1 = view.layout_lines.lines[1][0]  # "bind the receptor…", three rows below line 0
        await pilot.click("#text", offset=(1 + 9, 3))
        assert view.cursor == line1 + 9 and screen.active == "T4"  # "receptor", inside T5
        await press(pilot, "up")  # up goes to the text line above, over the marker rows
        assert view.layout_lines.line_of(view.cursor) == 0


@run_async
async def test_ge_2011_events_marked_on_their_triggers(
    sqlite_url: str, tmp_path: Path, shared_data: Path
) -> None:
    """Real GENIA events: each event's trigger carries its type, its themes their role, and an event
    whose theme is another event points at that event's trigger (E1 Theme=E2 under "expression")."""
    import shutil

    src = shared_data / "bionlp-st-2011-ge" / "train"
    doc = tmp_path / "ge"
    doc.mkdir()
    for f in src.glob("PMC-1310901-00-TIAB.*"):
        shutil.copy(f, doc / f.name)
    owner = Corpus.create("ge", "ge-2011", url=sqlite_url)
    owner.add_annotator("alice")
    owner.import_brat(doc, "alice", status="in_progress")
    ann = Corpus.open("ge", url=sqlite_url, user="alice").my_set("PMC-1310901-00-TIAB").annotations
    e1 = next(r for r in ann.relations if r.id == "E1")
    assert e1.trigger == "T18" and [(a.role, a.ref) for a in e1.args] == [("Theme", "E2")]
    app = build_app(open_facade(sqlite_url, "ge", "alice"), start="PMC-1310901-00-TIAB")
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        lay = view.layout_lines
        t18, t19 = ann.span("T18"), ann.span("T19")  # "Down-regulation", "expression"
        assert view.marker_text(lay.line_of(t18.start))[0].startswith("E1 Negative_regulation→")
        under = view.marker_text(lay.line_of(t19.start))
        col = lay.x_of(t19.start)
        assert any(r[col:].startswith("→E1 Theme=E2 E2 Gene_expression→") for r in under)
        view.move_to(t18.start)  # the trigger's partner is the nested event's trigger
        await settle(pilot)
        assert set(t19.fragments) <= set(view.partners)


def test_legend_fits_its_lines_and_counts_the_rest() -> None:
    types = ["Gene_expression", "Negative_regulation", "Positive_regulation", "Protein", "Regulation"]
    spans = [Span(f"T{i}", t, ((0, 1),), "x") for i, t in enumerate(types)]
    colors = {"Protein": "#ff0000"}
    text = legend(spans, colors, 28)
    assert text.plain.splitlines() == [
        " Gene_expression ",
        " Negative_regulation ",
        " Positive_regulation  +2 (L)",
    ]
    assert all(len(line) <= 28 for line in text.plain.splitlines())
    wide = [" Gene_expression   Negative_regulation ", " Positive_regulation   Protein   Regulation "]
    assert legend(spans, colors, 60).plain.splitlines() == wide  # all of them: no count
    protein = next(s for s in legend(spans, colors, 60).spans if str(s.style).endswith("on #ff0000"))
    assert legend(spans, colors, 60).plain[protein.start : protein.end] == " Protein "
