"""full-text search index over documents' texts (SQLite FTS5 + triggers, PostgreSQL pg_trgm)

Why: ``corpusdb search`` (issue #29) finds words, phrases and regexes in 10^4-10^5 texts within
100 ms, through the database's own index, kept in the same transaction as the texts (triggers on
SQLite; a GIN index on PostgreSQL, which the server maintains). What the index is and why it is
that one: ``corpusdb.store.text_index``. On PostgreSQL the index needs the ``pg_trgm`` extension
(made here if the owner may; without it search scans). And an index on ``span (type, set_id)``:
spans of a type (``search type:Habitat``) and their counts per set come from the index alone.

Revision ID: 0017
Revises: 0013
Create Date: 2026-11-28 08:00:00
"""

from __future__ import annotations

from alembic import op

from corpusdb.store import text_index as index


revision = '0017'
down_revision = '0013'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_index('ix_span_type_set', 'span', ['type', 'set_id'], unique=False)
    index.install(op.get_bind())


def downgrade() -> None:
    index.uninstall(op.get_bind())
    op.drop_index('ix_span_type_set', table_name='span')
