"""`corpusdb export json` writes what releases write: the same documents and annotations as release.json
(entities whole, groundings kept), for gold or for one annotator's readable sets."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from corpusdb.cli.main import main


def test_export_json_matches_the_release(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    monkeypatch.delenv("CORPUSDB_URL", raising=False)
    assert main(["demo"]) == 0  # the biomedical sample: gold finished, release v1
    assert main(["export", "json", "gold.json", "--gold"]) == 0
    assert main(["releases", "export", "v1", "rel"]) == 0
    mine = json.loads((tmp_path / "gold.json").read_text(encoding="utf-8"))
    release = json.loads((tmp_path / "rel" / "release.json").read_text(encoding="utf-8"))
    assert mine["format"] == "corpusdb-annotations"
    keys = ("id", "text", "split", "annotations")
    assert [{k: d[k] for k in keys} for d in mine["documents"]] == [
        {k: d[k] for k in keys} for d in release["documents"]
    ]
    bind1 = next(d for d in mine["documents"] if d["id"] == "bind-1")["annotations"]
    assert len(bind1["entities"]) == 1 and any(s.get("groundings") for s in bind1["spans"])
    assert main(["export", "json", "alice.json", "-a", "alice"]) == 0
    alice = json.loads((tmp_path / "alice.json").read_text(encoding="utf-8"))
    assert sum(len(d["annotations"]["relations"]) for d in alice["documents"]) == 5
