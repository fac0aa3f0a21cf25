"""What a lead manages for the login screen: passwords on SQLite, the gatekeeper role on PostgreSQL.

On PostgreSQL a person's password is their role's (``corpusdb team login``, stored by the server as
SCRAM); on SQLite there are no roles, so ``corpusdb team login NAME`` stores a salted scrypt hash in
``login_password`` instead. Revoking keeps the row, marked, and moves its generation on: the person's
open sessions end at their next action (``corpusdb.store.login_session``) and the login screen refuses them.
"""

from __future__ import annotations

from datetime import UTC, datetime

from sqlalchemy import insert, select, text, update

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from corpusdb.basics.passwords import hash_password
from corpusdb.services.base import ServiceBase, aware
from corpusdb.store import rls, tables

PW = tables.login_password
S = tables.login_state
A = tables.annotator


class LoginsMixin(ServiceBase):
    bound_role: str | None = None

    def _require_owner_or_lead(self, doing: str) -> None:
        self._require("lead", doing=doing)
        if self.bound_role is not None:
            raise PermissionDenied(
                f"{doing} is for the database owner; this connection is the team login {self.bound_role}"
            )

    def set_password(self, annotator: str, password: str) -> None:
        """Give ``annotator`` a login-screen password on SQLite (again: a new one; their open sessions
        end and their failed-login count is cleared)."""
        self._require_owner_or_lead("setting passwords")
        if self.engine.dialect.name != "sqlite":
            raise InvalidInput(
                "on PostgreSQL a person's password is their role's: `corpusdb team login NAME`"
            )
        try:
            hashed = hash_password(password)
        except ValueError as exc:
            raise InvalidInput(str(exc)) from None
        now = datetime.now(UTC)
        with self._write() as conn:
            aid = conn.execute(
                select(A.c.id).where(A.c.project_id == self.project_id, A.c.name == annotator)
            ).scalar()
            if aid is None:
                raise NotFound(f"no annotator named {annotator!r} in this project")
            had = conn.execute(select(PW.c.id).where(PW.c.annotator_id == aid)).scalar()
            if had is None:
                conn.execute(
                    insert(PW).values(
                        project_id=self.project_id, annotator_id=aid, password_hash=hashed, created=now
                    )
                )
            else:
                conn.execute(
                    update(PW)
                    .where(PW.c.id == had)
                    .values(password_hash=hashed, generation=PW.c.generation + 1, revoked=None, created=now)
                )
            conn.execute(
                update(S)
                .where(S.c.project_id == self.project_id, S.c.name == annotator)
                .values(failures=0, locked_until=None, updated=now)
            )
            self._audit(conn, "login_password", annotator, new=had is None)

    def revoke_password(self, annotator: str) -> None:
        """End ``annotator``'s logins on SQLite: the login screen refuses them, open sessions end."""
        self._require_owner_or_lead("revoking logins")
        with self._write() as conn:
            row = conn.execute(
                select(PW.c.id, PW.c.revoked)
                .join(A, A.c.id == PW.c.annotator_id)
                .where(PW.c.project_id == self.project_id, A.c.name == annotator)
            ).first()
            if row is None or row.revoked is not None:
                raise NotFound(f"{annotator} has no login here" + (" (revoked already)" if row else ""))
            conn.execute(
                update(PW)
                .where(PW.c.id == row.id)
                .values(revoked=datetime.now(UTC), generation=PW.c.generation + 1)
            )
            self._audit(conn, "login_revoke", annotator)

    def passwords(self) -> list[tuple[str, str, bool, datetime | None]]:
        """(annotator, role, may log in, set when) for every SQLite login of this project."""
        self._require("lead", doing="list logins")
        with self._read() as conn:
            rows = conn.execute(
                select(A.c.name, A.c.role, PW.c.revoked, PW.c.created)
                .join(A, A.c.id == PW.c.annotator_id)
                .where(PW.c.project_id == self.project_id)
                .order_by(A.c.name)
            ).all()
        return [(r[0], r[1], r[2] is None, aware(r[3])) for r in rows]

    def team_gatekeeper(self, role: str, *, password: str | None = None) -> None:
        """Make ``role`` (created when absent) the gatekeeper ``corpusdb serve`` logs in as on PostgreSQL:
        it may call the login functions (state of a name, record a failure) and read no table."""
        self._require_owner_or_lead("making a gatekeeper")
        if self.engine.dialect.name != "postgresql":
            raise InvalidInput(
                "a gatekeeper is for PostgreSQL; on SQLite the session processes open the file"
            )
        if not rls.ROLE_NAME.match(role):
            raise InvalidInput(
                f"{role!r} is not a plain PostgreSQL role name (lower-case letters, digits, _)"
            )
        from corpusdb.store.login_pgsql import gatekeeper_grants, scram_literal

        with self._write() as conn:
            if conn.execute(
                select(tables.team_login.c.id).where(tables.team_login.c.role_name == role)
            ).first():
                raise Conflict(f"{role} is a person's team login; a gatekeeper must be a role of its own")
            q = rls.quote_ident(role)
            exists = conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
            conn.exec_driver_sql(f"{'ALTER' if exists else 'CREATE'} ROLE {q} LOGIN NOSUPERUSER NOBYPASSRLS")
            if password is not None:
                conn.exec_driver_sql(f"ALTER ROLE {q} PASSWORD {scram_literal(conn, role, password)}")
            for stmt in gatekeeper_grants(rls.current_schema(conn), role):
                conn.exec_driver_sql(stmt)
            self._audit(conn, "team_gatekeeper", role, created=not exists)
