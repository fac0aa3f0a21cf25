"""Input that could brick a project or escape a folder is refused where it enters, with file and line.

BioRelEx JSON with NaN/Infinity, numbers beyond 64 bits, deep nesting or lone surrogates; document
ids and split names that reach file paths; and releases written all at once or not at all.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, FormatError, InvalidInput
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.cli.main import main
from corpusdb.workflow.release_folder import write_folder

SENTENCE = {
    "id": "s1", "paperid": "1", "url": None, "_line_": 1, "text": "IL-2 binds IL-2Ra.",
    "entities": [
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"IL-2": {"is_mentioned": True, "mentions": [[0, 4]]}}},
    ],
    "interactions": [],
}  # fmt: skip


def _file(tmp_path: Path, name: str, text: str) -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def _good(tmp_path: Path) -> str:
    return json.dumps([SENTENCE, {**SENTENCE, "id": "s2"}], indent=1)


BAD_JSON = {
    "nan": ('"_line_": 1', '"_line_": NaN', "non-standard JSON value 'NaN'"),
    "infinity": ('"_line_": 1', '"_line_": -Infinity', "non-standard JSON value '-Infinity'"),
    "overflow": ('"_line_": 1', '"_line_": 1e999', "non-standard JSON value '1e999'"),
    "huge-int": ('"_line_": 1', '"_line_": 123456789012345678901234567890', "beyond 64 bits"),
    "deep": ('"url": null', '"url": ' + "[" * 100_000 + "]" * 100_000, "nested more than 64 levels deep"),
    "deep-but-parsable": ('"url": null', '"url": ' + "[" * 300 + "]" * 300, "nested more than 64 levels deep"),
    "lone-surrogate": ('"text": "IL-2 binds IL-2Ra."', '"text": "IL-2 binds \\ud800IL-2Ra."', "lone surrogate"),
}  # fmt: skip


@pytest.mark.parametrize("case", sorted(BAD_JSON))
def test_biorelex_unstorable_json_is_refused_with_file_and_line(
    case: str, tmp_path: Path, sqlite_url: str
) -> None:
    old, new, why = BAD_JSON[case]
    raw = _good(tmp_path)
    # the problem sits in the second sentence, on its own line
    head, tail = raw.split('"id": "s2"')
    full = head + '"id": "s2"' + tail.replace(old, new, 1)
    path = _file(tmp_path, "bad.json", full)
    line = full.count("\n", 0, full.index(new, len(head))) + 1
    c = Corpus.create("p", "biorelex-1.0", url=sqlite_url)
    c.add_annotator("cur")
    with pytest.raises(FormatError) as err:
        c.import_biorelex(path, "cur")
    msg = str(err.value)
    assert why in msg and f"{path}:{line}:" in msg, msg
    assert "\n" not in msg.strip() and len(msg) < 400
    # nothing stored, and the project keeps working for everyone
    assert c.documents() == [] and c.status().documents == 0
    c.import_biorelex(_file(tmp_path, "good.json", _good(tmp_path)), "cur")
    assert [d.external_id for d in c.documents()] == ["s1", "s2"]


def test_biorelex_nan_through_the_cli_leaves_the_project_usable(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    db = str(tmp_path / "c.sqlite")
    path = _file(tmp_path, "nan.json", _good(tmp_path).replace('"_line_": 1', '"_line_": NaN', 1))
    assert main(["--db", db, "init", "p", "--schema", "biorelex-1.0"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "import", "biorelex", str(path), "-a", "cur"]) == 4
    err = capsys.readouterr().err
    assert f"{path}:" in err and "NaN" in err
    assert main(["--db", db, "status"]) == 0
    assert main(["--db", db, "export", "biorelex", str(tmp_path / "out.json"), "-a", "cur"]) in (0, 3)


def test_api_refuses_values_that_cannot_be_read_back(sqlite_url: str) -> None:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    with pytest.raises(InvalidInput, match="metadata cannot be stored"):
        c.add_documents([Document("d1", "text", metadata={"score": float("nan")})])
    with pytest.raises(InvalidInput, match="not valid Unicode"):
        c.add_documents([Document("d1", "bad \ud800 text")])
    assert c.documents() == []
    c.add_documents([Document("d1", "some text")])
    for attrs in ({"note": "\ud800"}, {"count": 2**70}):
        span = Span("T1", "Bacterium", ((0, 4),), "some", attributes=attrs)
        with pytest.raises(InvalidInput, match="cannot be stored as JSON"):
            c.create_set("d1", None, kind="gold", annotations=Annotations(spans=(span,)))
    assert c.set_headers() == []


# -- names that reach file paths ---------------------------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [("../../../x", "path separator"), ("..", "not allowed"), ("a" * 300, "at most 200"), ("a\nb", "control"),
     ("", "non-empty"), ("a\\b", "path separator")],
)  # fmt: skip
def test_split_names_and_document_ids_are_checked_where_they_enter(
    name: str, why: str, sqlite_url: str
) -> None:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    with pytest.raises(InvalidInput, match=why):
        c.add_documents([Document(name, "some text")])
    c.add_documents([Document("d1", "some text")])
    with pytest.raises(InvalidInput, match=why):
        c.add_documents([Document("d2", "other text", split=name)])
    with pytest.raises(InvalidInput, match=why):
        c.split(ratios=(1.0,), names=(name,))
    assert [d.external_id for d in c.documents()] == ["d1"] and c.documents()[0].split is None


def test_release_cannot_escape_its_folder(tmp_path: Path, sqlite_url: str) -> None:
    """The issue's case: a split named ../../../x made `release -o` write outside its folder."""
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.add_documents([Document("d1", "Bacillus lives in soil.")])
    gold = Annotations(spans=(Span("T1", "Bacterium", ((0, 8),), "Bacillus"),))
    c.create_set("d1", None, kind="gold", status="submitted", annotations=gold)
    with pytest.raises(InvalidInput):
        c.split(ratios=(1.0,), names=("../../../x",))
    out = tmp_path / "a" / "b" / "rel"
    c.release("v1", outdir=out, agreement=False)
    files = [p for p in tmp_path.rglob("*") if p.is_file() and not p.name.startswith("corpus.sqlite")]
    assert files and all(out in p.parents for p in files)
    assert (out / "manifest.json").exists()
    with pytest.raises(InvalidInput, match="outside its folder"):
        write_folder(tmp_path / "w", {"../escape.txt": b"x"}, "v9")
    assert not (tmp_path / "escape.txt").exists()


def test_long_ids_are_refused_by_both_importers(tmp_path: Path, sqlite_url: str) -> None:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.add_annotator("cur")
    folder = tmp_path / "brat"
    folder.mkdir()
    (folder / "ok.txt").write_text("Bacillus lives in soil.")
    (folder / "ok.a2").write_text("")
    long = "x" * 240
    (folder / f"{long}.txt").write_text("Bacillus lives in soil.")
    (folder / f"{long}.a2").write_text("")
    with pytest.raises(FormatError, match=f"{long}.txt: .*at most 200"):
        c.import_brat(folder, "cur")
    assert c.documents() == []
    data = [SENTENCE, {**SENTENCE, "id": "y" * 300}, {**SENTENCE, "id": "a/b"}]
    path = _file(tmp_path, "ids.json", json.dumps(data, indent=1))
    with pytest.raises(FormatError) as err:
        c.import_biorelex(path, "cur")
    found = " | ".join(str(p) for p in err.value.problems)
    assert "at most 200" in found and "path separator" in found and "ids.json:" in found
    assert c.documents() == []


# -- releases are written whole or not at all ---------------------------------------------------


@pytest.fixture
def released(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.add_documents([Document(f"d{i}", "Bacillus lives in soil.") for i in range(4)])
    for i in range(4):
        c.create_set(f"d{i}", None, kind="gold", status="submitted",
                     annotations=Annotations(spans=(Span("T1", "Bacterium", ((0, 8),), "Bacillus"),)))  # fmt: skip
    return c


def test_a_crash_while_writing_leaves_no_half_written_release(
    released: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "release-v1"
    real = Path.write_bytes
    written: list[Path] = []

    def crash_after_three(self: Path, data: bytes) -> int:
        if len(written) == 3:
            raise OSError(28, "No space left on device")
        written.append(self)
        return real(self, data)

    monkeypatch.setattr(Path, "write_bytes", crash_after_three)
    with pytest.raises(OSError, match="No space left"):
        released.release("v1", outdir=out, agreement=False)
    monkeypatch.undo()
    assert not out.exists()  # no folder that looks like a release
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".release-v1")] == []
    assert released.releases() == []  # its folder could not be written: the release was not stored
    released.release("v1", agreement=False)
    with pytest.raises(Conflict, match="releases export v1 FOLDER"):
        released.release("v1", agreement=False)
    paths = released.export_release("v1", out)
    assert (out / "manifest.json") in paths
    man = json.loads((out / "manifest.json").read_text())
    assert sorted(str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()) == sorted(
        [*man["files"], "manifest.json"]
    )


def test_export_replaces_an_interrupted_copy_but_not_another_release(
    released: Corpus, tmp_path: Path
) -> None:
    released.release("v1", agreement=False)
    released.release("v2", agreement=False)
    out = tmp_path / "v1"
    out.mkdir()
    (out / "release.json").write_text("half")  # an interrupted copy of v1 (an older corpusdb wrote in place)
    released.export_release("v1", out)
    assert json.loads((out / "manifest.json").read_text())["version"] == "v1"
    assert json.loads((out / "release.json").read_text())["version"] == "v1"
    with pytest.raises(Conflict, match="holds release v1"):
        released.export_release("v2", out)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(Conflict, match="already holds other files"):
        released.export_release("v2", mine)
    assert (mine / "notes.txt").read_text() == "keep me"
    released.export_release("v2", out, force=True)
    assert json.loads((out / "manifest.json").read_text())["version"] == "v2"
