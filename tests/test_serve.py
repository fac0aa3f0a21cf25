"""`corpusdb serve` in a real browser: headless Chromium (Playwright) on the served TUI.

A person's day, as they would live it: the login screen comes first; log in; annotate a span; it is
in the database at once; reload the page (a new session) and find it again, resumed at the same
document; a wrong password gets one line and nothing else; alice never sees bob's work. On SQLite
(passwords from `corpusdb team login`) and on PostgreSQL team mode (each session is the person's own
role; the server holds only the gatekeeper's). Skipped with the reason when no Chromium is installed.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from corpusdb.api import Corpus
from corpusdb.store.db import make_engine
from tests.conftest import TeamRoles, role_url
from tests.serve_support import CHROMIUM_ARGS, Tab, browser_or_skip, served
from tui.sample import build_sample

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    sync_playwright, chromium = browser_or_skip()
    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=chromium, args=CHROMIUM_ARGS, headless=True)
        yield b
        b.close()


def sqlite_project(url: str) -> Corpus:
    owner = build_sample(url)
    owner.team_login("alice", password="alice-pw")
    owner.team_login("bob", password="bob-pw")
    return owner


def saved_spans(url: str, who: str = "alice", doc: str = "d1", *, expect: int = 1) -> list[Any]:
    """The person's spans as the database holds them, once the save that follows the screen landed
    (the screen shows an action at once; its transaction commits a moment later, in a worker)."""
    deadline = time.monotonic() + 30
    while True:
        engine = make_engine(url)
        try:
            spans = list(Corpus.open(engine=engine, user=who).my_set(doc).annotations.spans)
        finally:
            engine.dispose()
        if len(spans) >= expect or time.monotonic() > deadline:
            return spans
        time.sleep(0.1)


def annotate_word(tab: Tab) -> None:
    """`a` on the word under the cursor, then the type picker: filter "pro", Enter (protein)."""
    tab.type("a")
    tab.wait_for("picks its type")
    tab.type("/pro")
    tab.wait_for("▊  pro")  # the filter, typed
    tab.type("enter")


def test_log_in_annotate_see_it_saved_reload_and_find_it(
    browser: Any, sqlite_url: str, tmp_path: Path
) -> None:
    owner = sqlite_project(sqlite_url)
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = Tab(browser, base)
        tab.open()
        tab.wait_for("log in")
        assert "d1" not in tab.text() and "demo" not in tab.text()  # nothing of the project before a login
        tab.log_in("alice", "alice-pw")
        tab.wait_for("My documents")
        tab.wait_for("3 not started")
        tab.type("enter")  # d1
        tab.wait_for("0 spans")
        annotate_word(tab)  # the word under the cursor, IL-2, as a protein
        tab.wait_for("protein T1 IL-2")
        spans = saved_spans(sqlite_url)
        assert [(s.type, s.fragments, s.text) for s in spans] == [("protein", ((0, 4),), "IL-2")]
        tab.reload()  # a new session: the login again, then back at d1 with the span
        tab.log_in("alice", "alice-pw")
        tab.wait_for("protein T1 IL-2")
        assert "d1 — alice" in tab.text() and "1 spans" in tab.text()
        # the page asked nothing of any other site (textual-serve's own page loads a web font)
        assert all(u.startswith(base) for u in tab.http), [u for u in tab.http if not u.startswith(base)]
        tab.page.close()
    actions = [(e.actor, e.action) for e in owner.history(limit=10)]
    assert actions.count(("alice", "login")) == 2 and ("alice", "logout") in actions


def test_a_wrong_password_is_refused_with_one_line(browser: Any, sqlite_url: str, tmp_path: Path) -> None:
    owner = sqlite_project(sqlite_url)
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = Tab(browser, base)
        tab.open()
        tab.log_in("alice", "not-her-password")
        tab.wait_for("wrong name or password")
        screen = tab.text()
        assert "My documents" not in screen and "d1" not in screen and "demo" not in screen
        tab.log_in("mallory", "whatever")  # an unknown name: the same line, after the same wait
        tab.wait_for("checking…")
        tab.wait_for("wrong name or password")
        tab.page.close()
    failed = owner.history(action="login_failed")
    assert [(e.actor, e.detail["reason"], e.detail["via"]) for e in failed] == [
        ("mallory", "unknown", "serve"),
        ("alice", "password", "serve"),
    ]


def test_alice_cannot_see_bobs_work_in_the_browser(browser: Any, sqlite_url: str, tmp_path: Path) -> None:
    sqlite_project(sqlite_url)  # bob has two spans and a relation on d1
    with served(sqlite_url, cwd=tmp_path) as (base, _):
        tab = Tab(browser, base)
        tab.open()
        tab.log_in("alice", "alice-pw")
        tab.wait_for("3 not started")
        assert "bob" not in tab.text()
        tab.type("enter")
        tab.wait_for("0 spans 0 rels")
        assert "protein T1" not in tab.text() and "R1" not in tab.text()  # no span, no relation marker
        tab.page.close()
        bob = Tab(browser, base)
        bob.open()
        bob.log_in("bob", "bob-pw")
        bob.wait_for("My documents")
        bob.type("enter")
        bob.wait_for("protein T1 STAT5")  # his own work is there for him
        bob.page.close()


@pytest.mark.postgres
def test_team_mode_in_the_browser(browser: Any, pg_url: str, team_roles: TeamRoles, tmp_path: Path) -> None:
    owner = build_sample(pg_url)
    for who in ("alice", "bob"):
        owner.team_login(who, login=team_roles.name(who))
    gate = team_roles.name("gate")
    owner.team_gatekeeper(gate)
    with served(role_url(pg_url, gate), cwd=tmp_path) as (base, _):
        tab = Tab(browser, base)
        tab.open()
        tab.log_in("postgres", "x")  # the test server trusts every role: the form still refuses a superuser
        tab.wait_for("wrong name or password")
        tab.log_in(team_roles.name("alice"), "any")
        tab.wait_for("3 not started")
        tab.type("enter")
        tab.wait_for("0 spans 0 rels")  # not bob's two spans
        annotate_word(tab)
        tab.wait_for("protein T1 IL-2")
        tab.page.close()
        mine = saved_spans(pg_url)
        assert [(s.type, s.text) for s in mine] == [("protein", "IL-2")]
    bobs = saved_spans(pg_url, "bob", expect=2)
    assert [s.text for s in bobs] == ["STAT5", "IL-2"]
    logins = [(e.actor, e.action) for e in owner.history(limit=10)]
    assert ("alice", "login") in logins and ("postgres", "login_failed") in logins
    owner.engine.dispose()
