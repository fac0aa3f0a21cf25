"""Groundings against knowledge bases: unknown, obsolete and off-branch ids at submit, import and
adjudication (SQLite and PostgreSQL); the BB 2016 normalisation corpus imported, linked and written
back byte for byte; its normalisation score with Wang et al. (2007) similarity."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, NotFound
from corpusdb.basics.records import Annotations, Document, Grounding, Span
from corpusdb.evaluation.bb2016_norm import Wang, exact, score_bb_norm
from corpusdb.workflow.types import SubmissionRefused
from importers import standoff
from tests.conftest import shared_path
from tests.kb_support import KB, ontobiotope, pg_database

TEXT = "gut and soil and stomach"


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def corpus(request: pytest.FixtureRequest) -> Iterator[Corpus]:
    urls = iter([request.getfixturevalue("sqlite_url")]) if request.param == "sqlite" else pg_database()
    for url in urls:
        # bb-2016-cat with HAB:0000 as the Habitat branch: habitats.obo stands in for OntoBiotope
        c = Corpus.create("bb", schema=KB / "bb-cat-test.toml", url=url)
        c.kb_add("ontobiotope", KB / "habitats.obo", "obo")
        c.kb_add("ncbi-taxonomy", KB / "taxdump", "ncbi-taxonomy")
        c.add_annotator("alice")
        c.add_documents([Document("d1", TEXT)])
        yield c
        c.engine.dispose()


def habitat(sid: str, a: int, b: int, *refs: str, st: bool = True) -> Span:
    gs = tuple(Grounding(r, kind="OntoBiotope", extra={"st": True}) if st else Grounding(r) for r in refs)
    return Span(sid, "Habitat", ((a, b),), TEXT[a:b], groundings=gs)


def test_submit_refuses_unknown_and_off_branch_ids_and_warns_on_obsolete(corpus: Corpus) -> None:
    alice = corpus.as_user("alice")
    info = corpus.create_set("d1", "alice")
    ann = Annotations(spans=(
        habitat("T1", 0, 3, "HAB:0002"),                  # fine: gut
        habitat("T2", 8, 12, "HAB:0009"),                 # obsolete: use HAB:0007
        habitat("T3", 17, 24, "HAB:0999"),                # no such id
        habitat("T4", 17, 24, "OBT:PHE:0001", st=False),  # brat form via the OBT alias; not a habitat
    ))  # fmt: skip
    info = alice.replace_set(info.id, ann, expected_version=info.version)
    found = {(v.code, v.item_id, v.severity) for v in alice.validate_set(info.id)}
    assert ("grounding-obsolete", "T2", "warning") in found
    assert ("grounding-unknown-id", "T3", "error") in found
    assert ("grounding-outside-branch", "T4", "error") in found  # OBT:PHE:0001 -> PHE:0001: no habitat
    assert not [f for f in found if f[1] == "T1"]
    with pytest.raises(SubmissionRefused) as exc:
        alice.submit(info.id)
    assert "HAB:0999: no such id in the knowledge base 'ontobiotope'" in str(exc.value)
    msgs = [v.message for v in alice.validate_set(info.id) if v.code == "grounding-obsolete"]
    assert msgs == ["OntoBiotope:HAB:0009 (old soil term) is obsolete in 'ontobiotope'; use HAB:0007"]
    # the right ids: only the obsolete warning is left, and the set is submitted
    fixed = Annotations(spans=(habitat("T1", 0, 3, "HAB:0002"), habitat("T2", 8, 12, "HAB:0009"),
                               habitat("T3", 17, 24, "HAB:0003")))  # fmt: skip
    info = alice.replace_set(info.id, fixed, expected_version=info.version)
    assert alice.submit(info.id).status == "submitted"


def test_off_branch_and_bacteria_ids(corpus: Corpus) -> None:
    alice = corpus.as_user("alice")
    info = corpus.create_set("d1", "alice")
    ann = Annotations(spans=(
        Span("T1", "Habitat", ((0, 3),), "gut", groundings=(Grounding("PHE:0001", kind="OntoBiotope", extra={"st": True}),)),
        Span("T2", "Bacteria", ((8, 12),), "soil", groundings=(Grounding("562", kind="NCBI_Taxonomy", extra={"st": True}),)),
        Span("T3", "Bacteria", ((17, 24),), "stomach", groundings=(Grounding("NCBITaxon:12345"),)),
    ))  # fmt: skip
    info = alice.replace_set(info.id, ann, expected_version=info.version)
    found = {(v.code, v.item_id) for v in alice.validate_set(info.id) if v.code.startswith("grounding")}
    assert found == {("grounding-outside-branch", "T1"), ("grounding-obsolete", "T3")}
    labels = corpus.grounding_labels(
        ["NCBI_Taxonomy:562", "OntoBiotope:HAB:0004", "OBT:HAB:0004", "uniprot:P1"]
    )
    assert labels == {"NCBI_Taxonomy:562": "Escherichia coli", "OntoBiotope:HAB:0004": "gastric mucosa",
                      "OBT:HAB:0004": "gastric mucosa"}  # fmt: skip


def _bb_files(tmp: Path, ref: str) -> Path:
    """One hand-made BB-cat document (the BioNLP-ST N line form) with the given OntoBiotope referent."""
    d = tmp / "bb"
    d.mkdir()
    (d / "x1.txt").write_text("Helicobacter pylori in the gut.\n")
    (d / "x1.a1").write_text("T1\tBacteria 0 19\tHelicobacter pylori\nT2\tHabitat 27 30\tgut\n")
    (d / "x1.a2").write_text(
        f"N1\tNCBI_Taxonomy Annotation:T1 Referent:210\nN2\tOntoBiotope Annotation:T2 Referent:{ref}\n"
    )
    return d


def test_import_refuses_an_unknown_id_whole(corpus: Corpus, tmp_path: Path) -> None:
    bad = _bb_files(tmp_path, "HAB:0999")
    with pytest.raises(InvalidInput, match="HAB:0999: no such id in the knowledge base 'ontobiotope'"):
        corpus.import_brat(bad, "bob")
    with pytest.raises(NotFound):  # nothing was stored, not even the annotator
        corpus.as_user("bob")
    shutil.rmtree(bad)
    good = _bb_files(tmp_path, "HAB:0002")
    report = corpus.import_brat(good, "bob")
    assert report.sets_created == 1
    out = tmp_path / "out"
    corpus.export_brat(out, "bob", flat=True)
    assert (out / "x1.a2").read_bytes() == (good / "x1.a2").read_bytes()


def test_adjudication_check_lists_unknown_ids(corpus: Corpus, tmp_path: Path) -> None:
    d = _bb_files(tmp_path, "HAB:0999")
    corpus.import_brat(d, kind="gold", force=True)  # --force: stored as it is
    check = corpus.check_gold("x1")
    assert [(v.code, v.item_id) for v in check.violations if v.code.startswith("grounding-")] == [
        ("grounding-unknown-id", "T2")
    ]


def test_wang_similarity_by_hand() -> None:
    # R <- A <- C ; R <- B ; w = 0.65: S_C = {C: 1, A: .65, R: .4225}, S_B = {B: 1, R: .65}, S_A = {A: 1, R: .65}
    w = Wang({"A": ("R",), "B": ("R",), "C": ("A",)})
    assert w.similarity("C", "B") == pytest.approx((0.4225 + 0.65) / (2.0725 + 1.65))
    assert w.similarity("C", "A") == pytest.approx((0.65 + 1 + 0.4225 + 0.65) / (2.0725 + 1.65))
    assert w.similarity("C", "C") == 1.0 and w.similarity("C", "Z") == 0.0
    # best-match average of two concept sets: ({C, B} vs {A}) = (sim(C,A) + sim(B,A) + max(sim(A,C), sim(A,B))) / 3
    ca, ba = w.similarity("C", "A"), w.similarity("B", "A")
    assert w.set_similarity({"C", "B"}, {"A"}) == pytest.approx((ca + ba + max(ca, ba)) / 3)
    assert w.set_similarity({"C"}, set()) == 0.0
    # the official exact measure: |A ∩ B| / (|A| + |A \\ B|)
    assert (exact({"1"}, {"1"}), exact({"1"}, {"2"}), exact({"1", "2"}, {"1"})) == (1.0, 0.0, 1 / 3)


@pytest.mark.shared
def test_bb_cat_2016_corpus_imports_links_and_round_trips(sqlite_url: str, tmp_path: Path) -> None:
    src = shared_path("data", "bionlp-st-2016-bb-cat-dev")
    c = Corpus.create("bb", schema="bb-2016-cat", url=sqlite_url)
    c.kb_add("ontobiotope", ontobiotope(), "obo")  # the real OntoBiotope of the task (skips without it)
    report = c.import_brat(src, kind="gold", force=True)  # no NCBI Taxonomy here: its ids are not checked
    assert report.documents == 36 and report.items["spans"] == 788
    gold = c.evaluation_data(systems=[]).reference
    assert sum(len(s.groundings) for a in gold.values() for s in a.spans) == 780
    labels = c.grounding_labels(["OntoBiotope:OBT:000965", "NCBI_Taxonomy:210"])
    assert labels == {"OntoBiotope:OBT:000965": "gastric mucosa"}  # NCBI not loaded: no label
    out = tmp_path / "out"
    c.export_brat(out, gold=True, flat=True)
    written = sorted(p.name for p in out.iterdir())
    assert len(written) == 108
    assert all((out / f).read_bytes() == (src / f).read_bytes() for f in written)
    violations = [
        v for d in ("BB-cat-10496597",) for v in c.check_gold(d).violations if v.code.startswith("grounding-")
    ]
    assert [v.code for v in violations] == [
        "grounding-kb-missing"
    ]  # every OntoBiotope id exists and is a habitat


@pytest.mark.shared
def test_bb_norm_score_on_the_real_corpus(tmp_path: Path) -> None:
    from corpusdb.cli.main import main

    src = shared_path("data", "bionlp-st-2016-bb-cat-dev")
    obo = ontobiotope()
    docs = {d.document.external_id: d.annotations for d in standoff.read_directory(src)}
    from importers.kb_obo import read_obo

    wang = Wang({c.id: c.parents for c in read_obo(obo)})
    same = score_bb_norm(docs, docs, wang)
    assert same["all"].totals() == (698.0, 0.0, 0.0)  # 454 Habitat + 244 Bacteria entities
    # a prediction that names each Habitat's parent instead: Wang credits the near concept
    parent = {c: p[0] for c, p in wang.parents.items() if p}
    pred = {}
    for doc, ann in docs.items():
        spans = tuple(
            s if s.type != "Habitat" else Span(s.id, s.type, s.fragments, s.text, groundings=tuple(
                Grounding(parent.get(g.ref, g.ref), kind=g.kind, extra=g.extra) for g in s.groundings))
            for s in ann.spans
        )  # fmt: skip
        pred[doc] = Annotations(spans=spans)
    got = score_bb_norm(docs, pred, wang)
    tp_h = got["Habitat"].totals()[0]
    assert got["Habitat exact"].totals()[0] < 40 < tp_h < 454  # exact ids mostly wrong, Wang credits them
    assert got["Bacteria"].totals()[0] == 244.0
    pdir = tmp_path / "pred"
    pdir.mkdir()
    for doc, ann in pred.items():
        text = (src / f"{doc}.txt").read_text(encoding="utf-8")
        standoff.write_document(Document(doc, text), ann, pdir)
    assert main(["evaluate", "bb-norm", str(src), str(pdir), "--ontology", str(obo), "-f", "json"]) == 0
