"""undo history kept per set (edit_history) and skipped, irrelevant documents (set_skip)

Why: undo must survive closing the TUI (its stacks are written with each action, see
``corpusdb.services.undo``), and an annotator must be able to flag a document as irrelevant with a reason
(``corpusdb.services.skips``), as BB 2011 removed such documents. Two new tables, both owned by an
annotation set (``SET_OWNED`` in ``corpusdb.store.rls``); nothing existing changes.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-24 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from corpusdb.store import rls


revision = '0009'
down_revision = '0008'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('edit_history',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('stack', sa.String(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('description', sa.Text(), nullable=False),
    sa.Column('changes', sa.JSON(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("stack IN ('undo', 'redo')", name=op.f('ck_edit_history_stack')),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_edit_history_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_edit_history')),
    sa.UniqueConstraint('set_id', 'stack', 'position', name=op.f('uq_edit_history_set_id_stack_position'))
    )
    op.create_table('set_skip',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_set_skip_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_set_skip')),
    sa.UniqueConstraint('set_id', name=op.f('uq_set_skip_set_id'))
    )
    rls.install(op.get_bind())


def downgrade() -> None:
    rls.uninstall(op.get_bind())
    op.drop_table('set_skip')
    op.drop_table('edit_history')
    rls.install(op.get_bind())
