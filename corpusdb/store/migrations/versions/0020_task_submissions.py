"""shared tasks: runs handed in by team members (team mode), queued for the organizers' intake

Why (issue 28): a team member's login may not create prediction sets or annotators (row-level
security keeps those a lead's), so a member's ``task submit`` stores the run's files in
``task_submission`` (their own team's rows only) and an organizer's ``task intake`` validates and
stores each as a run, recording stored or refused and the problems.

Revision ID: 0020
Revises: 0017
Create Date: 2026-11-28 01:50:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0020'
down_revision = '0017'
branch_labels = None
depends_on = None


def upgrade() -> None:
    op.create_table(
        'task_submission',
        sa.Column('id', sa.Integer(), nullable=False),
        sa.Column('task_id', sa.Integer(), nullable=False),
        sa.Column('team_id', sa.Integer(), nullable=False),
        sa.Column('run', sa.String(), nullable=True),
        sa.Column('files', sa.JSON(), nullable=True),
        sa.Column('submitted_by', sa.String(), nullable=False),
        sa.Column('status', sa.String(), nullable=False),
        sa.Column('problems', sa.JSON(), nullable=True),
        sa.Column('created', sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(['task_id'], ['shared_task.id'],
                                name=op.f('fk_task_submission_task_id_shared_task'), ondelete='CASCADE'),
        sa.ForeignKeyConstraint(['team_id'], ['task_team.id'],
                                name=op.f('fk_task_submission_team_id_task_team'), ondelete='CASCADE'),
        sa.PrimaryKeyConstraint('id', name=op.f('pk_task_submission')),
    )
    with op.batch_alter_table('task_submission', schema=None) as batch_op:
        batch_op.create_index(batch_op.f('ix_task_submission_team_id'), ['team_id'], unique=False)


def downgrade() -> None:
    with op.batch_alter_table('task_submission', schema=None) as batch_op:
        batch_op.drop_index(batch_op.f('ix_task_submission_team_id'))
    op.drop_table('task_submission')
