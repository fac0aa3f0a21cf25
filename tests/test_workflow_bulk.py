"""Bulk adjudication and the listing/summary text of the workflow commands, against a real SQLite file.

The scene (BB 2011 types): alice and bob annotated the same sentence on two documents. They agree on
the bacterium; they dispute the type of "soil" (Environment vs Soil); only alice marked "gut", only
bob marked "chickens" and a Localization to it (which depends on "chickens" entering gold first).
"""

from __future__ import annotations

import json

import pytest
from sqlalchemy import create_engine, text

from corpusdb.api import Corpus
from corpusdb.basics.errors import UsageError
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]
TEXT = "Bacillus subtilis lives in soil and in the gut of chickens."
REL_SOIL = "relation:Localization(Bacterium=span:0-17,Localization=span:27-31)"
REL_CHICKENS = "relation:Localization(Bacterium=span:0-17,Localization=span:50-58)"


def _loc(rid: str, arg: str) -> Relation:
    return Relation(rid, "Localization", (Argument("Bacterium", "T1"), Argument("Localization", arg)))


ALICE = Annotations(
    (Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"), Span("T2", "Environment", ((27, 31),), "soil"),
     Span("T3", "HostPart", ((43, 46),), "gut")),
    (_loc("R1", "T2"),),
)  # fmt: skip
BOB = Annotations(
    (Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"), Span("T2", "Soil", ((27, 31),), "soil"),
     Span("T4", "Host", ((50, 58),), "chickens")),
    (_loc("R1", "T2"), _loc("R2", "T4")),
)  # fmt: skip


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


@pytest.fixture
def project(sqlite_url: str) -> tuple[Corpus, list[str]]:
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("d1", TEXT), Document("d2", TEXT), Document("d3", TEXT)])
    c.assign(["d1", "d2", "d3"], ["alice", "bob"])
    for who, ann in (("alice", ALICE), ("bob", BOB)):
        me = c.as_user(who)
        for d in ("d1", "d2", "d3"):
            s = me.my_set(d).info
            me.replace_set(s.id, ann, expected_version=s.version)
            if not (d == "d3" and who == "bob"):
                me.submit(s.id)
    c.merge()
    return c, ["--db", sqlite_url.removeprefix("sqlite:///"), "--as", "judy"]


def _decisions(url: str, doc: str) -> list[tuple[str, str, str, list[dict[str, object]], str | None, str]]:
    """(kind, gold id, method, sources, reason, decided by) straight from the database, in order."""
    eng = create_engine(url)
    with eng.connect() as conn:
        rows = conn.execute(text(
            "SELECT d.item_kind, d.item_local_id, d.method, d.sources, d.reason, a.name FROM decision d "
            "JOIN annotation_set s ON s.id = d.gold_set_id JOIN document doc ON doc.id = s.document_id "
            "LEFT JOIN annotator a ON a.id = d.decided_by_id WHERE doc.external_id = :doc ORDER BY d.id"
        ), {"doc": doc}).all()  # fmt: skip
    eng.dispose()
    return [(r[0], r[1], r[2], json.loads(r[3]) if isinstance(r[3], str) else r[3], r[4], r[5]) for r in rows]


def test_take_one_annotator_for_a_whole_document(project: tuple[Corpus, list[str]], sqlite_url: str,
                                                 capsys: Cap) -> None:  # fmt: skip
    c, base = project
    before = len(_decisions(sqlite_url, "d1"))
    code, out, err = run(
        capsys, *base, "adjudicate", "d1", "--take", "alice", "--all", "-r", "alice is senior"
    )
    assert code == 0, err
    assert (
        "d1: took alice's version of 2, not taken 2 (alice has nothing there), 1 followed, 0 skipped, 0 open"
        in out
    )
    new = _decisions(sqlite_url, "d1")[before:]
    by_kind = [(k, item, m) for k, item, m, *_ in new]
    # soil (Environment, alice's type) and gut taken; chickens and bob's relation to it refused;
    # the agreed relation to soil followed its argument into gold
    assert [x for x in by_kind if x[2] == "adjudicated"] == [
        ("span", "T2", "adjudicated"), ("span", "T3", "adjudicated"), ("span", "", "adjudicated"),
        ("relation", "", "adjudicated"),
    ]  # fmt: skip
    assert [x for x in by_kind if x[2] != "adjudicated"] == [("relation", "R1", "unanimous")]
    for kind, item, method, sources, reason, who in new:
        if method != "adjudicated":
            continue
        assert reason == "alice is senior" and who == "judy"
        names = {s.get("annotator") for s in sources}
        assert names == ({"alice"} if item else {"alice", "bob"}), (kind, item, sources)
        if not item:  # a refusal names bob's item and alice's absence
            assert any(s.get("local_id") == "" and s.get("annotator") == "alice" for s in sources)
    gold = c.gold("d1")
    assert gold.info.status == "in_progress"  # every conflict decided; finishing is the adjudicator's step
    assert {(s.type, s.text) for s in gold.annotations.spans} == {
        ("Bacterium", "Bacillus subtilis"), ("Environment", "soil"), ("HostPart", "gut")
    }  # fmt: skip
    assert [r.args[1].ref for r in gold.annotations.relations] == ["T2"]
    # nothing left: a second run decides nothing and says so
    code, out, _ = run(capsys, *base, "-f", "json", "adjudicate", "d1", "--take", "alice", "--all")
    assert code == 0 and json.loads(out)[0]["taken"] == 0 and json.loads(out)[0]["open"] == 0
    assert len(_decisions(sqlite_url, "d1")) == before + 5
    assert c.finish_gold("d1").finished and c.gold("d1").info.status == "submitted"
    code, _, err = run(capsys, *base, "adjudicate", "d1", "--take", "alice", "--all")
    assert code == 6 and "finished" in err  # frozen: bulk decisions do not touch it


def test_take_by_type_and_blocked_relations_are_listed_with_why(
    project: tuple[Corpus, list[str]], sqlite_url: str, capsys: Cap
) -> None:
    c, base = project
    before = len(_decisions(sqlite_url, "d2"))
    code, out, err = run(capsys, *base, "adjudicate", "d2", "--take", "bob", "--type", "Localization")
    assert code == 0, err
    # bob's relation to "chickens" cannot enter gold: "chickens" is still undecided
    assert f"skipped {REL_CHICKENS}: argument Localization (span:50-58) has no gold item yet" in out
    assert "took bob's version of 0, not taken 0" in out
    assert _decisions(sqlite_url, "d2")[before:] == []  # nothing decided, nothing written
    # take bob's "Soil" type only: one decision, with bob as its source and the default reason
    code, out, err = run(capsys, *base, "-f", "json", "adjudicate", "d2", "--take", "bob", "--type", "Soil")
    assert code == 0, err
    [res] = json.loads(out)
    assert (res["taken"], res["refused"], res["followed"], res["skipped"]) == (1, 0, 1, [])
    new = _decisions(sqlite_url, "d2")[before:]
    assert [(k, i, m) for k, i, m, *_ in new] == [
        ("span", "T2", "adjudicated"),
        ("relation", "R1", "unanimous"),
    ]
    assert (
        new[0][3][0]["annotator"] == "bob"
        and new[0][4] == "bulk: took bob's version of every open Soil conflict"
    )
    assert {s.type for s in c.gold("d2").annotations.spans} == {"Bacterium", "Soil"}
    # now chickens, then the relation to it: the blocked relation goes through
    run(capsys, *base, "adjudicate", "d2", "--take", "bob", "--type", "Host")
    code, out, _ = run(
        capsys, *base, "-f", "json", "adjudicate", "d2", "--take", "bob", "--type", "Localization"
    )
    assert json.loads(out)[0]["taken"] == 1
    assert len(c.gold("d2").annotations.relations) == 2
    # an unknown type or source is a clear one-line error
    code, _, err = run(capsys, *base, "adjudicate", "d2", "--take", "bob", "--type", "Protein")
    assert code == 3 and "no item of type 'Protein'" in err and len(err.strip().splitlines()) == 1
    code, _, err = run(capsys, *base, "adjudicate", "d2", "--take", "carol", "--all")
    assert code == 3 and "not a source" in err
    code, _, err = run(capsys, *base, "adjudicate", "d2", "--all")
    assert code == 2 and "--take" in err


def test_bulk_over_every_ready_document_is_one_transaction_each(
    project: tuple[Corpus, list[str]], capsys: Cap
) -> None:
    c, base = project
    code, out, err = run(capsys, *base, "adjudicate", "--take", "alice", "--all")
    assert code == 0, err
    lines = out.strip().splitlines()
    assert [ln.split(":")[0] for ln in lines[:-1]] == ["d1", "d2"]  # d3 is not ready (bob has not submitted)
    assert lines[-1] == "total: 2 documents, 4 taken, 4 not taken, 0 skipped, 0 open"
    assert [q.open for q in c.adjudication_queue()] == [0, 0]
    # a type no ready document has is a clear error, not an empty success
    code, _, err = run(capsys, *base, "adjudicate", "--take", "alice", "--type", "Water")
    assert code == 3 and "no item of type 'Water'" in err


def test_sets_listing_and_table_headers_and_totals(project: tuple[Corpus, list[str]], capsys: Cap) -> None:
    _, base = project
    owner = base[:2]
    code, out, _ = run(capsys, *owner, "sets", "--annotator", "bob")
    lines = out.strip().splitlines()
    assert lines[0].split("\t") == ["set", "document", "annotator", "kind", "status", "version", "updated"]
    rows = [ln.split("\t") for ln in lines[1:-1]]
    assert [(r[1], r[2], r[4]) for r in rows] == [
        ("d1", "bob", "submitted"), ("d2", "bob", "submitted"), ("d3", "bob", "in_progress")
    ]  # fmt: skip
    assert lines[-1] == "total: 3 sets on 3 documents (in_progress 1, submitted 2)"
    # the ids are the ones `reopen` takes
    sid = rows[0][0]
    assert run(capsys, *owner, "reopen", sid, "-r", "missed one")[0] == 0
    code, out, _ = run(
        capsys, *owner, "-f", "json", "sets", "d1", "--status", "in_progress", "--kind", "annotation"
    )
    assert [(r["id"], r["annotator"]) for r in json.loads(out)] == [(int(sid), "bob")]
    code, _, err = run(capsys, *owner, "sets", "--status", "done")
    assert code == 2 and "unknown status" in err
    # conflicts --counts, decisions and conflicts have headers and totals; blocked says why
    code, out, _ = run(capsys, *base, "conflicts", "--counts")
    lines = out.strip().splitlines()
    assert lines[0].split("\t") == ["document", "sets", "conflicts", "open", "waiting", "gold"]
    # d1 was reopened: not ready any more; on d2 the agreed Localization to soil waits on its span
    assert lines[1:-1] == ["d2\t2\t4\t4\t1\tin_progress"]
    assert lines[-1] == "total: 1 documents, 4 conflicts, 4 open + 1 waiting on them"
    code, out, _ = run(capsys, *base, "conflicts", "d2")
    assert f"{REL_CHICKENS}  [presence] blocked: span:50-58 has no gold item yet" in out
    code, out, _ = run(capsys, *base, "decisions", "d2")
    lines = out.strip().splitlines()
    assert lines[0].split("\t")[:3] == ["document", "item", "method"]
    assert lines[-1] == "total: 1 decisions on 1 documents (unanimous 1)"
    code, out, _ = run(capsys, *owner, "status")
    assert "total (3)" in out


def test_resolve_bulk_through_the_api_on_both_databases(any_url: str) -> None:
    """The API call the CLI wraps: decisions and their provenance, on SQLite and PostgreSQL."""
    c = Corpus.create("bb", "bb-2011", url=any_url)
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([Document("d1", TEXT)])
    c.assign(["d1"], ["alice", "bob"])
    for who, ann in (("alice", ALICE), ("bob", BOB)):
        me = c.as_user(who)
        s = me.my_set("d1").info
        me.replace_set(s.id, ann, expected_version=s.version)
        me.submit(s.id)
    judy = c.as_user("judy")
    [res] = judy.resolve_bulk("d1", take="bob", reason="bob re-read the paper")
    assert (res.taken, res.refused, res.followed, res.skipped, res.open) == (3, 1, 2, (), 0)
    decided = {d.id: d for d in judy.decisions("d1")}
    assert set(res.decision_ids) <= set(decided)
    mine = [decided[i] for i in res.decision_ids if decided[i].method == "adjudicated"]
    assert len(mine) == 4 and all(
        d.reason == "bob re-read the paper" and d.decided_by == "judy" for d in mine
    )
    assert {d.item_id for d in mine} == {"T2", "T3", "R1", ""}  # soil, chickens, its relation; gut refused
    assert [r.args[1].ref for r in judy.gold("d1").annotations.relations] == ["T3", "T2"]  # R2 followed
    gold = judy.gold("d1").annotations
    assert sorted(s.type for s in gold.spans) == ["Bacterium", "Host", "Soil"]
    with pytest.raises(UsageError, match="whole source"):
        judy.resolve_bulk("d1", take="bob:T2")
