"""``corpusdb import`` / ``export``: output, every problem on stderr, and the documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]
SAMPLE = Path(__file__).resolve().parent / "fixtures" / "biorelex" / "sample.json"


def run(capsys: Cap, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    c = capsys.readouterr()
    return code, c.out, c.err


def write(root: Path, files: dict[str, str]) -> Path:
    for rel, body in files.items():
        p = root / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_bytes(body.encode("utf-8"))
    return root


GOOD = {"d1.txt": "IL-2 binds.", "d1.ann": "T1\tProtein 0 4\tIL-2\n", "d2.txt": "p53", "d2.ann": ""}


def test_import_export_and_exit_codes(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "p", "--schema", "ge-2011")[0] == 0
    src = write(tmp_path / "src", GOOD)
    code, out, err = run(capsys, "--db", db, "import", "brat", str(src), "--annotator", "alice")
    assert code == 0 and "imported 2 documents (2 new) as alice" in out and err == ""
    code, out, _ = run(capsys, "--db", db, "-f", "json", "import", "brat", str(src), "-a", "alice")
    data = json.loads(out)
    assert code == 0 and data["sets_unchanged"] == 2 and data["sets_created"] == 0
    # invalid files: every problem on stderr, one per line, exit 4, nothing stored
    bad = write(
        tmp_path / "bad",
        {**GOOD, "x.txt": "abc", "x.ann": "T1\tProtein 0 3\tabd\nT2\tProtein 0 9\tabc\n", "y.ann": "",
         "z.txt": "a\u00a0b", "z.ann": "T1\tProtein 0 3\ta b\n"},
    )  # fmt: skip
    code, out, err = run(capsys, "--db", db, "import", "brat", str(bad), "-a", "bob")
    lines = err.splitlines()
    assert code == 4 and out == ""
    assert sum(": error: " in ln and not ln.startswith("corpusdb:") for ln in lines) == 3
    assert any("x.ann:1: error:" in ln for ln in lines) and any("x.ann:2: error:" in ln for ln in lines)
    assert any("y.ann: error: annotation file without its text" in ln for ln in lines)
    assert any("z.ann:1: warning:" in ln for ln in lines)  # warnings are printed too
    assert (
        lines[-1]
        == "corpusdb: error: import rejected, nothing was stored: 3 errors in 2 files (listed above)"
    )
    code, out, _ = run(capsys, "--db", db, "-f", "json", "status")
    assert json.loads(out)["documents"] == 2 and "bob" not in out
    # lenient: the valid documents go in, the rest is listed
    code, out, err = run(capsys, "--db", db, "import", "brat", str(bad), "-a", "bob", "--lenient")
    assert code == 0 and "2 rejected" in out and "x.ann:1: error:" in err
    # a different text under a stored id: conflict, exit 6
    clash = write(tmp_path / "clash", {"d1.txt": "IL-2 binds?", "d1.ann": ""})
    code, _, err = run(capsys, "--db", db, "import", "brat", str(clash), "-a", "carol")
    assert code == 6 and "already stored with a different text" in err
    # usage errors (exit 2) and permission (exit 5)
    assert run(capsys, "--db", db, "import", "brat", str(src))[0] == 2
    assert run(capsys, "--db", db, "import", "brat", str(src), "-a", "x", "--kind", "gold")[0] == 2
    assert run(capsys, "--db", db, "import", "brat", str(src), "-a", "x", "--kind", "nope")[0] == 2
    assert run(capsys, "--db", db, "--as", "alice", "import", "brat", str(src), "-a", "alice")[0] == 5
    # exports
    out_dir = tmp_path / "out"
    code, out, _ = run(capsys, "--db", db, "--as", "alice", "export", "brat", str(out_dir))
    assert code == 0 and "exported 2 documents" in out
    assert (out_dir / "src" / "d1.ann").exists() is False and (out_dir / "d1.ann").read_bytes() == (
        src / "d1.ann"
    ).read_bytes()
    assert run(capsys, "--db", db, "--as", "alice", "export", "brat", str(out_dir))[0] == 6  # exists
    assert run(capsys, "--db", db, "--as", "alice", "export", "brat", str(out_dir), "--force")[0] == 0
    assert (
        run(capsys, "--db", db, "--as", "alice", "export", "brat", str(tmp_path / "b"), "-a", "bob")[0] == 5
    )
    assert run(capsys, "--db", db, "export", "brat", str(tmp_path / "c"))[0] == 2  # whose?
    assert run(capsys, "--db", db, "export", "brat", str(tmp_path / "c"), "--gold")[0] == 3  # no gold yet


def test_biorelex_through_the_cli(tmp_path: Path, capsys: Cap) -> None:
    db = str(tmp_path / "c.sqlite")
    assert run(capsys, "--db", db, "init", "bx", "--schema", "biorelex-1.0")[0] == 0
    code, out, err = run(capsys, "--db", db, "import", "biorelex", str(SAMPLE), "--kind", "gold")
    assert code == 0 and "as gold" in out, err
    target = tmp_path / "gold.json"
    code, out, _ = run(capsys, "--db", db, "-f", "json", "export", "biorelex", str(target), "--gold")
    assert code == 0 and json.loads(out)["documents"] == 4
    assert target.read_bytes() == SAMPLE.read_bytes()
    (tmp_path / "broken.json").write_text("[{", encoding="utf-8")
    code, _, err = run(capsys, "--db", db, "import", "biorelex", str(tmp_path / "broken.json"), "-a", "x")
    assert code == 4 and "broken.json:1: not valid JSON" in err and err.count("error:") == 1  # said once
