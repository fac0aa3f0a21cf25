"""Getting around (issue #25 items 4-7): the document list (natural order, filter, title, what is
left to do), the entity picker's order, colours that stay apart, relations drawn in the text.

Every test drives the real app over a real SQLite project built through the API (``build_sample``),
with keys sent as a person types them."""

from __future__ import annotations

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample, span
from tui.screens.annotate import AnnotateScreen
from tui.screens.documents import DocumentsScreen
from tui.testing import press, run_async, screen_text, settle, type_text

DEV = (0, 1, 2, 10, 100, 11)


def app_for(url: str, user: str = "alice", start: str | None = None) -> CorpusApp:
    return build_app(open_facade(url, "demo", user), start=start)


# -- 4. the document list --------------------------------------------------------------------------
def build_list(url: str) -> Corpus:
    """alice's documents: d1-d3 from the sample, six dev.N ids (dev.10 has a title), one of them
    started, one submitted."""
    owner = build_sample(url)
    owner.add_documents(
        [
            Document(
                f"dev.{i}",
                f"Kinase text number {i}.",
                metadata={"title": "A titled paper"} if i == 10 else {},
            )
            for i in DEV
        ]
    )
    t = "Kinase text number 2."
    for i in DEV:
        content = Annotations(spans=(span(t, "T1", "protein", "Kinase"),)) if i in (2, 11) else None
        owner.create_set(
            f"dev.{i}", "alice", annotations=content, status="submitted" if i == 11 else "assigned"
        )
    return owner


@run_async
async def test_document_list_natural_order_title_and_what_is_left(sqlite_url: str) -> None:
    build_list(sqlite_url)
    app = app_for(sqlite_url)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DocumentsScreen)
        ids = [r.document for r in screen.rows]
        assert ids == ["d1", "d2", "d3", "dev.0", "dev.1", "dev.2", "dev.10", "dev.11", "dev.100"]
        shown = screen_text(app)
        # the title column: the metadata's title, else the text's beginning
        assert "A titled paper" in shown and "IL-2 binds CD25" in shown
        todo = {r.document: r.todo for r in screen.rows}
        assert todo["dev.0"] == "annotate"
        assert todo["dev.2"] == "finish, submit (S)"
        assert todo["dev.11"] == "nothing (submitted)"
        line = next(x for x in shown.splitlines() if "dev.2 " in x)
        assert "finish, submit (S)" in line and "1 span" in line


@run_async
async def test_document_list_filters_as_you_type(sqlite_url: str) -> None:
    build_list(sqlite_url)
    app = app_for(sqlite_url)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, DocumentsScreen)
        assert app.focused is screen.query_one("#docs")  # typed in the list: the filter takes it
        await type_text(pilot, "dev.1")
        assert app.focused is screen.query_one("#filter")
        assert [r.document for r in screen.rows] == ["dev.1", "dev.10", "dev.11", "dev.100"]
        await type_text(pilot, "0")  # each key narrows the list at once
        assert [r.document for r in screen.rows] == ["dev.10", "dev.100"]
        await press(pilot, "escape")  # cleared, back in the list
        assert len(screen.rows) == 9 and app.focused is screen.query_one("#docs")
        await type_text(pilot, "titled")  # a title's words find the document too
        assert [r.document for r in screen.rows] == ["dev.10"]
        await press(pilot, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
        await type_text(pilot, "submitted")
        assert [r.document for r in screen.rows] == ["dev.11"]
        await press(pilot, "escape", "R")  # a key of the screen still does what it did: reload
        assert len(screen.rows) == 9 and not screen.query_one("#filter").value
        await type_text(pilot, "submitted")
        await press(pilot, "enter")  # Enter opens the first one shown
        await settle(pilot)
        assert isinstance(app.screen, AnnotateScreen) and app.screen.document == "dev.11"


def test_natural_key() -> None:
    from corpusdb.basics.names import natural_key

    ids = ["dev.10", "dev.1", "dev.0", "dev.100", "dev.2", "Dev.3", "pmid9", "pmid10"]
    assert sorted(ids, key=natural_key) == [
        "dev.0",
        "dev.1",
        "dev.2",
        "Dev.3",
        "dev.10",
        "dev.100",
        "pmid9",
        "pmid10",
    ]


# -- 5. the entity picker ---------------------------------------------------------------------------
def fill_mentions(url: str, *, entities: bool) -> None:
    """alice's d1: IL-2 (T1) at the start; nearer to it CD25 (a protein), T cells (a cell) and
    "binds" (a cell here, for the test); the only other IL-2 mention (T9) at the very end."""
    from corpusdb.basics.records import Entity
    from corpusdb.services.edits import Put

    t = TEXTS["d1"]
    items: list[object] = [
        span(t, "T1", "protein", "IL-2"),
        span(t, "T2", "cell", "binds"),
        span(t, "T3", "protein", "CD25"),
        span(t, "T4", "cell", "T cells"),
        span(t, "T9", "protein", "IL-2", 2),
    ]
    if entities:
        items += [
            Entity("E1", "cell", ("T2", "T4")),
            Entity("E2", "protein", ("T9",)),
            Entity("E3", "protein", ("T3",)),
        ]
    alice = Corpus.open("demo", url=url, user="alice")
    cur = alice.my_set("d1")
    alice.edit_set(cur.info.id, [Put(i) for i in items], expected_version=cur.info.version)  # type: ignore[arg-type]


@run_async
async def test_entity_picker_lists_the_same_type_and_text_first(sqlite_url: str) -> None:
    """c on IL-2, "new entity with another span": the other IL-2 (same type, same text) comes
    first though it is the farthest, then CD25 (same type), then the spans of other types."""
    from tui.screens.clusters_panel import NEW_WITH
    from tui.screens.pickers import PickScreen

    build_sample(sqlite_url)
    fill_mentions(sqlite_url, entities=False)
    app = app_for(sqlite_url, start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        screen.view.move_to(0)  # on T1, the first IL-2
        await press(pilot, "c")
        picker = app.screen
        assert isinstance(picker, PickScreen) and picker.shown[0].value == NEW_WITH
        await press(pilot, "enter")
        picker = app.screen
        assert isinstance(picker, PickScreen)
        assert [c.value for c in picker.shown] == ["T9", "T3", "T2", "T4"]
        assert "IL-2" in str(picker.shown[0].label)


@run_async
async def test_entity_join_list_puts_the_entity_of_the_same_name_first(sqlite_url: str) -> None:
    from tui.screens.pickers import PickScreen

    build_sample(sqlite_url)
    fill_mentions(sqlite_url, entities=True)
    app = app_for(sqlite_url, start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        screen.view.move_to(0)  # on T1, the first IL-2
        await press(pilot, "c")
        picker = app.screen
        assert isinstance(picker, PickScreen)
        assert [c.value for c in picker.shown[:3]] == ["E2", "E3", "E1"]
        await press(pilot, "enter")  # joins E2: the two IL-2 mentions are one entity now
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.session is not None
        e2 = next(e for e in screen.session.annotations.entities if e.id == "E2")
        assert set(e2.members) == {"T1", "T9"}


# -- 6. colours ------------------------------------------------------------------------------------
def test_ciede2000_matches_the_published_test_data() -> None:
    """Sharma, Wu and Dalal (2005), Table 1: pairs 1, 7, 13, 17, 25 and 34."""
    from tui.colours import ciede2000

    pairs = [
        ((50, 2.6772, -79.7751), (50, 0, -82.7485), 2.0425),
        ((50, 0, 0), (50, -1, 2), 2.3669),
        ((50, 2.4900, -0.0010), (50, -2.4900, 0.0011), 7.2195),
        ((50, 2.5, 0), (73, 25, -18), 27.1492),
        ((60.2574, -34.0099, 36.2677), (60.4626, -34.1751, 39.4387), 1.2644),
        ((2.0776, 0.0795, -1.1350), (0.9033, -0.0636, -0.5514), 0.9082),
    ]
    for a, b, want in pairs:
        assert abs(ciede2000(a, b) - want) < 1e-4, (a, b)
        assert abs(ciede2000(b, a) - want) < 1e-4


def test_type_colours_stay_apart_in_every_shipped_schema() -> None:
    """The rule of ``tui.colours`` for every shipped schema, in true colour and in 16 colours, and
    against the text view's own fixed colours (read from the view's styles)."""
    from rich.color import ColorSystem

    from guidelines.schema import load_schema, shipped_schemas
    from tui import colours as co
    from tui.widgets.docview import MARK, PARTNER, REL_HOT, SELECTION

    fixed = {
        "partner": (PARTNER.bgcolor, co.UI_MIN),
        "hot marker": (REL_HOT.bgcolor, co.UI_MIN),
        "selection": (SELECTION.bgcolor, co.SELECTION_MIN),
        "mark": (MARK.bgcolor, co.BACKGROUND_MIN),
    }
    fixed_hex = {k: (c.triplet.hex, d) for k, (c, d) in fixed.items()}  # type: ignore[union-attr]
    fixed_hex["background"] = (co.BACKGROUND, co.BACKGROUND_MIN)
    reserved16 = {0} | {
        c.downgrade(ColorSystem.STANDARD).number for c, _d in fixed.values() if c is not MARK.bgcolor
    }
    names = shipped_schemas()
    assert {"bb-2011", "biorelex-1.0"} <= set(names)
    for name in names:
        schema = load_schema(name)
        colours = co.type_colours(schema)
        assert set(colours) == {e.name for e in schema.entities}
        n = len(colours)
        # type against type: 12 at least, 18 for a schema 16 colours can keep apart
        floor = 18.0 if n <= co.FREE_16 else co.TYPE_MIN
        assert co.min_distance(colours) >= floor, (name, co.min_distance(colours))
        for t, c in colours.items():
            for what, (ui, d) in fixed_hex.items():
                assert co.distance(c, ui) >= d, (name, t, c, what, co.distance(c, ui))
        # 16 colours: as Rich (and Textual) downsample
        std = {t: co.standard(c) for t, c in colours.items()}
        assert not set(std.values()) & reserved16, (name, std)
        keyed = [std[e.name] for e in schema.entities if e.key]
        assert len(set(keyed)) == len(keyed), (name, "keyed types share a 16-colour")
        if n <= co.FREE_16:
            assert len(set(std.values())) == n, (name, std)
    # the cases the issue names: Bacterium far from the partner pink, Host from HostPart
    bb = co.type_colours(load_schema("bb-2011"))
    assert co.distance(bb["Bacterium"], co.PARTNER) >= co.UI_MIN
    assert co.distance(bb["Host"], bb["HostPart"]) >= 24
    assert co.standard(bb["Bacterium"]) != co.standard(bb["Environment"])
    assert co.standard(bb["HostPart"]) != co.standard(bb["Water"])


def test_a_schema_colour_that_keeps_its_distance_is_kept() -> None:
    from tui.colours import TypeColour, assign_colours

    got = assign_colours(
        [TypeColour("A", "#d70000", keyed=True), TypeColour("B", "#5f87ff"), TypeColour("C", "#d70001")]
    )
    assert got["A"] == "#d70000" and got["B"] == "#5f87ff"
    assert got["C"] != "#d70001"  # too close to A: moved


def rendered(view: object, offset: int) -> object:
    """The style the view renders the character at ``offset`` in."""
    lay = view.layout_lines  # type: ignore[attr-defined]
    strip = view._build_line(lay.line_of(offset), view.rich_style)  # type: ignore[attr-defined]
    x, want = 0, lay.x_of(offset)
    for seg in strip:
        if x <= want < x + len(seg.text):
            return seg.style
        x += len(seg.text)
    raise AssertionError(offset)


@run_async
async def test_screen_shows_assigned_colours_nesting_and_fragments(sqlite_url: str) -> None:
    """The annotation screen draws each type in its assigned colour (legend too); the outer span
    of a nested pair is overlined all along; a discontinuous span's gap is a faint band."""
    from test_tui_relations import fill_relations

    from tui.colours import type_colours

    build_sample(sqlite_url)
    fill_relations(sqlite_url)
    t = TEXTS["d1"]
    app = app_for(sqlite_url, start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.session is not None
        colours = type_colours(screen.session.schema)
        assert (
            colours["protein"] != screen.session.schema.colors()["protein"]
        )  # moved off the selection's blue
        view = screen.view
        il2 = rendered(view, 0)
        assert il2.bgcolor.triplet.hex == colours["protein"]  # type: ignore[attr-defined]
        # Mutant IL-2 (T8) holds IL-2 (T7): overlined over "Mutant " and over the inner IL-2
        mutant = t.index("Mutant IL-2")
        assert rendered(view, mutant).overline and rendered(view, mutant + 8).overline  # type: ignore[attr-defined]
        assert rendered(view, mutant + 8).underline  # type: ignore[attr-defined]
        assert not rendered(view, 0).overline  # type: ignore[attr-defined]
        legend = screen.query_one("#legend").content
        assert any(colours["protein"] in str(span.style) for span in legend.spans)  # type: ignore[union-attr]


@run_async
async def test_discontinuous_fragments_are_joined_by_a_band(sqlite_url: str) -> None:
    """d2: «Ras … kinase» as one span of two fragments; the words between them (no span there)
    are a faint band of its colour, the fragments italic in the colour itself."""
    from corpusdb.basics.records import Span
    from corpusdb.services.edits import Put
    from tui.colours import BACKGROUND, faint, type_colours

    build_sample(sqlite_url)
    t = TEXTS["d2"]
    ras, kinase = t.index("Ras"), t.index("kinase")
    alice = Corpus.open("demo", url=sqlite_url, user="alice")
    cur = alice.my_set("d2")
    disc = Span("T1", "protein", ((ras, ras + 3), (kinase, kinase + 6)), "Ras kinase")
    alice.edit_set(cur.info.id, [Put(disc)], expected_version=cur.info.version)
    app = app_for(sqlite_url, start="d2")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.session is not None
        colour = type_colours(screen.session.schema)["protein"]
        view = screen.view
        first, gap, last = rendered(view, ras), rendered(view, t.index("interacts")), rendered(view, kinase)
        assert first.bgcolor.triplet.hex == colour and first.italic  # type: ignore[attr-defined]
        assert last.bgcolor.triplet.hex == colour and last.italic  # type: ignore[attr-defined]
        assert gap.bgcolor.triplet.hex == faint(colour)  # type: ignore[attr-defined]
        assert rendered(view, t.index("MEK1")).bgcolor.triplet.hex == BACKGROUND  # type: ignore[attr-defined]


# -- 7. relations in the text ----------------------------------------------------------------------
def test_markers_carry_the_relation_label() -> None:
    """Speculative (?) and negated (¬) show in the markers at both ends; asserted reads plain."""
    from test_tui_relations import index

    m = index().markers()
    assert [x.full for x in m["T1"]] == ["R1 bind:Arg1→", "R3 ?bind:Arg1@E1→"]
    assert [x.full for x in m["T8"]] == ["R2 ¬bind:Arg1→"]
    assert [x.full for x in m["T5"]] == ["→R2¬ Arg2"] and [x.short for x in m["T5"]] == ["→R2¬"]
    assert [x.full for x in m["T6"]] == ["→R3? Arg2"] and [x.short for x in m["T1"]] == ["R1→", "R3?→"]


@run_async
async def test_relation_is_drawn_in_the_margin_and_labelled_in_the_text(sqlite_url: str) -> None:
    """On STAT5 (T6): R3 joins it to the entity E1 (IL-2 on the first line and IL-2 on its own
    line); the margin draws a line from the first line's row down to STAT5's, pointing at it; the
    markers under the text say R3 is speculative."""
    from test_tui_relations import fill_relations

    build_sample(sqlite_url)
    fill_relations(sqlite_url)
    t = TEXTS["d1"]
    app = app_for(sqlite_url, start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        view = screen.view
        assert view.margin == 2  # the schema has relations: the margin is there from the start
        assert not view._gutter  # nothing active: nothing drawn
        markers = " ".join(m for line in range(len(view.layout_lines)) for m in view.marker_text(line))
        assert "R3 ?bind:Arg1@E1↔" in markers and "↔R2¬ Arg2" in markers
        view.move_to(t.index("STAT5"))
        await settle(pilot)
        first, last = view._row(0), view._row(view.layout_lines.line_of(t.index("STAT5")))
        assert last > first + 1
        assert view._gutter[first] == "╭─" and view._gutter[last][1] == "►"
        assert all(view._gutter[r] == "│ " for r in range(first + 1, last))
        rows = screen_text(app).splitlines()
        text_top = next(i for i, r in enumerate(rows) if "IL-2 binds" in r)
        assert rows[text_top].lstrip()[:2] == "╭─"  # on screen, left of the text
        view.move_to(t.index("CD25"))  # R1: both ends on the first line
        await settle(pilot)
        assert view._gutter == {first: "─►"}
        view.move_to(t.index("cells"))  # T3 has no relation: the margin is empty again
        await settle(pilot)
        assert not view._gutter and screen_text(app).splitlines()[text_top].lstrip().startswith("IL-2")


@run_async
async def test_r_picks_the_second_argument_by_moving_in_the_text(sqlite_url: str) -> None:
    """r on IL-2, Tab: the list gives way to the text; n moves span to span, the candidate is
    shown (pink, joined in the margin, named on the status line); Tab goes back to the list and
    Tab again to the text; Enter takes the span, then the label and tags as from the list."""
    from test_tui_relations import fill_relations

    from tui.screens.pickers import ChecklistScreen, PickScreen

    build_sample(sqlite_url)
    fill_relations(sqlite_url)
    t = TEXTS["d1"]
    app = app_for(sqlite_url, start="d1")
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen) and screen.session is not None
        view = screen.view
        view.move_to(t.index("STAT5"))  # T6
        await settle(pilot)
        await press(pilot, "r")
        assert isinstance(app.screen, PickScreen) and "Tab: pick it in the text" in screen_text(app)
        await press(pilot, "tab")
        assert app.screen is screen and screen._text_pick is not None
        assert "pick Arg2" in str(screen.query_one("#status").content)
        await press(pilot, "ctrl+home")  # IL-2 (T1) at the start
        assert screen.text_pick_candidate() is not None and screen.text_pick_candidate().id == "T1"  # type: ignore[union-attr]
        await press(pilot, "n", "n")  # CD25 (T2), then T cells (T3)
        cand = screen.text_pick_candidate()
        assert cand is not None and cand.id == "T3"
        assert view.partners == list(cand.fragments) and view.connectors == [(t.index("STAT5"), cand.start)]
        assert "Enter takes T3" in str(screen.query_one("#status").content)
        await press(pilot, "x")  # other actions wait while picking: nothing deleted
        assert {s.id for s in screen.session.annotations.spans} >= {"T3", "T6"}
        await press(pilot, "tab")  # back to the list...
        assert isinstance(app.screen, PickScreen)
        await press(pilot, "tab")  # ...and to the text again, where the cursor was
        assert app.screen is screen and screen.text_pick_candidate().id == "T3"  # type: ignore[union-attr]
        await press(pilot, "enter")
        assert isinstance(app.screen, PickScreen)  # the label: speculative
        await press(pilot, "0")
        assert isinstance(app.screen, ChecklistScreen)
        await press(pilot, "enter")
        await settle(pilot)
        assert app.screen is screen and screen._text_pick is None
        new = screen.session.annotations.relations[-1]
        assert [(a.role, a.ref) for a in new.args] == [("Arg1", "T6"), ("Arg2", "T3")] and new.label == 0
        markers = " ".join(m for line in range(len(view.layout_lines)) for m in view.marker_text(line))
        assert f"{new.id}?" in markers
        # Esc while picking cancels the whole relation
        n = len(screen.session.annotations.relations)
        await press(pilot, "r", "tab", "escape")
        assert app.screen is screen and screen._text_pick is None
        assert len(screen.session.annotations.relations) == n
