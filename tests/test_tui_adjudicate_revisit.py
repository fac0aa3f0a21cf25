"""Adjudication, issue #25.8: a decided line shows the version decided; }/{ visit decided conflicts
(to revise) as n/p visit open ones; the conflict list wraps at word boundaries at 80 columns; a
toast never covers a dialog; `d` shows the item's decision history as `corpusdb decisions` prints
it. Keys are sent in bursts (no pause between them); what was saved is read back from the store.

Fixtures: the demo sample (``tui.sample``, d1: IL-2 and CD25 alice only, a second IL-2 bob only,
two relations waiting on them) and a real Bacteria Biotope 2011 document from ../shared (two
annotators built from its .a2 file: one has every span, the other every second one).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path
from textual.widgets import DataTable, OptionList
from typer.testing import CliRunner

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document
from corpusdb.cli.main import app as cli
from importers.standoff.reader import read_directory
from tui.adjudication import conflict_label, wrap_label
from tui.app import build_app
from tui.facade import open_facade
from tui.sample import build_sample
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.decisions import DecisionsScreen
from tui.testing import key_event, press, run_async, screen_text, settle


@pytest.fixture
def ready_url(any_url: str) -> str:
    """d1 submitted by alice and bob (SQLite, and PostgreSQL when a server answers)."""
    build_sample(any_url, submitted=True)
    return any_url


async def burst(pilot: Any, *keys: str) -> None:
    """Every key at once (a fast typist, a paste into a browser terminal), then let the app finish."""
    driver = pilot.app._driver
    for key in keys:
        event = key_event(key)
        event.set_sender(pilot.app)
        driver.send_message(event)
    await settle(pilot)
    await settle(pilot)


async def opened(pilot: Any, document: str = "d1") -> AdjudicateScreen:
    await settle(pilot)
    pilot.app.open_adjudication(document)
    await settle(pilot)
    screen = pilot.app.screen
    assert isinstance(screen, AdjudicateScreen)
    return screen


def lines(screen: AdjudicateScreen) -> list[str]:
    ol = screen.query_one("#conflicts", OptionList)
    return [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]


def in_force(url: str, document: str = "d1") -> dict[str, Any]:
    """Decisions in force on gold, by the item's source span text (refusals included)."""
    carol = Corpus.open("demo", url=url, user="carol")
    return {d.id: d for d in carol.decisions(document) if d.in_force}


def assert_a_then_neither_in_gold(url: str) -> None:
    """Gold after ``1 0`` on d1: IL-2 0-4 taken from A, CD25 from neither, both adjudicated."""
    carol = Corpus.open("demo", url=url, user="carol")
    gold = carol.gold("d1").annotations
    assert [
        (s.text, s.fragments) for s in gold.spans if s.type == "protein" and s.text in ("IL-2", "CD25")
    ] == [("IL-2", ((0, 4),))]
    methods = [(d.item_id != "", d.method) for d in carol.decisions("d1") if d.method != "unanimous"]
    assert methods == [(True, "adjudicated"), (False, "adjudicated")]


@run_async
async def test_a_burst_decides_in_order_and_decided_lines_show_the_version_taken(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        await burst(pilot, "1", "0")  # IL-2 0-4: A's; CD25: neither
        shown = lines(screen)
        assert shown[0].startswith("✓A span protein 0-4") and shown[1].startswith("✓- span protein 11-15")
        assert shown[2].startswith("● span protein 109-113")
        assert_a_then_neither_in_gold(ready_url)
        # B on the bob-only IL-2 at 109: the line says B
        await burst(pilot, "2")
        assert lines(screen)[2].startswith("✓B span protein 109-113")


@run_async
async def test_decisions_queued_when_the_app_ends_are_saved(
    ready_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser tab closed right after two decisions (textual-serve's quit: Textual's ExitApp): the
    writer worker never ran (Textual cancels workers as the app ends; here it is a no-op), and the
    app's end saves them in order, as the writer would have."""
    from textual import messages

    monkeypatch.setattr(AdjudicateScreen, "_write_decisions", lambda self: None)
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        driver = pilot.app._driver
        for key in ("1", "0"):  # IL-2 0-4: A's; CD25: neither
            event = key_event(key)
            event.set_sender(pilot.app)
            driver.send_message(event)
        await pilot.pause()
        assert len(screen._queue) == 2  # shown decided, queued, not saved
        carol = Corpus.open("demo", url=ready_url, user="carol")
        assert not any(d.method == "adjudicated" for d in carol.decisions("d1"))
        app.post_message(messages.ExitApp())
        await pilot.pause()
    assert_a_then_neither_in_gold(ready_url)


@run_async
async def test_a_revision_typed_while_the_writer_reads_the_store_again_is_saved(ready_url: str) -> None:
    """A busy machine: the writer has saved "take A" and is still reading the store again when the
    adjudicator goes back and takes neither. The second writer must build on the version the first
    one left, not on the older one on screen (it was refused as stale: the revision was lost)."""
    import threading
    import time

    facade = open_facade(ready_url, "demo", "carol")
    slow = threading.Event()
    reload = facade.reload_adjudication

    def slow_reload(document: str) -> Any:
        if slow.is_set():
            time.sleep(0.6)  # the window: saved, not yet shown
        return reload(document)

    facade.reload_adjudication = slow_reload  # type: ignore[method-assign]
    app = build_app(facade)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        slow.set()
        send(pilot, "1")  # take A on IL-2 at 0-4; the writer saves it, then reads slowly
        for _ in range(200):
            await pilot.pause(0.02)
            if len(carol_decided(ready_url)) == 1:
                break
        assert any(w.group == "decide" and not w.is_finished for w in app.workers)  # in the window
        send(pilot, "left_curly_bracket", "0")  # back to it at once: neither
        await pilot.pause(0.2)
        slow.clear()
        await settle(pilot)
        await settle(pilot)
        assert lines(screen)[0].startswith("✓- span protein 0-4")
        carol = Corpus.open("demo", url=ready_url, user="carol")
        assert not any(s.fragments == ((0, 4),) for s in carol.gold("d1").annotations.spans)
        assert [d.superseded_by is not None for d in carol.decisions("d1") if d.method != "unanimous"] == [
            True,
            False,
        ]


def send(pilot: Any, *keys: str) -> None:
    """Keys through the driver, without waiting for anything they start."""
    for key in keys:
        event = key_event(key)
        event.set_sender(pilot.app)
        pilot.app._driver.send_message(event)


def carol_decided(url: str) -> list[Any]:
    return [d for d in Corpus.open("demo", url=url, user="carol").decisions("d1") if d.method != "unanimous"]


@run_async
async def test_curly_brackets_visit_decided_conflicts_to_revise_them(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        # decide two, go back over the open one to the first decided (IL-2), take neither instead
        await burst(pilot, "1", "0", "left_curly_bracket", "left_curly_bracket", "0")
        assert lines(screen)[0].startswith("✓- span protein 0-4")
        carol = Corpus.open("demo", url=ready_url, user="carol")
        revised = [d for d in carol.decisions("d1") if d.superseded_by is not None]
        assert len(revised) == 1 and revised[0].item_id  # A's IL-2, revised by the refusal
        assert not any(s.fragments == ((0, 4),) for s in carol.gold("d1").annotations.spans)
        # after a decision the next open one; } (wrapping round) the decided ones; n/p only open ones
        assert screen._current().key == "span:109-113"
        await burst(pilot, "right_curly_bracket")
        assert screen._current().key == "span:0-4"
        await burst(pilot, "right_curly_bracket")
        assert screen._current().key == "span:11-15"
        await burst(pilot, "n")
        assert screen._current().key == "span:109-113"


@run_async
async def test_undo_typed_in_the_same_burst_waits_for_the_decision(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot)
        await burst(pilot, "1", "up", "u")  # take A on IL-2, back to it, undo: open again
        assert lines(screen)[0].startswith("● span protein 0-4")
        carol = Corpus.open("demo", url=ready_url, user="carol")
        methods = [d.method for d in carol.decisions("d1") if d.method != "unanimous"]
        assert methods == ["adjudicated", "undone"]
        assert not any(s.fragments == ((0, 4),) for s in carol.gold("d1").annotations.spans)


@run_async
async def test_d_shows_the_items_history_as_the_cli_prints_it(ready_url: str) -> None:
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test(size=(80, 24)) as pilot:
        await opened(pilot)
        # take A on IL-2, neither on CD25, back to IL-2 and revise to neither, back again, history
        keys = ("1", "0", "left_curly_bracket", "left_curly_bracket", "0")
        await burst(pilot, *keys, "left_curly_bracket", "left_curly_bracket", "d")
        dialog = app.screen
        assert isinstance(dialog, DecisionsScreen)
        table = dialog.query_one(DataTable)
        rows = ["\t".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count)]
        assert len(rows) == 2
        # the same rows as `corpusdb decisions d1` prints (and only this item's)
        out = CliRunner().invoke(
            cli, ["--db", ready_url, "--project", "demo", "--as", "carol", "decisions", "d1"]
        )
        assert out.exit_code == 0, out.output
        cli_rows = out.output.splitlines()[1:-1]
        assert all(r in cli_rows for r in rows)
        assert "span T" in rows[0] and "→" in rows[0] and "(refused)" in rows[1] and "in force" in rows[1]
        assert len(cli_rows) > len(rows)  # the CLI lists every item; the dialog this one
        await press(pilot, "escape")
        assert isinstance(app.screen, AdjudicateScreen)


@run_async
async def test_a_toast_never_covers_a_dialog(ready_url: str) -> None:
    """Toasts on (run_test hides them by default): a decision's message and one raised while the
    history dialog is open never paint over it; the latter waits and shows once it closes."""
    app = build_app(open_facade(ready_url, "demo", "carol"))
    async with app.run_test(size=(80, 24), notifications=True) as pilot:
        await opened(pilot)
        await burst(pilot, "1", "up", "d")  # take A, back to it, its history
        dialog = app.screen
        assert isinstance(dialog, DecisionsScreen)
        # (shown for the rest of its time once the dialog closes: a minute, so a busy machine's
        # slow settle cannot outlast it)
        app.notify("a message raised while the dialog is open, long enough to cover its middle", timeout=60)
        await settle(pilot)
        text = screen_text(app)
        box = dialog.query_one("#decisions-dialog").region
        rows = text.splitlines()
        inside = " ".join(r[box.x + 1 : box.right - 1] for r in rows[box.y : box.bottom])
        outside = " ".join(r[: box.x] + r[box.right :] for r in rows) + " ".join(
            rows[: box.y] + rows[box.bottom :]
        )
        assert all(r[box.x] in "╭│╰" and r[box.right - 1] in "╮│╯" for r in rows[box.y : box.bottom])  # whole
        assert "Decisions on span:0-4" in inside and "total: 1 decision(s)" in inside
        assert "raised while the dialog" in " ".join(inside.split())  # on the dialog's own line
        assert "raised while" not in outside  # no toast of it beside or over the dialog
        # the decision's toast, raised before the dialog opened, stays on the screen below it
        assert all(not box.y <= y < box.bottom for y, r in enumerate(rows) if "took A" in r)
        await press(pilot, "escape")
        await settle(pilot)
        assert "raised while the dialog" in " ".join(screen_text(app).split())  # its toast, now


@pytest.mark.shared
@run_async
async def test_the_conflict_list_wraps_at_word_boundaries_at_80_columns(
    sqlite_url: str, tmp_path: Path
) -> None:
    """A real BB 2011 document: every line of the list at 80 columns breaks between words, and
    continuation lines are indented under the text."""
    folder = shared_path("data", "bionlp-st-2011-bb-train")
    for name in ("BTID-10080.txt", "BTID-10080.a2"):
        shutil.copy(folder / name, tmp_path / name)
    (parsed,) = read_directory(tmp_path)
    text, full = parsed.document.text, parsed.annotations
    owner = Corpus.create("demo", "bb-2011", url=sqlite_url)
    for name, role in (("alice", "annotator"), ("bob", "annotator"), ("carol", "adjudicator")):
        owner.add_annotator(name, role)
    owner.add_documents([Document("bb", text)])
    owner.create_set("bb", "alice", annotations=Annotations(spans=full.spans), status="submitted")
    owner.create_set("bb", "bob", annotations=Annotations(spans=full.spans[::2]), status="submitted")
    app = build_app(open_facade(sqlite_url, "demo", "carol"))
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await opened(pilot, "bb")
        ol = screen.query_one("#conflicts", OptionList)
        width = ol.scrollable_content_region.width - 1
        assert screen.shown, "the BB document has conflicts"
        for i, c in enumerate(screen.shown):
            label = conflict_label(c, screen.adj.sources).plain
            prompt = str(ol.get_option_at_index(i).prompt)
            rows = prompt.split("\n")
            assert all(len(r) <= width for r in rows)
            assert all(r.startswith("  ") for r in rows[1:])
            assert " ".join(r.strip() for r in rows) == " ".join(label.split())  # no word cut
        long = [p for p in lines(screen) if "\n" in p]
        assert long, "some line is longer than the list is wide"


def test_snapshot_decided_lines(snap_compare: Any, sqlite_url: str) -> None:
    """80x24 after `1 0` in a burst: ✓A and ✓- (struck through) on the decided lines, the highlight
    on the next open conflict, the lines wrapped at words with continuation lines indented."""

    async def decided(pilot: Any) -> None:
        await opened(pilot)
        await burst(pilot, "1", "0")
        pilot.app.clear_notifications()  # their toasts expire on a clock: not part of the picture
        await settle(pilot)

    build_sample(sqlite_url, submitted=True)
    app = build_app(open_facade(sqlite_url, "demo", "carol"))
    assert snap_compare(app, run_before=decided, terminal_size=(80, 24))


def test_wrap_label_cuts_only_words_longer_than_a_line() -> None:
    from rich.text import Text

    t = Text("● relation bind(Arg1:STAT5, Arg2:IL-2) label=1 · presence")
    assert wrap_label(t, 28).plain == "● relation bind(Arg1:STAT5,\n  Arg2:IL-2) label=1 ·\n  presence"
    assert wrap_label(Text("x " + "y" * 30), 12).plain.split("\n")[1:] == ["  yyyyyyyyyy"] * 3
    assert wrap_label(t, 200) is t
