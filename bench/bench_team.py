"""Benchmark: what row-level security costs a team login on PostgreSQL (run by hand).

    python bench/bench_team.py [--url postgresql://postgres@127.0.0.1:5432/test] [--docs 200 --spans 200]

One project in a fresh schema: DOCS documents, annotated by alice and bob with SPANS spans each,
all submitted. The same API calls are timed twice in the same run: as the owner acting ``as_user``
(no RLS: the owner bypasses it) and through the person's own login role (RLS policies on every
row). Prints seconds and the ratio role/owner. Nothing is asserted: speed is measured here, never
in tests. Makes two roles named ``bench_*_<random>`` and drops them (and the schema) afterwards.
"""

from __future__ import annotations

import argparse
import time
import uuid
from collections.abc import Callable
from typing import Any

import psycopg
from sqlalchemy.engine import make_url

from corpusdb.api import Corpus
from corpusdb.basics.records import Annotations, Document, Span
from corpusdb.services.edits import Put, Remove
from corpusdb.store.db import make_engine


def timed(fn: Callable[[Any], Any], corpus: Any, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        t = time.perf_counter()
        fn(corpus)
        best = min(best, time.perf_counter() - t)
    return best


def two_edits(c: Any) -> None:
    """Add a span and remove it: each edit rewrites the set (new ids, leased to a login's transaction,
    every row checked by the insert policies; old rows deleted through ``corpusdb_delete``)."""
    s = c.my_set("w").info
    extra = Span("X1", "protein", ((0, 4),), "IL-2")
    c.edit_set(s.id, [Put(extra)], expected_version=s.version)
    c.edit_set(s.id, [Remove("span", "X1")], expected_version=s.version + 1)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--url", default="postgresql://postgres@127.0.0.1:5432/test")
    ap.add_argument("--docs", type=int, default=200)
    ap.add_argument("--spans", type=int, default=200)
    args = ap.parse_args()
    schema = f"bench_{uuid.uuid4().hex[:8]}"
    suffix = uuid.uuid4().hex[:8]
    base = args.url
    with psycopg.connect(base, autocommit=True) as c:
        c.execute(f"CREATE SCHEMA {schema}")
    url = f"{base}?options=-csearch_path%3D{schema}"
    roles = {n: f"bench_{n}_{suffix}" for n in ("alice", "judy")}
    engines = []
    try:
        owner = Corpus.create("b", "biorelex-1.0", url=url)
        owner.add_annotator("alice")
        owner.add_annotator("bob")
        owner.add_annotator("judy", "adjudicator")
        word = "IL-2 "
        text = word * args.spans
        docs = [Document(f"d{i}", text) for i in range(args.docs)]
        owner.add_documents(docs)
        owner.assign([d.external_id for d in docs], ["alice", "bob"])
        spans = tuple(Span(f"T{k}", "protein", ((5 * k, 5 * k + 4),), "IL-2") for k in range(args.spans))
        for who in ("alice", "bob"):
            me = owner.as_user(who)
            for s in me.sets():
                me.replace_set(s.id, Annotations(spans=spans), expected_version=s.version)
                me.submit(s.id, force=True)
        owner.add_documents([Document("w", text)])  # alice's open set, for the write case
        owner.assign(["w"], ["alice"])
        w = owner.as_user("alice").my_set("w").info
        owner.as_user("alice").replace_set(w.id, Annotations(spans=spans), expected_version=w.version)
        for n, r in roles.items():
            owner.team_login(n, login=r)
        print(
            f"{args.docs} documents x 2 annotators x {args.spans} spans = {2 * args.docs * args.spans:,} spans"
        )
        print(f"{'call':<34} {'as_user (s)':>12} {'login role (s)':>15} {'ratio':>7}")
        for person, label, call in (
            ("alice", "alice: read_sets (her own)", lambda c: c.read_sets([s.id for s in c.sets()])),
            ("judy", "judy: read_sets (every set)", lambda c: c.read_sets([s.id for s in c.sets()])),
            ("judy", "judy: agreement on spans", lambda c: c.agreement("spans")),
            ("alice", f"alice: 2 edits ({args.spans} spans each)", two_edits),
        ):
            via_owner = owner.as_user(person)
            engine = make_engine(
                make_url(url).set(username=roles[person]).render_as_string(hide_password=False)
            )
            engines.append(engine)
            via_role = Corpus.open(engine=engine)
            a, b = timed(call, via_owner), timed(call, via_role)
            print(f"{label:<34} {a:>12.3f} {b:>15.3f} {b / a:>7.2f}")
    finally:
        for e in engines:
            e.dispose()
        with psycopg.connect(base, autocommit=True) as c:
            c.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
            for r in roles.values():
                if c.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", (r,)).fetchone():
                    c.execute(f'DROP OWNED BY "{r}"')
                    c.execute(f'DROP ROLE "{r}"')


if __name__ == "__main__":
    main()
