"""Suggestions in the TUI: drawn apart from the annotator's items, decided in one key, undone in one.

Real keystrokes (Pilot) on a real SQLite project (``tui.sample``: d1 mentions IL-2 three times),
checked in the database through the API. The keys: ``y`` accept, ``Y`` accept all of that name,
``X`` reject, ``]``/``[`` next/previous suggestion, ``u`` undo.
"""

from __future__ import annotations

from typing import Any

import pytest
from rich.color import ColorSystem

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample
from tui.screens.annotate import AnnotateScreen
from tui.screens.pickers import PickScreen
from tui.testing import press, run_async, screen_text, settle, type_text, wait_until

D1 = TEXTS["d1"]
IL2 = [i for i in range(len(D1)) if D1.startswith("IL-2", i)]


@pytest.fixture
def url(sqlite_url: str) -> str:
    owner = build_sample(sqlite_url)
    owner.add_recommender("names", "string")
    return sqlite_url


def app_for(url: str, user: str = "alice", start: str | None = "d1") -> CorpusApp:
    app = build_app(open_facade(url, "demo", user), start=start)
    app.facade.trained = []  # type: ignore[attr-defined]
    app.facade.train_in_background = lambda: app.facade.trained.append(1)  # type: ignore[attr-defined, method-assign]
    return app


def screen(app: CorpusApp) -> AnnotateScreen:
    assert isinstance(app.screen, AnnotateScreen), type(app.screen)
    return app.screen


def db(url: str, user: str = "alice") -> Corpus:
    return Corpus.open("demo", url=url, user=user)


def statuses(url: str) -> list[tuple[int, str]]:
    return [(s.start, s.status) for s in db(url).suggestions("d1", refresh=False)]


async def tag_first_il2(pilot: Any) -> AnnotateScreen:
    """alice tags the first IL-2 by hand: the other two become suggestions at once."""
    await press(pilot, "a")
    assert isinstance(pilot.app.screen, PickScreen)
    await type_text(pilot, "/pro")
    await press(pilot, "enter")
    scr = screen(pilot.app)
    await wait_until(pilot, lambda: len(scr.shown_suggestions()) == 2, "suggestions after tagging IL-2")
    return scr


@run_async
async def test_accept_with_y_shows_who_proposed_it_and_undo_takes_it_back(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        scr = await tag_first_il2(pilot)
        await press(pilot, "right_square_bracket")  # ] next suggestion: the second IL-2
        assert scr.view.cursor == IL2[1]
        text = screen_text(app)
        assert "suggested protein «IL-2» by names v0 (1.00) · y accept · X reject · Y all 2" in text
        assert "2 suggestion(s)" in text
        await press(pilot, "y")
        ann = db(url).my_set("d1").annotations
        made = [s for s in ann.spans if s.start == IL2[1]]
        assert len(made) == 1 and made[0].extra["suggestion"]["recommender"] == "names"
        assert "accepted from names v0 (score 1.00)" in screen_text(app)  # the item under the cursor
        assert (IL2[1], "accepted") in statuses(url)
        await press(pilot, "u")
        assert [s.start for s in db(url).my_set("d1").annotations.spans] == [IL2[0]]
        assert (IL2[1], "open") in statuses(url)
        assert len(scr.shown_suggestions()) == 2
        await press(pilot, "q")
    assert app.facade.trained == [1]  # type: ignore[attr-defined]  # closing after edits retrains in the background


@run_async
async def test_reject_with_X_is_not_proposed_again_and_undo_survives_a_restart(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await tag_first_il2(pilot)
        await press(pilot, "right_square_bracket", "X")
        assert (IL2[1], "rejected") in statuses(url)
        assert [s.start for s in screen(app).shown_suggestions()] == [IL2[2]]
    again = app_for(url)  # a new session: the rejected one stays away
    async with again.run_test() as pilot:
        await settle(pilot)
        scr = screen(again)
        await wait_until(pilot, lambda: [s.start for s in scr.shown_suggestions()] == [IL2[2]], "one left")
        await press(pilot, "u")  # the stored undo stack: the rejection is undone, after a restart
        await wait_until(pilot, lambda: len(scr.shown_suggestions()) == 2, "reopened")
    assert (IL2[1], "open") in statuses(url)


@run_async
async def test_accept_all_of_a_name_with_Y_is_one_undo_step(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        scr = await tag_first_il2(pilot)
        await press(pilot, "right_square_bracket", "Y")
        assert sorted(s.start for s in db(url).my_set("d1").annotations.spans) == IL2
        assert scr.shown_suggestions() == []
        hist = db(url).edit_history(db(url).my_set("d1").info.id)
        assert hist.undo[-1].description == "accept protein «IL-2» ×2 from names v0"
        await press(pilot, "u")
        assert [s.start for s in db(url).my_set("d1").annotations.spans] == [IL2[0]]
        assert sorted(st for _s, st in statuses(url)) == ["open", "open"]
        await press(pilot, "U")  # redo: both again
        assert sorted(s.start for s in db(url).my_set("d1").annotations.spans) == IL2


@run_async
async def test_suggestions_are_drawn_apart_from_items_even_in_16_colours(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        scr = await tag_first_il2(pilot)
        view = scr.view
        view.move_to(len(D1) - 1)  # the cursor away from the cells looked at (on the last full stop)
        await settle(pilot)

        def style_at(offset: int) -> Any:
            line = view.layout_lines.line_of(offset)
            x = view.layout_lines.x_of(offset)
            strip = view.render_line(line - round(view.scroll_y))
            cells = 0
            for seg in strip:
                if cells <= x < cells + len(seg.text):
                    return seg.style
                cells += len(seg.text)
            raise AssertionError(offset)

        item, suggested, plain = style_at(IL2[0] + 3), style_at(IL2[1] + 1), style_at(IL2[1] - 2)
        colour = app.facade.schema.colors()["protein"]
        assert item.bgcolor.name == colour  # the annotator's item: its type's colour as background
        assert suggested.bgcolor == plain.bgcolor  # a suggestion: the text's own background...
        assert suggested.color.name == colour and suggested.underline and suggested.italic and suggested.bold
        assert not (plain.underline or plain.italic) and plain.color != suggested.color
        for system in (
            ColorSystem.STANDARD,
            ColorSystem.EIGHT_BIT,
        ):  # ...and still so in 16 (and 256) colours
            fg, bg = suggested.color.downgrade(system), item.bgcolor.downgrade(system)
            assert fg.number == bg.number and fg.number not in (0, 7, 15)  # the type's colour, not plain text


@run_async
async def test_the_document_list_says_pre_annotated_or_suggestions(sqlite_url: str) -> None:
    owner = build_sample(sqlite_url)
    owner.add_annotator("tagger", "system")
    owner.add_annotator("dora")
    owner.add_documents([Document("d4", TEXTS["d2"]), Document("d5", TEXTS["d3"])])
    for d in ("d4", "d5"):
        t = owner.document(d).text
        owner.create_set(d, "tagger", kind="prediction", status="submitted",
                         annotations=Annotations(spans=(Span("T1", "protein", ((4, 7),), t[4:7]),)))  # fmt: skip
    owner.assign(["d4"], ["dora"], seed_from="tagger")
    owner.assign(["d5"], ["dora"], seed_from="tagger", as_suggestions=True)
    app = build_app(open_facade(sqlite_url, "demo", "dora"), start=None)
    async with app.run_test(size=(100, 24)) as pilot:
        await settle(pilot)
        text = screen_text(app)
        row4 = next(line for line in text.splitlines() if "d4" in line)
        row5 = next(line for line in text.splitlines() if "d5" in line)
        assert "pre-annotated" in row4 and "suggestions" not in row4
        assert "1 suggestions" in row5 and "pre-annotated" not in row5
        await press(pilot, "down", "enter")  # d5
        assert "1 suggestion(s)" in screen_text(app)
        assert db(sqlite_url, "dora").my_set("d5").annotations.spans == ()


@run_async
async def test_alice_never_sees_bobs_unadjudicated_name_in_the_tui(sqlite_url: str) -> None:
    owner = build_sample(sqlite_url)
    text = "Zorblaxin and IL-2 bind."
    owner.add_documents([Document("d4", text), Document("d5", "IL-2 needs Zorblaxin here.")])
    owner.assign(["d4", "d5"], ["alice", "bob"])
    bob = owner.as_user("bob")
    s = bob.my_set("d4").info
    from corpusdb.services.edits import Put

    bob.edit_set(s.id, [Put(Span("T1", "protein", ((0, 9),), "Zorblaxin"))], expected_version=s.version)
    owner.add_recommender("names", "string")
    owner.train_recommender()
    owner.train_recommender(annotator="alice")
    app = app_for(sqlite_url, start="d5")
    async with app.run_test() as pilot:
        await settle(pilot)
        scr = screen(app)
        await pilot.pause(0.2)
        await settle(pilot)
        assert "Zorblaxin" not in {x.text for x in scr.session.suggestions}  # type: ignore[union-attr]
        assert "suggested" not in screen_text(app)


@run_async
async def test_help_lists_the_suggestion_keys(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        rows = dict(screen(app).help_sections())
        keys = {k: d for k, d in rows["Annotating (every action is saved at once)"]}
        assert keys["y"] == "Accept the suggestion under the cursor"
        assert keys["Y"].startswith("Accept every suggestion of that name")
        assert keys["X"].startswith("Reject the suggestion")
        assert any("suggestion" in d.lower() for k, d in keys.items() if "]" in k)
        assert "Suggestions (y Y X ] [ above; u undoes)" in rows


def test_snapshot_suggestions_at_80x24(snap_compare: Any, url: str) -> None:
    """The annotate screen with alice's IL-2 and its other two occurrences suggested, the cursor on
    the second: underlined, bold, italic blue text, and the status line naming the recommender."""
    from corpusdb.services.edits import Put

    alice = db(url)
    cur = alice.my_set("d1").info
    alice.edit_set(cur.id, [Put(Span("T1", "protein", ((0, 4),), "IL-2"))], expected_version=cur.version)

    async def run_before(pilot: Any) -> None:
        await settle(pilot)
        scr = screen(pilot.app)
        await wait_until(pilot, lambda: len(scr.shown_suggestions()) == 2, "suggestions")
        await press(pilot, "right_square_bracket")

    assert snap_compare(app_for(url), run_before=run_before)


def _put(url: str, doc: str, needle: str, user: str = "alice") -> None:
    from corpusdb.services.edits import Put

    who = db(url, user)
    cur = who.my_set(doc).info
    text = who.document(doc).text
    start = text.index(needle)
    span = Span("T1", "protein", ((start, start + len(needle)),), needle)
    who.edit_set(cur.id, [Put(span)], expected_version=cur.version)


@run_async
async def test_a_recommender_added_after_the_tui_started_proposes_in_the_open_document(
    sqlite_url: str,
) -> None:
    """No recommender when alice opens d1 (her IL-2 tagged): the lead adds one while she works, and
    its suggestions appear in the open document at the next check, without reopening it."""
    owner = build_sample(sqlite_url)
    _put(sqlite_url, "d1", "IL-2")
    app = app_for(sqlite_url)
    app.facade.suggestion_poll = 0.2  # type: ignore[attr-defined]
    async with app.run_test() as pilot:
        await settle(pilot)
        scr = screen(app)
        await pilot.pause(0.5)
        assert scr.shown_suggestions() == [] and not app.facade.has_recommenders()
        owner.add_recommender("names", "string")  # the lead, elsewhere
        await wait_until(
            pilot, lambda: len(scr.shown_suggestions()) == 2, "suggestions of the new recommender"
        )
        await press(pilot, "right_square_bracket")
        assert "suggested protein «IL-2» by names v0" in screen_text(app)


@run_async
async def test_a_model_retrained_after_the_tui_started_is_used_in_the_open_document(sqlite_url: str) -> None:
    """alice's own part is retrained (here by the owner; the TUI does it in the background on close)
    after she opened d1: the names it learned from her d2 are proposed in d1 at the next check."""
    owner = build_sample(sqlite_url)
    owner.add_recommender("names", "string")
    _put(sqlite_url, "d2", "Raf-1")  # alice's own d2: the name her own part will learn
    owner.add_documents([Document("d4", "Raf-1 and MEK1 again: Raf-1 binds.")])
    owner.create_set("d4", "alice")
    app = app_for(sqlite_url, start="d4")
    app.facade.suggestion_poll = 0.2  # type: ignore[attr-defined]
    async with app.run_test() as pilot:
        await settle(pilot)
        scr = screen(app)
        await pilot.pause(0.5)
        assert scr.shown_suggestions() == []  # no model has Raf-1 yet
        owner.train_recommender(annotator="alice")
        await wait_until(
            pilot, lambda: len(scr.shown_suggestions()) == 2, "suggestions of the retrained model"
        )
        assert {x.text for x in scr.shown_suggestions()} == {"Raf-1"}
