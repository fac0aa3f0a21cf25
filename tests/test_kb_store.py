"""Knowledge bases in the store, on SQLite and PostgreSQL: add, search as one types (exact > synonym
> prefix > fuzzy, typos tolerated, branches), show, update (what disappeared, which groundings point
at it), remove; all or nothing; who may load them; team logins read them and cannot write them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from sqlalchemy import text

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, FormatError, NotFound, PermissionDenied
from corpusdb.basics.records import Annotations, Document, Grounding, Span
from tests.kb_support import KB, pg_database


@pytest.fixture(params=["sqlite", pytest.param("postgres", marks=pytest.mark.postgres)])
def kb_url(request: pytest.FixtureRequest) -> Iterator[str]:
    if request.param == "sqlite":
        yield request.getfixturevalue("sqlite_url")
        return
    yield from pg_database()


@pytest.fixture
def corpus(kb_url: str) -> Iterator[Corpus]:
    c = Corpus.create("bb", schema="bb-2016-cat", url=kb_url)
    yield c
    c.engine.dispose()


def test_add_search_show_on_both_backends(corpus: Corpus) -> None:
    info = corpus.kb_add("hab", KB / "habitats.obo", "obo")
    assert (info.concepts, info.names, info.obsolete) == (11, 14, 1)
    assert info.index in ("fts5", "pg_trgm")
    assert set(info.roots) == {"HAB:0000", "PHE:0001"}

    def ids(typed: str, **kw: object) -> list[tuple[str, str]]:
        return [(c.id, c.match) for c in corpus.kb_search("hab", typed, **kw)]  # type: ignore[arg-type]

    assert ids("Gastric Mucosa")[0] == ("HAB:0004", "exact")  # case and spaces do not matter
    assert ids("stomach mucosa")[0] == ("HAB:0004", "synonym")
    assert ids("gut")[0] == ("HAB:0002", "synonym")
    # while typing: a prefix; the exact label of another concept ranks first
    assert ids("stomach")[:2] == [("HAB:0003", "exact"), ("HAB:0004", "prefix")]
    assert ids("rhizo") == [("HAB:0008", "prefix")]
    # typos: fuzzy, never offered the obsolete term
    assert ids("gastrik mucosa")[0] == ("HAB:0004", "fuzzy")
    assert ids("rhizosfere soil")[0] == ("HAB:0008", "fuzzy")
    assert "HAB:0009" not in [i for i, _ in ids("old soil term")]
    # a branch: only its descendants
    assert [i for i, _ in ids("soil")] == ["HAB:0007"]  # 4 letters: exact and prefix only
    assert [i for i, _ in ids("soil", branch="HAB:0001")] == []  # soil is no host
    assert [i for i, _ in ids("rhizosphere soil", branch="HAB:0001")] == [
        "HAB:0008"
    ]  # two parents: a host too
    assert [i for i, _ in ids("rhizosphere soil", branch="HAB:0006")] == [
        "HAB:0008"
    ]  # ... and under environment
    assert ids("rhizosphere soil", branch="PHE:0001") == []
    c = corpus.kb_search("hab", "gastric mucosa")[0]
    assert (c.label, c.name, c.score) == ("gastric mucosa", "gastric mucosa", 100.0)
    concept = corpus.kb_concept("hab", "HAB:0009")
    assert concept.obsolete and concept.replaced_by == ("HAB:0007",)
    assert corpus.kb_concept("hab", "HAB:0008").parents == ("HAB:0001", "HAB:0007")
    assert [x.name for x in corpus.kb_list()] == ["hab"]
    with pytest.raises(Conflict, match="exists"):
        corpus.kb_add("hab", KB / "habitats.obo", "obo")
    with pytest.raises(NotFound, match="no knowledge base named 'nope'"):
        corpus.kb_search("nope", "x")


def test_ncbi_and_tsv_knowledge_bases(corpus: Corpus) -> None:
    corpus.kb_add("ncbi-taxonomy", KB / "taxdump", "ncbi-taxonomy")
    hits = corpus.kb_search("ncbi-taxonomy", "E. coli")
    assert (hits[0].id, hits[0].label, hits[0].match) == ("562", "Escherichia coli", "synonym")
    assert corpus.kb_search("ncbi-taxonomy", "Helicobacter pylory")[0].id == "210"
    assert [c.id for c in corpus.kb_search("ncbi-taxonomy", "bacillus", branch="1386")] == ["1386", "1423"]
    corpus.kb_add("proteins", KB / "proteins.tsv", "tsv")
    assert corpus.kb_search("proteins", "TNF-alpha")[0].label == "Tumor necrosis factor"
    assert corpus.kb_search("proteins", "interleukn 2")[0].id == "P60568"


def test_a_bad_file_loads_nothing(corpus: Corpus, tmp_path: Path) -> None:
    with pytest.raises(FormatError, match=r"bad.tsv:3"):
        corpus.kb_add("p", KB / "bad.tsv", "tsv")
    dump = tmp_path / "dump"
    dump.mkdir()
    for f in ("nodes.dmp", "names.dmp"):
        (dump / f).write_text((KB / "taxdump" / f).read_text())
    with (dump / "names.dmp").open("a") as fh:  # a problem at the very end, after rows were written
        fh.write("999999\t|\torphan\t|\t\t|\tscientific name\t|\n")
    with pytest.raises(FormatError, match="orphan"):
        corpus.kb_add("t", dump, "ncbi-taxonomy")
    assert corpus.kb_list() == []
    with corpus.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM kb_name")).scalar_one() == 0


def test_update_reports_disappeared_ids_and_their_groundings(corpus: Corpus, tmp_path: Path) -> None:
    corpus.kb_add("ontobiotope", KB / "habitats.obo", "obo")
    corpus.add_annotator("alice")
    corpus.add_documents([Document("d1", "soil and the gut")])
    info = corpus.create_set("d1", "alice")
    ann = Annotations(spans=(
        Span("T1", "Habitat", ((0, 4),), "soil", groundings=(Grounding("OBT:0007", kind="OntoBiotope"),)),
        Span("T2", "Habitat", ((13, 16),), "gut",
             groundings=(Grounding("HAB:0002", kind="OntoBiotope", extra={"st": True}),)),
    ))  # fmt: skip
    corpus.as_user("alice").replace_set(info.id, ann, expected_version=info.version)
    smaller = tmp_path / "v2.obo"
    smaller.write_text((KB / "habitats.obo").read_text().replace("id: HAB:0002\n", "id: HAB:0102\n")
                       .replace("is_a: HAB:0002 !", "is_a: HAB:0102 !"))  # fmt: skip
    got = corpus.kb_update("ontobiotope", smaller)
    assert got.info.version == 2 and got.disappeared == ("HAB:0002",)
    assert [(a.document, a.annotator, a.item, a.ref) for a in got.affected] == [
        ("d1", "alice", "T2", "OntoBiotope:HAB:0002")
    ]
    assert corpus.kb_search("ontobiotope", "digestive tract")[0].id == "HAB:0102"
    corpus.kb_remove("ontobiotope")
    assert corpus.kb_list() == []
    with corpus.engine.connect() as conn:
        assert conn.execute(text("SELECT count(*) FROM kb_concept")).scalar_one() == 0


def test_only_the_owner_loads_knowledge_bases(corpus: Corpus) -> None:
    corpus.add_annotator("lea", role="lead")
    corpus.add_annotator("alice")
    corpus.kb_add("hab", KB / "habitats.obo", "obo")
    for who in ("lea", "alice"):
        as_who = corpus.as_user(who)
        with pytest.raises(PermissionDenied, match="loaded by its owner"):
            as_who.kb_add("x", KB / "habitats.obo", "obo")
        with pytest.raises(PermissionDenied):
            as_who.kb_remove("hab")
        with pytest.raises(PermissionDenied):
            as_who.kb_update("hab", KB / "habitats.obo")
        assert as_who.kb_search("hab", "gut")[0].id == "HAB:0002"  # reading is everyone's


@pytest.mark.postgres
def test_team_login_reads_knowledge_bases_and_cannot_write_them(team_roles: object) -> None:
    from sqlalchemy.exc import ProgrammingError

    from corpusdb.store.db import make_engine
    from tests.conftest import role_url

    for url in pg_database():
        owner = Corpus.create("bb", schema="bb-2016-cat", url=url)
        owner.kb_add("hab", KB / "habitats.obo", "obo")
        owner.add_annotator("alice")
        owner.team_login("alice", login=team_roles.name("alice"), password=None)  # type: ignore[attr-defined]
        alice = team_roles.open(url, "alice")  # type: ignore[attr-defined]
        assert alice.kb_search("hab", "gastrik mucosa")[0].id == "HAB:0004"
        with pytest.raises(PermissionDenied):
            alice.kb_remove("hab")
        engine = make_engine(role_url(url, team_roles.name("alice")))  # type: ignore[attr-defined]
        try:
            with engine.connect() as conn:
                assert conn.execute(text("SELECT count(*) FROM kb_concept")).scalar_one() == 11
            for sql in ("DELETE FROM kb_name", "INSERT INTO kb (name, format, source, concepts, names, version, "
                        "created, updated) VALUES ('x', 'tsv', '', 0, 0, 1, now(), now())",
                        "UPDATE kb_concept SET label = 'x'"):  # fmt: skip
                with engine.connect() as conn, pytest.raises(ProgrammingError, match="permission denied"):
                    conn.execute(text(sql))
        finally:
            engine.dispose()
            owner.engine.dispose()


def test_cli_kb_commands(sqlite_url: str, capsys: pytest.CaptureFixture[str]) -> None:
    from corpusdb.cli.main import main

    db = ["--db", sqlite_url]
    assert main([*db, "init", "bb", "--schema", "bb-2016-cat"]) == 0
    assert main([*db, "kb", "add", "hab", str(KB / "habitats.obo")]) == 0
    assert "11 concepts, 14 names" in capsys.readouterr().out
    assert main([*db, "kb", "search", "hab", "gastrik mucosa", "-n", "1"]) == 0
    assert capsys.readouterr().out.splitlines() == [
        "id\tlabel\tmatched name\tmatch\tscore",
        "HAB:0004\tgastric mucosa\tgastric mucosa\tfuzzy\t92.9",
    ]
    assert main([*db, "kb", "show", "hab", "HAB:0009"]) == 0
    assert "old soil term (obsolete; use HAB:0007)" in capsys.readouterr().out
    assert main([*db, "kb", "add", "bad", str(KB / "bad.tsv"), "-F", "tsv"]) == 4
    assert "bad.tsv:3: error: P2: empty name" in capsys.readouterr().err
    assert main([*db, "kb", "list"]) == 0
    assert capsys.readouterr().out.splitlines()[1].startswith("hab\tobo\t11\t14\t1\t")
    assert main([*db, "kb", "remove", "hab"]) == 0


def _taxdump(folder: Path, taxa: int, seed: int = 3) -> list[str]:
    """A generated NCBI dump of ``taxa`` species names of Latin-like syllables (their trigrams are
    common, as in the real taxonomy's): what the bench loads at 2.6 million names, small."""
    import random

    syll = ["ba", "ci", "llus", "co", "ccus", "strep", "to", "my", "ces", "pseu", "do", "mo", "nas", "lac",
            "sal", "nel", "la", "ri", "chia", "heli", "bac", "ter", "clos", "tri", "dium", "vi", "bri"]  # fmt: skip
    rng = random.Random(seed)

    def word() -> str:
        return "".join(rng.choice(syll) for _ in range(rng.randint(2, 4)))

    names = sorted({f"{word().capitalize()} {word()}" for _ in range(taxa)})
    with (folder / "nodes.dmp").open("w") as nodes, (folder / "names.dmp").open("w") as out:
        nodes.write("1\t|\t1\t|\tno rank\t|\n")
        out.write("1\t|\troot\t|\t\t|\tscientific name\t|\n")
        for i, name in enumerate(names, 2):
            nodes.write(f"{i}\t|\t1\t|\tspecies\t|\n")
            out.write(f"{i}\t|\t{name}\t|\t\t|\tscientific name\t|\n")
    return names


def test_typos_find_the_name_through_its_rarest_trigrams(corpus: Corpus, tmp_path: Path) -> None:
    """Names whose every trigram is common (a few thousand species of 27 syllables): a dropped, a
    swapped and a changed letter anywhere in the typed text still bring the name first, as it is
    typed out; the lookups go through the rarest trigrams the load counted."""
    from corpusdb.kb.search import gram_counts, rarest

    names = _taxdump(tmp_path, 4000)
    corpus.kb_add("tax", tmp_path, "ncbi-taxonomy")
    with corpus.engine.connect() as conn:
        kid = conn.execute(text("SELECT id FROM kb WHERE name = 'tax'")).scalar_one()
        counts = gram_counts(conn, kid)
    assert counts and max(counts.values()) > 500  # common trigrams were counted...
    assert all(
        counts.get(g, 0) <= min(counts.get(h, 0) for h in ("ter", "llu")) for g in rarest("tertllus", counts)
    )
    import random

    rng = random.Random(5)
    for name in rng.sample(names, 12):
        for typo in (
            name[:3] + name[4:],
            name[:-3] + name[-2] + name[-3] + name[-1],
            name[:5] + "q" + name[6:],
        ):
            hits = corpus.kb_search("tax", typo, limit=12)
            assert hits and hits[0].label == name, (typo, name, hits[:3])


def test_typing_real_ontobiotope_names_with_a_typo(corpus: Corpus) -> None:
    """The real OntoBiotope of BB 2016 (2,320 habitat terms; skips without it, see
    tests/fixtures/kb/README.md): 40 of its labels (seeded), each typed with a letter of its second
    half dropped, bring their concept (or one of the same label) first; typed right, too. (A dropped
    space can make another name's prefix, "road side" -> "roadside soil": prefixes rank first.)"""
    import random

    from importers.kb_obo import read_obo
    from tests.kb_support import ontobiotope

    path = ontobiotope()
    terms = [c for c in read_obo(path) if not c.obsolete and len(c.label) >= 8]
    corpus.kb_add("obt", path, "obo")
    rng = random.Random(11)
    labels: dict[str, set[str]] = {}
    for c in terms:
        labels.setdefault(" ".join(c.label.casefold().split()), set()).add(c.id)
    for c in rng.sample(terms, 40):
        mid = next(i for i in range(len(c.label) // 2, len(c.label)) if c.label[i].isalpha())
        typo = c.label[:mid] + c.label[mid + 1 :]
        hits = corpus.kb_search("obt", typo, limit=20)
        same = labels[" ".join(c.label.casefold().split())]
        assert hits and hits[0].id in same, (typo, c.id, [(h.id, h.name, h.match) for h in hits[:3]])
        assert corpus.kb_search("obt", c.label, limit=20)[0].id in same


def test_edit_patterns_at_the_typo() -> None:
    """Where names are dense, the intended name may be far from the typed text in index order: it is
    read through LIKE patterns one edit away at the typo's place (a letter missing, added, changed,
    two swapped), each from the range of its literal beginning."""
    from corpusdb.kb.search import edits

    pats = edits("tertzoo", 4)  # "tert" begins names, "tertz" none: the typo is at 4 (or 3)
    assert {"tertozo%", "tert_zoo%", "tert_oo%", "tertoo%"} <= set(pats)  # swapped, missing, changed, added
    assert "terztoo%" in pats and all(p.endswith("%") for p in pats)
