"""PostgreSQL team mode, over the websocket protocol a browser tab speaks (tui.webclient): a wrong
password, an unknown name, a revoked login and a locked-out name each get one clear line on the
login screen and nothing else (no project data, no document list, no traceback). Issue 23."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import PG_URL, TeamRoles, role_url
from tests.serve_support import served
from tui.sample import build_sample
from tui.testing import run_async
from tui.webclient import ServedSession

pytestmark = [pytest.mark.slow, pytest.mark.postgres]

SECRETS = ("demo", "d1", "d2", "IL-2", "Bacillus", "protein", "biorelex", "My documents", "Traceback")
WRONG = "wrong name or password"
REVOKED = "this login was revoked: ask your lead"
LOCKED = "too many failed logins for this name"


def refused_with(base: str, name: str, password: str, line: str) -> str:
    """A fresh tab's login as ``name``: the screen must be the login form and that one line."""

    @run_async
    async def go() -> str:
        s = ServedSession(base)
        await s.connect()
        try:
            await s.log_in(name, password)
            await s.wait_for(line, timeout=60)
            return s.text()
        finally:
            await s.close()

    screen = go()
    assert "log in" in screen, screen
    leaked = [w for w in SECRETS if w in screen.replace(name, "")]  # (a role's suffix may hold "d2")
    assert not leaked, f"{leaked} shown with the refusal:\n{screen}"
    others = {WRONG, REVOKED, LOCKED} - {line}
    assert not [o for o in others if o in screen], screen
    return screen


def gated(pg_url: str, team_roles: TeamRoles) -> tuple[object, str]:
    owner = build_sample(pg_url)
    for who in ("alice", "bob"):
        owner.team_login(who, login=team_roles.name(who))
    owner.team_gatekeeper(team_roles.name("gate"))
    return owner, role_url(pg_url, team_roles.name("gate"))


def test_unknown_revoked_and_locked_each_get_their_one_line(
    pg_url: str, team_roles: TeamRoles, tmp_path: Path
) -> None:
    owner, gate_url = gated(pg_url, team_roles)
    with served(gate_url, "--max-failures", "2", cwd=tmp_path) as (base, _):
        refused_with(base, team_roles.name("mallory"), "x", WRONG)  # no such role
        refused_with(base, "no such person", "x", WRONG)  # not even a role name
        owner.team_revoke("bob", drop_role=False)  # type: ignore[attr-defined]
        refused_with(base, team_roles.name("bob"), "any", REVOKED)
        # mallory's second failure in a row locks the name; a third try is refused at once
        refused_with(base, team_roles.name("mallory"), "y", LOCKED)
        refused_with(base, team_roles.name("mallory"), "z", LOCKED)
    failed = [(e.actor, e.detail["reason"]) for e in owner.history(action="login_failed")]  # type: ignore[attr-defined]
    mallory, bob = team_roles.name("mallory"), team_roles.name("bob")
    assert failed == [(mallory, "locked"), (mallory, "unknown"), (bob, "revoked"),
                      ("no such person", "unknown"), (mallory, "unknown")]  # fmt: skip
    owner.engine.dispose()  # type: ignore[attr-defined]


PASSWORD_GROUP = "corpusdb_password_checked"
"""A role whose members' passwords the server checks over TCP (``.ci/run`` puts the rule
``host all +corpusdb_password_checked 127.0.0.1/32 scram-sha-256`` first in pg_hba.conf); the test
makes its login a member, so a server that trusts every other role still checks this one."""


def _passwords_checked(role: str) -> bool:
    """Whether this server checks a role's password at all (a test server may trust local roles)."""
    import psycopg
    from sqlalchemy.engine import make_url

    u = make_url(PG_URL)
    where = {"host": u.host or "127.0.0.1", "port": u.port or 5432, "dbname": u.database}
    with psycopg.connect(user=u.username or "postgres", autocommit=True, **where) as conn:
        conn.execute(f"ALTER ROLE \"{role}\" PASSWORD 'right-pw'")
        if conn.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (PASSWORD_GROUP,)).fetchone():
            conn.execute(f'GRANT {PASSWORD_GROUP} TO "{role}"')
    try:
        psycopg.connect(user=role, password="wrong-pw", **where).close()
    except psycopg.OperationalError:
        return True
    return False


def test_a_wrong_password_gets_one_line(pg_url: str, team_roles: TeamRoles, tmp_path: Path) -> None:
    owner, gate_url = gated(pg_url, team_roles)
    alice = team_roles.name("alice")
    if not _passwords_checked(alice):
        owner.engine.dispose()  # type: ignore[attr-defined]
        pytest.skip(
            "this PostgreSQL trusts every local role (pg_hba trust): no password is ever wrong; "
            f".ci/run adds a pg_hba rule making members of {PASSWORD_GROUP} give their password"
        )
    with served(gate_url, cwd=tmp_path) as (base, _):
        refused_with(base, alice, "wrong-pw", WRONG)
    failed = [(e.actor, e.detail["reason"]) for e in owner.history(action="login_failed")]  # type: ignore[attr-defined]
    assert failed == [(alice, "password")]
    owner.engine.dispose()  # type: ignore[attr-defined]
