"""The standoff reader and writer on every real corpus in ../shared/data.

Why: the counts in each SOURCE.md pin down that nothing is dropped or invented, and writing what was
read must give back every file byte for byte (BioNLP GI's non-brat lines kept verbatim).
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from corpusdb.basics.errors import FormatError
from corpusdb.basics.records import Annotations, ParsedDocument
from importers.standoff import format_annotations, read_directory, read_directory_lenient
from tests.conftest import shared_path
from tests.test_standoff_positions import without_positions

pytestmark = pytest.mark.shared

CORPORA = [
    "brat-examples",
    "bratiaa-example-project",
    "bionlp-st-2011-bb-train",
    "bionlp-st-2011-bi-train",
    "bionlp-st-2011-rename-train",
    "bionlp-st-2011-ge",
    "bionlp-st-2016-bb-event",
    "bionlp-ost-2019-bb-rel",
]

_cache: dict[str, list[ParsedDocument]] = {}


def _read(rel: str) -> list[ParsedDocument]:
    """Documents of ``rel`` (a corpus or one of its folders); each corpus is read once per session."""
    corpus = rel.split("/", 1)[0]
    if corpus not in _cache:
        keep = corpus == "bionlp-st-2011-bi-train"  # its non-brat lines are kept verbatim
        _cache[corpus] = read_directory(shared_path("data", corpus), keep_unknown=keep)
    return [d for d in _cache[corpus] if rel == corpus or d.document.source.startswith(rel + "/")]


def _counts(docs: list[ParsedDocument]) -> Counter[str]:
    c: Counter[str] = Counter()
    for d in docs:
        a: Annotations = d.annotations
        c["docs"] += 1
        c["T"] += len(a.spans)
        c["discontinuous"] += sum(len(s.fragments) > 1 for s in a.spans)
        for r in a.relations:
            c[r.id[0]] += 1
            c[f"{r.id[0]}:{r.kind}"] += 1
            c["events with event args"] += any(x.ref.startswith("E") for x in r.args)
        c["*"] += len({lk.group for lk in a.links})
        for item in (*a.spans, *a.relations):
            for entry in (item.extra.get("attrs") or {}).values():
                c[entry["id"][0]] += 1
        c["#"] += len(a.notes)
        c["N"] += sum(len(s.groundings) for s in a.spans)
        c["verbatim"] += len(a.extra["standoff"].get("verbatim", ()))
        c["warnings"] += len(d.warnings)
    return c


@pytest.mark.parametrize("corpus", CORPORA)
def test_round_trip_is_byte_identical(corpus: str) -> None:
    """Every annotation file of every corpus comes back byte for byte (and .txt files are kept)."""
    root = shared_path("data", corpus)
    docs = _read(corpus)
    listing: dict[Path, set[str]] = {}
    checked = 0
    for parsed in docs:
        txt = root.parent / parsed.document.source
        assert parsed.document.text.encode("utf-8") == txt.read_bytes()
        files = format_annotations(parsed.annotations)
        if txt.parent not in listing:
            listing[txt.parent] = {p.name for p in txt.parent.iterdir()}
        present = [e for e in ("ann", "a1", "a2") if f"{txt.stem}.{e}" in listing[txt.parent]]
        assert list(files) == present, txt
        for ext, body in files.items():
            assert body.encode("utf-8") == txt.with_suffix("." + ext).read_bytes(), f"{txt.stem}.{ext}"
            checked += 1
    assert checked >= len(docs)


@pytest.mark.parametrize("corpus", CORPORA)
def test_positions_kept_only_where_needed(corpus: str) -> None:
    """A document keeps its line positions exactly when writing without them would differ (the
    round trip above shows that dropping them is safe; this, that none are kept for nothing)."""
    for parsed in _read(corpus):
        ann = parsed.annotations
        if any("line" in s.extra for s in ann.spans) or any("line" in n.extra for n in ann.notes):
            assert format_annotations(without_positions(ann)) != format_annotations(ann)
        else:
            assert not any("line" in r.extra for r in ann.relations), parsed.document.source


def test_ge_counts() -> None:
    train = _counts(_read("bionlp-st-2011-ge/train"))
    devel = _counts(_read("bionlp-st-2011-ge/devel"))
    assert (train["docs"], devel["docs"]) == (908, 259)
    assert (train["T"], devel["T"]) == (19_987, 7_259)
    assert (train["E:event"], devel["E:event"]) == (10_310, 3_250)
    assert (train["M"], devel["M"]) == (1_382, 459)
    assert (train["*"], devel["*"]) == (571, 128)
    assert train["R"] == devel["R"] == 0
    assert train["events with event args"] == 3_833
    assert train["warnings"] == devel["warnings"] == 0


def test_ge_details() -> None:
    docs = _read("bionlp-st-2011-ge/train")
    roles = {a.role for d in docs for r in d.annotations.relations for a in r.args}
    assert {"Theme", "Theme2", "Cause", "Site", "Site2"} <= roles
    biggest = max(
        (len([lk for lk in d.annotations.links if lk.group == g]) + 1)
        for d in docs
        for g in {lk.group for lk in d.annotations.links}
    )
    assert biggest == 5  # Equiv with up to 5 members
    identical = sum(
        n - 1 for d in docs for n in Counter(s.fragments for s in d.annotations.spans).values() if n > 1
    )
    assert identical == 126  # different T with identical spans are kept apart


def test_bacteria_biotope_2011() -> None:
    c = _counts(_read("bionlp-st-2011-bb-train"))
    assert (c["docs"], c["T"], c["E"], c["*"]) == (65, 1_332, 1_018, 414)
    assert c["E:relation"] == 1_018  # trigger-less binary events
    types = Counter(r.type for d in _read("bionlp-st-2011-bb-train") for r in d.annotations.relations)
    assert types == {"Localization": 855, "PartOf": 163}


def test_gene_renaming() -> None:
    docs = _read("bionlp-st-2011-rename-train")
    c = _counts(docs)
    assert (c["docs"], c["T"], c["R"]) == (1_146, 14_372, 308)
    roles = {tuple(a.role for a in r.args) for d in docs for r in d.annotations.relations}
    assert roles == {("Former", "New")}
    assert sum(d.annotations.extra["standoff"]["files"]["a2"] == {} for d in docs) == 1_146
    assert sum(not d.document.text.endswith("\n") for d in docs) == 1_146


def test_bacteria_gene_interactions_strict_and_kept() -> None:
    root = shared_path("data", "bionlp-st-2011-bi-train")
    with pytest.raises(FormatError) as err:
        read_directory(root)
    errors = [p for p in err.value.problems if p.severity == "error"]
    assert sum("unknown line type 'W'" in p.message for p in errors) == 2_500
    assert sum("is not ROLE:ID (a dependency line" in p.message for p in errors) == 1_384
    assert len(errors) == 3_884
    assert all(p.file.endswith(".a1") and p.line for p in errors)
    lenient = read_directory_lenient(root)
    assert lenient.documents == [] and len(lenient.rejected) == 105
    c = _counts(_read("bionlp-st-2011-bi-train"))
    assert (c["docs"], c["T"], c["E"], c["verbatim"]) == (105, 621, 419, 3_884)


def test_bacteria_biotope_2016() -> None:
    train = _counts(_read("bionlp-st-2016-bb-event/BioNLP-ST-2016_BB-event_train"))
    dev = _counts(_read("bionlp-st-2016-bb-event/BioNLP-ST-2016_BB-event_dev"))
    assert (train["docs"], dev["docs"]) == (61, 34)
    assert (train["T"], dev["T"]) == (1_224, 816)
    assert (train["R"], dev["R"]) == (327, 223)
    assert (train["*"], dev["*"]) == (11, 6)
    assert (train["discontinuous"], dev["discontinuous"]) == (21, 25)
    docs = _read("bionlp-st-2016-bb-event")
    star = next(lk for d in docs for lk in d.annotations.links if lk.source == "T11" and lk.target == "T10")
    assert star.type == "Equiv"  # members kept in their original, unsorted order


def test_bacteria_biotope_2019_whitespace_warnings() -> None:
    train = _counts(_read("bionlp-ost-2019-bb-rel/rel_train"))
    dev = _counts(_read("bionlp-ost-2019-bb-rel/rel_dev"))
    assert (train["T"], dev["T"]) == (1_546, 958)
    assert (train["R"], dev["R"]) == (551, 318)
    assert (train["*"], dev["*"]) == (13, 2)
    assert (train["discontinuous"], dev["discontinuous"]) == (38, 28)
    assert (train["warnings"], dev["warnings"]) == (3, 2)
    warnings = [w for d in _read("bionlp-ost-2019-bb-rel") for w in d.warnings]
    assert any("BB-rel-23702192.a1:3: warning: T3:" in w and "only in whitespace" in w for w in warnings)


def test_brat_examples_every_line_type() -> None:
    c = _counts(_read("brat-examples"))
    for kind in ("T", "R", "E", "A", "M", "N", "*", "#"):
        assert c[kind] > 0, kind
    assert c["N"] == 1
    docs = _read("brat-examples")
    alias = [lk for d in docs for lk in d.annotations.links if lk.type == "Alias"]
    assert len(alias) == 3  # "*\tAlias T2 T4" and "*\tAlias T3 T4 T5"
    assert sorted((lk.source, lk.target) for lk in alias) == [("T2", "T4"), ("T3", "T4"), ("T3", "T5")]
    tails = sum(r.extra.get("tail") == "" for d in docs for r in d.annotations.relations if r.id[0] == "R")
    assert tails == 14  # brat's trailing tab on R lines
    lemma = next(n for d in docs if d.document.external_id == "b105" for n in d.annotations.notes)
    assert (lemma.type, lemma.text) == ("Lemma", " Delilah")


def test_bratiaa_annotators() -> None:
    counts = {
        who: _counts(_read(f"bratiaa-example-project/{who}"))["T"]
        for who in ("Lisa", "Maria", "Max", "Peter")
    }
    assert counts == {"Lisa": 404, "Maria": 404, "Max": 358, "Peter": 401}


def test_sources_and_ids() -> None:
    docs = _read("bionlp-ost-2019-bb-rel")
    doc = next(d.document for d in docs if d.document.external_id == "BB-rel-10496597")
    assert doc.source == "bionlp-ost-2019-bb-rel/rel_dev/BB-rel-10496597.txt"
    assert Path(doc.source).name == "BB-rel-10496597.txt"
