"""Derived relations written at release, marked derived with their rule (issue 28).

BioRelEx JSON can mark them: each derived interaction carries BioRelEx's ``implicit`` flag and a
``derived`` key naming the rule, and reads back as derived (never as annotated). Brat cannot mark an
item derived: its files keep the annotated items only and the CLI says so on stderr, with the count.
"""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from corpusdb.api import Corpus
from corpusdb.basics.records import Document, Link
from importers.biorelex import format_biorelex, read_biorelex
from tests.test_task_derive import SH2


def _sh2_gold(url: str, tmp_path: Path) -> Corpus:
    """The BioRelEx-shaped SH2 sentence as finished gold, the SH2 domain ``part_of`` Shc."""
    path = tmp_path / "sh2.json"
    path.write_text(json.dumps([SH2], indent=1), encoding="utf-8")
    [parsed] = read_biorelex(path)
    ann = parsed.annotations
    span = {s.text: s.id for s in ann.spans}
    ann = replace(ann, links=(*ann.links, Link("L9", "part_of", span["SH2 domain"], span["Shc"])))
    c = Corpus.create("bx", "biorelex-1.0", url=url)
    c.add_annotator("alice")
    c.add_documents([Document(parsed.document.external_id, parsed.document.text, group_key="PMID:9000001")])
    s = c.create_set(parsed.document.external_id, "alice", annotations=ann)
    c.as_user("alice").submit(s.id)
    c.merge(parsed.document.external_id)
    c.finish_gold(parsed.document.external_id)
    return c


def test_a_biorelex_release_writes_the_derived_binding_implicit_with_its_rule(
    any_url: str, tmp_path: Path
) -> None:
    c = _sh2_gold(any_url, tmp_path)
    info = c.release("v1", outdir=tmp_path / "v1")
    rel = tmp_path / "v1"
    data = json.loads((rel / "biorelex" / "unsplit.json").read_text("ascii"))
    inter = data[0]["interactions"]
    names = [next(iter(e["names"])) for e in data[0]["entities"]]
    annotated = [i for i in inter if "derived" not in i]
    derived = [i for i in inter if "derived" in i]
    assert len(annotated) == 2 and not any(i["implicit"] for i in annotated)
    assert [
        (sorted(names[p] for p in i["participants"]), i["implicit"], i["label"], i["derived"])
        for i in derived
    ] == [
        (["Grb2", "Shc"], True, 1, "biorelex-part-of")
    ]  # Grb2 binds the SH2 domain of Shc: Grb2 binds Shc, implicitly (fmt: skip)
    # read back: the derived interaction is derived, never an annotated one; written back identically
    [back] = read_biorelex(rel / "biorelex" / "unsplit.json")
    marked = [r for r in back.annotations.relations if r.extra.get("derived")]
    assert [(r.extra["derived"], r.tags) for r in marked] == [("biorelex-part-of", ("implicit",))]
    assert format_biorelex([(back.document, back.annotations)]) == (
        rel / "biorelex" / "unsplit.json"
    ).read_text("ascii")
    # brat: annotated items only, and the manifest says which formats hold the derived ones
    brat = "".join(p.read_text("utf-8") for p in rel.glob("brat/**/*.ann"))
    assert brat.count("\tbind ") == 2
    man = json.loads((rel / "manifest.json").read_text("utf-8"))
    assert man["derived_relations"] == {
        "file": "derived.json", "count": 1, "in_annotation_files": ["biorelex"], "not_written": {"standoff": 1}
    }  # fmt: skip
    assert info.counts["derived_not_written"] == {"standoff": 1}
    # the release re-exports byte for byte (the rule is applied to the stored snapshot again)
    c.export_release("v1", tmp_path / "again")
    assert (tmp_path / "again" / "biorelex" / "unsplit.json").read_bytes() == (
        rel / "biorelex" / "unsplit.json"
    ).read_bytes()


def test_the_release_command_says_on_stderr_what_brat_could_not_write(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from corpusdb.cli.main import main

    db = tmp_path / "bx.sqlite"
    _sh2_gold(f"sqlite:///{db}", tmp_path)
    capsys.readouterr()
    assert main(["--db", str(db), "release", "v1", "--out", str(tmp_path / "v1")]) == 0
    err = capsys.readouterr().err
    assert "release v1 brat/: 1 derived relation(s) not written (brat cannot mark an item derived)" in err
    assert "derived.json has them" in err


def test_an_older_snapshot_is_rendered_as_it_was_made(tmp_path: Path) -> None:
    """A release made before derived relations went into the files re-exports as it was made."""
    from corpusdb.workflow.releases import render

    c = _sh2_gold(f"sqlite:///{tmp_path / 'bx.sqlite'}", tmp_path)
    c.release("v1")
    with c._read() as conn:  # type: ignore[attr-defined]
        from sqlalchemy import select

        from corpusdb.store import tables

        snap, log = conn.execute(select(tables.release.c.snapshot, tables.release.c.changelog)).one()
    assert snap["derived_in_formats"] == ["biorelex"]
    old = {k: v for k, v in snap.items() if k != "derived_in_formats"}
    files, counts = render(old, log)
    data = json.loads(files["biorelex/unsplit.json"])
    assert not any("derived" in i for i in data[0]["interactions"]) and "derived_not_written" not in counts
    assert json.loads(files["derived.json"])["documents"]  # derived.json as before


@pytest.mark.parametrize("finish", [False, True])
def test_finishing_gold_lists_the_derived_relations_it_will_release(
    tmp_path: Path, capsys, finish: bool
) -> None:  # type: ignore[no-untyped-def]
    """``adjudicate --check``/``--finish`` list gold's derived relations apart, marked with the rule,
    never as items of gold (the release writes them marked)."""
    from corpusdb.cli.main import main

    db = tmp_path / "bx.sqlite"
    c = _sh2_gold(f"sqlite:///{db}", tmp_path)
    doc = SH2["id"]
    if finish:
        gold = c.gold(doc)
        c.reopen(gold.info.id, reason="look again")
    capsys.readouterr()
    assert main(["--db", str(db), "adjudicate", doc, "--finish" if finish else "--check"]) == 0
    text = capsys.readouterr().out
    assert "derived by the schema's rules (not gold items; the release writes them marked derived): 1" in text
    assert "bind Arg1:" in text and "(derived by biorelex-part-of from R1)" in text
    assert main(["--db", str(db), "-f", "json", "adjudicate", doc, "--check"]) == 0
    body = json.loads(capsys.readouterr().out)
    assert [d["derived"] for d in body["derived"]] == ["biorelex-part-of"]
    assert not any(r.extra.get("derived") for r in c.gold(doc).annotations.relations)


def test_evaluate_biorelex_includes_or_excludes_derived_relations_and_says_which(
    tmp_path: Path, capsys
) -> None:  # type: ignore[no-untyped-def]
    """A run that gives the annotated bindings only: perfect with derived relations excluded (the
    default), one binding missed with them included; from the release's files and from the store
    alike, and every report (JSON options, text header) says which."""
    from corpusdb.cli.main import main

    db = tmp_path / "bx.sqlite"
    _sh2_gold(f"sqlite:///{db}", tmp_path)
    assert main(["--db", str(db), "release", "v1", "--out", str(tmp_path / "v1")]) == 0
    ref = tmp_path / "v1" / "biorelex" / "unsplit.json"
    run = tmp_path / "run.json"
    run.write_text(json.dumps([SH2], indent=1), encoding="utf-8")  # the annotated interactions only
    capsys.readouterr()
    got = {}
    for how in ("exclude", "include"):
        for source in (["--release", "v1", str(run)], [str(ref), str(run)]):
            assert (
                main(["--db", str(db), "-f", "json", "evaluate", "biorelex", *source, "--derived", how]) == 0
            )
            body = json.loads(capsys.readouterr().out)
            [entry] = body["systems"]
            row = next(r for r in entry["scores"] if r["name"] == "Relation Extraction (any)")
            got[(how, source[0] == "--release")] = (row["tp"], row["fn"], row["fp"])
            assert body["options"]["derived_relations"].startswith(f"{how}d")
    assert got[("exclude", True)] == got[("exclude", False)] == (2, 0, 0)
    assert got[("include", True)] == got[("include", False)] == (2, 1, 0)  # Grb2-Shc, derived: missed
    assert main(["--db", str(db), "evaluate", "biorelex", str(ref), str(run)]) == 0
    assert "; derived relations excluded." in capsys.readouterr().out
    assert (
        main(["--db", str(db), "evaluate", "biorelex", "--release", "v1", str(run), "--derived", "include"])
        == 0
    )
    assert "; derived relations included (biorelex-part-of)." in capsys.readouterr().out


def test_a_blind_split_releases_no_derived_relation(tmp_path: Path) -> None:
    """Blindness: a blind split's files (BioRelEx JSON, derived.json) hold nothing derived from the
    withheld gold, whatever layer is given."""
    c = _sh2_gold(f"sqlite:///{tmp_path / 'bx.sqlite'}", tmp_path)
    c.split(ratios=(0, 0, 1))
    c.release("v1", outdir=tmp_path / "v1", blind_split="test", give=["spans"])
    rel = tmp_path / "v1"
    data = json.loads((rel / "biorelex" / "test.json").read_text("ascii"))
    assert data[0]["interactions"] == []
    assert json.loads((rel / "derived.json").read_text("utf-8"))["documents"] == {}
    man = json.loads((rel / "manifest.json").read_text("utf-8"))
    assert man["derived_relations"]["count"] == 0 and "derived_not_written" not in man["counts"]


def test_export_biorelex_adds_the_derived_relations_only_when_asked(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """``export biorelex --gold`` gives back gold as stored (annotated items only: the round trip);
    with ``--derived`` it adds what the rules derive, marked as the release marks it, and says how many."""
    from corpusdb.cli.main import main

    db = tmp_path / "bx.sqlite"
    c = _sh2_gold(f"sqlite:///{db}", tmp_path)
    c.release("v1", outdir=tmp_path / "v1")
    plain, marked = tmp_path / "plain.json", tmp_path / "marked.json"
    capsys.readouterr()
    assert main(["--db", str(db), "export", "biorelex", str(plain), "--gold"]) == 0
    assert main(["--db", str(db), "export", "biorelex", str(marked), "--gold", "--derived"]) == 0
    assert "1 derived relation(s) added, each marked implicit with its rule" in capsys.readouterr().err
    assert not any("derived" in i for i in json.loads(plain.read_text("ascii"))[0]["interactions"])
    # the marked export is the release's BioRelEx file, byte for byte
    assert marked.read_bytes() == (tmp_path / "v1" / "biorelex" / "unsplit.json").read_bytes()
