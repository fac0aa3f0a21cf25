"""The readers refuse what they cannot keep faithfully, and fuzzed input never gets past them uncaught.

Small cases first (BioRelEx zero-length mentions, cyclic events and out-of-order fragments in
standoff); then hypothesis feeds both readers mutated files through the whole import path into a
real SQLite store: every outcome must be an import or a clean refusal (a ``CorpusError``), and a
refused import must leave the database exactly as it was.
"""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from corpusdb.api import Corpus
from corpusdb.basics.errors import CorpusError, FormatError
from importers.biorelex import read_biorelex
from importers.standoff import find_documents, read_documents

TEXT = "IL-2 binds the IL-2 receptor in T cells."
SENTENCE = {
    "id": "s1", "paperid": "1", "url": None, "_line_": 1, "text": TEXT,
    "entities": [
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"IL-2": {"is_mentioned": True, "mentions": [[0, 4]]}}},
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"IL-2 receptor": {"is_mentioned": True, "mentions": [[15, 28]]}}},
    ],
    "interactions": [{"participants": [0, 1], "type": "bind", "implicit": False, "label": 1}],
}  # fmt: skip


def _standoff(folder: Path, a1: str, name: str = "doc") -> list[object]:
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.txt").write_text(TEXT)
    (folder / f"{name}.ann").write_text(a1)
    return read_documents(find_documents(folder)).problems  # type: ignore[return-value]


def test_biorelex_zero_length_mention_is_refused(tmp_path: Path) -> None:
    bad = json.loads(json.dumps(SENTENCE))
    bad["entities"].append(
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"": {"is_mentioned": True, "mentions": [[5, 5]]}}}
    )  # fmt: skip
    path = tmp_path / "z.json"
    path.write_text(json.dumps([bad], indent=1))
    with pytest.raises(FormatError, match=r"mention \[5, 5\]: .*a mention is not empty"):
        read_biorelex(path)


def test_standoff_cyclic_events_are_refused(tmp_path: Path) -> None:
    ann = (
        "T1\tProtein 0 4\tIL-2\nT2\tBinding 5 10\tbinds\nT3\tRegulation 29 31\tin\n"
        "E1\tBinding:T2 Theme:T1 Theme2:E2\nE2\tRegulation:T3 Theme:E1\nE3\tRegulation:T3 Theme:E3\n"
    )
    problems = [str(p) for p in _standoff(tmp_path / "c", ann)]
    assert any(
        "E1: its arguments lead back to itself (E1 -> E2 -> E1)" in p and ".ann:4:" in p for p in problems
    )
    assert any("E2:" in p and ".ann:5:" in p for p in problems)
    assert any("E3: its arguments lead back to itself (E3 -> E3)" in p for p in problems)
    # a chain that ends is fine
    ok = "T1\tProtein 0 4\tIL-2\nT2\tBinding 5 10\tbinds\nE1\tBinding:T2 Theme:T1\nE2\tBinding:T2 Theme:E1\n"
    assert _standoff(tmp_path / "ok", ok) == []


def test_standoff_out_of_order_fragments_warn_and_round_trip(tmp_path: Path) -> None:
    ann = "T1\tProtein 15 19;0 4\tIL-2 IL-2\n"
    folder = tmp_path / "o"
    assert _standoff(folder, ann) == []  # not an error: brat displays such spans
    [doc] = read_documents(find_documents(folder)).documents
    assert len(doc.warnings) == 1 and "out of text order" in doc.warnings[0] and ".ann:1:" in doc.warnings[0]
    assert doc.annotations.spans[0].fragments == ((15, 19), (0, 4))  # kept as written


# -- fuzzing both readers through the import path -----------------------------------------------


def _snapshot(db: Path) -> list[tuple[str, list[tuple[object, ...]]]]:
    """Every row of every table (the database as a user could observe it)."""
    with sqlite3.connect(db) as conn:
        tables = [
            r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type='table' ORDER BY name")
        ]
        return [(t, sorted(conn.execute(f'SELECT * FROM "{t}"').fetchall(), key=repr)) for t in tables]


def _mutate(data: str, edits: list[tuple[int, int, str]]) -> str:
    for pos, cut, insert in edits:
        at = pos % (len(data) + 1)
        data = data[:at] + insert + data[at + cut :]
    return data


_TOKENS = st.sampled_from(
    ["NaN", "Infinity", "-1", "1e999", "99999999999999999999", "\\ud800", '"', "[", "]", "{", "}", ",", ":",
     "null", "true", "0", "\t", "\n", "\r\n", ";", " ", "T1", "E1", "R1", "Theme:", "\x00", "\ufeff", "é",
     "#1\tAnnotatorNotes T1\tnote", "*\tEquiv T1 T9", "A1\tNegation T1", "../", "a" * 250, "9" * 5000]
)  # fmt: skip
_EDITS = st.lists(
    st.tuples(st.integers(0, 10_000), st.integers(0, 6), _TOKENS | st.text(max_size=4)), max_size=4
)


@pytest.fixture(scope="module")
def fuzz_db(tmp_path_factory: pytest.TempPathFactory, _sqlite_template: Path) -> tuple[Corpus, Path]:
    import shutil

    base = tmp_path_factory.mktemp("fuzz")
    db = base / "fuzz.sqlite"
    shutil.copy(_sqlite_template, db)
    c = Corpus.create("fuzz", "biorelex-1.0", url=f"sqlite:///{db}")
    c.add_annotator("cur")
    return c, base


def _import_or_refuse(c: Corpus, db: Path, do) -> None:  # type: ignore[no-untyped-def]
    before = _snapshot(db)
    try:
        do()
    except CorpusError:
        assert _snapshot(db) == before, "a refused import changed the database"
        return
    # imported: the project still reads back whole
    c.status()
    for d in c.documents():
        assert isinstance(d.text, str)
    for s in c.set_headers():
        if s.status == "submitted":
            c.read_set(s.id)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_EDITS, n=st.integers(0, 10**6))
def test_fuzzed_biorelex_never_escapes_uncaught(fuzz_db: tuple[Corpus, Path], edits, n: int) -> None:  # type: ignore[no-untyped-def]
    c, base = fuzz_db
    raw = _mutate(json.dumps([{**SENTENCE, "id": f"s{n}"}, {**SENTENCE, "id": f"t{n}"}], indent=1), edits)
    path = base / "in.json"
    path.write_text(raw, encoding="utf-8", errors="surrogatepass")
    _import_or_refuse(c, base / "fuzz.sqlite", lambda: c.import_biorelex(path, "cur", allow_unknown=True))


STANDOFF = (
    "T1\tProtein 0 4\tIL-2\nT2\tBinding 5 10\tbinds\nT3\tProtein 15 28\tIL-2 receptor\n"
    "T4\tProtein 15 19;29 31\tIL-2 in\nE1\tBinding:T2 Theme:T1 Theme2:T3\nR1\tEquiv Arg1:T1 Arg2:T3\n"
    "*\tEquiv T1 T4\nA1\tNegation E1\nN1\tReference T1 Uniprot:P60568\tIL2\n#1\tAnnotatorNotes T1\tchecked\n"
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(edits=_EDITS, text_edits=st.lists(st.tuples(st.integers(0, 100), st.integers(0, 3), _TOKENS), max_size=1),
       n=st.integers(0, 10**6))  # fmt: skip
def test_fuzzed_standoff_never_escapes_uncaught(
    fuzz_db: tuple[Corpus, Path], edits, text_edits, n: int
) -> None:  # type: ignore[no-untyped-def]
    c, base = fuzz_db
    folder = base / f"brat{n}"
    folder.mkdir(exist_ok=True)
    (folder / f"d{n}.txt").write_text(_mutate(TEXT, text_edits), encoding="utf-8", errors="surrogatepass")
    (folder / f"d{n}.ann").write_text(_mutate(STANDOFF, edits), encoding="utf-8", errors="surrogatepass")
    _import_or_refuse(
        c,
        base / "fuzz.sqlite",
        lambda: c.import_brat(folder, "cur", allow_unknown=True, force=True, replace=True),
    )
