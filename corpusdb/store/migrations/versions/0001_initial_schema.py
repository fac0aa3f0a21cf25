"""initial schema: projects, guidelines, annotators, documents, annotation sets and their items

Revision ID: 0001
Revises: 
Create Date: 2026-11-22 18:08:17.252926
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0001'
down_revision = None
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('project',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('schema_name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('settings', sa.JSON(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_project')),
    sa.UniqueConstraint('name', name=op.f('uq_project_name'))
    )
    op.create_table('annotator',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("role IN ('annotator', 'adjudicator', 'lead', 'system')", name=op.f('ck_annotator_role')),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_annotator_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_annotator')),
    sa.UniqueConstraint('project_id', 'name', name=op.f('uq_annotator_project_id_name'))
    )
    with op.batch_alter_table('annotator', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_annotator_project_id'), ['project_id'], unique=False)

    op.create_table('document',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('external_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('sha256', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('meta', sa.JSON(), nullable=True),
    sa.Column('group_key', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('split', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_document_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_document')),
    sa.UniqueConstraint('project_id', 'external_id', name=op.f('uq_document_project_id_external_id'))
    )
    with op.batch_alter_table('document', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_document_group_key'), ['group_key'], unique=False)
        batch_op.create_index(batch_op.f('ix_document_project_id'), ['project_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_document_sha256'), ['sha256'], unique=False)
        batch_op.create_index(batch_op.f('ix_document_split'), ['split'], unique=False)

    op.create_table('guideline',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('schema_name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('schema_data', sa.JSON(), nullable=True),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('note', sa.Text(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_guideline_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_guideline')),
    sa.UniqueConstraint('project_id', 'version', name=op.f('uq_guideline_project_id_version'))
    )
    with op.batch_alter_table('guideline', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_guideline_project_id'), ['project_id'], unique=False)

    op.create_table('annotation_set',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('document_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=True),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('guideline_version', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('seeded_from', sa.Integer(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.Column('updated', sa.DateTime(timezone=True), nullable=False),
    sa.Column('submitted', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("kind IN ('annotation', 'gold', 'prediction')", name=op.f('ck_annotation_set_kind')),
    sa.CheckConstraint("status IN ('assigned', 'in_progress', 'submitted')", name=op.f('ck_annotation_set_status')),
    sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], name=op.f('fk_annotation_set_annotator_id_annotator')),
    sa.ForeignKeyConstraint(['document_id'], ['document.id'], name=op.f('fk_annotation_set_document_id_document'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['seeded_from'], ['annotation_set.id'], name=op.f('fk_annotation_set_seeded_from_annotation_set'), ondelete='SET NULL'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_annotation_set')),
    sa.UniqueConstraint('document_id', 'annotator_id', 'kind', name=op.f('uq_annotation_set_document_id_annotator_id_kind'))
    )
    with op.batch_alter_table('annotation_set', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_annotation_set_annotator_id'), ['annotator_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_annotation_set_document_id'), ['document_id'], unique=False)
        batch_op.create_index('uq_annotation_set_gold_per_document', ['document_id'], unique=True, sqlite_where=sa.text("kind = 'gold'"), postgresql_where=sa.text("kind = 'gold'"))

    op.create_table('document_label',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('value', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_document_label_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_document_label')),
    sa.UniqueConstraint('set_id', 'name', name=op.f('uq_document_label_set_id_name'))
    )
    op.create_table('note',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('target', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_note_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_note')),
    sa.UniqueConstraint('set_id', 'local_id', name=op.f('uq_note_set_id_local_id'))
    )
    op.create_table('span',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('fragments', sa.JSON(), nullable=False),
    sa.Column('start', sa.Integer(), nullable=False),
    sa.Column('stop', sa.Integer(), nullable=False),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('attributes', sa.JSON(), nullable=True),
    sa.Column('groundings', sa.JSON(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_span_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_span')),
    sa.UniqueConstraint('set_id', 'local_id', name=op.f('uq_span_set_id_local_id'))
    )
    with op.batch_alter_table('span', schema=None) as batch_op:
        batch_op.create_index('ix_span_set_start', ['set_id', 'start'], unique=False)

    op.create_table('link',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('source_id', sa.Integer(), nullable=False),
    sa.Column('target_id', sa.Integer(), nullable=False),
    sa.Column('group_key', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_link_set_id_annotation_set'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['source_id'], ['span.id'], name=op.f('fk_link_source_id_span')),
    sa.ForeignKeyConstraint(['target_id'], ['span.id'], name=op.f('fk_link_target_id_span')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_link')),
    sa.UniqueConstraint('set_id', 'local_id', name=op.f('uq_link_set_id_local_id'))
    )
    with op.batch_alter_table('link', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_link_source_id'), ['source_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_link_target_id'), ['target_id'], unique=False)

    op.create_table('relation',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('label', sa.Integer(), nullable=True),
    sa.Column('tags', sa.JSON(), nullable=True),
    sa.Column('attributes', sa.JSON(), nullable=True),
    sa.Column('trigger_id', sa.Integer(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.CheckConstraint("kind IN ('relation', 'event')", name=op.f('ck_relation_kind')),
    sa.CheckConstraint('label IS NULL OR label IN (-1, 0, 1)', name=op.f('ck_relation_label')),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_relation_set_id_annotation_set'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['trigger_id'], ['span.id'], name=op.f('fk_relation_trigger_id_span')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_relation')),
    sa.UniqueConstraint('set_id', 'local_id', name=op.f('uq_relation_set_id_local_id'))
    )
    with op.batch_alter_table('relation', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_relation_trigger_id'), ['trigger_id'], unique=False)

    op.create_table('relation_arg',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('relation_id', sa.Integer(), nullable=False),
    sa.Column('position', sa.Integer(), nullable=False),
    sa.Column('role', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('span_id', sa.Integer(), nullable=True),
    sa.Column('arg_relation_id', sa.Integer(), nullable=True),
    sa.CheckConstraint('(span_id IS NULL) <> (arg_relation_id IS NULL)', name=op.f('ck_relation_arg_one_target')),
    sa.ForeignKeyConstraint(['arg_relation_id'], ['relation.id'], name=op.f('fk_relation_arg_arg_relation_id_relation')),
    sa.ForeignKeyConstraint(['relation_id'], ['relation.id'], name=op.f('fk_relation_arg_relation_id_relation'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['span_id'], ['span.id'], name=op.f('fk_relation_arg_span_id_span')),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_relation_arg')),
    sa.UniqueConstraint('relation_id', 'position', name=op.f('uq_relation_arg_relation_id_position'))
    )
    with op.batch_alter_table('relation_arg', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_relation_arg_arg_relation_id'), ['arg_relation_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_relation_arg_span_id'), ['span_id'], unique=False)


def downgrade() -> None:
    op.drop_table('relation_arg')
    op.drop_table('relation')
    op.drop_table('link')
    op.drop_table('span')
    op.drop_table('note')
    op.drop_table('document_label')
    op.drop_table('annotation_set')
    op.drop_table('guideline')
    op.drop_table('document')
    op.drop_table('annotator')
    op.drop_table('project')
