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
    bob = replace(ref, spans=tuple(replace(s, type="Environment") if s.id in RETYPED else s for s in ref.spans))
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
    assert dc.waiting["link:Equiv{span:119-141,span:143-146,span:218-228,span:453-456}"] == "span:119-141"
    assert not check.ok
    code, out, _ = run(capsys, *base, "conflicts", DOC)
    assert code == 0 and out.startswith(f"{DOC}: 5 open + 11 waiting on a span (5 conflicts: span 5)")
    code, out, _ = run(capsys, *base, "conflicts", "--counts")
    assert out.splitlines()[1] == f"{DOC}\t2\t5\t5\t11\tin_progress"
    code, out, err = run(capsys, *base, "adjudicate", DOC, "--check")
    assert code == 6  # the README's 6: the state does not allow it (as --finish would refuse)
    assert err == f"corpusdb: error: cannot finish the gold of {DOC}: 5 open + 11 waiting on a span: decide {OPEN[0]} first\n"
    lines = out.splitlines()
    assert [ln.split()[1] for ln in lines if ln.startswith("  open ")] == OPEN
    assert len([ln for ln in lines if ln.startswith("  waiting ")]) == 11 and len(lines) == 16
    code, out, _ = run(capsys, *base, "-f", "json", "adjudicate", DOC, "--check")
    got = json.loads(out)
    assert code == 6 and got["open"] == OPEN and len(got["waiting"]) == 11 and got["ok"] is False


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
    assert "Part takes HostPart" in err and "revise span:" in err and "--force" in err
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
