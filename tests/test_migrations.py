"""Migrations: an empty database and an older one both reach head, data intact, on both backends."""

from __future__ import annotations

from pathlib import Path

import pytest
from alembic.autogenerate import compare_metadata
from alembic.runtime.migration import MigrationContext
from sqlalchemy import inspect, text

from corpusdb.api import Corpus
from corpusdb.basics.errors import DatabaseError
from corpusdb.cli.main import main
from corpusdb.store import db, migrate
from corpusdb.store.models import metadata


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def empty_url(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'empty.sqlite'}"
    return request.getfixturevalue("pg_url")


def test_upgrade_empty_database_matches_models(empty_url: str) -> None:
    engine = db.make_engine(empty_url)
    assert migrate.current(engine) is None
    before, after = migrate.upgrade(engine)
    assert (before, after) == (None, migrate.head())
    with engine.connect() as conn:
        diff = compare_metadata(
            MigrationContext.configure(
                conn, opts={"compare_type": True, "include_object": migrate.include_object}
            ),
            metadata,
        )
    assert diff == [], f"models and migrations disagree: {diff}"
    migrate.ensure_current(engine)
    assert migrate.upgrade(engine) == (migrate.head(), migrate.head())  # idempotent


def test_upgrade_older_database_keeps_its_data(empty_url: str) -> None:
    """A database made by the first release (revision 0001) is brought to head with its rows."""
    engine = db.make_engine(empty_url)
    migrate.upgrade(engine, "0001")
    assert "decision" not in inspect(engine).get_table_names()
    with db.write(engine) as conn:
        conn.execute(
            text(
                "INSERT INTO project (name, schema_name, created) VALUES ('old', 'bb-2011', CURRENT_TIMESTAMP)"
            )
        )
        conn.execute(
            text(
                "INSERT INTO guideline (project_id, version, schema_name, schema_data, text, note, created) "
                "SELECT id, 1, 'bb-2011', NULL, 'old text', 'v1', CURRENT_TIMESTAMP FROM project"
            )
        )
    with pytest.raises(DatabaseError, match="older"):
        migrate.ensure_current(engine)
    before, after = migrate.upgrade(engine)
    assert (before, after) == ("0001", migrate.head())
    assert {"decision", "release", "correction", "audit_event"} <= set(inspect(engine).get_table_names())
    c = Corpus.open("old", engine=engine)
    assert c.guideline().text == "old text"


def test_upgrade_keeps_spans_written_with_fragment_json(empty_url: str) -> None:
    """Spans stored before the lean span rows (revision 0003) keep their fragment JSON and read the
    same after the upgrade, beside new spans stored without it."""
    engine = db.make_engine(empty_url)
    migrate.upgrade(engine, "0002")
    with db.write(engine) as conn:
        for sql in (
            "INSERT INTO project (name, schema_name, created) VALUES ('old', 'bb-2011', CURRENT_TIMESTAMP)",
            "INSERT INTO guideline (project_id, version, schema_name, schema_data, text, note, created) "
            "SELECT id, 1, 'bb-2011', NULL, '', 'v1', CURRENT_TIMESTAMP FROM project",
            "INSERT INTO annotator (project_id, name, role, created) "
            "SELECT id, 'ann', 'annotator', CURRENT_TIMESTAMP FROM project",
            "INSERT INTO document (project_id, external_id, text, sha256, source, created) "
            "SELECT id, 'd1', 'IL-2 binds IL-2Ra', 'x', '', CURRENT_TIMESTAMP FROM project",
            "INSERT INTO annotation_set (document_id, annotator_id, kind, status, guideline_version, version, "
            "created, updated) SELECT d.id, a.id, 'annotation', 'submitted', 1, 1, CURRENT_TIMESTAMP, "
            "CURRENT_TIMESTAMP FROM document d, annotator a",
            "INSERT INTO span (set_id, local_id, type, fragments, start, stop, text) "
            "SELECT id, 'T1', 'Bacterium', '[[0,4]]', 0, 4, 'IL-2' FROM annotation_set",
            "INSERT INTO span (set_id, local_id, type, fragments, start, stop, text) "
            "SELECT id, 'T2', 'Bacterium', '[[0,4],[11,17]]', 0, 17, 'IL-2 IL-2Ra' FROM annotation_set",
        ):
            conn.execute(text(sql))
    assert "ix_span_set_start" in {ix["name"] for ix in inspect(engine).get_indexes("span")}
    migrate.upgrade(engine)
    assert "ix_span_set_start" not in {ix["name"] for ix in inspect(engine).get_indexes("span")}
    with db.read(engine) as conn:
        set_id = conn.execute(text("SELECT id FROM annotation_set")).scalar_one()
    spans = Corpus.open("old", engine=engine).read_set(set_id).annotations.spans
    assert [(s.id, s.fragments, s.text) for s in spans] == [
        ("T1", ((0, 4),), "IL-2"),
        ("T2", ((0, 4), (11, 17)), "IL-2 IL-2Ra"),
    ]


def test_cli_db_upgrade_on_empty_and_current(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "new.sqlite"
    assert main(["--db", str(path), "db", "current"]) == 0
    assert "(empty)" in capsys.readouterr().out
    assert main(["--db", str(path), "db", "upgrade"]) == 0
    assert migrate.head() in capsys.readouterr().out
    assert main(["--db", str(path), "-f", "json", "db", "current"]) == 0
    assert '"up_to_date": true' in capsys.readouterr().out


def test_open_refuses_foreign_or_empty_database(tmp_path: Path) -> None:
    engine = db.make_engine(f"sqlite:///{tmp_path / 'x.sqlite'}")
    with pytest.raises(DatabaseError, match="corpusdb init"):
        Corpus.open(engine=engine)
    with engine.begin() as conn:
        conn.execute(text("CREATE TABLE other (x INTEGER)"))
    with pytest.raises(DatabaseError, match="not a corpusdb database"):
        Corpus.open(engine=engine)
