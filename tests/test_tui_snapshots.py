"""SVG snapshots of the main screens at 80x24 (``pytest --snapshot-update`` accepts a change)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from corpusdb.api import Corpus
from corpusdb.basics.records import Argument, Relation, Span
from corpusdb.services.edits import Put
from tui.app import CorpusApp, build_app
from tui.facade import open_facade
from tui.sample import TEXTS, build_sample, span
from tui.testing import press, settle, wait_until

Compare = Callable[..., bool]


async def _settled(pilot: Any) -> None:
    await settle(pilot)


def _app(url: str, user: str, start: str | None = None) -> CorpusApp:
    return build_app(open_facade(url, "demo", user), start=start)


def _fill_alice(url: str) -> None:
    """alice's d1 as a typical half-done document: nested, discontinuous, attributes, a relation."""
    t = TEXTS["d1"]
    alice = Corpus.open("demo", url=url, user="alice")
    cur = alice.my_set("d1")
    chain = t.index("chain")
    disc = span(t, "T4", "protein-region", "receptor")
    disc = Span("T4", "protein-region", (disc.fragments[0], (chain, chain + 5)), "receptor chain")
    items = [
        span(t, "T1", "protein", "IL-2"),
        replace(span(t, "T2", "protein", "CD25"), attributes={"mutant": True}),
        span(t, "T3", "cell", "T cells"),
        disc,
        Span("T5", "protein-complex", ((t.index("receptor alpha"), chain + 5),), "receptor alpha chain"),
        span(t, "T6", "protein", "STAT5"),
        Relation("R1", "bind", (Argument("Arg1", "T1"), Argument("Arg2", "T2")), 1, ("hypothesis",)),
    ]
    alice.edit_set(cur.info.id, [Put(i) for i in items], expected_version=cur.info.version)


def test_snapshot_my_documents(snap_compare: Compare, sqlite_url: str) -> None:
    build_sample(sqlite_url)
    assert snap_compare(_app(sqlite_url, "alice"), run_before=_settled)


def test_snapshot_annotate(snap_compare: Compare, sqlite_url: str) -> None:
    build_sample(sqlite_url)
    _fill_alice(sqlite_url)
    assert snap_compare(_app(sqlite_url, "alice", "d1"), run_before=_settled, press=["w", "w", "shift+right"])


async def _agreement_shown(pilot: Any) -> None:
    """The lead view computes agreement in a worker once one of its tabs opens: wait until shown."""
    screen = pilot.app.screen
    await wait_until(
        pilot,
        lambda: (
            screen.progress is not None and screen.progress.lead is not None and screen.progress.lead.complete
        ),
        "agreement",
    )


def test_snapshot_lead_agreement(snap_compare: Compare, sqlite_url: str) -> None:
    build_sample(sqlite_url, submitted=True)

    async def to_agreement(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, "l", "l")  # agreement is read in a worker once its tab opens: wait for it
        await _agreement_shown(pilot)

    assert snap_compare(_app(sqlite_url, "lena"), run_before=to_agreement)


def _lead_tab(key: str) -> Callable[[Any], Any]:
    async def go(pilot: Any) -> None:
        await settle(pilot)
        await press(pilot, key)
        await _agreement_shown(pilot)

    return go


def test_snapshot_lead_pairs(snap_compare: Compare, sqlite_url: str) -> None:
    """The bundled demo's four annotators: the pair matrix as a heat map, the pairs with n and CIs."""
    from corpusdb.demo import build_demo

    build_demo(sqlite_url)
    app = build_app(open_facade(sqlite_url, "sample", None))
    assert snap_compare(app, run_before=_lead_tab("4"))


def test_snapshot_lead_pairs_wide(snap_compare: Compare, sqlite_url: str) -> None:
    from corpusdb.demo import build_demo

    build_demo(sqlite_url)
    app = build_app(open_facade(sqlite_url, "sample", None))
    assert snap_compare(app, run_before=_lead_tab("4"), terminal_size=(160, 50))


def test_snapshot_lead_documents(snap_compare: Compare, sqlite_url: str) -> None:
    """Every document, lowest agreement first (Enter opens its conflicts)."""
    from corpusdb.demo import build_demo

    build_demo(sqlite_url)
    app = build_app(open_facade(sqlite_url, "sample", None))
    assert snap_compare(app, run_before=_lead_tab("5"))


def test_snapshot_lead_agreement_wide(snap_compare: Compare, sqlite_url: str) -> None:
    """Relations beside spans, CIs, per type: side by side at 160x50."""
    build_sample(sqlite_url, submitted=True)
    assert snap_compare(_app(sqlite_url, "lena"), run_before=_lead_tab("3"), terminal_size=(160, 50))


def test_snapshot_adjudicate(snap_compare: Compare, sqlite_url: str) -> None:
    build_sample(sqlite_url, submitted=True)

    async def open_d1(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)

    assert snap_compare(_app(sqlite_url, "carol"), run_before=open_d1)


def test_snapshot_adjudicate_wide(snap_compare: Compare, sqlite_url: str) -> None:
    """160x50: each annotator's version in a column beside the gold, the conflict marked in each."""
    build_sample(sqlite_url, submitted=True)

    async def open_d1(pilot: Any) -> None:
        await settle(pilot)
        await pilot.press("enter")
        await settle(pilot)
        await press(pilot, "n")  # CD25: alice's version only

    assert snap_compare(_app(sqlite_url, "carol"), run_before=open_d1, terminal_size=(160, 50))


def test_snapshot_relations_80x24(snap_compare: Compare, sqlite_url: str) -> None:
    """Relation markers under the text at 80 columns: CD25 active, its partner IL-2 highlighted,
    type labels on (nested Mutant IL-2 / IL-2, the receptor spans), the legend above the lists."""
    from test_tui_relations import fill_relations

    build_sample(sqlite_url)
    fill_relations(sqlite_url)
    assert snap_compare(_app(sqlite_url, "alice", "d1"), run_before=_settled, press=["w", "w", "L"])


def test_snapshot_relations_160x50(snap_compare: Compare, sqlite_url: str) -> None:
    """The relation-centred view at 160 columns: R2 picked in the list, both ends highlighted, the
    whole relation on the detail line."""
    from test_tui_relations import fill_relations

    build_sample(sqlite_url)
    fill_relations(sqlite_url)
    assert snap_compare(
        _app(sqlite_url, "alice", "d1"), run_before=_settled, press=["V", "down"], terminal_size=(160, 50)
    )
