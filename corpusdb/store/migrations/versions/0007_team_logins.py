"""team logins: PostgreSQL roles tied to annotators, and row-level security for blindness

Why: the table ``team_login`` maps a login role to the annotator it is; on PostgreSQL,
``corpusdb.store.rls.install`` then enables row-level security on every table holding annotation content
(and the project tables) with policies that apply the rules of ``corpusdb.services.access`` in the server.
On SQLite only the (empty) table is created: there are no roles, the SSH recipe of the README
applies instead.

The policy SQL lives in ``corpusdb.store.rls`` (one line per table) and is re-applied after every later
upgrade, so tables added by later migrations are covered by adding their line there.

Revision ID: 0007
Revises: 0003
Create Date: 2026-11-24 01:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
import sqlmodel
from alembic import op

from corpusdb.store import rls


revision = '0007'
down_revision = '0005'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('team_login',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('role_name', sqlmodel.sql.sqltypes.AutoString(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], name=op.f('fk_team_login_annotator_id_annotator'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_team_login_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_team_login')),
    sa.UniqueConstraint('annotator_id', name=op.f('uq_team_login_annotator_id')),
    sa.UniqueConstraint('project_id', 'role_name', name=op.f('uq_team_login_project_id_role_name'))
    )
    with op.batch_alter_table('team_login', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_team_login_role_name'), ['role_name'], unique=False)
    rls.install(op.get_bind())


def downgrade() -> None:
    rls.uninstall(op.get_bind())
    with op.batch_alter_table('team_login', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_team_login_role_name'))
    op.drop_table('team_login')
