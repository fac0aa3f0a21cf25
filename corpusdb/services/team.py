"""Team mode: PostgreSQL login roles tied to annotators, managed by the lead.

Why: on PostgreSQL a person can log in as their own role; the row-level security of
``corpusdb.store.rls`` then enforces blindness in the server, and ``Corpus.open`` takes the
connection's role as the user (``--as`` cannot name someone else). Roles are cluster-wide;
the mapping from role to annotator lives in this database's ``team_login`` table.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import Connection, insert, select, text

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, PermissionDenied
from corpusdb.services.base import aware, utcnow_aware
from corpusdb.services.login_accounts import LoginsMixin
from corpusdb.store import rls, tables
from corpusdb.store.login_pgsql import scram_literal

T = tables.team_login
A = tables.annotator


@dataclass(frozen=True, slots=True)
class TeamLogin:
    """One person's login: the PostgreSQL role, the annotator it is, and whether it may log in."""

    annotator: str
    role: str
    login: str
    can_login: bool
    created: datetime | None


def connection_annotator(conn: Connection, project_id: int) -> tuple[str | None, str | None]:
    """(role, annotator name) when this connection logged in as a team role, else (None, None).

    A team role with no annotator in this project gets (role, None): it may not act here at all."""
    if not rls.is_postgres(conn):
        return None, None
    role = str(conn.execute(text("SELECT current_user")).scalar_one())
    if "team_login" not in rls.existing_tables(conn):
        return None, None
    rows = conn.execute(select(T.c.project_id, T.c.annotator_id).where(T.c.role_name == role)).all()
    if not rows:
        return None, None
    for pid, ann_id in rows:
        if pid == project_id:
            return role, conn.execute(select(A.c.name).where(A.c.id == ann_id)).scalar_one()
    return role, None


class TeamMixin(LoginsMixin):
    """Lead-only management of team logins: PostgreSQL roles, or login-screen passwords on SQLite."""

    bound_role: str | None = None
    """The PostgreSQL role this handle is bound to (a team login), else None."""

    def require_team_admin(self, doing: str = "managing team logins", *, password: bool = False) -> None:
        """Refuse unless this handle may manage logins: a lead, not itself a team login, on PostgreSQL
        (on SQLite too when a ``password`` is given: the login screen's password)."""
        self._require("lead", doing=doing)
        if self.bound_role is not None:
            raise PermissionDenied(
                f"{doing} is for the database owner; this connection is the team login {self.bound_role}"
            )
        if self.engine.dialect.name != "postgresql" and not password:
            raise InvalidInput(
                "a login without a password needs PostgreSQL (the server authenticates); on SQLite give "
                "NAME a password for `corpusdb serve` and `tui --login`, or an SSH key with "
                "`ForceCommand corpusdb tui --as NAME` (see the README)"
            )

    def team_login(
        self, annotator: str, *, login: str | None = None, password: str | None = None
    ) -> TeamLogin:
        """Give ``annotator`` a PostgreSQL login role (``login``, default their name): created when
        absent, with ``password`` if given (else authentication is the server's: peer, cert, LDAP...).

        On SQLite there are no roles: ``password`` (required) becomes the annotator's password on the
        login screen of ``corpusdb serve`` and ``corpusdb tui --login`` (a salted scrypt hash)."""
        if self.engine.dialect.name == "sqlite" and password is not None:
            self.set_password(annotator, password)
            return next(x for x in self.team_logins() if x.annotator == annotator)
        self.require_team_admin("giving team logins")
        role = login or annotator
        if not rls.ROLE_NAME.match(role):
            raise InvalidInput(
                f"login role {role!r} is not a plain PostgreSQL name (lower-case letters, digits, _; "
                "at most 63): give one with --login"
            )
        with self._write() as conn:
            row = conn.execute(
                select(A.c.id, A.c.role).where(A.c.project_id == self.project_id, A.c.name == annotator)
            ).first()
            if row is None:
                raise NotFound(f"no annotator named {annotator!r} in this project")
            taken = conn.execute(
                select(T.c.role_name, T.c.annotator_id).where(
                    (T.c.annotator_id == row.id)
                    | ((T.c.project_id == self.project_id) & (T.c.role_name == role))
                )
            ).first()
            if taken is not None:
                raise Conflict(
                    f"{annotator} or role {role} already has a team login here ({taken.role_name})"
                )
            q = rls.quote_ident(role)
            exists = conn.execute(text("SELECT 1 FROM pg_roles WHERE rolname = :r"), {"r": role}).first()
            conn.exec_driver_sql(f"{'ALTER' if exists else 'CREATE'} ROLE {q} LOGIN")
            if password is not None:
                conn.exec_driver_sql(f"ALTER ROLE {q} PASSWORD {scram_literal(conn, role, password)}")
            conn.execute(
                insert(T).values(
                    project_id=self.project_id, annotator_id=row.id, role_name=role, created=utcnow_aware()
                )
            )
            schema = rls.current_schema(conn)
            for stmt in rls.grant_statements(conn, schema, role, rls.existing_tables(conn)):
                conn.exec_driver_sql(stmt)
            self._audit(conn, "team_login", annotator, login=role, created=not exists)
        return next(x for x in self.team_logins() if x.annotator == annotator)

    def team_revoke(self, annotator: str, *, drop_role: bool = True) -> TeamLogin:
        """Take ``annotator``'s login away: the mapping and the role's rights in this database go; the
        role itself is dropped when it has no rights elsewhere (else it is kept, NOLOGIN)."""
        if self.engine.dialect.name == "sqlite":
            self.revoke_password(annotator)
            return next(x for x in self.team_logins() if x.annotator == annotator)
        self.require_team_admin("revoking team logins")
        before = [x for x in self.team_logins() if x.annotator == annotator]
        if not before:
            raise NotFound(f"{annotator} has no team login in this project")
        role = before[0].login
        with self._write() as conn:
            rls.delete_rows(conn, T, T.c.project_id == self.project_id, T.c.role_name == role)
            still = conn.execute(select(T.c.id).where(T.c.role_name == role)).first() is not None
            dropped = False
            if not still:
                for stmt in rls.revoke_statements(conn, rls.current_schema(conn), role):
                    conn.exec_driver_sql(stmt)
                if drop_role:
                    try:
                        with conn.begin_nested():
                            conn.exec_driver_sql(f"DROP ROLE {rls.quote_ident(role)}")
                        dropped = True
                    except Exception:  # rights in another database or schema: keep it, locked
                        pass
                if not dropped:
                    conn.exec_driver_sql(f"ALTER ROLE {rls.quote_ident(role)} NOLOGIN")
            self._audit(conn, "team_revoke", annotator, login=role, dropped=dropped)
        return TeamLogin(annotator, before[0].role, role, False, before[0].created)

    def team_logins(self) -> list[TeamLogin]:
        """Every team login of this project (leads; on PostgreSQL)."""
        self._require("lead", doing="list team logins")
        if self.engine.dialect.name != "postgresql":
            return [TeamLogin(n, r, n, ok, created) for n, r, ok, created in self.passwords()]
        with self._read() as conn:
            rows = conn.execute(
                text(
                    "SELECT a.name, a.role, t.role_name, coalesce(r.rolcanlogin, false), t.created "
                    "FROM team_login t JOIN annotator a ON a.id = t.annotator_id "
                    "LEFT JOIN pg_roles r ON r.rolname = t.role_name "
                    "WHERE t.project_id = :p ORDER BY a.name"
                ),
                {"p": self.project_id},
            ).all()
        return [TeamLogin(r[0], r[1], r[2], bool(r[3]), aware(r[4])) for r in rows]
