"""BioRelEx 1.0 JSON reader and writer on fixture files built in the published structure.

Why: the release files are not redistributable, so tests/fixtures/biorelex/sample.json reproduces
their structure and quirks (self-interactions, duplicate pairs with conflicting labels, names without
mentions, nested mentions, non-ASCII, odd spacing, clusters not mentioned) in their exact format.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from corpusdb.basics.errors import FormatError, InvalidInput
from corpusdb.basics.records import Annotations, Argument, Document, Link, ParsedDocument, Relation, Span
from importers.biorelex import format_biorelex, read_biorelex, read_biorelex_lenient, write_biorelex
from tests.conftest import FIXTURES

SAMPLE = FIXTURES / "biorelex" / "sample.json"


@pytest.fixture(scope="module")
def docs() -> list[ParsedDocument]:
    return read_biorelex(SAMPLE)


def _pairs(d: ParsedDocument) -> list[tuple[list[int], int | None, tuple[str, ...]]]:
    return [(list(r.extra["participants"]), r.label, r.tags) for r in d.annotations.relations]


def test_round_trip_gives_the_same_bytes(docs: list[ParsedDocument], tmp_path: Path) -> None:
    out = tmp_path / "out.json"
    write_biorelex([(d.document, d.annotations) for d in docs], out)
    assert out.read_bytes() == SAMPLE.read_bytes()
    assert out.read_bytes().isascii()


def test_documents(docs: list[ParsedDocument]) -> None:
    assert [d.document.external_id for d in docs] == [f"1.0alpha7.train.{i}" for i in range(4)]
    assert [d.document.group_key for d in docs] == ["10022123", "10022123", "9988776", "9988776"]
    assert docs[1].document.metadata == {"url": "https://www.ncbi.nlm.nih.gov/pubmed/10022123", "_line_": 3}
    assert docs[0].document.metadata == {"url": None, "_line_": 0}
    assert docs[0].document.source == "sample.json"
    assert all(d.warnings == () for d in docs)


def test_text_kept_exactly(docs: list[ParsedDocument]) -> None:
    t0 = docs[0].document.text
    assert t0.startswith(" NF-κB") and t0.endswith(". ") and "IκBα  and" in t0
    t1 = docs[1].document.text
    assert "\u2212" in t1 and "\u200b" in t1 and t1.endswith("  .  ")
    # offsets are code points: U+1D6FC is one character
    d2 = docs[2]
    span = d2.annotations.spans[0]
    assert span.fragments == ((4, 31),)  # 28 UTF-16 units, 30 UTF-8 bytes
    assert d2.document.text[4:31] == "\U0001d6fc-subunit of DNA polymerase"
    raw = json.loads(SAMPLE.read_text())[2]["entities"][0]["names"]
    assert raw["\U0001d6fc-subunit of DNA polymerase"]["mentions"] == [[4, 31]]
    assert '"\\ud835\\udefc-subunit' in SAMPLE.read_text()  # written as a surrogate pair escape


def test_clusters_names_and_mentions(docs: list[ParsedDocument]) -> None:
    ann = docs[0].annotations
    c0 = [s for s in ann.spans if s.extra["cluster"] == 0]
    assert [(s.text, s.fragments) for s in c0] == [
        ("NF-κB", ((1, 6),)),
        ("NF-κB", ((27, 32),)),
        ("NF-κB", ((86, 91),)),
        ("nuclear factor kappa B", ()),  # a name without mentions
    ]
    assert {s.type for s in c0} == {"protein"}
    assert c0[3].extra == {"cluster": 0, "cluster_mentioned": True, "name": 1, "name_mentioned": False}
    # mention order is kept as written (75, 13, 33), not sorted
    assert [s.fragments[0][0] for s in ann.spans if s.extra["cluster"] == 1] == [75, 13, 33]
    # nested mentions: the complex contains an NF-κB and an IκBα mention
    complex_ = next(s for s in ann.spans if s.type == "protein-complex")
    assert complex_.fragments == ((27, 45),)
    # a cluster not mentioned at all
    fam = [s for s in ann.spans if s.extra["cluster"] == 4]
    assert [(s.text, s.fragments, s.extra["cluster_mentioned"]) for s in fam] == [
        ("Rel family", (), False),
        ("NF-κB family", (), False),
    ]


def test_clusters_are_entities(docs: list[ParsedDocument]) -> None:
    """Each cluster is one entity holding all its spans; no synonym star picks a representative."""
    ann = docs[0].annotations
    assert ann.links == ()
    assert [(e.id, e.type, e.members, e.extra) for e in ann.entities] == [
        ("C1", "protein", ("T1", "T2", "T3", "T4"), {"cluster": 0}),
        ("C2", "protein", ("T5", "T6", "T7"), {"cluster": 1}),
        ("C3", "protein-complex", ("T8",), {"cluster": 2}),
        ("C4", "chemical", ("T9",), {"cluster": 3}),
        ("C5", "protein-family", ("T10", "T11"), {"cluster": 4}),  # 4+3+1+1+2 spans in 5 clusters
    ]
    assert ann.entities[0].groundings[0].ref == "uniprot:Q04206"


def test_attributes_and_groundings(docs: list[ParsedDocument]) -> None:
    ann1 = docs[1].annotations
    assert ann1.spans[0].attributes == {"state": True}
    assert ann1.spans[1].attributes == {"mutant": True}
    assert ann1.spans[2].attributes == {}
    g = docs[0].annotations.spans[0].groundings[0]
    assert (g.ref, g.text) == ("uniprot:Q04206", "RELA")
    assert g.extra["object"]["organism"] == "Homo sapiens"
    assert g.extra["object"]["comment"] is None
    na = next(s for s in docs[0].annotations.spans if s.type == "chemical").groundings[0]
    assert (na.ref, na.text) == ("pubchem:NA", None)
    assert next(s for s in docs[0].annotations.spans if s.type == "protein-complex").groundings == ()


def test_interactions_survive_duplicates_and_self_pairs(docs: list[ParsedDocument]) -> None:
    ann = docs[0].annotations
    assert _pairs(docs[0]) == [
        ([0, 1], 1, ()),
        ([1, 0], -1, ()),
        ([0, 1], 0, ("implicit",)),  # duplicate pair with a conflicting label
        ([2, 2], 1, ()),  # self-interaction
        ([3, 2], 1, ("implicit",)),
        ([4, 1], -1, ("implicit",)),  # a cluster with no mention takes part
    ]
    r = ann.relations
    assert r[0].args == (Argument("Arg1", "C1"), Argument("Arg2", "C2"))
    assert r[3].args == (Argument("Arg1", "C3"), Argument("Arg2", "C3"))  # a self-interaction
    assert r[5].args == (Argument("Arg1", "C5"), Argument("Arg2", "C2"))  # a cluster without a mention
    assert {x.type for x in r} == {"bind"} and {x.kind for x in r} == {"relation"}


def test_extras_are_plain_json(docs: list[ParsedDocument]) -> None:
    for d in docs:
        a = d.annotations
        json.dumps([dict(d.document.metadata), dict(a.extra)])
        for s in a.spans:
            json.dumps([dict(s.extra), dict(s.attributes), [dict(g.extra) for g in s.groundings]])
        for r in a.relations:
            json.dumps([dict(r.extra), dict(r.attributes)])
        for lk in a.links:
            json.dumps(dict(lk.extra))


def _dump(data: Any, path: Path, **kw: Any) -> Path:
    path.write_text(json.dumps(data, **kw), encoding="utf-8")
    return path


def test_other_layouts_round_trip_as_data(tmp_path: Path) -> None:
    data = json.loads(SAMPLE.read_text())
    s = data[0]
    # other key orders, unknown keys, missing optional keys, non-string paperid
    data[0] = {"text": s["text"], "id": s["id"], "entities": s["entities"], "interactions": s["interactions"]}
    data[0]["comment"] = {"by": "curator"}
    data[1]["paperid"] = 10022123
    data[1]["entities"][0] = {"names": data[1]["entities"][0]["names"], "label": "protein", "extra": 1}
    data[1]["interactions"][0] = {"label": -1, "participants": [1, 2]}  # no type, no implicit
    name = next(iter(data[2]["entities"][0]["names"].values()))
    name["note"] = "x"
    src = _dump(data, tmp_path / "in.json", indent=2, ensure_ascii=False)
    docs = read_biorelex(src)
    assert docs[1].document.group_key == "10022123"
    out = format_biorelex([(d.document, d.annotations) for d in docs])
    back = json.loads(out)
    assert back == data
    assert [list(x) for x in back] == [list(x) for x in data]  # key order too
    assert list(back[1]["interactions"][0]) == ["label", "participants"]


def test_cluster_without_names_keeps_its_index(tmp_path: Path) -> None:
    data = json.loads(SAMPLE.read_text())[2:3]
    data[0]["entities"].insert(0, {"label": "protein", "is_mentioned": False, "is_state": False,
                                   "is_mutant": False, "grounding": None, "names": {}})  # fmt: skip
    data[0]["interactions"] = [{"participants": [0, 2], "type": "bind", "implicit": True, "label": 1}]
    (doc,) = read_biorelex(_dump(data, tmp_path / "e.json"))
    assert doc.annotations.spans[0].fragments == () and doc.annotations.spans[0].extra["empty"]
    assert json.loads(format_biorelex([(doc.document, doc.annotations)])) == data


BAD: list[Any] = [
    "not an object",
    {"id": "s1", "text": "abc"},
    {
        "id": "s2",
        "text": "IL-2 binds",
        "entities": [
            {"label": "protein", "names": {"IL-2": {"is_mentioned": True, "mentions": [[0, 4], [5, 40]]}}},
            {"label": "protein", "names": {"IL-3": {"is_mentioned": True, "mentions": [[0, 4]]}}},
            {"label": "protein", "names": {"x": {"is_mentioned": True, "mentions": [[3, 1], ["a", 2]]}}},
        ],
        "interactions": [
            {"participants": [0, 7], "type": "bind", "implicit": False, "label": 1},
            {"participants": [0, 1], "type": "bind", "implicit": False, "label": 2},
        ],
    },
    {"id": "s3", "text": "ok", "entities": [], "interactions": []},
    {"id": "s3", "text": "dup", "entities": [], "interactions": []},
]


def test_every_problem_names_file_sentence_and_line(tmp_path: Path) -> None:
    src = _dump(BAD, tmp_path / "bad.json", indent=1)
    with pytest.raises(FormatError) as err:
        read_biorelex(src)
    probs = [(p.line, p.message) for p in err.value.problems]
    assert all(p.file == str(src) for p in err.value.problems)
    msgs = [m for _, m in probs]
    assert msgs[0] == "sentence 0: expected an object, got str"
    assert msgs[1] == "sentence 1 (id 's1'): missing keys ['entities', 'interactions']"
    s2 = [m for m in msgs if m.startswith("sentence 2 (id 's2')")]
    assert any("mention [5, 40]: beyond the end of the text (10 characters)" in m for m in s2)
    assert any("name 'IL-3' mention [0, 4]: the text there is 'IL-2', not the name" in m for m in s2)
    assert any("mention [3, 1]: start must be >= 0 and end > start" in m for m in s2)
    assert any("mention 1: expected [start, end] integers" in m for m in s2)
    assert any("participant 7 is not a cluster index (0..2)" in m for m in s2)
    assert any("'label' must be 1, 0 or -1, got 2" in m for m in s2)
    assert msgs[-1] == "sentence 4 (id 's3'): duplicate sentence id (first at sentence 3)"
    raw_lines = src.read_text().splitlines()
    line_of = {m.split(":")[0]: line for line, m in probs}
    assert line_of["sentence 2 (id 's2')"] is not None
    assert '"id": "s2"' in raw_lines[line_of["sentence 2 (id 's2')"] - 1]
    lenient = read_biorelex_lenient(src)
    assert [d.document.external_id for d in lenient.documents] == ["s3"]
    assert lenient.rejected == ["0", "s1", "s2", "s3"]


def test_whitespace_only_mismatch_is_a_warning(tmp_path: Path) -> None:
    data = [
        {
            "id": "w",
            "text": "P.\u00a0crustosum grows",
            "entities": [
                {
                    "label": "organism",
                    "names": {"P. crustosum": {"is_mentioned": True, "mentions": [[0, 12]]}},
                }
            ],
            "interactions": [],
        }
    ]
    (doc,) = read_biorelex(_dump(data, tmp_path / "w.json"))
    assert len(doc.warnings) == 1 and "only in whitespace" in doc.warnings[0]
    assert doc.annotations.spans[0].text == "P. crustosum"


def test_duplicate_json_keys_are_refused(tmp_path: Path) -> None:
    raw = (
        '[{"id": "d", "text": "ab", "entities": [{"label": "p", "names": '
        '{"a": {"is_mentioned": true, "mentions": [[0, 1]]}, "a": {"is_mentioned": true, "mentions": []}}}], '
        '"interactions": []}]'
    )
    (tmp_path / "d.json").write_text(raw)
    with pytest.raises(FormatError, match=r"cluster 0 'names' has duplicate keys \['a'\]"):
        read_biorelex(tmp_path / "d.json")


@pytest.mark.parametrize(
    ("content", "line", "message"),
    [
        (b'{"id": "x"}', 1, "expected a JSON list of sentences, got dict"),
        (b'[\n {"id": "x",\n  "text": }\n]', 3, "not valid JSON"),
        (b'[\n {"id": "caf\xe9"}\n]', 2, "not valid UTF-8: byte 0xe9 at byte offset 14"),
    ],
)
def test_unreadable_files(tmp_path: Path, content: bytes, line: int, message: str) -> None:
    (tmp_path / "f.json").write_bytes(content)
    with pytest.raises(FormatError) as err:
        read_biorelex(tmp_path / "f.json")
    (p,) = err.value.problems
    assert (Path(p.file).name, p.line) == ("f.json", line)
    assert message in p.message


def test_writing_documents_made_elsewhere() -> None:
    text = "IL-2 (interleukin 2) binds IL-2R."
    spans = (
        Span("a", "protein", ((0, 4),), "IL-2", {"mutant": True}),
        Span("b", "protein", ((6, 19),), "interleukin 2"),
        Span("c", "protein", ((27, 32),), "IL-2R"),
    )
    links = (Link("l", "abbreviation", "a", "b"),)
    rel = Relation("r", "bind", (Argument("Arg1", "b"), Argument("Arg2", "c")), label=1)
    out = json.loads(
        format_biorelex([(Document("d1", text, group_key="42"), Annotations(spans, (rel,), links))])
    )
    assert out == [
        {
            "id": "d1",
            "paperid": "42",
            "url": None,
            "text": text,
            "entities": [
                {
                    "label": "protein",
                    "is_mentioned": True,
                    "is_state": False,
                    "is_mutant": True,
                    "grounding": None,
                    "names": {
                        "IL-2": {"is_mentioned": True, "mentions": [[0, 4]]},
                        "interleukin 2": {"is_mentioned": True, "mentions": [[6, 19]]},
                    },
                },
                {
                    "label": "protein",
                    "is_mentioned": True,
                    "is_state": False,
                    "is_mutant": False,
                    "grounding": None,
                    "names": {"IL-2R": {"is_mentioned": True, "mentions": [[27, 32]]}},
                },
            ],
            "interactions": [{"participants": [0, 1], "type": "bind", "implicit": False, "label": 1}],
        }
    ]


def test_unwritable_content_is_refused() -> None:
    spans = (Span("a", "protein", ((0, 2), (3, 4)), "ab d"),)
    with pytest.raises(InvalidInput, match="discontinuous"):
        format_biorelex([(Document("d", "ab de"), Annotations(spans))])
    rel = Relation("r", "bind", (Argument("Arg1", "a"),))
    with pytest.raises(InvalidInput, match="two span or entity arguments"):
        format_biorelex([(Document("d", "ab de"), Annotations((Span("a", "p", ((0, 2),), "ab"),), (rel,)))])
