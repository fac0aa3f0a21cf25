"""The span report read as columns (issue #14) equals the report computed from full records.

The store's column reader feeds the engine arrays instead of ``Span`` records; everything it could
get wrong is here on a real SQLite file and PostgreSQL: span order within a document, type codes
in order of first appearance, discontinuous spans (overlapping and unsorted fragments), names
without a mention (left out and counted), rows stored before lean rows (one fragment as JSON),
raters with different documents, three raters (multi-rater units), merged types, every criterion
and a seeded bootstrap.
"""

from __future__ import annotations

import random
from typing import Any

import numpy as np
import pytest
from sqlalchemy import text

from corpusdb.agreement.spans import CRITERIA, PreparedSpans
from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.reports import AgreementOptions, build_report
from corpusdb.reports.columns import read_span_columns
from corpusdb.reports.options import Rater

TYPES = ("Bacterium", "Habitat", "Geographical", "Host")
WORDS = ("Bacillus", "subtilis", "lives", "in", "soil", "and", "water", "of", "the", "gut", ",", ".")


def _text(rnd: random.Random) -> str:
    return " ".join(rnd.choice(WORDS) for _ in range(60))


def _spans(rnd: random.Random, base: list[tuple[int, int, str]], n_text: int, who: int) -> list[Span]:
    """A rater's version of the base spans: kept, shifted, retyped, missed, extra, discontinuous."""
    out: list[Span] = []
    for k, (s, e, t) in enumerate(base):
        u = rnd.random()
        if who and u < 0.1:
            continue
        if who and u < 0.2:
            s = max(0, s - 1)
        if who and 0.2 <= u < 0.3:
            t = TYPES[(TYPES.index(t) + 1) % len(TYPES)]
        frags: tuple[tuple[int, int], ...] = ((s, e),)
        if 0.3 <= u < 0.36 and e + 8 < n_text:  # discontinuous; fragments unsorted or overlapping
            frags = ((e + 3, e + 8), (s, e)) if u < 0.33 else ((s, e), (e - 1, e + 4))
        if 0.36 <= u < 0.38:
            frags = ()  # a name without a mention
        out.append(Span(f"T{k + 1}", t, frags, ""))
    if who == 2:
        out.append(Span("T900", "Host", ((0, 3),), ""))
        out.reverse()  # a different insertion order than the others
    return out


@pytest.fixture
def project(any_url: str) -> Corpus:
    rnd = random.Random(11)
    corpus = Corpus.create("cols", "bb-2011", url=any_url)
    names = ("alice", "bob", "carol")
    for n in names:
        corpus.add_annotator(n)
    docs = []
    for d in range(24):
        body = _text(rnd)
        docs.append(Document(f"D{d:02d}", body))
    corpus.add_documents(docs)
    for d, doc in enumerate(docs):
        n_text = len(doc.text)
        base = []
        for _ in range(rnd.randint(0, 9)):
            s = rnd.randrange(0, n_text - 20)
            base.append((s, s + rnd.randint(1, 12), rnd.choice(TYPES)))
        for w, n in enumerate(names):
            if n == "carol" and d % 5 == 0:
                continue  # carol did not annotate every document
            corpus.create_set(
                doc.external_id,
                n,
                annotations=Annotations(spans=tuple(_spans(rnd, base, n_text, w))),
                status="submitted",
            )
    # rows written before lean rows keep their one fragment as JSON: the reader must read them alike
    cast = "::json" if corpus.engine.dialect.name == "postgresql" else ""
    with corpus.engine.begin() as conn:
        conn.execute(
            text(
                f"UPDATE span SET fragments = ('[[' || start || ', ' || stop || ']]'){cast} "
                "WHERE id % 3 = 0 AND fragments IS NULL"
            )
        )
    return corpus


def _record_raters(corpus: Corpus, names: tuple[str, ...]) -> list[Rater]:
    """The raters as the report read them before: every set as full records."""
    out = []
    for n in names:
        infos = [s for s in corpus.set_headers() if s.annotator == n and s.kind == "annotation"]
        sets = {s.info.document_external_id: s.annotations for s in corpus.read_sets([i.id for i in infos])}
        out.append(Rater(n, "annotation", sets))
    return out


def _body(report: Any) -> dict[str, Any]:
    body = report.to_dict()
    body.pop("generated")
    return body


@pytest.mark.parametrize("types", ["required", "ignored", "merged"])
def test_report_from_columns_equals_report_from_records(project: Corpus, types: str) -> None:
    names = ("alice", "bob", "carol")
    records = _record_raters(project, names)
    merges = ["Habitat,Geographical=place"] if types == "merged" else None
    texts = {d.external_id: d.text for d in project.documents(with_text=True)}
    for criterion in CRITERIA:
        kw: dict[str, Any] = {"criterion": criterion, "types": types, "merges": merges}
        fast = project.agreement(**kw)
        opts = AgreementOptions.build(**kw)
        slow = build_report(
            project="cols", actor=fast.body["actor"], schema=project.schema(), raters=records, opts=opts,
            texts=texts if criterion == "fragment" else None, fetch_texts=lambda ids: {d: texts[d] for d in ids},
        )  # fmt: skip
        assert _body(fast) == _body(slow), criterion
    assert fast.units is not None and fast.units.units > 0  # three raters: multi-rater units were compared
    assert any(p.spans.excluded_a for p in fast.pairs)  # names without a mention were met and counted


def test_bootstrap_and_alignment_from_columns(project: Corpus) -> None:
    records = _record_raters(project, ("alice", "bob"))
    texts = {d.external_id: d.text for d in project.documents(with_text=True)}
    fast = project.agreement(raters=["alice", "bob"], bootstrap=200, seed=3)
    slow = build_report(
        project="cols", actor=fast.body["actor"], schema=project.schema(), raters=records,
        opts=AgreementOptions.build(raters=["alice", "bob"], bootstrap=200, seed=3),
        fetch_texts=lambda ids: {d: texts[d] for d in ids},
    )  # fmt: skip
    assert _body(fast) == _body(slow)
    assert fast.pair("alice", "bob").spans.alignment() == slow.pair("alice", "bob").spans.alignment()


def test_prepared_spans_from_columns_equal_from_records(project: Corpus) -> None:
    headers = [s for s in project.set_headers() if s.kind == "annotation"]
    by = {n: [h for h in headers if h.annotator == n] for n in ("alice", "carol")}
    with project.engine.connect() as conn:
        cols = {n: read_span_columns(conn, infos) for n, infos in by.items()}
    records = {r.name: r.sets for r in _record_raters(project, ("alice", "carol"))}
    docs = sorted(set(records["alice"]) & set(records["carol"]))
    assert len(docs) < len(records["alice"])  # carol's missing documents are left out
    slow = PreparedSpans({d: (records["alice"][d].spans, records["carol"][d].spans) for d in docs})
    fast = PreparedSpans.from_columns(cols["alice"], cols["carol"], docs)
    assert fast.type_names == slow.type_names
    for side in ("a", "b"):
        x, y = getattr(fast, side), getattr(slow, side)
        assert x.ids == y.ids and x.excluded == y.excluded and x.disc == y.disc
        for attr in ("type", "doc", "start", "end", "is_disc"):
            assert np.array_equal(getattr(x, attr), getattr(y, attr)), (side, attr)
    assert np.array_equal(fast.pa, slow.pa) and np.array_equal(fast.pb, slow.pb)
    assert slow.a.disc and slow.b.disc  # the data has discontinuous spans
    # the lazy mapping gives the records back (but for their text, which the report never reads)
    d = docs[0]
    back = project.agreement(raters=["alice", "carol"])
    assert back.body["raters"][0]["documents"] == len(records["alice"])
    got = [(s.id, s.type, s.fragments) for s in cols["alice"].spans(cols["alice"].doc_ids.index(d))]
    assert got == [(s.id, s.type, s.fragments) for s in records["alice"][d].spans]


def test_packed_ids_give_back_every_id() -> None:
    from corpusdb.reports.columns import PackedIds

    packed = PackedIds()
    chunks = [["T1", "T2"], [], ["odd\x1fid", "T4"], ["T5"]]
    for c in chunks:
        packed.add(c)
    flat = [i for c in chunks for i in c]
    assert len(packed) == len(flat) == 5
    assert [packed[i] for i in range(len(flat))] == flat  # an id holding the separator survives
    assert packed[-1] == "T5" and list(packed) == flat
    with pytest.raises(IndexError):
        packed[5]
