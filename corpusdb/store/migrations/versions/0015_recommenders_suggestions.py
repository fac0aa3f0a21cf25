"""recommenders, their models and their suggestions (issue #24)

Why: suggestions while annotating are a layer of their own, never an annotator's items until
accepted. Four new tables: ``recommender`` (the project's recommenders, with their shared part
learned from gold of adjudicated documents only: readable by every member), ``recommender_model``
(each annotator's own part, learned from gold and that annotator's own sets: hers alone, ``PERSONAL``
in ``corpusdb.store.rls``) and ``suggestion`` (proposals on one annotator's set with their status open /
accepted / rejected: ``SET_OWNED``, as blind as the set), and ``queue_position`` (where a set stands
in its annotator's queue when ``assign --order`` handed it out: ``SET_OWNED``). Nothing existing
changes.

Revision ID: 0015
Revises: 0009
Create Date: 2026-11-24 22:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

from corpusdb.store import rls


revision = '0015'
down_revision = '0014'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('recommender',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('layer', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('options', sa.JSON(), nullable=True),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('model', sa.Text(), nullable=True),
    sa.Column('dictionary', sa.Text(), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=True),
    sa.Column('trained', sa.DateTime(timezone=True), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.CheckConstraint("kind IN ('string', 'tagger', 'external')", name=op.f('ck_recommender_kind')),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_recommender_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_recommender')),
    sa.UniqueConstraint('project_id', 'name', name=op.f('uq_recommender_project_id_name'))
    )
    op.create_table('recommender_model',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('recommender_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('version', sa.Integer(), nullable=False),
    sa.Column('base_version', sa.Integer(), nullable=False),
    sa.Column('model', sa.Text(), nullable=True),
    sa.Column('stats', sa.JSON(), nullable=True),
    sa.Column('trained', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], name=op.f('fk_recommender_model_annotator_id_annotator'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['recommender_id'], ['recommender.id'], name=op.f('fk_recommender_model_recommender_id_recommender'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_recommender_model')),
    sa.UniqueConstraint('recommender_id', 'annotator_id', name=op.f('uq_recommender_model_recommender_id_annotator_id'))
    )
    with op.batch_alter_table('recommender_model', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_recommender_model_annotator_id'), ['annotator_id'], unique=False)

    op.create_table('queue_position',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('ordering', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('rank', sa.Integer(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.Column('seed', sa.Integer(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_queue_position_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_queue_position')),
    sa.UniqueConstraint('set_id', name=op.f('uq_queue_position_set_id'))
    )
    op.create_table('suggestion',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('recommender_id', sa.Integer(), nullable=False),
    sa.Column('version', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('kind', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('key', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('start', sa.Integer(), nullable=False),
    sa.Column('stop', sa.Integer(), nullable=False),
    sa.Column('fragments', sa.JSON(), nullable=True),
    sa.Column('text', sa.Text(), nullable=False),
    sa.Column('score', sa.Float(), nullable=False),
    sa.Column('payload', sa.JSON(), nullable=True),
    sa.Column('status', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('item_local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=True),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.Column('decided', sa.DateTime(timezone=True), nullable=True),
    sa.CheckConstraint("kind IN ('span', 'relation')", name=op.f('ck_suggestion_kind')),
    sa.CheckConstraint("status IN ('open', 'accepted', 'rejected')", name=op.f('ck_suggestion_status')),
    sa.ForeignKeyConstraint(['recommender_id'], ['recommender.id'], name=op.f('fk_suggestion_recommender_id_recommender'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_suggestion_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_suggestion')),
    sa.UniqueConstraint('set_id', 'recommender_id', 'key', name=op.f('uq_suggestion_set_id_recommender_id_key'))
    )
    with op.batch_alter_table('suggestion', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_suggestion_recommender_id'), ['recommender_id'], unique=False)
    rls.install(op.get_bind())


def downgrade() -> None:
    rls.uninstall(op.get_bind())
    with op.batch_alter_table('suggestion', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_suggestion_recommender_id'))

    op.drop_table('suggestion')
    op.drop_table('queue_position')
    with op.batch_alter_table('recommender_model', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_recommender_model_annotator_id'))

    op.drop_table('recommender_model')
    op.drop_table('recommender')
    rls.install(op.get_bind())
