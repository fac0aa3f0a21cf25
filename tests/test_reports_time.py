"""Active time, throughput and progress over time, on a project whose edit history has known gaps.

The edits are made through the API (so the history rows are the real ones), then their timestamps
are set to a constructed timeline; every expected second below is worked out by hand from it."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta

import pytest
from sqlalchemy import select, update
from typer.testing import CliRunner

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, PermissionDenied
from corpusdb.basics.records import Document, Span
from corpusdb.cli.main import app
from corpusdb.reports import timing
from corpusdb.services.edits import Put
from corpusdb.store import db, tables

TEXT = "IL-2 binds IL-2R in T cells."
T0 = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)
DAY2 = T0 + timedelta(days=1)
# (annotator, document): offsets in seconds of each edit, then of the submission (None: not submitted)
TIMELINE = {
    ("alice", "d1"): ([0, 60, 100], 130),
    ("alice", "d2"): ([200, 260, 1000], 1020),  # 260 -> 1000 is a 740 s pause: idle
    ("alice", "d3"): ([86400, 86430], 86445),  # the next day, after a night: idle
    ("bob", "d1"): ([10, 40], 100),
    ("bob", "d2"): ([400], 450),  # 100 -> 400 is exactly 300 s: counted (the threshold is inclusive)
    ("bob", "d3"): ([], None),
}


def _span(i: int) -> Span:
    return Span(f"T{i}", "protein", ((0, 4),), "IL-2")


@pytest.fixture
def project(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_documents([Document(d, TEXT) for d in ("d1", "d2", "d3")])
    c.assign(["d1", "d2", "d3"], ["alice", "bob"])
    engine = c.engine
    H, S = tables.edit_history, tables.annotation_set
    for (who, doc), (edits, sub) in TIMELINE.items():
        me = c.as_user(who)
        s = me.my_set(doc).info
        version = s.version
        for _ in edits:
            # the same span again on a later edit: a Put of an existing key replaces it
            version = me.edit_set(
                s.id, [Put(_span(1))], expected_version=version, history="do", description="add"
            ).info.version
        if sub is not None:
            me.submit(s.id)
        with db.write(engine) as conn:
            ids = (
                conn.execute(select(H.c.id).where(H.c.set_id == s.id).order_by(H.c.position)).scalars().all()
            )
            assert len(ids) == len(edits)
            for hid, off in zip(ids, edits, strict=True):
                conn.execute(update(H).where(H.c.id == hid).values(created=T0 + timedelta(seconds=off)))
            if sub is not None:
                conn.execute(update(S).where(S.c.id == s.id).values(submitted=T0 + timedelta(seconds=sub)))
    c.finish_gold("d1")
    with db.write(engine) as conn:
        gold = conn.execute(select(S.c.id).where(S.c.kind == "gold")).scalar_one()
        at = DAY2 + timedelta(hours=1)
        conn.execute(update(S).where(S.c.id == gold).values(created=at, submitted=at))
    return c


def test_active_time_counts_only_gaps_within_the_idle_threshold(project: Corpus) -> None:
    d = project.time_report(agreement=False).to_dict()
    assert d["schema"] == "corpusdb.time/1"
    assert d["idle_seconds"] == 300.0 and "300 s" in d["rule"]
    ann = {r["annotator"]: r for r in d["by_annotator"]}
    # alice: d1 60+40+30 = 130; d2 70+60+0(idle)+20 = 150; d3 0(idle)+30+15 = 45
    assert ann["alice"]["active_seconds"] == 325.0
    # bob: d1 0+30+60 = 90; d2 300 (inclusive) + 50 = 350
    assert ann["bob"]["active_seconds"] == 440.0
    assert ann["(adjudication)"]["active_seconds"] == 0.0  # one action: no known duration
    docs = {r["document"]: r["active_seconds"] for r in d["by_document"]}
    assert docs == {"d1": 220.0, "d2": 500.0, "d3": 45.0}
    days = {(r["annotator"], r["day"]): r["active_seconds"] for r in d["by_day"]}
    assert days[("alice", "2026-03-02")] == 280.0 and days[("alice", "2026-03-03")] == 45.0
    assert days[("bob", "2026-03-02")] == 440.0
    assert d["totals"]["active_seconds"] == 765.0
    assert d["totals"]["idle_gaps"] == 2  # alice's 740 s pause and her night (86400 - 1020 s)
    assert d["totals"]["idle_seconds_not_counted"] == 740.0 + 86400 - 1020
    # throughput: alice made 8 actions over 3 documents, 8 - 3 submissions = 8 items (one change each)
    assert ann["alice"]["items"] == 8 and ann["alice"]["documents"] == 3
    assert ann["alice"]["items_per_hour"] == pytest.approx(8 / (325 / 3600), abs=1e-3)
    assert ann["alice"]["documents_per_hour"] == pytest.approx(3 / (325 / 3600), abs=1e-3)
    sets = {(r["annotator"], r["document"]): r["active_seconds"] for r in d["by_set"]}
    assert sets[("alice", "d2")] == 150.0 and sets[("bob", "d2")] == 350.0


def test_a_lower_idle_threshold_counts_less(project: Corpus) -> None:
    d = project.time_report(idle_seconds=60, agreement=False).to_dict()
    ann = {r["annotator"]: r["active_seconds"] for r in d["by_annotator"]}
    # alice: 60+40+30 | 0(70)+60+0+20 | 0+30+15 = 255; bob: 0+30+60 | 0(300)+50 = 140
    assert ann == {"alice": 255.0, "bob": 140.0, "(adjudication)": 0.0}
    with pytest.raises(InvalidInput, match="positive"):
        project.time_report(idle_seconds=0)


def test_progress_per_day_and_projection(project: Corpus) -> None:
    d = project.time_report(agreement=False).to_dict()
    rows = d["progress"]
    assert [r["day"] for r in rows] == ["2026-03-02", "2026-03-03"]
    assert (rows[0]["submitted"], rows[0]["adjudicated"], rows[0]["finished"]) == (
        2,
        0,
        0,
    )  # d1, d2; d3 waits for bob
    assert (rows[1]["submitted"], rows[1]["adjudicated"], rows[1]["finished"]) == (0, 1, 1)
    p = d["projection"]
    # 1 of 3 finished; pace 1 document over 2 days = 0.5/day; 2 left -> 4 days after the last day
    assert (p["done"], p["remaining"], p["pace_per_day"], p["days_left"], p["date"]) == (
        1,
        2,
        0.5,
        4,
        "2026-03-07",
    )


def test_time_against_agreement_per_document(project: Corpus) -> None:
    d = project.time_report().to_dict()
    tva = d["time_vs_agreement"]
    rows = {r["document"]: r for r in tva["rows"]}
    # alice and bob both marked IL-2 on d1 and d2 (F1 1.0); d3 has only alice's set: not compared
    assert set(rows) == {"d1", "d2"}
    assert rows["d2"]["active_seconds"] == 500.0 and rows["d1"]["agreement"] == 1.0
    assert tva["spearman"] is None  # fewer than 3 documents: no correlation claimed


def test_an_annotator_sees_only_her_own_time(project: Corpus) -> None:
    d = project.as_user("alice").time_report().to_dict()
    assert [r["annotator"] for r in d["by_annotator"]] == ["alice"]
    assert d["time_vs_agreement"] is None
    assert {r["document"] for r in d["by_document"]} == {"d1", "d2", "d3"}
    with pytest.raises(PermissionDenied):
        project.as_user("alice").as_user("bob")


def test_pure_counting_rule() -> None:
    ev = [timing.Event("a", 1, "x", T0 + timedelta(seconds=s)) for s in (0, 300, 601, 602)]
    t = timing.active_time(ev, 300)
    assert t.total_seconds == 301.0 and t.idle_gaps == 1 and t.idle_total_seconds == 301.0
    assert timing.projection([], 5)["date"] is None


def test_status_time_cli_json_text_and_html(project: Corpus, sqlite_url: str, tmp_path) -> None:
    runner = CliRunner()
    r = runner.invoke(app, ["--db", sqlite_url, "-f", "json", "status", "--time", "--idle", "300"])
    assert r.exit_code == 0, r.output
    d = json.loads(r.output)
    assert d["time"]["totals"]["active_seconds"] == 765.0
    assert d["documents"] == 3  # the plain status is still there
    r = runner.invoke(app, ["--db", sqlite_url, "status", "--time"])
    assert r.exit_code == 0, r.output
    assert "Active time" in r.output and "alice" in r.output and "idle" in r.output
    out = tmp_path / "progress.html"
    r = runner.invoke(app, ["--db", sqlite_url, "status", "--time", "--html", str(out)])
    assert r.exit_code == 0, r.output
    html = out.read_text(encoding="utf-8")
    assert html.count("<svg") >= 2 and "2026-03-07" in html and str(tmp_path) not in html


def test_the_lead_view_shows_active_time_and_pace(project: Corpus, sqlite_url: str) -> None:
    from textual.widgets import DataTable, Static

    from tui.app import build_app
    from tui.facade import open_facade
    from tui.screens.lead import LeadScreen
    from tui.testing import run_async, settle, wait_until

    @run_async
    async def check() -> None:
        app = build_app(open_facade(sqlite_url, "p", None))  # the owner: a lead
        async with app.run_test(size=(140, 45)) as pilot:
            await settle(pilot)
            screen = pilot.app.screen
            assert isinstance(screen, LeadScreen)
            await wait_until(pilot, lambda: screen.query_one("#time", DataTable).row_count > 0, "time")
            table = screen.query_one("#time", DataTable)
            rows = {
                str(table.get_row_at(i)[0]): [str(c) for c in table.get_row_at(i)]
                for i in range(table.row_count)
            }
            assert rows["alice"][1] == "0:05:25" and rows["bob"][1] == "0:07:20"  # 325 s, 440 s
            note = str(screen.query_one("#time-note", Static).render())
            assert "300 s" in note and "1/3" in note and "2026-03-07" in note

    check()
