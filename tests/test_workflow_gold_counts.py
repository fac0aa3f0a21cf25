"""Adjudication that says the truth (issue 22.12), on a real BB 2011 document: one count of what stands
between a document and finished gold, everywhere ("5 open + 11 waiting on a span"); ``--check`` exits
6 when the gold cannot be finished; a bulk take that leaves gold breaking the schema lists what it
left in breach (exit 4); the refusal to finish is said once, with the conflict key to decide.

The scene: alice annotated BTID-10080 as the corpus's reference did; bob typed five host parts as
``Environment``. The relations and the ``Equiv`` cluster on those spans agree, so they wait on them.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.cli.main import main
from importers.standoff import read_document
from tests.conftest import shared_path
from tui.app import build_app
from tui.facade import open_facade
from tui.screens.adjudicate import AdjudicateScreen
from tui.screens.pickers import MessageScreen
from tui.testing import press, run_async, screen_text, settle

Cap = pytest.CaptureFixture[str]
DOC = "BTID-10080"
RETYPED = ("T4", "T9", "T10", "T11", "T18")  # HostPart in the reference; bob says Environment
OPEN = ["span:119-141", "span:727-730", "span:750-757", "span:762-766", "span:1182-1187"]


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


@pytest.fixture
def project(tmp_path: Path) -> tuple[Corpus, list[str]]:
    parsed = read_document(shared_path("data", "bionlp-st-2011-bb-train") / f"{DOC}.txt")
    ref = parsed.annotations
    bob = replace(
        ref, spans=tuple(replace(s, type="Environment") if s.id in RETYPED else s for s in ref.spans)
    )
    db = tmp_path / "c.sqlite"
    c = Corpus.create("bb", "bb-2011", url=f"sqlite:///{db}")
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([parsed.document])
    c.create_set(DOC, "alice", status="submitted", annotations=ref)
    c.create_set(DOC, "bob", status="submitted", annotations=bob)
    return c, ["--db", str(db), "--as", "judy"]


def test_one_count_in_conflicts_queue_and_check(project: tuple[Corpus, list[str]], capsys: Cap) -> None:
    c, base = project
    judy = c.as_user("judy")
    judy.merge()
    [dc] = judy.conflicts(DOC)
    [q] = judy.adjudication_queue()
    check = judy.check_gold(DOC)
    assert [x.key for x in dc.conflicts] == OPEN == list(check.open) and dc.open == q.open == 5
    # the relations and the cluster on the disputed spans need no person: they wait on them
    assert dict(dc.waiting) == dict(check.waiting) and len(dc.waiting) == q.waiting == 11
    assert set(dc.waiting.values()) == set(OPEN)
    assert dc.waiting["relation:PartOf(Host=span:1175-1181,Part=span:1182-1187)"] == "span:1182-1187"
    assert dc.waiting["entity:span:119-141"] == "span:119-141"  # the Equiv cluster: one entity (22.9)
    assert not check.ok
    code, out, _ = run(capsys, *base, "conflicts", DOC)
    assert code == 0 and out.startswith(f"{DOC}: 5 open + 11 waiting on a span (5 conflicts: span 5)")
    code, out, _ = run(capsys, *base, "conflicts", "--counts")
    assert out.splitlines()[1] == f"{DOC}\t2\t5\t5\t11\tin_progress"
    code, out, err = run(capsys, *base, "adjudicate", DOC, "--check")
    assert code == 6  # the README's 6: the state does not allow it (as --finish would refuse)
    assert (
        err
        == f"corpusdb: error: cannot finish the gold of {DOC}: 5 open + 11 waiting on a span: decide {OPEN[0]} first\n"
    )
    lines = out.splitlines()
    assert [ln.split()[1] for ln in lines if ln.startswith("  open ")] == OPEN
    assert len([ln for ln in lines if ln.startswith("  waiting ")]) == 11 and len(lines) == 16
    code, out, _ = run(capsys, *base, "-f", "json", "adjudicate", DOC, "--check")
    got = json.loads(out)
    assert code == 6 and got["open"] == OPEN and len(got["waiting"]) == 11 and got["ok"] is False


@run_async
async def test_the_tui_says_the_same_count(project: tuple[Corpus, list[str]]) -> None:
    """The adjudicate screen's title and its finish check (F) count as `conflicts` does."""
    c, base = project
    app = build_app(open_facade(base[1], "bb", "judy"), start=None)
    async with app.run_test(size=(160, 50), notifications=True) as pilot:
        await settle(pilot)
        app.open_adjudication(DOC)
        await settle(pilot)
        screen = app.screen
        assert isinstance(screen, AdjudicateScreen)
        assert "judy · 5 open + 11 waiting on a span · " in str(screen.sub_title)
        await press(pilot, "S")  # the check: nothing to finish, Enter only closes
        assert isinstance(app.screen, MessageScreen)
        text = screen_text(app)
        assert "5 open + 11 waiting on a span: decide span:119-141 first" in text
        assert "waiting: relation:PartOf(Host=span:1175-1181,Part=span:1182-1187) (on span:1182-1187)" in text
        await press(pilot, "enter")
    assert c.as_user("judy").gold(DOC).info.status == "in_progress"


def test_bulk_take_lists_the_breaches_it_left_and_finish_says_it_once(
    project: tuple[Corpus, list[str]], capsys: Cap
) -> None:
    c, base = project
    assert run(capsys, *base, "adjudicate")[0] == 0
    code, out, err = run(capsys, *base, "adjudicate", "--take", "bob", "--type", "Environment")
    assert code == 4, err  # the decisions are stored, but gold now breaks the schema: said by the exit code
    breaches = [ln for ln in out.splitlines() if ln.startswith("  breach ")]
    assert len(breaches) == 5 and all("Part takes HostPart" in b for b in breaches)
    assert sorted(b.rsplit("(decided on ", 1)[1].rstrip(")") for b in breaches) == sorted(OPEN)
    assert out.splitlines()[-1].endswith(", 5 schema error(s) left")
    assert err.count("\n") == 1 and "5 schema error(s)" in err and "decisions are stored" in err
    assert c.as_user("judy").conflicts(DOC)[0].open == 0  # taken: nothing open, but not finishable
    code, out, err = run(capsys, *base, "adjudicate", DOC, "--finish")
    assert code == 6 and c.as_user("judy").gold(DOC).info.status == "in_progress"
    assert (out + err).count("cannot finish") == 1 and err.count("\n") == 1
    assert "Part takes HostPart" in err and "revise span:" in err and "--ignore-schema" in err
    assert len([ln for ln in out.splitlines() if ln.startswith("  error ")]) == 5
    # revising the five spans (alice's HostPart) clears it; --check then exits 0
    for key in OPEN:
        code, out, err = run(capsys, *base, "adjudicate", DOC, "-k", key, "--take", "alice", "--revise")
        assert code == 0 and "revised decision" in out, err
    code, out, err = run(capsys, *base, "adjudicate", DOC, "--check")
    assert code == 0 and out == f"{DOC}: gold can be finished\n", err
    # a bulk take that breaks nothing exits 0 and lists no breach
    code, out, _ = run(capsys, *base, "-f", "json", "adjudicate", DOC, "--take", "bob", "--all")
    assert code == 0 and json.loads(out)[0]["breaches"] == []


def test_finish_every_document_that_can_be_finished(tmp_path: Path, capsys: Cap) -> None:
    """Issue 22.13: ``adjudicate --finish`` without a document finishes each ready document's gold that
    can be finished, lists the rest with why, and ``status`` counts finished gold. Four real BB 2011
    documents: two agreed on, BTID-10080 disputed (as above), BTID-10086 still being annotated."""
    base_dir = shared_path("data", "bionlp-st-2011-bb-train")
    docs = {n: read_document(base_dir / f"{n}.txt") for n in (DOC, "BTID-10084", "BTID-10085", "BTID-10086")}
    db = tmp_path / "c.sqlite"
    c = Corpus.create("bb", "bb-2011", url=f"sqlite:///{db}")
    for n in ("alice", "bob"):
        c.add_annotator(n)
    c.add_annotator("judy", "adjudicator")
    c.add_documents([p.document for p in docs.values()])
    for name, p in docs.items():
        ref = p.annotations
        bob = ref if name != DOC else replace(ref, spans=tuple(
            replace(s, type="Environment") if s.id in RETYPED else s for s in ref.spans))  # fmt: skip
        c.create_set(name, "alice", status="submitted", annotations=ref)
        c.create_set(
            name, "bob", status="in_progress" if name == "BTID-10086" else "submitted", annotations=bob
        )
    base = ["--db", str(db), "--as", "judy"]
    judy = c.as_user("judy")

    def statuses() -> dict[str, str]:
        return {n: judy.gold(n).info.status for n in docs if n != "BTID-10086" and _has_gold(judy, n)}

    code, out, err = run(capsys, *base, "adjudicate", "--check")  # what --finish would do; writes nothing
    assert code == 6 and statuses() == {}
    assert out.splitlines() == [
        "BTID-10084: can be finished",
        "BTID-10085: can be finished",
        f"{DOC}: not finished: 5 open + 11 waiting on a span: decide {OPEN[0]} first",
        "BTID-10086: not ready: waiting for bob (in_progress)",
        "total: 2 can be finished, 0 finished before, 1 not finished, 1 not ready",
    ]
    assert err == f"corpusdb: error: 1 ready document(s) cannot be finished yet: {DOC} (why: listed above)\n"
    code, out, _ = run(capsys, *base, "adjudicate", "--finish")
    assert (
        code == 6
        and out.splitlines()[-1] == "total: 2 finished now, 0 finished before, 1 not finished, 1 not ready"
    )
    assert statuses() == {"BTID-10084": "submitted", "BTID-10085": "submitted"}  # 10080 has no gold yet
    gold = judy.gold("BTID-10084").annotations  # the agreed items went in as finishing puts them
    assert len(gold.spans) == len(docs["BTID-10084"].annotations.spans)
    code, out, _ = run(capsys, "--db", str(db), "-f", "json", "status")
    rep = json.loads(out)
    assert (rep["documents_with_gold"], rep["documents_gold_finished"]) == (2, 2)
    code, out, _ = run(capsys, "--db", str(db), "status")
    assert "documents ready for adjudication: 3; documents with gold: 2 (2 finished)" in out
    for key in OPEN:  # the disputed one decided: now every ready document can be finished
        assert run(capsys, *base, "adjudicate", DOC, "-k", key, "--take", "alice")[0] == 0
    code, out, err = run(capsys, *base, "-f", "json", "adjudicate", "--finish")
    got = json.loads(out)
    assert code == 0 and [x["document"] for x in got["finished"]] == [DOC] and err == ""
    assert got["already"] == ["BTID-10084", "BTID-10085"] and got["refused"] == []
    assert [x["document"] for x in got["not_ready"]] == ["BTID-10086"]
    assert statuses() == {n: "submitted" for n in (DOC, "BTID-10084", "BTID-10085")}
    code, out, _ = run(capsys, "--db", str(db), "-f", "json", "status")
    assert json.loads(out)["documents_gold_finished"] == 3


def _has_gold(c: Corpus, doc: str) -> bool:
    from corpusdb.basics.errors import NotFound

    try:
        c.gold(doc)
    except NotFound:
        return False
    return True
