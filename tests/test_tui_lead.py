"""The lead view against real projects: its figures are the API's report figures, the pair matrix is a
heat map, and "lowest-agreement document -> its conflicts" takes two keys and writes nothing.

Projects: the bundled demo (bratiaa's four annotators on seven documents, ``corpusdb.demo``) for
spans, the pair matrix and the drill-down; the TUI sample (alice and bob on d1, BioRelEx with a
relation each) for relations and for blindness before submission.
"""

from __future__ import annotations

import sqlite3
from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable, TabbedContent

from corpusdb.api import Corpus
from corpusdb.basics.errors import CorpusError, NotFound
from corpusdb.demo import build_demo
from tui.app import CorpusApp, build_app
from tui.facade import TuiFacade, open_facade
from tui.sample import build_sample
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.lead import LeadScreen
from tui.screens.lead_conflicts import LeadConflictsScreen, LookingFacade
from tui.testing import press, run_async, screen_text, settle, wait_until
from tui.widgets.tables import heat_colour

BOOT = TuiFacade.LEAD_BOOTSTRAP


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _ci(c: dict[str, Any] | None) -> str:
    return "—" if not c or c.get("ci_low") is None else f"{c['ci_low']:.2f}–{c['ci_high']:.2f}"


def _cells(table: DataTable) -> list[list[str]]:  # type: ignore[type-arg]
    return [[str(c.plain if isinstance(c, Text) else c).strip() for c in table.get_row_at(i)]
            for i in range(table.row_count)]  # fmt: skip


def _dump(path: str) -> list[str]:
    """Every row of every table: the database as a whole, to show that looking changed nothing."""
    with sqlite3.connect(path) as conn:
        return list(conn.iterdump())


@pytest.fixture
def demo_url(sqlite_url: str) -> str:
    build_demo(sqlite_url)
    return sqlite_url


async def _tab(pilot: Any, *keys: str) -> LeadScreen:
    """Press keys on the lead view, then wait until its agreement is shown (computed in a worker)."""
    screen = pilot.app.screen
    assert isinstance(screen, LeadScreen)
    await press(pilot, *keys)
    await wait_until(
        pilot,
        lambda: (
            screen.progress is not None and screen.progress.lead is not None and screen.progress.lead.complete
        ),
        "agreement",
    )
    return screen


async def _drilled(pilot: Any) -> LeadConflictsScreen:
    """Wait until the read-only conflicts screen shows its document."""
    app = pilot.app
    await wait_until(pilot, lambda: isinstance(app.screen, LeadConflictsScreen) and app.screen.adj is not None,
                     "the conflicts screen")  # fmt: skip
    return app.screen


async def _on(pilot: Any, key: str, ready: Any, what: str) -> None:
    await press(pilot, key)
    await wait_until(pilot, ready, what)


def _active(screen: LeadScreen) -> str:
    return str(screen.query_one("#lead-tabs", TabbedContent).active)


def _demo_app(url: str) -> CorpusApp:
    return build_app(open_facade(url, "sample", None))  # the owner: a lead


@run_async
async def test_agreement_pairs_and_documents_show_the_reports_figures(demo_url: str) -> None:
    api = Corpus.open("sample", url=demo_url).agreement("spans", criterion="exact", bootstrap=BOOT, seed=0)
    body = api.to_dict()
    app = _demo_app(demo_url)
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LeadScreen)
        await _tab(pilot, "3")  # Agreement: the headline, the multi-rater coefficients, per type
        rows = _cells(screen.query_one("#measures", DataTable))
        s = body["summary"]
        assert rows[0] == ["spans", "mean pairwise F1", _f(s["value"]), _ci(s["ci"]), "bootstrap",
                           f"{s['n_pairs']} pairs · {len(body['documents'])} docs"]  # fmt: skip
        multi = body["multirater"]
        alpha = next(r for r in rows if r[1] == "Krippendorff's α")
        boot = multi["bootstrap"]["krippendorff_alpha"]
        assert alpha[2:] == [_f(multi["coefficients"]["krippendorff_alpha"]["value"]), _ci(boot), "bootstrap",
                             f"{multi['units']} units"]  # fmt: skip
        assert "document bootstrap (percentile, 1000 resamples, seed 0)" in screen_text(app)
        per_type = {r[0]: r for r in _cells(screen.query_one("#agreement", DataTable))}
        for t in body["per_type"]["rows"]:
            assert per_type[t["name"]][1:6] == [str(t["n"]), str(t["matched"]), str(t["only_a"]),
                                                str(t["only_b"]), _f(t["value"])]  # fmt: skip

        await _on(
            pilot, "4", lambda: _active(screen) == "tab-pairs", "pairs"
        )  # Pairs: the matrix (heat-coloured) and each pair with n and CIs
        matrix = screen.query_one("#matrix", DataTable)
        f1 = body["matrices"]["f1"]
        names = f1["names"]
        assert names == ["Lisa", "Maria", "Max", "Peter"]
        for i, row in enumerate(_cells(matrix)):
            assert row[0] == names[i]
            assert row[1:] == ["·" if i == j else _f(v) for j, v in enumerate(f1["values"][i])]
        low = s["lowest_pair"]  # Maria-Max, bratiaa's 0.816: the reddest cell
        cell = matrix.get_cell_at(matrix.get_cell_coordinate(low["a"], low["b"]))
        assert isinstance(cell, Text) and heat_colour(low["value"]) in str(cell.style)
        pairs = _cells(screen.query_one("#pairs", DataTable))
        for got, p in zip(pairs, body["pairs"], strict=True):
            kappa = p["type_agreement"]["cohen_kappa"]["value"]
            assert got == [p["a"], p["b"], _f(p["overall"]["f1"]), _ci(p["ci"]["f1"]), _f(kappa),
                           _ci(p["ci"]["type_kappa"]), str(p["documents"]), str(p["overall"]["matched"]),
                           str(p["overall"]["only_a"]), str(p["overall"]["only_b"])]  # fmt: skip
        raters = _cells(screen.query_one("#raters", DataTable))  # who is the outlier: lowest mean F1 first
        per = sorted(body["per_rater"]["rows"], key=lambda r: r["mean_f1"])
        assert raters == [[r["name"] + (" (lowest)" if r["outlier"] else ""), _f(r["mean_f1"]), _f(r["min_f1"]),
                           str(r["n_pairs"]), str(r["items"]), str(r["one_sided"]), str(r["from_suggestions"])]
                          for r in per]  # fmt: skip
        assert raters[0][0] == f"{body['per_rater']['lowest']} (lowest)"
        await _on(
            pilot, "M", lambda: screen.measure == 1, "kappa"
        )  # the matrix of Cohen's kappa on the types of matched spans
        kap = body["matrices"]["type_kappa"]["values"]
        assert [r[1:] for r in _cells(matrix)] == [
            ["·" if i == j else _f(v) for j, v in enumerate(kap[i])] for i in range(len(names))
        ]

        await _on(
            pilot, "5", lambda: _active(screen) == "tab-by-document", "documents"
        )  # By document: lowest mean pairwise F1 first, n, conflicts
        docs = _cells(screen.query_one("#doc-agreement", DataTable))
        expected = sorted(body["per_document"]["rows"], key=lambda r: (r["value"], r["document"]))
        assert [r[0] for r in docs] == [r["document"] for r in expected]
        assert docs[0][0] == body["lowest"]["documents"][0]["document"]
        queue = {q.document: q for q in Corpus.open("sample", url=demo_url).adjudication_queue()}
        for got, r in zip(docs, expected, strict=True):
            q = queue[r["document"]]
            low_pair = r["lowest_pair"]
            assert got == [r["document"], _f(r["value"]), _f(r["min"]), str(r["n"]), str(r["only_a"] + r["only_b"]),
                           f"{q.open}/{q.conflicts}", "none", f"{low_pair['a']}–{low_pair['b']}"]  # fmt: skip


@run_async
async def test_lowest_document_to_its_conflicts_in_two_keys_writing_nothing(demo_url: str) -> None:
    path = demo_url.removeprefix("sqlite:///")
    lead = Corpus.open("sample", url=demo_url)
    lowest = lead.agreement("spans", criterion="exact").to_dict()["lowest"]["documents"][0]["document"]
    (found,) = lead.conflicts(lowest)
    before = _dump(path)
    app = _demo_app(demo_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        keys = ["5", "enter"]  # the By document tab (lowest first), Enter: its conflicts
        await press(pilot, *keys)
        assert len(keys) == 2
        screen = await _drilled(pilot)
        assert screen.document == lowest == "esp.train-doc-100"
        # overlapping boundary alternatives are one conflict each (#15 item 4)
        assert screen.adj is not None and screen.adj.conflicts.open == found.open == 38
        assert "(read-only)" in screen_text(app) and f"{found.open} open" in str(screen.sub_title)
        # browsing, and every deciding key: nothing is decided, merged or written
        await press(
            pilot, "n", "n", "p", "s", "h", "1", "2", "0", "x", "e", "m", "number_sign", "S", "u", "R"
        )
        assert isinstance(app.screen, LeadConflictsScreen)
        await _on(pilot, "escape", lambda: isinstance(app.screen, LeadScreen), "back")
        await press(pilot, "enter")  # again, another way back
        await _drilled(pilot)
        await _on(pilot, "q", lambda: isinstance(app.screen, LeadScreen), "back")
    assert _dump(path) == before
    with pytest.raises(NotFound):
        lead.gold(lowest)
    assert lead.decisions(lowest) == []


@run_async
async def test_w_turns_looking_into_adjudicating(demo_url: str) -> None:
    """From the read-only view, A opens the real adjudication (agreed items merged into gold then)."""
    app = _demo_app(demo_url)
    async with app.run_test(size=(80, 24)) as pilot:
        await settle(pilot)
        await press(pilot, "5", "enter")
        await _drilled(pilot)
        await press(pilot, "A")
        await wait_until(
            pilot, lambda: type(app.screen) is AdjudicateScreen and app.screen.adj is not None, "adjudicate"
        )
        screen = app.screen
        assert type(screen) is AdjudicateScreen and screen.document == "esp.train-doc-100"
        lead = Corpus.open("sample", url=demo_url)
        with pytest.raises(NotFound):  # opening to adjudicate still writes nothing ...
            lead.gold("esp.train-doc-100")
        await press(pilot, "1")  # ... until the first decision, which merges the agreed items first
        await wait_until(pilot, lambda: bool(lead.decisions("esp.train-doc-100")), "a decision")
    gold = lead.gold("esp.train-doc-100")
    assert gold.annotations.spans  # the unanimous spans, merged by adjudicating, not by looking
    assert {d.method for d in lead.decisions("esp.train-doc-100")} >= {"unanimous", "adjudicated"}


@run_async
async def test_relations_beside_spans_and_their_pair_matrix(sqlite_url: str) -> None:
    build_sample(sqlite_url, submitted=True)
    lena = Corpus.open("demo", url=sqlite_url, user="lena")
    rel = lena.agreement("relations", criterion="exact", bootstrap=BOOT, seed=0).to_dict()
    spans = lena.agreement("spans", criterion="exact", bootstrap=BOOT, seed=0).to_dict()
    app = build_app(open_facade(sqlite_url, "demo", "lena"))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LeadScreen)
        screen = await _tab(pilot, "3")
        rows = {(r[0], r[1]): r for r in _cells(screen.query_one("#measures", DataTable))}
        assert rows[("relations", "mean pairwise F1")][2:4] == [
            _f(rel["summary"]["value"]),
            _ci(rel["summary"]["ci"]),
        ]
        assert rows[("spans", "mean pairwise F1")][2] == _f(spans["summary"]["value"]) == "0.40"
        kappa = spans["pairs"][0]["type_agreement"]["cohen_kappa"]
        assert rows[("spans", "type κ (matched spans)")][2] == _f(kappa["value"])
        per_type = {r[0]: r for r in _cells(screen.query_one("#agreement", DataTable))}
        assert per_type["bind (relations)"][5] == _f(rel["per_type"]["rows"][0]["value"])
        await press(pilot, "4", "M")
        await _on(
            pilot, "M", lambda: screen.measure == 2, "relation F1"
        )  # span F1, span type kappa, relation F1
        assert "relation F1" in screen_text(app)
        matrix = _cells(screen.query_one("#matrix", DataTable))
        assert matrix[0] == ["alice", "·", _f(rel["matrices"]["f1"]["values"][0][1])]
        await _on(pilot, "5", lambda: _active(screen) == "tab-by-document", "documents")
        (doc,) = _cells(screen.query_one("#doc-agreement", DataTable))
        assert doc[:6] == ["d1", _f(spans["per_document"]["rows"][0]["value"]), _f(spans["per_document"]["rows"][0]["min"]),
                           str(spans["per_document"]["rows"][0]["n"]), "3", _f(rel["per_document"]["rows"][0]["value"])]  # fmt: skip


@run_async
async def test_blindness_the_lead_view_shows_nothing_unsubmitted(sqlite_url: str) -> None:
    """Before anyone submits, bob's spans on d1 reach neither the lead's agreement nor an annotator's."""
    build_sample(sqlite_url)
    lena = open_facade(sqlite_url, "demo", "lena")
    got = lena.lead_agreement(bootstrap=0)
    assert got.layers == {} and got.conflicts == {}
    assert "lena (lead) can read none" in got.errors["spans"]
    alice = open_facade(sqlite_url, "demo", "alice")
    mine = alice.lead_agreement(bootstrap=0)
    assert mine.layers == {} and "spans" in mine.errors and mine.conflicts == {}
    with pytest.raises(CorpusError):
        LookingFacade(alice).open_adjudication("d1")  # the drill-down's read: refused to an annotator
    app = build_app(lena)
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        screen = await _tab(pilot, "5")
        await press(pilot, "enter")
        assert app.screen is screen and screen.doc_order == []  # no document to drill into
        assert "STAT5" not in screen_text(app)


def test_spans_first_then_the_rest_is_the_whole(any_url: str) -> None:
    """The view shows spans first and completes them with the other layers and the conflict counts:
    together exactly what one full ``lead_agreement`` gives (SQLite and PostgreSQL)."""
    build_sample(any_url, submitted=True)
    lena = open_facade(any_url, "demo", "lena")
    assert open_facade(any_url, "demo", "alice").lead_agreement(bootstrap=0).layers == {}  # blind
    first = lena.lead_agreement(layers=("spans",), conflicts=False)
    assert not first.complete and list(first.layers) == ["spans"] and first.conflicts == {}
    rest = lena.complete_lead(first)
    whole = lena.lead_agreement()
    assert rest.complete and whole.complete
    # the schema has links but nobody made one: that layer is not computed (issue #15.5), and says why
    assert list(rest.layers) == list(whole.layers) == ["spans", "relations"]
    assert rest.errors["links"] == whole.errors["links"] == "none in the readable sets"

    def same(body: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in body.items() if k != "generated"}

    assert all(same(rest.layers[x]) == same(whole.layers[x]) for x in whole.layers)
    api = Corpus.open("demo", url=any_url, user="lena")  # read in one call, still the API's reports
    for x in whole.layers:
        assert same(whole.layers[x]) == same(api.agreement(x, criterion="exact", bootstrap=BOOT).to_dict())
    assert rest.conflicts == whole.conflicts and rest.conflicts["d1"].open == 5
