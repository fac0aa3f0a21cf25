"""One cluster, one representation (issue 22, item 9).

A cluster of mentions can be recorded three ways: an entity (the TUI's ``c``), a coreference link (the
TUI's ``k``) or an imported brat ``Equiv`` line. Whichever way each of two annotators used, the same
cluster is one agreed unit (no conflict), goes into gold once, counts as a match in ``agree -l links``,
is listed once in the TUI, and is written back as one ``*`` line.
"""

from __future__ import annotations

from itertools import product
from pathlib import Path

import pytest
from textual.widgets import OptionList

from corpusdb.api import Corpus
from corpusdb.basics import clusters
from corpusdb.basics.records import Annotations, Document, Entity, Link, Span
from corpusdb.services.edits import Put, apply_changes
from importers.standoff import format_annotations, read_directory
from tests.test_tui_annotate import annotate_screen
from tui import clusters as cl
from tui import items as it
from tui.app import build_app
from tui.facade import open_facade
from tui.testing import press, run_async, screen_text, settle

TEXT = "Bacillus subtilis (BS) lives in soil."
SPANS = (
    Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
    Span("T2", "Bacterium", ((19, 21),), "BS"),
    Span("T3", "Soil", ((32, 36),), "soil"),
)
WAYS = ("entity", "coreference", "equiv")


def _brat(folder: Path, star: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "d.txt").write_text(TEXT, encoding="utf-8")
    lines = [f"{s.id}\t{s.type} {s.start} {s.end}\t{s.text}" for s in SPANS]
    (folder / "d.ann").write_text("\n".join([*lines, star]) + "\n", encoding="utf-8")
    return folder


def _record(c: Corpus, who: str, way: str, tmp: Path) -> None:
    """``who`` annotates the one cluster {Bacillus subtilis, BS} the ``way`` given, as the TUI or an
    import does it."""
    base = Annotations(SPANS)
    if way == "equiv":
        c.import_brat(_brat(tmp / who, "*\tEquiv T1 T2"), who)
        return
    if way == "entity":  # the TUI's c: a new entity of the span under the cursor and another one
        _, changes = cl.new_entity(base, [base.span("T1"), base.span("T2")])
    else:  # the TUI's k with the schema's coreference type
        changes = [Put(it.new_link(base, "coreference", "T1", "T2"))]
    ann, _ = apply_changes(base, changes)
    c.create_set("d", who, annotations=ann, status="submitted")


@pytest.mark.parametrize(
    ("a", "b"), list(product(WAYS, WAYS)), ids=[f"{a}-{b}" for a, b in product(WAYS, WAYS)]
)
def test_the_same_cluster_made_any_two_ways_is_one_agreed_unit(
    a: str, b: str, sqlite_url: str, tmp_path: Path
) -> None:
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.add_documents([Document("d", TEXT)])
    for who, way in (("alice", a), ("bob", b)):
        c.add_annotator(who)
        _record(c, who, way, tmp_path)
    [dc] = c.conflicts("d")
    assert dc.conflicts == () and dc.open == 0, [(x.key, x.differs) for x in dc.conflicts]
    [every] = c.conflicts("d", include_resolved=True)
    ents = [x for x in every.conflicts if x.kind == "entity"]
    assert [x.key for x in ents] == ["entity:span:0-17"] and not [
        x for x in every.conflicts if x.kind == "link"
    ]
    # agreement on links counts it as a match, with nothing one-sided
    [pair] = c.agreement("links").to_dict()["pairs"]
    assert pair["overall"] == {
        "matched": 1,
        "only_a": 0,
        "only_b": 0,
        "precision": 1.0,
        "recall": 1.0,
        "f1": 1.0,
    }
    assert {t: (v["matched"], v["only_a"], v["only_b"]) for t, v in pair["per_type"].items()} == {
        "coreference": (1, 0, 0)  # Equiv is BB's coreference; an entity is drawn as one
    }
    # adjudication puts it into gold once, as one entity; brat writes it as one * line
    [res] = c.merge()
    assert res.open == 0
    gold = c.gold("d").annotations
    assert gold.links == () and [set(e.members) for e in gold.entities] == [{"T1", "T2"}]
    c.export_brat(tmp_path / "gold", gold=True)
    ann = (tmp_path / "gold" / "d.ann").read_text(encoding="utf-8")
    stars = [ln.split("\t")[1].split() for ln in ann.splitlines() if ln.startswith("*")]
    assert len(stars) == 1 and stars[0][1:] == ["T1", "T2"]
    # drawn as the first source drew it, else as the other did, else as the schema's cluster type
    drawn = {"equiv": "Equiv", "coreference": "coreference"}
    assert stars[0][0] == drawn.get(a, drawn.get(b, "coreference"))
    assert c.merge()[0].added == {}  # merged again: nothing added twice


def test_the_cluster_module_sees_one_cluster_whatever_the_drawing(tmp_path: Path) -> None:
    [parsed] = read_directory(_brat(tmp_path / "b", "*\tEquiv T1 T2"))
    brat = parsed.annotations
    drawn = {
        "entity": Annotations(SPANS, entities=(Entity("C1", "Bacterium", ("T1", "T2")),)),
        "coreference": Annotations(SPANS, links=(Link("L1", "coreference", "T1", "T2"),)),
        "equiv": brat,
        "both": Annotations(
            SPANS, links=(Link("L1", "Equiv", "T2", "T1"),), entities=(Entity("C1", "Bacterium", ("T1",)),)
        ),
    }
    for name, ann in drawn.items():
        [one] = clusters.clusters(ann)
        assert (set(one.members), one.type) == ({"T1", "T2"}, "Bacterium"), name
        seen = clusters.as_entities(ann)
        assert seen.links == () and [set(e.members) for e in seen.entities] == [{"T1", "T2"}], name
    # the brat drawing is kept for writing back: the file comes back byte for byte
    assert format_annotations(brat)["ann"] == (tmp_path / "b" / "d.ann").read_text(encoding="utf-8")


def test_a_disputed_cluster_made_two_ways_is_one_conflict_and_goes_into_gold_once(
    sqlite_url: str, tmp_path: Path
) -> None:
    """alice's entity {Bacillus subtilis, BS} against bob's Equiv line that also takes in soil: one
    conflict; taking either version puts one cluster into gold, and taking the other revises it."""
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.add_documents([Document("d", TEXT)])
    c.add_annotator("alice")
    _record(c, "alice", "entity", tmp_path)
    c.add_annotator("bob")
    c.import_brat(_brat(tmp_path / "bob", "*\tEquiv T1 T2 T3"), "bob")
    c.merge()
    [dc] = c.conflicts("d")
    assert [(x.key, x.differs) for x in dc.conflicts] == [
        ("entity:span:0-17", ("members",))
    ]  # soil; the type restates the members'
    for i, (who, members) in enumerate(
        (("alice", {"T1", "T2"}), ("bob", {"T1", "T2", "T3"}), ("alice", {"T1", "T2"}))
    ):
        c.resolve("d", "entity:span:0-17", take=who, revise=i > 0)  # a second decision is a revision
        gold = c.gold("d").annotations
        assert gold.links == () and [set(e.members) for e in gold.entities] == [members], who
    assert c.conflicts("d")[0].conflicts == ()


def test_every_export_writes_the_cluster_alike_whatever_the_way(sqlite_url: str, tmp_path: Path) -> None:
    """brat writes one ``*`` line; formats that cannot hold clusters say so, counted, the same way."""
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.add_documents([Document("d", TEXT)])
    seen: dict[str, object] = {}
    for way in WAYS:
        c.add_annotator(way)
        _record(c, way, way, tmp_path)
        me = c.as_user(way)
        me.export_brat(tmp_path / f"brat-{way}")
        ann = (tmp_path / f"brat-{way}" / "d.ann").read_text(encoding="utf-8")
        stars = [ln.split("\t")[1].split()[1:] for ln in ann.splitlines() if ln.startswith("*")]
        notes = {
            fmt: me.export_file(tmp_path / f"{way}.{fmt}", fmt).warnings for fmt in ("pubtator", "conll")
        }
        seen[way] = (stars, notes)
    assert seen["entity"] == seen["coreference"] == seen["equiv"], seen
    assert seen["equiv"][0] == [["T1", "T2"]]  # type: ignore[index]


TUI_TEXT = "Bacillus subtilis (BS, B. subtilis) lives in soil."
TUI_ANN = (
    "T1\tBacterium 0 17\tBacillus subtilis\nT2\tBacterium 19 21\tBS\nT3\tBacterium 23 34\tB. subtilis\n"
    "T4\tSoil 45 49\tsoil\n*\tEquiv T1 T2\n"
)


@run_async
async def test_the_tui_lists_and_edits_an_equiv_cluster_as_an_entity(sqlite_url: str, tmp_path: Path) -> None:
    """alice's imported Equiv line is an entity in the Ents list (not a link in Links); ``c`` on another
    mention joins it, the cluster becoming one entity in one undoable step, written back as one line."""
    folder = tmp_path / "alice"
    folder.mkdir()
    (folder / "d.txt").write_text(TUI_TEXT, encoding="utf-8")
    (folder / "d.ann").write_text(TUI_ANN, encoding="utf-8")
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.import_brat(folder, "alice", status="in_progress")
    alice = c.as_user("alice")
    before = alice.my_set("d").annotations
    app = build_app(open_facade(sqlite_url, "bb", "alice"), start="d")
    async with app.run_test() as pilot:
        await settle(pilot)
        screen = annotate_screen(app)
        assert screen._list_keys["links"] == [] and len(screen._list_keys["entities"]) == 1
        ents = screen.query_one("#entities", OptionList)
        assert str(ents.get_option_at_index(0).prompt).split("\n")[1:] == [
            "  T1 Bacillus subtilis",
            "  T2 BS",
        ]
        assert "0 links 1 entities" in screen_text(app)
        screen.view.move_to(TUI_TEXT.index("B. subtilis"))
        await settle(pilot)
        await press(pilot, "c")
        assert "{Bacillus subtilis|BS}" in screen_text(app)
        await press(pilot, "enter")  # join it (nearest first)
        ann = alice.my_set("d").annotations
        assert ann.links == () and [e.members for e in ann.entities] == [("T1", "T2", "T3")]
        assert ann.entities[0].extra["link_type"] == "Equiv"
        alice.export_brat(tmp_path / "out")
        assert "*\tEquiv T1 T2 T3\n" in (tmp_path / "out" / "d.ann").read_text(encoding="utf-8")
        await press(pilot, "u")  # one step back: the Equiv line as it was
        assert alice.my_set("d").annotations == before
