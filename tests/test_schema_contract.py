"""The schema is a contract: imports refuse names it does not define (unless --allow-unknown), sets
imported as submitted pass the submit check, and `submit --check` exits 4 with violations on stderr."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError
from corpusdb.basics.records import Annotations, Argument, Document, Relation, Span
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]
TEXT = "Bacillus subtilis lives in soil."
GOOD = "T1\tBacterium 0 17\tBacillus subtilis\nT2\tSoil 27 31\tsoil\nE1\tLocalization Bacterium:T1 Localization:T2\n"
# a GENIA type in a Bacteria Biotope project
UNKNOWN = "T1\tProtein 0 17\tBacillus subtilis\nT2\tSoil 27 31\tsoil\n"
# known types, but the Bacterium argument is a Soil span: the submit check refuses it
WRONG_ARG = "T1\tBacterium 0 17\tBacillus subtilis\nT2\tSoil 27 31\tsoil\nE1\tLocalization Bacterium:T2 Localization:T1\n"


def _folder(tmp_path: Path, **docs: str) -> Path:
    folder = tmp_path / "in"
    folder.mkdir()
    for name, a2 in docs.items():
        (folder / f"{name}.txt").write_text(TEXT)
        (folder / f"{name}.a2").write_text(a2)
    return folder


def _project(tmp_path: Path) -> list[str]:
    db = str(tmp_path / "c.sqlite")
    assert main(["--db", db, "init", "bb", "--schema", "bb-2011"]) == 0
    return ["--db", db]


def test_unknown_types_are_refused_unless_allowed(tmp_path: Path, capsys: Cap) -> None:
    base = _project(tmp_path)
    folder = _folder(tmp_path, good=GOOD, odd=UNKNOWN)
    capsys.readouterr()
    assert main([*base, "import", "brat", str(folder), "-a", "alice"]) == 4
    err = capsys.readouterr().err
    # the .a2 line of the first such span, not the .txt (issue #22.16), and the hint once
    assert (
        f"{folder / 'odd.a2'}:1: error: document odd: 1 span(s) of type 'Protein': not an entity type" in err
    )
    assert "'Protein': not an entity type of schema bb-2011" in err and "odd.txt" not in err
    assert err.count("--allow-unknown") == 1 and "1 entity type is not in schema bb-2011: Protein" in err
    c = Corpus.open(url=f"sqlite:///{base[1]}")
    assert c.documents() == []  # all or nothing
    assert main([*base, "import", "brat", str(folder), "-a", "alice", "--allow-unknown"]) == 0
    captured = capsys.readouterr()
    assert "stored as they are" in captured.err
    assert sorted(d.external_id for d in c.documents()) == ["good", "odd"]


def test_lenient_import_keeps_the_documents_that_fit(tmp_path: Path, sqlite_url: str) -> None:
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    rep = c.import_brat(_folder(tmp_path, good=GOOD, odd=UNKNOWN), "alice", lenient=True)
    assert [d.external_id for d in c.documents()] == ["good"]
    assert any("Protein" in str(p) for p in rep.problems)


def test_genia_into_a_bacteria_biotope_project_is_refused(tmp_path: Path, shared_data: Path) -> None:
    """The issue's case: GENIA in a bb-2011 project used to exit 0 with "stored as they are"."""
    url = f"sqlite:///{tmp_path / 'c.sqlite'}"
    c = Corpus.create("bb", "bb-2011", url=url)
    genia = shared_data / "bionlp-st-2011-ge"
    one = sorted(genia.rglob("*.txt"))[0]
    with pytest.raises(FormatError, match="not an entity type of schema bb-2011"):
        c.import_brat(one, kind="gold")
    assert c.documents() == []


def test_sets_imported_as_submitted_pass_the_submit_check(tmp_path: Path, capsys: Cap) -> None:
    base = _project(tmp_path)
    folder = _folder(tmp_path, good=GOOD, wrong=WRONG_ARG)
    capsys.readouterr()
    assert main([*base, "import", "brat", str(folder), "-a", "alice"]) == 4
    err = capsys.readouterr().err
    assert f"{folder / 'wrong.a2'}:3: error: document wrong: relation E1: " in err, err
    assert all(line.count("error:") <= 1 for line in err.splitlines()), err  # never "error: ... error:"
    assert "argument-type" not in err and "wrong.txt" not in err
    assert err.count("--status in_progress") == 1  # said once, not on every line
    c = Corpus.open(url=f"sqlite:///{base[1]}")
    assert c.documents() == []
    # stored for correction instead: not submitted, so the annotator fixes it and submits
    assert main([*base, "import", "brat", str(folder), "-a", "alice", "--status", "in_progress"]) == 0
    assert {s.document_external_id: s.status for s in c.set_headers()} == {
        "good": "in_progress",
        "wrong": "in_progress",
    }
    # gold and predictions are not submitted by anyone: stored as they are
    assert main([*base, "import", "brat", str(folder), "-a", "tagger", "--kind", "prediction"]) == 0


def test_submit_check_exits_4_with_violations_on_stderr(sqlite_url: str, capsys: Cap) -> None:
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.add_annotator("alice")
    c.add_documents([Document("d1", TEXT), Document("d2", TEXT)])
    spans = (
        Span("T1", "Bacterium", ((0, 17),), "Bacillus subtilis"),
        Span("T2", "Soil", ((27, 31),), "soil"),
    )
    bad = Relation(
        "E1", "Localization", (Argument("Bacterium", "T2"), Argument("Localization", "T1")), kind="event"
    )
    wrong = c.create_set("d1", "alice", annotations=Annotations(spans=spans, relations=(bad,)))
    fine = c.create_set("d2", "alice", annotations=Annotations(spans=spans))
    base = ["--db", sqlite_url.removeprefix("sqlite:///"), "--as", "alice"]
    capsys.readouterr()
    assert main([*base, "submit", "--check", str(wrong.id)]) == 4
    cap = capsys.readouterr()
    assert "relation E1" in cap.err and "relation E1" not in cap.out
    assert main([*base, "submit", "--check", str(fine.id)]) == 0
    assert "no violations" in capsys.readouterr().out
    assert [s.status for s in c.set_headers(document="d1")] == ["assigned"]  # --check only looks


# -- a corpus in the wrong project (issue #22.16) --------------------------------------------------

FIXTURE_BB = Path(__file__).resolve().parent / "fixtures" / "standoff" / "bb2011"


def _wrong_schema_lines(folder: Path, tmp_path: Path, capsys: Cap) -> list[str]:
    db = str(tmp_path / "w.sqlite")
    assert main(["--db", db, "init", "bx", "--schema", "biorelex-1.0"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "import", "brat", str(folder), "-a", "cur"]) == 4
    lines = capsys.readouterr().err.splitlines()
    assert Corpus.open(url=f"sqlite:///{db}").documents() == []  # all or nothing
    assert all(line.count("error:") <= 1 for line in lines), lines  # never "error: ... error:"
    assert sum("--allow-unknown" in line for line in lines) == 1  # the hint once, not on every line
    return lines


def _check_places(lines: list[str]) -> None:
    """Every per-document line names the .a2 and the line of the first item it speaks of."""
    for line in lines:
        where, _, rest = line.partition(": error: ")
        file, _, n = where.rpartition(":")
        assert file.endswith(".a2"), line  # not the .txt
        item = rest.rpartition("(first: ")[2].rstrip(")")
        text = Path(file).read_text(encoding="utf-8").split("\n")[int(n) - 1]
        assert text.startswith(f"{item}\t") or (item.startswith("*") and text.startswith("*\t")), (line, text)


def test_a_corpus_in_the_wrong_schema_is_said_once(tmp_path: Path, capsys: Cap) -> None:
    """BB 2011 (the fixture, as 12 documents) into a biorelex-1.0 project: one line says what is wrong
    and asks whether this is the right project; then the first 20 per-document lines with file and line,
    and a count of the rest (it used to be 6 lines per document, each naming the .txt, each with the hint)."""
    folder = tmp_path / "bb"
    folder.mkdir()
    for i in range(1, 13):
        for ext in ("txt", "a2"):
            (folder / f"BTID-{i}.{ext}").write_bytes((FIXTURE_BB / f"BTID-1.{ext}").read_bytes())
    lines = _wrong_schema_lines(folder, tmp_path, capsys)
    assert lines[0] == (
        "corpusdb: error: 3 entity types, 2 relation types and 1 link type are not in schema biorelex-1.0: "
        "Bacterium, Host, HostPart, Localization, PartOf, Equiv; is this the right project? (amend the schema, "
        "or import with --allow-unknown to store them as they are)"
    )
    first = folder / "BTID-1.a2"
    assert lines[1:7] == [
        f"{first}:1: error: document BTID-1: 2 span(s) of type 'Bacterium': not an entity type of schema "
        "biorelex-1.0 (first: T1)",
        f"{first}:2: error: document BTID-1: 2 span(s) of type 'Host': not an entity type of schema "
        "biorelex-1.0 (first: T2)",
        f"{first}:3: error: document BTID-1: 2 span(s) of type 'HostPart': not an entity type of schema "
        "biorelex-1.0 (first: T3)",
        f"{first}:7: error: document BTID-1: 2 relation(s)/event(s) of type 'Localization': not a relation "
        "type of schema biorelex-1.0 (first: E1)",
        f"{first}:8: error: document BTID-1: 2 relation(s)/event(s) of type 'PartOf': not a relation type of "
        "schema biorelex-1.0 (first: E2)",
        f"{first}:11: error: document BTID-1: 2 link(s) of type 'Equiv': not a link type of schema "
        "biorelex-1.0 (first: *1.1)",
    ]
    _check_places(lines[1:21])
    assert lines[21:] == [
        "... and 52 more like these (one per document and name)",
        "corpusdb: error: import rejected, nothing was stored: 72 errors in 12 files (summed up above)",
    ]


def test_bb_2011_into_a_biorelex_project(tmp_path: Path, capsys: Cap, shared_data: Path) -> None:
    """The issue's case on the real corpus: 443 lines became 23."""
    lines = _wrong_schema_lines(shared_data / "bionlp-st-2011-bb-train", tmp_path, capsys)
    assert lines[0].startswith(
        "corpusdb: error: 9 entity types, 2 relation types and 1 link type are not in schema biorelex-1.0: "
        "Bacterium, Host, HostPart, "
    ) and lines[0].endswith("is this the right project? (amend the schema, or import with --allow-unknown "
                            "to store them as they are)")  # fmt: skip
    _check_places(lines[1:21])
    assert lines[21:] == [
        "... and 423 more like these (one per document and name)",
        "corpusdb: error: import rejected, nothing was stored: 443 errors in 65 files (summed up above)",
    ]


def test_one_file_formats_name_the_line_of_the_document(tmp_path: Path, sqlite_url: str) -> None:
    """A doccano line whose labels the schema does not define: the file and the line, not "(document 18)"."""
    import json

    rows = [{"id": 17, "text": TEXT, "entities": [{"id": 1, "label": "Bacterium", "start_offset": 0,
                                                   "end_offset": 17}]},
            {"id": 18, "text": TEXT, "label": [[0, 8, "ORG"]]}]  # fmt: skip
    path = tmp_path / "d.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    with pytest.raises(FormatError) as err:
        c.import_file(path, "doccano", "alice")
    [p] = err.value.problems
    assert (p.file, p.line) == (str(path), 2) and p.message.startswith("document 18: 1 span(s) of type 'ORG'")
    assert "1 entity type is not in schema bb-2011: ORG; is this the right project?" in str(err.value)
