"""A grounding's knowledge-base label beside its id wherever groundings are shown: conflicts (API,
CLI, the adjudication screen), the annotate screen's status line, BioC exports (``identifier_label``,
not read back), and releases (``grounding_labels`` in release.json, frozen: re-exported byte for
byte after the knowledge base is gone). SQLite and PostgreSQL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Grounding, Span
from corpusdb.cli.main import main
from tests.kb_support import KB
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.annotate import AnnotateScreen
from tui.testing import press, run_async, screen_text, settle

TEXT = "Helicobacter lives in the stomach and the gastric mucosa."


def hab(sid: str, word: str, ref: str) -> Span:
    a = TEXT.index(word)
    return Span(
        sid,
        "Habitat",
        ((a, a + len(word)),),
        word,
        groundings=(Grounding(ref, kind="OntoBiotope", extra={"st": True}),),
    )


def scene(url: str) -> Corpus:
    """alice grounds "stomach" to HAB:0003 (stomach), bob to HAB:0002 (digestive tract); both ground
    "gastric mucosa" to HAB:0004; both submitted."""
    c = Corpus.create("bb", schema=KB / "bb-cat-test.toml", url=url)
    c.kb_add("ontobiotope", KB / "habitats.obo", "obo")
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("d1", TEXT)])
    c.assign(["d1"], ["alice", "bob"])
    for who, stomach in (("alice", "HAB:0003"), ("bob", "HAB:0002")):
        me = c.as_user(who)
        info = me.my_set("d1").info
        ann = Annotations(spans=(hab("T1", "stomach", stomach), hab("T2", "gastric mucosa", "HAB:0004")))
        info = me.replace_set(info.id, ann, expected_version=info.version)
        me.submit(info.id)
    return c


def test_conflicts_show_each_grounding_with_its_label(
    any_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    c = scene(any_url)
    (dc,) = c.as_user("judy").conflicts("d1")
    shown = sorted(v.display for conflict in dc.conflicts for v in conflict.variants)
    assert shown == [
        "Habitat 26-33 'stomach' [HAB:0002 (digestive tract)]",
        "Habitat 26-33 'stomach' [HAB:0003 (stomach)]",
    ]
    assert main(["--db", any_url, "--as", "judy", "conflicts", "d1"]) == 0
    out = capsys.readouterr().out
    assert "HAB:0003 (stomach)" in out and "HAB:0002 (digestive tract)" in out


def test_bioc_carries_the_labels_and_reads_back_the_same(any_url: str, tmp_path: Path) -> None:
    c = scene(any_url)
    out = tmp_path / "alice.xml"
    c.export_file(out, "bioc", "alice")
    xml = out.read_text(encoding="utf-8")
    assert '<infon key="identifier_label">stomach</infon>' in xml
    assert '<infon key="identifier_label">gastric mucosa</infon>' in xml
    c.add_annotator("carol")
    c.import_file(out, "bioc", "carol", status="in_progress")
    carol = c.as_user("carol").my_set("d1").annotations
    assert carol.spans == c.as_user("alice").my_set("d1").annotations.spans  # no label attribute


def test_a_release_freezes_the_labels(any_url: str, tmp_path: Path) -> None:
    c = scene(any_url)
    judy = c.as_user("judy")
    judy.merge("d1")
    judy.resolve("d1", "span:26-33", take="alice")
    judy.finish_gold("d1")
    c.release("v1", outdir=tmp_path / "v1")
    rel = json.loads((tmp_path / "v1" / "release.json").read_text(encoding="utf-8"))
    assert rel["grounding_labels"] == {
        "OntoBiotope:HAB:0003": "stomach",
        "OntoBiotope:HAB:0004": "gastric mucosa",
    }
    before = {
        p.relative_to(tmp_path / "v1"): p.read_bytes() for p in (tmp_path / "v1").rglob("*") if p.is_file()
    }
    c.kb_remove("ontobiotope")
    c.export_release("v1", tmp_path / "again")
    after = {
        p.relative_to(tmp_path / "again"): p.read_bytes()
        for p in (tmp_path / "again").rglob("*")
        if p.is_file()
    }
    assert after == before


@run_async
async def test_the_tui_shows_labels_beside_ids(sqlite_url: str) -> None:
    scene(sqlite_url)
    app = build_app(open_facade(sqlite_url, "bb", "alice"), start="d1")
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, AnnotateScreen)
        app.screen.view.move_to(TEXT.index("stomach") + 1)
        await settle(pilot)
        assert "HAB:0003 (stomach)" in screen_text(app)
    app = build_app(open_facade(sqlite_url, "bb", "judy"))
    async with app.run_test(size=(140, 40)) as pilot:
        await settle(pilot)
        app.open_adjudication("d1")
        await settle(pilot)
        assert isinstance(app.screen, AdjudicateScreen)
        shown = screen_text(app)
        assert "HAB:0003 (stomach)" in shown and "HAB:0002 (digestive tract)" in shown
        await press(pilot, "escape")


# -- agreement on groundings, crediting near concepts (KB leftover b) ---------------------------

W = 0.65
S_STOMACH = {"HAB:0003": 1.0, "HAB:0002": W, "HAB:0001": W**2, "HAB:0000": W**3}
S_TRACT = {"HAB:0002": 1.0, "HAB:0001": W, "HAB:0000": W**2}
# Wang et al. (2007): sum over shared ancestors of both S-values / sum of all S-values, by hand
WANG_STOMACH_TRACT = sum(S_STOMACH[t] + S_TRACT[t] for t in S_TRACT) / (
    sum(S_STOMACH.values()) + sum(S_TRACT.values())
)


def test_groundings_agreement_credits_near_concepts(any_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    c = scene(any_url)
    assert round(WANG_STOMACH_TRACT, 4) == 0.7737
    body = c.agreement("groundings", raters=["alice", "bob"], semantic="ontobiotope").to_dict()
    (pair,) = body["pairs"]
    g = pair["groundings"]
    assert g["span_exact"]["f1"] == 0.5  # stomach: HAB:0003 vs HAB:0002; gastric mucosa: the same id
    sem = g["span_semantic"]
    assert sem["pairs"] == 2 and sem["grounded_a"] == sem["grounded_b"] == 2
    assert sem["credit"] == pytest.approx(1 + WANG_STOMACH_TRACT, abs=1e-12)
    assert sem["f1"] == pytest.approx((1 + WANG_STOMACH_TRACT) / 2, abs=1e-12)
    assert body["settings"]["semantic"] == {"kb": "ontobiotope", "measure": "wang", "weight": 0.65}
    assert "Wang et al. (2007" in body["policy"]["one_sided"]
    # without it, the report is as before (no semantic figure)
    plain = c.agreement("groundings", raters=["alice", "bob"]).to_dict()
    assert "span_semantic" not in plain["pairs"][0]["groundings"] and plain["settings"]["semantic"] is None
    # the CLI says which measure credited what
    assert (
        main(["--db", any_url, "agree", "-l", "groundings", "-a", "alice,bob", "--semantic", "ontobiotope"])
        == 0
    )
    out = capsys.readouterr().out
    assert (
        "span Wang F1" in out and "0.887" in out and "Wang et al. (2007)" in out and "edge weight 0.65" in out
    )
    assert (
        main(["--db", any_url, "agree", "-l", "spans", "--semantic", "ontobiotope"]) == 2
    )  # a usage error (options that do not go together)
    assert "layer groundings only" in capsys.readouterr().err
    assert main(["--db", any_url, "agree", "-l", "groundings", "--semantic", "ncbi"]) == 4
    assert "maps no grounding database" in capsys.readouterr().err
