"""The login functions of team mode (PostgreSQL): counting failures without an owner connection.

Why functions: before a person is logged in there is no connection of theirs to count a failure
with, and the serve process must hold neither a person's credentials nor the owner's. It holds a
*gatekeeper* role (``corpusdb team gatekeeper``) that may execute two functions and read nothing:
``corpusdb_login_state`` and ``corpusdb_login_failed`` (which also writes the ``login_failed`` and
``login_locked`` audit events). Once a person's own role is connected, it calls the functions about
*itself* (``session_user``, never a name it passes): ``corpusdb_login_succeeded`` (clears its count,
writes ``login``), ``corpusdb_login_logout``, ``corpusdb_login_valid`` (its team login still
exists and may log in) and the resume point. Each is ``SECURITY DEFINER`` (the owner's rights, so
the tables ``login_state`` and ``audit_event`` need no grant to anyone) with a fixed search path.
"""

from __future__ import annotations

from datetime import timedelta

from sqlalchemy import Connection, Engine, text

from corpusdb.store import db, rls
from corpusdb.store.login_store import NameState, aware

GATE_FUNCTIONS = (
    "corpusdb_login_project(text)",
    "corpusdb_login_state(integer, text)",
    "corpusdb_login_failed(integer, text, text, text, integer, integer)",
)
PERSON_FUNCTIONS = rls.LOGIN_PERSON_FUNCTIONS

_ME = (
    "SELECT t.role_name, a.name FROM team_login t JOIN annotator a ON a.id = t.annotator_id "
    "WHERE t.project_id = pid AND t.role_name = session_user::text"
)


def _functions(schema: str) -> list[str]:
    head = f"SECURITY DEFINER SET search_path = {rls.quote_ident(schema)}, pg_temp"
    return [
        # the project's id (the only project when none is named): the gatekeeper reads no table
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_project(pname text) RETURNS integer
        LANGUAGE sql STABLE {head} AS $$
          SELECT CASE WHEN pname IS NULL THEN (SELECT CASE WHEN count(*) = 1 THEN min(id) END FROM project)
                      ELSE (SELECT id FROM project WHERE name = pname) END
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_state(pid integer, who text,
                OUT n_failures integer, OUT t_locked timestamptz)
        LANGUAGE sql STABLE {head} AS $$
          SELECT coalesce((SELECT s.failures FROM login_state s WHERE s.project_id = pid AND s.name = who), 0),
                 (SELECT s.locked_until FROM login_state s WHERE s.project_id = pid AND s.name = who)
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_failed(pid integer, who text, why text, via text,
                max_failures integer, lock_seconds integer, OUT n_failures integer, OUT t_locked timestamptz)
        LANGUAGE plpgsql {head} AS $$
          DECLARE was timestamptz; newly boolean;
          BEGIN
            INSERT INTO login_state (project_id, name, failures, updated) VALUES (pid, who, 0, now())
              ON CONFLICT (project_id, name) DO NOTHING;
            SELECT s.failures + 1, s.locked_until INTO n_failures, was FROM login_state s
              WHERE s.project_id = pid AND s.name = who FOR UPDATE;
            newly := n_failures >= max_failures AND (was IS NULL OR was <= now());
            t_locked := CASE WHEN newly THEN now() + make_interval(secs => lock_seconds) ELSE was END;
            UPDATE login_state SET failures = n_failures, locked_until = t_locked, updated = now()
              WHERE project_id = pid AND name = who;
            INSERT INTO audit_event (project_id, actor, action, target, detail, created)
              VALUES (pid, who, 'login_failed', who,
                      json_build_object('reason', why, 'failures', n_failures, 'via', via), now());
            IF newly THEN
              INSERT INTO audit_event (project_id, actor, action, target, detail, created)
                VALUES (pid, who, 'login_locked', who, json_build_object('until', t_locked, 'via', via), now());
            END IF;
          END
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_succeeded(pid integer, via text) RETURNS text
        LANGUAGE plpgsql {head} AS $$
          DECLARE r text; who text;
          BEGIN
            {_ME} INTO r, who;
            IF who IS NULL THEN RETURN NULL; END IF;
            UPDATE login_state SET failures = 0, locked_until = NULL, updated = now()
              WHERE project_id = pid AND name = r;
            INSERT INTO audit_event (project_id, actor, action, target, detail, created)
              VALUES (pid, who, 'login', who, json_build_object('login', r, 'via', via), now());
            RETURN who;
          END
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_logout(pid integer, why text, via text) RETURNS void
        LANGUAGE plpgsql {head} AS $$
          DECLARE r text; who text;
          BEGIN
            {_ME} INTO r, who;
            IF who IS NOT NULL THEN
              INSERT INTO audit_event (project_id, actor, action, target, detail, created)
                VALUES (pid, who, 'logout', who, json_build_object('reason', why, 'login', r, 'via', via), now());
            END IF;
          END
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_valid(pid integer) RETURNS boolean
        LANGUAGE sql STABLE {head} AS $$
          SELECT EXISTS (SELECT 1 FROM team_login t JOIN pg_roles r ON r.rolname = t.role_name
                         WHERE t.project_id = pid AND t.role_name = session_user::text AND r.rolcanlogin)
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_last_document(pid integer) RETURNS text
        LANGUAGE sql STABLE {head} AS $$
          SELECT s.last_document FROM login_state s JOIN team_login t
            ON t.project_id = s.project_id AND t.role_name = s.name
          WHERE s.project_id = pid AND s.name = session_user::text
        $$""",
        f"""CREATE OR REPLACE FUNCTION corpusdb_login_remember(pid integer, doc text) RETURNS void
        LANGUAGE plpgsql {head} AS $$
          BEGIN
            IF EXISTS (SELECT 1 FROM team_login t WHERE t.project_id = pid AND t.role_name = session_user::text) THEN
              INSERT INTO login_state (project_id, name, failures, last_document, updated)
                VALUES (pid, session_user::text, 0, doc, now())
                ON CONFLICT (project_id, name) DO UPDATE SET last_document = doc, updated = now();
            END IF;
          END
        $$""",
    ]


def install(conn: Connection) -> None:
    """Create (or replace) the login functions; the gate functions are for gatekeepers only."""
    if not rls.is_postgres(conn):
        return
    for stmt in _functions(rls.current_schema(conn)):
        conn.exec_driver_sql(stmt)
    for sig in GATE_FUNCTIONS + PERSON_FUNCTIONS:  # no role of the server but those granted below
        conn.exec_driver_sql(f"REVOKE EXECUTE ON FUNCTION {sig} FROM PUBLIC")
    for role in rls.logins(conn):  # team logins made before these functions existed
        for sig in PERSON_FUNCTIONS:
            conn.exec_driver_sql(f"GRANT EXECUTE ON FUNCTION {sig} TO {rls.quote_ident(role)}")


def uninstall(conn: Connection) -> None:
    if not rls.is_postgres(conn):
        return
    for sig in GATE_FUNCTIONS + PERSON_FUNCTIONS:
        conn.exec_driver_sql(f"DROP FUNCTION IF EXISTS {sig}")


def gatekeeper_grants(schema: str, role: str) -> list[str]:
    """What a gatekeeper role may do: reach the schema and call the two gate functions. No table."""
    r = rls.quote_ident(role)
    return [f"GRANT USAGE ON SCHEMA {rls.quote_ident(schema)} TO {r}"] + [
        f"GRANT EXECUTE ON FUNCTION {sig} TO {r}" for sig in GATE_FUNCTIONS
    ]


def is_gatekeeper(conn: Connection) -> bool:
    """Whether this connection's role may call the gate functions."""
    return bool(
        conn.execute(
            text("SELECT has_function_privilege(current_user, :f, 'EXECUTE')"), {"f": GATE_FUNCTIONS[2]}
        ).scalar()
    )


class PgGate:
    """The gate functions, called as the gatekeeper role."""

    def __init__(self, engine: Engine, project_id: int) -> None:
        self.engine = engine
        self.project_id = project_id

    @staticmethod
    def project_id(engine: Engine, project: str | None) -> int | None:
        with db.read(engine) as conn:
            return conn.execute(text("SELECT corpusdb_login_project(:n)"), {"n": project}).scalar()

    def state(self, name: str) -> NameState:
        with db.read(self.engine) as conn:
            row = conn.execute(
                text("SELECT n_failures, t_locked FROM corpusdb_login_state(:p, :n)"),
                {"p": self.project_id, "n": name},
            ).one()
        return NameState(int(row[0]), aware(row[1]))

    def failed(self, name: str, reason: str, via: str, max_failures: int, lockout: timedelta) -> NameState:
        with db.write(self.engine) as conn:
            row = conn.execute(
                text("SELECT n_failures, t_locked FROM corpusdb_login_failed(:p, :n, :r, :v, :m, :s)"),
                {"p": self.project_id, "n": name, "r": reason, "v": via, "m": max_failures,
                 "s": int(lockout.total_seconds())},
            ).one()  # fmt: skip
        return NameState(int(row[0]), aware(row[1]))


class PgPerson:
    """The person functions, called through the person's own role (``session_user``)."""

    def __init__(self, engine: Engine, project_id: int) -> None:
        self.engine = engine
        self.project_id = project_id

    def succeeded(self, name: str, via: str) -> None:
        with db.write(self.engine) as conn:
            conn.execute(text("SELECT corpusdb_login_succeeded(:p, :v)"), {"p": self.project_id, "v": via})

    def logout(self, reason: str, via: str) -> None:
        with db.write(self.engine) as conn:
            conn.execute(
                text("SELECT corpusdb_login_logout(:p, :r, :v)"),
                {"p": self.project_id, "r": reason, "v": via},
            )

    def still_valid(self, conn: Connection) -> str | None:
        ok = conn.execute(text("SELECT corpusdb_login_valid(:p)"), {"p": self.project_id}).scalar()
        return None if ok else "your login was revoked"

    def last_document(self) -> str | None:
        with db.read(self.engine) as conn:
            return conn.execute(
                text("SELECT corpusdb_login_last_document(:p)"), {"p": self.project_id}
            ).scalar()

    def remember_document(self, document: str) -> None:
        with db.write(self.engine) as conn:
            conn.execute(
                text("SELECT corpusdb_login_remember(:p, :d)"), {"p": self.project_id, "d": document}
            )


def scram_literal(conn: Connection, role: str, password: str) -> str:
    """``password`` as an SQL literal of the form the server stores (SCRAM), hashed here so it never
    crosses the wire or lands in the server's statement log in clear (``ALTER ROLE ... PASSWORD``)."""
    from psycopg import sql

    pgconn = conn.connection.driver_connection.pgconn  # type: ignore[union-attr]
    hashed = pgconn.encrypt_password(password.encode(), role.encode(), b"scram-sha-256").decode()
    return sql.Literal(hashed).as_string(conn.connection.driver_connection)  # type: ignore[arg-type]
