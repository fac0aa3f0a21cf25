"""`corpusdb tui --login` headless (the app every served session runs): the login screen first, the
person bound for the app's life, resumed at their last document, ended by revocation or idleness.
The same app over a browser is tested in tests/test_serve*.py."""

from __future__ import annotations

from datetime import timedelta

from textual import events

from corpusdb.basics.login_policy import LoginPolicy
from corpusdb.serving.gate import LoginGate
from tui.app import build_login_app
from tui.sample import build_sample
from tui.screens.annotate import AnnotateScreen
from tui.screens.documents import DocumentsScreen
from tui.screens.login import LoginScreen
from tui.testing import press, run_async, screen_text, settle, type_text, wait_until

FAST = LoginPolicy(delay=0.01, max_delay=0.02, max_failures=3)


def project(url: str) -> None:
    owner = build_sample(url)
    owner.team_login("alice", password="alice-pw")


async def log_in(pilot, name: str, password: str) -> None:  # type: ignore[no-untyped-def]
    await type_text(pilot, name)
    await press(pilot, "enter")
    await type_text(pilot, password)
    await press(pilot, "enter")


@run_async
async def test_login_first_then_the_persons_documents_then_resume(sqlite_url: str) -> None:
    project(sqlite_url)
    app = build_login_app(LoginGate(sqlite_url, policy=FAST))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        assert isinstance(app.screen, LoginScreen) and app.facade is None
        assert "demo" not in screen_text(app) and "d1" not in screen_text(app)
        await log_in(pilot, "alice", "wrong")
        await wait_until(pilot, lambda: "wrong name or password" in screen_text(app), "refused")
        assert isinstance(app.screen, LoginScreen)
        await type_text(pilot, "alice-pw")  # the form kept the name: the password again
        await press(pilot, "enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, DocumentsScreen) and app.screen.rows, "her list"
        )
        assert app.facade.user == "alice" and app.login_session.annotator == "alice"
        await press(pilot, "down", "enter")
        await wait_until(pilot, lambda: isinstance(app.screen, AnnotateScreen), "d2 open")
    again = build_login_app(LoginGate(sqlite_url, policy=FAST))
    async with again.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await log_in(pilot, "alice", "alice-pw")
        await wait_until(pilot, lambda: isinstance(again.screen, AnnotateScreen), "resumed")
        assert again.screen.document == "d2"


@run_async
async def test_revoked_or_idle_the_app_ends(sqlite_url: str) -> None:
    project(sqlite_url)
    from corpusdb.api import Corpus

    app = build_login_app(LoginGate(sqlite_url, policy=FAST))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await log_in(pilot, "alice", "alice-pw")
        await wait_until(
            pilot, lambda: isinstance(app.screen, DocumentsScreen) and app.screen.rows, "her list"
        )
        Corpus.open(url=sqlite_url).revoke_password("alice")
        await press(pilot, "R")  # reload: her next action
        await wait_until(pilot, lambda: app.return_code is not None or not app.is_running, "ended")
    assert app.login_session.ended == "your login was revoked"
    Corpus.open(url=sqlite_url).set_password("alice", "alice-pw2")
    idle = build_login_app(LoginGate(sqlite_url, policy=LoginPolicy(idle_timeout=timedelta(seconds=0.5))))
    async with idle.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await log_in(pilot, "alice", "alice-pw2")
        await wait_until(pilot, lambda: idle.login_session is not None, "logged in")
        await wait_until(pilot, lambda: idle.login_session.ended is not None, "idle end", timeout=10)
    assert "idle" in idle.login_session.ended


@run_async
async def test_a_key_dispatched_to_the_screen_before_the_focus_came_is_typed_into_the_form(
    sqlite_url: str,
) -> None:
    """A browser's first key can reach the screen before the form has the focus and be handled
    after it has it: it is typed all the same (it was lost: a login name without its first letter)."""
    project(sqlite_url)
    app = build_login_app(LoginGate(sqlite_url, policy=FAST))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LoginScreen) and screen.form.has_focus
        key = events.Key("a", "a")
        key._set_forwarded()  # as the app forwards a key when nothing has the focus: to the screen
        screen.post_message(key)  # queued at the screen, handled now that the form has the focus
        await wait_until(pilot, lambda: screen.form.name_value == "a", "the first letter in the name")
        await type_text(pilot, "lice")
        await press(pilot, "enter")
        await type_text(pilot, "alice-pw")
        await press(pilot, "enter")
        await wait_until(
            pilot, lambda: isinstance(app.screen, DocumentsScreen) and app.screen.rows, "her list"
        )
        assert app.facade.user == "alice"
