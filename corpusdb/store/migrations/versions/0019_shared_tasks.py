"""shared tasks: tasks on a release split, teams, submitted runs

Why (issue 28): an organizer runs a shared task from a blind release to a leaderboard. A task names
its release, split, official metric, phases, run limit and deadline; a team names its members
(annotators, logins in team mode); a run is a team's submission in a phase, whose predictions are the
prediction sets of a system annotator of its own (so evaluation reads them as any system's), with
its scores once the task is scored.

Revision ID: 0019
Revises: 0010
Create Date: 2026-11-27 23:30:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0019'
down_revision = '0015'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'shared_task',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('project_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('release', sa.String(), nullable=False),
        sa.Column('split', sa.String(), nullable=False),
        sa.Column('metric', sa.String(), nullable=False),
        sa.Column('phases', sa.JSON(), nullable=True),
        sa.Column('phase', sa.String(), nullable=False),
        sa.Column('ended', sa.JSON(), nullable=True),
        sa.Column('runs_per_team', sa.Integer(), nullable=False),
        sa.Column('deadline', sa.DateTime(timezone=True), nullable=True),
        sa.Column('created', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['project_id'], ['project.id'], name=op.f('fk_shared_task_project_id_project'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_shared_task')),
        sa.UniqueConstraint('project_id', 'name', name=op.f('uq_shared_task_project_id_name')),
    )
    op.create_table(
        'task_team',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('task_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('members', sa.JSON(), nullable=True),
        sa.Column('created', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['task_id'], ['shared_task.id'], name=op.f('fk_task_team_task_id_shared_task'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_task_team')),
        sa.UniqueConstraint('task_id', 'name', name=op.f('uq_task_team_task_id_name')),
    )
    op.create_table(
        'task_run',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('task_id', sa.Integer(), nullable=False),
        sa.Column('team_id', sa.Integer(), nullable=False),
        sa.Column('annotator_id', sa.Integer(), nullable=False),
        sa.Column('name', sa.String(), nullable=False),
        sa.Column('phase', sa.String(), nullable=False),
        sa.Column('documents', sa.Integer(), nullable=False),
        sa.Column('scores', sa.JSON(), nullable=True),
        sa.Column('created', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['annotator_id'], ['annotator.id'], name=op.f('fk_task_run_annotator_id_annotator'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['task_id'], ['shared_task.id'], name=op.f('fk_task_run_task_id_shared_task'),
                                ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['team_id'], ['task_team.id'], name=op.f('fk_task_run_team_id_task_team'),
                                ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_task_run')),
        sa.UniqueConstraint('task_id', 'team_id', 'phase', 'name', name=op.f('uq_task_run_task_id_team_id_phase_name')),
    )
    with op.batch_alter_table('task_run', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_task_run_team_id'), ['team_id'], unique=False)
        batch_op.create_index(batch_op.f('ix_task_run_annotator_id'), ['annotator_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('task_run', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_task_run_annotator_id'))
        batch_op.drop_index(batch_op.f('ix_task_run_team_id'))
    op.drop_table('task_run')
    op.drop_table('task_team')
    op.drop_table('shared_task')
