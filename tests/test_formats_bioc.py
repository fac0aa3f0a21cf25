"""BioC XML and JSON: every span, relation, link, note, grounding and label survives store -> BioC -> store;
brat -> store -> BioC -> store -> brat gives the brat files back; BioC made elsewhere is read; bad input is
refused with its file and line, and nothing is stored."""

from __future__ import annotations

import filecmp
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError
from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Document,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
)
from corpusdb.interchange import ImportRefused
from importers.bioc_io import format_bioc, read_bioc, read_bioc_lenient
from tests.conftest import shared_path

TEXT = "IL-2 binds the IL-2 receptor alpha chain.\nIt is a cytokine."
ANN = Annotations(
    spans=(
        Span(
            "T1",
            "protein",
            ((0, 4),),
            "IL-2",
            {"mutant": True, "Confidence": "high"},
            (Grounding("uniprot:P60568", "IL2", "N1"),),
        ),
        Span(
            "T2", "protein", ((15, 28), (35, 40)), "IL-2 receptor chain", {}, (Grounding("uniprot:P01589"),)
        ),
        Span("T3", "protein", ((42, 44),), "It"),
    ),
    relations=(
        Relation(
            "R1", "bind", (Argument("Agent", "T1"), Argument("Theme", "T2")), label=0, tags=("implicit",)
        ),
        Relation(
            "E1", "Binding", (Argument("Theme", "T1"), Argument("Theme2", "R1")), kind="event", trigger="T3"
        ),
    ),
    links=(Link("L1", "coreference", "T3", "T1"),),
    notes=(Note("#1", "AnnotatorNotes", "T1", "check the isoform"),),
    labels=(DocLabel("relevance", "DR"),),
)
DOC = Document("doc-1", TEXT, metadata={"pmid": 42}, group_key="paper-9", split="train")


def _key(ann: Annotations) -> tuple[object, ...]:
    return (ann.spans, ann.relations, ann.links, ann.notes, ann.labels)


@pytest.mark.parametrize("fmt", ["xml", "json"])
def test_records_round_trip_through_bioc(tmp_path: Path, fmt: str) -> None:
    path = tmp_path / f"c.{fmt}"
    path.write_text(format_bioc([(DOC, ANN)], fmt=fmt), encoding="utf-8")
    [got] = read_bioc(path)
    assert got.document == DOC
    assert _key(got.annotations) == _key(ANN)


def test_bioc_xml_carries_locations_infons_and_nodes(tmp_path: Path) -> None:
    xml = format_bioc([(DOC, ANN)])
    assert '<location offset="15" length="13"/>' in xml and '<location offset="35" length="5"/>' in xml
    assert '<infon key="identifier">uniprot:P60568</infon>' in xml
    assert '<infon key="attr:mutant">true</infon>' in xml
    assert '<node refid="T1" role="Agent"/>' in xml and '<infon key="label:relevance">DR</infon>' in xml


def test_api_round_trip_and_blind_export(sqlite_url: str, tmp_path: Path) -> None:
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    c.add_annotator("alice")
    c.add_documents([DOC])
    s = c.create_set("doc-1", "alice")
    c.replace_set(s.id, ANN, expected_version=s.version)
    c.as_user("alice").submit(s.id, force=True)
    for fmt in ("bioc", "bioc-json"):
        out = tmp_path / f"x.{fmt}"
        rep = c.export_file(out, fmt, "alice")
        assert rep.documents == 1 and rep.files == (str(out),)
        c2 = Corpus.create("q", "biorelex-1.0", url=f"sqlite:///{tmp_path}/{fmt}.sqlite")
        imp = c2.import_file(out, fmt, "alice", allow_unknown=True, force=True)  # ANN: beside its schema
        assert imp.items["spans"] == 3 and imp.items["relations"] == 2 and imp.items["links"] == 1
        [back] = c2.sets()
        assert _key(c2.read_set(back.id).annotations) == _key(ANN)
        assert (
            c2.import_file(out, fmt, "alice", allow_unknown=True, force=True).sets_unchanged == 1
        )  # the same file twice changes nothing


def test_foreign_bioc_with_passages_is_read(tmp_path: Path) -> None:
    xml = """<?xml version='1.0' encoding='UTF-8'?>
<!DOCTYPE collection SYSTEM "BioC.dtd">
<collection><source>PubTator</source><date>2024</date><key>BioC.key</key>
<document><id>123</id>
<passage><infon key="type">title</infon><offset>0</offset><text>BRCA1 in cancer</text>
<annotation id="0"><infon key="identifier">672</infon><infon key="type">Gene</infon>
<location offset="0" length="5"/><text>BRCA1</text></annotation></passage>
<passage><infon key="type">abstract</infon><offset>16</offset><text>Mutations of BRCA1 matter.</text>
<annotation id="1"><infon key="identifier">672</infon><infon key="type">Gene</infon>
<location offset="29" length="5"/><text>BRCA1</text></annotation>
<relation id="R0"><infon key="type">Association</infon><node refid="0" role="Arg1"/><node refid="1" role="Arg2"/></relation>
</passage></document></collection>"""
    path = tmp_path / "pubtator.xml"
    path.write_text(xml, encoding="utf-8")
    [got] = read_bioc(path)
    assert got.document.text == "BRCA1 in cancer Mutations of BRCA1 matter."
    assert [(s.id, s.type, s.fragments, s.groundings[0].ref) for s in got.annotations.spans] == [
        ("0", "Gene", ((0, 5),), "672"),
        ("1", "Gene", ((29, 34),), "672"),
    ]
    assert got.annotations.relations[0].args == (Argument("Arg1", "0"), Argument("Arg2", "1"))
    # the passages' layout is kept, so writing gives the two passages back
    again = format_bioc([(got.document, got.annotations)])
    assert '<infon key="type">abstract</infon>' in again and "<offset>16</offset>" in again


def test_bad_bioc_is_refused_with_file_and_line(tmp_path: Path, sqlite_url: str) -> None:
    good = format_bioc([(DOC, ANN)])
    bad = good.replace('<infon key="type">protein</infon>', "", 1)
    path = tmp_path / "bad.xml"
    path.write_text(bad, encoding="utf-8")
    res = read_bioc_lenient(path)
    assert res.documents == [] and res.rejected == ["doc-1"]
    p = res.problems[0]  # then the items that pointed at T1
    assert len({x.line for x in res.problems}) == 1
    assert p.file == str(path) and p.line == next(
        i for i, x in enumerate(bad.split("\n"), 1) if "<document" in x
    )
    assert "annotation T1: no 'type' infon" in p.message
    with pytest.raises(FormatError):
        read_bioc(path)
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    with pytest.raises(ImportRefused, match=r"bad\.xml:\d+: error: document 'doc-1': annotation T1"):
        c.import_file(path, "bioc", "alice")
    assert c.documents() == []  # all or nothing
    (tmp_path / "broken.xml").write_text("<collection><document>", encoding="utf-8")
    with pytest.raises(FormatError, match=r"broken\.xml:1: error: not BioC XML"):
        read_bioc(tmp_path / "broken.xml")


def _same_tree(a: Path, b: Path) -> list[str]:
    def walk(cmp: filecmp.dircmp[str]) -> list[str]:
        bad = cmp.diff_files + cmp.left_only + cmp.right_only
        for sub in cmp.subdirs.values():
            bad += walk(sub)
        return bad

    return walk(filecmp.dircmp(a, b))


def _brat_bioc_brat(src: Path, tmp: Path, schema: str, fmt: str) -> tuple[Path, Path, int]:
    a = Corpus.create("a", schema, url=f"sqlite:///{tmp}/a-{fmt}.sqlite")
    n = a.import_brat(src, "alice", allow_unknown=True, force=True).items[
        "spans"
    ]  # corpora beside their schema
    a.export_brat(tmp / f"orig-{fmt}", "alice")
    a.export_file(tmp / f"c.{fmt}", fmt, "alice")
    b = Corpus.create("b", schema, url=f"sqlite:///{tmp}/b-{fmt}.sqlite")
    assert b.import_file(tmp / f"c.{fmt}", fmt, "alice", allow_unknown=True, force=True).items["spans"] == n
    b.export_brat(tmp / f"back-{fmt}", "alice")
    return tmp / f"orig-{fmt}", tmp / f"back-{fmt}", n


@pytest.mark.parametrize("fmt", ["bioc", "bioc-json"])
def test_brat_to_bioc_to_brat_keeps_every_entity(tmp_path: Path, fmt: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "d1.txt").write_text("Bacillus subtilis lives in soil and in the gut.", encoding="utf-8")
    (src / "d1.ann").write_text(
        "T1\tBacterium 0 17\tBacillus subtilis\nT2\tHabitat 27 31\tsoil\nT3\tHabitat 36 39;43 46\tin gut\n"
        "R1\tLives_In Bacterium:T1 Location:T2\n*\tEquiv T2 T3\nN1\tReference T1 NCBITaxon:1423\tB. subtilis\n"
        "#1\tAnnotatorNotes T1\tstrain unknown\n",
        encoding="utf-8",
    )
    orig, back, n = _brat_bioc_brat(src, tmp_path, "bb-2011", fmt)
    assert n == 3 and _same_tree(orig, back) == []
    assert (back / "d1.ann").read_bytes() == (src / "d1.ann").read_bytes()


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize("corpus", ["bionlp-st-2016-bb-event", "bionlp-st-2011-ge"])
def test_brat_to_bioc_to_brat_on_shared_corpora(tmp_path: Path, corpus: str) -> None:
    src = shared_path("data", corpus)
    orig, back, n = _brat_bioc_brat(src, tmp_path, "bb-2011", "bioc")
    assert n > 1000 and _same_tree(orig, back) == []
