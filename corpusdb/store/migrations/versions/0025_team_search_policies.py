"""team mode: cheaper policies and the trigram candidates for a team login's searches (issue 29)

Why: searching as a team login on PostgreSQL took 1.5-10 times the owner's time (a word's first 100
hits 105 ms, ``type:Habitat`` 160 ms, a regex 257 ms at 10^6 spans). The project-scoped tables'
policies called ``corpusdb_role_in`` once per row (a ``SECURITY DEFINER`` function is never inlined);
they now test ``project_id IN (SELECT corpusdb_projects(...))``, computed once per statement, with the
same answer. ``corpusdb_sets`` (the sets a login may read or write, which the content tables'
policies ask once per statement) no longer walks every set of an annotator's project, and
``corpusdb_like_candidates`` answers a team login's ``ILIKE`` literals from the trigram index (guarded as
``corpusdb_text_candidates``). What they are: ``corpusdb.store.rls``. Nothing in the tables changes:
this revision exists so that a database already at 0024 gets them (``install`` runs after every upgrade
that moves the revision; a login given afterwards is granted every function of
``rls.FUNCTION_SIGNATURES``, which must then exist).

Downgrading keeps them (the rules are the same; an older corpusdb never calls the new functions).
On SQLite nothing happens.

Revision ID: 0025
Revises: 0024
Create Date: 2026-11-28 10:40:00
"""

from __future__ import annotations

from alembic import op

from corpusdb.store import rls


revision = "0025"
down_revision = "0024"
branch_labels = None
depends_on = None


def upgrade() -> None:
    rls.install(op.get_bind())


def downgrade() -> None:
    pass
