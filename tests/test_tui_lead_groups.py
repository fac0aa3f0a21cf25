"""The lead view's Groups tab (issue 27): Krippendorff's alpha_u and Mathet's gamma over every annotator
(the corpus and each document, sortable) and agreement by guideline version, split and annotator over
time, each figure the API's (``corpusdb agree -m``, ``agree --by``), computed in a worker whose
progress (the API's callback) the tab's note shows. Project: the bundled demo (bratiaa's four
annotators on seven documents)."""

from __future__ import annotations

from typing import Any

import pytest
from rich.text import Text
from textual.widgets import DataTable, Static

from corpusdb.api import Corpus
from corpusdb.demo import build_demo
from corpusdb.reports.unitized import GammaOptions
from tui.app import build_app
from tui.facade import TuiFacade, open_facade
from tui.screens.lead import LeadScreen
from tui.testing import run_async, settle, wait_until


def _f(x: float | None) -> str:
    return "—" if x is None else f"{x:.2f}"


def _cells(table: DataTable) -> list[list[str]]:  # type: ignore[type-arg]
    return [[str(c.plain if isinstance(c, Text) else c).strip() for c in table.get_row_at(i)]
            for i in range(table.row_count)]  # fmt: skip


@pytest.fixture
def demo_url(sqlite_url: str) -> str:
    build_demo(sqlite_url)
    return sqlite_url


@run_async
async def test_groups_tab_shows_the_apis_unitizing_and_grouped_figures(demo_url: str) -> None:
    api = Corpus.open("sample", url=demo_url)
    alpha_u = api.unitizing_agreement("alpha_u")
    by = {
        b: api.agreement_by(b, window=TuiFacade.BY_WINDOW, criterion="exact")
        for b in ("guideline", "split", "time")
    }
    app = build_app(open_facade(demo_url, "sample", None))  # the owner: a lead
    notes: list[str] = []
    async with app.run_test(size=(160, 50)) as pilot:
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, LeadScreen)
        note = screen.query_one("#groups-note", Static)
        shown = note.update

        def update(content: object = "", *args: object, **kw: object) -> None:  # every text the note is given
            notes.append(str(content))
            shown(content, *args, **kw)  # type: ignore[arg-type]

        note.update = update  # type: ignore[method-assign]
        await pilot.press("6")  # no settle: the worker runs long (gamma)

        def done() -> bool:
            notes.append(str(note.render()))
            return screen.groups is not None

        await wait_until(pilot, done, "alpha_u, gamma and the groupings", timeout=300)
        assert any("Computing" in n for n in notes)  # said while the worker ran
        g = screen.groups
        assert g is not None and not g.errors
        unit = _cells(screen.query_one("#unitizing", DataTable))
        assert unit[0][:4] == [
            "Krippendorff's α_u",
            _f(alpha_u["value"]),
            "4",
            str(len(alpha_u["documents"])),
        ]
        gamma = g.unitizing["gamma"]
        assert unit[1][:3] == ["Mathet's γ", _f(gamma["value"]), "4"] and "10 random continua" in unit[1][4]
        assert gamma["options"]["samples"] == TuiFacade.GAMMA_SAMPLES
        grouped = _cells(screen.query_one("#grouped", DataTable))
        want = [r for b, res in by.items() for r in res["rows"]]
        assert [row[3] for row in grouped] == [_f(r["value"]) for r in want]
        assert grouped[0][:2] == ["guideline", "v1"] and any(
            r[0] == "time" and "window 1" in r[1] for r in grouped
        )
        # per document, over every annotator at once: lowest alpha_u first, then a click sorts by document
        docs = _cells(screen.query_one("#unit-docs", DataTable))
        api_rows = sorted(alpha_u["per_document"], key=lambda r: (r["value"], r["document"]))
        assert [d[0] for d in docs] == [r["document"] for r in api_rows]
        assert [d[1] for d in docs] == [_f(r["value"]) for r in api_rows]
        gam = {r["document"]: r["value"] for r in gamma["per_document"]}
        assert all(d[2] == _f(gam.get(d[0])) for d in docs)
        table = screen.query_one("#unit-docs", DataTable)
        await pilot.click(table, offset=(2, 0))  # the "document" header
        await wait_until(pilot, lambda: screen._unit_sort == ("document", False), "sorted by document")
        assert [d[0] for d in _cells(table)] == sorted(r["document"] for r in api_rows)
        assert "agree --by" in str(note.render())


def test_lead_groups_gamma_is_the_apis_on_the_same_seeded_sample(demo_url: str) -> None:
    facade = open_facade(demo_url, "sample", None)
    seen: list[Any] = []
    g = facade.lead_groups(lambda d, n, what: seen.append((d, n, what)))
    api = Corpus.open("sample", url=demo_url).unitizing_agreement(
        "gamma",
        sample_documents=TuiFacade.GAMMA_DOCUMENTS,
        gamma=GammaOptions(samples=TuiFacade.GAMMA_SAMPLES),
    )
    assert g.unitizing["gamma"]["value"] == api["value"]
    assert any(w.startswith("gamma: ") for _, _, w in seen) and any(
        w.startswith("alpha_u: ") for _, _, w in seen
    )
    assert "agreement by time" in {w for _, _, w in seen}
