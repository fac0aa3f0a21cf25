"""The TUI on entities: relations between clusters show the clusters' names, the status line says
which entity a mention belongs to, and a disputed cluster is one conflict an adjudicator takes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from textual.widgets import OptionList

from corpusdb.api import Corpus
from tests.test_agreement_entities import RAW
from tests.test_tui_annotate import annotate_screen
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.testing import run_async, screen_text, settle


def _project(url: str, tmp_path: Path, bob: list | None = None) -> Corpus:  # type: ignore[type-arg]
    corpus = Corpus.create("bx", "biorelex-1.0", url=url)
    for name, data in (("alice", RAW), ("bob", bob)):
        if data is None:
            continue
        path = tmp_path / f"{name}.json"
        path.write_text(json.dumps(data, indent=1))
        corpus.import_biorelex(path, name, status="in_progress" if bob is None else "submitted")
    return corpus


@run_async
async def test_annotator_sees_relations_between_entities(sqlite_url: str, tmp_path: Path) -> None:
    _project(sqlite_url, tmp_path)
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        rels = screen.query_one("#relations", OptionList)
        first = str(rels.get_option_at_index(0).prompt)
        # the relation-centred list: head line, then each end with its role and its names
        assert first == "R1 bind +\n ● Arg1: C2 {Activin|activin}\n ↔ Arg2: C1 {ActRIIB|IIB}"
        text = RAW[0]["text"]
        screen.view.move_to(text.index("IIB"))
        await settle(pilot)
        shown = screen_text(app)
        assert "entity C1 (3 names/mentions)" in shown and "2 rel" in shown and "4 entities" in shown


@run_async
async def test_adjudicator_takes_one_version_of_a_disputed_cluster(sqlite_url: str, tmp_path: Path) -> None:
    bob = copy.deepcopy(RAW)
    del bob[0]["entities"][3]["names"]["ACVR1B"]  # bob leaves the unmentioned name out of ALK4's cluster
    corpus = _project(sqlite_url, tmp_path, bob)
    corpus.add_annotator("carol", role="adjudicator")
    app = build_app(open_facade(sqlite_url, "bx", "carol"), start=None)
    async with app.run_test() as pilot:
        await settle(pilot)
        app.open_adjudication("entities.0")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        shown = screen_text(app)
        # the unmentioned name itself, and its cluster's membership: two conflicts, not one per edge
        assert "span protein no mention" in shown and "'ACVR1B'" in shown
        assert (
            "entity protein {ACVR1B" in shown and "(no mention), ALK4@57-61," in shown and "members" in shown
        )
        assert "Arg2:{ACVR1B|ALK4})" in shown  # a relation on the cluster waits for it (⊘ blocked)
        assert "2 open" in str(screen.sub_title)
    carol = Corpus.open("bx", url=sqlite_url, user="carol")
    [dc] = carol.conflicts("entities.0")
    assert sorted(c.key for c in dc.conflicts) == ["entity:span:57-61", "span:name=ACVR1B"]
    carol.resolve("entities.0", "span:name=ACVR1B", take="alice")
    carol.resolve("entities.0", "entity:span:57-61", take="alice")
    gold = carol.gold("entities.0").annotations
    alk4 = next(e for e in gold.entities if any(gold.span(m).text == "ACVR1B" for m in e.members))
    assert len(alk4.members) == 3 and len(gold.relations) == 4
