"""`corpusdb serve` over its websocket protocol (tui.webclient, no browser): what the server reveals
before a login, how sessions end, and what kill -9 costs.

* nothing of the project on any page or socket before a login (the page, the static files, the
  download route, the login screen and what its keys open);
* a session ends when its login is revoked (at its next action) or after the idle timeout, recorded;
* kill -9 of one session process loses at most the action in flight, the other sessions go on; kill
  -9 of the server leaves a sound database, its orphaned sessions end by themselves, and a restarted
  server resumes each person at their document;
* the server checks its database first: on PostgreSQL an owner URL is refused (the sessions would
  hold every row), and binding another address than loopback prints one line on the exposure.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from corpusdb.store.db import make_engine
from tests.conftest import TeamRoles
from tests.serve_support import served
from tui.sample import build_sample
from tui.testing import run_async
from tui.webclient import ServedSession

pytestmark = pytest.mark.slow


def project(url: str) -> Corpus:
    owner = build_sample(url)
    owner.team_login("alice", password="alice-pw")
    owner.team_login("bob", password="bob-pw")
    return owner


def session_pids(server_pid: int) -> set[int]:
    """The session processes (``python -m corpusdb ... tui --login``) under the server."""
    found = set()
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmd = Path(f"/proc/{entry}/cmdline").read_bytes().split(b"\0")
            stat = Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        ours = b"--login" in cmd and b"tui" in cmd and not cmd[0].endswith(b"sh")  # not the shell
        if ours and os.getsid(int(entry)) == os.getsid(server_pid) and stat[0] != "Z":
            found.add(int(entry))
    return found


def spans_of(url: str, who: str, doc: str) -> list[str]:
    engine = make_engine(url)
    try:
        return [s.text for s in Corpus.open(engine=engine, user=who).my_set(doc).annotations.spans]
    finally:
        engine.dispose()


async def wait_saved(url: str, who: str, doc: str, n: int) -> list[str]:
    deadline = time.monotonic() + 30
    while len(got := spans_of(url, who, doc)) < n and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    return got


async def annotate_word(s: ServedSession, expect: str) -> None:
    await s.send("a")
    await s.wait_for("picks its type")
    await s.send("/")  # the filter takes the focus a moment after this key is read (a person is slower)
    await asyncio.sleep(0.5)
    await s.type("pro")
    await s.wait_for("▊  pro")
    await s.send("enter")
    await s.wait_for(expect)


async def logged_in(base: str, name: str, password: str, expect: str = "My documents") -> ServedSession:
    s = ServedSession(base)
    await s.connect()
    await s.log_in(name, password, expect=expect)
    return s


def test_nothing_of_the_project_before_a_login(sqlite_url: str, tmp_path: Path) -> None:
    project(sqlite_url)
    secrets = ("demo", "d1", "d2", "IL-2", "Bacillus", "alice", "bob", "protein", "biorelex")

    @run_async
    async def check(base: str) -> None:
        s = ServedSession(base)
        await s.connect()
        await s.wait_for("log in")
        seen = [s.text()]
        for key, shows in (("ctrl+p", "Search"), ("escape", "log in"), ("f1", "Log in with your name"),
                           ("escape", "log in")):  # fmt: skip
            await s.send(key)
            await s.wait_for(shows)
            await asyncio.sleep(0.3)
            seen.append(s.text())
        await s.send("ctrl+p")
        await s.wait_for("Search")
        await s.send("d1")  # the palette finds no document before a login
        await s.wait_for("No matches found")
        seen.append(s.text().replace("🔎 d1", ""))
        await s.close()
        for screen in seen:
            leaked = [w for w in secrets if w in screen]
            assert not leaked, f"{leaked} on a screen before the login:\n{screen}"

    with served(sqlite_url, cwd=tmp_path) as (base, _):
        page = urllib.request.urlopen(base + "/").read().decode()
        assert "<title>corpusdb</title>" in page and not [w for w in secrets if w in page]
        assert "googleapis" not in page  # no request to another site
        with pytest.raises(urllib.error.HTTPError) as nope:
            urllib.request.urlopen(base + "/download/anything")
        assert nope.value.code == 404
        check(base)


def test_a_revoked_session_ends_at_its_next_action_and_an_idle_one_by_itself(
    sqlite_url: str, tmp_path: Path
) -> None:
    owner = project(sqlite_url)

    @run_async
    async def check(base: str) -> None:
        alice = await logged_in(base, "alice", "alice-pw", expect="3 not started")
        bob = await logged_in(base, "bob", "bob-pw", expect="3 not started")
        assert main(["--db", sqlite_url, "team", "revoke", "alice"]) == 0
        await alice.send("R")  # reload her list: an action that reads
        await alice.wait_closed()
        await bob.send("R")
        await asyncio.sleep(0.5)
        assert not bob.closed
        await bob.close()

    with served(sqlite_url, cwd=tmp_path) as (base, _):
        check(base)
    ends = [(e.actor, e.detail.get("reason")) for e in owner.history(action="logout")]
    assert ("alice", "revoked") in ends

    @run_async
    async def idle(base: str) -> None:
        bob = await logged_in(base, "bob", "bob-pw")
        start = time.monotonic()
        await bob.wait_closed(timeout=30)
        assert time.monotonic() - start >= 1.0  # 0.02 minutes = 1.2 s

    with served(sqlite_url, "--idle-timeout", "0.02", cwd=tmp_path) as (base, _):
        idle(base)
    assert owner.history(action="logout")[0].detail["reason"] == "idle"


def test_kill_9_of_one_session_loses_nothing_saved_and_the_others_go_on(
    sqlite_url: str, tmp_path: Path
) -> None:
    project(sqlite_url)

    @run_async
    async def check(base: str, server: int) -> None:
        alice = await logged_in(base, "alice", "alice-pw", expect="3 not started")
        (alice_pid,) = session_pids(server)
        bob = await logged_in(base, "bob", "bob-pw", expect="3 not started")
        await alice.send("enter")
        await alice.wait_for("0 spans")
        await annotate_word(alice, "protein T1 IL-2")
        assert await wait_saved(sqlite_url, "alice", "d1", 1) == ["IL-2"]
        await alice.send("w")  # the cursor moves on; then her process dies
        os.kill(alice_pid, signal.SIGKILL)
        await bob.send("down", "enter")  # bob goes on: d2
        await bob.wait_for("0 spans")
        await annotate_word(bob, "protein T1 The")
        assert await wait_saved(sqlite_url, "bob", "d2", 1) == ["The"]
        again = await logged_in(base, "alice", "alice-pw", expect="protein T1 IL-2")  # resumed at d1
        assert "d1 — alice" in again.text()
        for s in (alice, bob, again):
            await s.close()

    with served(sqlite_url, cwd=tmp_path) as (base, proc):
        check(base, proc.pid)


def test_kill_9_of_the_server_leaves_a_sound_database_and_its_sessions_end(
    sqlite_url: str, tmp_path: Path
) -> None:
    project(sqlite_url)
    path = sqlite_url.removeprefix("sqlite:///")

    @run_async
    async def first(base: str) -> None:
        alice = await logged_in(base, "alice", "alice-pw", expect="3 not started")
        await alice.send("enter")
        await alice.wait_for("0 spans")
        await annotate_word(alice, "protein T1 IL-2")
        assert await wait_saved(sqlite_url, "alice", "d1", 1) == ["IL-2"]

    with served(sqlite_url, "--idle-timeout", "60", cwd=tmp_path) as (base, proc):
        first(base)
        sessions = session_pids(proc.pid)
        assert len(sessions) == 1
        os.kill(proc.pid, signal.SIGKILL)  # the server only: its session process is orphaned
        deadline = time.monotonic() + 40
        while any(Path(f"/proc/{p}").exists() and "Z" not in Path(f"/proc/{p}/stat").read_text().rsplit(")", 1)[1][:3]
                  for p in sessions):  # fmt: skip
            assert time.monotonic() < deadline, "an orphaned session process did not end"
            time.sleep(0.2)
    with sqlite3.connect(path) as raw:
        assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    gone = Corpus.open(url=sqlite_url).history(action="logout")
    assert [(e.actor, e.detail["reason"]) for e in gone] == [("alice", "server gone")]

    @run_async
    async def again(base: str) -> None:
        alice = await logged_in(base, "alice", "alice-pw", expect="protein T1 IL-2")
        await alice.close()

    with served(sqlite_url, cwd=tmp_path) as (base, _):
        again(base)


def test_serve_checks_its_database_and_says_what_an_address_exposes(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    project(sqlite_url)
    started: list[tuple[str, int]] = []
    monkeypatch.setattr(
        "textual_serve.server.Server.serve", lambda self, debug=False: started.append((self.host, self.port))
    )
    monkeypatch.setenv("CORPUSDB_URL", "")  # serve sets it for its sessions
    assert main(["--db", sqlite_url, "serve"]) == 0
    assert capsys.readouterr().err == ""  # loopback: nothing to say
    assert main(["--db", sqlite_url, "serve", "--host", "0.0.0.0", "--port", "8443"]) == 0
    line = capsys.readouterr().err
    assert line.count("\n") == 1 and "in clear" in line and "TLS reverse proxy" in line and "nginx" in line
    assert (
        main(
            [
                "--db",
                sqlite_url,
                "serve",
                "--host",
                "10.1.2.3",
                "--public-url",
                "https://annotate.example.org",
            ]
        )
        == 0
    )
    assert "TLS proxy behind https://annotate.example.org" in capsys.readouterr().err
    assert started == [("127.0.0.1", 8000), ("0.0.0.0", 8443), ("10.1.2.3", 8000)]
    assert os.environ["CORPUSDB_URL"] == sqlite_url
    assert (
        main(["--db", str(Path(sqlite_url.removeprefix("sqlite:///")).parent / "none.sqlite"), "serve"]) != 0
    )
    assert len(started) == 3


@pytest.mark.postgres
def test_serve_refuses_an_owner_url_on_postgresql(
    pg_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    build_sample(pg_url)
    monkeypatch.setattr("textual_serve.server.Server.serve", lambda self, debug=False: pytest.fail("served"))
    assert main(["--db", pg_url, "serve"]) == 7
    assert "gatekeeper" in capsys.readouterr().err


@pytest.mark.postgres
def test_served_team_mode_session_is_the_persons_role(
    pg_url: str, team_roles: TeamRoles, tmp_path: Path
) -> None:
    from tests.conftest import role_url

    owner = build_sample(pg_url)
    owner.team_login("alice", login=team_roles.name("alice"))
    owner.team_gatekeeper(team_roles.name("gate"))

    @run_async
    async def check(base: str) -> None:
        alice = await logged_in(base, team_roles.name("alice"), "pw", expect="3 not started")
        owner.team_revoke("alice", drop_role=False)
        await alice.send("R")
        await alice.wait_closed()

    with served(role_url(pg_url, team_roles.name("gate")), cwd=tmp_path) as (base, proc):
        env = Path(f"/proc/{proc.pid}/environ").read_bytes().split(b"\0")
        assert not any(b"alice" in v for v in env)  # the server holds no person's credentials
        check(base)
    assert [(e.actor, e.action) for e in owner.history(limit=3)][:2] == [
        ("owner", "team_revoke"),
        ("alice", "login"),
    ]
    owner.engine.dispose()


def test_a_lazy_client_finds_a_keys_effect_in_the_bytes_and_emulates_the_screen_only_when_read(
    sqlite_url: str, tmp_path: Path
) -> None:
    """The bench's client (``lazy=True``): a key's effect is found in the bytes received after it,
    the emulator reads them only when the screen is asked for, and both agree."""
    project(sqlite_url)

    @run_async
    async def check(base: str) -> None:
        s = ServedSession(base, lazy=True)
        await s.connect()
        await s.log_in("alice", "alice-pw", expect="My documents")
        await s.send("enter")
        await s.wait_for("— alice")
        since = s.received
        await s.send("a")
        await s.wait_for_output("picks its type", since)
        assert s._fed <= since < len(s.output)  # held, not yet emulated
        assert "picks its type" in s.text() and s._fed == len(s.output)
        await s.send("escape")
        await s.wait_until(lambda: "picks its type" not in s.text(), "the picker closed")
        since = s.received
        await s.send("j")  # a cursor move: no picker in what follows
        with pytest.raises(TimeoutError):
            await s.wait_for_output("picks its type", since, timeout=1.5)
        await s.close()

    with served(sqlite_url, cwd=tmp_path) as (base, _):
        check(base)


@run_async
async def test_a_lazy_client_counts_only_the_bytes_after_the_key() -> None:
    """An effect that ended just before the key was sent is not the key's (no server: the bytes
    are planted as if received)."""
    s = ServedSession("http://127.0.0.1:9", lazy=True)
    s.output += b"\x1b[1m\xc2\xb7 3 spans"
    s.received = len(s.output)
    with pytest.raises(TimeoutError):
        await s.wait_for_output("· 3 spans", s.received, timeout=0.3)
    since = s.received
    s.output += b"\x1b[0m\xc2\xb7 4 spans"
    assert await s.wait_for_output("· 4 spans", since, timeout=0.3) >= 0
    with pytest.raises(ValueError, match="lazy"):
        await ServedSession("http://127.0.0.1:9").wait_for_output("x", 0, timeout=0.1)
