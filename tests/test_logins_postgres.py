"""Logins in team mode (PostgreSQL): the session is the person's own role; the gate is a gatekeeper role.

As an attacker: the gate refuses an owner or superuser URL (the session processes would hold every
row); a superuser or any role that is no team login here, typed on the form, is refused (the test
server trusts every role, so only this check stands between "postgres" and every row); the gatekeeper
reads no table; a person cannot call the failure counter to lock a colleague out; revoking a role ends
its open session at its next action. Failures and logins land in login_state and the audit trail.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import timedelta

import psycopg
import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import DatabaseError
from corpusdb.basics.login_policy import LoginPolicy
from corpusdb.serving.gate import WRONG, LoginGate, LoginRefused
from corpusdb.store.login_session import SessionEnded
from tests.conftest import TeamRoles, role_url
from tui.sample import build_sample

pytestmark = pytest.mark.postgres
FAST = LoginPolicy(delay=0.01, max_delay=0.05, max_failures=3, lockout=timedelta(minutes=15))


@dataclass
class PgTeam:
    url: str
    owner: Corpus
    roles: TeamRoles

    def gate(self, **kw: object) -> LoginGate:
        return LoginGate(role_url(self.url, self.roles.name("gate")), policy=FAST, **kw)  # type: ignore[arg-type]

    def sql(self, role: str) -> psycopg.Connection:  # type: ignore[type-arg]
        return psycopg.connect(
            role_url(self.url, role).replace("postgresql+psycopg://", "postgresql://"), autocommit=True
        )


@pytest.fixture
def pg_team(pg_url: str, team_roles: TeamRoles) -> Iterator[PgTeam]:
    owner = build_sample(pg_url)
    for who in ("alice", "bob", "carol"):
        owner.team_login(who, login=team_roles.name(who))
    owner.team_gatekeeper(team_roles.name("gate"))
    yield PgTeam(pg_url, owner, team_roles)
    owner.engine.dispose()


def test_the_gate_refuses_an_owner_url_and_a_role_that_is_no_gatekeeper(pg_team: PgTeam) -> None:
    with pytest.raises(DatabaseError, match="sees every row"):
        LoginGate(pg_team.url).check()  # the test's owner: a superuser
    with pytest.raises(DatabaseError, match="no gatekeeper"):
        LoginGate(role_url(pg_team.url, pg_team.roles.name("alice"))).check()
    pg_team.gate().check()


def test_a_session_connects_as_the_persons_own_role(pg_team: PgTeam) -> None:
    alice = pg_team.roles.name("alice")
    session = pg_team.gate().login(alice, "any: the test server trusts")
    assert session.annotator == "alice" and session.corpus.bound_role == alice
    assert session.corpus.engine.url.username == alice
    assert {s.annotator for s in session.corpus.sets()} == {"alice"}
    session.corpus.engine.dispose()


def test_a_superuser_or_a_stranger_typed_on_the_form_is_refused_and_counted(pg_team: PgTeam) -> None:
    gate = pg_team.gate()
    for name in ("postgres", "nobody_here", "Robert'); DROP TABLE span;--"):
        with pytest.raises(LoginRefused) as got:
            gate.login(name, "x")
        assert str(got.value) == WRONG
    with pg_team.sql("postgres") as o:
        counted = dict(o.execute("SELECT name, failures FROM login_state").fetchall())
    assert counted["postgres"] == 1 and counted["nobody_here"] == 1 and len(counted) == 3
    reasons = {(e.actor, e.detail["reason"]) for e in pg_team.owner.history(action="login_failed")}
    assert ("postgres", "not a team login") in reasons and ("nobody_here", "unknown") in reasons


def test_failures_lock_the_name_and_a_login_clears_them(pg_team: PgTeam) -> None:
    bob = pg_team.roles.name("bob")
    gate = pg_team.gate()
    for _ in range(2):
        with pytest.raises(LoginRefused):
            gate.login("postgres", "x")
    with pytest.raises(LoginRefused, match="too many failed logins"):
        gate.login("postgres", "x")
    assert [e.actor for e in pg_team.owner.history(action="login_locked")] == ["postgres"]
    session = gate.login(bob, "pw")  # bob is not locked: per name
    assert [e.actor for e in pg_team.owner.history(action="login")] == ["bob"]
    session.remember_document("d3")
    assert gate.login(bob, "pw").last_document() == "d3"
    session.logout()
    assert pg_team.owner.history(action="logout")[0].actor == "bob"


def test_the_gatekeeper_reads_nothing_and_a_person_cannot_lock_a_colleague_out(pg_team: PgTeam) -> None:
    gate_role, alice = pg_team.roles.name("gate"), pg_team.roles.name("alice")
    with pg_team.sql(gate_role) as g:
        for table in (
            "span",
            "annotation_set",
            "document",
            "login_state",
            "audit_event",
            "team_login",
            "annotator",
        ):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                g.execute(f"SELECT * FROM {table}")
        assert g.execute("SELECT n_failures FROM corpusdb_login_state(1, 'x')").fetchone() == (0,)
    with pg_team.sql(alice) as a:
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            a.execute(
                "SELECT * FROM corpusdb_login_failed(1, %s, 'x', 'x', 1, 99999)", (pg_team.roles.name("bob"),)
            )
        with pytest.raises(psycopg.errors.InsufficientPrivilege):
            a.execute("SELECT * FROM login_state")
        # her own functions speak only of herself, whatever she passes
        a.execute("SELECT corpusdb_login_remember(1, 'd1')")
    with pg_team.sql("postgres") as o:
        assert o.execute("SELECT name, last_document FROM login_state").fetchall() == [(alice, "d1")]


def test_revoking_a_role_ends_its_open_session_at_the_next_action(pg_team: PgTeam) -> None:
    alice = pg_team.roles.name("alice")
    session = pg_team.gate().login(alice, "pw")
    assert session.corpus.my_set("d1").info.annotator == "alice"
    pg_team.owner.team_revoke("alice", drop_role=False)  # kept NOLOGIN: her connection is still open
    with pytest.raises(SessionEnded, match="revoked"):
        session.corpus.my_set("d1")
    with pytest.raises(LoginRefused):
        pg_team.gate().login(alice, "pw")
    session.corpus.engine.dispose()
