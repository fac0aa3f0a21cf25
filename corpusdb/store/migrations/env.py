"""Alembic environment: always driven from corpusdb.store.migrate with a live connection."""

from __future__ import annotations

from alembic import context

from corpusdb.store.migrate import include_object
from corpusdb.store.models import metadata

config = context.config
connection = config.attributes.get("connection")
if connection is None:  # pragma: no cover - only reachable by running the alembic CLI by hand
    raise RuntimeError("run migrations through `corpusdb db upgrade` (corpusdb.store.migrate.upgrade)")

context.configure(
    connection=connection,
    target_metadata=metadata,
    render_as_batch=True,  # SQLite cannot ALTER most things: batch mode copies the table
    compare_type=True,
    include_object=include_object,  # the full-text indexes live beside the models' tables
)
with context.begin_transaction():
    context.run_migrations()
