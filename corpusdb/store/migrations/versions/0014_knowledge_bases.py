"""knowledge bases: kb, kb_concept, kb_name, kb_parent

Why: groundings were free text (issue #29); a project now loads an ontology, the NCBI Taxonomy or
a TSV vocabulary into its database (so a team on PostgreSQL shares it), looks names up as an
annotator types, and checks ids. The tables belong to the database, not to a project; team roles
may read them (``READ_ONLY`` in ``corpusdb.store.rls``), only the owner writes them. The typo-tolerant
search index (SQLite FTS5 trigram, PostgreSQL pg_trgm) depends on what the server offers and is
made when the first knowledge base is loaded (``corpusdb.kb.index``), not here.

Revision ID: 0014
Revises: 0009
Create Date: 2026-11-27 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from corpusdb.store import rls


revision = '0014'
down_revision = '0010'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('kb',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('format', sa.String(), nullable=False),
    sa.Column('source', sa.Text(), nullable=False),
    sa.Column('concepts', sa.Integer(), nullable=False),
    sa.Column('names', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kb')),
    sa.UniqueConstraint('name', name=op.f('uq_kb_name'))
    )
    op.create_table('kb_concept',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kb_id', sa.Integer(), nullable=False),
    sa.Column('code', sa.String(), nullable=False),
    sa.Column('label', sa.Text(), nullable=False),
    sa.Column('obsolete', sa.Integer(), nullable=False),
    sa.Column('replaced_by', sa.JSON(), nullable=True),
    sa.Column('type', sa.String(), nullable=True),
    sa.ForeignKeyConstraint(['kb_id'], ['kb.id'], name=op.f('fk_kb_concept_kb_id_kb'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kb_concept')),
    sa.UniqueConstraint('kb_id', 'code', name=op.f('uq_kb_concept_kb_id_code'))
    )
    op.create_table('kb_name',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kb_id', sa.Integer(), nullable=False),
    sa.Column('code', sa.String(), nullable=False),
    sa.Column('name', sa.Text(), nullable=False),
    sa.Column('norm', sa.Text(), nullable=False),
    sa.Column('kind', sa.String(), nullable=False),
    sa.ForeignKeyConstraint(['kb_id'], ['kb.id'], name=op.f('fk_kb_name_kb_id_kb'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kb_name'))
    )
    op.create_index('ix_kb_name_code', 'kb_name', ['kb_id', 'code'], unique=False)
    op.create_index('ix_kb_name_norm', 'kb_name', ['kb_id', 'norm'], unique=False)
    op.create_table('kb_parent',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('kb_id', sa.Integer(), nullable=False),
    sa.Column('child', sa.String(), nullable=False),
    sa.Column('parent', sa.String(), nullable=False),
    sa.ForeignKeyConstraint(['kb_id'], ['kb.id'], name=op.f('fk_kb_parent_kb_id_kb'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_kb_parent'))
    )
    op.create_index('ix_kb_parent_child', 'kb_parent', ['kb_id', 'child'], unique=False)
    op.create_index('ix_kb_parent_parent', 'kb_parent', ['kb_id', 'parent'], unique=False)
    rls.install(op.get_bind())


def downgrade() -> None:
    bind = op.get_bind()
    if bind.dialect.name == "sqlite":
        bind.exec_driver_sql("DROP TABLE IF EXISTS kb_name_fts_vocab")
        bind.exec_driver_sql("DROP TABLE IF EXISTS kb_name_fts")
    op.drop_index('ix_kb_parent_parent', table_name='kb_parent')
    op.drop_index('ix_kb_parent_child', table_name='kb_parent')
    op.drop_table('kb_parent')
    op.drop_index('ix_kb_name_norm', table_name='kb_name')
    op.drop_index('ix_kb_name_code', table_name='kb_name')
    op.drop_table('kb_name')
    op.drop_table('kb_concept')
    op.drop_table('kb')
