"""Adjudicated gold of a BioNLP corpus leaves as the corpus's own files: ``.a1``/``.a2``, trigger-less
``E`` lines kept as ``E`` lines, the original ids and order — in exports and in releases."""

from __future__ import annotations

from pathlib import Path

import pytest

from corpusdb.api import Corpus
from tests.conftest import shared_path

TXT = "Bacillus subtilis lives in soil and in the gut of mice."
A1 = "T1\tBacterium 0 17\tBacillus subtilis\nT2\tSoil 27 31\tsoil\n"
A2 = "T3\tHost 50 54\tmice\nT4\tHostPart 43 46\tgut\nE1\tPartOf Host:T3 Part:T4\nE2\tLocalization Bacterium:T1 Localization:T2\n"


def _two_annotators(tmp: Path, url: str, src: Path, schema: str = "bb-2011") -> Corpus:
    c = Corpus.create("p", schema, url=url)
    for who in ("alice", "bob"):
        c.import_brat(src, who)
    c.merge()
    return c


def test_gold_keeps_files_e_lines_and_ids(tmp_path: Path, sqlite_url: str) -> None:
    src = tmp_path / "src"
    src.mkdir()
    (src / "d1.txt").write_text(TXT, encoding="utf-8")
    (src / "d1.a1").write_text(A1, encoding="utf-8")
    (src / "d1.a2").write_text(A2, encoding="utf-8")
    c = _two_annotators(tmp_path, sqlite_url, src)
    c.export_brat(tmp_path / "gold", gold=True)
    assert sorted(p.name for p in (tmp_path / "gold").iterdir()) == ["d1.a1", "d1.a2", "d1.txt"]
    assert (tmp_path / "gold" / "d1.a1").read_text() == A1
    assert (tmp_path / "gold" / "d1.a2").read_text() == A2
    c.split(ratios=[1.0], names=["train"])
    c.finish_gold("d1")  # everything agreed: the adjudicator finishes gold, then it is released
    c.release("v1", outdir=tmp_path / "rel")
    assert sorted(p.name for p in (tmp_path / "rel" / "brat" / "train").iterdir()) == [
        "d1.a1",
        "d1.a2",
        "d1.txt",
    ]
    assert "E1\tPartOf Host:T3 Part:T4" in (tmp_path / "rel" / "brat" / "train" / "d1.a2").read_text()


@pytest.mark.shared
@pytest.mark.slow
def test_bacteria_biotope_gold_has_the_corpus_lines(tmp_path: Path, sqlite_url: str) -> None:
    src = shared_path("data", "bionlp-st-2011-bb-train")
    c = _two_annotators(tmp_path, sqlite_url, src)
    c.export_brat(tmp_path / "gold", gold=True, flat=True)
    written = sorted(p.name for p in (tmp_path / "gold").iterdir() if not p.name.endswith(".txt"))
    originals = {p.name: p for p in src.rglob("*.a2")}
    assert written == sorted(originals) and len(written) == 65
    for name in written:  # gold agreed by everyone is the corpus's own lines, in place
        got, want = (tmp_path / "gold" / name).read_text("utf-8"), originals[name].read_text("utf-8")
        assert _without_stars(got) == _without_stars(want), name
        # an entity is a cluster: Equiv lines drawing one cluster (T4 T5, T4 T6) come back as one line
        assert _clusters(got) == _clusters(want), name
        if len(want.splitlines()) - len(_without_stars(want)) == len(_clusters(want)):
            assert got == want, name  # each cluster drawn on one line: the file byte for byte


def _without_stars(text: str) -> list[str]:
    return [ln for ln in text.splitlines() if not ln.startswith("*")]


def _clusters(text: str) -> set[tuple[str, frozenset[str]]]:
    """The clusters the ``*`` lines draw: the closure of each type's lines."""
    parent: dict[tuple[str, str], tuple[str, str]] = {}

    def find(x: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(x, x) != x:
            x = parent[x]
        return x

    for ln in text.splitlines():
        if ln.startswith("*"):
            kind, *members = ln.split("\t")[1].split()
            for m in members[1:]:
                parent[find((kind, m))] = find((kind, members[0]))
    out: dict[tuple[str, str], set[str]] = {}
    for node in list(parent):
        out.setdefault(find(node), set()).add(node[1])
    return {(root[0], frozenset(ms)) for root, ms in out.items()}


@pytest.mark.shared
@pytest.mark.slow
def test_genia_gold_keeps_events_attributes_and_ids(tmp_path: Path, sqlite_url: str) -> None:
    """GENIA 2011: events with triggers, M lines, Equiv sets; only ``*`` lines may differ, and only in
    how they draw the same clusters."""
    src = shared_path("data", "bionlp-st-2011-ge")
    c = _two_annotators(tmp_path, sqlite_url, src, "ge-2011")
    c.export_brat(tmp_path / "gold", gold=True)
    originals = {p.relative_to(src).as_posix(): p for p in src.rglob("*.a[12]")}
    differ = []
    for rel, orig in originals.items():
        got, want = (tmp_path / "gold" / rel).read_text(encoding="utf-8"), orig.read_text(encoding="utf-8")
        if got != want:
            differ.append(rel)
            keep = [ln for ln in want.splitlines() if not ln.startswith("*")]
            assert [ln for ln in got.splitlines() if not ln.startswith("*")] == keep, rel
            assert _clusters(got) == _clusters(want), rel
            assert len(want.splitlines()) - len(keep) != len(_clusters(want)), rel  # one line each: identical
    assert len(originals) == 2334 and len(differ) < len(originals) // 5
