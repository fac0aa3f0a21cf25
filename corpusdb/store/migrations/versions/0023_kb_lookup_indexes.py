"""knowledge bases: the lookup indexes a keystroke's search reads in bounded steps

Why (issue 29, lookup as you type <= 50 ms at NCBI Taxonomy scale): the first version's SQLite
trigram index (``kb_name_fts``, FTS5 ``detail=none``) had to read each candidate's row back to check
a substring, and PostgreSQL sorted every name of a short prefix in the database's collation. Here a
database that has knowledge bases gets what ``corpusdb.kb.index.ensure`` now makes for a new one:
on SQLite ``kb_name_tri`` (FTS5 trigram with positions: a substring is a phrase the index answers
alone), on PostgreSQL a ``(kb_id, norm COLLATE "C")`` index for prefixes read in index order. A
database without knowledge bases gets them with its first ``kb add``. No table changes.

Revision ID: 0023
Revises: 0020
Create Date: 2026-11-28 02:00:00
"""

from __future__ import annotations

from alembic import op


revision = '0023'
down_revision = '0020'
branch_labels = None
depends_on = None


def upgrade() -> None:
    """The same SQL as ``corpusdb.kb.index.ensure`` (written out: a migration stays as it was run)."""
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        if bind.exec_driver_sql("SELECT 1 FROM sqlite_master WHERE name = 'kb_name_fts'").first() is None:
            return  # no knowledge base was ever loaded (or no FTS5 trigram): the next kb add decides
        bind.exec_driver_sql("DROP TABLE IF EXISTS kb_name_fts_vocab")
        bind.exec_driver_sql("DROP TABLE IF EXISTS kb_name_fts")
        bind.exec_driver_sql(
            "CREATE VIRTUAL TABLE kb_name_tri USING fts5(norm, content='kb_name', content_rowid='id', "
            "tokenize='trigram')"
        )
        bind.exec_driver_sql("INSERT INTO kb_name_tri(rowid, norm) SELECT id, norm FROM kb_name")
        return
    if bind.exec_driver_sql("SELECT 1 FROM kb LIMIT 1").first() is None:
        return
    bind.exec_driver_sql("DROP INDEX IF EXISTS ix_kb_name_prefix")
    bind.exec_driver_sql('CREATE INDEX IF NOT EXISTS ix_kb_name_c ON kb_name (kb_id, norm COLLATE "C")')


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        bind.exec_driver_sql("DROP TABLE IF EXISTS kb_name_tri")  # 0014's kb_name_fts comes with the next kb add
    else:
        bind.exec_driver_sql("DROP INDEX IF EXISTS ix_kb_name_c")
