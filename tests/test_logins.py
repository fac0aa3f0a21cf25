"""Logins behind `corpusdb serve` and `corpusdb tui --login`, headless (corpusdb.logins), on SQLite.

An attacker's view: the password never stored in clear; a wrong password and an unknown name answer
alike; failures counted in the database, shared by separate session processes (two gates with their
own engines here, real processes in tests/test_serve_protocol.py), delayed, then locked; revoking or
changing a password ends the open sessions at their next action; all of it in `corpusdb history`.
The PostgreSQL side (the person's own role, the gatekeeper) is in tests/test_logins_postgres.py.
"""

from __future__ import annotations

import io
import json
import sqlite3
import time
from datetime import timedelta
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import PermissionDenied
from corpusdb.basics.login_policy import LoginPolicy
from corpusdb.basics.passwords import hash_password, verify_password
from corpusdb.cli.main import main
from corpusdb.serving.gate import WRONG, LoginGate, LoginRefused
from corpusdb.store.login_session import SessionEnded
from tui.sample import build_sample

FAST = LoginPolicy(delay=0.01, max_delay=0.05, max_failures=3, lockout=timedelta(minutes=15))


@pytest.fixture
def project(sqlite_url: str) -> Corpus:
    owner = build_sample(sqlite_url)
    owner.team_login("alice", password="alice-pw")
    owner.team_login("bob", password="bob-pw")
    return owner


def refused(gate: LoginGate, name: str, password: str) -> LoginRefused:
    with pytest.raises(LoginRefused) as got:
        gate.login(name, password)
    return got.value


def test_hash_is_salted_scrypt_and_never_the_password() -> None:
    a, b = hash_password("correct horse"), hash_password("correct horse")
    assert a != b and a.startswith("scrypt$17$8$1$") and "correct horse" not in a  # a salt each time
    assert verify_password("correct horse", a) and verify_password("correct horse", b)
    assert not verify_password("correct hors", a) and not verify_password("", a)
    assert not verify_password("correct horse", "md5$whatever")


def test_passwords_are_stored_hashed_in_the_file(project: Corpus, sqlite_url: str) -> None:
    path = sqlite_url.removeprefix("sqlite:///")
    with sqlite3.connect(path) as raw:
        stored = [r[0] for r in raw.execute("SELECT password_hash FROM login_password")]
    assert len(stored) == 2 and all(s.startswith("scrypt$") for s in stored)
    assert not any("alice-pw" in s or "bob-pw" in s for s in stored)
    assert b"alice-pw" not in Path(path).read_bytes()


def test_login_binds_the_session_to_that_person(project: Corpus, sqlite_url: str) -> None:
    session = LoginGate(sqlite_url, policy=FAST).login("alice", "alice-pw")
    assert session.annotator == "alice" and session.corpus.actor.role == "annotator"
    assert {s.annotator for s in session.corpus.sets()} == {"alice"}  # blindness: bob's sets are not hers
    with pytest.raises(PermissionDenied):
        session.corpus.as_user("bob")  # no switching


def test_wrong_password_and_unknown_name_answer_alike(project: Corpus, sqlite_url: str) -> None:
    gate = LoginGate(sqlite_url, policy=FAST)
    wrong, unknown = refused(gate, "alice", "nope"), refused(gate, "mallory", "nope")
    assert str(wrong) == str(unknown) == WRONG
    assert (wrong.reason, unknown.reason) == ("password", "unknown")
    assert str(refused(gate, "", "x")) == "type your name and your password"


def test_failures_are_counted_in_the_database_across_gates_then_locked(
    project: Corpus, sqlite_url: str
) -> None:
    one, two = LoginGate(sqlite_url, policy=FAST), LoginGate(sqlite_url, policy=FAST)  # two session processes
    assert str(refused(one, "alice", "a")) == WRONG
    assert str(refused(two, "alice", "b")) == WRONG
    third = refused(one, "alice", "c")  # the third failure, wherever it happens, locks the name
    assert "too many failed logins" in str(third) and "locked until" in str(third)
    locked = refused(two, "alice", "alice-pw")  # even the right password now
    assert "too many failed logins" in str(locked) and locked.reason == "locked"
    assert LoginGate(sqlite_url, policy=FAST).login("bob", "bob-pw").annotator == "bob"  # per name
    project.team_login("alice", password="alice-new")  # a lead sets a new password: the lock goes
    assert one.login("alice", "alice-new").annotator == "alice"
    events = [(e.actor, e.action, e.detail.get("reason")) for e in project.history(limit=20)]
    assert events.count(("alice", "login_failed", "password")) == 3
    assert ("alice", "login_locked", None) in events and ("alice", "login_failed", "locked") in events


def test_a_failure_waits_longer_each_time(project: Corpus, sqlite_url: str) -> None:
    gate = LoginGate(sqlite_url, policy=LoginPolicy(delay=0.3, max_delay=0.6, max_failures=10))
    took = []
    for _ in range(3):
        start = time.perf_counter()
        refused(gate, "mallory", "x")  # no such name: the same scrypt work and the same delay
        took.append(time.perf_counter() - start)
    assert took[0] >= 0.3 and took[1] >= 0.6 and took[2] >= 0.6  # 0.3 s x failures, capped at 0.6 s


def test_revoking_ends_future_logins_and_open_sessions_at_their_next_action(
    project: Corpus, sqlite_url: str
) -> None:
    gate = LoginGate(sqlite_url, policy=FAST)
    session = gate.login("alice", "alice-pw")
    ended: list[str] = []
    session.on_end(ended.append)
    my_set = session.corpus.my_set("d1")
    assert main(["--db", sqlite_url, "team", "revoke", "alice"]) == 0
    with pytest.raises(SessionEnded, match="revoked"):
        session.corpus.my_set("d1")  # her next action, read or write
    with pytest.raises(SessionEnded):
        session.corpus.sets()
    assert ended == ["your login was revoked"] and my_set.info.annotator == "alice"
    again = refused(gate, "alice", "alice-pw")
    assert "revoked" in str(again) and again.reason == "revoked"
    assert str(refused(gate, "alice", "guess")) == WRONG  # a wrong password does not learn it was revoked


def test_a_new_password_ends_the_sessions_opened_with_the_old_one(project: Corpus, sqlite_url: str) -> None:
    session = LoginGate(sqlite_url, policy=FAST).login("bob", "bob-pw")
    project.set_password("bob", "bob-new")
    with pytest.raises(SessionEnded, match="password was changed"):
        session.corpus.sets()


def test_idle_sessions_end_and_are_logged_out(project: Corpus, sqlite_url: str) -> None:
    gate = LoginGate(sqlite_url, policy=LoginPolicy(idle_timeout=timedelta(seconds=0.3)))
    session = gate.login("alice", "alice-pw")
    assert not session.expired()
    time.sleep(0.2)
    session.touch()  # a key: still in use
    time.sleep(0.2)
    assert not session.expired()
    time.sleep(0.35)
    assert session.expired() and "idle" in (session.ended or "")
    with pytest.raises(SessionEnded):
        session.corpus.sets()
    last = project.history(actor="alice", limit=1)[0]
    assert (last.action, last.detail["reason"]) == ("logout", "idle")


def test_a_new_session_resumes_at_the_last_document(project: Corpus, sqlite_url: str) -> None:
    gate = LoginGate(sqlite_url, policy=FAST)
    first = gate.login("alice", "alice-pw")
    assert first.last_document() is None
    first.remember_document("d2")
    assert gate.login("alice", "alice-pw").last_document() == "d2"
    assert gate.login("bob", "bob-pw").last_document() is None  # per person


def test_history_shows_every_login_failure_lockout_and_logout(
    project: Corpus, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    gate = LoginGate(sqlite_url, policy=FAST, via="serve")
    gate.login("alice", "alice-pw").logout()
    for _ in range(3):
        refused(gate, "bob", "x")
    capsys.readouterr()
    assert main(["--db", sqlite_url, "-f", "json", "history", "-n", "8"]) == 0
    rows = json.loads(capsys.readouterr().out)
    got = [(r["actor"], r["action"]) for r in rows][::-1]
    assert got[-6:] == [
        ("alice", "login"), ("alice", "logout"),
        ("bob", "login_failed"), ("bob", "login_failed"), ("bob", "login_failed"), ("bob", "login_locked"),
    ]  # fmt: skip
    assert all(r["detail"]["via"] == "serve" for r in rows[:6])
    assert main(["--db", sqlite_url, "--as", "alice", "history"]) == 5  # the trail is for leads


def test_cli_team_login_on_sqlite(
    sqlite_url: str, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    build_sample(sqlite_url)
    monkeypatch.setattr("sys.stdin", io.StringIO("s3cret-pw\n"))
    assert main(["--db", sqlite_url, "team", "login", "alice", "--password-stdin"]) == 0
    assert "alice (annotator) logs in with a password" in capsys.readouterr().out
    assert LoginGate(sqlite_url, policy=FAST).login("alice", "s3cret-pw").annotator == "alice"
    assert main(["--db", sqlite_url, "team", "login", "alice", "--no-password"]) == 4  # no server to ask
    assert main(["--db", sqlite_url, "--as", "alice", "team", "login", "bob", "--password-stdin"]) == 5
    assert main(["--db", sqlite_url, "-f", "json", "team", "list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert [(r["annotator"], r["can_login"]) for r in listed] == [("alice", True)]


def test_login_and_as_exclude_each_other(
    project: Corpus, sqlite_url: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["--db", sqlite_url, "tui", "--login", "--as", "alice"]) == 2
    assert main(["--db", sqlite_url, "--as", "alice", "tui", "--login"]) == 2
    assert main(["--db", sqlite_url, "--as", "alice", "serve"]) == 2
    assert "the person who logs in" in capsys.readouterr().err
