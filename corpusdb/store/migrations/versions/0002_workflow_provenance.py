"""workflow provenance: decisions, releases, corrections, audit trail

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-22 18:08:17.252926
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0002'
down_revision = '0001'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('audit_event',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('actor', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('target', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('detail', sa.JSON(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_audit_event_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_audit_event'))
    )
    with op.batch_alter_table('audit_event', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_audit_event_project_id'), ['project_id'], unique=False)

    op.create_table('release',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('version', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('previous_id', sa.Integer(), nullable=True),
    sa.Column('seed', sa.Integer(), nullable=True),
    sa.Column('ratios', sa.JSON(), nullable=True),
    sa.Column('manifest', sa.JSON(), nullable=True),
    sa.Column('changelog', sa.JSON(), nullable=True),
    sa.Column('snapshot', sa.JSON(), nullable=True),
    sa.Column('notes', sa.Text(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['previous_id'], ['release.id'], name=op.f('fk_release_previous_id_release')),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_release_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_release')),
    sa.UniqueConstraint('project_id', 'version', name=op.f('uq_release_project_id_version'))
    )
    with op.batch_alter_table('release', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_release_project_id'), ['project_id'], unique=False)

    op.create_table('correction',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('after_release_id', sa.Integer(), nullable=True),
    sa.Column('item_kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('item_local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('action', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('before', sa.JSON(), nullable=True),
    sa.Column('after', sa.JSON(), nullable=True),
    sa.Column('reason', sa.Text(), nullable=False),
    sa.Column('author_id', sa.Integer(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("action IN ('add', 'change', 'delete')", name=op.f('ck_correction_action')),
    sa.ForeignKeyConstraint(['after_release_id'], ['release.id'], name=op.f('fk_correction_after_release_id_release')),
    sa.ForeignKeyConstraint(['author_id'], ['annotator.id'], name=op.f('fk_correction_author_id_annotator')),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_correction_document_id_document'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_correction_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_correction'))
    )
    with op.batch_alter_table('correction', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_correction_after_release_id'), ['after_release_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_correction_author_id'), ['author_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_correction_document_id'), ['document_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_correction_project_id'), ['project_id'], unique=False)

    op.create_table('decision',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('gold_set_id', sa.Integer(), nullable=False),
    sa.Column('item_kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('item_local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('method', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('decided_by_id', sa.Integer(), nullable=True),
    sa.Column('sources', sa.JSON(), nullable=True),
    sa.Column('reason', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("method IN ('unanimous', 'majority', 'adjudicated', 'corrected')", name=op.f('ck_decision_method')),
    sa.ForeignKeyConstraint(['decided_by_id'], ['annotator.id'], name=op.f('fk_decision_decided_by_id_annotator')),
    sa.ForeignKeyConstraint(['gold_set_id'], ['annotation_set.id'], name=op.f('fk_decision_gold_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_decision'))
    )
    with op.batch_alter_table('decision', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_decision_decided_by_id'), ['decided_by_id'], unique=False)
        batch_op.create_index('ix_decision_item', ['gold_set_id', 'item_kind', 'item_local_id'], unique=False)


def downgrade() -> None:
    op.drop_table('decision')
    op.drop_table('correction')
    op.drop_table('release')
    op.drop_table('audit_event')
