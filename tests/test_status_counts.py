"""``Corpus.status`` counts in SQL (issue #26: ``status`` on 20,000 sets within 2x of start-up,
``bench/bench_startup.py``): the grouped queries give what the headers gave, for every role, on a
real SQLite file and on PostgreSQL. The oracle is the former computation, over ``set_headers`` and
``documents``, kept here."""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.services import access


def oracle(c: Corpus) -> dict[str, Any]:
    """What ``status`` computed before, from one header per set and one record per document."""
    docs = c.documents(with_text=False)
    with c._read() as conn:
        headers = access.set_headers(conn, c.project_id, c.actor)
    by_kind: dict[str, Counter[str]] = defaultdict(Counter)
    per_ann: dict[str, Counter[str]] = defaultdict(Counter)
    doc_sets: dict[int, list[str]] = defaultdict(list)
    gold, finished = set(), set()
    for h in headers:
        by_kind[h.kind][h.status] += 1
        if h.kind == "annotation":
            doc_sets[h.document_id].append(h.status)
        if h.kind == "gold":
            gold.add(h.document_id)
            if h.status == "submitted":
                finished.add(h.document_id)
        if h.annotator is not None:
            per_ann[h.annotator][h.status] += 1
    return {
        "documents": len(docs),
        "sets_by_kind_status": {k: dict(v) for k, v in by_kind.items()},
        "per_annotator": {a: dict(v) for a, v in per_ann.items()},
        "documents_ready": sum(1 for s in doc_sets.values() if s and all(x == "submitted" for x in s)),
        "documents_with_gold": len(gold),
        "documents_gold_finished": len(finished),
        "splits": dict(Counter(d.split or "(none)" for d in docs)),
    }


def counts(a: Any) -> dict[str, int]:
    return {s: getattr(a, s) for s in ("assigned", "in_progress", "submitted") if getattr(a, s)}


def seen(c: Corpus) -> dict[str, Any]:
    rep = c.status()
    return {
        "documents": rep.documents,
        "sets_by_kind_status": rep.sets_by_kind_status,
        "per_annotator": {a.name: counts(a) for a in rep.annotators if a.total},
        "documents_ready": rep.documents_ready,
        "documents_with_gold": rep.documents_with_gold,
        "documents_gold_finished": rep.documents_gold_finished,
        "splits": rep.splits,
    }


def build(url: str) -> Corpus:
    """12 documents, three annotators (sets in every status), gold on some (finished on one), a split,
    a skip; a lead and an adjudicator."""
    c = Corpus.create("p", "bb-2011", url=url)
    for name in ("alice", "bob", "carol"):
        c.add_annotator(name)
    c.add_annotator("lena", role="lead")
    c.add_annotator("judy", role="adjudicator")
    text = "Bacillus subtilis lives in soil."
    c.add_documents(Document(f"D{i:02d}", text) for i in range(12))
    c.assign([f"D{i:02d}" for i in range(8)], ["alice", "bob"])
    c.assign(["D08", "D09"], ["carol"])
    ann = Annotations(spans=(Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),))
    for who, docs in (("alice", range(6)), ("bob", range(4)), ("carol", range(8, 9))):
        me = c.as_user(who)
        for i in docs:
            info = me.my_set(f"D{i:02d}").info
            me.replace_set(info.id, ann, expected_version=info.version)
            if i != 5:
                me.submit(info.id)
    c.as_user("bob").skip(c.as_user("bob").my_set("D06").info.id, "not about bacteria")
    judy = c.as_user("judy")
    for d in ("D00", "D01", "D02"):
        judy.merge(d)
    judy.finish_gold("D00")
    c.split(ratios=(0.5, 0.5), names=("train", "test"))
    return c


def check_every_role(c: Corpus) -> None:
    for who in (None, "lena", "judy", "alice", "bob", "carol"):
        me = c if who is None else c.as_user(who)
        assert seen(me) == oracle(me), who
    lead = seen(c)
    assert lead["documents_ready"] == 5 and lead["documents_with_gold"] == 3  # D00-D03, D08; gold D00-D02
    assert lead["documents_gold_finished"] == 1 and set(lead["splits"]) == {"train", "test"}
    assert seen(c.as_user("carol"))["documents"] == 2  # an annotator counts her own documents
    assert [(s.document, s.annotator) for s in c.as_user("bob").status().skipped] == [("D06", "bob")]
    assert c.status().skipped == ()  # bob's set on D06 is not submitted: the lead does not see it yet


def test_status_counts_as_the_headers_did_sqlite(sqlite_url: str) -> None:
    check_every_role(build(sqlite_url))


def test_status_counts_as_the_headers_did_postgres(pg_url: str) -> None:
    check_every_role(build(pg_url))
