"""Judging in the TUI: a pooled unit opens on the judging screen, its topic in full beside the text,
and one key per grade saves the judgment; on the annotation screen (``o``, to mark passages) the
topic's title is in the header and ``T`` shows all of it; nothing on screen names a run or a rank.
The judging screen itself: tests/test_tui_judge.py."""

from __future__ import annotations

from pathlib import Path

from corpusdb.api import Corpus
from corpusdb.relevance.runs import read_run
from corpusdb.relevance.topics import read_topics
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.annotate import AnnotateScreen
from tui.screens.judge import JudgeScreen
from tui.testing import press, run_async, screen_text, settle

TREC = Path(__file__).resolve().parent / "fixtures" / "trec"


def pooled(url: str) -> str:
    """A judging project pooled for alice alone; returns her first unit."""
    c = Corpus.create("trec", "trec-relevance", url=url)
    c.add_annotator("alice")
    c.import_texts(TREC / "docs")
    c.add_topics(read_topics(TREC / "topics.tsv"))
    for name in ("runA", "runB"):
        c.add_run(read_run(TREC / f"{name}.run"))
    c.pool(depth=2, seed=1)
    return c.as_user("alice").judgments()[0].unit


@run_async
async def test_judge_a_pooled_unit_with_one_key(sqlite_url: str) -> None:
    unit = pooled(sqlite_url)
    topic = unit.split("+")[0]
    title = {"1": "Ferroportin-1 in humans", "2": "Generating transgenic mice"}[topic]
    app = build_app(open_facade(sqlite_url, "trec", "alice"), start=unit)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, JudgeScreen)
        text = screen_text(app)
        assert f"Topic {topic}" in text and title in text and "1/d DR" in text
        assert ("iron transporter" if topic == "1" else "protocols for generating") in text
        assert "runA" not in text and "runB" not in text
        await press(pilot, "enter")  # the annotation screen, for passages: the topic in its title, T
        assert isinstance(app.screen, AnnotateScreen)
        assert f"topic {topic}: {title}" in screen_text(app)
        await press(pilot, "T")
        assert ("iron transporter" if topic == "1" else "protocols for generating") in screen_text(app)
        await press(pilot, "escape", "q")
        assert isinstance(app.screen, JudgeScreen)
        await press(pilot, "2")
    alice = Corpus.open("trec", url=sqlite_url, user="alice")
    assert [(j.unit, j.grade) for j in alice.judgments() if j.unit == unit] == [(unit, "PR")]
