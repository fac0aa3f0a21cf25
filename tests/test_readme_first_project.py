"""The README's "first project in ten minutes" runs as written on a user's own brat files.

The fixture (tests/fixtures/first-project/) is two annotators' brat folders over three texts; the
test copies them where the README says they are (texts/, alice/, bob/) and runs every command of the
section's ```sh blocks in order, then checks what a newcomer should have: agreement, gold, a release.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from tests.shell_examples import REPO, run, section, sh_blocks

FIXTURE = Path(__file__).parent / "fixtures" / "first-project"


def first_project_commands() -> list[str]:
    text = (REPO / "README.md").read_text(encoding="utf-8")
    return [
        cmd for block in sh_blocks(section(text, "## Your first project in ten minutes")) for cmd in block
    ]


def test_first_project_names_each_step() -> None:
    """The walk covers every step the README promises: init, import, assign, annotate, agree, adjudicate, release."""
    verbs = {
        cmd.split()[1] if not cmd.split()[1].startswith("--") else cmd.split()[3]
        for cmd in first_project_commands()
    }
    assert {"init", "import", "assign", "agree", "adjudicate", "release"} <= verbs


def test_first_project_runs_as_written(tmp_path: Path) -> None:
    (tmp_path / "texts").mkdir()
    for txt in (FIXTURE / "alice").glob("*.txt"):
        shutil.copy(txt, tmp_path / "texts" / txt.name)
    shutil.copytree(FIXTURE / "alice", tmp_path / "alice")
    shutil.copytree(FIXTURE / "bob", tmp_path / "bob")
    outputs = {cmd: run(cmd, tmp_path).stdout for cmd in first_project_commands()}

    agree = next(out for cmd, out in outputs.items() if cmd == "corpusdb agree")
    assert "mean pairwise F1: 0.800" in agree  # 6 spans matched, alice 1 and bob 2 one-sided
    manifest = json.loads((tmp_path / "release-v1" / "manifest.json").read_text(encoding="utf-8"))
    assert manifest["version"] == "v1"
    release = json.loads((tmp_path / "release-v1" / "release.json").read_text(encoding="utf-8"))
    docs = {d["id"]: d for d in release["documents"]}
    assert set(docs) == {"doc1", "doc2", "doc3"}
    assert {d["split"] for d in docs.values()} == {"train", "test"}
    gold2 = json.dumps(docs["doc2"])
    assert "HostPart" in gold2  # bob's span, which only he marked, taken by judy
    gold_brat = sorted((tmp_path / "release-v1" / "brat").rglob("doc3.a*")) or sorted(
        (tmp_path / "release-v1" / "brat").rglob("doc3.ann")
    )
    assert gold_brat and "sea water" in gold_brat[0].read_text(encoding="utf-8")  # alice's boundary
