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
        await press(pilot, "slash")
        await type_text(pilot, "dev.1")
        assert [r.document for r in screen.rows] == ["dev.1", "dev.10", "dev.11", "dev.100"]
        await type_text(pilot, "0")  # each key narrows the list at once
        assert [r.document for r in screen.rows] == ["dev.10", "dev.100"]
        await press(pilot, "escape")  # cleared, back in the list
        assert len(screen.rows) == 9 and app.focused is screen.query_one("#docs")
        await press(pilot, "slash")
        await type_text(pilot, "titled")  # a title's words find the document too
        assert [r.document for r in screen.rows] == ["dev.10"]
        await press(pilot, "backspace", "backspace", "backspace", "backspace", "backspace", "backspace")
        await type_text(pilot, "submitted")
        assert [r.document for r in screen.rows] == ["dev.11"]
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
