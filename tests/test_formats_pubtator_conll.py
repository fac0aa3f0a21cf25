"""PubTator and CoNLL/IOB2: reading files written in each format, writing what the store holds, the
documented rule for what IOB2 cannot express (with its counts), and refusals that name file and line."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError
from corpusdb.basics.records import Annotations, Argument, Document, Grounding, Relation, Span
from corpusdb.interchange import ImportRefused
from importers.conll import format_conll, read_conll, tokenize
from importers.pubtator import format_pubtator, read_pubtator
from tests.conftest import shared_path

PUBTATOR = (
    "10021369|t|Mutations of BRCA1 in breast cancer.\n"
    "10021369|a|BRCA1 and TP53 were sequenced in 40 patients.\n"
    "10021369\t13\t18\tBRCA1\tGene\t672\n"
    "10021369\t22\t35\tbreast cancer\tDisease\tD001943\n"
    "10021369\t37\t42\tBRCA1\tGene\t672\n"
    "10021369\t47\t51\tTP53\tGene\t7157\n"
    "10021369\tAssociation\t672\tD001943\tNovel\n"
    "\n"
    "10021370|t|No entities here.\n"
    "10021370|a|\n"
)


def test_pubtator_read(tmp_path: Path) -> None:
    p = tmp_path / "x.pubtator"
    p.write_text(PUBTATOR, encoding="utf-8")
    d1, d2 = read_pubtator(p)
    assert d1.document.external_id == "10021369"
    assert (
        d1.document.text
        == "Mutations of BRCA1 in breast cancer.\nBRCA1 and TP53 were sequenced in 40 patients."
    )
    spans = d1.annotations.spans
    assert [(s.id, s.type, s.text, s.groundings) for s in spans][:2] == [
        ("T1", "Gene", "BRCA1", (Grounding("672"),)),
        ("T2", "Disease", "breast cancer", (Grounding("D001943"),)),
    ]
    [rel] = d1.annotations.relations
    assert rel.type == "Association" and rel.args == (Argument("Arg1", "T1"), Argument("Arg2", "T2"))
    assert rel.attributes == {"col5": "Novel"}
    assert d2.document.text == "No entities here.\n" and d2.annotations.spans == ()


def test_pubtator_written_back_is_the_same_file(tmp_path: Path) -> None:
    p = tmp_path / "x.pubtator"
    p.write_text(PUBTATOR, encoding="utf-8")
    docs = read_pubtator(p)
    text, notes = format_pubtator([(d.document, d.annotations) for d in docs])
    assert text == PUBTATOR and notes == []


def test_pubtator_counts_what_it_cannot_express() -> None:
    doc = Document("7", "Title line\nBody with IL-2 and\nIL-2R.")
    ann = Annotations(
        spans=(Span("T1", "protein", ((21, 25),), "IL-2", groundings=(Grounding("uniprot:P60568"),)),
               Span("T2", "protein", ((30, 32), (33, 35)), "IL 2R"), Span("T3", "protein", ((30, 34),), "IL-2")),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T3"))),),
    )  # fmt: skip
    text, notes = format_pubtator([(doc, ann)])
    assert "7|a|Body with IL-2 and IL-2R." in text  # the line break became a space: offsets hold
    assert "7\t30\t35\tIL-2R\tprotein\t-\n" in text
    assert notes == [
        "PubTator cannot express 1 discontinuous spans (written from first to last character)",
        "PubTator cannot express 1 documents whose abstract had line breaks (written as spaces)",
        "PubTator cannot express 1 relations not between two grounded mentions (left out)",
        "PubTator cannot express 2 spans without a grounding (identifier -)",
    ]


def test_pubtator_refusals_name_file_and_line(tmp_path: Path, sqlite_url: str) -> None:
    bad = PUBTATOR.replace("22\t35\tbreast cancer", "22\t35\tbreast cancre").replace(
        "\t672\tD001943", "\t999\tD001943"
    )
    p = tmp_path / "bad.pubtator"
    p.write_text(bad, encoding="utf-8")
    with pytest.raises(FormatError) as err:
        read_pubtator(p)
    msgs = [str(x) for x in err.value.problems]
    assert (
        f"{p}:1: error: document '10021369': line 4: mention 'breast cancre' is not the text at 22-35"
        in msgs[0]
    )
    assert "line 7: relation Association names '999', which no mention of this document carries" in msgs[1]
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    with pytest.raises(ImportRefused):
        c.import_file(p, "pubtator", "alice", allow_unknown=True)  # refused for the bad lines alone
    assert c.documents() == []


def test_pubtator_import_through_the_api(tmp_path: Path, sqlite_url: str) -> None:
    p = tmp_path / "x.pubtator"
    p.write_text(PUBTATOR, encoding="utf-8")
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    rep = c.import_file(p, "pubtator", "alice", allow_unknown=True)  # Gene/Disease: not GENIA's types
    assert rep.documents == 2 and rep.items["spans"] == 4 and rep.items["relations"] == 1
    out = tmp_path / "out.pubtator"
    c.export_file(out, "pubtator", "alice")
    assert out.read_text(encoding="utf-8") == PUBTATOR


# -- CoNLL ---------------------------------------------------------------------------------------

TEXT = "IL-2 receptor alpha binds IL-2.\nThe T cell grows."
ANN = Annotations(
    spans=(
        Span("T1", "protein", ((0, 19),), "IL-2 receptor alpha"),
        Span("T2", "protein", ((0, 4),), "IL-2"),  # nested in T1
        Span("T3", "protein", ((26, 30),), "IL-2"),
        Span("T4", "cell", ((36, 37), (38, 42)), "T cell"),  # discontinuous (adjacent fragments)
        Span("T5", "cell", ((33, 35),), "he"),  # boundary inside the token "The"
    ),
    relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T3"))),),
)


def test_tokenisation_is_stated_and_configurable() -> None:
    assert [TEXT[a:b] for a, b, _ in tokenize(TEXT)][:6] == ["IL", "-", "2", "receptor", "alpha", "binds"]
    assert [TEXT[a:b] for a, b, _ in tokenize(TEXT, "whitespace")][:3] == ["IL-2", "receptor", "alpha"]
    assert [k for _, _, k in tokenize(TEXT, "whitespace")] == [0, 0, 0, 0, 0, 1, 1, 1, 1]
    assert [("a-b c")[a:b] for a, b, _ in tokenize("a-b c", r"re:[^\s-]+")] == ["a", "b", "c"]


def test_conll_export_follows_the_documented_rule() -> None:
    text, notes = format_conll([(Document("d1", TEXT), ANN)], tokenizer="whitespace")
    assert text == (
        "-DOCSTART- d1\n\nIL-2\tB-protein\nreceptor\tI-protein\nalpha\tI-protein\nbinds\tO\nIL-2.\tB-protein\n\n"
        "The\tB-cell\nT\tB-cell\ncell\tB-cell\ngrows.\tO\n\n"
    )
    assert notes == [
        r"tokenisation: whitespace (\S+), sentences = lines, IOB2 tags",
        "IOB2 cannot express 1 discontinuous spans (one chunk per fragment)",
        "IOB2 cannot express 1 nested or overlapping spans (left out: the longest wins)",
        "IOB2 cannot express 1 relations (left out)",
        "IOB2 cannot express 2 spans with a boundary inside a token (whole token tagged)",
    ]
    inner, _ = format_conll([(Document("d1", TEXT), ANN)], tokenizer="whitespace", nested="inner")
    assert "IL-2\tB-protein\nreceptor\tO\n" in inner
    only, _ = format_conll([(Document("d1", TEXT), ANN)], tokenizer="whitespace", types=["cell"])
    assert "IL-2\tO\n" in only and "The\tB-cell\n" in only


def test_conll_read_back(tmp_path: Path) -> None:
    text, _ = format_conll([(Document("d1", TEXT), ANN)], offsets=True)
    p = tmp_path / "x.conll"
    p.write_text(text, encoding="utf-8")
    [d] = read_conll(p)
    assert d.document.external_id == "d1"
    assert d.document.text == TEXT  # offsets rebuild the spacing (one space per gap, a line break per line)
    assert [(s.type, s.text) for s in d.annotations.spans] == [
        ("protein", "IL-2 receptor alpha"), ("protein", "IL-2"), ("cell", "The"), ("cell", "T"), ("cell", "cell"),
    ]  # fmt: skip
    plain = tmp_path / "plain.conll"
    plain.write_text(
        "EU\tB-ORG\nrejects\tO\nGerman\tB-MISC\ncall\tO\n\nPeter\tB-PER\nBlackburn\tI-PER\n", encoding="utf-8"
    )
    [d] = read_conll(plain)
    assert d.document.external_id == "plain" and d.document.text == "EU rejects German call\nPeter Blackburn"
    assert [(s.type, s.fragments) for s in d.annotations.spans] == [("ORG", ((0, 2),)), ("MISC", ((11, 17),)),
                                                                      ("PER", ((23, 38),))]  # fmt: skip


def test_conll_bad_tag_names_its_line(tmp_path: Path) -> None:
    p = tmp_path / "bad.conll"
    p.write_text("-DOCSTART- d9\n\nIL-2\tB-protein\nbinds\tX-verb\n", encoding="utf-8")
    with pytest.raises(
        FormatError, match=r"bad\.conll:1: error: document 'd9': line 4: tag 'X-verb' is not O"
    ):
        read_conll(p)


@pytest.mark.shared
def test_conll_export_of_bacteria_biotope(tmp_path: Path, sqlite_url: str) -> None:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.import_brat(shared_path("data", "bionlp-st-2016-bb-event"), "alice", allow_unknown=True, force=True)
    out = tmp_path / "bb.conll"
    rep = c.export_file(out, "conll", "alice", options={"types": ["Bacteria", "Habitat", "Geographical"]})
    assert rep.documents == 95
    assert any("discontinuous spans" in n for n in rep.warnings)
    c2 = Corpus.create("q", "bb-2011", url=f"sqlite:///{tmp_path}/q.sqlite")
    back = c2.import_file(out, "conll", "alice", allow_unknown=True, force=True)
    written = sum(
        out.read_text(encoding="utf-8").count(f"\tB-{t}") for t in ("Bacteria", "Habitat", "Geographical")
    )
    assert back.documents == 95 and back.items["spans"] == written > 500


def test_every_format_import_keeps_the_schema_contract(tmp_path: Path, sqlite_url: str) -> None:
    """A format other than brat/BioRelEx is no way around the schema: unknown types are refused
    (nothing stored) unless allowed, as `import brat` does."""
    p = tmp_path / "x.pubtator"
    p.write_text(PUBTATOR, encoding="utf-8")
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    with pytest.raises(ImportRefused, match="not an entity type of schema ge-2011"):
        c.import_file(p, "pubtator", "alice")
    assert c.documents() == []
    assert c.import_file(p, "pubtator", "alice", allow_unknown=True).documents == 2
