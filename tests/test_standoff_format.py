"""brat/BioNLP standoff reader and writer on small fixture files (no ../shared needed).

Why: every line type, discontinuous and non-BMP offsets, CRLF, BOM and every refusal must be pinned
down on files we control; the real corpora are checked in test_standoff_corpora.py.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest

from corpusdb.basics.errors import FormatError, InvalidInput
from corpusdb.basics.records import Annotations, Argument, DocLabel, Grounding, Link, Note, Relation, Span
from importers.standoff import (
    format_annotations,
    read_directory,
    read_directory_lenient,
    read_document,
    write_document,
)
from tests.conftest import FIXTURES

FIX = FIXTURES / "standoff"
EVERY = FIX / "every_line" / "every-line.txt"


def _roundtrip(src_dir: Path, out: Path, *, keep_unknown: bool = False) -> None:
    """Read every document of ``src_dir``, write it to ``out`` and compare every file's bytes."""
    docs = read_directory(src_dir, keep_unknown=keep_unknown)
    assert docs
    for parsed in docs:
        written = write_document(parsed.document, parsed.annotations, out)
        for path in written:
            assert path.read_bytes() == (src_dir / path.name).read_bytes(), path.name
    assert sorted(p.name for p in out.iterdir()) == sorted(p.name for p in src_dir.iterdir())


def _json_default(o: Any) -> Any:
    if isinstance(o, Mapping):
        return dict(o)
    raise TypeError(type(o))


def _problems(err: pytest.ExceptionInfo[FormatError]) -> list[tuple[str, int | None, str]]:
    return [(Path(p.file).name, p.line, p.message) for p in err.value.problems if p.severity == "error"]


# --------------------------------------------------------------------------------------------
# every line type
# --------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def every() -> tuple[Any, Annotations]:
    parsed = read_document(EVERY)
    return parsed, parsed.annotations


def test_document_fields(every: tuple[Any, Annotations]) -> None:
    parsed, _ = every
    assert parsed.document.external_id == "every-line"
    assert parsed.document.source == "every_line/every-line.txt"
    assert parsed.document.text == EVERY.read_text(encoding="utf-8")
    assert not parsed.document.text.endswith("\n")
    assert parsed.warnings == ()


def test_spans_fragments_and_code_points(every: tuple[Any, Annotations]) -> None:
    parsed, ann = every
    text = parsed.document.text
    assert len(ann.spans) == 11
    for s in ann.spans:
        assert s.text == " ".join(text[a:b] for a, b in s.fragments)
    # "T cells" comes after U+1D6FC and U+1F642, each one code point (two UTF-16 units, four bytes)
    t4 = ann.span("T4")
    assert t4.fragments == ((31, 38),)
    assert text[31:38] == "T cells"
    assert ann.span("T3").text == "\U0001d6fc receptor"
    t10 = ann.span("T10")
    assert t10.fragments == ((109, 114), (115, 118), (118, 121))
    assert t10.text == "human kin ase"
    assert ann.span("T11").fragments == ((40, 42), (49, 50))
    assert ann.span("T1").extra == {"file": "ann", "line": 1}
    assert ann.span("T10").extra == {"file": "ann", "line": 10}


def test_events_and_relations(every: tuple[Any, Annotations]) -> None:
    _, ann = every
    rel = {r.id: r for r in ann.relations}
    e1 = rel["E1"]
    assert (e1.kind, e1.type, e1.trigger) == ("event", "Binding", "T2")
    assert e1.args == (Argument("Theme", "T1"), Argument("Theme2", "T3"))
    assert rel["E4"].args == (Argument("Theme", "E3"), Argument("Cause", "T10"))
    e5 = rel["E5"]
    assert (e5.kind, e5.trigger, e5.args) == ("event", "T9", ())
    assert e5.extra["ws"] == "Phosphorylation:T9 "
    r1 = rel["R1"]
    assert (r1.kind, r1.type, r1.trigger) == ("relation", "Part-of", None)
    assert r1.args == (Argument("Arg1", "T3"), Argument("Arg2", "T4"))
    assert r1.extra["tail"] == ""
    assert rel["R2"].args == (Argument("Cell", "T4"), Argument("Protein", "T1"))


def test_attributes_a_and_m(every: tuple[Any, Annotations]) -> None:
    _, ann = every
    rel = {r.id: r for r in ann.relations}
    assert rel["E2"].attributes == {"Negation": True}
    assert rel["E1"].attributes == {"Confidence": "Likely"}
    assert rel["E4"].attributes == {"Speculation": True}
    assert rel["E3"].attributes == {"Certainty": "High"}
    assert rel["E4"].extra["attrs"]["Speculation"]["id"] == "M1"
    assert rel["E2"].extra["attrs"]["Negation"]["id"] == "A1"
    assert ann.span("T8").attributes == {"Mutant": True}


def test_groundings_links_notes(every: tuple[Any, Annotations]) -> None:
    _, ann = every
    assert ann.span("T5").groundings == (
        Grounding(
            ref="Wikipedia:64488",
            text="NF-kappa B",
            source_id="N1",
            kind="Reference",
            extra={"file": "ann", "line": 24},
        ),
    )
    g = ann.span("T1").groundings[0]
    assert (g.ref, g.text, g.source_id) == ("uniprot:P60568", None, "N2")
    links = [(lk.type, lk.source, lk.target, lk.group) for lk in ann.links]
    assert links == [
        ("Equiv", "T7", "T1", "*1"),
        ("Equiv", "T11", "T5", "*2"),
        ("Equiv", "T11", "T10", "*2"),
        ("Alias", "T3", "T1", "*3"),
    ]
    assert len({lk.id for lk in ann.links}) == 4
    notes = {n.id: n for n in ann.notes}
    assert notes["#1"] == Note("#1", "AnnotatorNotes", "T1", "   leading spaces kept", notes["#1"].extra)
    assert notes["#2"].text == "see\tthe tab"  # split on the first two tabs only
    assert (notes["#3"].target, notes["#3"].text) == ("R1", "")


def test_extras_are_json(every: tuple[Any, Annotations]) -> None:
    parsed, ann = every
    json.dumps(parsed.document.metadata, default=_json_default)
    json.dumps(ann.extra, default=_json_default)
    for item in (*ann.spans, *ann.relations, *ann.links, *ann.notes):
        json.dumps(item.extra, default=_json_default)
        json.dumps(getattr(item, "attributes", {}), default=_json_default)


def test_every_line_round_trip(tmp_path: Path) -> None:
    _roundtrip(EVERY.parent, tmp_path)


def test_format_annotations_string_level(every: tuple[Any, Annotations]) -> None:
    _, ann = every
    assert format_annotations(ann) == {"ann": EVERY.with_suffix(".ann").read_text(encoding="utf-8")}


# --------------------------------------------------------------------------------------------
# BioNLP .a1/.a2, Bacteria Biotope 2011 (.a2 only), GI (non-brat lines)
# --------------------------------------------------------------------------------------------


def test_bionlp_a1_a2() -> None:
    docs = {d.document.external_id: d for d in read_directory(FIX / "bionlp")}
    ann = docs["PMID-1-S1"].annotations
    assert ann.extra["standoff"]["files"] == {"a1": {}, "a2": {}}
    # canonical order (triggers in .a2, the other spans in .a1): no positions kept, the files follow
    assert [s.extra for s in ann.spans] == [{}] * 7
    assert format_annotations(ann)["a1"] == (FIX / "bionlp" / "PMID-1-S1.a1").read_text()
    e3 = next(r for r in ann.relations if r.id == "E3")
    assert e3.args == (Argument("Theme", "E2"), Argument("Cause", "T3"))  # a2 refers to a1 entities
    assert e3.attributes == {"Speculation": True}
    empty = docs["PMID-2-S1"]
    assert empty.annotations.count() == 0
    assert empty.annotations.extra["standoff"]["files"] == {"a1": {}, "a2": {}}


def test_bionlp_round_trip_with_empty_files(tmp_path: Path) -> None:
    _roundtrip(FIX / "bionlp", tmp_path)
    assert (tmp_path / "PMID-2-S1.a2").read_bytes() == b""


def test_bb2011_triggerless_events_are_relations(tmp_path: Path) -> None:
    (parsed,) = read_directory(FIX / "bb2011")
    ann = parsed.annotations
    assert ann.extra["standoff"]["files"] == {"a2": {}}
    rel = {r.id: r for r in ann.relations}
    assert (rel["E2"].kind, rel["E2"].type, rel["E2"].trigger) == ("relation", "PartOf", None)
    assert rel["E2"].args == (Argument("Host", "T2"), Argument("Part", "T3"))
    assert rel["E2"].extra["prefix"] == "E"
    assert len(ann.links) == 2
    _roundtrip(FIX / "bb2011", tmp_path)


def test_unknown_lines_refused_by_default() -> None:
    with pytest.raises(FormatError) as err:
        read_document(FIX / "gi" / "PMID-3-S2.txt")
    probs = _problems(err)
    assert [(f, line) for f, line, _ in probs] == [("PMID-3-S2.a1", n) for n in range(3, 8)]
    assert "unknown line type 'W'" in probs[0][2] and "keep_unknown=True" in probs[0][2]
    assert "'W2' is not ROLE:ID" in probs[3][2] and "dependency" in probs[3][2]
    assert "PMID-3-S2.a1:3" in str(err.value)


def test_unknown_lines_kept_verbatim(tmp_path: Path) -> None:
    parsed = read_document(FIX / "gi" / "PMID-3-S2.txt", keep_unknown=True)
    ann = parsed.annotations
    assert [s.id for s in ann.spans] == ["T1", "T2"]
    assert [(r.id, r.kind) for r in ann.relations] == [("E1", "relation")]
    verbatim = ann.extra["standoff"]["verbatim"]
    assert verbatim[0] == ["a1", 3, "W1\tWord 0 4\tGerE"]
    assert verbatim[-1] == ["a1", 7, "R2\tobj:V-N W2 W3"]
    assert len(parsed.warnings) == 1 and "kept 5 non-brat line(s) verbatim" in parsed.warnings[0]
    _roundtrip(FIX / "gi", tmp_path, keep_unknown=True)
    # a new relation must not take the id R1 of a verbatim dependency line
    new = Relation("x", "Regulates", (Argument("Arg1", "T1"), Argument("Arg2", "T2")))
    out = format_annotations(Annotations(spans=ann.spans, relations=(*ann.relations, new), extra=ann.extra))
    assert out["a2"].endswith("R3\tRegulates Arg1:T1 Arg2:T2\n")


def test_lines_referring_to_kept_lines_are_kept(tmp_path: Path) -> None:
    (tmp_path / "d.txt").write_text("abc def")
    (tmp_path / "d.ann").write_text(
        "T1\tX 0 3\tabc\nW1\tWord 4 7\tdef\nR1\tRel Arg1:T1 Arg2:W1\nA1\tFlag W1\n#1\tNote R1\tn\n"
    )
    parsed = read_document(tmp_path / "d.txt", keep_unknown=True)
    assert parsed.annotations.relations == () and parsed.annotations.notes == ()
    assert [v[1] for v in parsed.annotations.extra["standoff"]["verbatim"]] == [2, 3, 4, 5]
    out = tmp_path / "out"
    write_document(parsed.document, parsed.annotations, out)
    assert (out / "d.ann").read_bytes() == (tmp_path / "d.ann").read_bytes()


# --------------------------------------------------------------------------------------------
# encodings, BOM, CRLF
# --------------------------------------------------------------------------------------------


def _write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def test_crlf_text_offsets_count_cr(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    text = "First line\r\nIL-2 binds\r\n"
    _write(src / "c.txt", text.encode())
    _write(src / "c.ann", b"T1\tProtein 12 16\tIL-2\r\nT2\tX 0 5;12 16\tFirst IL-2\r\n")
    parsed = read_document(src / "c.txt")
    assert parsed.document.text == text
    assert parsed.annotations.span("T1").fragments == ((12, 16),)
    assert parsed.annotations.extra["standoff"]["files"] == {"ann": {"newline": "\r\n"}}
    assert any("CR" in w and "c.txt:1" in w for w in parsed.warnings)
    _roundtrip(src, tmp_path / "out")


def test_crlf_offsets_counting_lf_only_are_an_error_with_a_hint(tmp_path: Path) -> None:
    _write(tmp_path / "c.txt", b"First line\r\nIL-2 binds")
    _write(tmp_path / "c.ann", b"T1\tProtein 11 15\tIL-2\n")
    with pytest.raises(FormatError) as err:
        read_document(tmp_path / "c.txt")
    ((f, line, msg),) = _problems(err)
    assert (f, line) == ("c.ann", 1)
    assert "does not match" in msg and "CRLF" in msg


def test_mixed_line_endings_refused(tmp_path: Path) -> None:
    _write(tmp_path / "m.txt", b"abc def")
    _write(tmp_path / "m.ann", b"T1\tX 0 3\tabc\r\nT2\tX 4 7\tdef\n")
    with pytest.raises(FormatError) as err:
        read_document(tmp_path / "m.txt")
    ((f, line, msg),) = _problems(err)
    assert (f, line) == ("m.ann", 2) and "mixed line endings" in msg


def test_bom_removed_remembered_and_written_back(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _write(src / "b.txt", "\ufeffκB binds".encode())
    _write(src / "b.ann", "\ufeffT1\tProtein 0 2\tκB\n".encode())
    parsed = read_document(src / "b.txt")
    assert parsed.document.text == "κB binds"
    assert parsed.document.metadata == {"bom": True}
    assert parsed.annotations.span("T1").fragments == ((0, 2),)
    assert parsed.annotations.extra["standoff"]["files"] == {"ann": {"bom": True}}
    assert sum("byte order mark" in w for w in parsed.warnings) == 2
    _roundtrip(src, tmp_path / "out")


@pytest.mark.parametrize("which", ["txt", "ann"])
def test_non_utf8_names_file_line_and_byte(tmp_path: Path, which: str) -> None:
    txt = b"abc\ndef caf\xe9" if which == "txt" else b"abc\ndef cafe"
    ann = b"T1\tX 0 3\tabc\nT2\tX 4 7\tdef\n#1\tNote T1\tcaf\xe9\n" if which == "ann" else b"T1\tX 0 3\tabc\n"
    _write(tmp_path / "u.txt", txt)
    _write(tmp_path / "u.ann", ann)
    with pytest.raises(FormatError) as err:
        read_document(tmp_path / "u.txt")
    ((f, line, msg),) = _problems(err)
    pos = (txt if which == "txt" else ann).index(b"\xe9")
    assert f == f"u.{which}"
    assert line == (2 if which == "txt" else 3)
    assert f"byte 0xe9 at byte offset {pos}" in msg


# --------------------------------------------------------------------------------------------
# checks
# --------------------------------------------------------------------------------------------

BAD_TEXT = "IL-2 binds the receptor."
BAD_ANN = """T1\tProtein 0 4\tIL-2
T2\tProtein 0 x\tIL-2
T3\tProtein 10 5\tbinds
T4\tProtein 20 99\treceptor.
T5\tProtein 5 10\tbound
T1\tProtein 0 4\tIL-2
R1\tRel Arg1:T1 Arg2:T9
E1\tBinding:T8 Theme:T1
A1\tNegation E7
Q1\tWhat T1
N1\tReference R1 db:1
*\tEquiv T1 T42
#1\tAnnotatorNotes X3\tnote
T6\tProtein 5;10\tbinds
R2\tRel
"""


def test_every_problem_is_listed_with_file_and_line(tmp_path: Path) -> None:
    _write(tmp_path / "bad.txt", BAD_TEXT.encode())
    _write(tmp_path / "bad.ann", BAD_ANN.encode())
    with pytest.raises(FormatError) as err:
        read_document(tmp_path / "bad.txt")
    probs = _problems(err)
    assert all(f == "bad.ann" for f, _, _ in probs)
    by_line = {line: msg for _, line, msg in probs}
    expected = {
        2: "not non-negative integers",
        3: "end 5 before start 10",
        4: "beyond the end of the text (24 characters)",
        5: "does not match the document",
        6: "duplicate id T1 (first defined at",
        7: "unknown id T9",
        8: "unknown id T8",
        9: "unknown id E7",
        10: "unknown line type 'Q'",
        11: "must target a T entity",
        12: "T42: must be a T entity",
        13: "unknown id X3",
        14: "is not 'START END'",
        15: "needs arguments",
    }
    assert set(by_line) == set(expected)
    for line, fragment in expected.items():
        assert fragment in by_line[line], (line, by_line[line])
    assert str(err.value).startswith(f"{tmp_path / 'bad.ann'}:2: error:")
    assert "(and 14 more errors)" in str(err.value)


def test_reference_to_an_invalid_span_says_so(tmp_path: Path) -> None:
    _write(tmp_path / "r.txt", b"abc def")
    _write(tmp_path / "r.ann", b"T1\tX 0 3\tabd\nR1\tRel Arg1:T1 Arg2:T1\n")
    with pytest.raises(FormatError) as err:
        read_document(tmp_path / "r.txt")
    assert [line for _, line, _ in _problems(err)] == [1, 2, 2]
    assert "Arg1:T1: T1 is invalid (see its own error)" in _problems(err)[1][2]


def test_whitespace_only_difference_is_a_warning(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _write(src / "w.txt", "P. crustosum and B.\u2009subtilis".encode())
    _write(src / "w.ann", "T1\tOrg 0 12\tP.\u00a0crustosum\nT2\tOrg 17 28\tB. subtilis\n".encode())
    parsed = read_document(src / "w.txt")
    assert parsed.annotations.span("T1").text == "P.\u00a0crustosum"  # kept as written
    assert len(parsed.warnings) == 2
    assert all("w.ann:" in w and "only in whitespace" in w for w in parsed.warnings)
    _roundtrip(src, tmp_path / "out")


def test_t_line_without_text_field(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _write(src / "n.txt", b"abc def")
    _write(src / "n.ann", b"T1\tX 4 7\n")
    parsed = read_document(src / "n.txt")
    assert parsed.annotations.span("T1").text == "def"
    assert "no text field" in parsed.warnings[0]
    _roundtrip(src, tmp_path / "out")


def test_unusual_spacing_kept_and_dropped_when_edited(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _write(src / "s.txt", b"abc def ghi")
    _write(
        src / "s.ann",
        b"T1\tX  0 3;4  7\tabc def\nT2\tX 04 07\tdef\nA1\tFlag  T1\nR1\tRel  Arg1:T1 Arg2:T1 \n",
    )
    parsed = read_document(src / "s.txt")
    _roundtrip(src, tmp_path / "out")
    t1 = parsed.annotations.span("T1")
    moved = Span(t1.id, t1.type, ((8, 11),), "ghi", t1.attributes, t1.groundings, t1.extra)
    out = format_annotations(Annotations(spans=(moved,), relations=parsed.annotations.relations))
    assert out["ann"].splitlines()[0] == "T1\tX 8 11\tghi"  # stale spacing is not reused


def test_blank_lines_kept(tmp_path: Path) -> None:
    src = tmp_path / "src"
    src.mkdir()
    _write(src / "e.txt", b"abc")
    _write(src / "e.ann", b"T1\tX 0 3\tabc\n\n  \nA1\tFlag T1")
    parsed = read_document(src / "e.txt")
    assert parsed.annotations.extra["standoff"]["files"] == {"ann": {"final_newline": False}}
    _roundtrip(src, tmp_path / "out")


# --------------------------------------------------------------------------------------------
# directories
# --------------------------------------------------------------------------------------------


def test_read_directory_all_or_nothing_and_lenient(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    shutil.copytree(FIX / "bionlp", root / "good")
    sub = root / "bad"
    sub.mkdir()
    _write(sub / "x.txt", b"abc")
    _write(sub / "x.ann", b"T1\tX 0 4\tabc\n")
    _write(sub / "y.txt", b"abc")
    _write(sub / "y.ann", b"T1\tX 0 3\tabd\n")
    _write(sub / "orphan.a1", b"")
    _write(sub / ".hidden.txt", b"ignored")
    with pytest.raises(FormatError) as err:
        read_directory(root)
    assert sorted((f, line) for f, line, _ in _problems(err)) == [
        ("orphan.a1", None),
        ("x.ann", 1),
        ("y.ann", 1),
    ]
    result = read_directory_lenient(root)
    assert sorted(d.document.external_id for d in result.documents) == ["PMID-1-S1", "PMID-2-S1"]
    assert {d.document.source for d in result.documents} == {
        "corpus/good/PMID-1-S1.txt",
        "corpus/good/PMID-2-S1.txt",
    }
    assert sorted(Path(r).name for r in result.rejected) == ["orphan.a1", "x.txt", "y.txt"]
    assert len(result.problems) == 3


def test_ann_and_a1_for_one_text_is_ambiguous(tmp_path: Path) -> None:
    _write(tmp_path / "d.txt", b"abc")
    _write(tmp_path / "d.ann", b"")
    _write(tmp_path / "d.a1", b"")
    with pytest.raises(FormatError, match=r"both a \.ann and \.a1/\.a2"):
        read_document(tmp_path / "d.txt")


# --------------------------------------------------------------------------------------------
# writing items that were not read from standoff
# --------------------------------------------------------------------------------------------


def test_new_items_get_valid_ids_and_read_back(tmp_path: Path) -> None:
    text = "IL-2 binds IL-2R and is called interleukin 2."
    spans = (
        Span("s1", "Protein", ((0, 4),), "IL-2", {"mutant": True, "state": False, "level": 3}),
        Span("T1", "Protein", ((11, 16),), "IL-2R", groundings=(Grounding("uniprot:P01589"),)),
        Span("s3", "Binding", ((5, 10),), "binds"),
        Span("s4", "Protein", ((31, 42), (43, 44)), "interleukin 2"),
    )
    relations = (
        Relation(
            "r1", "bind", (Argument("Arg1", "s1"), Argument("Arg2", "T1")), label=-1, tags=("implicit",)
        ),
        Relation(
            "ev", "Binding", (Argument("Theme", "s1"), Argument("Theme2", "T1")), trigger="s3", kind="event"
        ),
    )
    links = (Link("l1", "synonym", "s1", "s4"),)
    notes = (Note("n1", "AnnotatorNotes", "ev", " check this"),)
    ann = Annotations(spans=spans, relations=relations, links=links, notes=notes)
    (tmp_path / "n.txt").write_text(text)
    from corpusdb.basics.records import Document

    write_document(Document("n", text), ann, tmp_path)
    content = (tmp_path / "n.ann").read_text()
    assert content == (
        "T2\tProtein 0 4\tIL-2\n"
        "T1\tProtein 11 16\tIL-2R\n"
        "T3\tBinding 5 10\tbinds\n"
        "T4\tProtein 31 42;43 44\tinterleukin 2\n"
        "R1\tbind Arg1:T2 Arg2:T1\n"
        "E1\tBinding:T3 Theme:T2 Theme2:T1\n"
        "A1\tmutant T2\n"
        "A2\tlevel T2 3\n"
        "A3\tlabel R1 -1\n"
        "A4\timplicit R1\n"
        "N1\tReference T1 uniprot:P01589\n"
        "*\tsynonym T2 T4\n"
        "#1\tAnnotatorNotes E1\t check this\n"
    )
    back = read_document(tmp_path / "n.txt").annotations
    assert back.span("T4").fragments == ((31, 42), (43, 44))
    assert next(r for r in back.relations if r.id == "E1").trigger == "T3"


def test_new_items_take_their_canonical_place_in_the_right_file() -> None:
    """PMID-1-S1 is in canonical order (read without positions): new lines take their canonical
    place, a new entity in .a1, a new event in .a2 after the other events (before M1 and the ``*``)."""
    parsed = read_document(FIX / "bionlp" / "PMID-1-S1.txt")
    ann = parsed.annotations
    new_span = Span("new", "Protein", ((22, 26),), "cotD")
    new_rel = Relation("x", "Binding", (Argument("Theme", "new"),), trigger="T5", kind="event")
    out = format_annotations(
        Annotations(
            spans=(*ann.spans, new_span),
            relations=(*ann.relations, new_rel),
            links=ann.links,
            extra=ann.extra,
        )
    )
    original = {e: (FIX / "bionlp" / f"PMID-1-S1.{e}").read_text() for e in ("a1", "a2")}
    assert out["a1"] == original["a1"] + "T8\tProtein 22 26\tcotD\n"
    assert out["a2"] == original["a2"].replace("M1\t", "E4\tBinding:T5 Theme:T8\nM1\t")


@pytest.mark.parametrize(
    ("ann", "message"),
    [
        (Annotations(spans=(Span("T1", "Protein", (), "IL-2"),)), "no fragments"),
        (Annotations(labels=(DocLabel("relevance", "DR"),)), "document labels"),
        (Annotations(spans=(Span("T1", "P", ((0, 1),), "a"), Span("T1", "P", ((1, 2),), "b"))), "duplicate"),
        (Annotations(relations=(Relation("R1", "r", (Argument("Arg1", "T9"),)),)), "unknown id T9"),
        (Annotations(spans=(Span("T1", "two words", ((0, 1),), "a"),)), "contains whitespace"),
        (
            Annotations(
                spans=(Span("T1", "P", ((0, 1),), "a"),),
                relations=(
                    Relation("R1", "r", (Argument("Arg1", "T1"),)),
                    Relation("E1", "e", (), trigger="R1", kind="event"),
                ),
            ),
            "trigger R1 of E1 is not a span",
        ),
    ],
)
def test_unwritable_content_is_refused(ann: Annotations, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        format_annotations(ann)
