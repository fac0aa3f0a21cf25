"""Derived relations in the TUI (issue 28): the submit check lists what the schema's rules derive
from the set, and the adjudication screen shows them apart from the conflicts, marked with their
rule, never as a conflict to decide.

Real data: the GI 2011 sentence PMID-10383978-S8 (../shared); bob annotates its two Interactions,
alice leaves them to the rule (``gi-bind-promoter``: BindTo + PromoterOf imply Interaction).
"""

from __future__ import annotations

from dataclasses import replace

import pytest
from conftest import shared_path
from textual.widgets import OptionList, Static

from corpusdb.api import Corpus
from corpusdb.basics.records import Document
from importers.standoff import read_document
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.testing import press, run_async, screen_text, settle

DOC = "PMID-10383978-S8"


@pytest.fixture
def gi_url(sqlite_url: str) -> str:
    src = shared_path("data", "bionlp-st-2011-bi-train")
    parsed = read_document(src / f"{DOC}.txt", keep_unknown=True)
    owner = Corpus.create("gi", "gi-2011", url=sqlite_url)
    for who in ("alice", "bob"):
        owner.add_annotator(who)
    owner.add_annotator("judy", "adjudicator")
    owner.add_documents([Document(DOC, parsed.document.text)])
    full = parsed.annotations
    left = replace(full, relations=tuple(r for r in full.relations if r.id not in ("E7", "E8")))
    owner.create_set(DOC, "alice", annotations=left)
    owner.create_set(DOC, "bob", annotations=full)
    return sqlite_url


@run_async
async def test_the_submit_check_lists_the_derived_relations_apart(gi_url: str) -> None:
    app = build_app(open_facade(gi_url, "gi", "alice"), start=DOC)
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "S")
        text = screen_text(app)
        assert "Derived by the schema's rules (not items of the set): 2" in text, text
        assert "Interaction Agent:T5 Target:T1 (derived by gi-bind-promoter from" in text
        assert "Interaction Agent:T5 Target:T3 (derived by gi-bind-promoter from" in text
        await press(pilot, "enter")  # submitted as usual: the derived relations are not stored
    c = Corpus.open("gi", url=gi_url, user="alice")
    s = c.my_set(DOC)
    assert s.info.status == "submitted"
    assert len(s.annotations.relations) == len(
        read_document(
            shared_path("data", "bionlp-st-2011-bi-train") / f"{DOC}.txt", keep_unknown=True
        ).annotations.relations
    ) - 2 and not any(r.extra.get("derived") for r in s.annotations.relations)


@run_async
async def test_the_adjudication_screen_shows_derived_relations_apart_never_as_conflicts(gi_url: str) -> None:
    owner = Corpus.open("gi", url=gi_url)
    for who in ("alice", "bob"):
        u = owner.as_user(who)
        u.submit(u.my_set(DOC).info.id)
    app = build_app(open_facade(gi_url, "gi", "judy"))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.open_adjudication(DOC)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        derived = screen.query_one("#derived", Static)
        assert derived.display
        shown = str(derived.render())
        # the agreed BindTo and PromoterOf are merged into gold on opening: gold's rule gives both
        assert "derived by the schema's rules (not conflicts): A=alice 2 · B=bob 0 · gold 2" in shown, shown
        assert "gold D1 Interaction Agent:T5 Target:T1 (derived by gi-bind-promoter from" in shown
        assert "gold D2 Interaction Agent:T5 Target:T3 (derived by gi-bind-promoter from" in shown
        ol = screen.query_one("#conflicts", OptionList)
        prompts = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
        assert not any("derived" in p for p in prompts)  # never a conflict of its own
        assert len([p for p in prompts if "Interaction" in p]) == 2  # bob's two, annotated by him only
        assert "derived by the schema's rules" in screen_text(app)
        # judy takes bob's two Interactions: annotated in gold now, so gold's rule derives nothing
        for _ in range(2):
            ol.highlighted = next(
                i for i, p in enumerate(prompts) if "Interaction" in p and not p.startswith("✓")
            )
            await press(pilot, "2")
            prompts = [str(ol.get_option_at_index(i).prompt) for i in range(ol.option_count)]
        await settle(pilot)
        shown = str(derived.render())
        assert "A=alice 2 · B=bob 0 · gold 0" in shown and "gold D1" not in shown, shown
