"""Splits (stratified, group-aware, stable), corrections, the review queue, releases and re-export."""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, Argument, DocLabel, Document, Link, Relation, Span
from corpusdb.workflow.splits import DocFeatures, plan

TEXT = "Bacillus subtilis lives in soil and in the gut of chickens."


def feats(n: int, groups: int, label_every: int = 4) -> list[DocFeatures]:
    return [
        DocFeatures(f"d{i:03d}", f"g{i % groups}", None, Counter({"relation_label:-1": 1} if i % label_every == 0 else {"relation_label:1": 2}))
        for i in range(n)
    ]  # fmt: skip


def test_plan_is_group_aware_stratified_reproducible_and_stable() -> None:
    names, ratios = ("train", "dev", "test"), (0.7, 0.1, 0.2)
    docs = feats(200, 80)
    a = plan(docs, names, ratios, seed=3)
    assert a == plan(docs, names, ratios, seed=3)
    assert a != plan(docs, names, ratios, seed=4)
    by_group: dict[str, set[str]] = {}
    for d in docs:
        by_group.setdefault(d.group or "", set()).add(a[d.external_id])
    assert all(len(s) == 1 for s in by_group.values())  # no group crosses splits
    share = Counter(a.values())
    assert abs(share["train"] / 200 - 0.7) < 0.05 and abs(share["test"] / 200 - 0.2) < 0.05
    neg = Counter(a[d.external_id] for d in docs if "relation_label:-1" in d.counts)
    assert abs(neg["train"] / sum(neg.values()) - 0.7) < 0.1  # negated relations spread like the whole
    # documents added later: the old ones keep their split, the new ones of a placed group join it
    old = [DocFeatures(d.external_id, d.group, a[d.external_id], d.counts) for d in docs]
    new = [DocFeatures(f"n{i}", f"g{i}", None, Counter()) for i in range(5)] + [
        DocFeatures(f"m{i}", f"new{i}", None, Counter()) for i in range(30)]  # fmt: skip
    b = plan(old + new, names, ratios, seed=3)
    assert all(b[d.external_id] == a[d.external_id] for d in docs)
    assert all(b[f"n{i}"] == a[next(d.external_id for d in docs if d.group == f"g{i}")] for i in range(5))


def gold_of(c: Corpus, ext: str, ann: Annotations) -> None:
    """Make a document's gold quickly: one annotator, submitted, merged, finished."""
    s = c.create_set(ext, "alice", annotations=ann)
    c.as_user("alice").submit(s.id)
    c.merge(ext)
    c.finish_gold(ext)


@pytest.fixture
def corpus(any_url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=any_url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("tagger", "system")
    c.add_documents([Document(f"doc{i}", TEXT, group_key=f"site{i % 3}") for i in range(6)])
    ann = Annotations(
        spans=(
            Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
            Span("T2", "Soil", ((27, 31),), "soil"),
        ),
        relations=(
            Relation("R1", "Localization", (Argument("Bacterium", "T1"), Argument("Localization", "T2"))),
        ),
    )
    for i in range(6):
        gold_of(c, f"doc{i}", ann)
    return c


def test_split_release_correct_release_and_reexport(corpus: Corpus, tmp_path: Path) -> None:
    rep = corpus.split(seed=1, stratify=["entity"])
    assert rep.newly_assigned == 6 and sum(s.documents for s in rep.splits) == 6
    assert all(s.distance in (None, 0.0) or s.distance < 0.5 for s in rep.splits)
    splits = {d.external_id: d.split for d in corpus.documents(with_text=False)}
    for g in range(3):
        assert len({splits[f"doc{i}"] for i in range(6) if i % 3 == g}) == 1
    again = corpus.split(seed=99)
    assert again.newly_assigned == 0 and again.kept == 6  # already split: nothing moves
    v1 = corpus.release("v1", outdir=tmp_path / "v1", notes="first")
    assert v1.counts["documents"] == 6 and v1.counts["spans"] == 12 and v1.previous is None
    man = json.loads((tmp_path / "v1" / "manifest.json").read_text(encoding="utf-8"))
    for rel, meta in man["files"].items():
        data = (tmp_path / "v1" / rel).read_bytes()
        assert hashlib.sha256(data).hexdigest() == meta["sha256"] and len(data) == meta["bytes"]
    rel_json = json.loads((tmp_path / "v1" / "release.json").read_text(encoding="utf-8"))
    assert rel_json["format"] == "corpusdb-release" and rel_json["format_version"] == 2
    assert sorted(d for ids in rel_json["splits"].values() for d in ids) == [f"doc{i}" for i in range(6)]
    doc0 = next(d for d in rel_json["documents"] if d["id"] == "doc0")
    assert doc0["annotations"]["relations"] == [{"id": "R1", "type": "Localization",
                                                 "args": [["Bacterium", "T1"], ["Localization", "T2"]]}]  # fmt: skip
    assert {d["method"] for d in doc0["decisions"]} == {"unanimous"}
    split0 = splits["doc0"]
    assert (tmp_path / "v1" / "brat" / split0 / "doc0.ann").read_text(encoding="utf-8").startswith(
        "T1\tBacterium 0 17\tBacillus subtilis\n")  # fmt: skip
    with pytest.raises(Conflict, match="immutable"):
        corpus.release("v1")

    judy = corpus.as_user("judy")
    with pytest.raises(InvalidInput, match="reason"):
        judy.correct(
            "doc0", action="change", key="T2", item=Span("T2", "Environment", ((27, 31),), "soil"), reason=""
        )
    with pytest.raises(InvalidInput, match="breaks the schema"):
        judy.correct(
            "doc0", action="change", key="T2", item=Span("T2", "Dirt", ((27, 31),), "soil"), reason="x"
        )
    with pytest.raises(InvalidInput, match="R1"):
        judy.correct("doc0", action="delete", key="T2", reason="x")
    with pytest.raises(UsageError, match="author"):
        corpus.correct("doc0", action="delete", key="R1", reason="x")
    c1 = judy.correct("doc0", action="change", key="T2", item=Span("T2", "Environment", ((27, 31),), "soil"),
                      reason="soil is an environment in this guideline")  # fmt: skip
    assert (c1.action, c1.item_id, c1.author, c1.after_release, c1.before["type"]) == (
        "change",
        "T2",
        "judy",
        "v1",
        "Soil",
    )
    c2 = corpus.correct("doc1", action="add", item=Span("x", "Host", ((50, 58),), "chickens"), reason="missed host",
                        author="judy")  # fmt: skip
    assert c2.item_id == "T3"
    judy.correct("doc2", action="delete", key="R1", reason="not stated")
    assert [d.method for d in judy.decisions("doc0")][-1] == "corrected"
    assert len(judy.corrections()) == 3

    v2 = corpus.release("v2", outdir=tmp_path / "v2")
    log = v2.changelog
    assert log["previous"] == "v1"
    assert log["summary"] == {"documents_added": 0, "documents_removed": 0, "documents_moved": 0,
                              "items_added": 1, "items_removed": 1, "items_changed": 1, "corrections": 3}  # fmt: skip
    assert [c["reason"] for c in log["corrections"]] == [
        "soil is an environment in this guideline", "missed host", "not stated"]  # fmt: skip
    md = (tmp_path / "v2" / "CHANGELOG.md").read_text(encoding="utf-8")
    assert "soil is an environment in this guideline" in md and "Changes since v1" in md
    assert [r.version for r in corpus.releases()] == ["v1", "v2"]

    # byte-for-byte re-export of both releases, long after, from the stored snapshots
    for v in ("v1", "v2"):
        paths = corpus.export_release(v, tmp_path / f"{v}-again")
        for p in paths:
            orig = tmp_path / v / p.relative_to(tmp_path / f"{v}-again")
            assert hashlib.sha256(p.read_bytes()).digest() == hashlib.sha256(orig.read_bytes()).digest()
        assert len(paths) == len(list((tmp_path / v).rglob("*.*")))
    with pytest.raises(NotFound):
        corpus.export_release("v9", tmp_path / "x")
    with pytest.raises(PermissionDenied):
        corpus.as_user("alice").export_release("v1", tmp_path / "x")


def test_release_refuses_open_conflicts_and_nothing(any_url: str) -> None:
    c = Corpus.create("p", "bb-2011", url=any_url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_documents([Document("d", TEXT)])
    with pytest.raises(Conflict, match="nothing to release"):
        c.release("v1")
    a = c.create_set(
        "d",
        "alice",
        status="submitted",
        annotations=Annotations(spans=(Span("T1", "Soil", ((27, 31),), "soil"),)),
    )
    c.create_set("d", "bob", status="submitted")
    c.merge()
    with pytest.raises(Conflict, match="not finished"):
        c.release("v1")
    info = c.release("v1", allow_open=True)  # unfinished gold as it stands
    assert info.counts["documents"] == 1 and info.counts["spans"] == 0
    assert a.id


def test_review_queue_ranks_gold_suspects(corpus: Corpus) -> None:
    # gold of doc0 says Soil; two other annotators and a system say Environment; two see the host
    ann = Annotations(spans=(Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
                             Span("T2", "Environment", ((27, 31),), "soil"), Span("T3", "Host", ((50, 58),), "chickens")))  # fmt: skip
    corpus.create_set("doc0", "bob", status="submitted", annotations=ann)
    corpus.create_set("doc0", "tagger", kind="prediction", annotations=ann)
    sus = corpus.as_user("judy").review(min_sources=2)
    got = [(s.document, s.key, s.problem, s.disagreeing) for s in sus]
    assert ("doc0", "span:27-31", "differs", 2) in got  # alice agrees with gold; bob and tagger do not
    assert ("doc0", "span:50-58", "missing_in_gold", 2) in got
    assert (
        "doc0",
        "relation:Localization(Bacterium=span:0-17,Localization=span:27-31)",
        "only_in_gold",
        2,
    ) in got
    diff = next(s for s in sus if s.key == "span:27-31")
    assert diff.proposed.type == "Environment" and diff.gold_item.type == "Soil"  # type: ignore[union-attr]
    assert {r.annotator for r in diff.supporting} == {"bob", "tagger"}
    assert corpus.review(min_sources=2, predictions=False) == []  # bob alone is not enough
    with pytest.raises(PermissionDenied):
        corpus.as_user("bob").review()


def test_relabel_a_document(any_url: str) -> None:
    c = Corpus.create("p", "trec-relevance", url=any_url)
    c.add_annotator("alice")
    c.add_annotator("lee", "lead")
    c.add_documents([Document("PMID-1", "An abstract about genes.")])
    gold_of(c, "PMID-1", Annotations(labels=(DocLabel("relevance", "NR"),)))
    c.release("v1")
    lee = c.as_user("lee")
    with pytest.raises(InvalidInput, match="breaks the schema"):
        lee.correct("PMID-1", action="change", key="relevance", item=DocLabel("relevance", "YES"), reason="x")
    lee.correct("PMID-1", action="change", key="relevance", item=DocLabel("relevance", "DR"),
                reason="every system found it relevant; re-read: it is")  # fmt: skip
    v2 = c.release("v2")
    [ch] = v2.changelog["items_changed"]
    assert (ch["kind"], ch["id"], ch["before"]["value"], ch["after"]["value"]) == (
        "label",
        "relevance",
        "NR",
        "DR",
    )


def test_biorelex_project_release_and_ids_never_reused(any_url: str, tmp_path: Path) -> None:
    from importers.biorelex import read_biorelex

    text = "IL-2 binds the IL-2 receptor (IL-2R) in T cells."
    c = Corpus.create("bx", "biorelex-1.0", url=any_url)
    c.add_annotator("alice")
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("1.0.train.1", text, group_key="PMID:9")])
    spans = (
        Span("T1", "protein", ((0, 4),), "IL-2"),
        Span("T2", "protein", ((15, 28),), "IL-2 receptor"),
        Span("T3", "protein", ((30, 35),), "IL-2R"),
    )
    ann = Annotations(
        spans=spans,
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), label=1),),
        links=(Link("L1", "abbreviation", "T2", "T3"),),
    )
    gold_of(c, "1.0.train.1", ann)
    c.split(ratios=(1, 0, 0))
    c.release("v1", outdir=tmp_path / "v1")
    [parsed] = read_biorelex(tmp_path / "v1" / "biorelex" / "train.json")
    assert parsed.document.text == text
    assert len(parsed.annotations.spans) == 3 and [r.label for r in parsed.annotations.relations] == [1]
    judy = c.as_user("judy")
    judy.correct("1.0.train.1", action="delete", key="R1", reason="the text does not say so")
    new = judy.correct(
        "1.0.train.1",
        action="add",
        item=Relation("x", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T3")), label=0),
        reason="it binds the abbreviated receptor",
    )
    assert new.item_id == "R2"  # R1 named another relation in v1: never reused
    log = c.release("v2").changelog
    assert [(x["kind"], x["id"]) for x in log["items_removed"]] == [("relation", "R1")]
    assert [(x["kind"], x["id"]) for x in log["items_added"]] == [("relation", "R2")]
