"""Releases that lose nothing and leave nothing behind (issue 22, items 5, 6 and 8).

* A release's brat files hold exactly what ``export brat --gold`` holds (Equiv clusters included), keep
  a BioNLP corpus's ids and line order, and give back the same gold when imported again.
* BioRelEx gold the brat format cannot hold whole (groundings with a space, names without a mention)
  is still released and exported: each format writes what it can and counts what it left out.
* Release names are checked as split names; the folder is checked, and written, before the release is
  stored; no temporary folder stays behind after a failure.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, InvalidInput
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.cli.main import main

Cap = pytest.CaptureFixture[str]


def _leftovers(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.iterdir() if p.name.startswith("."))


@pytest.fixture
def one_gold(sqlite_url: str) -> Corpus:
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.add_documents([Document(f"d{i}", "Bacillus lives in soil.") for i in range(3)])
    for i in range(3):
        c.create_set(f"d{i}", None, kind="gold", status="submitted",
                     annotations=Annotations(spans=(Span("T1", "Bacterium", ((0, 8),), "Bacillus"),)))  # fmt: skip
    return c


# -- item 8: names, the folder first, nothing left behind ------------------------------------------


@pytest.mark.parametrize(
    ("name", "why"),
    [("..", "not allowed"), ("a\nb", "control"), ("v" * 300, "at most 200"), ("../x", "path separator"),
     ("", "non-empty"), ("   ", "blank")],
)  # fmt: skip
def test_release_names_are_checked_as_split_names(
    one_gold: Corpus, name: str, why: str, tmp_path: Path
) -> None:
    with pytest.raises(InvalidInput, match=why):
        one_gold.release(name, agreement=False)
    with pytest.raises(InvalidInput, match=why):
        one_gold.release(name, outdir=tmp_path / "out", agreement=False)
    assert one_gold.releases() == [] and not (tmp_path / "out").exists()


def test_release_without_out_says_where_its_files_are(one_gold: Corpus, capsys: Cap) -> None:
    url = one_gold.engine.url.render_as_string(hide_password=False)
    assert main(["--db", url, "release", "v1", "--no-agreement"]) == 0
    out = capsys.readouterr().out
    assert "not written" in out and "corpusdb releases export v1 FOLDER" in out, out
    assert main(["--db", url, "release", "v\n2"]) == 4
    assert "control character" in capsys.readouterr().err


def test_a_folder_that_cannot_be_written_stores_no_release(one_gold: Corpus, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("in the way")
    with pytest.raises(Conflict, match="not a folder"):
        one_gold.release("v1", outdir=blocker, agreement=False)
    with pytest.raises(Conflict, match="not a folder"):
        one_gold.release("v1", outdir=blocker / "sub" / "rel", agreement=False)
    mine = tmp_path / "mine"
    mine.mkdir()
    (mine / "notes.txt").write_text("keep me")
    with pytest.raises(Conflict, match="other files"):
        one_gold.release("v1", outdir=mine, agreement=False)
    assert one_gold.releases() == []  # nothing stored: the release can be made again, elsewhere
    assert (mine / "notes.txt").read_text() == "keep me" and blocker.read_text() == "in the way"
    assert _leftovers(tmp_path) == []
    one_gold.release("v1", outdir=tmp_path / "rel", agreement=False)
    assert json.loads((tmp_path / "rel" / "manifest.json").read_text())["version"] == "v1"


def test_a_failure_while_storing_removes_the_staged_folder(
    one_gold: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The files are written before the release is stored; the store failing afterwards (injected
    here in the audit record of the same transaction) leaves neither the release nor any folder."""
    real = type(one_gold)._audit

    def failing(self: Corpus, conn: object, action: str, *args: object, **kw: object) -> None:
        if action == "release":
            raise OSError(5, "injected: the database went away")
        real(self, conn, action, *args, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(type(one_gold), "_audit", failing)
    with pytest.raises(OSError, match="injected"):
        one_gold.release("v1", outdir=tmp_path / "rel", agreement=False)
    monkeypatch.undo()
    assert one_gold.releases() == [] and not (tmp_path / "rel").exists()
    assert _leftovers(tmp_path) == []


def test_a_failed_replace_puts_the_old_folder_back_and_cleans_up(
    one_gold: Corpus, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Re-exporting over a folder (``--force``): when the final rename fails, the folder that was there
    comes back whole and neither the staged nor the moved-away copy stays behind."""
    one_gold.release("v1", agreement=False)
    one_gold.release("v2", agreement=False)
    out = tmp_path / "rel"
    one_gold.export_release("v1", out)
    before = {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()}
    from corpusdb.workflow import release_folder

    real = os.rename

    def refuse_the_new_one(src: object, dst: object) -> None:
        if INCOMPLETE_MARK in str(src):
            raise OSError(16, "injected: device or resource busy")
        real(src, dst)  # type: ignore[arg-type]

    INCOMPLETE_MARK = release_folder.INCOMPLETE
    monkeypatch.setattr(release_folder.os, "rename", refuse_the_new_one)
    with pytest.raises(OSError, match="injected"):
        one_gold.export_release("v2", out, force=True)
    monkeypatch.undo()
    assert {p.relative_to(out): p.read_bytes() for p in out.rglob("*") if p.is_file()} == before
    assert _leftovers(tmp_path) == []


@pytest.mark.skipif(
    hasattr(os, "geteuid") and os.geteuid() == 0,
    reason="root deletes read-only folders anyway: run as a user",
)
def test_a_read_only_copy_is_replaced_without_leftovers(one_gold: Corpus, tmp_path: Path) -> None:
    """A release whose folders someone made read-only, exported again with --force: the old copy goes
    whole (it used to stay behind as a hidden ``.replaced-`` folder of the release's size)."""
    one_gold.release("v1", agreement=False)
    one_gold.release("v2", agreement=False)
    out = tmp_path / "rel"
    one_gold.export_release("v1", out)
    for p in sorted(out.rglob("*"), reverse=True):
        p.chmod(0o555 if p.is_dir() else 0o444)
    one_gold.export_release("v2", out, force=True)
    assert json.loads((out / "manifest.json").read_text())["version"] == "v2"
    assert _leftovers(tmp_path) == []


# -- item 5: a release's brat files are gold's, and give gold back ------------------------------------

MINI = Path(__file__).parent / "fixtures" / "bb2011-mini"


def _bob_copy(src: Path, dst: Path) -> Path:
    """bob's version of the fixture: another type on `humans`, E3 and one Equiv line missing, an E line
    of his own in the middle (so his line numbers are not the corpus's), E2 of doc2 missing."""
    dst.mkdir()
    for p in src.iterdir():
        if p.suffix in (".txt", ".a2"):
            (dst / p.name).write_bytes(p.read_bytes())
    a2 = (dst / "doc1.a2").read_text(encoding="utf-8")
    a2 = a2.replace("T4\tHost 68 74", "T4\tHostPart 68 74").replace(
        "E3\tLocalization Bacterium:T1 Localization:T5\n", ""
    )
    a2 = a2.replace("*\tEquiv T2 T7\n", "").replace(
        "E5\t", "E7\tLocalization Bacterium:T6 Localization:T7\nE5\t"
    )
    (dst / "doc1.a2").write_text(a2, encoding="utf-8")
    doc2 = (dst / "doc2.a2").read_text(encoding="utf-8")
    (dst / "doc2.a2").write_text(
        doc2.replace("E2\tLocalization Bacterium:T1 Localization:T3\n", ""), encoding="utf-8"
    )
    return dst


def _items(ann: Annotations) -> dict[str, object]:
    """Every item of a set, compared as content (clusters as member sets, however they are drawn)."""
    from corpusdb.basics.clusters import clusters

    return {
        "spans": sorted((s.id, s.type, s.fragments, s.text) for s in ann.spans),
        "relations": sorted((r.id, r.type, tuple((a.role, a.ref) for a in r.args)) for r in ann.relations),
        "clusters": sorted(sorted(c.members) for c in clusters(ann)),
        "links": sorted(
            (lk.type, lk.source, lk.target) for lk in ann.links if lk.type not in ("Equiv", "coreference")
        ),
    }


def _reimported(tmp: Path, url: str, brat: Path) -> dict[str, Annotations]:
    again = Corpus.create("again", "bb-2011", url=url)
    again.import_brat(brat, None, kind="gold")
    return {d.external_id: again.gold(d.external_id).annotations for d in again.documents()}


def test_a_release_holds_gold_as_export_brat_does_and_gives_it_back(sqlite_url: str, tmp_path: Path) -> None:
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    c.import_brat(MINI, "alice")
    c.import_brat(_bob_copy(MINI, tmp_path / "bob"), "bob", force=True)
    c.add_annotator("judy", "adjudicator")
    judy = c.as_user("judy")
    judy.merge()
    humans = "span:68-74"
    assert judy.resolve("doc1", humans, take="bob").gold_item_id == "T4"
    judy.undo_decision("doc1", humans)  # E1, E2 leave gold with it...
    assert judy.resolve("doc1", humans, take="alice").gold_item_id == "T4"  # ... T4 stays T4
    extra = "relation:Localization(Bacterium=span:85-95,Localization=span:118-127)"
    judy.resolve("doc1", extra, take="bob")  # bob's own E line: after the corpus's lines
    judy.resolve_bulk(None, take="alice")  # the rest as the corpus has it (E3, the cluster, doc2's E2)
    for d in ("doc1", "doc2"):
        judy.finish_gold(d)
    c.split(ratios=[1.0], names=["train"])
    info = c.release("v1", outdir=tmp_path / "rel", agreement=False)
    c.export_brat(tmp_path / "gold", gold=True)
    gold_files = {p.name: p.read_bytes() for p in (tmp_path / "gold").iterdir()}
    rel_files = {p.name: p.read_bytes() for p in (tmp_path / "rel" / "brat" / "train").iterdir()}
    assert rel_files == gold_files  # the release's brat files are export brat --gold's, byte for byte
    got = gold_files["doc1.a2"].decode().splitlines()
    want = (MINI / "doc1.a2").read_text(encoding="utf-8").splitlines()
    # the corpus's lines, ids and order; its cluster drawn as two lines is one line; bob's E line last
    merged = [ln for ln in want if ln not in ("*\tEquiv T2 T3", "*\tEquiv T2 T7")]
    merged.insert(want.index("*\tEquiv T2 T3"), "*\tEquiv T2 T3 T7")
    assert got == [*merged, "E7\tLocalization Bacterium:T6 Localization:T7"]
    assert gold_files["doc2.a2"] == (MINI / "doc2.a2").read_bytes()  # E2 taken last, in its place
    assert (info.counts["entities"], info.counts["links"], info.counts["standoff_omitted"]) == (2, 0, 0)
    # imported again, the release gives back the same gold, item for item
    back = _reimported(tmp_path, f"sqlite:///{tmp_path / 'again.sqlite'}", tmp_path / "rel" / "brat")
    for d in ("doc1", "doc2"):
        assert _items(back[d]) == _items(c.gold(d).annotations), d


@pytest.mark.shared
@pytest.mark.slow
def test_a_release_of_bacteria_biotope_gold_keeps_its_equiv_clusters(sqlite_url: str, tmp_path: Path) -> None:
    """The issue's case on the real BB 2011 training data: 414 Equiv lines, none of which reached the
    release's brat files (manifest: links 0), nor a re-import of it."""
    from tests.conftest import shared_path

    src = shared_path("data", "bionlp-st-2011-bb-train")
    c = Corpus.create("bb", "bb-2011", url=sqlite_url)
    for who in ("alice", "bob"):
        c.import_brat(src, who)
    c.merge()
    for d in c.documents():
        c.finish_gold(d.external_id)
    info = c.release("v1", outdir=tmp_path / "rel", agreement=False)
    c.export_brat(tmp_path / "gold", gold=True, flat=True)
    gold_files = {p.name: p.read_bytes() for p in (tmp_path / "gold").iterdir()}
    rel_files = {p.name: p.read_bytes() for p in (tmp_path / "rel" / "brat" / "unsplit").iterdir()}
    assert rel_files == gold_files and len(rel_files) == 130
    stars = sum(b.decode().count("\n*\t") for b in rel_files.values())
    clusters = sum(len(c.gold(d.external_id).annotations.entities) for d in c.documents())
    assert stars == clusters == info.counts["entities"] > 150  # 414 Equiv lines drawing these clusters
    back = _reimported(tmp_path, f"sqlite:///{tmp_path / 'again.sqlite'}", tmp_path / "rel" / "brat")
    assert len(back) == 65
    for d, ann in back.items():
        assert _items(ann) == _items(c.gold(d).annotations), d
        original = {ln for ln in (src / f"{d}.a2").read_text("utf-8").splitlines() if not ln.startswith("*")}
        assert {ln for ln in rel_files[f"{d}.a2"].decode().splitlines() if not ln.startswith("*")} == original


# -- item 6: BioRelEx gold that brat cannot hold whole ----------------------------------------------

SAMPLE = Path(__file__).parent / "fixtures" / "biorelex" / "release-sample.json"


def _brat_cannot_hold(data: list[dict[str, object]]) -> dict[str, int]:
    """What of a BioRelEx file brat cannot hold, counted from the file itself: mentions of clusters
    grounded to a database whose name has a space (``NCBI gene``), names without a mention, and
    interactions on a cluster none of whose names is mentioned."""
    lost = {"groundings containing whitespace": 0, "names without a mention": 0,
            "relations on a name without a mention": 0}  # fmt: skip
    for s in data:
        unmentioned = set()
        for i, c in enumerate(s["entities"]):  # type: ignore[attr-defined]
            mentions = sum(len(n["mentions"]) for n in c["names"].values())
            lost["names without a mention"] += sum(not n["mentions"] for n in c["names"].values())
            if c["grounding"] and " " in c["grounding"]["source"]:
                lost["groundings containing whitespace"] += mentions
            if not mentions:
                unmentioned.add(i)
        lost["relations on a name without a mention"] += sum(
            bool(set(x["participants"]) & unmentioned)
            for x in s["interactions"]  # type: ignore[attr-defined]
        )
    return lost


def _as_data(sentence: dict[str, object]) -> dict[str, object]:
    """A BioRelEx sentence whatever the order of its clusters: interactions name clusters by content."""
    ents = sentence["entities"]
    key = [json.dumps(c, sort_keys=True) for c in ents]  # type: ignore[attr-defined]
    inter = sorted(
        json.dumps({**x, "participants": sorted(key[i] for i in x["participants"])}, sort_keys=True)
        for x in sentence["interactions"]  # type: ignore[attr-defined]
    )
    return {**sentence, "entities": sorted(key), "interactions": inter}


def _biorelex_gold(url: str, path: Path) -> Corpus:
    c = Corpus.create("bx", "biorelex-1.0", url=url)
    for who in ("alice", "bob"):
        c.import_biorelex(path, who)
    c.merge()
    for d in c.documents():
        c.finish_gold(d.external_id)
    c.split(ratios=[1.0], names=["test"])
    return c


def _check_biorelex_release(c: Corpus, url: str, path: Path, tmp: Path, capsys: Cap) -> None:
    data = json.loads(path.read_text(encoding="utf-8"))
    lost = _brat_cannot_hold(data)
    assert lost["groundings containing whitespace"] and lost["names without a mention"]  # the case at hand
    code = main(["--db", url, "release", "v1", "-o", str(tmp / "rel"), "--no-agreement"])
    cap = capsys.readouterr()
    assert code == 0, cap.err
    for what, n in lost.items():  # stderr says what the brat part left out, counted
        assert f"brat cannot express {n} {what} (left out)" in cap.err, cap.err
    # the BioRelEx JSON is whole: the same data as the file the gold came from (in gold's cluster order)
    released = json.loads((tmp / "rel" / "biorelex" / "test.json").read_text(encoding="ascii"))
    assert [_as_data(s) for s in released] == [_as_data(s) for s in data]
    man = json.loads((tmp / "rel" / "manifest.json").read_text())
    assert man["counts"]["standoff_left_out"] == {k: v for k, v in lost.items() if v}
    # export brat --gold writes what brat holds and lists the rest on stderr, as the release does
    assert main(["--db", url, "export", "brat", str(tmp / "brat"), "--gold"]) == 0
    cap = capsys.readouterr()
    for what, n in lost.items():
        assert f"brat cannot express {n} {what} (left out)" in cap.err, cap.err
    written = {p.name: p.read_bytes() for p in (tmp / "brat").rglob("*") if p.is_file()}
    assert written == {p.name: p.read_bytes() for p in (tmp / "rel" / "brat" / "test").iterdir()}
    # and a system is evaluated against the release
    c.add_annotator("tagger", "system")
    c.import_biorelex(path, "tagger", kind="prediction")
    code = main(
        [
            "--db",
            url,
            "-f",
            "json",
            "evaluate",
            "biorelex",
            "--release",
            "v1",
            "--split",
            "test",
            "-s",
            "tagger",
        ]
    )
    cap = capsys.readouterr()
    assert code == 0, cap.err
    [tagger] = json.loads(cap.out)["systems"]
    scores = {x["name"]: (x["tp"], x["fn"], x["fp"]) for x in tagger["scores"]}
    # the same figures as the file scored against itself: the release's gold is the file's
    assert main(["-f", "json", "evaluate", "biorelex", str(path), str(path)]) == 0
    [itself] = json.loads(capsys.readouterr().out)["systems"]
    assert scores == {x["name"]: (x["tp"], x["fn"], x["fp"]) for x in itself["scores"]}
    assert scores["Entity Mentions"][1:] == scores["Relation Extraction (all)"][1:] == (0, 0)


def test_biorelex_gold_brat_cannot_hold_whole_is_released_and_exported(
    sqlite_url: str, tmp_path: Path, capsys: Cap
) -> None:
    c = _biorelex_gold(sqlite_url, SAMPLE)
    _check_biorelex_release(c, sqlite_url, SAMPLE, tmp_path, capsys)
    doc0 = next((tmp_path / "brat").rglob("1.0alpha7.dev.0.ann")).read_text(encoding="utf-8").splitlines()
    assert "JV18-1" not in "\n".join(doc0)  # the name without a mention is left out...
    stars = [ln.split("\t")[1].split() for ln in doc0 if ln.startswith("*")]
    assert [len(s) - 1 for s in stars] == [3]  # ... its cluster keeps its three mentions
    assert [ln for ln in doc0 if ln.startswith("N")] == [
        next(ln for ln in doc0 if ln.startswith("N") and "uniprot:Q13485" in ln)
    ]  # only the grounding without a space is an N line


@pytest.mark.shared
@pytest.mark.slow
@pytest.mark.parametrize("name", ["1.0alpha7.dev.json", "1.0alpha7.train.json"])
def test_the_real_biorelex_files_release_and_evaluate(
    name: str, sqlite_url: str, tmp_path: Path, capsys: Cap
) -> None:
    """On the published BioRelEx 1.0 files (19 groundings with a space in dev, 158 in train), when a
    copy is at ../shared/data/biorelex/ (they are not redistributable, so usually it is not)."""
    from tests.conftest import shared_path

    path = shared_path("data", "biorelex", name)
    c = _biorelex_gold(sqlite_url, path)
    _check_biorelex_release(c, sqlite_url, path, tmp_path, capsys)
