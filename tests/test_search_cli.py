"""``corpusdb search`` (SQLite and PostgreSQL): KWIC lines naming document and offsets, JSON, counts
per document and type, bulk annotation and its undo, bulk gold correction, and clear errors with
their exit codes. On the bundled sample (real CoNLL-2002 Spanish news, four annotators)."""

from __future__ import annotations

import json
import re

import pytest

from corpusdb.cli.main import main
from corpusdb.demo import build_demo


@pytest.fixture
def db(any_url: str) -> list[str]:
    build_demo(any_url)
    return ["--db", any_url]


def run(capsys: pytest.CaptureFixture[str], argv: list[str], code: int = 0) -> tuple[str, str]:
    assert main(argv) == code, capsys.readouterr().err
    cap = capsys.readouterr()
    return cap.out, cap.err


def test_kwic_lines_name_document_offsets_and_context(
    db: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    out, err = run(capsys, [*db, "search", "Madrid", "-C", "15"])
    lines = out.splitlines()
    assert lines and re.match(r"^\d+ hit\(s\)", err)
    for line in lines:
        _doc, at, what, ctx = line.split("\t")
        start, stop = map(int, at.split("-"))
        assert what == "text" and "[Madrid]" in ctx and stop - start == 6
    # JSON: every hit with its document, offsets, text and context; the same hits as the lines
    j, _ = run(capsys, [*db, "-f", "json", "search", "Madrid", "-C", "15"])
    body = json.loads(j)
    assert body["finds"] == "text" and body["index"] in ("fts5", "pg_trgm")
    assert [(h["document"], h["start"], h["stop"]) for h in body["hits"]] == [
        (ln.split("\t")[0], *map(int, ln.split("\t")[1].split("-"))) for ln in lines
    ]
    assert all(h["text"] == "Madrid" and h["left"] and h["kind"] == "text" for h in body["hits"])
    # span hits: annotator, id, type
    out, _ = run(capsys, [*db, "search", "annotator:Lisa", "type:LOC", "Madrid"])
    assert out and all(
        ln.split("\t")[2].startswith("Lisa T") and " LOC" in ln.split("\t")[2] for ln in out.splitlines()
    )
    # -d (repeatable) keeps to those documents: exactly their hits, in the same order
    docs = sorted({ln.split("\t")[0] for ln in lines})[:2]
    out, _ = run(capsys, [*db, "search", "Madrid", "-C", "15", "-d", docs[0], "-d", docs[-1]])
    assert out.splitlines() == [ln for ln in lines if ln.split("\t")[0] in docs]
    # a limit says there is more
    out, err = run(capsys, [*db, "search", "de", "-n", "3"])
    assert len(out.splitlines()) == 3 and "more: --limit 30" in err


def test_counts_per_document_and_type(db: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    j, _ = run(capsys, [*db, "-f", "json", "search", "type:PER,LOC", "--count"])
    body = json.loads(j)
    assert set(body["by_type"]) == {"PER", "LOC"} and body["total"] == sum(body["by_type"].values())
    out, _ = run(capsys, [*db, "search", "type:PER,LOC", "--count"])
    lines = out.splitlines()
    assert lines[0] == "document\ttype\thits"
    assert lines[-1].startswith(f"total: {body['total']} hit(s) in {body['documents']} document(s) (LOC ")
    assert sum(int(ln.split("\t")[2]) for ln in lines[1:-1]) == body["total"]
    j, _ = run(capsys, [*db, "-f", "json", "search", "Madrid", "--count"])
    assert set(json.loads(j)["by_type"]) == {"text"}


def test_errors_are_one_line_with_their_exit_code(db: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    for argv, code, what in (
        (["search", "tipo:PER"], 2, "unknown field 'tipo'"),
        (["search", '"open'], 2, "not closed"),
        (["search", "annotator:Mario"], 3, "no annotator named 'Mario'"),
        (["--as", "Lisa", "search", "annotator:Max"], 5, "only their own sets"),
        (["search", "type:PER", "--set-type", "ORG"], 2, "needs --reason"),
        (["--as", "Lisa", "search", "Madrid", "--annotate", "City"], 4, "no entity type"),
    ):
        _, err = run(capsys, [*db, *argv], code)
        assert what in err and len(err.strip().splitlines()) == 1, (argv, err)


def test_bulk_annotation_and_correction_from_the_command_line(
    db: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    run(capsys, [*db, "reopen", "1", "-r", "a second pass"])  # Lisa's first set, editable again
    j, _ = run(capsys, [*db, "-f", "json", "sets"])
    doc = next(h["document"] for h in json.loads(j) if h["id"] == 1)
    count = [*db, "--as", "Lisa", "-f", "json", "search", "annotator:Lisa", "type:MISC", "de", "--count"]
    before = json.loads(run(capsys, count)[0])["total"]
    j, _ = run(capsys, [*db, "--as", "Lisa", "-f", "json", "search", "de", "--annotate", "MISC"])
    got = json.loads(j)
    assert [s["document"] for s in got["sets"]] == [doc] and got["total"] > 0
    assert got["skipped"] and all("submitted" in s["why"] for s in got["skipped"])  # her other sets
    assert json.loads(run(capsys, count)[0])["total"] == before + got["total"]
    out, _ = run(capsys, [*db, "--as", "Lisa", "search", "--undo", got["bulk"]])
    assert out.splitlines()[-1] == f"total: {got['total']} MISC span(s) removed in 1 set(s)"
    assert json.loads(run(capsys, count)[0])["total"] == before  # her own spans from before stay
    # a lead corrects gold (the sample has none: adjudicate one document first)
    run(capsys, [*db, "--as", "Ana", "adjudicate"])
    j, _ = run(capsys, [*db, "-f", "json", "search", "annotator:gold", "type:MISC", "--count"])
    n = json.loads(j)["total"]
    assert n > 0
    out, _ = run(
        capsys, [*db, "--as", "Ana", "search", "type:MISC", "--set-type", "ORG", "-r", "MISC retired (v2)"]
    )
    assert (
        out.splitlines()[-1]
        == f"total: {n} correction(s) on {len({ln.split(chr(9))[1] for ln in out.splitlines()[1:-1]})} document(s), reason: MISC retired (v2)"
    )
    j, _ = run(capsys, [*db, "-f", "json", "search", "annotator:gold", "type:MISC", "--count"])
    assert json.loads(j)["total"] == 0
