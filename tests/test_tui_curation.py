"""Issue #15 item 7: the smaller curation defects, each driven by keys against a real SQLite project
and checked in the database (or on the screen when the fix is what the screen says)."""

from __future__ import annotations

import re
from dataclasses import replace
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput
from corpusdb.basics.records import Annotations, Argument, Document, Grounding, Relation, Span
from corpusdb.services.edits import Put
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample
from tui.screens.annotate import AnnotateScreen
from tui.screens.pickers import PickScreen
from tui.testing import press, run_async, screen_text, settle, type_text

D1 = TEXTS["d1"]
BB = "Bacillus subtilis lives in soil. E. coli was isolated from the gut of patients."


@pytest.fixture
def url(sqlite_url: str) -> str:
    build_sample(sqlite_url)
    return sqlite_url


@pytest.fixture
def bb_url(sqlite_url: str) -> str:
    """A BB 2011 project (type keys b h p g e ..., relations without labels, no groundings)."""
    owner = Corpus.create("bb", "bb-2011", url=sqlite_url)
    owner.add_annotator("alice")
    owner.add_annotator("bob")
    owner.add_annotator("lena", "lead")
    owner.add_documents([Document("b1", BB), Document("b2", BB)])
    bac = Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis")
    soil = Span("T2", "Habitat", ((27, 31),), "soil")
    rel = Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2")))
    for who in ("alice", "bob"):
        owner.create_set("b1", who, annotations=Annotations(spans=(bac, soil), relations=(rel,)))
        owner.create_set("b2", who)
    return sqlite_url


@pytest.fixture
def url_demo(tmp_path: Path) -> str:
    """The demo project in a second file (a test that needs both schemas)."""
    demo = f"sqlite:///{tmp_path / 'demo.sqlite'}"
    build_sample(demo)
    return demo


def app_for(url: str, user: str = "alice", project: str = "demo", start: str | None = "d1") -> CorpusApp:
    return build_app(open_facade(url, project, user), start=start)


def db_set(url: str, user: str = "alice", doc: str = "d1", project: str = "demo"):  # type: ignore[no-untyped-def]
    return Corpus.open(project, url=url, user=user).my_set(doc)


def notes(app: CorpusApp) -> list[str]:
    return [n.message for n in app._notifications]


# -- 1. schema hot keys in the type picker ---------------------------------------------------------
@run_async
async def test_schema_type_keys_pick_in_the_type_picker(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "a")  # IL-2 under the cursor
        assert isinstance(app.screen, PickScreen)
        assert re.search(r"│ +p +protein", screen_text(app))  # the key is shown beside its type
        await press(pilot, "d")  # biorelex: key = "d" is DNA
        assert isinstance(app.screen, AnnotateScreen)
        await press(pilot, "t", "g")  # change type: g is gene
        await press(pilot, "w", "w", "a", "slash")  # '/' starts the filter: keys are letters again
        await type_text(pilot, "dna-")
        await press(pilot, "enter")
    spans = db_set(url).annotations.spans
    assert [(s.text, s.type) for s in spans] == [("IL-2", "gene"), ("CD25", "protein-DNA-complex")]


@run_async
async def test_letters_without_a_key_start_the_filter(bb_url: str) -> None:
    app = app_for(bb_url, project="bb", start="b2")
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "a")
        await type_text(pilot, "a")  # no BB type has key a: filtering (Habitat... no: 'a' is in many)
        assert isinstance(app.screen, PickScreen)
        await type_text(pilot, "quatic")  # still the filter, though q/u/t/i/c are not keys either
        await press(pilot, "escape")
    assert db_set(bb_url, doc="b2", project="bb").annotations.spans == ()


# -- 2. e on a relation without labels, n after the last span: they say why ------------------------
@run_async
async def test_edit_relation_without_labels_and_next_span_at_the_end_say_why(bb_url: str) -> None:
    app = app_for(bb_url, project="bb", start="b1")
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "n", "e")  # on T2 «soil», argument of R1 (Localization: no labels)
        assert any("Localization has no labels or tags" in m for m in notes(app)), notes(app)
        await press(pilot, "n")  # T2 is the last span: n cannot move
        assert any("no span after the cursor" in m for m in notes(app)), notes(app)
    assert db_set(bb_url, doc="b1", project="bb").info.version == 1  # nothing was written


# -- 3. the list marks are explained ------------------------------------------------------------------
@run_async
async def test_help_explains_the_list_marks(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(100, 140)) as pilot:  # the whole help, marks last
        await settle(pilot)
        await press(pilot, "question_mark")
        text = screen_text(app)
        assert "Marks in the lists" in text
        assert "the span has attributes" in text and "the span is grounded" in text
        assert "discontinuous" in text


# -- 4. the save state stays visible at 80 columns ---------------------------------------------------
@run_async
async def test_save_state_stays_visible_at_80_columns(url: str) -> None:
    app = app_for(url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AnnotateScreen)
        screen.view.move_to(D1.index("Mutant"))
        await press(pilot, *["W"] * 9)  # Mutant ... chain
        await press(pilot, "a", "p", "i", "m", "enter", "g")  # a long span with an attribute and a grounding:
        await type_text(pilot, "pfam:PF00001")  # its details are wider than the status line
        await press(pilot, "enter", "g")
        await type_text(pilot, "uniprot:P60568")
        await press(pilot, "enter")
        text = screen_text(app)
        version = db_set(url).info.version
        assert f"saved v{version}" in text.splitlines()[-2], text


# -- 8. groundings refused where the schema disallows them: TUI and API ---------------------------
@run_async
async def test_grounding_refused_in_the_tui_when_the_schema_has_none(bb_url: str) -> None:
    app = app_for(bb_url, project="bb", start="b1")
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "n", "g")  # on T2 «soil»
        assert isinstance(app.screen, AnnotateScreen)  # no prompt opened
        assert any("does not use groundings" in m for m in notes(app)), notes(app)
    aset = db_set(bb_url, doc="b1", project="bb")
    assert aset.info.version == 1 and all(not s.groundings for s in aset.annotations.spans)


def test_grounding_refused_by_the_api(bb_url: str, url_demo: str) -> None:
    alice = Corpus.open("bb", url=bb_url, user="alice")
    mine = alice.my_set("b1")
    soil = mine.annotations.spans[1]
    grounded = replace(soil, groundings=(Grounding("envo:00001998"),))
    with pytest.raises(InvalidInput, match="does not use groundings"):
        alice.edit_set(mine.info.id, [Put(grounded)], expected_version=mine.info.version)
    assert alice.my_set("b1").info.version == mine.info.version  # nothing written
    # A schema with groundings refuses databases it does not list, and accepts the ones it does.
    demo = Corpus.open("demo", url=url_demo, user="alice")
    d1 = demo.my_set("d1")
    il2 = Span("T1", "protein", ((0, 4),), "IL-2", groundings=(Grounding("envo:1"),))
    with pytest.raises(InvalidInput, match="not from a database"):
        demo.edit_set(d1.info.id, [Put(il2)], expected_version=d1.info.version)
    ok = demo.edit_set(d1.info.id, [Put(replace(il2, groundings=(Grounding("uniprot:P60568"),)))],
                       expected_version=d1.info.version)  # fmt: skip
    assert [g.ref for g in ok.annotations.spans[0].groundings] == ["uniprot:P60568"]


# -- 6. the command palette offers the annotation commands ----------------------------------------
@run_async
async def test_palette_runs_annotation_commands(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "a", "p")  # T1 IL-2 protein
        await press(pilot, "ctrl+p")
        await type_text(pilot, "change type")
        assert "key t" in screen_text(app)  # the palette teaches the key too
        await press(pilot, "enter")
        assert isinstance(app.screen, PickScreen)
        await press(pilot, "g")
        assert [s.type for s in db_set(url).annotations.spans] == ["gene"]
        await press(pilot, "ctrl+p")
        await type_text(pilot, "undo")
        await press(pilot, "enter")
        assert [s.type for s in db_set(url).annotations.spans] == ["protein"]
        await press(pilot, "ctrl+p")
        await type_text(pilot, "delete")
        await press(pilot, "enter")
    assert db_set(url).annotations.spans == ()


# -- 9. notes (brat #) made and edited in the TUI, exported as # lines -----------------------------
@run_async
async def test_notes_on_a_span_and_a_relation_export_as_brat_lines(bb_url: str, tmp_path: Path) -> None:
    app = app_for(bb_url, project="bb", start="b1")
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "n", "number_sign")  # on T2 «soil»
        await type_text(pilot, "habitat or place?")
        await press(pilot, "enter")
        (note,) = db_set(bb_url, doc="b1", project="bb").annotations.notes
        assert (note.type, note.target, note.text) == ("AnnotatorNotes", "T2", "habitat or place?")
        assert "T2# " in screen_text(app)  # the list marks the noted span
        await press(pilot, "number_sign", "ctrl+u")  # the prompt holds the note: edit it
        await type_text(pilot, "habitat")
        await press(pilot, "enter")
        await press(pilot, "tab", "l", "l", "number_sign")  # the relations list: a note on R1
        await type_text(pilot, "stated in the title")
        await press(pilot, "enter")
    ann = db_set(bb_url, doc="b1", project="bb").annotations
    assert [(n.id, n.target, n.text) for n in ann.notes] == [("#1", "T2", "habitat"),
                                                            ("#2", "R1", "stated in the title")]  # fmt: skip
    Corpus.open("bb", url=bb_url, user="alice").export_brat(tmp_path / "out", documents=["b1"], flat=True)
    ann_file = (tmp_path / "out" / "b1.ann").read_text()
    assert "#1\tAnnotatorNotes T2\thabitat\n" in ann_file
    assert "#2\tAnnotatorNotes R1\tstated in the title\n" in ann_file


@run_async
async def test_an_empty_note_removes_it(url: str) -> None:
    app = app_for(url)
    async with app.run_test() as pilot:
        await settle(pilot)
        await press(pilot, "a", "p", "number_sign")
        await type_text(pilot, "check")
        await press(pilot, "enter")
        assert len(db_set(url).annotations.notes) == 1
        await press(pilot, "number_sign", "ctrl+u", "enter")
        assert db_set(url).annotations.notes == ()
        await press(pilot, "u")  # undo brings it back
    assert [n.text for n in db_set(url).annotations.notes] == ["check"]


# -- 7. a lead opening a document to look writes no gold ---------------------------------------------
@run_async
async def test_a_lead_looking_writes_no_gold_and_deciding_does(sqlite_url: str) -> None:
    from tui.screens.adjudicate import AdjudicateScreen

    build_sample(sqlite_url, submitted=True)  # d1 ready for adjudication
    owner = Corpus.open("demo", url=sqlite_url)
    app = build_app(open_facade(sqlite_url, "demo", "lena"), start=None)
    async with app.run_test() as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        assert isinstance(app.screen, AdjudicateScreen)
        assert "span:0-4" in screen_text(app)  # the conflicts are there to read
        await press(pilot, "q")
        assert owner.sets(kind="gold") == [] and owner.decisions("d1") == []
        app.open_adjudication("d1")
        await settle(pilot)
        await press(pilot, "1")  # acting: take alice's IL-2
    decisions = {(d.method, d.decided_by) for d in owner.decisions("d1")}
    assert ("adjudicated", "lena") in decisions  # the decision, in lena's name
    assert any(m == "unanimous" for m, _ in decisions)  # and the agreed items merged before it
    gold = owner.gold("d1").annotations
    assert sorted(s.text for s in gold.spans) == ["IL-2", "STAT5"]


# -- 5. undo history survives a restart; it is the annotator's alone --------------------------------
@run_async
async def test_undo_after_closing_and_reopening_the_app(url: str) -> None:
    async with app_for(url).run_test() as pilot:
        await settle(pilot)
        await press(pilot, "a", "p")  # T1 IL-2 protein
        await press(pilot, "w", "w", "a", "g")  # T2 CD25 gene
        await press(pilot, "t", "h")  # T2 → chemical
        await press(pilot, "u")  # undone now: T2 gene again (redo can bring chemical back)
        await press(pilot, "q")
    assert [(s.id, s.type) for s in db_set(url).annotations.spans] == [("T1", "protein"), ("T2", "gene")]
    app = app_for(url)  # a new app, a new session: the stacks come from the database
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "ctrl+r")  # redo the retype undone before the restart
        assert [s.type for s in db_set(url).annotations.spans] == ["protein", "chemical"]
        await press(pilot, "u", "u")  # the retype, then the second span
        assert [(s.id, s.type) for s in db_set(url).annotations.spans] == [("T1", "protein")]
        assert any("undo: add T2 gene" in m for m in notes(app)), notes(app)
    async with app_for(url).run_test() as pilot:
        await settle(pilot)
        await press(pilot, "u")  # the first span, across a second restart
    assert db_set(url).annotations.spans == ()


def test_edit_history_is_the_annotators_alone_and_bounded(url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    from corpusdb.basics.errors import PermissionDenied
    from corpusdb.services import undo

    monkeypatch.setattr(undo, "LIMIT", 3)
    alice = Corpus.open("demo", url=url, user="alice")
    mine = alice.my_set("d1")
    version = mine.info.version
    for i in range(5):
        span = Span(f"T{i + 1}", "protein", ((0, 4),), "IL-2")
        version = alice.edit_set(mine.info.id, [Put(span)], expected_version=version, history="do",
                                 description=f"add T{i + 1}").info.version  # fmt: skip
    history = alice.edit_history(mine.info.id)
    assert [h.description for h in history.undo] == ["add T3", "add T4", "add T5"]  # the newest three
    for who in ("bob", "lena", "carol"):  # another annotator, the lead, the adjudicator: refused
        with pytest.raises(PermissionDenied):
            Corpus.open("demo", url=url, user=who).edit_history(mine.info.id)
    # An edit outside the stacks (a script, no history) clears them: their inverses no longer apply.
    alice.edit_set(mine.info.id, [Put(Span("T9", "gene", ((11, 15),), "CD25"))], expected_version=version)
    assert alice.edit_history(mine.info.id).undo == ()


def test_migration_0009_upgrades_an_0007_database_and_downgrades(tmp_path: Path) -> None:
    from sqlalchemy import inspect

    from corpusdb.store import db, migrate

    engine = db.make_engine(f"sqlite:///{tmp_path / 'old.sqlite'}")
    migrate.upgrade(engine, "0007")
    assert "edit_history" not in inspect(engine).get_table_names()
    with pytest.raises(Exception, match="older"):
        migrate.ensure_current(engine)
    assert migrate.upgrade(engine) == ("0007", migrate.head())
    assert {"edit_history", "set_skip"} <= set(inspect(engine).get_table_names())
    corpus = Corpus.create("p", "bb-2011", engine=engine)
    corpus.add_annotator("alice")
    corpus.add_documents([Document("b1", BB)])
    sid = corpus.create_set("b1", "alice").id
    alice = Corpus.open("p", engine=engine, user="alice")
    alice.edit_set(sid, [Put(Span("T1", "Habitat", ((27, 31),), "soil"))], expected_version=1,
                   history="do", description="add T1")  # fmt: skip
    alice.skip(sid, "not about bacteria")
    assert [h.description for h in alice.edit_history(sid).undo] == ["add T1"]
    migrate.downgrade(engine, "0007")
    assert not {"edit_history", "set_skip"} & set(inspect(engine).get_table_names())
    assert migrate.upgrade(engine)[1] == migrate.head()


# -- 10. skipping a document as irrelevant ------------------------------------------------------------
def _skips(url: str, user: str) -> list[tuple[str, str, str]]:
    return [(k.document, k.annotator, k.reason) for k in Corpus.open("bb", url=url, user=user).skips()]


@run_async
async def test_skip_a_document_with_a_reason_lift_it_then_submit(bb_url: str) -> None:
    app = app_for(bb_url, project="bb", start="b2")
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "D", "enter")  # no reason: refused in the prompt
        assert "a reason is needed" in screen_text(app)
        await type_text(pilot, "not about bacteria")
        await press(pilot, "enter")
        assert _skips(bb_url, "alice") == [("b2", "alice", "not about bacteria")]
        assert "SKIPPED (not about bacteria)" in screen_text(app)
        await press(pilot, "D", "enter")  # skipped already: D offers to lift it
        assert _skips(bb_url, "alice") == []
        await press(pilot, "D")
        await type_text(pilot, "a methods paper")
        await press(pilot, "enter", "S", "enter")  # skip, then submit as usual
        assert db_set(bb_url, doc="b2", project="bb").info.status == "submitted"
        await press(pilot, "D")  # submitted: no longer the annotator's to change
        assert any("read-only" in m for m in notes(app)), notes(app)
        await press(pilot, "q")  # the document list says which documents I skipped
        assert re.search(r"b2 .*submitted · skipped", screen_text(app)), screen_text(app)
    assert _skips(bb_url, "alice") == [("b2", "alice", "a methods paper")]
    alice = Corpus.open("bb", url=bb_url, user="alice")
    with pytest.raises(Conflict, match="reopens"):
        alice.unskip(alice.my_set("b2").info.id)
    assert _skips(bb_url, "bob") == []  # blindness: bob never learns alice's judgement
    assert Corpus.open("bb", url=bb_url, user="bob").status().skipped == ()


@run_async
async def test_the_lead_sees_skips_in_the_lead_view_and_status(
    bb_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from corpusdb.cli.main import main

    alice = Corpus.open("bb", url=bb_url, user="alice")
    b2 = alice.my_set("b2").info.id
    alice.skip(b2, "no bacterium is named")
    lena = Corpus.open("bb", url=bb_url, user="lena")
    assert lena.status().skipped == ()  # blind like the set's content until the document is done
    alice.submit(b2)
    bob = Corpus.open("bb", url=bb_url, user="bob")
    bob.submit(bob.my_set("b2").info.id)
    app = build_app(open_facade(bb_url, "bb", "lena"), start=None)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        assert "skipped as irrelevant: b2 by alice (no bacterium is named)" in screen_text(app)
    (skip,) = Corpus.open("bb", url=bb_url, user="lena").status().skipped
    assert (skip.document, skip.annotator, skip.reason) == ("b2", "alice", "no bacterium is named")
    capsys.readouterr()
    main(["--db", bb_url, "--project", "bb", "status"])
    out = capsys.readouterr().out
    assert "Skipped as irrelevant" in out and "no bacterium is named" in out


def test_skipped_documents_are_left_out_of_agreement_and_release(bb_url: str, tmp_path: Path) -> None:
    import json

    owner = Corpus.open("bb", url=bb_url)
    alice = Corpus.open("bb", url=bb_url, user="alice")
    alice.skip(alice.my_set("b1").info.id, "a review, not primary data")
    for who in ("alice", "bob"):
        c = Corpus.open("bb", url=bb_url, user=who)
        for doc in ("b1", "b2"):
            c.submit(c.my_set(doc).info.id, force=True)
    excluded = [
        {"document": "b1", "skipped_by": [{"annotator": "alice", "reason": "a review, not primary data"}]}
    ]
    report = owner.agreement("spans").to_dict()
    assert "b1" not in json.dumps(report["documents"]) and report["excluded_documents"] == excluded
    owner.merge()
    owner.release("1.0", outdir=tmp_path / "rel", allow_open=True, agreement=False)
    manifest = json.loads((tmp_path / "rel" / "manifest.json").read_text())
    assert manifest["counts"]["documents"] == 1 and manifest["excluded"] == excluded
    assert not any("b1" in name for name in manifest["files"])
    # Reversible: a lead reopens alice's set, she lifts the skip and submits; b1 counts again.
    b1 = alice.my_set("b1").info.id
    Corpus.open("bb", url=bb_url, user="lena").reopen(b1, reason="b1 is primary data after all")
    alice.unskip(b1)
    alice.submit(b1, force=True)
    report = owner.agreement("spans").to_dict()
    assert "b1" in json.dumps(report["documents"]) and "excluded_documents" not in report


def test_cli_skip_and_unskip(bb_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from corpusdb.cli.main import main

    capsys.readouterr()
    assert (
        main(["--db", bb_url, "--project", "bb", "--as", "alice", "skip", "b2", "-r", "a methods paper"]) == 0
    )
    assert "b2 skipped: a methods paper" in capsys.readouterr().out
    assert _skips(bb_url, "alice") == [("b2", "alice", "a methods paper")]
    assert main(["--db", bb_url, "--project", "bb", "--as", "bob", "unskip", "b2"]) == 6  # bob has none
    assert "not skipped" in capsys.readouterr().err
    assert main(["--db", bb_url, "--project", "bb", "--as", "alice", "unskip", "b2"]) == 0
    assert _skips(bb_url, "alice") == []
    assert main(["--db", bb_url, "--project", "bb", "--as", "alice", "skip", "b2", "-r", " "]) == 4
    assert "needs a reason" in capsys.readouterr().err


@run_async
async def test_after_a_stale_save_undo_follows_the_stored_history(url: str) -> None:
    app = app_for(url)
    async with app.run_test(notifications=True) as pilot:
        await settle(pilot)
        await press(pilot, "a", "p")  # T1 IL-2
        # alice's other window adds T9 with its own undo entry, behind this app's back
        other = Corpus.open("demo", url=url, user="alice")
        cur = other.my_set("d1")
        other.edit_set(cur.info.id, [Put(Span("T9", "gene", ((11, 15),), "CD25"))],
                       expected_version=cur.info.version, history="do", description="add T9 gene")  # fmt: skip
        await press(pilot, "w", "w", "a", "h")  # refused as stale: reloaded with the stored stacks
        assert any("undo history as saved with it" in m for m in notes(app)), notes(app)
        await press(pilot, "u")  # the newest stored action: the other window's T9
        assert [s.id for s in db_set(url).annotations.spans] == ["T1"]
        await press(pilot, "u")
    assert db_set(url).annotations.spans == ()


def test_undo_may_put_back_a_grounding_the_schema_no_longer_allows(bb_url: str) -> None:
    """Imported groundings stay removable, and undoing their removal puts them back; only new ones
    are refused."""
    owner = Corpus.open("bb", url=bb_url)
    alice = Corpus.open("bb", url=bb_url, user="alice")
    mine = alice.my_set("b1")
    soil = mine.annotations.spans[1]
    grounded = replace(soil, groundings=(Grounding("envo:00001998"),))
    owner.replace_set(mine.info.id, replace(mine.annotations, spans=(mine.annotations.spans[0], grounded)))
    version = alice.my_set("b1").info.version
    removed = alice.edit_set(mine.info.id, [Put(soil)], expected_version=version, history="do",
                             description="grounding removed")  # fmt: skip
    back = alice.edit_set(mine.info.id, list(removed.inverse), expected_version=removed.info.version,
                          history="undo", description="grounding removed")  # fmt: skip
    assert [g.ref for g in back.annotations.spans[1].groundings] == ["envo:00001998"]
    with pytest.raises(InvalidInput, match="history must be"):
        alice.edit_set(mine.info.id, [Put(soil)], expected_version=back.info.version, history="again")  # type: ignore[arg-type]
