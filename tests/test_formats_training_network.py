"""spaCy JSONL/DocBin export, document judgments as TSV in and out, and the interaction network merged by
grounding (GraphML read back with networkx, SIF for Cytoscape)."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError, UsageError
from corpusdb.basics.records import Annotations, Argument, DocLabel, Document, Grounding, Link, Relation, Span
from importers.spacy_out import docbin_bytes, format_jsonl

T1 = "IL-2 binds IL2RA. Interleukin-2 also binds p53."
A1 = Annotations(
    spans=(
        Span("T1", "protein", ((0, 4),), "IL-2", groundings=(Grounding("uniprot:P60568"),)),
        Span("T2", "protein", ((11, 16),), "IL2RA", groundings=(Grounding("uniprot:P01589"),)),
        Span("T3", "protein", ((18, 31),), "Interleukin-2"),  # ungrounded, but a synonym of T1
        Span("T4", "protein", ((43, 46),), "p53"),
    ),
    relations=(
        Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=1),
        Relation("R2", "bind", (Argument("Arg1", "T3"), Argument("Arg2", "T4")), label=0),
    ),
    links=(Link("L1", "synonym", "T1", "T3"),),
    labels=(DocLabel("relevance", "DR"),),
)
T2 = "IL2RA is bound by interleukin 2."
A2 = Annotations(
    spans=(
        Span("T1", "protein", ((0, 5),), "IL2RA", groundings=(Grounding("uniprot:P01589"),)),
        Span("T2", "protein", ((18, 31),), "interleukin 2", groundings=(Grounding("uniprot:P60568"),)),
    ),
    relations=(Relation("R1", "bind", (Argument("Arg1", "T2"), Argument("Arg2", "T1")), label=-1),),
    labels=(DocLabel("relevance", "PR"),),
)


@pytest.fixture
def corpus(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    c.add_annotator("alice")
    c.add_documents([Document("d1", T1), Document("d2", T2)])
    for doc, ann in (("d1", A1), ("d2", A2)):
        s = c.create_set(doc, "alice")
        s = c.replace_set(s.id, ann, expected_version=s.version)
        c.as_user("alice").submit(s.id, force=True)
    return c


def test_spacy_jsonl(tmp_path: Path, corpus: Corpus) -> None:
    rep = corpus.export_file(tmp_path / "t.jsonl", "spacy-jsonl", "alice")
    rows = [json.loads(x) for x in (tmp_path / "t.jsonl").read_text(encoding="utf-8").splitlines()]
    assert [r["meta"]["id"] for r in rows] == ["d1", "d2"]
    assert rows[0]["spans"][0] == {"start": 0, "end": 4, "label": "protein", "id": "T1"}
    assert rows[0]["relations"][1]["label"] == "bind" and rows[0]["relations"][1]["value"] == 0
    assert rows[0]["cats"] == {"relevance=DR": 1.0}
    assert rep.warnings == ("spaCy JSONL cannot express 1 links (left out)",)
    _, notes = format_jsonl(
        [(Document("x", "ab cd"), Annotations(spans=(Span("T1", "t", ((0, 2), (3, 5)), "ab cd"),)))]
    )
    assert notes == ["spaCy JSONL cannot express 1 discontinuous spans (one entry per fragment)"]


@pytest.mark.skipif(
    importlib.util.find_spec("spacy") is None,
    reason="spaCy is not installed (optional extra corpusdb[spacy])",
)
def test_spacy_docbin(tmp_path: Path, corpus: Corpus) -> None:
    import spacy
    from spacy.tokens import DocBin

    corpus.export_file(tmp_path / "t.spacy", "spacy-docbin", "alice")
    docs = list(DocBin().from_disk(tmp_path / "t.spacy").get_docs(spacy.blank("en").vocab))
    assert [d.text for d in docs] == [T1, T2]
    assert ("IL-2", "protein") in [(s.text, s.label_) for s in docs[0].spans["sc"]]


@pytest.mark.skipif(
    importlib.util.find_spec("spacy") is not None, reason="spaCy is installed: the refusal cannot occur"
)
def test_spacy_docbin_without_spacy_is_a_clear_error(tmp_path: Path) -> None:
    with pytest.raises(UsageError, match=r"needs spaCy: pip install 'corpusdb\[spacy\]'"):
        docbin_bytes([(Document("x", "y"), Annotations())])


def test_judgments_out_and_in(tmp_path: Path, corpus: Corpus, sqlite_url: str) -> None:
    out = tmp_path / "j.tsv"
    rep = corpus.export_judgments(out)
    assert out.read_text(encoding="utf-8") == (
        "document\tlabel\tvalue\tannotator\tkind\nd1\trelevance\tDR\talice\tannotation\n"
        "d2\trelevance\tPR\talice\tannotation\n"
    )
    assert rep.documents == 2
    c = Corpus.create("q", "biorelex-1.0", url=f"sqlite:///{tmp_path}/q.sqlite")
    c.add_documents([Document("d1", T1), Document("d2", T2)])
    tsv = tmp_path / "in.tsv"
    tsv.write_text("document\tlabel\tvalue\tannotator\nd1\trelevance\tNR\tbob\nd2\trelevance\tDR\tbob\n"
                   "d1\trelevance\tDR\tcarol\n", encoding="utf-8")  # fmt: skip
    with pytest.raises(UsageError, match="2 annotators"):
        c.import_judgments(tsv, allow_unknown=True)
    imp = c.import_judgments(tsv, "bob", allow_unknown=True)
    assert imp.sets_created == 2 and imp.items["labels"] == 2
    assert {(s.document_external_id, s.annotator) for s in c.sets()} == {("d1", "bob"), ("d2", "bob")}
    assert c.read_set(c.sets()[0].id).annotations.labels == (DocLabel("relevance", "NR"),)
    assert c.import_judgments(tsv, "bob", allow_unknown=True).sets_unchanged == 2  # again: nothing changes


def test_judgments_refusals_name_lines(tmp_path: Path, sqlite_url: str) -> None:
    c = Corpus.create("q", "biorelex-1.0", url=sqlite_url)
    c.add_documents([Document("d1", T1)])
    tsv = tmp_path / "in.tsv"
    tsv.write_text(
        "document\tlabel\tvalue\nd1\trelevance\tNR\nd9\trelevance\tDR\nd1\trelevance\n", encoding="utf-8"
    )
    with pytest.raises(FormatError, match=r"in\.tsv:4: error: expected document, label, value"):
        c.import_judgments(tsv, "bob", allow_unknown=True)
    tsv.write_text("document\tlabel\tvalue\nd1\trelevance\tNR\nd9\trelevance\tDR\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"in\.tsv:3: error: no document 'd9' in this project"):
        c.import_judgments(tsv, "bob", allow_unknown=True)
    assert c.sets() == []


def test_network_merged_by_grounding(tmp_path: Path, corpus: Corpus) -> None:
    import networkx as nx

    rep = corpus.export_network(tmp_path / "n.graphml", annotator="alice")
    g = nx.read_graphml(tmp_path / "n.graphml", force_multigraph=True)
    assert sorted(g.nodes) == ["uniprot:P01589", "uniprot:P60568"]
    # IL-2 / Interleukin-2 (synonyms in d1) and interleukin 2 (d2) are one node
    assert g.nodes["uniprot:P60568"]["names"] == "IL-2|Interleukin-2|interleukin 2"
    assert g.nodes["uniprot:P60568"]["documents"] == 2
    [(a, b, e)] = list(g.edges(data=True))
    assert {a, b} == {"uniprot:P01589", "uniprot:P60568"}
    assert (e["type"], e["count"], e["asserted"], e["negated"], e["documents"]) == ("bind", 2, 1, 1, 2)
    # R2 joins Interleukin-2 (grounded through its synonym) with p53 (ungrounded): left out, counted
    assert rep.warnings == (
        "network: 1 relations without two grounded entities (left out)",
        "network: 1 ungrounded entities (left out; keep them with --ungrounded)",
    )
    corpus.export_network(tmp_path / "n.sif", "sif", "alice", ungrounded=True)
    assert (tmp_path / "n.sif").read_text(encoding="utf-8") == (
        "d1:p53\tbind\tuniprot:P60568\nuniprot:P01589\tbind\tuniprot:P60568\n"
    )


def test_judgments_export_is_blind(tmp_path: Path, sqlite_url: str) -> None:
    """Bob's judgment on a document where he has not submitted stays his: alice and the lead never see it."""
    from corpusdb.services.edits import Put

    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_documents([Document("d1", T1)])
    c.assign(["d1"], ["alice", "bob"])
    for who, value in (("alice", "DR"), ("bob", "SECRET-NR")):
        me = c.as_user(who)
        s = me.my_set("d1").info
        me.edit_set(s.id, [Put(DocLabel("relevance", value))], expected_version=s.version)
        if who == "alice":
            me.submit(s.id, force=True)
    c.as_user("alice").export_judgments(tmp_path / "a.tsv")
    assert (tmp_path / "a.tsv").read_text(encoding="utf-8").splitlines()[1:] == [
        "d1\trelevance\tDR\talice\tannotation"
    ]
    rep = c.export_judgments(tmp_path / "lead.tsv")
    assert "SECRET" not in (tmp_path / "lead.tsv").read_text(encoding="utf-8") and rep.hidden == 2
