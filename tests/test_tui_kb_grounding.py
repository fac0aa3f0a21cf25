"""The TUI's `g` on a span whose type the schema maps to a knowledge base: the span's text is
looked up as typed (labels shown, typos tolerated, the type's branch only) and the id is stored."""

from __future__ import annotations

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from tests.kb_support import KB
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.annotate import AnnotateScreen
from tui.screens.pickers import KbGroundingScreen
from tui.testing import press, run_async, screen_text, settle, type_text

TEXT = "Helicobacter pylori lives in the stomach."


@run_async
async def test_g_looks_the_span_up_and_stores_the_id(sqlite_url: str) -> None:
    owner = Corpus.create("bb", schema=KB / "bb-cat-test.toml", url=sqlite_url)
    owner.kb_add("ontobiotope", KB / "habitats.obo", "obo")
    owner.add_annotator("alice")
    owner.add_documents([Document("d1", TEXT)])
    info = owner.create_set("d1", "alice")
    at = TEXT.index("stomach")
    owner.as_user("alice").replace_set(
        info.id,
        Annotations(spans=(Span("T1", "Habitat", ((at, at + 7),), "stomach"),)),
        expected_version=info.version,
    )
    app = build_app(open_facade(sqlite_url, "bb", "alice"), start="d1")
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, AnnotateScreen)
        app.screen.view.move_to(at + 2)
        await settle(pilot)
        await press(pilot, "g")
        assert isinstance(app.screen, KbGroundingScreen)
        shown = screen_text(app)
        assert "stomach  HAB:0003  (exact)" in shown  # the span's text, pre-filled, found at once
        assert "gastric mucosa  HAB:0004  (prefix: stomach mucosa)" in shown  # labels beside ids
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "g")
        await press(pilot, "ctrl+u")
        await type_text(pilot, "gastrik mucosa")  # a typo
        await settle(pilot)
        assert "gastric mucosa  HAB:0004  (fuzzy)" in screen_text(app)
        await press(pilot, "enter")
        await settle(pilot)
        await press(pilot, "g")
        await press(pilot, "ctrl+u")
        await type_text(pilot, "phenotype")  # exists, but not under the Habitat branch: not offered
        await settle(pilot)
        assert "PHE:0001" not in screen_text(app)
        await press(pilot, "escape")
    (t1,) = Corpus.open("bb", url=sqlite_url, user="alice").my_set("d1").annotations.spans
    assert [(g.ref, g.kind, dict(g.extra)) for g in t1.groundings] == [
        (
            "HAB:0003",
            "OntoBiotope",
            {"st": True},
        ),  # written back as `OntoBiotope Annotation:T1 Referent:HAB:0003`
        ("HAB:0004", "OntoBiotope", {"st": True}),
    ]
