"""The TUI on entities: relations between clusters show the clusters' names, the status line says
which entity a mention belongs to, and a disputed cluster is one conflict an adjudicator takes."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from textual.widgets import OptionList

from corpusdb.api import Corpus
from corpusdb.basics.records import Entity
from importers.biorelex import read_biorelex
from tests.test_agreement_entities import RAW
from tests.test_tui_annotate import add_span, annotate_screen
from tui import clusters as cl
from tui.app import build_app
from tui.commands import AnnotationCommands
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.base import binding_rows
from tui.screens.gold_edit import GoldEditScreen
from tui.screens.pickers import MessageScreen, PickScreen
from tui.testing import press, run_async, screen_text, settle, type_text, wait_until
from tui.widgets.docview import DocumentView


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
        # the side lists are filled after the text's first paint: on a loaded machine after the settle
        await wait_until(pilot, lambda: rels.option_count > 0, "the relations list filled")
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
        ol = screen.query_one("#conflicts", OptionList)  # its lines, unwrapped (they wrap at words)
        shown = " ".join(
            " ".join(str(ol.get_option_at_index(i).prompt).split()) for i in range(ol.option_count)
        )
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


def _alice(url: str, doc: str = "entities.0"):  # type: ignore[no-untyped-def]
    return Corpus.open("bx", url=url, user="alice").my_set(doc).annotations


def _members(ann) -> dict[str, tuple[str, ...]]:  # type: ignore[no-untyped-def]
    return {e.id: e.members for e in ann.entities}


@run_async
async def test_move_a_mention_refuse_an_emptied_entity_undo_and_export(
    sqlite_url: str, tmp_path: Path
) -> None:
    """c on a member: move it to another entity (one action, undone exactly); leaving an entity a
    relation points at is refused; the export puts the mention in its new cluster only."""
    _project(sqlite_url, tmp_path)
    before = _alice(sqlite_url)
    text = RAW[0]["text"]
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        screen.view.move_to(text.index("ALK4", 60))  # T8, the second ALK4 (C4)
        await settle(pilot)
        await press(pilot, "c")
        assert isinstance(app.screen, PickScreen) and "T8 protein «ALK4» is in C4" in screen_text(app)
        await type_text(pilot, "c1")  # filter: "move to C1 protein {ActRIIB|IIB}"
        await press(pilot, "enter")
        ann = _alice(sqlite_url)
        assert _members(ann) == {**_members(before), "C1": ("T1", "T2", "T3", "T8"), "C4": ("T7", "T9")}
        assert "cluster" not in ann.span("T8").extra  # no longer tied to its read-in cluster
        assert screen._current_list() == "entities" and "C1" in screen_text(app)
        screen.view.move_to(text.index("complex") + 1)  # T6, the only member of C3, which R3 joins
        await settle(pilot)
        await press(pilot, "c", "enter")  # the first choice: leave C3
        assert any("not done" in n.message and "R3" in n.message for n in app._notifications)
        assert _members(_alice(sqlite_url)) == _members(ann)  # refused: nothing written
        await press(pilot, "u")
        assert _alice(sqlite_url) == before  # one undo restores the move exactly (extra included)
        await press(pilot, "U")
    out = tmp_path / "out.json"
    Corpus.open("bx", url=sqlite_url, user="alice").export_biorelex(out)  # her own sets, as she may
    sentence = read_biorelex(out)[0]
    clusters = {
        frozenset(sentence.annotations.span(m).text for m in e.members): e.members
        for e in sentence.annotations.entities
    }
    assert frozenset({"ActRIIB", "IIB", "ALK4"}) in clusters and frozenset({"ALK4", "ACVR1B"}) in clusters
    data = json.loads(out.read_text())[0]
    assert data["entities"][0]["names"]["ALK4"]["mentions"] == [[64, 68]]
    assert data["entities"][3]["names"]["ALK4"]["mentions"] == [[57, 61]]
    assert data["interactions"] == RAW[0]["interactions"]


@run_async
async def test_new_entities_join_leave_and_a_relation_on_the_cluster(sqlite_url: str, tmp_path: Path) -> None:
    """A new mention: an entity of its own, left (the empty entity goes), joined to an existing one;
    another type joins only as the entity's type (asked); a relation from a member joins ENTITIES,
    and the export writes it as an interaction between the two clusters."""
    _project(sqlite_url, tmp_path)
    text = RAW[0]["text"]
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        screen.view.move_to(text.index("dimerizes"))
        await add_span(pilot, "pro")  # T10 protein «dimerizes»
        await press(pilot, "c")
        await type_text(pilot, "alone")
        await press(pilot, "enter")
        ann = _alice(sqlite_url)
        assert ann.entities[-1] == Entity("C5", "protein", ("T10",))
        await press(pilot, "c", "enter")  # leave C5: it is empty, so it goes
        assert "C5" not in _members(_alice(sqlite_url))
        await press(pilot, "c")
        assert "join C4 protein {ALK4|ACVR1B}" in screen_text(app)  # nearest first
        await press(pilot, "enter")
        assert _members(_alice(sqlite_url))["C4"] == ("T7", "T8", "T9", "T10")
        await press(pilot, "r")  # bind from T10, a member of C4: Arg1 is C4
        assert "Arg1=C4; pick Arg2" in screen_text(app) and "T4@ Activin = C2" in screen_text(app)
        await type_text(pilot, "t4")  # T4 «Activin», a member of C2
        await press(pilot, "enter", "1", "enter")  # asserted, no tag
        rel = _alice(sqlite_url).relations[-1]
        assert [(a.role, a.ref) for a in rel.args] == [("Arg1", "C4"), ("Arg2", "C2")] and rel.label == 1
        screen.view.move_to(text.index("recruits"))
        await add_span(pilot, "gene")  # T11 gene «recruits»
        await press(pilot, "c")
        await type_text(pilot, "c3")
        await press(pilot, "enter")  # C3 is a protein-complex: asked first
        assert "T11 is gene, C3 is protein-complex" in screen_text(app)
        await press(pilot, "escape")
        assert "T11" not in _alice(sqlite_url).entities[2].members  # cancelled: nothing written
        await press(pilot, "c")
        await type_text(pilot, "c3")
        await press(pilot, "enter", "enter")
        ann = _alice(sqlite_url)
        assert ann.entities[2].members == ("T6", "T11") and ann.span("T11").type == "protein-complex"
        await press(pilot, "u")  # one step: the type and the membership come back together
        ann = _alice(sqlite_url)
        assert ann.entities[2].members == ("T6",) and ann.span("T11").type == "gene"
    out = tmp_path / "out.json"
    Corpus.open("bx", url=sqlite_url, user="alice").export_biorelex(out)  # her own sets, as she may
    data = json.loads(out.read_text())[0]
    alk4 = next(i for i, c in enumerate(data["entities"]) if "ALK4" in c["names"])
    activin = next(i for i, c in enumerate(data["entities"]) if "Activin" in c["names"])
    assert data["entities"][alk4]["names"]["dimerizes"]["mentions"] == [[69, 78]]
    assert data["interactions"][-1]["participants"] == [alk4, activin]
    back = read_biorelex(out)[0].annotations
    assert [a.ref for a in back.relations[-1].args] == ["C4", "C2"]  # read back: between the clusters


@run_async
async def test_the_entity_list_marks_the_members(sqlite_url: str, tmp_path: Path) -> None:
    _project(sqlite_url, tmp_path)
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        rows = dict(binding_rows(screen))
        assert rows["c"].startswith("Entity (cluster)")  # on the help screen and in the palette
        palette = [name for name, _help, _cb in AnnotationCommands(screen)._commands()]
        assert "Entity (cluster): join, new, leave, move to another or to a new one" in palette
        assert "Delete (in Ents: dissolve the entity, its members stay)" in palette
        assert "Delete (in Ents: dissolve the entity, its members stay)" in rows.values()
        await press(pilot, "l", "l", "l", "tab")  # spans → links → relations → entities, focused
        ents = screen.query_one("#entities", OptionList)
        assert str(ents.get_option_at_index(0).prompt).split("\n") == [
            "protein C1@ (3)",
            "  T1 ActRIIB (no mention)",
            "  T2 IIB",
            "  T3 IIB",
        ]
        await press(pilot, "down")  # C2: Activin, activin
        assert screen.view.marks == [(0, 7), (28, 35)]
        assert "C2 protein {Activin|activin} · 2 names/mentions · in R1,R2" in screen_text(app)
        await press(pilot, "enter")
        assert screen.view.cursor == 0 and screen.view.marks == [(0, 7), (28, 35)]


@run_async
async def test_bobs_clusters_never_reach_alice(sqlite_url: str, tmp_path: Path) -> None:
    """Blindness: bob's entities (in progress) are not offered to alice to join, nor listed."""
    corpus = Corpus.create("bx", "biorelex-1.0", url=sqlite_url)
    path = tmp_path / "bob.json"
    path.write_text(json.dumps(RAW, indent=1))
    corpus.import_biorelex(path, "bob", status="in_progress")
    corpus.add_annotator("alice")
    corpus.assign(["entities.0"], ["alice"])
    text = RAW[0]["text"]
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        assert screen._list_keys["entities"] == []
        screen.view.move_to(text.index("IIB"))
        await add_span(pilot, "pro")
        await press(pilot, "c")
        shown = screen_text(app)
        assert "new entity of T1 alone" in shown and "join" not in shown and "ActRIIB" not in shown
        await press(pilot, "escape")
    assert _alice(sqlite_url).entities == ()


def _ready(url: str, tmp_path: Path) -> Corpus:
    """alice and bob submitted the same clusters: opening the document merges them all into gold."""
    corpus = _project(url, tmp_path, RAW)
    corpus.add_annotator("carol", role="adjudicator")
    return corpus


def _gold_names(gold, ref: str) -> set[str]:  # type: ignore[no-untyped-def]
    """The texts an argument stands for: an entity's members' (or the span's own)."""
    ents = {e.id: e for e in gold.entities}
    return {gold.span(m).text for m in ents[ref].members} if ref in ents else {gold.span(ref).text}


@run_async
async def test_a_new_gold_relation_from_members_joins_gold_entities(sqlite_url: str, tmp_path: Path) -> None:
    """The adjudicator's r picks gold spans; on BioRelEx a member gives its gold entity, in the
    picker (``= C1``), in the stored relation, after the editor changed an argument, and in the
    BioRelEx export of gold, which reads back as an interaction between the two clusters."""
    _ready(sqlite_url, tmp_path)
    app = build_app(open_facade(sqlite_url, "bx", "carol"), start=None)
    async with app.run_test() as pilot:
        await settle(pilot)
        app.open_adjudication("entities.0")
        await settle(pilot)
        assert isinstance(app.screen, AdjudicateScreen)
        await press(pilot, "r")  # bind: the only relation type
        await type_text(pilot, "IIB")
        c1 = next(
            e.id
            for e in _carol_gold(sqlite_url).entities
            if "IIB" in _gold_names(_carol_gold(sqlite_url), e.id)
        )
        assert f"IIB = {c1}" in screen_text(app)  # the member says which gold entity it stands for
        await press(pilot, "enter")
        await type_text(pilot, "complex")
        await press(pilot, "enter", "1")  # Arg2 the activin/IIB complex; asserted
        assert isinstance(app.screen, GoldEditScreen)
        await press(pilot, "r", "2")  # the editor: Arg2 becomes ALK4's cluster instead
        await type_text(pilot, "ALK4")
        await press(pilot, "enter")
        assert "{ALK4|ACVR1B}" in screen_text(app)  # the draft names the entity
        await press(pilot, "enter")
    gold = _carol_gold(sqlite_url)
    rel = gold.relations[-1]
    ents = {e.id for e in gold.entities}
    assert all(a.ref in ents for a in rel.args) and rel.label == 1
    assert [_gold_names(gold, a.ref) for a in rel.args] == [{"ActRIIB", "IIB"}, {"ALK4", "ACVR1B"}]
    out = tmp_path / "gold.json"
    Corpus.open("bx", url=sqlite_url, user="carol").export_biorelex(out, gold=True)
    data = json.loads(out.read_text())[0]
    iib = next(i for i, c in enumerate(data["entities"]) if "IIB" in c["names"])
    alk4 = next(i for i, c in enumerate(data["entities"]) if "ALK4" in c["names"])
    assert sorted(data["interactions"][-1]["participants"]) == sorted([iib, alk4])
    back = read_biorelex(out)[0].annotations
    assert [_gold_names(back, a.ref) for a in back.relations[-1].args] == [
        {"ActRIIB", "IIB"},
        {"ALK4", "ACVR1B"},
    ]


def _carol_gold(url: str):  # type: ignore[no-untyped-def]
    return Corpus.open("bx", url=url, user="carol").gold("entities.0").annotations


@run_async
async def test_x_in_the_entity_list_dissolves_the_entity_after_asking(
    sqlite_url: str, tmp_path: Path
) -> None:
    """x with the Ents list focused dissolves the highlighted entity, not the span under the cursor:
    asked first, naming the relations that go with it; the members stay as spans, free of their
    read-in cluster; one undo brings the whole set back."""
    _project(sqlite_url, tmp_path)
    before = _alice(sqlite_url)
    text = RAW[0]["text"]
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        screen.view.move_to(text.index("IIB"))  # T2 under the cursor: it must stay
        await settle(pilot)
        await press(pilot, "l", "l", "l", "tab", "down", "x")  # C2 {Activin|activin}, R1 and R2 on it
        assert isinstance(app.screen, MessageScreen)
        assert "Dissolve C2 {Activin|activin} and R1, R2 pointing at it?" in screen_text(app)
        await press(pilot, "escape")
        assert _alice(sqlite_url) == before  # cancelled: nothing written
        await press(pilot, "x", "enter")
        ann = _alice(sqlite_url)
        assert "C2" not in _members(ann) and [r.id for r in ann.relations] == ["R3", "R4"]
        assert [sp.id for sp in ann.spans] == [sp.id for sp in before.spans]  # T2 and C2's members stay
        assert all(k not in ann.span(m).extra for m in ("T4", "T5") for k in cl.PLACEMENT)
        assert screen._list_keys["entities"] == ["C1", "C3", "C4"]
        await press(pilot, "u")
        assert _alice(sqlite_url) == before  # one undo: entity, relations and placements exactly
    out = tmp_path / "out.json"
    Corpus.open("bx", url=sqlite_url, user="alice").export_biorelex(out)
    assert json.loads(out.read_text())[0]["interactions"] == RAW[0]["interactions"]


@run_async
async def test_c_moves_a_member_to_a_new_entity_of_its_own(sqlite_url: str, tmp_path: Path) -> None:
    """c on a member of a larger entity offers a new entity of its own: leave and new in one action
    (undone exactly); a lone member is not offered it (nothing would change)."""
    _project(sqlite_url, tmp_path)
    before = _alice(sqlite_url)
    text = RAW[0]["text"]
    app = build_app(open_facade(sqlite_url, "bx", "alice"), start="entities.0")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        screen.view.move_to(text.index("ALK4", 60))  # T8, the second ALK4 (C4: T7, T8, T9)
        await settle(pilot)
        await press(pilot, "c")
        await type_text(pilot, "new entity")
        await press(pilot, "enter")
        ann = _alice(sqlite_url)
        assert _members(ann) == {**_members(before), "C4": ("T7", "T9"), "C5": ("T8",)}
        assert ann.entities[-1].type == "protein" and "cluster" not in ann.span("T8").extra
        assert len(ann.relations) == len(before.relations)
        await press(pilot, "tab", "x")  # the Ents list, on C5: nothing points at it, so no question
        assert not isinstance(app.screen, MessageScreen) and "C5" not in _members(_alice(sqlite_url))
        await press(pilot, "u", "escape")
        assert _alice(sqlite_url) == ann
        await press(pilot, "u")
        assert _alice(sqlite_url) == before  # one undo step
        screen.view.move_to(text.index("complex") + 1)  # T6, alone in C3
        await settle(pilot)
        await press(pilot, "c")
        assert "leave C3" in screen_text(app) and "new entity" not in screen_text(app)
        await press(pilot, "escape")


@run_async
async def test_adjudication_views_highlight_the_partners_of_the_item_in_focus(
    sqlite_url: str, tmp_path: Path
) -> None:
    """As the annotate screen does for the active span: the conflict under the cursor (ALK4's
    disputed cluster) shows its relations' other ends (the complex, R3) in each source's column;
    the gold has no relation on it yet (blocked), so nothing there. In the gold text with the
    focus, the span under the cursor shows its partners (Activin: every other mention of R1's ends)."""
    bob = copy.deepcopy(RAW)
    del bob[0]["entities"][3]["names"]["ACVR1B"]
    _project(sqlite_url, tmp_path, bob).add_annotator("carol", role="adjudicator")
    text = RAW[0]["text"]
    complex_ = (text.index("activin/IIB"), text.index("complex") + len("complex"))
    app = build_app(open_facade(sqlite_url, "bx", "carol"), start=None)
    async with app.run_test(size=(150, 40)) as pilot:  # wide: the sources as columns beside the gold
        await settle(pilot)
        app.open_adjudication("entities.0")
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        gold, *sources = (screen.query_one("#text", DocumentView), *screen._source_views())
        assert gold.partners == [] and all(v.partners == [] for v in sources)  # ACVR1B: no mention
        await press(pilot, "down")  # entity:span:57-61, the ALK4 cluster
        assert [v.marks for v in sources] == [[(57, 61), (64, 68)]] * 2
        assert [v.partners for v in sources] == [[complex_]] * 2
        assert all("T6" in v.hot for v in sources)  # the partner's markers stand out too
        assert gold.partners == []  # R3 and R4 wait for the cluster: not in gold
        gold.focus()
        await press(pilot, "ctrl+home")  # Activin (C2): R1 and R2 join C2 to C1 {ActRIIB|IIB}
        assert set(gold.partners) == {(14, 17), (36, 39), (28, 35)}  # both ends: all their mentions
        await press(pilot, "n")  # IIB (T2 of C1)
        assert set(gold.partners) == {(0, 7), (28, 35), (36, 39)}
        screen.query_one("#conflicts", OptionList).focus()  # back to the list: ALK4's cluster again
        await settle(pilot)
        assert gold.partners == [] and [v.partners for v in sources] == [[complex_]] * 2
