"""Group keys from a rule (file-name pattern, metadata field, TSV) and splits from the corpus's folders:
after them, no paper has sections in two splits, and a release can keep the corpus's own split."""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import FormatError, PermissionDenied, UsageError
from corpusdb.basics.records import Document
from tests.conftest import shared_path

DOCS = [
    Document("PMC-1-00-TIAB", "a", metadata={"pmid": 1}),
    Document("PMC-1-01-Methods", "b", metadata={"pmid": 1}),
    Document("PMC-2-00-TIAB", "c", metadata={"pmid": 2}),
    Document("PMC-2-01-Results", "d"),
    Document("9999", "e"),
]


def _splits(c: Corpus) -> dict[str, set[str]]:
    where: dict[str, set[str]] = defaultdict(set)
    for d in c.documents():
        where[d.group_key or d.external_id].add(d.split or "")
    return where


def test_rules(sqlite_url: str, tmp_path: Path) -> None:
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    c.add_documents(DOCS)
    dry = c.set_group_keys(r"re:^(PMC-\d+)-", dry_run=True)
    assert (dry.changed, dry.unmatched, dry.groups) == (4, ("9999",), {"PMC-1": 2, "PMC-2": 2})
    assert {d.group_key for d in c.documents()} == {None}
    c.set_group_keys(r"re:^(PMC-\d+)-")
    assert {d.external_id: d.group_key for d in c.documents()}["PMC-2-01-Results"] == "PMC-2"
    rep = c.set_group_keys("meta:pmid")
    assert rep.changed == 3 and rep.unmatched == ("PMC-2-01-Results", "9999")
    tsv = tmp_path / "g.tsv"
    tsv.write_text("9999\tpaper-x\nPMC-1-00-TIAB\tpaper-x\n", encoding="utf-8")
    assert c.set_group_keys(f"tsv:{tsv}").changed == 2
    tsv.write_text("9999\n", encoding="utf-8")
    with pytest.raises(FormatError, match=r"g\.tsv:1: error: expected document<TAB>group"):
        c.set_group_keys(f"tsv:{tsv}")
    with pytest.raises(UsageError, match="use re:PATTERN"):
        c.set_group_keys("PMC")
    c.add_annotator("alice")
    with pytest.raises(PermissionDenied):
        c.as_user("alice").set_group_keys("meta:pmid")
    assert [e.action for e in c.history()].count("set_group_keys") == 3  # the dry run is not recorded


@pytest.mark.shared
@pytest.mark.slow
def test_genia_papers_stay_in_one_split(sqlite_url: str) -> None:
    c = Corpus.create("p", "ge-2011", url=sqlite_url)
    c.import_brat(shared_path("data", "bionlp-st-2011-ge"), "alice")
    c.split(seed=1)
    mixed = [g for g, s in _splits(c).items() if g.startswith("PMC") and len(s) > 1]
    assert mixed == []  # nothing to see without keys: each section is its own group...
    papers = {d.external_id.split("-")[1] for d in c.documents() if d.external_id.startswith("PMC")}
    by_paper: dict[str, set[str]] = defaultdict(set)
    for d in c.documents():
        if d.external_id.startswith("PMC"):
            by_paper[d.external_id.split("-")[1]].add(d.split or "")
    assert (
        len(papers) == 10 and sum(len(s) > 1 for s in by_paper.values()) >= 5
    )  # ...so papers straddle splits
    rep = c.set_group_keys(r"re:^(PMC-\d+)-")
    assert len([g for g in rep.groups if g.startswith("PMC")]) == 10
    c.split(seed=1, reset=True)
    assert [g for g, s in _splits(c).items() if len(s) > 1] == []
    kept = c.keep_source_splits()
    assert kept == {"devel": 259, "train": 908}
    assert {d.split for d in c.documents()} == {"train", "devel"}
