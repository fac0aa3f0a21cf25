"""Search through the store, on SQLite and PostgreSQL: hits equal a scan of every text, span queries
equal what the sets hold and what the agreement engine counts, groundings with their knowledge-base
labels, and the full-text index exact after imports, edits, deletions and rollbacks."""

from __future__ import annotations

import re
from collections import Counter
from pathlib import Path

import pytest
from sqlalchemy import text

from corpusdb.api import Corpus
from corpusdb.basics.errors import Conflict, NotFound, PermissionDenied, StaleVersion, UsageError
from corpusdb.basics.records import Annotations, Document, Grounding, Span
from corpusdb.demo import build_demo, demo_agreement
from corpusdb.services.edits import Put
from corpusdb.store import db, migrate
from corpusdb.store import text_index as index
from tests.conftest import shared_path
from tests.kb_support import KB


@pytest.fixture
def sample(any_url: str) -> Corpus:
    """The bundled sample project: 7 real Spanish news texts, 4 annotators (bratiaa's example)."""
    return build_demo(any_url).corpus


def texts_of(corpus: Corpus) -> dict[str, str]:
    return {d.external_id: corpus.document(d.external_id).text for d in corpus.documents()}


def scan(texts: dict[str, str], rx: str, flags: int = re.IGNORECASE) -> list[tuple[str, int, int]]:
    """Every match of a plain regex in every text: what a search must find, found without any index."""
    return [(d, m.start(), m.end()) for d, t in sorted(texts.items()) for m in re.finditer(rx, t, flags)]


def hits(corpus: Corpus, query: str, **kw: object) -> list[tuple[str, int, int]]:
    return [(h.document, h.start, h.stop) for h in corpus.search(query, limit=None, **kw).hits]  # type: ignore[arg-type]


def test_text_hits_are_every_place_a_scan_of_the_texts_finds(sample: Corpus) -> None:
    texts = texts_of(sample)
    w = r"(?<!\w){}(?!\w)"
    cases = {
        "de": w.format("de"),
        "Madrid": w.format("Madrid"),
        "EFE": w.format("EFE"),
        "gobier*": r"(?<!\w)gobier\w*",
        '"de la"': w.format(r"de\s+la"),
        "/[A-Z]{3,}/": r"[A-Z]{3,}",
    }
    for query, rx in cases.items():
        want = scan(texts, rx, 0 if query.startswith("/") else re.IGNORECASE)
        assert want, query  # the sample holds each: a test that finds nothing proves nothing
        assert hits(sample, query) == want, query
    # several words: every one in the document, each place a hit; negation drops documents
    both = [
        d
        for d, t in texts.items()
        if re.search(w.format("EFE"), t, re.I) and re.search(w.format("Madrid"), t, re.I)
    ]
    got = hits(sample, "EFE Madrid")
    assert {d for d, _, _ in got} == set(both) and len(got) == sum(
        len(scan({d: texts[d]}, w.format("EFE"))) + len(scan({d: texts[d]}, w.format("Madrid"))) for d in both
    )
    without = [d for d in texts if d not in both and re.search(w.format("EFE"), texts[d], re.I)]
    assert {d for d, _, _ in hits(sample, "EFE -Madrid")} == set(without)
    # per document counts, one document, and the limit
    counts = sample.search_counts("de")
    assert {r.document: r.hits for r in counts.rows} == Counter(d for d, _, _ in scan(texts, w.format("de")))
    first = sorted(texts)[0]
    assert hits(sample, "de", document=first) == scan({first: texts[first]}, w.format("de"))
    page = sample.search("de", limit=5)
    assert len(page.hits) == 5 and page.more and page.finds == "text"
    h = page.hits[0]
    assert texts[h.document][h.start : h.stop].lower() == "de" and texts[h.document][: h.start].endswith(
        h.left
    )


def test_span_queries_find_what_the_sets_hold(sample: Corpus) -> None:
    want: Counter[tuple[str, str, str]] = Counter()
    for info in sample.sets(kind="annotation"):
        for s in sample.read_set(info.id).annotations.spans:
            want[(info.annotator or "", info.document_external_id, s.type)] += 1
    per = sample.search_counts("type:PER annotator:Maria")
    assert {(r.document, r.type): r.hits for r in per.rows} == {
        (d, t): n for (a, d, t), n in want.items() if a == "Maria" and t == "PER"
    }
    assert sample.search_counts("type:*").total == sum(want.values())
    assert sample.search_counts("-type:PER,LOC").total == sum(
        n for k, n in want.items() if k[2] not in ("PER", "LOC")
    )
    got = sample.search("annotator:Lisa type:LOC Madrid", limit=None).hits
    assert got and all(h.annotator == "Lisa" and h.type == "LOC" and "madrid" in h.text.lower() for h in got)
    assert [h.text for h in got] == [h.text for h in got if re.search(r"(?<!\w)madrid(?!\w)", h.text, re.I)]
    # ordered by document, then offset
    allh = sample.search("type:ORG", limit=None).hits
    assert [(h.document, h.start) for h in allh] == sorted((h.document, h.start) for h in allh)


def test_agreement_states_count_what_the_agreement_engine_counts(sample: Corpus) -> None:
    """``agree:``/``disagree:`` between two annotators, on exact fragments and type, give the matched
    and one-sided spans of ``corpusdb agree`` (bratiaa's figures: Maria-Max F1 0.816)."""
    report = demo_agreement(sample).to_dict()
    for pair in report["pairs"]:
        a, b, o = pair["a"], pair["b"], pair["overall"]
        agree = sample.search(f"agree:{a},{b}", limit=None).hits
        assert Counter(h.annotator for h in agree) == {a: o["matched"], b: o["matched"]}
        dis = sample.search(f"disagree:{a},{b}", limit=None).hits
        assert Counter(h.annotator for h in dis) == {a: o["only_a"], b: o["only_b"]}
        parts = sum(
            sample.search_counts(f"{s}:{a},{b}").total for s in ("disagree-type", "disagree-span", "only")
        )
        assert parts == len(dis)
    assert (
        round(next(p for p in report["pairs"] if (p["a"], p["b"]) == ("Maria", "Max"))["overall"]["f1"], 3)
        == 0.816
    )
    # one side's spans of one type where the other put another type at the same place
    typed = sample.search("disagree-type:Lisa,Peter type:MISC", limit=None).hits
    for h in typed:
        other = "Peter" if h.annotator == "Lisa" else "Lisa"
        theirs = sample.search(f"annotator:{other} doc:{h.document}", limit=None).hits
        assert any(t.fragments == h.fragments and t.type != "MISC" for t in theirs)


def test_names_are_checked_and_annotators_refused_others_sets(sample: Corpus) -> None:
    with pytest.raises(NotFound, match="no annotator named 'Mario'"):
        sample.search("annotator:Mario")
    maria = sample.as_user("Maria")
    for q in ("annotator:Max", "disagree:Maria,Max", "annotator:gold type:PER"):
        with pytest.raises(PermissionDenied, match="only their own sets"):
            maria.search(q)
    mine = maria.search("type:*", limit=None).hits
    assert mine and {h.annotator for h in mine} == {"Maria"}
    with pytest.raises(UsageError, match="unknown field"):
        sample.search("tipo:PER")


# -- the index follows every write ------------------------------------------------------------


def _fts_check(corpus: Corpus) -> None:
    """SQLite: FTS5's own integrity check (the index equals the texts, row for row); PostgreSQL: the
    trigram index answers (forced: no sequential scan) exactly what a scan does."""
    with db.read(corpus.engine) as conn:
        if db.is_sqlite(conn):
            conn.exec_driver_sql(f"INSERT INTO {index.FTS}({index.FTS}, rank) VALUES ('integrity-check', 1)")
            return
        conn.exec_driver_sql("SET LOCAL enable_seqscan = off")
        plan = " ".join(
            r[0] for r in conn.execute(text("EXPLAIN SELECT id FROM document WHERE text ILIKE '%soil%'"))
        )
        assert index.TRGM_INDEX in plan
        by_index = {r[0] for r in conn.execute(text("SELECT id FROM document WHERE text ILIKE '%soil%'"))}
        conn.exec_driver_sql("SET LOCAL enable_seqscan = on")
        conn.exec_driver_sql("SET LOCAL enable_indexscan = off")
        conn.exec_driver_sql("SET LOCAL enable_bitmapscan = off")
        by_scan = {r[0] for r in conn.execute(text("SELECT id FROM document WHERE text ILIKE '%soil%'"))}
        assert by_index == by_scan


def test_the_index_follows_imports_edits_deletions_and_rollbacks(any_url: str, tmp_path: Path) -> None:
    c = Corpus.create("p", "bb-2011", url=any_url)
    c.add_annotator("alice")
    with db.read(c.engine) as conn:
        assert index.kind(conn) in ("fts5", "pg_trgm")
    c.add_documents([Document("d1", "Bacillus lives in soil."), Document("d2", "Nothing here.")])
    assert hits(c, "soil") == [("d1", 18, 22)]
    _fts_check(c)
    # an import refused whole (a different text under a known id): its new texts are not found
    folder = tmp_path / "texts"
    folder.mkdir()
    (folder / "d3.txt").write_text("Streptomyces in forest soil.", encoding="utf-8")
    (folder / "d1.txt").write_text("A different text for d1.", encoding="utf-8")
    with pytest.raises(Conflict, match="different text under the same id: d1"):
        c.import_texts(folder)
    assert hits(c, "soil") == [("d1", 18, 22)] and hits(c, "Streptomyces") == []
    _fts_check(c)
    (folder / "d1.txt").unlink()
    c.import_texts(folder)
    assert hits(c, "soil") == [("d1", 18, 22), ("d3", 23, 27)]
    _fts_check(c)
    # edits: a span found by type once saved, gone once undone; a refused edit changes nothing
    alice = c.as_user("alice")
    info = c.create_set("d3", "alice")
    r = alice.edit_set(info.id, [Put(Span("T1", "Soil", ((23, 27),), "soil"))], expected_version=info.version,
                       history="do", description="add")  # fmt: skip
    assert [(h.item, h.text) for h in alice.search("type:Soil soil").hits] == [("T1", "soil")]
    with pytest.raises(StaleVersion):
        alice.edit_set(info.id, [Put(Span("T2", "Soil", ((0, 12),), "Streptomyces"))], expected_version=0)
    assert (
        alice.search("type:Soil", limit=None).hits[0].item == "T1" and len(alice.search("type:*").hits) == 1
    )
    alice.edit_set(
        info.id, list(r.inverse), expected_version=r.info.version, history="undo", description="add"
    )
    assert alice.search("type:Soil").hits == ()
    # deletions: a document, then the whole project (its sets and texts cascade)
    c.delete_document("d1", reason="test")
    assert hits(c, "soil") == [("d3", 23, 27)]
    _fts_check(c)
    c.delete_project(confirm="p", reason="test", archive=tmp_path / "trail.json")
    _fts_check(c)
    with db.read(c.engine) as conn:
        assert conn.execute(text("SELECT count(*) FROM document")).scalar_one() == 0
        if db.is_sqlite(conn):  # nothing left in the index either
            assert (
                conn.exec_driver_sql(
                    f"SELECT count(*) FROM {index.FTS} WHERE {index.FTS} MATCH 'soil'"
                ).scalar_one()
                == 0
            )


def test_a_rolled_back_transaction_leaves_no_trace_in_the_index(any_url: str) -> None:
    c = Corpus.create("p", "bb-2011", url=any_url)
    c.add_documents([Document("d1", "Bacillus lives in soil.")])
    with pytest.raises(RuntimeError), db.write(c.engine) as conn:
        conn.execute(text("UPDATE document SET text = 'Mycobacterium in water.' WHERE external_id = 'd1'"))
        conn.execute(
            text("INSERT INTO document (project_id, external_id, text, sha256, source, created) "
                 "SELECT project_id, 'd2', 'Vibrio in seawater.', 'x', '', created FROM document")
        )  # fmt: skip
        assert conn.execute(text("SELECT count(*) FROM document")).scalar_one() == 2
        raise RuntimeError("interrupted")
    assert hits(c, "soil") == [("d1", 18, 22)] and hits(c, "water") == [] and hits(c, "seawater") == []
    _fts_check(c)
    with db.write(c.engine) as conn:  # a committed change of text is found at once (the update trigger)
        conn.execute(text("UPDATE document SET text = 'Mycobacterium in water.' WHERE external_id = 'd1'"))
    assert hits(c, "water") == [("d1", 17, 22)] and hits(c, "soil") == []
    _fts_check(c)


def test_a_migration_that_copies_the_document_table_gets_its_index_back(sqlite_url: str) -> None:
    """Going back to 0014 drops the index; texts added meanwhile are indexed on the way up again."""
    c = Corpus.create("p", "bb-2011", url=sqlite_url)
    c.add_documents([Document("d1", "Bacillus lives in soil.")])
    migrate.downgrade(c.engine, "0014")
    with db.write(c.engine) as conn:
        assert index.kind(conn) == "none"
        conn.execute(
            text("INSERT INTO document (project_id, external_id, text, sha256, source, created) "
                 "SELECT project_id, 'd2', 'More soil here.', 'x', '', created FROM document")
        )  # fmt: skip
    migrate.upgrade(c.engine)
    with db.read(c.engine) as conn:
        assert index.kind(conn) == "fts5"
        names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type = 'trigger'")}
        assert set(index.TRIGGERS) <= names
    assert hits(c, "soil") == [("d1", 18, 22), ("d2", 5, 9)]
    _fts_check(c)


# -- groundings and their knowledge-base labels --------------------------------------------------

GTEXT = "gut and soil and stomach and gastric mucosa"


def test_groundings_and_their_labels(any_url: str) -> None:
    c = Corpus.create("bb", schema=KB / "bb-cat-test.toml", url=any_url)
    c.kb_add("ontobiotope", KB / "habitats.obo", "obo")
    c.add_annotator("alice")
    c.add_documents([Document("d1", GTEXT)])
    info = c.create_set("d1", "alice")

    def hab(sid: str, a: int, b: int, *refs: str) -> Span:
        gs = tuple(Grounding(r, kind="OntoBiotope", extra={"st": True}) for r in refs)
        return Span(sid, "Habitat", ((a, b),), GTEXT[a:b], groundings=gs)

    ann = Annotations(spans=(hab("T1", 0, 3, "HAB:0002"), hab("T2", 8, 12, "HAB:0007", "HAB:0008"),
                             hab("T3", 17, 24, "HAB:0003"), hab("T4", 29, 43)))  # fmt: skip
    alice = c.as_user("alice")
    alice.replace_set(info.id, ann, expected_version=info.version)
    items = lambda q: [h.item for h in alice.search(q, limit=None).hits]  # noqa: E731
    assert items("grounding:HAB:0007") == ["T2"]
    assert items("grounding:OntoBiotope:HAB:0003") == ["T3"]  # the whole key works too
    assert items("grounding:HAB:000*") == ["T1", "T2", "T3"]
    assert items("type:Habitat -grounding:*") == ["T4"]
    assert items('label:"digestive tract"') == ["T1"]
    assert items("label:soil") == ["T2"]  # soil, rhizosphere soil
    assert items("label:stom*") == ["T3"]
    assert items("-label:soil type:Habitat") == ["T1", "T3", "T4"]
    hit = alice.search("grounding:HAB:0008").hits[0]
    assert hit.groundings == (("OntoBiotope:HAB:0007", "soil"), ("OntoBiotope:HAB:0008", "rhizosphere soil"))
    from corpusdb.search import kwic

    assert "OntoBiotope:HAB:0008 (rhizosphere soil)" in kwic.line(hit)


def test_bb_cat_groundings_counted_as_the_files_hold_them(any_url: str) -> None:
    """The real BB 2016 normalisation corpus: every span grounded to an OntoBiotope id, as its
    ``N`` lines say, is found by ``grounding:`` (real data: skipped without ../shared)."""
    root = shared_path("data", "bionlp-st-2016-bb-cat-dev")
    c = Corpus.create("bb", schema="bb-2016-cat", url=any_url)
    c.import_brat(root, kind="gold", force=True)
    want: Counter[str] = Counter()
    for a2 in root.rglob("*.a2"):
        for line in a2.read_text(encoding="utf-8").splitlines():
            m = re.match(r"N\d+\tOntoBiotope Annotation:(T\d+) Referent:(OBT:\d+)$", line)
            if m:
                want[m.group(2)] += 1
    assert sum(want.values()) > 300
    for ref, n in want.most_common(3):
        got = c.search(f"grounding:{ref}", limit=None).hits
        per_span = sum(1 for h in got for k, _ in h.groundings if k.endswith(ref))
        assert per_span == n, ref
        assert {h.type for h in got} == {"Habitat"}


def test_without_the_index_a_search_scans_and_finds_the_same(any_url: str) -> None:
    """A server that cannot have the index (no FTS5, no right to create pg_trgm) still searches."""
    c = build_demo(any_url).corpus
    queries = ["de", "Madrid EFE", '"de la"', "gobier*", "/[A-Z]{3,}/", "type:LOC Madrid", "text:/^Real/"]
    before = {q: hits(c, q) for q in queries}
    assert all(before.values())
    with db.write(c.engine) as conn:
        index.uninstall(conn)
        assert index.kind(conn) == "none"
    assert {q: hits(c, q) for q in queries} == before
    assert c.search("de").index == "none"
