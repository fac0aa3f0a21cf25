"""Entities in the store and in the agreement report, on SQLite and PostgreSQL.

Two annotators import the same BioRelEx sentences, one with every cluster, name, mention and
interaction listed in another order: the store keeps each side's entities and entity arguments,
and the report scores 1.0 on relations (strict and relaxed), clusters and groundings.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import Annotations, Argument, Document, Entity, Relation, Span
from corpusdb.cli.main import main
from importers.biorelex import read_biorelex
from tests.conftest import FIXTURES
from tests.test_agreement_entities import RAW, shuffled

ENTITIES = FIXTURES / "biorelex" / "entities.json"


def _project(url: str, tmp_path: Path) -> Corpus:
    other = tmp_path / "shuffled.json"
    other.write_text(json.dumps(shuffled(RAW, random.Random(3)), indent=1))
    corpus = Corpus.create("bx", "biorelex-1.0", url=url)
    corpus.import_biorelex(ENTITIES, "alice")
    corpus.import_biorelex(other, "bob")
    return corpus


def test_entities_and_entity_arguments_round_trip(any_url: str, tmp_path: Path) -> None:
    corpus = _project(any_url, tmp_path)
    want = {d.document.external_id: d.annotations for d in read_biorelex(ENTITIES)}
    for info in corpus.sets(annotator="alice"):
        got = corpus.read_set(info.id).annotations
        assert got.entities == want[info.document_external_id].entities
        assert got.relations == want[info.document_external_id].relations
    out = tmp_path / "out.json"
    corpus.export_biorelex(out, "alice")
    assert out.read_bytes() == ENTITIES.read_bytes()


def test_report_scores_one_on_reordered_copies(any_url: str, tmp_path: Path) -> None:
    corpus = _project(any_url, tmp_path)
    for layer, mode in (
        ("relations", "strict"),
        ("relations", "relaxed"),
        ("links", "strict"),
        ("groundings", "strict"),
    ):
        body = corpus.agreement(layer, relation_mode=mode).to_dict()
        p = body["pairs"][0]
        assert p["overall"]["f1"] == 1.0, (layer, mode, p["overall"])
        if layer == "links":
            assert p["overall"]["matched"] == 8  # co-referring pairs of mentions and names
            assert {k: v["f1"] for k, v in p["clusters"].items()} == {
                "muc": 1.0,
                "b_cubed": 1.0,
                "ceaf_e": 1.0,
            }
        if layer == "groundings":
            g = p["groundings"]
            assert (g["span_exact"]["f1"], g["span_overlap"]["f1"], g["document"]["matched"]) == (1.0, 1.0, 6)
            assert set(g["per_database"]) == {"hgnc", "uniprot"}


def test_cli_groundings_layer(sqlite_url: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    _project(sqlite_url, tmp_path)
    assert main(["--db", sqlite_url, "agree", "-l", "groundings", "-f", "json"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["layer"] == "groundings" and body["pairs"][0]["overall"]["f1"] == 1.0
    assert "BioCreative II.5" in body["policy"]["one_sided"]
    assert main(["--db", sqlite_url, "agree", "-l", "links"]) == 0
    out = capsys.readouterr().out
    assert "MUC F1" in out and "CEAF-e F1" in out


def test_an_entity_member_must_be_a_span_of_the_set(sqlite_url: str) -> None:
    corpus = Corpus.create("bx", "biorelex-1.0", url=sqlite_url)
    corpus.add_documents([Document("d", "IL-2 binds")])
    corpus.add_annotator("alice")
    bad = Annotations(
        spans=(Span("T1", "protein", ((0, 4),), "IL-2"),),
        relations=(Relation("R1", "bind", (Argument("Arg1", "C1"), Argument("Arg2", "C1"))),),
        entities=(Entity("C1", "protein", ("T1", "T9")),),
    )
    with pytest.raises(InvalidInput, match="member 'T9' is not a span"):
        corpus.create_set("d", "alice", annotations=bad)
    good = Annotations(spans=bad.spans, relations=bad.relations, entities=(Entity("C1", "protein", ("T1",)),))
    info = corpus.create_set("d", "alice", annotations=good, status="submitted")
    assert corpus.read_set(info.id).annotations == good


def test_deleting_a_mention_leaves_its_entity_and_undo_restores_it() -> None:
    """An annotator removes a mention of a BioRelEx cluster: the entity keeps its other members (the
    set stays valid), and the inverse changes put the mention back into the cluster."""
    from corpusdb.services.edits import Remove, apply_changes

    ann = read_biorelex(ENTITIES)[0].annotations
    c1 = ann.entities[0]
    gone = c1.members[1]
    new, undo = apply_changes(ann, [Remove("span", gone)])
    assert new.entities[0].members == tuple(m for m in c1.members if m != gone)
    assert new.relations == ann.relations  # the relations on the entity stay
    back, _ = apply_changes(new, undo)
    assert back == ann


def test_migration_0004_goes_down_and_up_again(any_url: str, tmp_path: Path) -> None:
    """Down to 0003 (refused while relations name entities), then up again, on both backends."""
    from alembic import command
    from sqlalchemy import inspect

    from corpusdb.store import db, migrate

    corpus = _project(any_url, tmp_path)
    engine = corpus.engine

    def down(to: str) -> None:
        cfg = migrate._config()
        with db.write(engine) as conn:
            cfg.attributes["connection"] = conn
            command.downgrade(cfg, to)

    with pytest.raises(RuntimeError, match="entity arguments"):
        down("0003")
    assert migrate.current(engine) == migrate.head()  # the refusal rolled everything back
    assert "entity" in inspect(engine).get_table_names()
    for info in corpus.sets():
        corpus.replace_set(info.id, Annotations(), expected_version=info.version)
    down("0003")
    assert "entity" not in inspect(engine).get_table_names()
    assert "entity_id" not in {c["name"] for c in inspect(engine).get_columns("relation_arg")}
    migrate.upgrade(engine)
    assert migrate.current(engine) == migrate.head()
    corpus.import_biorelex(ENTITIES, "carol")
    assert len(corpus.read_set(corpus.sets(annotator="carol")[0].id).annotations.entities) == 4
