"""logins for the login screen: SQLite passwords (login_password), failures and resume points (login_state)

Why: ``corpusdb serve`` and ``corpusdb tui --login`` put a login screen before everything (issue 23).
On SQLite a person's password is a salted scrypt hash in ``login_password``; on both databases
``login_state`` counts failed logins per name (shared by every session process) and keeps where a
person's last session was. On PostgreSQL neither table is granted to any team role: the login
functions of ``corpusdb.store.login_pgsql`` (created here) reach them, for the gatekeeper role and for a
person about themselves only.

Revision ID: 0013
Revises: 0009
Create Date: 2026-11-27 22:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

from corpusdb.store import login_pgsql as pgsql


revision = '0013'
down_revision = '0019'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table('login_password',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('annotator_id', sa.Integer(), nullable=False),
    sa.Column('password_hash', sa.String(), nullable=False),
    sa.Column('generation', sa.Integer(), nullable=False),
    sa.Column('created', sa.DateTime(timezone=True), nullable=False),
    sa.Column('revoked', sa.DateTime(timezone=True), nullable=True),
    sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], name=op.f('fk_login_password_annotator_id_annotator'), ondelete='CASCADE'),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_login_password_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_password')),
    sa.UniqueConstraint('annotator_id', name=op.f('uq_login_password_annotator_id'))
    )
    op.create_table('login_state',
    sa.Column('id', sa.Integer(), nullable=False),
    sa.Column('project_id', sa.Integer(), nullable=False),
    sa.Column('name', sa.String(), nullable=False),
    sa.Column('failures', sa.Integer(), nullable=False),
    sa.Column('locked_until', sa.DateTime(timezone=True), nullable=True),
    sa.Column('last_document', sa.String(), nullable=True),
    sa.Column('updated', sa.DateTime(timezone=True), nullable=False),
    sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_login_state_project_id_project'), ondelete='CASCADE'),
    sa.PrimaryKeyConstraint('id', name=op.f('pk_login_state')),
    sa.UniqueConstraint('project_id', 'name', name=op.f('uq_login_state_project_id_name'))
    )
    pgsql.install(op.get_bind())


def downgrade() -> None:
    pgsql.uninstall(op.get_bind())
    op.drop_table('login_state')
    op.drop_table('login_password')
