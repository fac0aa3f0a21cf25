"""revisable decisions: 'edited' and 'undone' methods, superseded decisions, before/after of edits

Why: an adjudicator may change or undo a decision until the document's gold is finished; the old
decision is kept (``superseded_by_id`` names the decision that replaced or undid it) so ``decisions``
shows the whole history. An edited gold item records the source version and the gold version
(``before`` / ``after``, JSON) so provenance says "edited from alice:T4 (HostPart -> Environment)"
instead of pretending alice said it. ``superseded_by_id`` is a plain integer, not a foreign key: a
decision row is never deleted alone (only with its gold set), and SQLite's batch rebuild of a
self-referencing table is best avoided.

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-24 04:00:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

revision = '0008'
down_revision = '0007'
branch_labels = None
depends_on = None

OLD = "method IN ('unanimous', 'majority', 'adjudicated', 'corrected')"
NEW = "method IN ('unanimous', 'majority', 'adjudicated', 'edited', 'undone', 'corrected')"


def upgrade() -> None:
    with op.batch_alter_table('decision', schema=None) as batch_op:
        batch_op.add_column(sa.Column('superseded_by_id', sa.Integer(), nullable=True))
        batch_op.add_column(sa.Column('before', sa.JSON(), nullable=True))
        batch_op.add_column(sa.Column('after', sa.JSON(), nullable=True))
        batch_op.drop_constraint(batch_op.f('ck_decision_method'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_decision_method'), sa.text(NEW))


def downgrade() -> None:
    # revisions and edits have no older spelling: the history collapses to what is in force
    op.execute("DELETE FROM decision WHERE method = 'undone' OR superseded_by_id IS NOT NULL")
    op.execute("UPDATE decision SET method = 'adjudicated' WHERE method = 'edited'")
    with op.batch_alter_table('decision', schema=None) as batch_op:
        batch_op.drop_constraint(batch_op.f('ck_decision_method'), type_='check')
        batch_op.create_check_constraint(batch_op.f('ck_decision_method'), sa.text(OLD))
        batch_op.drop_column('after')
        batch_op.drop_column('before')
        batch_op.drop_column('superseded_by_id')
