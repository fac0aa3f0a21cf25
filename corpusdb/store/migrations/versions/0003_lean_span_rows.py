"""lean span rows: fragments NULL for a contiguous span; no (set_id, start) index

Why: a bulk import writes 10^5-10^6 spans, nearly all contiguous. ``fragments`` NULL now means the
one fragment ``[start, stop]`` (a JSON list is kept for discontinuous spans and for names without a
mention, ``[]``), so such a row binds and stores no JSON. The ``(set_id, start)`` index served no
query (a set's spans are read whole by ``set_id``, which the unique ``(set_id, local_id)`` index
serves) yet every insert paid for it. Rows written before keep their JSON, which reads the same.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-22 20:40:00
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op


revision = '0003'
down_revision = '0002'
branch_labels = None
depends_on = None


def upgrade() -> None:
    with op.batch_alter_table('span', schema=None) as batch_op:
        batch_op.drop_index('ix_span_set_start')
        batch_op.alter_column('fragments', existing_type=sa.JSON(), nullable=True)


def downgrade() -> None:
    array = "json_array" if op.get_bind().dialect.name == "sqlite" else "json_build_array"
    op.execute(f"UPDATE span SET fragments = {array}({array}(start, stop)) WHERE fragments IS NULL")
    with op.batch_alter_table('span', schema=None) as batch_op:
        batch_op.alter_column('fragments', existing_type=sa.JSON(), nullable=False)
        batch_op.create_index('ix_span_set_start', ['set_id', 'start'], unique=False)
