"""search: PostgreSQL's words index over documents' texts (a tsvector GIN), beside the trigram index

Why (issue 29, full text <= 100 ms at 25,000 abstracts): a word asked of the trigram index listed
every candidate text and read it again to check the literal (the first 100 hits of ``kinase``
173-184 ms, its count per document 126-204 ms). The words index answers an ASCII word, prefix or
phrase exactly, without reading a text; what it is: ``corpusdb.store.text_index``. SQLite: nothing
(FTS5 already answers words).

Revision ID: 0024
Revises: 0023
Create Date: 2026-11-28 08:10:00
"""

from __future__ import annotations

from alembic import op


revision = "0024"
down_revision = "0023"
branch_labels = None
depends_on = None

# written out (a migration stays as it was run): corpusdb.store.text_index.words_sql() of that day
WORDS = (
    "(CASE WHEN octet_length(text) < 1000000 THEN to_tsvector('simple'::regconfig, "
    "regexp_replace(replace(lower(text COLLATE \"C\"), '\u212a', 'k'), '[^a-z0-9]+', ' ', 'g')) END)"
)


def upgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        return
    bind.exec_driver_sql(f"CREATE INDEX IF NOT EXISTS ix_document_text_words ON document USING gin ({WORDS})")
    # no statistics on the expression: they would be over every project's texts (corpusdb.store.rls)
    bind.exec_driver_sql("ALTER INDEX ix_document_text_words ALTER COLUMN 1 SET STATISTICS 0")
    bind.exec_driver_sql(
        "CREATE INDEX IF NOT EXISTS ix_document_text_long ON document (id) WHERE octet_length(text) >= 1000000"
    )


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        return
    bind.exec_driver_sql("DROP INDEX IF EXISTS ix_document_text_words")
    bind.exec_driver_sql("DROP INDEX IF EXISTS ix_document_text_long")
