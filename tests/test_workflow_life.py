"""The whole life of a corpus on real text: import, assign, annotate, conflicts, adjudicate, split,
release v1, correct, release v2 (whose change log shows the correction), re-export byte for byte.

Runs on three Bacteria Biotope 2011 documents from ../shared when present, and always on a small
fixture of our own written below in the same format.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, ParsedDocument
from corpusdb.services.edits import Put, dependents
from importers.standoff import read_document
from tests.conftest import shared_path

FIXTURE = {
    "BB-F1": (
        "Lactobacillus acidophilus colonises the human small intestine and the vagina.",
        "T1\tBacterium 0 25\tLactobacillus acidophilus\nT2\tHost 40 45\thuman\n"
        "T3\tHostPart 46 61\tsmall intestine\nT4\tHostPart 70 76\tvagina\n"
        "E1\tLocalization Bacterium:T1 Localization:T3\nE2\tLocalization Bacterium:T1 Localization:T4\n"
        "E3\tPartOf Host:T2 Part:T3\n",
    ),
    "BB-F2": (
        "Legionella pneumophila is found in cooling towers and in amoebae living in fresh water.",
        "T1\tBacterium 0 22\tLegionella pneumophila\nT2\tEnvironment 35 49\tcooling towers\n"
        "T3\tHost 57 64\tamoebae\nT4\tWater 75 86\tfresh water\n"
        "E1\tLocalization Bacterium:T1 Localization:T2\nE2\tLocalization Bacterium:T1 Localization:T3\n",
    ),
    "BB-F3": (
        "Clostridium botulinum spores persist in soil; the bacterium also contaminates honey.",
        "T1\tBacterium 0 21\tClostridium botulinum\nT2\tSoil 40 44\tsoil\nT3\tBacterium 50 59\tbacterium\n"
        "T4\tFood 78 83\thoney\nE1\tLocalization Bacterium:T1 Localization:T2\n"
        "E2\tLocalization Bacterium:T3 Localization:T4\n*\tEquiv T1 T3\n",
    ),
}
SHARED = ("BTID-10084", "BTID-10086", "BTID-10087")


def fixture_docs(tmp: Path) -> list[ParsedDocument]:
    out = []
    for name, (text, ann) in FIXTURE.items():
        (tmp / f"{name}.txt").write_text(text, encoding="utf-8")
        (tmp / f"{name}.a2").write_text(ann, encoding="utf-8")
        out.append(read_document(tmp / f"{name}.txt"))
    return out


def shared_docs() -> list[ParsedDocument]:
    base = shared_path("data", "bionlp-st-2011-bb-train")
    return [read_document(base / f"{n}.txt") for n in SHARED]


def second_opinion(ann: Annotations) -> Annotations:
    """Bob's version of the reference: he misses the last span (and what hangs on it) and types a
    habitat span differently (still valid: Localization accepts every habitat type)."""
    last = ann.spans[-1].id
    drop = {d.key for d in dependents(ann, last)} | {last}
    spans = [s for s in ann.spans if s.id not in drop]
    in_part_of = {a.ref for r in ann.relations if r.type == "PartOf" for a in r.args}
    for i, s in enumerate(spans):
        if s.type not in ("Bacterium", "Host") and s.id not in in_part_of:
            spans[i] = replace(s, type="Environment" if s.type != "Environment" else "Water")
            break
    return Annotations(
        tuple(spans),
        tuple(r for r in ann.relations if r.id not in drop),
        tuple(lk for lk in ann.links if lk.id not in drop),
    )


def annotate(c: Corpus, who: str, doc: str, ann: Annotations) -> None:
    """Through the API, the way the TUI does it: one small edit per action, then submit."""
    me = c.as_user(who)
    s = me.my_set(doc).info
    version = s.version
    for batch in (ann.spans, ann.relations, ann.links):
        if batch:
            version = me.edit_set(s.id, [Put(x) for x in batch], expected_version=version).info.version
    assert me.validate_set(s.id) == []
    assert me.submit(s.id).status == "submitted"


def live(any_url: str, docs: list[ParsedDocument], tmp: Path) -> None:
    c = Corpus.create("bb", "bb-2011", url=any_url)
    for name in ("alice", "bob"):
        c.add_annotator(name)
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("lee", "lead")
    c.add_documents([replace(p.document, group_key=f"site-{i % 2}") for i, p in enumerate(docs)])
    lee = c.as_user("lee")
    res = lee.assign(per_document=2, seed=0)
    assert res.load == {"alice": 3, "bob": 3}
    for p in docs:
        ext = p.document.external_id
        annotate(c, "alice", ext, p.annotations)
        annotate(c, "bob", ext, second_opinion(p.annotations))

    judy = c.as_user("judy")
    found = judy.conflicts()
    assert len(found) == 3 and all(dc.open >= 2 for dc in found)  # a type dispute and a missing span at least
    judy.merge()
    rounds = 0
    while True:  # the adjudicator takes alice's version, relations once their spans are decided
        todo = [x for dc in judy.conflicts() for x in dc.conflicts if not x.blocked]
        if not todo:
            break
        for x in todo:
            judy.resolve(x.document, x.key, take="alice", reason="matches the guidelines")
        rounds += 1
        assert rounds < 5
    assert all(q.open == 0 and q.gold_status == "in_progress" for q in judy.adjudication_queue())
    for q in judy.adjudication_queue():  # the adjudicator finishes each document's gold (checked)
        assert judy.finish_gold(q.document).finished
    assert all(q.gold_status == "submitted" for q in judy.adjudication_queue())
    for p in docs:  # gold equals the reference (alice's) as data, with gold's own ids
        gold = judy.gold(p.document.external_id).annotations
        assert sorted((s.type, s.fragments) for s in gold.spans) == sorted(
            (s.type, s.fragments) for s in p.annotations.spans)  # fmt: skip
        assert len(gold.relations) == len(p.annotations.relations)
    methods = {d.method for d in judy.decisions()}
    assert methods == {"unanimous", "adjudicated"}

    rep = lee.split(seed=0, stratify=["entity"])
    assert sum(s.documents for s in rep.splits) == 3
    v1 = lee.release("v1", outdir=tmp / "v1")
    assert v1.counts["documents"] == 3
    v1_agreement = json.loads((tmp / "v1" / "agreement.json").read_text(encoding="utf-8"))
    [pair] = v1_agreement["spans"]["pairs"]
    assert (pair["a"], pair["b"], pair["documents"]) == ("alice", "bob", 3) and pair["overall"]["f1"] < 1
    assert v1_agreement["spans"]["schema"] == "corpusdb.agreement/1"
    assert v1_agreement["relations"]["pairs"][0]["a"] == "alice"

    first = docs[0].document.external_id
    span = judy.gold(first).annotations.spans[0]
    cor = judy.correct(first, action="change", key=span.id, item=replace(span, type="Host"),
                       reason="a reviewer found the type wrong")  # fmt: skip
    assert cor.after_release == "v1"
    v2 = lee.release("v2", outdir=tmp / "v2")
    log = v2.changelog
    assert log["summary"]["corrections"] == 1 and log["summary"]["items_changed"] == 1
    assert log["corrections"][0]["reason"] == "a reviewer found the type wrong"
    assert "a reviewer found the type wrong" in (tmp / "v2" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert (
        log["items_changed"][0]["before"]["type"] != "Host"
        and log["items_changed"][0]["after"]["type"] == "Host"
    )

    paths = judy.export_release("v1", tmp / "v1-again")
    assert paths
    for p in paths:
        orig = tmp / "v1" / p.relative_to(tmp / "v1-again")
        assert hashlib.sha256(p.read_bytes()).hexdigest() == hashlib.sha256(orig.read_bytes()).hexdigest()


def test_life_on_our_fixture(any_url: str, tmp_path: Path) -> None:
    live(any_url, fixture_docs(tmp_path), tmp_path)


@pytest.mark.shared
def test_life_on_bacteria_biotope_2011(sqlite_url: str, tmp_path: Path) -> None:
    live(sqlite_url, shared_docs(), tmp_path)


def test_fixture_is_read_back_exactly(tmp_path: Path) -> None:
    docs = fixture_docs(tmp_path)
    assert [len(p.annotations.spans) for p in docs] == [4, 4, 4]
    assert all(isinstance(p.document, Document) and not p.warnings for p in docs)
