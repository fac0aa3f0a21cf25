"""team mode hardened: a login writes only what it may, ids and deletes through the server, no locks

Why (issue #22, items 1-4): the rules of 0007 let an annotator's login turn her own set into gold,
insert gold sets, read adjudication through them, ask ``corpusdb_set_of`` for anyone's counts,
watch the sequences' ``last_value``, and ``LOCK TABLE span`` for everyone. ``corpusdb.store.rls.install``
now writes the stricter rules (see its docstring): set kind, annotator and document never change,
owners write only their unsubmitted annotation sets, decisions only in gold; ids come from the
server (``corpusdb_next_ids``, leased per transaction) and deletes through ``corpusdb_delete``, so
team logins hold no sequence right and no table-level UPDATE/DELETE (which also allowed ``LOCK``);
the ``SECURITY DEFINER`` functions are revoked from PUBLIC and answer only about what the asking
login may read or write; content columns get statistics target 0 (their old statistics purged).
Nothing in the tables changes: this revision exists so that a database already at 0009 gets the
new rules (``install`` runs after every upgrade that moves the revision).

Downgrading keeps these rules (there is no older rule set in this code to go back to): an older
corpusdb then fails closed for team logins (their writes are refused: no sequence right); the
owner works as before. On SQLite nothing happens.

Revision ID: 0010
Revises: 0009
Create Date: 2026-11-25 09:00:00
"""

from __future__ import annotations

from alembic import op

from corpusdb.store import rls


revision = '0010'
down_revision = '0009'
branch_labels = None
depends_on = None


def upgrade() -> None:
    rls.install(op.get_bind())


def downgrade() -> None:
    pass
