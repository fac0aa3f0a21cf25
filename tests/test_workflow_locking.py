"""Optimistic locking between two processes editing one set: the loser gets StaleVersion, reloads,
re-applies, and nothing is lost. Two ``Corpus`` handles with their own engines stand for two processes."""

from __future__ import annotations

import threading
from collections.abc import Callable

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import StaleVersion
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.services.edits import Put
from corpusdb.store.db import make_engine

TEXT = "IL-2 binds the IL-2 receptor alpha chain."


@pytest.fixture
def two_processes(any_url: str) -> tuple[Corpus, Corpus, int]:
    c = Corpus.create("p", "biorelex-1.0", url=any_url)
    c.add_annotator("alice")
    c.add_documents([Document("d", TEXT)])
    s = c.create_set("d", "alice")
    one = Corpus.open("p", engine=make_engine(any_url), user="alice")
    two = Corpus.open("p", engine=make_engine(any_url), user="alice")
    return one, two, s.id


def test_the_loser_reloads_and_reapplies(two_processes: tuple[Corpus, Corpus, int]) -> None:
    one, two, set_id = two_processes
    seen_by_one = one.read_set(set_id).info.version
    seen_by_two = two.read_set(set_id).info.version
    a = Span("T1", "protein", ((0, 4),), "IL-2")
    b = Span("T2", "protein", ((15, 28),), "IL-2 receptor")
    won = one.edit_set(set_id, [Put(a)], expected_version=seen_by_one)
    with pytest.raises(StaleVersion) as exc:
        two.edit_set(set_id, [Put(b)], expected_version=seen_by_two)
    assert (exc.value.expected, exc.value.actual) == (seen_by_two, won.info.version)
    assert exc.value.exit_code == 6
    assert two.read_set(set_id).annotations.spans == (a,)  # the winner's work is intact
    fresh = two.read_set(set_id)  # reload, re-apply
    two.edit_set(set_id, [Put(b)], expected_version=fresh.info.version)
    assert one.read_set(set_id).annotations.spans == (a, b)
    with pytest.raises(StaleVersion):  # whole-set replacement is guarded the same way
        one.replace_set(set_id, one.read_set(set_id).annotations, expected_version=won.info.version)


def test_simultaneous_writers_exactly_one_wins(two_processes: tuple[Corpus, Corpus, int]) -> None:
    one, two, set_id = two_processes
    version = one.read_set(set_id).info.version
    results: dict[str, object] = {}
    start = threading.Barrier(2)

    def write(name: str, c: Corpus, span: Span) -> None:
        start.wait()
        try:
            results[name] = c.edit_set(set_id, [Put(span)], expected_version=version).info.version
        except StaleVersion as exc:
            results[name] = exc

    threads = [
        threading.Thread(target=write, args=("one", one, Span("T1", "protein", ((0, 4),), "IL-2"))),
        threading.Thread(
            target=write, args=("two", two, Span("T2", "protein", ((15, 28),), "IL-2 receptor"))
        ),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    stale = [k for k, v in results.items() if isinstance(v, StaleVersion)]
    assert len(results) == 2 and len(stale) == 1
    assert len(one.read_set(set_id).annotations.spans) == 1


def _race(one: Corpus, two: Corpus, set_id: int, act: str) -> list[object]:
    """Two real writers (own engines, own connections) on one set at once; what each got."""
    version = one.read_set(set_id).info.version
    start = threading.Barrier(2)
    results: list[object] = [None, None]

    def write(i: int, c: Corpus) -> None:
        span = Span(f"T{i}", "protein", ((0, 4),), "IL-2")
        start.wait()
        try:
            if act == "edit":
                results[i] = c.edit_set(set_id, [Put(span)], expected_version=version).info.version
            else:
                results[i] = c.replace_set(
                    set_id, Annotations(spans=(span,)), expected_version=version
                ).version
        except Exception as exc:  # anything but StaleVersion fails the test below
            results[i] = exc

    threads = [threading.Thread(target=write, args=(i, c)) for i, c in enumerate((one, two))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


@pytest.mark.parametrize("act", ["edit", "replace"])
def test_every_lost_race_is_stale_version(two_processes: tuple[Corpus, Corpus, int], act: str) -> None:
    """Issue #10.6: on PostgreSQL the loser used to get psycopg's UniqueViolation (a unique index on
    the set's items) instead of StaleVersion, and the CLI said "internal error"."""
    one, two, set_id = two_processes
    for _ in range(25):
        results = _race(one, two, set_id, act)
        kinds = sorted(type(r).__name__ for r in results)
        assert kinds == ["StaleVersion", "int"], results
        stale = next(r for r in results if isinstance(r, StaleVersion))
        assert stale.exit_code == 6
        winner = next(i for i, r in enumerate(results) if isinstance(r, int))
        ids = {s.id for s in one.read_set(set_id).annotations.spans}
        assert f"T{winner}" in ids  # the winner's work is stored
        if act == "replace":
            assert ids == {f"T{winner}"}


def _at_once(calls: list[Callable[[], object]]) -> list[object]:
    """Run the calls in threads released together; each one's result or exception."""
    start = threading.Barrier(len(calls))
    results: list[object] = [None] * len(calls)

    def run(k: int) -> None:
        start.wait()
        try:
            results[k] = calls[k]()
        except Exception as exc:  # the test says which exceptions are right
            results[k] = exc

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(calls))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return results


def test_two_leads_creating_one_set_at_once(any_url: str) -> None:
    """A lost race to create a set is a Conflict (exit 6), not psycopg's UniqueViolation, on both
    databases: the existence check of one writer cannot see the other's uncommitted row."""
    from corpusdb.basics.errors import Conflict

    c = Corpus.create("p", "biorelex-1.0", url=any_url)
    c.add_annotator("alice")
    c.add_documents([Document(f"d{i}", TEXT) for i in range(10)])
    leads = [Corpus.open("p", engine=make_engine(any_url)) for _ in range(2)]
    won: set[int] = set()
    for i in range(10):
        results = _at_once([lambda lead=lead, doc=f"d{i}": lead.create_set(doc, "alice") for lead in leads])
        kinds = sorted(type(r).__name__ for r in results)
        assert kinds == ["Conflict", "SetInfo"], results
        assert next(r for r in results if isinstance(r, Conflict)).exit_code == 6
        won |= {r.id for r in results if not isinstance(r, Conflict)}  # type: ignore[union-attr]
    assert len(won) == 10  # one set per document, each created once
