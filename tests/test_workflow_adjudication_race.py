"""Two adjudicators deciding the same conflict at once (issue 22.11): the later one is told who
decided it meanwhile (exit 6) and the first decision is kept, unless they ask to revise. Race-safe in
the database: the gold set's version is compared and set in the same transaction as the decision,
on SQLite (writers queue at ``BEGIN IMMEDIATE``) and on PostgreSQL (the gold row is locked and its
version checked; the loser re-reads and finds the conflict decided)."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import threading
from typing import Any

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.store.db import make_engine
from corpusdb.workflow import adjudication, bulk

TEXT = "IL-2 binds the IL-2 receptor alpha chain (IL-2Ra) in T cells but not IL-4."
KEY = "span:15-28"  # alice 15-40 against bob 15-28: one boundary dispute


def sp(i: str, t: str, a: int, b: int) -> Span:
    return Span(i, t, ((a, b),), TEXT[a:b])


def _project(url: str) -> Corpus:
    c = Corpus.create("p", "biorelex-1.0", url=url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_annotator("judy", "adjudicator")
    c.add_annotator("jim", "adjudicator")
    c.add_documents([Document("s1", TEXT)])
    c.create_set("s1", "alice", status="submitted",
                 annotations=Annotations(spans=(sp("T1", "protein", 0, 4), sp("T2", "protein", 15, 40))))  # fmt: skip
    c.create_set("s1", "bob", status="submitted",
                 annotations=Annotations(spans=(sp("T1", "protein", 0, 4), sp("T7", "protein", 15, 28))))  # fmt: skip
    return c


def _race(url: str, monkeypatch: pytest.MonkeyPatch, merged: bool) -> tuple[Corpus, dict[str, object]]:
    """judy takes alice's version and jim bob's, each through their own engine, both having read the
    document before either writes (a barrier after the analysis: on PostgreSQL both really read it
    undecided; on SQLite the second waits at BEGIN IMMEDIATE, so the barrier gives up after 2 s)."""
    c = _project(url)
    if merged:
        c.as_user("judy").merge("s1")  # a gold set exists: the race is on its version
    barrier = threading.Barrier(2)
    real = adjudication.analyse

    def analyse_then_wait(*a: Any, **kw: Any) -> Any:
        out = real(*a, **kw)
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=2)
        return out

    monkeypatch.setattr(adjudication, "analyse", analyse_then_wait)
    results: dict[str, object] = {}

    def decide(name: str, take: str) -> None:
        me = Corpus.open("p", engine=make_engine(url), user=name)
        try:
            results[name] = me.resolve("s1", KEY, take=take, reason=f"{name}'s call")
        except Conflict as exc:
            results[name] = exc

    threads = [threading.Thread(target=decide, args=a) for a in (("judy", "alice"), ("jim", "bob"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    monkeypatch.setattr(adjudication, "analyse", real)
    return c, results


@pytest.mark.parametrize("merged", [True, False], ids=["gold-exists", "no-gold-yet"])
def test_the_later_adjudicator_is_told_and_the_first_decision_kept(
    any_url: str, monkeypatch: pytest.MonkeyPatch, merged: bool
) -> None:
    c, results = _race(any_url, monkeypatch, merged)
    assert set(results) == {"judy", "jim"}
    lost = {k: v for k, v in results.items() if isinstance(v, Exception)}
    won = {k: v for k, v in results.items() if not isinstance(v, Exception)}
    assert len(won) == 1 and len(lost) == 1, results
    [winner] = won
    [exc] = lost.values()
    assert isinstance(exc, Conflict) and exc.exit_code == 6
    assert f"decided meanwhile by {winner}" in str(exc) and KEY in str(exc), str(exc)
    # the first decision is kept: one decision in force on the conflict, the winner's, and gold
    # holds the winner's version only
    judy = c.as_user("judy")
    [dc] = judy.conflicts("s1", include_resolved=True)
    [x] = [x for x in dc.conflicts if x.key == KEY]
    assert x.decision is not None and x.decision.decided_by == winner
    ours = [d for d in judy.decisions("s1") if d.method != "unanimous"]
    assert [(d.decided_by, d.in_force) for d in ours] == [(winner, True)]
    want = (15, 40) if winner == "judy" else (15, 28)
    gold = judy.gold("s1").annotations
    assert [s.fragments[0] for s in gold.spans if s.fragments[0][0] == 15] == [want]


def test_two_bulk_takes_at_once_decide_each_conflict_once(
    any_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """judy takes alice's version of every open conflict while jim takes bob's: the later one reads
    again, finds nothing open, and decides nothing (on PostgreSQL both first read it open)."""
    c = _project(any_url)
    c.as_user("judy").merge("s1")
    barrier = threading.Barrier(2)
    real = bulk.analyse_many

    def analyse_then_wait(*a: Any, **kw: Any) -> Any:
        out = real(*a, **kw)
        with contextlib.suppress(threading.BrokenBarrierError):
            barrier.wait(timeout=2)
        return out

    monkeypatch.setattr(bulk, "analyse_many", analyse_then_wait)
    results: dict[str, Any] = {}

    def take(name: str, source: str) -> None:
        results[name] = Corpus.open("p", engine=make_engine(any_url), user=name).resolve_bulk(
            "s1", take=source
        )

    threads = [threading.Thread(target=take, args=a) for a in (("judy", "alice"), ("jim", "bob"))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(r[0].taken for r in results.values()) == [0, 1], results
    [winner] = [k for k, r in results.items() if r[0].taken == 1]
    decided = [
        (d.decided_by, d.in_force) for d in c.as_user("judy").decisions("s1") if d.method != "unanimous"
    ]
    assert decided == [(winner, True)]


def test_revise_decides_again_and_keeps_the_history(any_url: str) -> None:
    c = _project(any_url)
    judy = Corpus.open("p", engine=c.engine, user="judy")
    jim = Corpus.open("p", engine=c.engine, user="jim")
    first = judy.resolve("s1", KEY, take="alice")
    with pytest.raises(Conflict, match="decided meanwhile by judy") as exc:
        jim.resolve("s1", KEY, take="bob")
    assert "revise" in str(exc.value)
    again = jim.resolve("s1", KEY, take="bob", revise=True, reason="bob's boundary is the guideline's")
    assert again.gold_item_id == first.gold_item_id  # a revision keeps the gold id
    hist = [(d.decided_by, d.in_force) for d in judy.decisions("s1") if d.method != "unanimous"]
    assert hist == [("judy", False), ("jim", True)]
    assert [s.fragments for s in judy.gold("s1").annotations.spans if s.id == first.gold_item_id] == [
        ((15, 28),)
    ]


def _cli(url: str, *args: str) -> subprocess.Popen[str]:
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    exe = os.path.join(os.path.dirname(sys.executable), "corpusdb")
    return subprocess.Popen([exe, "--db", url, *args],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)  # fmt: skip


def test_two_adjudicator_processes_at_once_cli(any_url: str) -> None:
    c = _project(any_url)
    c.as_user("judy").merge("s1")
    c.engine.dispose()
    procs = {
        "judy": _cli(any_url, "--as", "judy", "adjudicate", "s1", "-k", KEY, "--take", "alice"),
        "jim": _cli(any_url, "--as", "jim", "adjudicate", "s1", "-k", KEY, "--take", "bob"),
    }
    got = {k: (p.wait(120), *p.communicate()) for k, p in procs.items()}
    codes = sorted(v[0] for v in got.values())
    assert codes == [0, 6], got
    [winner] = [k for k, v in got.items() if v[0] == 0]
    [(_, _, err)] = [v for v in got.values() if v[0] == 6]
    assert f"decided meanwhile by {winner}" in err and "--revise" in err, err
    assert err.count("\n") == 1, err  # said once
    # the loser asks to revise: a revision, exit 0
    loser = "jim" if winner == "judy" else "judy"
    take = "bob" if loser == "jim" else "alice"
    p = _cli(any_url, "--as", loser, "adjudicate", "s1", "-k", KEY, "--take", take, "--revise")
    rc, out, err = p.wait(120), *p.communicate()
    assert rc == 0 and "revised" in out, (out, err)
