"""Blind test releases (issue 28): the blind split's files show texts and the given layers only, in
every format the release writes; its gold stays in the database (scoring against the release still
sees it); the manifest says what was withheld; the participants' package validates a run."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput
from corpusdb.cli.main import main
from tests.conftest import shared_path

Cap = pytest.CaptureFixture[str]
MINI = Path(__file__).resolve().parent / "fixtures" / "bb2011-mini"


def _project(url: str, data: Path, ratios: str = "50/50") -> list[str]:
    base = ["--db", url.removeprefix("sqlite:///")]
    assert main([*base, "init", "bb", "--schema", "bb-2011"]) == 0
    assert main([*base, "import", "brat", str(data), "--kind", "gold"]) == 0
    assert main([*base, "split", "--ratios", ratios, "--names", "train/test"]) == 0
    return base


def _check_blind(out: Path, corpus: Corpus) -> None:
    man = json.loads((out / "manifest.json").read_text("utf-8"))
    assert man["blind"]["split"] == "test" and man["blind"]["given"] == ["spans"]
    assert "relations" in man["blind"]["withheld"] and "links" in man["blind"]["withheld"]
    snap = json.loads((out / "release.json").read_text("utf-8"))
    test = [d for d in snap["documents"] if d["split"] == "test"]
    assert test and all(set(d["annotations"]) <= {"spans"} and not d["decisions"] for d in test)
    assert any(d["annotations"].get("relations") for d in snap["documents"] if d["split"] == "train")
    for f in (out / "brat" / "test").iterdir():  # no relation, event or Equiv line in the blind split
        if f.suffix != ".txt":
            assert all(line[0] == "T" for line in f.read_text("utf-8").splitlines()), f
    log = json.loads((out / "changelog.json").read_text("utf-8"))
    assert not any(e.get("document") in {d["id"] for d in test} for e in log.get("added", []))
    pkg = out / "participants"
    texts = sorted(p.name for p in (pkg / "texts").iterdir())
    assert texts == sorted(f"{d['id']}.{x}" for d in test for x in ("txt", "a1"))
    assert "corpusdb validate RUN_FOLDER --task participants" in (pkg / "README.md").read_text("utf-8")
    # the gold stays in the database: scoring against the release's test split sees every relation
    data = corpus.evaluation_data(release="v1", split="test", systems=[])
    assert sum(len(a.relations) for a in data.reference.values()) > 0


def test_a_blind_release_withholds_the_test_gold_from_every_file(sqlite_url: str, tmp_path: Path,
                                                                 capsys: Cap) -> None:  # fmt: skip
    base = _project(sqlite_url, MINI)
    out = tmp_path / "rel"
    assert main([*base, "release", "v1", "--blind", "test", "--give", "spans", "--out", str(out)]) == 0
    assert "split test released blind" in capsys.readouterr().out
    c = Corpus.open(url=sqlite_url)
    _check_blind(out, c)
    # re-exported later, byte for byte the same (checked against the manifest)
    again = tmp_path / "again"
    c.export_release("v1", again)
    assert {p.relative_to(again): p.read_bytes() for p in again.rglob("*") if p.is_file()} == {
        p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()
    }


def test_the_participants_package_validates_a_run(sqlite_url: str, tmp_path: Path, capsys: Cap) -> None:
    base = _project(sqlite_url, MINI)
    out = tmp_path / "rel"
    assert main([*base, "release", "v1", "--blind", "test", "--give", "spans", "--out", str(out)]) == 0
    test_doc = next((out / "participants" / "texts").glob("*.a1")).stem
    run = tmp_path / "run"
    run.mkdir()
    gold = [ln for ln in (MINI / f"{test_doc}.a2").read_text("utf-8").splitlines() if ln.startswith("E")]
    (run / f"{test_doc}.a2").write_text("\n".join(gold) + "\nE99\tLocalization Bacterium:T1 Localization:T1\n",
                                        encoding="utf-8")  # fmt: skip
    capsys.readouterr()
    assert main(["validate", str(run), "--task", str(out / "participants")]) == 4
    lines = capsys.readouterr().out.splitlines()
    assert lines == [f"{run / f'{test_doc}.a2'}:{len(gold) + 1}: error: relation E99: Localization:T1 is a "
                     "Bacterium; Localization takes Host, HostPart, Geographical, Environment, Food, Medical, "
                     "Soil, Water"]  # fmt: skip


def test_blind_options_are_checked(sqlite_url: str, tmp_path: Path) -> None:
    _project(sqlite_url, MINI)
    c = Corpus.open(url=sqlite_url)
    with pytest.raises(InvalidInput, match="no such split"):
        c.release("v1", blind_split="dev", agreement=False)
    with pytest.raises(InvalidInput, match="give spans too"):
        c.release("v1", blind_split="test", give=["relations"], agreement=False)
    with pytest.raises(InvalidInput, match="--blind SPLIT"):
        c.release("v1", give=["spans"], agreement=False)
    assert c.releases() == []


def test_real_bb_2011_blind_release(sqlite_url: str, tmp_path: Path) -> None:
    data = shared_path("data", "bionlp-st-2011-bb-train")
    base = _project(sqlite_url, data, "60/40")
    out = tmp_path / "rel"
    assert main([*base, "release", "v1", "--blind", "test", "--give", "spans", "--out", str(out)]) == 0
    _check_blind(out, Corpus.open(url=sqlite_url))
    shutil.rmtree(out)
