"""The annotator's flows, driven by real keystrokes against a real SQLite project, checked in the DB."""

from __future__ import annotations

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Span
from corpusdb.services.edits import Put
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample, build_triage
from tui.screens.annotate import AnnotateScreen
from tui.screens.pickers import PickScreen
from tui.testing import press, run_async, screen_text, settle, type_text

D1 = TEXTS["d1"]


@pytest.fixture
def url(sqlite_url: str) -> str:
    build_sample(sqlite_url)
    return sqlite_url


def app_for(url: str, user: str = "alice", project: str = "demo", start: str | None = "d1") -> CorpusApp:
    """The app exactly as ``corpusdb tui --as USER --open START`` builds it."""
    return build_app(open_facade(url, project, user), start=start)


def db_set(url: str, user: str = "alice", doc: str = "d1", project: str = "demo"):  # type: ignore[no-untyped-def]
    """The user's set as the database holds it, read back through the API."""
    return Corpus.open(project, url=url, user=user).my_set(doc)


def annotate_screen(app: CorpusApp) -> AnnotateScreen:
    assert isinstance(app.screen, AnnotateScreen), type(app.screen)
    return app.screen


async def add_span(pilot, type_filter: str) -> None:  # type: ignore[no-untyped-def]
    await press(pilot, "a")
    assert isinstance(pilot.app.screen, PickScreen)
    await type_text(pilot, "/" + type_filter)  # '/' first: the schema's type keys pick at once
    await press(pilot, "enter")


@run_async
async def test_open_from_the_list_and_annotate_a_word(url: str) -> None:
    app = app_for(url, start=None)
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "d1" in screen_text(app) and "3 not started" in screen_text(app)
        await press(pilot, "enter")  # the first row: d1
        screen = annotate_screen(app)
        assert screen.view.cursor == 0
        await add_span(pilot, "pro")  # the word under the cursor: IL-2
        await press(pilot, "w", "w")  # IL-2 → binds → CD25
        assert screen.view.cursor == D1.index("CD25")
        await add_span(pilot, "gene")
    saved = db_set(url)
    assert [(s.id, s.type, s.fragments, s.text) for s in saved.annotations.spans] == [
        ("T1", "protein", ((0, 4),), "IL-2"),
        ("T2", "gene", ((11, 15),), "CD25"),
    ]
    assert saved.info.status == "in_progress" and saved.info.version == 3  # one transaction per action


@run_async
async def test_select_with_the_keyboard_and_filter_types(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        start = D1.index("receptor alpha chain")
        view = annotate_screen(app).view
        view.move_to(start)
        await press(pilot, "shift+right", "shift+left")  # a character each way: nothing selected
        assert view.selection is None
        await press(pilot, "W", "W", "W")  # extend word by word
        assert view.selection == (start, start + 20)
        await add_span(pilot, "dna-")  # narrows to protein-DNA-complex
    (span,) = db_set(url).annotations.spans
    assert (span.type, span.text) == ("protein-DNA-complex", "receptor alpha chain")


@run_async
async def test_relation_with_label_and_tags_then_edit_delete_undo(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await add_span(pilot, "pro")  # T1 IL-2
        await press(pilot, "w", "w")
        await add_span(pilot, "pro")  # T2 CD25, the cursor stays on it
        await press(pilot, "r")  # one relation type (bind): straight to the second argument
        assert "pick Arg2" in screen_text(app)
        await press(pilot, "enter")  # nearest other span first: T1
        await press(pilot, "minus")  # label hotkey '-': negated
        await press(pilot, "h", "i", "enter")  # tags: hypothesis, implicit
        assert "R1 bind ¬" in screen_text(app)
        (rel,) = db_set(url).annotations.relations
        assert rel.type == "bind" and rel.label == -1 and rel.tags == ("hypothesis", "implicit")
        assert [(a.role, a.ref) for a in rel.args] == [("Arg1", "T2"), ("Arg2", "T1")]
        await press(pilot, "tab")  # the relation list (shown after adding a relation)
        await press(pilot, "e", "0", "i", "t", "enter")  # speculative; untick implicit, tick title
        (rel,) = db_set(url).annotations.relations
        assert (rel.label, rel.tags) == (0, ("hypothesis", "title"))
        await press(pilot, "escape", "x")  # back to the text; delete T2 and R1 that points at it
        ann = db_set(url).annotations
        assert [s.id for s in ann.spans] == ["T1"] and ann.relations == ()
        await press(pilot, "u")  # one undo restores both
    ann = db_set(url).annotations
    assert [s.id for s in ann.spans] == ["T1", "T2"] and [r.label for r in ann.relations] == [0]


@run_async
async def test_undo_and_redo_are_saved(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await add_span(pilot, "pro")
        assert len(db_set(url).annotations.spans) == 1
        await press(pilot, "u")
        assert db_set(url).annotations.spans == ()
        await press(pilot, "ctrl+r")
        spans = db_set(url).annotations.spans
        assert [(s.id, s.text) for s in spans] == [("T1", "IL-2")]
        await press(pilot, "u", "u")  # the second undo has nothing left: harmless
        info = db_set(url).info
    assert db_set(url).annotations.spans == ()
    assert info.version == 5  # add, undo, redo, undo: four transactions after creation


@run_async
async def test_attributes_grounding_fragment_and_link(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        view = annotate_screen(app).view
        await add_span(pilot, "pro")  # T1 IL-2
        await press(pilot, "i", "m", "enter")  # the attributes checklist: tick mutant, accept
        await press(pilot, "g")
        await type_text(pilot, "x:1")
        await press(pilot, "enter")  # refused: not a database of the schema; the prompt stays
        assert "not a database" in screen_text(app)
        await press(pilot, "ctrl+u")  # clear the input
        await type_text(pilot, "pfam:PF1")
        await press(pilot, "enter")
        # A discontinuous fragment: select "chain" and add it to a new span on "receptor".
        view.move_to(D1.index("receptor"))
        await add_span(pilot, "pro")  # T2 receptor
        view.move_to(D1.index("chain"))
        await press(pilot, "f")
        await type_text(pilot, "T2")
        await press(pilot, "enter")
        # A synonym link from T3 (the second IL-2) to T1.
        view.move_to(D1.index("IL-2", 5))
        await add_span(pilot, "pro")
        await press(pilot, "k")  # several link types: pick one
        await type_text(pilot, "syn")
        await press(pilot, "enter")
        await type_text(pilot, "T1")
        await press(pilot, "enter")
    ann = db_set(url).annotations
    t1, t2, t3 = ann.spans
    assert t1.attributes == {"mutant": True}
    assert [g.ref for g in t1.groundings] == ["pfam:PF1"]
    chain = D1.index("chain")
    assert t2.fragments == ((D1.index("receptor"), D1.index("receptor") + 8), (chain, chain + 5))
    assert t2.text == "receptor chain"
    (link,) = ann.links
    assert (link.type, link.source, link.target) == ("synonym", t3.id, t1.id)


@run_async
async def test_jump_from_the_span_list_to_the_text(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        await add_span(pilot, "pro")
        screen.view.move_to(D1.index("STAT5"))
        await add_span(pilot, "pro")
        await press(pilot, "ctrl+home")
        assert screen.view.cursor == 0
        await press(pilot, "tab", "down", "enter")  # the spans list, second item (STAT5)
        assert screen.view.cursor == D1.index("STAT5")
        assert screen.active == "T2"
        assert app.focused is screen.view


@run_async
async def test_stale_version_reloads_and_says_so(url: str) -> None:
    app = app_for(url)
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await add_span(pilot, "pro")
        # The same set changes behind the app's back (another window of alice's, say).
        other = Corpus.open("demo", url=url, user="alice")
        cur = other.my_set("d1")
        other.edit_set(
            cur.info.id, [Put(Span("T9", "gene", ((11, 15),), "CD25"))], expected_version=cur.info.version
        )
        await press(pilot, "w", "w")
        await add_span(pilot, "chem")  # refused as stale: reloaded, the user is told
        messages = [n.message for n in app._notifications]
        assert any("not saved" in m and "changed elsewhere" in m for m in messages), messages
        screen = annotate_screen(app)
        assert [s.id for s in screen.session.annotations.spans] == ["T1", "T9"]  # type: ignore[union-attr]
        await add_span(pilot, "chem")  # and work goes on from the reloaded version
    assert [(s.id, s.type) for s in db_set(url).annotations.spans] == [("T1", "protein"), ("T9", "gene"),
                                                                      ("T10", "chemical")]  # fmt: skip


@run_async
async def test_document_label_with_one_key(sqlite_url: str) -> None:
    build_triage(sqlite_url)
    app = app_for(sqlite_url, project="triage", start="pmid1")
    async with app.run_test() as pilot:
        await settle(pilot)
        assert "1=DR" in screen_text(app)
        await press(pilot, "2")
        assert [
            (lb.name, lb.value) for lb in db_set(sqlite_url, doc="pmid1", project="triage").annotations.labels
        ] == [("relevance", "PR")]
        await press(pilot, "1")
        assert [lb.value for lb in db_set(sqlite_url, doc="pmid1", project="triage").annotations.labels] == [
            "DR"
        ]
        await press(pilot, "1")  # the same key again clears it
    assert db_set(sqlite_url, doc="pmid1", project="triage").annotations.labels == ()


@run_async
async def test_submit_lists_problems_then_submits(url: str) -> None:
    if not callable(getattr(Corpus, "submit", None)):
        pytest.skip("the workflow module (submit) is not in this build")
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await add_span(pilot, "pro")
        await press(pilot, "S")
        assert "Submit d1?" in screen_text(app)
        await press(pilot, "enter")
        assert "read-only" in screen_text(app)
        await press(pilot, "a")  # refused locally: nothing is sent
    saved = db_set(url)
    assert saved.info.status == "submitted" and len(saved.annotations.spans) == 1


@run_async
async def test_guideline_and_help_are_one_key_away(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(100, 80)) as pilot:
        await settle(pilot)
        await press(pilot, "G")
        text = screen_text(app)
        assert "Guidelines v1" in text and "BioRelEx" in text
        await press(pilot, "escape", "question_mark")
        text = screen_text(app)
        assert "Annotate" in text and "Next / previous word" in text
        await press(pilot, "escape")
        assert isinstance(app.screen, AnnotateScreen)


@run_async
async def test_mouse_click_moves_and_drag_selects(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        view = annotate_screen(app).view
        cd25 = D1.index("CD25") + view.margin  # the connector margin before the text
        await pilot.click("#text", offset=(1 + cd25, 0))  # one column of padding before the text
        assert view.cursor == cd25 - view.margin and view.selection is None
        await pilot.mouse_down("#text", offset=(1 + cd25, 0))
        await pilot.hover("#text", offset=(1 + cd25 + 3, 0))  # onto the 5: it is selected too
        await pilot.mouse_up("#text", offset=(1 + cd25 + 3, 0))
        assert view.selection == (cd25 - view.margin, cd25 - view.margin + 4)
        await add_span(pilot, "gene")
    assert [(s.type, s.text) for s in db_set(url).annotations.spans] == [("gene", "CD25")]


@run_async
async def test_the_guideline_is_shown_when_its_loading_ends(url: str) -> None:
    """The race behind test_guideline_and_help_are_one_key_away's intermittent failure (issue
    #10.15): the loading worker ended before the Markdown widget had mounted the text, so a reader
    who waited for the app's workers could still see an empty page."""
    from textual.widgets import Markdown

    from tui.screens.info import GuidelineScreen

    # A long text makes the parse (in a thread of its own) outlast the worker without the fix.
    text = " ".join(f"Rule {i}: a *strain* counts as a **Bacterium**." for i in range(3000))
    Corpus.open("demo", url=url).amend_guidelines(text=text, note="long")
    app = app_for(url)
    async with app.run_test(size=(100, 80)) as pilot:
        await settle(pilot)
        app.push_screen(GuidelineScreen())
        await pilot._wait_for_screen()
        await app.workers.wait_for_complete()
        md = app.screen.query_one("#guideline-text", Markdown)
        assert md.children, "the loading ended before the text was on the screen"


@run_async
async def test_an_action_shown_is_saved_when_the_app_ends_before_its_save(
    url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser tab closed right after an action (textual-serve's quit: Textual's ExitApp) saves it.
    Textual cancels workers at exit, so the save worker of the last action may never run: here it
    never does (``_save`` made a no-op), as on a loaded server; the span is on the screen, queued,
    and the app's end saves it (bench_serve found 2 of 20 spans shown and never saved)."""
    from textual import messages

    monkeypatch.setattr(AnnotateScreen, "_save", lambda self: None)
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await add_span(pilot, "pro")
        screen = annotate_screen(app)
        assert screen.session is not None and screen.session.dirty  # shown, not saved
        assert len(screen.session.annotations.spans) == 1
        assert db_set(url).annotations.spans == ()
        app.post_message(messages.ExitApp())  # what textual-serve's "quit" does
        await pilot.pause()
    saved = db_set(url)
    assert [(s.id, s.type, s.text) for s in saved.annotations.spans] == [("T1", "protein", "IL-2")]
