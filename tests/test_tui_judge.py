"""Relevance judging on its own screen (issue #25.9): the topic beside the text, one key per grade
that saves and opens the next unit, the list with topic and grade, progress per topic; keys sent
in bursts (no pause between them) are applied in order; a judge sees only their own judgments.

Fixture: tests/fixtures/trec (two topics in TREC 2004 Genomics form, eight abstracts, two runs;
pooled to depth 2: 7 units). No fixture of this repository uses real TREC Genomics data (none is in
../shared/data); the real-text case judges PubMed abstracts of the BioNLP-ST 2011 Gene Renaming
corpus from ../shared against the fixture's topics (skipped without ../shared).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from conftest import shared_path
from textual.widgets import DataTable

from corpusdb.api import Corpus
from corpusdb.basics.records import Document
from corpusdb.relevance.runs import read_run
from corpusdb.relevance.topics import read_topics
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.annotate import AnnotateScreen
from tui.screens.judge import JudgeScreen, by_topic
from tui.testing import key_event, press, run_async, screen_text, settle

TREC = Path(__file__).resolve().parent / "fixtures" / "trec"
Compare = Callable[..., bool]


def pooled(url: str, judges: tuple[str, ...] = ("alice",), double: float = 0.0) -> Corpus:
    c = Corpus.create("trec", "trec-relevance", url=url)
    for j in judges:
        c.add_annotator(j)
    c.import_texts(TREC / "docs")
    c.add_topics(read_topics(TREC / "topics.tsv"))
    for name in ("runA", "runB"):
        c.add_run(read_run(TREC / f"{name}.run"))
    c.pool(depth=2, seed=1, double=double)
    return c


async def burst(pilot: Any, *keys: str) -> None:
    """Send every key at once, as a fast typist or a paste into a browser terminal does (no pause,
    no settling between them), then let the app finish."""
    driver = pilot.app._driver
    for key in keys:
        event = key_event(key)
        event.set_sender(pilot.app)
        driver.send_message(event)
    await settle(pilot)
    await settle(pilot)


def beside_the_list(screen: str, anchor: str) -> str:
    """The screen right of the unit list (from the column ``anchor`` starts at), lines joined."""
    lines = screen.splitlines()
    col = next(line.index(anchor) for line in lines if anchor in line) - 3  # its border, padding
    return " ".join(" ".join(line[col:].replace("█", " ") for line in lines).split())


def graded(url: str, who: str = "alice") -> list[tuple[str, str | None]]:
    """The judge's units and grades as the store has them, in the screen's order (topic by topic,
    pool order within a topic)."""
    return [(j.unit, j.grade) for j in by_topic(Corpus.open("trec", url=url, user=who).judgments())]


@run_async
async def test_a_burst_of_grade_keys_judges_the_units_in_order(any_url: str) -> None:
    """Seven grade keys typed before the screen has even loaded: each saves one unit, in pool order."""
    pooled(any_url)
    units = [u for u, _ in graded(any_url)]
    app = build_app(open_facade(any_url, "trec", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await burst(pilot, "1", "2", "3", "d", "p", "n", "1")  # digits and the schema's keys
        assert isinstance(app.screen, JudgeScreen)
        assert graded(any_url) == list(zip(units, ["DR", "PR", "NR", "DR", "PR", "NR", "DR"], strict=True))
        text = screen_text(app)
        assert "all  7/7 judged" in text and "4/4" in text and "3/3" in text
        # a second burst revisits: up twice, then a grade: the unit two above the last is changed
        await burst(pilot, "up", "up", "3")
        assert graded(any_url)[4] == (units[4], "NR")
        assert [g for _, g in graded(any_url)] == ["DR", "PR", "NR", "DR", "NR", "NR", "DR"]


@run_async
async def test_grades_queued_when_the_app_ends_are_saved(
    any_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A browser tab closed right after three grades: the writer worker never ran (Textual cancels
    workers as the app ends; here it is a no-op), and the app's end saves them in order."""
    from textual import messages

    pooled(any_url)
    units = [u for u, _ in graded(any_url)]
    monkeypatch.setattr(JudgeScreen, "_save_all", lambda self: None)
    app = build_app(open_facade(any_url, "trec", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, JudgeScreen)
        await press(pilot, "1", "2", "3")
        assert [g for _, g in graded(any_url)] == [None] * len(units)  # shown, queued, not saved
        app.post_message(messages.ExitApp())
        await pilot.pause()
    assert graded(any_url)[:4] == [(units[0], "DR"), (units[1], "PR"), (units[2], "NR"), (units[3], None)]


@run_async
async def test_the_topic_is_beside_the_text_and_the_list_shows_topic_and_grade(sqlite_url: str) -> None:
    pooled(sqlite_url)
    units = by_topic(Corpus.open("trec", url=sqlite_url, user="alice").judgments())
    topics = {t.id: t for t in read_topics(TREC / "topics.tsv")}
    app = build_app(open_facade(sqlite_url, "trec", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen)
        for i, u in enumerate(units):  # every unit: its topic whole, its text, at 80x24
            t = topics[u.topic]
            right = beside_the_list(screen_text(app), f"Topic {u.topic}")
            assert t.title in right
            assert " ".join(t.need.split()) in right and " ".join(t.context.split()) in right
            assert (TREC / "docs" / f"{u.doc}.txt").read_text().split()[0] in right
            assert screen.current == i
            await press(pilot, "2")  # PR, then the next
        table = screen.query_one(DataTable)
        rows = [[str(c) for c in table.get_row_at(r)] for r in range(table.row_count)]
        assert rows == [[str(i + 1), u.topic, u.doc, "PR"] for i, u in enumerate(units)]
        text = screen_text(app)
        assert "runA" not in text and "runB" not in text  # never a run or a rank
        assert "1/d DR definitely relevant" in text  # the grade keys in sight


@run_async
async def test_a_judge_sees_only_their_own_judgments(any_url: str) -> None:
    """Every unit judged by both (double=1): bob's grades never reach alice's screen, and alice's
    grades leave bob's as they were."""
    pooled(any_url, ("alice", "bob"), double=1.0)
    bob = Corpus.open("trec", url=any_url, user="bob")
    for j in bob.judgments():
        bob.judge(j.topic, j.doc, "NR")
    app = build_app(open_facade(any_url, "trec", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        table = app.screen.query_one(DataTable)
        assert [str(table.get_row_at(r)[3]) for r in range(table.row_count)] == ["·"] * table.row_count
        assert "NR" not in screen_text(app).split("1/d")[0]  # no grade in the list, the text, the topic
        assert "bob" not in screen_text(app)
        await burst(pilot, *["1"] * table.row_count)
    assert {g for _, g in graded(any_url, "alice")} == {"DR"}
    assert {g for _, g in graded(any_url, "bob")} == {"NR"}


@run_async
async def test_a_unit_opens_on_the_judging_screen_and_its_passages_on_the_annotation_screen(
    sqlite_url: str,
) -> None:
    pooled(sqlite_url)
    unit = graded(sqlite_url)[3][0]
    app = build_app(open_facade(sqlite_url, "trec", "alice"), start=unit)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, JudgeScreen) and screen.current == 3
        await press(pilot, "enter")  # the annotation screen, to mark an Evidence passage
        assert isinstance(app.screen, AnnotateScreen)
        await press(pilot, "q")
        await settle(pilot)
        assert app.screen is screen
        await burst(pilot, "n")
    assert graded(sqlite_url)[3] == (unit, "NR")


@run_async
async def test_submit_a_topic_then_its_judgments_are_read_only(sqlite_url: str) -> None:
    pooled(sqlite_url)
    units = by_topic(Corpus.open("trec", url=sqlite_url, user="alice").judgments())
    app = build_app(open_facade(sqlite_url, "trec", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await burst(pilot, "1", "1", "1")  # units 1-3 graded
        await press(pilot, "up", "up", "up")  # back to unit 1
        topic = units[0].topic
        await press(pilot, "S")
        assert "Submit" in screen_text(app)
        await press(pilot, "enter")
        await settle(pilot)
        alice = Corpus.open("trec", url=sqlite_url, user="alice")
        submitted = {j.unit for j in alice.judgments() if j.status == "submitted"}
        assert submitted == {u.unit for u in units[:3] if u.topic == topic}
        assert f"✓{len(submitted)}" in screen_text(app)
        await burst(pilot, "3")  # unit 1 is submitted: refused, nothing changes
        assert graded(sqlite_url)[0] == (units[0].unit, "DR")


@run_async
async def test_judging_real_pubmed_abstracts_at_80x24(sqlite_url: str) -> None:
    """Real abstracts (BioNLP-ST 2011 Gene Renaming, PubMed) as the documents of a pool: longer
    than a screen, they scroll under the topic, which stays in sight; a burst judges them all."""
    folder = shared_path("data", "bionlp-st-2011-rename-train")
    texts = sorted(folder.glob("*.txt"))[:6]
    c = Corpus.create("trec", "trec-relevance", url=sqlite_url)
    c.add_annotator("alice")
    c.add_documents([Document(p.stem, p.read_text(encoding="utf-8")) for p in texts])
    c.add_topics(read_topics(TREC / "topics.tsv"))
    from corpusdb.relevance.records import RunLine

    c.add_run([RunLine("1", p.stem, i + 1, 10.0 - i, "real") for i, p in enumerate(texts)])
    c.pool(depth=6, seed=3)
    units = [u for u, _ in graded(sqlite_url)]
    assert len(units) == 6
    app = build_app(open_facade(sqlite_url, "trec", "alice"))
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        assert "Ferroportin-1 in humans" in screen_text(app)
        await burst(pilot, "3", "2", "3", "1", "3", "2")
        assert "Ferroportin-1 in humans" in screen_text(app)
    assert graded(sqlite_url) == list(zip(units, ["NR", "PR", "NR", "DR", "NR", "PR"], strict=True))


@pytest.mark.parametrize("size", [(80, 24), (160, 48)])
def test_snapshot_judging(snap_compare: Compare, sqlite_url: str, size: tuple[int, int]) -> None:
    """Three units graded: the list with topic and grade, progress per topic, the topic beside
    the text (above it at 80 columns, a column from 120)."""
    pooled(sqlite_url)

    async def judged(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "1", "3", "2")
        await settle(pilot)

    app = build_app(open_facade(sqlite_url, "trec", "alice"))
    assert snap_compare(app, run_before=judged, terminal_size=size)
