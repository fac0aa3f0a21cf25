"""Derived relations (issue 28.5) and the shipped BB 2016 and GI 2011 schemas, on real data.

GI 2011: ``BindTo(Agent: A, Target: P)`` + ``PromoterOf(Agent: P, Target: G)`` imply
``Interaction(Agent: A, Target: G)``; derived items are marked with their rule and never take an
annotated item's place."""

from __future__ import annotations

from dataclasses import replace

from guidelines.derive import derived_relations, with_derived, without_derived
from guidelines.schema import load_schema
from guidelines.submission import check_submission
from importers.standoff import read_directory, read_document
from tests.conftest import shared_path


def _gi(doc: str):  # type: ignore[no-untyped-def]
    d = shared_path("data", "bionlp-st-2011-bi-train")
    return read_document(d / f"{doc}.txt", keep_unknown=True)


def test_the_gi_rule_gives_back_the_interactions_the_corpus_annotates() -> None:
    schema = load_schema("gi-2011")
    ann = _gi("PMID-10383978-S8").annotations  # sigmaA RNA polymerase binds the ald and sigE promoters
    assert derived_relations(schema.derive[0], ann) == []  # both Interactions are annotated: nothing new
    stripped = replace(ann, relations=tuple(r for r in ann.relations if r.id not in ("E7", "E8")))
    got = with_derived(schema, stripped)
    derived = [r for r in got.relations if r.extra.get("derived")]
    assert sorted((r.type, tuple((a.role, a.ref) for a in r.args), r.extra["derived"]) for r in derived) == [
        ("Interaction", (("Agent", "T5"), ("Target", "T1")), "gi-bind-promoter"),
        ("Interaction", (("Agent", "T5"), ("Target", "T3")), "gi-bind-promoter"),
    ]
    assert all(r.id.startswith("D") for r in derived)
    assert without_derived(got) == stripped  # excluded again: exactly the annotated items


def test_the_gi_rule_over_the_whole_training_corpus() -> None:
    """Every BindTo+PromoterOf chain of the training data: how many Interactions the corpus annotates
    and how many the rule adds (the rule never removes or changes an annotated item)."""
    schema = load_schema("gi-2011")
    data = shared_path("data", "bionlp-st-2011-bi-train")
    chains = added = 0
    for d in read_directory(data, keep_unknown=True):
        rels = d.annotations.relations
        binds = [r for r in rels if r.type == "BindTo"]
        proms = [r for r in rels if r.type == "PromoterOf"]
        chains += sum(1 for b in binds for p in proms if b.args[1].ref == p.args[0].ref)
        new = with_derived(schema, d.annotations)
        assert new.relations[: len(rels)] == rels
        added += len(new.relations) - len(rels)
    assert chains > 0 and 0 <= added < chains  # most chains come with their Interaction annotated


def test_shipped_bb_2016_schema_accepts_the_real_training_data() -> None:
    """Every type and role of the real data is in the schema; the validator finds only the corpus's
    own two duplicates (a Lives_In given twice, a Habitat span given twice), each with its line."""
    data = shared_path("data", "bionlp-st-2016-bb-event", "BioNLP-ST-2016_BB-event_train")
    res = check_submission(load_schema("bb-2016"), data)
    assert len(res.documents) == 61
    assert sorted(f"{p.file.rsplit('/', 1)[1]}:{p.line}: {p.message}" for p in res.errors) == [
        "BB-event-18845825.a2:3: relation R3: duplicate of R2 (same type Lives_In and arguments)",
        "BB-event-2696427.a1:33: span T33: duplicate of T32 (same type Habitat and offsets)",
    ]


def test_derive_rules_are_checked_when_the_schema_is_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from importlib import resources

    import pytest

    from corpusdb.basics.errors import SchemaError

    src = (resources.files("guidelines") / "schemas" / "gi-2011.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(src.replace('join = ["Target", "Agent"]', 'join = ["Target", "Nope"]'), encoding="utf-8")
    with pytest.raises(SchemaError, match="join must name a role of BindTo and a role of PromoterOf"):
        load_schema(bad)
