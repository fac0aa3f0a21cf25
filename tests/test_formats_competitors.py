"""Other tools' exports as imports, each on a file written in the tool's documented format: doccano JSONL,
Label Studio JSON, Prodigy JSONL and INCEpTION's WebAnno TSV 3."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError
from corpusdb.basics.records import Argument, DocLabel, Grounding
from corpusdb.interchange import ImportRefused
from importers.common import strict
from importers.competitors import read_doccano, read_labelstudio, read_prodigy
from importers.webanno import read_webanno_lenient

TEXT = "IL-2 binds IL-2R in T cells."

DOCCANO = [
    {"id": 17, "text": TEXT, "entities": [
        {"id": 1, "label": "protein", "start_offset": 0, "end_offset": 4},
        {"id": 2, "label": "protein", "start_offset": 11, "end_offset": 16},
        {"id": 3, "label": "cell", "start_offset": 20, "end_offset": 27}],
     "relations": [{"id": 9, "from_id": 1, "to_id": 2, "type": "binds"}], "Comments": []},
    {"id": 18, "text": "EU rejects German call", "label": [[0, 2, "ORG"], [11, 17, "MISC"]]},
    {"id": 19, "text": "A relevant abstract.", "label": ["relevant"]},
]  # fmt: skip


def _jsonl(path: Path, rows: list[dict[str, object]]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    return path


def test_doccano(tmp_path: Path) -> None:
    d1, d2, d3 = strict(read_doccano)(_jsonl(tmp_path / "d.jsonl", DOCCANO))
    assert d1.document.external_id == "17" and d1.document.text == TEXT
    assert [(s.id, s.type, s.text) for s in d1.annotations.spans] == [
        ("T1", "protein", "IL-2"), ("T2", "protein", "IL-2R"), ("T3", "cell", "T cells"),
    ]  # fmt: skip
    [r] = d1.annotations.relations
    assert (r.id, r.type, r.args) == ("R9", "binds", (Argument("Arg1", "T1"), Argument("Arg2", "T2")))
    assert [(s.type, s.text) for s in d2.annotations.spans] == [("ORG", "EU"), ("MISC", "German")]
    assert d3.annotations.labels == (DocLabel("label", "relevant"),)


def test_doccano_errors_name_their_line_and_nothing_is_stored(tmp_path: Path, sqlite_url: str) -> None:
    rows = [DOCCANO[0], {"id": 18, "text": "short", "label": [[0, 40, "ORG"]]}]
    p = _jsonl(tmp_path / "bad.jsonl", rows)
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    with pytest.raises(
        ImportRefused, match=r"bad\.jsonl:2: error: document '18': span T1 \(ORG\): offsets 0-40"
    ):
        c.import_file(p, "doccano", "alice", allow_unknown=True)
    assert c.documents() == []
    rep = c.import_file(p, "doccano", "alice", lenient=True, allow_unknown=True)
    assert rep.documents == 1 and rep.rejected == ("18",)
    (tmp_path / "notjson.jsonl").write_text('{"id": 1, "text": "x"}\n{oops\n', encoding="utf-8")
    with pytest.raises(FormatError, match=r"notjson\.jsonl:2: error: not a JSON object"):
        read_doccano(tmp_path / "notjson.jsonl")


LABEL_STUDIO = [
    {"id": 101, "data": {"text": TEXT}, "annotations": [{
        "id": 5, "completed_by": 3, "was_cancelled": False, "result": [
            {"id": "a1", "from_name": "label", "to_name": "text", "type": "labels",
             "value": {"start": 0, "end": 4, "text": "IL-2", "labels": ["protein"]}},
            {"id": "a2", "from_name": "label", "to_name": "text", "type": "labels",
             "value": {"start": 11, "end": 16, "text": "IL-2R", "labels": ["protein"]}},
            {"from_id": "a2", "to_id": "a1", "type": "relation", "direction": "left", "labels": ["binds"]},
            {"id": "c1", "from_name": "relevance", "to_name": "text", "type": "choices",
             "value": {"choices": ["DR"]}}]},
        {"id": 6, "completed_by": 4, "was_cancelled": False, "result": []}],
     "predictions": []},
]  # fmt: skip


def test_label_studio(tmp_path: Path) -> None:
    p = tmp_path / "ls.json"
    p.write_text(json.dumps(LABEL_STUDIO, indent=2), encoding="utf-8")
    res = read_labelstudio(p)
    [d] = res.documents
    assert d.document.external_id == "101"
    assert [(s.id, s.type, s.text) for s in d.annotations.spans] == [
        ("a1", "protein", "IL-2"),
        ("a2", "protein", "IL-2R"),
    ]
    [r] = d.annotations.relations
    assert r.type == "binds" and r.args == (Argument("Arg1", "a1"), Argument("Arg2", "a2"))  # "left" swaps
    assert d.annotations.labels == (DocLabel("relevance", "DR"),)
    assert d.warnings == (f"{p}:2: warning: task 101: 2 annotations; only the first (by 3) is read",)


PRODIGY = [
    {"text": TEXT, "meta": {"id": "pmid-1"}, "_input_hash": 11, "answer": "accept",
     "spans": [{"start": 0, "end": 4, "label": "protein", "token_start": 0, "token_end": 2}],
     "relations": [{"head": 0, "child": 5, "label": "binds",
                    "head_span": {"start": 0, "end": 4, "label": "protein"},
                    "child_span": {"start": 11, "end": 16, "label": "protein"}}]},
    {"text": "Is this relevant?", "_input_hash": 12, "accept": ["DR"], "answer": "accept",
     "options": [{"id": "DR"}, {"id": "NR"}]},
]  # fmt: skip


def test_prodigy(tmp_path: Path) -> None:
    d1, d2 = strict(read_prodigy)(_jsonl(tmp_path / "p.jsonl", PRODIGY))
    assert d1.document.external_id == "pmid-1" and d2.document.external_id == "12"
    assert [(s.id, s.text) for s in d1.annotations.spans] == [("T1", "IL-2"), ("T2", "IL-2R")]
    [r] = d1.annotations.relations
    assert r.type == "binds" and r.args == (Argument("Head", "T1"), Argument("Child", "T2"))
    assert d1.annotations.labels == (DocLabel("answer", "accept"),)
    assert d2.annotations.labels == (DocLabel("accept", "DR"), DocLabel("answer", "accept"))


WEBANNO = """#FORMAT=WebAnno TSV 3.3
#T_SP=de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity|identifier|value
#T_RL=webanno.custom.Interaction|label|BT_de.tudarmstadt.ukp.dkpro.core.api.ner.type.NamedEntity


#Text=IL-2 binds IL-2 receptor alpha .
1-1\t0-4\tIL-2\thttp://www.uniprot.org/uniprot/P60568\tprotein\t_\t_
1-2\t5-10\tbinds\t_\t_\t_\t_
1-3\t11-15\tIL-2\t_[1]\tprotein[1]\tbinds\t1-1[0_1]
1-4\t16-24\treceptor\t_[1]\tprotein[1]\t_\t_
1-5\t25-30\talpha\t_[1]\tprotein[1]\t_\t_
1-6\t31-32\t.\t_\t_\t_\t_

#Text=T cells grow .
2-1\t33-34\tT\t*[2]\tcell[2]\t_\t_
2-2\t35-40\tcells\t*[2]\tcell[2]\t_\t_
2-3\t41-45\tgrow\t_\t_\t_\t_
2-4\t46-47\t.\t_\t_\t_\t_
"""


def test_webanno_tsv(tmp_path: Path, sqlite_url: str) -> None:
    p = tmp_path / "doc7.tsv"
    p.write_text(WEBANNO, encoding="utf-8")
    [d] = read_webanno_lenient(p).documents
    assert d.document.external_id == "doc7"
    assert d.document.text == "IL-2 binds IL-2 receptor alpha .\nT cells grow ."
    spans = d.annotations.spans
    assert [(s.id, s.type, s.text) for s in spans] == [
        ("T1", "protein", "IL-2"), ("T2", "protein", "IL-2 receptor alpha"), ("T3", "cell", "T cells"),
    ]  # fmt: skip
    assert spans[0].groundings == (Grounding("http://www.uniprot.org/uniprot/P60568"),)
    [r] = d.annotations.relations
    assert r.type == "binds" and r.args == (Argument("Arg1", "T1"), Argument("Arg2", "T2"))
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    assert c.import_file(p, "webanno", "alice", allow_unknown=True).items["spans"] == 3


def test_webanno_refusals(tmp_path: Path) -> None:
    p = tmp_path / "bad.tsv"
    p.write_text(
        WEBANNO.replace("1-1[0_1]", "1-9[0_1]").replace("2-3\t41-45", "2-3\t41_45"), encoding="utf-8"
    )
    msgs = [str(x) for x in read_webanno_lenient(p).problems]
    assert any("line 17: offsets '41_45' are not START-END" in m for m in msgs)
    assert any("line 9: relation from 1-9[0_1] finds no NamedEntity span at its ends" in m for m in msgs)
    (tmp_path / "x.tsv").write_text("hello\n", encoding="utf-8")
    assert "not a WebAnno TSV 3 file" in str(read_webanno_lenient(tmp_path / "x.tsv").problems[0])


def test_label_studio_one_annotator_at_a_time(tmp_path: Path, sqlite_url: str) -> None:
    tasks = json.loads(json.dumps(LABEL_STUDIO))
    tasks[0]["annotations"][1]["result"] = [
        {"id": "b1", "type": "labels", "value": {"start": 20, "end": 27, "labels": ["cell"]}}
    ]
    tasks.append({"id": 102, "data": {"text": "x"}, "annotations": [{"completed_by": 3, "result": []}]})
    p = tmp_path / "ls.json"
    p.write_text(json.dumps(tasks, indent=2), encoding="utf-8")
    res = read_labelstudio(p, completed_by="4")
    [d] = res.documents
    assert [(s.id, s.text) for s in d.annotations.spans] == [("b1", "T cells")] and d.warnings == ()
    assert res.rejected == ["102"] and "task 102: no annotation by 4" in str(res.problems[0])
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    c.import_file(p, "labelstudio", "carol", options={"completed_by": 3}, allow_unknown=True)
    rep = c.import_file(p, "labelstudio", "dave", options={"completed_by": 4}, allow_unknown=True)
    assert rep.documents == 1 and rep.items["spans"] == 1 and rep.rejected == ("102",)
    assert {(s.annotator, s.document_external_id) for s in c.sets()} == {
        ("carol", "101"), ("carol", "102"), ("dave", "101"),
    }  # fmt: skip
