"""The new ``corpusdb import`` / ``export`` commands: summaries, notes on stderr, one line per problem and
the documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]

PUBTATOR = (
    "1|t|IL-2 binds IL2RA.\n1\t0\t4\tIL-2\tGene\t3558\n1\t11\t16\tIL2RA\tGene\t3559\n1\tBind\t3558\t3559\n"
)


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


def test_formats_through_the_cli(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "p", "--schema", "ge-2011")[0] == 0
    src = tmp_path / "x.pubtator"
    src.write_text(PUBTATOR, encoding="utf-8")
    code, out, err = run(capsys, "--db", db, "import", "pubtator", str(src), "-a", "alice", "--allow-unknown")
    assert code == 0 and "imported 1 documents (1 new) as alice" in out and "2 spans, 1 relations" in out
    code, out, _ = run(
        capsys, "--db", db, "export", "bioc", str(tmp_path / "x.json"), "-a", "alice", "--json"
    )
    assert code == 0 and json.loads((tmp_path / "x.json").read_text())["documents"][0]["id"] == "1"
    code, out, _ = run(
        capsys,
        "--db",
        db,
        "-f",
        "json",
        "import",
        "bioc",
        str(tmp_path / "x.json"),
        "-a",
        "alice",
        "--allow-unknown",
    )
    assert code == 0 and json.loads(out)["sets_unchanged"] == 1  # the same content: nothing changes
    code, out, err = run(capsys, "--db", db, "export", "conll", str(tmp_path / "x.conll"), "-a", "alice",
                         "--tokenizer", "whitespace")  # fmt: skip
    assert code == 0 and "tokenisation: whitespace" in err and "IOB2 cannot express 1 relations" in err
    assert (
        (tmp_path / "x.conll")
        .read_text()
        .startswith("-DOCSTART- 1\n\nIL-2\tB-Gene\nbinds\tO\nIL2RA.\tB-Gene\n")
    )
    code, _, err = run(capsys, "--db", db, "export", "conll", str(tmp_path / "x.conll"), "-a", "alice")
    assert code == 6 and "exists; pass --overwrite" in err
    code, out, _ = run(
        capsys, "--db", db, "export", "network", str(tmp_path / "n.sif"), "-a", "alice", "--sif"
    )
    assert code == 0 and (tmp_path / "n.sif").read_text() == "3558\tBind\t3559\n"
    code, out, _ = run(capsys, "--db", db, "export", "spacy", str(tmp_path / "s.jsonl"), "-a", "alice")
    assert code == 0 and json.loads((tmp_path / "s.jsonl").read_text())["meta"] == {"id": "1"}


def test_refused_import_lists_every_problem(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    run(capsys, "--db", db, "init", "p", "--schema", "ge-2011")
    bad = tmp_path / "bad.jsonl"
    bad.write_text(
        '{"id": 1, "text": "ab", "label": [[0, 9, "X"]]}\n{"id": 2, "label": []}\n', encoding="utf-8"
    )
    code, out, err = run(capsys, "--db", db, "import", "doccano", str(bad), "-a", "alice", "--allow-unknown")
    lines = err.strip().splitlines()
    assert code == 4 and out == ""
    assert (
        lines[0] == f"{bad}:1: error: document '1': span T1 (X): offsets 0-9 are outside the text (length 2)"
    )
    assert lines[1] == f"{bad}:2: error: document '2': no 'text' string"
    assert run(capsys, "--db", db, "-f", "json", "status")[0] == 0
    code, out, _ = run(
        capsys, "--db", db, "import", "doccano", str(bad), "-a", "alice", "--lenient", "--allow-unknown"
    )
    assert code == 0 and "imported 0 documents" in out
