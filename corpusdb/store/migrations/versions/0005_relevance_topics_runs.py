"""relevance judging: topics, runs and their retrieved documents

Why: TREC-style relevance judging pools the top documents of submitted runs per topic. Topics and
runs are project data that judges must not see mixed with documents (which run retrieved a document,
at which rank), so they get their own tables; the judged (topic, document) units are ordinary
documents with annotation sets, so assignment, blindness and adjudication apply unchanged.

Revision ID: 0005
Revises: 0003
Create Date: 2026-11-24 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0005'
down_revision = '0004'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'topic',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('topic_id', sa.String(), nullable=False),
        sa.Column('title', sa.Text(), nullable=False),
        sa.Column('need', sa.Text(), nullable=False),
        sa.Column('context', sa.Text(), nullable=False),
        sa.Column('extra', sa.JSON(), nullable=True),
        sa.Column('created', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_topic_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_topic')),
        sa.UniqueConstraint('project_id', 'topic_id', name=op.f('uq_topic_project_id_topic_id')),
    )
    op.create_table(
        'run',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('annotator_id', sa.Integer(), nullable=False),
        sa.Column('tag', sa.String(), nullable=False),
        sa.Column('source', sa.String(), nullable=False),
        sa.Column('created', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], name=op.f('fk_run_annotator_id_annotator'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_run_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_run')),
        sa.UniqueConstraint('project_id', 'tag', name=op.f('uq_run_project_id_tag')),
    )
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_run_annotator_id'), ['annotator_id'], unique=False)
    op.create_table(
        'run_entry',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('run_id', sa.Integer(), nullable=False),
        sa.Column('topic', sa.String(), nullable=False),
        sa.Column('doc', sa.String(), nullable=False),
        sa.Column('rank', sa.Integer(), nullable=False),
        sa.Column('score', sa.Float(), nullable=False),
        sa.ForeignKeyConstraint(['run_id'], ['run.id'], name=op.f('fk_run_entry_run_id_run'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_run_entry')),
        sa.UniqueConstraint('run_id', 'topic', 'doc', name=op.f('uq_run_entry_run_id_topic_doc')),
    )


def downgrade() -> None:
    op.drop_table('run_entry')
    with op.batch_alter_table('run', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_run_annotator_id'))
    op.drop_table('run')
    op.drop_table('topic')
