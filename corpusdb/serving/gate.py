"""One login attempt: a name and a password in, a session bound to that person out, or one clear line.

The steps, the same on SQLite and PostgreSQL:

1. a locked name is refused at once (and the attempt recorded);
2. the password is checked: on SQLite against the salted scrypt hash of ``login_password``; on
   PostgreSQL by the server itself, connecting as the person's own role (the URL's user and password
   replaced by what was typed; the serve process never holds them), which must be a team login of
   this project and must not bypass row-level security (a superuser typed on the form is refused);
3. a failure is counted in the database (``login_state``, shared by every session process), waits a
   little longer each time (``LoginPolicy``), locks the name after ``max_failures``, and goes into
   the audit trail; a success clears the count and is recorded as ``login``.

Wrong password, unknown name and a PostgreSQL role that is no team login here get the same line, so
the form does not tell which names exist (an unknown name costs the same scrypt time as a real one).
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from sqlalchemy import Engine, select, text
from sqlalchemy.engine import make_url
from sqlalchemy.exc import DBAPIError

from corpusdb.basics.errors import CorpusError, DatabaseError
from corpusdb.basics.login_policy import LoginPolicy
from corpusdb.basics.passwords import MAX_PASSWORD, verify_password, waste_time
from corpusdb.store import db, rls, tables
from corpusdb.store.login_session import LoginSession
from corpusdb.store.login_store import GateStore, PersonStore, SqliteGate, SqlitePerson, typed_name

WRONG = "wrong name or password"


class LoginRefused(CorpusError):
    """The one line the login screen shows; ``reason`` is what the audit trail records."""

    exit_code = 5

    def __init__(self, message: str, reason: str = "") -> None:
        super().__init__(message)
        self.reason = reason


@dataclass
class LoginGate:
    """Logins to one project of one database (``url``: on PostgreSQL, the gatekeeper's)."""

    url: str
    project: str | None = None
    policy: LoginPolicy = field(default_factory=LoginPolicy)
    via: str = "tui"
    """Where the login screen runs: ``serve`` (a browser) or ``tui`` (``corpusdb tui --login``)."""

    def __post_init__(self) -> None:
        self._engine: Engine | None = None
        self._pid: int | None = None

    @property
    def postgres(self) -> bool:
        return make_url(db._normalise(self.url)).get_backend_name() == "postgresql"

    def _gate(self) -> tuple[Engine, int]:
        if self._engine is None:
            engine = db.make_engine(self.url)
            if self.postgres:
                check_gatekeeper(engine)
                from corpusdb.store.login_pgsql import PgGate

                pid = PgGate.project_id(engine, self.project)
                if pid is None:
                    raise DatabaseError(
                        "no such project here"
                        if self.project
                        else "name the project (--project): this database holds none or several"
                    )
            else:
                from corpusdb.services.projects import project_id_by_name
                from corpusdb.store import migrate

                migrate.ensure_current(engine)
                with db.read(engine) as conn:
                    pid = project_id_by_name(conn, self.project)
            self._engine, self._pid = engine, pid
        assert self._pid is not None
        return self._engine, self._pid

    def _store(self) -> GateStore:
        engine, pid = self._gate()
        if self.postgres:
            from corpusdb.store.login_pgsql import PgGate

            return PgGate(engine, pid)
        return SqliteGate(engine, pid)

    def check(self) -> None:
        """Open the gate now (start-up): a bad URL, a missing project or an owner URL fail here."""
        self._gate()

    def login(self, name: str, password: str) -> LoginSession:
        """The session of the person ``name`` if ``password`` is theirs, else ``LoginRefused``."""
        who = typed_name(name)
        if not who or not password:
            raise LoginRefused("type your name and your password", "empty")
        store = self._store()
        now = datetime.now(UTC)
        state = store.state(who)
        if state.locked(now):
            self._fail(store, who, "locked")
            assert state.locked_until is not None
            raise LoginRefused(_locked_line(state.locked_until), "locked")
        try:
            session = self._verify(who, password)
        except LoginRefused as refused:
            after = self._fail(store, who, refused.reason)
            if after.locked(datetime.now(UTC)):
                assert after.locked_until is not None
                raise LoginRefused(_locked_line(after.locked_until), refused.reason) from None
            raise
        return session

    def _fail(self, store: GateStore, who: str, reason: str) -> Any:
        state = store.failed(who, reason, self.via, self.policy.max_failures, self.policy.lockout)
        time.sleep(self.policy.wait_after(state.failures))
        return state

    # -- checking the password --------------------------------------------------------------------------
    def _verify(self, who: str, password: str) -> LoginSession:
        if len(password) > MAX_PASSWORD:
            raise LoginRefused(WRONG, "password")
        return self._verify_postgres(who, password) if self.postgres else self._verify_sqlite(who, password)

    def _verify_sqlite(self, who: str, password: str) -> LoginSession:
        from corpusdb.api import Corpus

        engine, pid = self._gate()
        a, pw = tables.annotator, tables.login_password
        with db.read(engine) as conn:
            row = conn.execute(
                select(pw.c.id, pw.c.password_hash, pw.c.generation, pw.c.revoked)
                .join(a, a.c.id == pw.c.annotator_id)
                .where(pw.c.project_id == pid, a.c.name == who)
            ).first()
        if row is None:
            waste_time(password)
            raise LoginRefused(WRONG, "unknown")
        if not verify_password(password, row.password_hash):
            raise LoginRefused(WRONG, "password")
        if row.revoked is not None:
            raise LoginRefused("this login was revoked: ask your lead", "revoked")
        mine = db.make_engine(self.url)  # the person's own engine: the session's guard watches it alone
        person = SqlitePerson(mine, pid, who, row.id, row.generation)
        corpus = Corpus(mine, pid, _actor(mine, pid, who))
        return self._open(corpus, who, person)

    def _verify_postgres(self, who: str, password: str) -> LoginSession:
        from corpusdb.api import Corpus
        from corpusdb.services.team import connection_annotator
        from corpusdb.store.login_pgsql import PgPerson

        _, pid = self._gate()
        if not rls.ROLE_NAME.match(who):
            waste_time(password)
            raise LoginRefused(WRONG, "unknown")
        url = make_url(db._normalise(self.url)).set(username=who, password=password)
        engine = db.make_engine(url.render_as_string(hide_password=False))
        try:
            with engine.connect() as conn:
                role, bound = connection_annotator(conn, pid)
                unsafe = bypasses_rls(conn)
        except DBAPIError as exc:
            engine.dispose()
            raise _classify(exc) from None
        except BaseException:
            engine.dispose()
            raise
        if role is None or bound is None or unsafe:
            engine.dispose()
            raise LoginRefused(WRONG, "not a team login")
        corpus = Corpus.open(self.project, engine=engine)
        return self._open(corpus, who, PgPerson(engine, pid))

    def _open(self, corpus: Any, who: str, person: PersonStore) -> LoginSession:
        person.succeeded(who, self.via)
        return LoginSession(corpus, who, person, via=self.via, idle_timeout=self.policy.idle_timeout)


def _actor(engine: Engine, pid: int, name: str) -> Any:
    from corpusdb.services.projects import resolve_actor

    with db.read(engine) as conn:
        return resolve_actor(conn, pid, name)


def _locked_line(until: datetime) -> str:
    return f"too many failed logins for this name: it is locked until {until:%H:%M} UTC (or ask your lead)"


def _classify(exc: DBAPIError) -> LoginRefused | DatabaseError:
    """A refused connection as the login screen says it (and the trail records it)."""
    orig = exc.orig
    state = getattr(orig, "sqlstate", None)
    low = " ".join(str(orig).split()).lower()
    if state == "28P01" or "password authentication failed" in low or "no password supplied" in low:
        return LoginRefused(WRONG, "password")
    if "not permitted to log in" in low:
        return LoginRefused("this login was revoked: ask your lead", "revoked")
    if state == "28000" or ("role" in low and "does not exist" in low):
        return LoginRefused(WRONG, "unknown")
    return DatabaseError(f"the database does not answer: {db.explain(exc)}")


def bypasses_rls(conn: Any) -> bool:
    """Whether this connection's role sees past row-level security: a superuser, BYPASSRLS, or the
    owner of the tables (the database owner a lead works as)."""
    row = conn.execute(
        text(
            "SELECT r.rolsuper OR r.rolbypassrls OR EXISTS (SELECT 1 FROM pg_tables t WHERE "
            "t.schemaname = current_schema() AND t.tablename = 'annotation_set' AND t.tableowner = current_user) "
            "FROM pg_roles r WHERE r.rolname = current_user"
        )
    ).scalar()
    return bool(row)


def check_gatekeeper(engine: Engine) -> None:
    """Refuse a gate URL that is the owner, a superuser or a person: the session processes would hold
    their rights. It must be a gatekeeper (``corpusdb team gatekeeper``): the login functions, no table."""
    from corpusdb.store.login_pgsql import is_gatekeeper

    with db.read(engine) as conn:
        role = conn.execute(text("SELECT current_user")).scalar()
        if bypasses_rls(conn):
            raise DatabaseError(
                f"the database URL logs in as {role}, which sees every row (owner or superuser): serving logins "
                "needs a gatekeeper role instead (`corpusdb team gatekeeper NAME`, then use it in the URL)"
            )
        if not is_gatekeeper(conn):
            raise DatabaseError(
                f"the database URL logs in as {role}, which is no gatekeeper here: run `corpusdb team gatekeeper "
                f"{role}` as the owner first"
            )
