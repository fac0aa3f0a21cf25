"""entities: clusters of mentions and names as rows; relation arguments may be entities

Why: an entity (a BioRelEx cluster, a brat Equiv set) is what a relation holds between; pointing
each relation at one chosen mention made agreement depend on the order in which names were listed.
``entity.members`` holds the member spans' local ids (a set is read whole, so no join is needed);
``relation_arg.entity_id`` is a third kind of argument, and the check that an argument points at
exactly one thing now counts three columns. On SQLite the ``relation_arg`` change is a table
rebuild (batch mode, SQLite's documented procedure); rows keep their ids.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-24 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op


revision = '0004'
down_revision = '0003'
branch_labels = None
depends_on = None

ONE_OF_THREE = (
    "(CASE WHEN span_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN arg_relation_id IS NULL THEN 0 ELSE 1 END)"
    " + (CASE WHEN entity_id IS NULL THEN 0 ELSE 1 END) = 1"
)
ONE_OF_TWO = "(span_id IS NULL) <> (arg_relation_id IS NULL)"


def upgrade() -> None:
    op.create_table('entity',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('set_id', sa.Integer(), nullable=False),
    sa.Column('local_id', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('type', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('members', sa.JSON(), nullable=True),
    sa.Column('attributes', sa.JSON(), nullable=True),
    sa.Column('groundings', sa.JSON(), nullable=True),
    sa.Column('extra', sa.JSON(), nullable=True),
    sa.ForeignKeyConstraint(['set_id'], ['annotation_set.id'], name=op.f('fk_entity_set_id_annotation_set'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_entity')),
    sa.UniqueConstraint('set_id', 'local_id', name=op.f('uq_entity_set_id_local_id'))
    )  # fmt: skip
    with op.batch_alter_table('relation_arg', schema=None) as batch_op:
        batch_op.add_column(sa.Column('entity_id', sa.Integer(), nullable=True))
        batch_op.drop_constraint(batch_op.f('ck_relation_arg_one_target'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_relation_arg_one_target'), sa.text(ONE_OF_THREE))
        batch_op.create_foreign_key(batch_op.f('fk_relation_arg_entity_id_entity'), 'entity', ['entity_id'], ['id'])
        batch_op.create_index(batch_op.f('ix_relation_arg_entity_id'), ['entity_id'], unique=False)


def downgrade() -> None:
    if op.get_bind().execute(sa.text("SELECT COUNT(*) FROM relation_arg WHERE entity_id IS NOT NULL")).scalar():
        raise RuntimeError(
            "cannot downgrade below 0004: some relations have entity arguments (re-import them first)"
        )
    with op.batch_alter_table('relation_arg', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_relation_arg_entity_id'))
        batch_op.drop_constraint(batch_op.f('fk_relation_arg_entity_id_entity'), type_='foreignkey')
        batch_op.drop_constraint(batch_op.f('ck_relation_arg_one_target'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_relation_arg_one_target'), sa.text(ONE_OF_TWO))
        batch_op.drop_column('entity_id')
    op.drop_table('entity')
