"""BioRelEx JSON into the store and out again, on SQLite and PostgreSQL.

Why both databases: groundings, key orders and cluster details live in JSON columns; PostgreSQL's
``JSON`` type keeps key order and text as given, so the export must be byte-identical there too.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import PermissionDenied
from corpusdb.interchange import ImportRefused

SAMPLE = Path(__file__).resolve().parent / "fixtures" / "biorelex" / "sample.json"


def test_round_trip_is_byte_identical(any_url: str, tmp_path: Path) -> None:
    corpus = Corpus.create("bx", "biorelex-1.0", url=any_url)
    rep = corpus.import_biorelex(SAMPLE, "alice")
    assert (rep.documents, rep.sets_created, rep.schema_warnings) == (4, 4, ())
    assert rep.items["relations"] == sum(len(s["interactions"]) for s in json.loads(SAMPLE.read_text()))
    out = tmp_path / "out.json"
    corpus.export_biorelex(out, "alice")
    assert out.read_bytes() == SAMPLE.read_bytes()
    # groundings come back whole (the full object is kept beside the db:id reference)
    doc = corpus.document("1.0alpha7.train.0")
    assert doc.group_key == "10022123" and doc.metadata == {"url": None, "_line_": 0}
    spans = corpus.read_set(corpus.sets(document=doc.external_id)[0].id).annotations.spans
    grounded = next(s for s in spans if s.groundings)
    assert grounded.groundings[0].extra["object"]["hgnc_symbol"] == "RELA"
    # the same file again changes nothing; gold from it exports the same bytes too
    again = corpus.import_biorelex(SAMPLE, "alice")
    assert (again.sets_unchanged, again.sets_created) == (4, 0)
    corpus.import_biorelex(SAMPLE, kind="gold")
    corpus.export_biorelex(tmp_path / "gold.json", gold=True)
    assert (tmp_path / "gold.json").read_bytes() == SAMPLE.read_bytes()


def test_subset_keeps_file_order(sqlite_url: str, tmp_path: Path) -> None:
    corpus = Corpus.create("bx", "biorelex-1.0", url=sqlite_url)
    corpus.import_biorelex(SAMPLE, "alice")
    corpus.export_biorelex(
        tmp_path / "two.json", "alice", documents=["1.0alpha7.train.3", "1.0alpha7.train.1"]
    )
    ids = [s["id"] for s in json.loads((tmp_path / "two.json").read_text())]
    assert ids == ["1.0alpha7.train.1", "1.0alpha7.train.3"]
    with pytest.raises(PermissionDenied):
        corpus.add_annotator("bob")
        corpus.as_user("bob").export_biorelex(tmp_path / "x.json", "alice")


def test_bad_sentences_all_listed_or_skipped_when_lenient(sqlite_url: str, tmp_path: Path) -> None:
    data = json.loads(SAMPLE.read_text())
    data[1]["entities"][0]["names"] = {"x": {"is_mentioned": True, "mentions": [[0, 9999]]}}
    data[3]["interactions"].append({"participants": [0, 99], "type": "bind", "implicit": False, "label": 1})
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(data, indent=1), encoding="utf-8")
    corpus = Corpus.create("bx", "biorelex-1.0", url=sqlite_url)
    with pytest.raises(ImportRefused) as err:
        corpus.import_biorelex(bad, "alice")
    messages = [str(p) for p in err.value.problems if p.severity == "error"]
    assert len(messages) >= 2 and any("1.0alpha7.train.1" in m for m in messages)
    assert any("1.0alpha7.train.3" in m for m in messages)
    assert corpus.count_documents() == 0
    rep = corpus.import_biorelex(bad, "alice", lenient=True)
    assert rep.documents == 2 and sorted(rep.rejected) == ["1.0alpha7.train.1", "1.0alpha7.train.3"]
