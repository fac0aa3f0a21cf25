"""Derived relations (issue 28.5) and the shipped BB 2016 and GI 2011 schemas, on real data.

GI 2011: ``BindTo(Agent: A, Target: P)`` + ``PromoterOf(Agent: P, Target: G)`` imply
``Interaction(Agent: A, Target: G)``; derived items are marked with their rule and never take an
annotated item's place."""

from __future__ import annotations

from dataclasses import replace

from guidelines.derive import derived_relations, with_derived, without_derived
from guidelines.schema import load_schema
from guidelines.submission import check_submission
from importers.standoff import read_directory, read_document
from tests.conftest import shared_path


def _gi(doc: str):  # type: ignore[no-untyped-def]
    d = shared_path("data", "bionlp-st-2011-bi-train")
    return read_document(d / f"{doc}.txt", keep_unknown=True)


def test_the_gi_rule_gives_back_the_interactions_the_corpus_annotates() -> None:
    schema = load_schema("gi-2011")
    ann = _gi("PMID-10383978-S8").annotations  # sigmaA RNA polymerase binds the ald and sigE promoters
    assert derived_relations(schema.derive[0], ann) == []  # both Interactions are annotated: nothing new
    stripped = replace(ann, relations=tuple(r for r in ann.relations if r.id not in ("E7", "E8")))
    got = with_derived(schema, stripped)
    derived = [r for r in got.relations if r.extra.get("derived")]
    assert sorted((r.type, tuple((a.role, a.ref) for a in r.args), r.extra["derived"]) for r in derived) == [
        ("Interaction", (("Agent", "T5"), ("Target", "T1")), "gi-bind-promoter"),
        ("Interaction", (("Agent", "T5"), ("Target", "T3")), "gi-bind-promoter"),
    ]
    assert all(r.id.startswith("D") for r in derived)
    assert without_derived(got) == stripped  # excluded again: exactly the annotated items


def test_the_gi_rule_over_the_whole_training_corpus() -> None:
    """Every BindTo+PromoterOf chain of the training data: how many Interactions the corpus annotates
    and how many the rule adds (the rule never removes or changes an annotated item)."""
    schema = load_schema("gi-2011")
    data = shared_path("data", "bionlp-st-2011-bi-train")
    chains = added = 0
    for d in read_directory(data, keep_unknown=True):
        rels = d.annotations.relations
        binds = [r for r in rels if r.type == "BindTo"]
        proms = [r for r in rels if r.type == "PromoterOf"]
        chains += sum(1 for b in binds for p in proms if b.args[1].ref == p.args[0].ref)
        new = with_derived(schema, d.annotations)
        assert new.relations[: len(rels)] == rels
        added += len(new.relations) - len(rels)
    assert chains > 0 and 0 <= added < chains  # most chains come with their Interaction annotated


def test_shipped_bb_2016_schema_accepts_the_real_training_data() -> None:
    """Every type and role of the real data is in the schema; the validator finds only the corpus's
    own two duplicates (a Lives_In given twice, a Habitat span given twice), each with its line."""
    data = shared_path("data", "bionlp-st-2016-bb-event", "BioNLP-ST-2016_BB-event_train")
    res = check_submission(load_schema("bb-2016"), data)
    assert len(res.documents) == 61
    assert sorted(f"{p.file.rsplit('/', 1)[1]}:{p.line}: {p.message}" for p in res.errors) == [
        "BB-event-18845825.a2:3: relation R3: duplicate of R2 (same type Lives_In and arguments)",
        "BB-event-2696427.a1:33: span T33: duplicate of T32 (same type Habitat and offsets)",
    ]


def test_derive_rules_are_checked_when_the_schema_is_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from importlib import resources

    import pytest

    from corpusdb.basics.errors import SchemaError

    src = (resources.files("guidelines") / "schemas" / "gi-2011.toml").read_text(encoding="utf-8")
    bad = tmp_path / "bad.toml"
    bad.write_text(src.replace('join = ["Target", "Agent"]', 'join = ["Target", "Nope"]'), encoding="utf-8")
    with pytest.raises(SchemaError, match="join must name a role of BindTo and a role of PromoterOf"):
        load_schema(bad)


# -- BioRelEx: a binding with a part-of member implies the implicit binding of the whole --------------

SH2 = {
    "id": "1.0alpha7.train.9", "paperid": "9000001", "url": None, "_line_": 9,
    "text": "Grb2 binds the SH2 domain of Shc, and Sos binds Grb2.",
    "entities": [
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"Grb2": {"is_mentioned": True, "mentions": [[0, 4], [48, 52]]}}},
        {"label": "protein-domain", "is_mentioned": True, "is_state": False, "is_mutant": False,
         "grounding": None, "names": {"SH2 domain": {"is_mentioned": True, "mentions": [[15, 25]]}}},
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"Shc": {"is_mentioned": True, "mentions": [[29, 32]]}}},
        {"label": "protein", "is_mentioned": True, "is_state": False, "is_mutant": False, "grounding": None,
         "names": {"Sos": {"is_mentioned": True, "mentions": [[38, 41]]}}},
    ],
    "interactions": [
        {"participants": [0, 1], "type": "bind", "implicit": False, "label": 1},
        {"participants": [3, 0], "type": "bind", "implicit": False, "label": 1},
    ],
}  # fmt: skip


def _sh2(tmp_path):  # type: ignore[no-untyped-def]
    import json

    from corpusdb.basics.records import Link
    from importers.biorelex import read_biorelex

    path = tmp_path / "sh2.json"
    path.write_text(json.dumps([SH2], indent=1), encoding="utf-8")
    ann = read_biorelex(path)[0].annotations
    span = {s.text: s.id for s in ann.spans}
    # the domain is part of Shc (a part_of link of the schema, between the two mentions)
    return replace(ann, links=(*ann.links, Link("L9", "part_of", span["SH2 domain"], span["Shc"])))


def test_the_biorelex_rule_lifts_a_binding_from_the_part_to_the_whole_as_implicit(tmp_path) -> None:  # type: ignore[no-untyped-def]
    schema = load_schema("biorelex-1.0")
    ann = _sh2(tmp_path)
    cluster = {e.id: next(s.text for s in ann.spans if s.id == e.members[0]) for e in ann.entities}
    got = with_derived(schema, ann)
    derived = [r for r in got.relations if r.extra.get("derived")]
    assert [
        (sorted(cluster[a.ref] for a in r.args), r.label, r.tags, r.extra["derived"], r.id) for r in derived
    ] == [
        (["Grb2", "Shc"], 1, ("implicit",), "biorelex-part-of", "D1")
    ]  # Grb2 binds the SH2 domain of Shc: Grb2 binds Shc, implicitly; Sos-Grb2 has no part: nothing
    assert without_derived(got) == ann
    # annotated already (either order: bind is undirected): not derived again
    from corpusdb.basics.records import Argument, Relation

    shc, grb2 = (next(e.id for e in ann.entities if cluster[e.id] == n) for n in ("Shc", "Grb2"))
    have = replace(
        ann,
        relations=(
            *ann.relations,
            Relation("R9", "bind", (Argument("Arg1", shc), Argument("Arg2", grb2)), label=1),
        ),
    )
    assert [r for r in with_derived(schema, have).relations if r.extra.get("derived")] == []
    # the official counting sees the derived interaction as an implicit one
    from corpusdb.evaluation.adapters import sentence_from_records

    s = sentence_from_records("x", SH2["text"], got)
    assert sum(it.implicit for it in s.interactions) == 1 and len(s.interactions) == 3


def test_a_link_rule_is_checked_when_the_schema_is_read(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from importlib import resources

    import pytest

    from corpusdb.basics.errors import SchemaError

    src = (resources.files("guidelines") / "schemas" / "biorelex-1.0.toml").read_text(encoding="utf-8")
    for old, new, msg in (('link = "part_of"', 'link = "nope"', "link 'nope' is not a link type"),
                          ('tag = "implicit"', 'tag = "maybe"', "tag 'maybe' is not a tag of bind")):  # fmt: skip
        bad = tmp_path / "bad.toml"
        bad.write_text(src.replace(old, new), encoding="utf-8")
        with pytest.raises(SchemaError, match=msg):
            load_schema(bad)


def test_a_release_lists_the_derived_relations_apart_from_the_annotated_ones(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """Applied at release: ``derived.json`` lists what the schema's rules derive (marked with the
    rule and the relations it comes from), the annotation files hold the annotated items only, and
    the manifest says so. On the real GI sentence, its two Interactions removed from a copy."""
    import json
    import shutil

    from corpusdb.cli.main import main

    src = shared_path("data", "bionlp-st-2011-bi-train")
    data = tmp_path / "gi"
    data.mkdir()
    doc = "PMID-10383978-S8"
    for ext in ("txt", "a1"):
        shutil.copy(src / f"{doc}.{ext}", data / f"{doc}.{ext}")
    a2 = (src / f"{doc}.a2").read_text("utf-8").splitlines()
    (data / f"{doc}.a2").write_text(
        "\n".join(ln for ln in a2 if not ln.startswith(("E7\t", "E8\t"))) + "\n", "utf-8"
    )
    db = str(tmp_path / "gi.sqlite")
    for args in (["init", "gi", "--schema", "gi-2011"], ["import", "brat", str(data), "--kind", "gold", "--keep-unknown"],
                 ["release", "v1", "--out", str(tmp_path / "rel")]):  # fmt: skip
        assert main(["--db", db, *args]) == 0, args
    rel = tmp_path / "rel"
    derived = json.loads((rel / "derived.json").read_text("utf-8"))
    got = derived["documents"][doc]
    assert sorted(
        (r["type"], tuple((a["role"], a["ref"]) for a in r["args"]), r["derived"]) for r in got
    ) == [
        ("Interaction", (("Agent", "T5"), ("Target", "T1")), "gi-bind-promoter"),
        ("Interaction", (("Agent", "T5"), ("Target", "T3")), "gi-bind-promoter"),
    ]
    assert all(r["id"].startswith("D") and r["from"] for r in got)
    assert [r["name"] for r in derived["rules"]] == ["gi-bind-promoter"]
    brat = "".join(p.read_text("utf-8") for p in rel.glob("brat/**/*.a2"))
    assert "Interaction Agent:T5 Target:T1" not in brat  # annotation files: annotated items only
    manifest = json.loads((rel / "manifest.json").read_text("utf-8"))
    assert manifest["derived_relations"] == {
        "file": "derived.json",
        "count": 2,
        "in_annotation_files": [],
        "not_written": {"standoff": 2},
    }


def test_agreement_includes_or_excludes_the_derived_relations(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """bob annotated GI's two Interactions, alice left them to the rule: excluded they disagree on
    two relations, included (alice's derived from her BindTo and PromoterOf) they agree; the
    report's settings say which."""
    import json
    import shutil

    from corpusdb.cli.main import main

    src = shared_path("data", "bionlp-st-2011-bi-train")
    doc = "PMID-10383978-S8"
    for who in ("alice", "bob"):
        (tmp_path / who).mkdir()
        for ext in ("txt", "a1", "a2"):
            shutil.copy(src / f"{doc}.{ext}", tmp_path / who / f"{doc}.{ext}")
    a2 = (src / f"{doc}.a2").read_text("utf-8").splitlines()
    (tmp_path / "alice" / f"{doc}.a2").write_text(
        "\n".join(ln for ln in a2 if not ln.startswith(("E7\t", "E8\t"))) + "\n", "utf-8"
    )
    db = str(tmp_path / "gi.sqlite")
    assert main(["--db", db, "init", "gi", "--schema", "gi-2011"]) == 0
    for who in ("alice", "bob"):
        assert main(["--db", db, "import", "brat", str(tmp_path / who), "-a", who, "--keep-unknown"]) == 0
    capsys.readouterr()
    got = {}
    for how in ("exclude", "include"):
        assert main(["--db", db, "-f", "json", "agree", "-l", "relations", "--derived", how]) == 0
        body = json.loads(capsys.readouterr().out)
        assert body["settings"]["derived_relations"] == how
        got[how] = body["pairs"][0]["overall"] if "pairs" in body else body
    ex, inc = got["exclude"], got["include"]
    assert (ex["only_a"] + ex["only_b"], inc["only_a"] + inc["only_b"]) == (2, 0), (ex, inc)
    for how in ("exclude", "include"):  # the text report's first line says it too
        assert main(["--db", db, "agree", "-l", "relations", "--derived", how]) == 0
        assert f", derived relations {how}d;" in capsys.readouterr().out


def _gi_pair(tmp_path, capsys):  # type: ignore[no-untyped-def]
    """The real GI sentence annotated twice: bob gives its two Interactions, alice leaves them to
    the rule (her BindTo and PromoterOf). Returns the database and the sets' ids by annotator."""
    import json
    import shutil

    from corpusdb.cli.main import main

    src = shared_path("data", "bionlp-st-2011-bi-train")
    doc = "PMID-10383978-S8"
    for who in ("alice", "bob"):
        (tmp_path / who).mkdir()
        for ext in ("txt", "a1", "a2"):
            shutil.copy(src / f"{doc}.{ext}", tmp_path / who / f"{doc}.{ext}")
    a2 = (src / f"{doc}.a2").read_text("utf-8").splitlines()
    (tmp_path / "alice" / f"{doc}.a2").write_text(
        "\n".join(ln for ln in a2 if not ln.startswith(("E7\t", "E8\t"))) + "\n", "utf-8"
    )
    db = str(tmp_path / "gi.sqlite")
    assert main(["--db", db, "init", "gi", "--schema", "gi-2011"]) == 0
    for who in ("alice", "bob"):
        assert main(["--db", db, "import", "brat", str(tmp_path / who), "-a", who, "--keep-unknown"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "-f", "json", "sets"]) == 0
    ids = {h["annotator"]: h["id"] for h in json.loads(capsys.readouterr().out)}
    return db, doc, ids


GI_DERIVED = [
    ("Interaction", (("Agent", "T5"), ("Target", "T1")), "gi-bind-promoter"),
    ("Interaction", (("Agent", "T5"), ("Target", "T3")), "gi-bind-promoter"),
]


def _key(ds):  # type: ignore[no-untyped-def]
    return sorted((d["type"], tuple((a["role"], a["ref"]) for a in d["args"]), d["derived"]) for d in ds)


def test_submit_shows_and_records_the_derived_relations_as_derived(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Applied at submit: ``submit --check`` lists what the rules derive from alice's set after the
    violations, marked with the rule; submitting records them in the audit trail as derived and
    stores nothing in the set (its relations stay the annotated ones)."""
    import json

    from corpusdb.cli.main import main

    db, _doc, ids = _gi_pair(tmp_path, capsys)
    alice = str(ids["alice"])
    assert main(["--db", db, "reopen", alice, "-r", "a second look"]) == 0
    capsys.readouterr()
    assert main(["--db", db, "--as", "alice", "submit", "--check", alice]) == 0
    text = capsys.readouterr().out
    assert "derived by the schema's rules (not items of the set): 2" in text
    assert "Interaction Agent:T5 Target:T1 (derived by gi-bind-promoter from " in text
    assert main(["--db", db, "--as", "alice", "-f", "json", "submit", alice]) == 0
    body = json.loads(capsys.readouterr().out)
    assert body["status"] == "submitted" and _key(body["derived"]) == GI_DERIVED
    assert all(d["id"].startswith("D") and d["from"] for d in body["derived"])
    # bob annotated both: nothing derived from his set
    from corpusdb.api import Corpus

    c = Corpus.open(url=f"sqlite:///{db}")
    assert c.derived_in_set(ids["bob"]) == []
    ev = c.history(action="submit")[0]
    assert ev.target == alice and len(ev.detail["derived"]) == 2
    assert all("derived by gi-bind-promoter" in line for line in ev.detail["derived"])
    rels = c.read_set(ids["alice"]).annotations.relations
    assert not any(r.extra.get("derived") for r in rels)
    assert not any(
        tuple((a.role, a.ref) for a in r.args) == (("Agent", "T5"), ("Target", "T1")) for r in rels
    )


def test_adjudication_shows_derived_relations_apart_and_never_as_conflicts(tmp_path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Applied at adjudication: the conflicts view lists, per source and for gold, what the rules
    derive (marked with the rule); a derived relation stored in a set (an import that kept one) is
    never aligned, so never a conflict of its own, and never merged into gold as annotated."""
    import json

    from corpusdb.api import Corpus
    from corpusdb.cli.main import main

    db, doc, ids = _gi_pair(tmp_path, capsys)
    assert main(["--db", db, "-f", "json", "conflicts", doc]) == 0
    body = json.loads(capsys.readouterr().out)[0]
    assert _key(body["derived"]["alice"]) == GI_DERIVED and body["derived"]["bob"] == []
    assert body["derived"]["gold"] == []
    # bob's two Interactions are relation conflicts (alice did not annotate them); none is derived
    rel = [x for x in body["conflicts"] if x["kind"] == "relation"]
    assert len(rel) == 2
    assert main(["--db", db, "conflicts", doc]) == 0
    text = capsys.readouterr().out
    assert "derived by the schema's rules, alice (not conflicts):" in text
    assert "Interaction Agent:T5 Target:T1 (derived by gi-bind-promoter" in text
    # a derived relation stored in bob's set: not a unit, not a conflict, not in gold after the merge
    from corpusdb.basics.records import Argument, Relation

    c = Corpus.open(url=f"sqlite:///{db}")
    assert main(["--db", db, "reopen", str(ids["bob"]), "-r", "x"]) == 0
    bob = c.as_user("bob")
    s = bob.read_set(ids["bob"])
    stray = Relation("R99", "Interaction", (Argument("Agent", "T1"), Argument("Target", "T3")),
                     extra={"derived": "gi-bind-promoter"})  # fmt: skip
    from dataclasses import replace as rep

    bob.replace_set(ids["bob"], rep(s.annotations, relations=(*s.annotations.relations, stray)))
    bob.submit(ids["bob"], force=True)
    kept = [r for r in c.read_set(ids["bob"]).annotations.relations if r.extra.get("derived")]
    assert len(kept) == 1  # stored as derived (as an import that keeps them would)
    capsys.readouterr()
    assert main(["--db", db, "-f", "json", "conflicts", doc, "--all"]) == 0
    body = json.loads(capsys.readouterr().out)[0]
    assert not any(
        "T1" in json.dumps(x["variants"]) and "R99" in json.dumps(x["variants"]) for x in body["conflicts"]
    )
    assert len([x for x in body["conflicts"] if x["kind"] == "relation" and x["differs"]]) == 2
    c.merge(doc)
    gold = c.gold(doc).annotations
    assert not any(r.extra.get("derived") for r in gold.relations)
