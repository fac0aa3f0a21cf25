"""Blindness through a served session: alice logged in through `corpusdb serve` never sees bob's work.

bob's set on d1 carries a secret in every place a screen could show it (a span's grounding, a note,
a relation, a document label). alice, logged in over the websocket protocol (what her browser tab
sends and receives), walks every screen an annotator has: her list, each document with its side
lists, relations view, type labels, next/previous span, help, guideline, the command palette searched
for bob's things. No screen may show the secret, bob's spans or his relation; her list counts none
of his items. carol, an adjudicator, sees no d1 to adjudicate while bob is still working. On SQLite
(passwords) and on PostgreSQL team mode (the session is alice's own role: the server decides too).
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Argument, DocLabel, Grounding, Note, Relation, Span
from tests.conftest import TeamRoles, role_url
from tests.serve_support import served
from tui.sample import TEXTS, build_sample, span
from tui.testing import run_async
from tui.webclient import ServedSession

pytestmark = pytest.mark.slow
SECRET = "SECRETBOB42"


def bobs_secret_d1() -> Annotations:
    t = TEXTS["d1"]
    g = (Grounding(f"uniprot:{SECRET}"),)
    stat5, il2 = span(t, "T1", "protein", "STAT5"), span(t, "T2", "protein", "IL-2", 2)
    return Annotations(
        spans=(
            Span(stat5.id, stat5.type, stat5.fragments, stat5.text, groundings=g),
            Span(il2.id, "gene", il2.fragments, il2.text, groundings=g),
        ),
        relations=(Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), 1),),
        notes=(Note("#1", "AnnotatorNotes", "T1", f"note {SECRET}"),),
        labels=(DocLabel("relevance", SECRET),),
    )


def scene(url: str) -> Corpus:
    owner = build_sample(url)
    bob = owner.as_user("bob")
    mine = bob.my_set("d1")
    bob.replace_set(mine.info.id, bobs_secret_d1(), expected_version=mine.info.version)
    return owner


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def setting(
    request: pytest.FixtureRequest, tmp_path: Path
) -> Iterator[tuple[str, dict[str, tuple[str, str]]]]:
    """(URL to serve, person -> (login name, password)) on SQLite or PostgreSQL team mode."""
    if request.param == "sqlite":
        url = request.getfixturevalue("sqlite_url")
        owner = scene(url)
        for who in ("alice", "carol"):
            owner.team_login(who, password=f"{who}-pw")
        yield url, {who: (who, f"{who}-pw") for who in ("alice", "carol")}
        return
    url = request.getfixturevalue("pg_url")
    roles: TeamRoles = request.getfixturevalue("team_roles")
    owner = scene(url)
    for who in ("alice", "carol"):
        owner.team_login(who, login=roles.name(who))
    owner.team_gatekeeper(roles.name("gate"))
    yield role_url(url, roles.name("gate")), {who: (roles.name(who), "pw") for who in ("alice", "carol")}
    owner.engine.dispose()


async def walk(s: ServedSession, steps: list[tuple[tuple[str, ...], str]]) -> list[str]:
    """Press each step's keys, wait for its text (``not:TEXT``: until TEXT is gone; a dialog's
    closing, whose screen below was on screen all along), keep every screen seen."""
    seen = [s.text()]
    for keys, shows in steps:
        for k in keys:
            await s.send(k)
            await asyncio.sleep(0.25)
        if shows.startswith("not:"):
            gone = shows.removeprefix("not:")
            await s.wait_until(lambda gone=gone: gone not in s.text(), f"{gone!r} gone")
        else:
            await s.wait_for(shows)
        await asyncio.sleep(0.3)
        seen.append(s.text())
    return seen


def test_alice_never_sees_bobs_work_in_a_served_session(
    setting: tuple[str, dict[str, tuple[str, str]]], tmp_path: Path
) -> None:
    url, logins = setting

    @run_async
    async def alice(base: str) -> list[str]:
        s = ServedSession(base)
        await s.connect()
        await s.log_in(*logins["alice"], expect="3 not started")
        rows = [
            line.split() for line in s.text().splitlines() if line.split()[:1] in (["d1"], ["d2"], ["d3"])
        ]
        # document, status, what is left to do, items (none), then the title (the text's beginning)
        assert [r[:5] for r in rows] == [
            [d, "·", "assigned", "annotate", "empty"] for d in ("d1", "d2", "d3")
        ]
        seen = await walk(s, [
            (("enter",), "0 spans 0 rels"),  # d1: none of bob's two spans, nor his relation
            (("n",), "0 spans"), (("p",), "0 spans"),  # next/previous span: there is none
            (("V",), "0 spans"), (("L",), "0 spans"), (("l",), "0 spans"), (("l",), "0 spans"),
            (("f1",), "Keys —"), (("escape",), "not:Keys —"),
            (("G",), "Guidelines v1"), (("escape",), "not:Guidelines v1"),
            (("ctrl+p",), "Search"), (tuple("STAT5"), "STAT5"), (("escape",), "0 spans"),
            (("ctrl+p",), "Search"), (tuple("gene"), "gene"), (("escape",), "0 spans"),
            (("escape", "q"), "3 not started"),  # back to the text, close the document
            (("down", "enter"), "d2 — alice"), (("q",), "My documents"),
            (("down", "enter"), "d3 — alice"), (("q",), "My documents"),
        ])  # fmt: skip
        await s.close()
        return seen

    @run_async
    async def carol(base: str) -> list[str]:
        s = ServedSession(base)
        await s.connect()
        # not "carol": her name is on the login screen as she types it; the queue's line is not
        await s.log_in(*logins["carol"], expect="No document is ready")
        seen = await walk(s, [(("ctrl+p",), "Search"), (tuple("d1"), "d1"), (("escape",), "carol")])
        await s.close()
        return seen

    with served(url, cwd=tmp_path) as (base, _):
        screens = alice(base)
        adjudicator = carol(base)
    for screen in screens + adjudicator:
        assert SECRET not in screen, screen
        assert "T1 STAT5" not in screen and "gene T2" not in screen and "R1 bind" not in screen, screen
    assert any("d1 — alice" in s and "0 spans 0 rels" in s for s in screens)
    assert not any("adjudicate d1" in s for s in adjudicator)
