"""PostgreSQL's words index (a ``tsvector`` GIN over the text's ASCII runs) gives the same hits as the
trigram path it replaced for ASCII words, prefixes and phrases (punctuation, hyphens, case, unicode,
a 1 MB text it leaves out), answers them alone, and stays exact after edits and rollbacks."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import text

from corpusdb.api import Corpus
from corpusdb.basics.records import Document
from corpusdb.search import engine, patterns
from corpusdb.search import index as search_index
from corpusdb.store import db
from corpusdb.store import text_index as index

TEXTS = {
    "d1": "IL-2-dependent T cells; p53/p21 and kinase.example.com: KINASE, Kinases, kinase_x, x-ray.",
    "d2": "İstanbul KİNASE \u212ainase naïve café Éclair co-operation β-catenin foo_bar 3.14 1e5 0x1F.",
    "d3": "Tumor  necrosis\nfactor (TNF-α) binds; the kinase-dependent α1-antitrypsin, IL-2R and il-2.",
    "d4": "Nothing relevant: kinasex xkinase kin ase IL2 p 53 tumour.",
    "d5": "A naïve kinase in the café; CO-OPERATION and Co-operative. Kinase! \u212aINASE?",
}
# one text past the words index's 1 MB limit: found through the partial index of long texts
LONG = ("filler " * 150_000) + "needle kinase IL-2 end"
QUERIES = [
    "kinase", "KINASE", "kinases", "kin*", "kinase*", "IL-2", "IL-2*", "il-2-dependent", "p53", "p53/p21",
    "example", "com", "x-ray", "ray", "co-operation", "co-*", "operation", "foo_bar", "foo", "bar", "3.14",
    "14", "1e5", "0x1F", '"tumor necrosis factor"', '"T cells"', "T", "cells", "naïve", "café",
    "catenin", "TNF", "α1-antitrypsin", "antitrypsin", "istanbul", "needle", "end", "kinase -café",
    "kinase IL-2", "IL-2R",
]  # fmt: skip


def _hits(c: Corpus, q: str) -> list[tuple[str, int, int, str]]:
    return [(h.document, h.start, h.stop, h.text) for h in c.search(q, limit=None).hits]


def _counts(c: Corpus, q: str) -> list[tuple[str, str, int]]:
    return [(r.document, r.type, r.hits) for r in c.search_counts(q).rows]


def _without_words(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(engine.index, "has_words", lambda conn: None)


def test_tsquery_shapes() -> None:
    """What the words index is asked (and what goes to the trigram index instead: None)."""
    assert patterns.word("Kinase").tsquery() == "'kinase'"
    assert patterns.word("IL-2").tsquery() == "'il' & '2'"
    assert patterns.prefix("IL-2").tsquery() == "'il' & '2':*"
    assert patterns.prefix("co-").tsquery() == "'co'"  # ends with a hyphen: no prefix lexeme
    assert patterns.phrase("tumor  necrosis factor").tsquery() == "'tumor' & 'necrosis' & 'factor'"
    assert patterns.word("foo_bar").tsquery() == "'foo' & 'bar'"
    assert patterns.word("naïve").tsquery() is None  # not ASCII: the trigram path
    assert patterns.word("-").tsquery() is None  # no letters or digits
    assert patterns.regex("kinase").tsquery() is None


@pytest.mark.postgres
def test_the_words_index_finds_what_the_trigram_path_found(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    c = Corpus.create("p", "bb-2011", url=pg_url)
    c.add_documents([Document(d, t) for d, t in TEXTS.items()] + [Document("long", LONG)])
    with c.engine.connect().execution_options(isolation_level="AUTOCOMMIT") as conn:
        assert index.has_words(conn)
        conn.exec_driver_sql("ANALYZE document")  # no statistics of its lexemes (corpusdb.store.rls)
        stats = "SELECT count(*) FROM pg_stats WHERE schemaname = current_schema() AND tablename = :i"
        assert conn.execute(text(stats), {"i": index.WORDS_INDEX}).scalar_one() == 0
    asked: list[bool] = []
    real = search_index.text_filter

    def spy(*a: object, **kw: object) -> object:
        asked.append(bool(kw.get("words")))
        return real(*a, **kw)  # type: ignore[arg-type]

    monkeypatch.setattr(engine.index, "text_filter", spy)
    new = {q: (_hits(c, q), _counts(c, q)) for q in QUERIES}
    assert all(asked)  # the words index was offered every time
    _without_words(monkeypatch)
    old = {q: (_hits(c, q), _counts(c, q)) for q in QUERIES}
    assert new == old
    # the cases a tsvector of the raw text would miss are found (whole ASCII runs, Kelvin sign, 1 MB)
    assert [d for d, *_ in new["kinase"][0]].count("d5") == 3 and ("d2", 16, 22, "\u212ainase") in new[
        "kinase"
    ][0]
    assert [h[0] for h in new["p53/p21"][0]] == ["d1"] and [h[0] for h in new["com"][0]] == ["d1"]
    assert [h[0] for h in new["needle"][0]] == ["long"] and [h[0] for h in new["IL-2"][0]] == [
        "d1",
        "d3",
        "long",
    ]
    assert new["3.14"][0] == [("d2", 72, 76, "3.14")]


@pytest.mark.postgres
def test_the_words_index_answers_alone_and_follows_edits_and_rollbacks(pg_url: str) -> None:
    c = Corpus.create("p", "bb-2011", url=pg_url)
    c.add_documents([Document("d1", "Bacillus lives in soil."), Document("d2", "Nothing here.")])
    assert _hits(c, "soil") == [("d1", 18, 22, "soil")]
    with pytest.raises(RuntimeError), db.write(c.engine) as conn:
        conn.execute(
            text("UPDATE document SET text = 'Mycobacterium in sea-water.' WHERE external_id = 'd1'")
        )
        assert _words_docs(conn, "'water'") == _scan_docs(conn, "water") != set()
        raise RuntimeError("interrupted")
    with db.read(c.engine) as conn:
        assert _words_docs(conn, "'water'") == set() and _words_docs(conn, "'soil'") == _scan_docs(
            conn, "soil"
        )
    assert _hits(c, "water") == [] and _hits(c, "soil") == [("d1", 18, 22, "soil")]
    with db.write(c.engine) as conn:
        conn.execute(
            text("UPDATE document SET text = 'Mycobacterium in sea-water.' WHERE external_id = 'd1'")
        )
    with db.read(c.engine) as conn:
        for word in ("water", "soil", "sea", "nothing"):
            assert _words_docs(conn, f"'{word}'") == _scan_docs(conn, word)
    assert _hits(c, "water") == [("d1", 21, 26, "water")] and _hits(c, "soil") == []
    c.delete_document("d1", reason="test")
    assert _hits(c, "water") == [] and _hits(c, "nothing") == [("d2", 0, 7, "Nothing")]


def _words_docs(conn: object, tsquery: str) -> set[str]:
    """The documents the words index alone lists (no sequential scan allowed: the plan must use it)."""
    sql = f"SELECT external_id FROM document WHERE {index.words_sql('document.text')} @@ CAST(:q AS tsquery)"
    conn.exec_driver_sql("SET LOCAL enable_seqscan = off")  # type: ignore[attr-defined]
    plan = " ".join(r[0] for r in conn.execute(text("EXPLAIN " + sql), {"q": tsquery}))  # type: ignore[attr-defined]
    assert index.WORDS_INDEX in plan
    out = {r[0] for r in conn.execute(text(sql), {"q": tsquery})}  # type: ignore[attr-defined]
    conn.exec_driver_sql("SET LOCAL enable_seqscan = on")  # type: ignore[attr-defined]
    return out


def _scan_docs(conn: object, word: str) -> set[str]:
    import re

    rx = re.compile(rf"(?<![A-Za-z0-9]){word}(?![A-Za-z0-9])", re.IGNORECASE)
    return {d for d, t in conn.execute(text("SELECT external_id, text FROM document")) if rx.search(t)}  # type: ignore[attr-defined]


def test_a_word_inside_spans_of_a_frequent_type_is_read_from_the_spans(
    any_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """``type:Habitat IL-2`` with more spans of the type than SELECTIVE: the spans' own texts are asked
    (a span may cut a word: ``IL-2`` of ``IL-2R``, which the document's words do not hold), the
    actor's blindness kept; the documents walked in order when too many spans hold the word."""
    from corpusdb.basics.records import Span
    from corpusdb.services.edits import Put

    c = Corpus.create("p", "bb-2011", url=any_url)
    c.add_annotator("alice")
    c.add_annotator("bob")
    texts = {"d1": "The IL-2R chain in gut soil.", "d2": "IL-2 and gut; more gut."}
    c.add_documents([Document(d, t) for d, t in texts.items()])
    spans = {  # d1: IL-2 cut from IL-2R, gut; d2: IL-2, gut, gut
        ("d1", "alice"): [("T1", 4, 8), ("T2", 19, 22)],
        ("d1", "bob"): [("T1", 4, 8)],
        ("d2", "alice"): [("T1", 0, 4), ("T2", 9, 12)],
        ("d2", "bob"): [("T1", 19, 22)],
    }
    for (doc, who), items in spans.items():
        info = c.create_set(doc, who)
        me = c.as_user(who)
        puts = [Put(Span(i, "Habitat", ((a, b),), texts[doc][a:b])) for i, a, b in items]
        me.edit_set(info.id, puts, expected_version=info.version, history="do", description="add")
        me.submit(info.id, force=True)
    monkeypatch.setattr(engine.Run, "SELECTIVE", 4)  # 6 Habitat spans: not selective; 3 hold "IL-2"
    alice = c.as_user("alice")
    found = [(h.document, h.annotator, h.item) for h in c.search("type:Habitat IL-2", limit=None).hits]
    assert found == [("d1", "alice", "T1"), ("d1", "bob", "T1"), ("d2", "alice", "T1")]
    assert [(h.document, h.annotator) for h in alice.search("type:Habitat IL-2", limit=None).hits] == [
        ("d1", "alice"), ("d2", "alice"),
    ]  # fmt: skip
    assert [(h.document, h.item) for h in c.search("type:Habitat il-2", limit=1).hits] == [("d1", "T1")]
    monkeypatch.setattr(engine.Run, "SELECTIVE", 2)  # too many hold it: the documents in order
    walked = [(h.document, h.annotator, h.item) for h in c.search("type:Habitat IL-2", limit=None).hits]
    # SQLite's FTS5 lists the documents by whole tokens on that path: a cut word's document is missed
    assert walked == (found if not any_url.startswith("sqlite") else found[2:])


def test_the_migration_makes_the_index_the_queries_name() -> None:
    """Migration 0024 wrote the index expression out; PostgreSQL uses an expression index only for a
    query with the same expression, so an upgraded database and a new one must have today's
    ``words_sql()`` (a change to it needs a migration of its own)."""
    import importlib

    m = importlib.import_module("corpusdb.store.migrations.versions.0024_search_words_index")
    assert index.words_sql() == m.WORDS


@pytest.mark.postgres
def test_a_team_login_searches_through_the_owners_function_and_learns_nothing_more(
    pg_url: str, team_roles: object
) -> None:
    """Under row-level security PostgreSQL uses no text index (``@@`` is not leakproof) and would
    compute the words expression for every text: a team login asks ``corpusdb_text_candidates``,
    which runs the indexed query as the owner and returns only her own project's documents. Attacked
    as plain SQL: another project's id gives nothing; a server login outside the team cannot call it."""
    import psycopg

    c = Corpus.create("p", "bb-2011", url=pg_url)
    c.add_annotator("alice")
    c.add_documents([Document("d1", "Bacillus lives in soil."), Document("d2", "Soil, water and soil.")])
    c.assign(["d1", "d2"], ["alice"])
    other = Corpus.create("secret", "bb-2011", url=pg_url)
    other.add_documents([Document("x1", "Soil of the other project.")])
    c.team_login("alice", login=team_roles.name("alice"))  # type: ignore[attr-defined]
    alice = team_roles.open(pg_url, "alice", project="p")  # type: ignore[attr-defined]
    with db.read(c.engine) as conn:
        assert index.has_words(conn) == "index"
        other_id = conn.execute(text("SELECT id FROM project WHERE name = 'secret'")).scalar_one()
        mine_id = conn.execute(text("SELECT id FROM project WHERE name = 'p'")).scalar_one()
    with db.read(alice.engine) as conn:
        assert conn.execute(text("SELECT row_security_active('document')")).scalar()
        assert index.has_words(conn) == "definer"
        ask = text("SELECT count(*) FROM corpusdb_text_candidates(:p, CAST('soil' AS tsquery))")
        assert conn.execute(ask, {"p": mine_id}).scalar_one() == 2
        assert conn.execute(ask, {"p": other_id}).scalar_one() == 0  # not her project: nothing
    assert _hits(alice, "soil") == _hits(c, "soil") == [
        ("d1", 18, 22, "soil"), ("d2", 0, 4, "Soil"), ("d2", 16, 20, "soil")
    ]  # fmt: skip
    assert _hits(alice, "water") == [("d2", 6, 11, "water")] and _hits(alice, "other") == []
    # a login of the server that is no one's team login: the function is not granted to it
    mallory = team_roles.name("mallory")  # type: ignore[attr-defined]
    base = pg_url.replace("postgresql+psycopg", "postgresql")
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{mallory}" LOGIN')
    with db.write(c.engine) as conn:  # she may see the schema's names (else the call fails as unknown)
        conn.exec_driver_sql(
            f'GRANT USAGE ON SCHEMA "{conn.execute(text("SELECT current_schema()")).scalar_one()}" TO "{mallory}"'
        )
    from sqlalchemy.engine import make_url

    as_mallory = make_url(base).set(username=mallory).render_as_string(hide_password=False)
    # the test's schema is on her search_path, as on alice's
    with psycopg.connect(as_mallory) as conn, pytest.raises(psycopg.errors.InsufficientPrivilege):
        conn.execute(
            "SELECT * FROM corpusdb_text_candidates(%s::integer, CAST('soil' AS tsquery))", (mine_id,)
        )


@pytest.mark.postgres
def test_a_team_login_asks_the_trigram_index_through_the_owners_function_and_learns_nothing_more(
    pg_url: str, team_roles: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A team login's ``ILIKE`` literals (a regex's, a non-ASCII word's) go through
    ``corpusdb_like_candidates``: run as the owner so the trigram index answers, it returns only
    documents of the caller's own project, which she reads anyway (the final match is hers, under the
    policies). Attacked as plain SQL: another project's id, a login of another project, a server
    login outside the team, a revoked login (even with a grant left behind), and bob's unsubmitted
    span never comes back through a search that used it."""
    import psycopg
    from sqlalchemy.engine import make_url

    from corpusdb.basics.records import Span
    from corpusdb.services.edits import Put

    texts = {"d1": "Bacillus lives in naïve soil.", "d2": "Soil, water and Bacilllus.", "d3": "Nothing."}
    c = Corpus.create("p", "bb-2011", url=pg_url)
    for who in ("alice", "bob", "carol"):
        c.add_annotator(who)
    c.add_documents([Document(d, t) for d, t in texts.items()])
    c.assign(list(texts), ["alice", "bob"])
    for who, typ, (a, b) in (("bob", "Bacterium", (0, 8)), ("alice", "Habitat", (24, 28))):
        info = next(s for s in c.as_user(who).sets() if s.document_external_id == "d1" and s.annotator == who)
        c.as_user(who).edit_set(
            info.id,
            [Put(Span("T1", typ, ((a, b),), texts["d1"][a:b]))],
            expected_version=info.version,
            history="do",
            description="add",
        )  # fmt: skip (neither set is submitted: bob's span is his alone)
    other = Corpus.create("secret", "bb-2011", url=pg_url)
    other.add_annotator("eve")
    other.add_documents([Document("x1", "Bacillus in the secret soil, naïve.")])
    for who in ("alice", "carol"):
        c.team_login(who, login=team_roles.name(who))  # type: ignore[attr-defined]
    other.team_login("eve", login=team_roles.name("eve"))  # type: ignore[attr-defined]
    with db.read(c.engine) as conn:
        assert not index.like_definer(conn)  # the owner asks the trigram index itself
        ids = dict(conn.execute(text("SELECT name, id FROM project")).all())
        docs = dict(conn.execute(text("SELECT external_id, id FROM document")).all())
    mine, theirs = ids["p"], ids["secret"]
    base = pg_url.replace("postgresql+psycopg", "postgresql")

    def libpq(person: str) -> str:
        return make_url(base).set(username=team_roles.name(person)).render_as_string(hide_password=False)  # type: ignore[attr-defined]

    like = "SELECT coalesce(array_agg(i ORDER BY i), '{}') FROM corpusdb_like_candidates(%s::integer, %s) i"
    with psycopg.connect(libpq("alice"), autocommit=True) as a:
        for pat in ("%bacil%", "%soil%", "%naïve%", "%water%"):
            own = a.execute("SELECT coalesce(array_agg(id ORDER BY id), '{}') FROM document WHERE text ILIKE %s",
                            (pat,)).fetchone()[0]  # fmt: skip
            assert a.execute(like, (mine, pat)).fetchone()[0] == own != []  # what she reads herself
            assert a.execute(like, (theirs, pat)).fetchone()[0] == []  # not her project: nothing
        assert a.execute(like, (mine, "%secret%")).fetchone()[0] == []  # the other project's text
        assert a.execute(like, (mine, "%")).fetchone()[0] == sorted(docs[d] for d in texts)
        projects = (
            "SELECT coalesce(array_agg(p), '{}') FROM corpusdb_projects(%s, ARRAY['annotator','lead']) p"
        )
        assert a.execute(projects, (team_roles.name("alice"),)).fetchone()[0] == [mine]  # type: ignore[attr-defined]
        assert a.execute(projects, (team_roles.name("eve"),)).fetchone()[0] == []  # not about eve  # type: ignore[attr-defined]
        assert a.execute("SELECT coalesce(array_agg(p), '{}') FROM corpusdb_projects(current_user, ARRAY['lead']) p").fetchone()[0] == []  # fmt: skip
    with psycopg.connect(libpq("eve"), autocommit=True) as e:  # a team login of the other project
        assert e.execute(like, (mine, "%soil%")).fetchone()[0] == []
        assert e.execute(like, (theirs, "%soil%")).fetchone()[0] == [docs["x1"]]
    # the searches that use it: the same hits as the owner's, and bob's unsubmitted span never
    asked: list[bool] = []
    real = search_index.text_filter

    def spy(*a: object, **kw: object) -> object:
        asked.append(bool(kw.get("definer")))
        return real(*a, **kw)  # type: ignore[arg-type]

    alice = team_roles.open(pg_url, "alice", project="p")  # type: ignore[attr-defined]
    literals = ("/Bacil+us/", "/naïve/", "/[Ss]oil/", '"naïve soil"', "Bacilllus")
    walked = {q: (_hits(alice, q), _counts(alice, q)) for q in literals}  # the first page walked in order
    monkeypatch.setattr(engine.index, "text_filter", spy)
    monkeypatch.setattr(engine.Run, "WALK", 0)  # the index at once: her few texts are all in one page
    for q in literals:
        asked.clear()
        got = (_hits(alice, q), _counts(alice, q))
        assert asked and all(asked)  # through the function
        assert got == (_hits(c, q), _counts(c, q)) == walked[q] and got[0] != []
    bob = c.as_user("bob")  # (the owner, a lead, sees no unsubmitted set either)
    assert _hits(bob, "type:Bacterium /Bacil+us/") == [("d1", 0, 8, "Bacillus")]  # bob's own
    assert (
        _hits(alice, "type:Bacterium /Bacil+us/") == [] and _counts(alice, "type:Bacterium /Bacil+us/") == []
    )
    assert _hits(alice, "type:Habitat /soi./") == [("d1", 24, 28, "soil")]  # her own
    # a server login outside the team, and a revoked login: no right to call it
    mallory = team_roles.name("mallory")  # type: ignore[attr-defined]
    with psycopg.connect(base, autocommit=True) as conn:
        conn.execute(f'CREATE ROLE "{mallory}" LOGIN')
    schema = make_url(base).query["options"].split("=")[-1]  # type: ignore[union-attr]
    with db.write(c.engine) as conn:  # she may see the schema's names (else the call fails as unknown)
        conn.exec_driver_sql(f'GRANT USAGE ON SCHEMA "{schema}" TO "{mallory}"')
    as_mallory = make_url(base).set(username=mallory).render_as_string(hide_password=False)
    with psycopg.connect(as_mallory, autocommit=True) as m:
        for stmt, params in ((like, (mine, "%soil%")), (projects, (mallory,))):
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                m.execute(stmt, params)
    with psycopg.connect(libpq("carol"), autocommit=True) as k:  # her session stays open through it
        assert k.execute(like, (mine, "%soil%")).fetchone()[0] != []
        c.team_revoke("carol", drop_role=False)
        with pytest.raises((psycopg.errors.InsufficientPrivilege, psycopg.errors.UndefinedFunction)):
            k.execute(like, (mine, "%soil%"))  # (no right on the schema either: the name is unknown)
        with db.write(c.engine) as conn:  # grants left behind by mistake: the guard still says nothing
            conn.exec_driver_sql(f'GRANT USAGE ON SCHEMA "{schema}" TO "{team_roles.name("carol")}"')  # type: ignore[attr-defined]
            for sig in ("corpusdb_like_candidates(integer, text)", "corpusdb_projects(name, text[])"):
                conn.exec_driver_sql(f'GRANT EXECUTE ON FUNCTION {sig} TO "{team_roles.name("carol")}"')  # type: ignore[attr-defined]
        assert k.execute(like, (mine, "%soil%")).fetchone()[0] == []
        assert k.execute(projects, (team_roles.name("carol"),)).fetchone()[0] == []  # type: ignore[attr-defined]


@pytest.mark.postgres
def test_a_trigram_literal_walks_the_first_documents_then_asks_the_index(
    pg_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first hits of a regex read the first documents in order while its literal is frequent there,
    then the trigram index for the rest (``Run._walk_then_index``): the same hits, in the same order,
    as the index alone, whether the walk reaches the end, stops at a sparse page or is cut by a limit."""
    texts = {}
    for i in range(60):
        words = ["Protein", "kinases" if i < 20 or i % 10 == 0 else "phosphatase", "bind."]
        if i in (3, 45):
            words.append("Zebrafish kinase-like domain.")
        texts[f"d{i:03}"] = " ".join(words)
    c = Corpus.create("p", "bb-2011", url=pg_url)
    c.add_documents([Document(d, t) for d, t in texts.items()])
    pages: list[int] = []
    real = engine.Run._all

    def counted(self: engine.Run, q: object, **kw: object) -> list[object]:
        rows = real(self, q, **kw)  # type: ignore[arg-type]
        pages.append(len(rows))
        return rows

    queries = ["/kinases?\\b/", "/[Zz]ebrafish/", "/phosphatase|zebrafish/", "/kinase-like/"]
    walked, reads = {}, {}
    monkeypatch.setattr(engine.Run, "WALK", 2)  # pages of 2, 8, 32 documents
    monkeypatch.setattr(engine.Run, "_all", counted)
    for q in queries:
        pages.clear()
        walked[q] = (_hits(c, q), [h.document for h in c.search(q, limit=3).hits])
        reads[q] = list(pages)
    monkeypatch.setattr(engine.Run, "WALK", 0)
    for q in queries:
        assert walked[q] == (_hits(c, q), [h.document for h in c.search(q, limit=3).hits]), q
    kinase, zebra = walked["/kinases?\\b/"][0], walked["/[Zz]ebrafish/"][0]
    assert [h[0] for h in kinase] == [d for d, t in texts.items() for _ in re.finditer(r"kinases?\b", t)]
    assert [h[0] for h in zebra] == ["d003", "d045"]
    # kinases fill the first pages: walked on to the end (2, 8, 32, then the last 18 documents);
    # Zebrafish is in none of the first two: the index answered for the rest (d003 and d045)
    assert reads["/kinases?\\b/"][:4] == [2, 8, 32, 18]
    assert reads["/[Zz]ebrafish/"][:2] == [2, 2]
