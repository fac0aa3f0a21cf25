"""The agreement report read from the store as columns (issue #14) gives the figures of the record
path, on real corpora and on a small fixture with everything the fast path could get wrong.

The fast path (``Corpus.agreement`` on layer ``spans``) reads five columns straight into arrays:
on SQLite the sets stored as unbroken row-id runs come as packed aggregate strings, the others row
by row; span ids are read only when asked. The record path is the same report computed from full
``Span`` records read through the same blindness gate. Both must give the same JSON body: F1,
counts, per type, per document, type kappa with its CI and p, one-sided spans, multi-rater units.
"""

from __future__ import annotations

import random
import warnings
from typing import Any

import numpy as np
import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import InvalidInput, PermissionDenied
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.reports import AgreementOptions, build_report
from corpusdb.reports.columns import read_span_columns
from corpusdb.reports.loading import load_raters
from corpusdb.reports.options import Rater
from corpusdb.services import access
from corpusdb.services.edits import Put
from corpusdb.services.sets import read_contents
from tests.conftest import shared_path

TYPES = ("Bacterium", "Habitat", "Geographical")


def _record_raters(corpus: Corpus, **kw: Any) -> list[Rater]:
    """The raters through the same gate and choice, every set read as full records."""
    opts = AgreementOptions.build(layer="relations", **kw)  # a layer that reads records
    with corpus._read() as conn:
        return load_raters(conn, corpus.project_id, corpus.actor, opts, None)


def _both(corpus: Corpus, texts: dict[str, str] | None = None, **kw: Any) -> tuple[dict, dict, Any, Any]:
    """(fast body, record body, fast report, record report) for the same options."""
    fast = corpus.agreement(**kw)
    raters = _record_raters(corpus, **{k: v for k, v in kw.items() if k in ("raters", "gold")})
    opts = AgreementOptions.build(**kw)
    if texts is None:
        texts = {d.external_id: d.text for d in corpus.documents(with_text=True)}
    fetch = lambda ids: {d: texts[d] for d in ids}  # noqa: E731  (as Corpus.agreement reads them)
    slow = build_report(
        project=corpus.info().name, actor=fast.body["actor"], schema=corpus.schema(), raters=raters,
        opts=opts, texts=texts if kw.get("criterion") == "fragment" else None, fetch_texts=fetch,
    )  # fmt: skip
    a, b = fast.to_dict(), slow.to_dict()
    a.pop("generated")
    b.pop("generated")
    return a, b, fast, slow


# -- a small project with every case ---------------------------------------------------------------


def _spans(rnd: random.Random, base: list[tuple[int, int, int]], who: int) -> list[Span]:
    """A rater's version of the document's base spans: kept, shifted, retyped, missed, plus
    discontinuous spans, names without a mention and duplicates."""
    out: list[Span] = []
    for k, (s, e, t) in enumerate(base):
        u = rnd.random()
        if who and u < 0.1:
            continue  # missed
        if who and u < 0.25:
            s += 1  # shifted
        if who and 0.25 <= u < 0.35:
            t += 1  # retyped
        frags: tuple[tuple[int, int], ...] = ((s, e),)
        if k % 5 == 2:
            frags = ((e + 4, e + 9), (s, e))  # discontinuous, fragments unsorted
        if k % 7 == 6:
            frags = ()  # a name without a mention
        out.append(Span(f"T{k + 1}", TYPES[t % len(TYPES)], frags, ""))
        if k % 6 == who:
            out.append(Span(f"T{k + 101}", TYPES[t % len(TYPES)], frags, ""))  # a duplicate in one set
    return out


@pytest.fixture
def scene(any_url: str) -> Corpus:
    """alice and bob on D00-D09 (bob has no set on D05: gold's items there are misses), gold on
    D00-D05, carol on D00-D03 with D03 still open (so D03 is hidden from the lead), an empty set,
    and a set edited after others were written (its rows are no longer one run of row ids)."""
    rnd = random.Random(5)
    corpus = Corpus.create("fast", "bb-2011", url=any_url)
    for n in ("alice", "bob", "carol"):
        corpus.add_annotator(n)
    corpus.add_annotator("lena", role="lead")
    docs = [Document(f"D{d:02d}", " ".join(rnd.choice(("soil", "gut", "E.", "coli", "in", ",")) for _ in range(40)))
            for d in range(10)]  # fmt: skip
    corpus.add_documents(docs)
    sets: dict[tuple[str, str], int] = {}
    for doc in docs:
        d = doc.external_id
        base = []
        for _ in range(rnd.randint(3, 9)):
            s = rnd.randrange(0, len(doc.text) - 30)
            base.append((s, s + rnd.randint(1, 10), rnd.randrange(3)))
        for w, n in enumerate(("alice", "bob", "carol")):
            if (n == "bob" and d == "D05") or (n == "carol" and d > "D03"):
                continue
            spans = () if (n == "alice" and d == "D06") else tuple(_spans(rnd, base, w))
            status = "assigned" if (n == "carol" and d == "D03") else "submitted"
            info = corpus.create_set(d, n, annotations=Annotations(spans=spans), status=status)
            sets[(n, d)] = info.id
        if d <= "D05":
            corpus.create_set(d, None, kind="gold", annotations=Annotations(spans=tuple(_spans(rnd, base, 3))),
                              status="submitted")  # fmt: skip
    # alice's D01 set gets a span now: its rows no longer form one run (read row by row)
    corpus.reopen(sets[("alice", "D01")], reason="one more")
    alice = corpus.as_user("alice")
    info = alice.read_set(sets[("alice", "D01")]).info
    alice.edit_set(info.id, [Put(Span("T900", "Habitat", ((2, 6),), ""))], expected_version=info.version)
    alice.submit(info.id, force=True)
    return corpus


@pytest.mark.parametrize("criterion", ["exact", "partial", "left", "jaccard"])
def test_fast_path_equals_record_path(scene: Corpus, criterion: str) -> None:
    for types in ("required", "ignored"):
        for kw in ({}, {"gold": True}, {"raters": ["alice", "gold"]}):
            a, b, _, _ = _both(scene, criterion=criterion, types=types, **kw)
            assert a == b, (criterion, types, kw)
    _, _, fast, slow = _both(scene, criterion=criterion, raters=["alice", "gold"])
    # span ids, read lazily on the fast path, give the same alignment
    assert fast.pair("alice", "gold").spans.alignment() == slow.pair("alice", "gold").spans.alignment()


def test_fast_path_cases_are_met(scene: Corpus) -> None:
    """The fixture really has what the fast path must handle, and the report counts it alike."""
    a, b, fast, _ = _both(scene, gold=True, bootstrap=100, seed=2)
    assert a == b
    assert any("no set on" in n for n in a["notes"])  # bob's unanswered D05 counted as misses
    assert any(p.spans.excluded_a for p in fast.pairs)  # names without a mention left out
    assert fast.units is not None and fast.units.units > 0  # four raters: multi-rater units
    assert a["one_sided"]["total"] > 0 and a["one_sided"]["rows"][0]["id"]  # ids read when listed
    with scene._read() as conn:
        infos = [
            i for i in access.visible_sets(conn, scene.project_id, scene.actor) if i.annotator == "alice"
        ]
        cols = read_span_columns(conn, infos)
        records = {s.info.document_external_id: s.annotations.spans for s in read_contents(conn, infos)}
    assert any(len(set((s.type, s.fragments) for s in sp)) < len(sp) for sp in records.values())  # duplicates
    assert any(len(s.fragments) > 1 for sp in records.values() for s in sp)  # discontinuous
    for i, d in enumerate(cols.doc_ids):
        got = [(s.id, s.type, s.fragments) for s in cols.spans(i)]
        assert got == [(s.id, s.type, s.fragments) for s in records[d]], d
    if scene.engine.dialect.name == "sqlite":  # the run reader and the row reader both took part
        assert type(cols.ids).__name__ == "_Joined"


def test_fast_path_blindness(scene: Corpus) -> None:
    """A lead's report holds no span of a document not yet submitted by everyone (D03), though its
    sets' rows lie between rows the lead may read; an annotator compares with nobody."""
    lena = scene.as_user("lena")
    a, b, _, _ = _both(lena)
    assert a == b
    assert "D03" not in a["documents"] and "D03" not in {r["document"] for r in a["per_document"]["rows"]}
    with lena._read() as conn:
        infos = access.visible_sets(conn, lena.project_id, lena.actor)
        assert "D03" not in {i.document_external_id for i in infos if i.kind == "annotation"}
        alice = [i for i in infos if i.annotator == "alice"]
        cols = read_span_columns(conn, alice)
        n_rows = sum(len(s.annotations.spans) for s in read_contents(conn, alice))
    assert len(cols.type) == n_rows and "D03" not in cols.doc_ids
    # not vacuous: alice's hidden D03 set was written between her D02 and D04 sets, which are read
    by_doc = {h.document_external_id: h.id for h in scene.set_headers(annotator="alice")}
    assert by_doc["D02"] < by_doc["D03"] < by_doc["D04"] and {"D02", "D04"} <= set(cols.doc_ids)
    alice_h = scene.as_user("alice")
    with pytest.raises(PermissionDenied):
        alice_h.agreement(raters=["alice", "bob"])
    with pytest.raises(InvalidInput, match="only their own sets"):
        alice_h.agreement()


# -- real corpora ---------------------------------------------------------------------------------


def test_fast_path_on_bratiaa_example_project(sqlite_url: str) -> None:
    root = shared_path("data", "bratiaa-example-project")
    corpus = Corpus.create("bratiaa", "conll-ner", url=sqlite_url)
    for who in sorted(p.name for p in root.iterdir() if p.is_dir()):
        corpus.import_brat(root / who, who, allow_unknown=True, force=True)
    texts = {d.external_id: d.text for d in corpus.documents(with_text=True)}
    for criterion, types in (("exact", "required"), ("partial", "ignored"), ("fragment", "required")):
        a, b, _, _ = _both(corpus, texts, criterion=criterion, types=types)
        assert a == b, (criterion, types)
    assert round(a["summary"]["value"], 3) > 0 and len(a["raters"]) == 4


def test_fast_path_on_discontinuous_bb2016(sqlite_url: str) -> None:
    """BB 2016 (real discontinuous spans, NBSP): alice as released, bob a perturbed copy."""
    root = shared_path("data", "bionlp-st-2016-bb-event", "BioNLP-ST-2016_BB-event_train")
    corpus = Corpus.create("bb16", "bb-2011", url=sqlite_url)
    corpus.import_brat(root, "alice", allow_unknown=True, force=True)
    corpus.add_annotator("bob")
    alice = {s.info.document_external_id: s.annotations.spans for s in corpus.read_sets(
        [i.id for i in corpus.set_headers(annotator="alice")])}  # fmt: skip
    assert any(len(s.fragments) > 1 for sp in alice.values() for s in sp)
    for k, (d, spans) in enumerate(sorted(alice.items())):
        out = []
        for j, s in enumerate(spans):
            if (j + k) % 7 == 0:
                continue
            if (j + k) % 5 == 0 and len(s.fragments) == 1:
                s = Span(s.id, s.type, ((s.fragments[0][0] + 1, s.fragments[0][1]),), "")
            out.append(Span(s.id, s.type, s.fragments, ""))
            if (j + k) % 11 == 0:
                out.append(Span(s.id + "d", s.type, s.fragments, ""))  # a duplicate
        corpus.create_set(d, "bob", annotations=Annotations(spans=tuple(out)), status="submitted")
    texts = {d.external_id: d.text for d in corpus.documents(with_text=True)}
    for criterion in ("exact", "approximate", "fragment"):
        a, b, _, _ = _both(corpus, texts, criterion=criterion)
        assert a == b, criterion
    assert 0.5 < a["summary"]["value"] < 1.0


# -- type kappa without statsmodels ----------------------------------------------------------------


def test_simple_kappa_is_statsmodels_bit_for_bit() -> None:
    from scipy import stats
    from statsmodels.stats.inter_rater import cohens_kappa

    from corpusdb.agreement._checks import interval
    from corpusdb.agreement.coefficients import simple_kappa_statsmodels

    rng = np.random.default_rng(0)
    for _ in range(500):
        q = int(rng.integers(2, 9))
        t = rng.integers(0, 50, size=(q, q)) * (rng.random((q, q)) < 0.7) + np.diag(rng.integers(0, 500, q))
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            ref, got = cohens_kappa(t), simple_kappa_statsmodels(t)
        for key, value in got.items():
            x, y = float(ref[key]), float(value)
            assert x == y or (np.isnan(x) and np.isnan(y)), key
    for value, se, n in ((0.5, 0.1, 100), (0.9, 0.001, 10**6), (-0.3, 2.0, 3)):
        for conf in (0.9, 0.95, 0.99):
            z = value / se
            for ci, q_, p_ in (
                ("t", stats.t.ppf(1 - (1 - conf) / 2, n - 1), 2 * stats.t.sf(abs(z), n - 1)),
                ("normal", stats.norm.ppf(1 - (1 - conf) / 2), 2 * stats.norm.sf(abs(z))),
            ):
                assert interval(value, se, n, conf, ci, cap=False) == (
                    float(value - q_ * se), float(value + q_ * se), float(z), float(p_))  # fmt: skip


def test_fast_path_in_small_scans(scene: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Runs cut into many aggregate queries (a few rows each, cuts inside sets, ids read by block)
    give the same report."""
    from corpusdb.reports import columns

    monkeypatch.setattr(columns, "SCAN", 7)
    monkeypatch.setattr(columns.RunIds, "BLOCK", 5)
    for criterion in ("exact", "partial"):
        a, b, fast, slow = _both(scene, criterion=criterion, gold=True)
        assert a == b, criterion
        assert fast.pair("alice", "bob").spans.alignment() == slow.pair("alice", "bob").spans.alignment()


def test_fast_path_narrow_and_wide_packings(scene: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """Chunks are read with one narrow integer a row unless an offset does not fit it, then with the
    wide packing: both give the record path's report, alone and mixed in one report."""
    if scene.engine.dialect.name != "sqlite":
        pytest.skip("the run reader is SQLite's")
    from corpusdb.reports import columns

    calls = {"chunk": 0, "wide": 0}
    chunk, wide = columns._run_chunk, columns._run_chunk_wide

    def count(name: str, f: Any) -> Any:
        def counted(*args: Any) -> Any:
            calls[name] += 1
            return f(*args)

        return counted

    monkeypatch.setattr(columns, "_run_chunk", count("chunk", chunk))
    monkeypatch.setattr(columns, "_run_chunk_wide", count("wide", wide))
    a, b, _, _ = _both(scene, gold=True)
    assert a == b and calls["chunk"] > 0 and calls["wide"] == 0  # offsets below 2^25: narrow alone
    monkeypatch.setattr(columns, "SCAN", 3)
    monkeypatch.setattr(columns, "NARROW", 6)  # offsets from 63 on do not fit: those chunks go wide
    for criterion in ("exact", "partial"):
        calls.update(chunk=0, wide=0)
        a, b, fast, slow = _both(scene, criterion=criterion, gold=True)
        assert a == b, criterion
        assert fast.pair("alice", "bob").spans.alignment() == slow.pair("alice", "bob").spans.alignment()
        assert 0 < calls["wide"] < calls["chunk"]  # some chunks narrow, some wide


def test_lazy_ids_refuse_rows_changed_since(sqlite_url: str) -> None:
    """Span ids read after the report (alignment) come from the same sets' rows or are refused."""
    corpus = Corpus.create("lazy", "bb-2011", url=sqlite_url)
    corpus.add_annotator("alice")
    corpus.add_documents([Document(f"D{d}", "E. coli lives in soil and in the gut") for d in range(3)])
    for d in range(3):
        spans = (Span("T1", "Bacterium", ((0, 7),), ""), Span("T2", "Habitat", ((17, 21),), ""))
        corpus.create_set(f"D{d}", "alice", annotations=Annotations(spans=spans), status="submitted")
    heads = corpus.set_headers(annotator="alice")
    with corpus._read() as conn:
        cols = read_span_columns(conn, heads)
    assert type(cols.ids).__name__ == "RunIds"  # read as runs, ids not yet read
    with corpus._read() as conn:
        again = read_span_columns(conn, heads)
    assert list(again.ids) == ["T1", "T2"] * 3
    last = heads[-1]
    corpus.reopen(last.id, reason="redo")
    alice = corpus.as_user("alice")
    info = alice.read_set(last.id).info
    alice.replace_set(
        last.id, Annotations(spans=(Span("X9", "Habitat", ((8, 13),), ""),)), expected_version=info.version
    )
    with pytest.raises(InvalidInput, match="changed since"):
        list(cols.ids)


def test_fast_path_builds_no_record(scene: Corpus, monkeypatch: pytest.MonkeyPatch) -> None:
    """The default report, against gold too, never turns the columns back into ``Span`` records
    (that cost 17 of 22 s at 10^6 spans): building one fails the test."""
    from corpusdb.agreement.spans import SpanColumns

    def refuse(self: SpanColumns, i: int) -> tuple[Span, ...]:
        raise AssertionError("a record was built on the column path")

    monkeypatch.setattr(SpanColumns, "spans", refuse)
    for kw in ({}, {"gold": True}, {"criterion": "partial", "types": "ignored"}):
        assert scene.agreement(**kw).body["summary"]["value"] is not None
