"""The raters' span columns read concurrently (issue #14): each rater on its own SQLite connection
and thread, checked against the snapshot the blindness gate read the set headers in.

What must hold: the same columns as one connection reading rater after rater; a write committed
after the gate read the headers never yields a report mixing two states of the store (the read
falls back to the gate's own connection and snapshot); only the sets the gate cleared are read.
"""

from __future__ import annotations

import threading

import numpy as np
import pytest

from corpusdb.api import Corpus
from corpusdb.basics.errors import PermissionDenied
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.reports import AgreementOptions
from corpusdb.reports.columns import _read_parallel, read_raters_columns, read_span_columns
from corpusdb.reports.loading import load_raters
from corpusdb.services import access
from corpusdb.services.edits import Put

TYPES = ("Bacterium", "Habitat", "Geographical")


@pytest.fixture
def project(sqlite_url: str) -> tuple[Corpus, dict[tuple[str, str], int]]:
    """alice and bob on D0-D7, submitted; carol on D0-D1 with D1 still open (D1 hidden from the lead);
    one of bob's sets has a discontinuous span and a name without a mention."""
    corpus = Corpus.create("par", "bb-2011", url=sqlite_url)
    for n in ("alice", "bob", "carol"):
        corpus.add_annotator(n)
    text = "E. coli lives in the gut and in soil near Paris , also in water tanks"
    corpus.add_documents([Document(f"D{d}", text) for d in range(8)])
    sets: dict[tuple[str, str], int] = {}
    for d in range(8):
        for w, n in enumerate(("alice", "bob", "carol")):
            if n == "carol" and d > 1:
                continue
            spans = [
                Span(f"T{k}", TYPES[(k + w * (d % 2)) % 3], ((k * 5, k * 5 + 3 + w),), "") for k in range(6)
            ]
            if n == "bob" and d == 3:
                spans += [Span("T90", "Habitat", ((40, 45), (50, 55)), ""), Span("T91", "Bacterium", (), "")]
            status = "assigned" if (n == "carol" and d == 1) else "submitted"
            info = corpus.create_set(f"D{d}", n, annotations=Annotations(spans=tuple(spans)), status=status)
            sets[(n, f"D{d}")] = info.id
    return corpus, sets


def _groups(conn, corpus: Corpus, names: tuple[str, ...]) -> list[list]:  # type: ignore[no-untyped-def]
    infos = access.visible_sets(conn, corpus.project_id, corpus.actor, kind="annotation")
    return [[i for i in infos if i.annotator == n] for n in names]


def _plain(cols, ids: bool = True) -> dict:  # type: ignore[no-untyped-def]
    """A rater's columns as plain values (type codes replaced by names: codes may be numbered apart).
    ``ids=False`` after a write: span ids are read lazily, and refused once the rows changed."""
    out = {
        "docs": cols.doc_ids,
        "offsets": cols.offsets.tolist(),
        "types": [cols.type_names[t] for t in cols.type.tolist()],
        "start": cols.start.tolist(),
        "end": cols.end.tolist(),
        "fragments": dict(cols.fragments),
    }
    if ids:
        out["ids"] = [cols.ids[i] for i in range(len(cols.ids))]
    return out


def test_concurrent_read_equals_one_connection(project: tuple[Corpus, dict]) -> None:
    corpus, _ = project
    with corpus._read() as conn:
        groups = _groups(conn, corpus, ("alice", "bob", "carol"))
        one = [read_span_columns(conn, g) for g in groups]
        both = read_raters_columns(conn, groups)
        par = _read_parallel(corpus.engine, groups)  # the concurrent read itself ran (no fallback)
    assert par is not None
    for x, y, z in zip(one, both, par, strict=True):
        assert _plain(x) == _plain(y) == _plain(z)
    bob = _plain(both[1])
    assert bob["fragments"]  # the several-fragment span and the name without a mention came through
    assert "D1" not in bob["docs"]  # carol's D1 is open: the lead sees nobody's D1 yet
    assert len(bob["types"]) == 7 * 6 + 2


def test_write_racing_the_read_never_mixes_states(project: tuple[Corpus, dict]) -> None:
    """Alice edits a set after the gate read the headers: the reader threads' snapshots see the
    edit, their version check refuses them, and the columns are those of the gate's snapshot."""
    corpus, sets = project
    alice = corpus.as_user("alice")
    with corpus._read() as conn:
        groups = _groups(conn, corpus, ("alice", "bob"))
        before = [_plain(c, ids=False) for c in (read_span_columns(conn, g) for g in groups)]
        corpus.reopen(sets[("alice", "D2")], reason="one more")  # committed while conn's snapshot is open
        info = alice.read_set(sets[("alice", "D2")]).info
        alice.edit_set(info.id, [Put(Span("T77", "Habitat", ((60, 65),), ""))], expected_version=info.version)
        assert _read_parallel(corpus.engine, groups) is None  # the threads saw another state
        got = [_plain(c, ids=False) for c in read_raters_columns(conn, groups)]
    assert got == before  # not alice's new span
    with corpus._read() as conn:  # a fresh report sees the edit (alice's D2 reopened: not compared)
        assert all(i.id != sets[("alice", "D2")] for i in _groups(conn, corpus, ("alice",))[0])


def test_write_during_the_concurrent_read(project: tuple[Corpus, dict]) -> None:
    """An edit committed while the reader threads run: whichever snapshot they got, the columns
    equal the gate's (consistent or read again on its connection), never half old and half new."""
    corpus, sets = project
    target = sets[("alice", "D4")]
    new = Annotations(spans=tuple(Span(f"N{k}", "Habitat", ((k, k + 2),), "") for k in range(9)))
    with corpus._read() as conn:
        groups = _groups(conn, corpus, ("alice", "bob"))
        before = [_plain(c, ids=False) for c in (read_span_columns(conn, g) for g in groups)]
        done = threading.Event()

        def write() -> None:  # the lead rewrites alice's D4 while the threads read
            corpus.replace_set(target, new)
            done.set()

        got = [_plain(c, ids=False) for c in read_raters_columns(conn, groups, meanwhile=write)]
    assert done.is_set()
    assert got == before
    with corpus._read() as conn:  # the write did change what a fresh read gives
        after = [
            _plain(c, ids=False) for c in read_raters_columns(conn, _groups(conn, corpus, ("alice", "bob")))
        ]
    assert after[0]["types"].count("Habitat") != before[0]["types"].count("Habitat")
    assert after[1] == before[1]


def test_concurrent_read_passes_the_gate(project: tuple[Corpus, dict]) -> None:
    """Blindness probe: the reader threads read exactly the sets the gate cleared. The lead does not
    see carol's open D1 set (its rows are not read); an annotator cannot reach another's sets."""
    corpus, _ = project
    opts = AgreementOptions.build(layer="spans")
    with corpus._read() as conn:
        raters = load_raters(conn, corpus.project_id, corpus.actor, opts, None)
    carol = next(r for r in raters if r.name == "carol")
    assert carol.columns is not None
    assert carol.columns.doc_ids == ("D0",)
    assert len(carol.columns.type) == 6  # D1's spans (hidden: still assigned) were not read
    assert int(np.diff(carol.columns.offsets)[0]) == 6
    bob = corpus.as_user("bob")
    with bob._read() as conn, pytest.raises(PermissionDenied):
        load_raters(conn, bob.project_id, bob.actor, AgreementOptions.build(raters=["alice", "bob"]), None)
    with pytest.raises(PermissionDenied):
        bob.agreement(raters=["alice", "bob"])
    with bob._read() as conn:  # his own sets only, through the concurrent reader
        infos = access.visible_sets(conn, bob.project_id, bob.actor)
        assert {i.annotator for i in infos} == {"bob"}
        cols = read_raters_columns(conn, [infos, infos])
    assert len(cols[0].type) == 8 * 6 + 2


@pytest.mark.parametrize(("n", "k"), [(0, 3), (1, 1), (1000, 5), (20_000, 40), (5000, 200)])
def test_first_seen_is_unique_with_first_index(n: int, k: int) -> None:
    """The type codes' first appearances (what numbers the types as the record path does) without
    sorting the rows: the same as ``np.unique(..., return_index=True)``, above 64 codes too."""
    from corpusdb.agreement.spans import _first_seen

    codes = np.random.default_rng(n).integers(0, k, n).astype(np.int32)
    want, want_first = np.unique(codes, return_index=True)
    got, got_first = _first_seen(codes, k)
    assert got.tolist() == want.tolist()
    assert got_first.tolist() == want_first.tolist()
