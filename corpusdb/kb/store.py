"""Loading, replacing and removing knowledge bases: the reader's concepts in, bulk rows out.

Why bulk and streamed: the NCBI Taxonomy has ~2.7 million taxa and ~4 million names. Concepts are
taken from the reader in batches and written with the driver's ``executemany`` (SQLite) or
``COPY`` (PostgreSQL), inside the caller's one transaction: a reader problem anywhere in the file
raises at the end and the whole load rolls back (all or nothing).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from itertools import islice
from typing import Any

from sqlalchemy import Connection, delete, insert, select, text, update

from corpusdb.basics.errors import Conflict, FormatError, NotFound, Problem
from corpusdb.basics.records import Concept
from corpusdb.kb import index
from corpusdb.kb.norm import normalize
from corpusdb.store import db, tables

Progress = Callable[[int, int | None, str], None]
"""``progress(done, total, what)``: concepts stored so far (total None while the file is read)."""

K = tables.kb
C = tables.kb_concept
N = tables.kb_name
P = tables.kb_parent

BATCH = 20_000


@dataclass(frozen=True, slots=True)
class KbInfo:
    """A loaded knowledge base, as ``kb list``/``kb show`` print it."""

    name: str
    format: str
    source: str
    concepts: int
    names: int
    version: int
    created: datetime
    updated: datetime
    obsolete: int = 0
    roots: tuple[str, ...] = ()
    index: str = ""


def kb_id(conn: Connection, name: str) -> int:
    row = conn.execute(select(K.c.id).where(K.c.name == name)).first()
    if row is None:
        known = [r[0] for r in conn.execute(select(K.c.name).order_by(K.c.name))]
        hint = f" (loaded: {', '.join(known)})" if known else " (none is loaded: corpusdb kb add NAME FILE)"
        raise NotFound(f"no knowledge base named {name!r}{hint}")
    return int(row[0])


def _copy(conn: Connection, table: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """Bulk rows: COPY on PostgreSQL (an order of magnitude faster than INSERT for millions of
    names), the driver's executemany on SQLite."""
    if not rows:
        return
    if db.is_sqlite(conn):
        db.executemany(conn, table, columns, rows)
        return
    cols = ", ".join(f'"{c}"' for c in columns)
    cur = conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
    try:
        with cur.copy(f'COPY "{table}" ({cols}) FROM STDIN') as cp:
            for r in rows:
                cp.write_row(r)
    finally:
        cur.close()


def _json(value: Any) -> Any:
    return None if not value else db._json_dumps(value)


def write_concepts(
    conn: Connection, kid: int, concepts: Iterable[Concept], progress: Progress | None = None
) -> tuple[int, int]:
    """Insert every concept (its row, its names, its parent edges); returns (concepts, names).
    Duplicate ids are refused with the id (the reader's problems come first when it has some).
    ``progress(done, None, what)`` after each batch (the file's number of concepts is not known)."""
    n_concepts = n_names = 0
    seen: set[str] = set()
    dupes: list[str] = []
    it: Iterator[Concept] = iter(concepts)
    while True:
        batch = list(islice(it, BATCH))  # may raise the reader's FormatError: all rolls back
        if not batch:
            break
        crow: list[tuple[Any, ...]] = []
        nrow: list[tuple[Any, ...]] = []
        prow: list[tuple[Any, ...]] = []
        for c in batch:
            if c.id in seen:
                dupes.append(c.id)
                continue
            seen.add(c.id)
            crow.append((kid, c.id, c.label, 1 if c.obsolete else 0, _json(list(c.replaced_by)), c.type))
            prow += [(kid, c.id, p) for p in c.parents]
            if c.obsolete:  # looked up by id (label, replacement), never offered by name
                continue
            names = {normalize(c.label): (c.label, "label")}
            for name, kind in c.synonyms:
                names.setdefault(normalize(name), (name, kind))
            nrow += [(kid, c.id, name, norm, kind) for norm, (name, kind) in names.items() if norm]
        _copy(conn, "kb_concept", ("kb_id", "code", "label", "obsolete", "replaced_by", "type"), crow)
        _copy(conn, "kb_name", ("kb_id", "code", "name", "norm", "kind"), nrow)
        _copy(conn, "kb_parent", ("kb_id", "child", "parent"), prow)
        n_concepts += len(crow)
        n_names += len(nrow)
        if progress is not None:
            progress(n_concepts, None, f"read and stored {n_concepts} concepts, {n_names} names")
    if dupes:
        raise FormatError([Problem("(knowledge base)", None, f"id {d} is defined twice") for d in dupes[:20]])
    return n_concepts, n_names


def add(
    conn: Connection,
    name: str,
    fmt: str,
    source: str,
    concepts: Iterable[Concept],
    progress: Progress | None = None,
) -> KbInfo:
    """A new knowledge base ``name`` from ``concepts`` (refused if the name is taken)."""
    if conn.execute(select(K.c.id).where(K.c.name == name)).first() is not None:
        raise Conflict(
            f"a knowledge base named {name!r} exists; `corpusdb kb update {name} FILE` replaces it"
        )
    index.ensure(conn)
    now = datetime.now(UTC)
    kid = conn.execute(
        insert(K).values(name=name, format=fmt, source=source, created=now, updated=now).returning(K.c.id)
    ).scalar_one()
    nc, nn = write_concepts(conn, kid, concepts, progress)
    if progress is not None:
        progress(nc, nc, f"indexing {nn} names")
    index.add_rows(conn, kid)
    conn.execute(update(K).where(K.c.id == kid).values(concepts=nc, names=nn))
    _analyze(conn)
    return info(conn, name)


def _analyze(conn: Connection) -> None:
    """Fresh planner statistics after millions of rows (PostgreSQL would otherwise guess)."""
    if not db.is_sqlite(conn):
        for t in ("kb_concept", "kb_name", "kb_parent"):
            conn.exec_driver_sql(f"ANALYZE {t}")


def clear(conn: Connection, kid: int) -> None:
    index.remove_rows(conn, kid)
    for t in (N, P, C):
        conn.execute(delete(t).where(t.c.kb_id == kid))


def remove(conn: Connection, name: str) -> None:
    kid = kb_id(conn, name)
    clear(conn, kid)
    conn.execute(delete(K).where(K.c.id == kid))


def codes(conn: Connection, kid: int) -> set[str]:
    return {r[0] for r in conn.execute(select(C.c.code).where(C.c.kb_id == kid))}


def replace(
    conn: Connection,
    name: str,
    fmt: str,
    source: str,
    concepts: Iterable[Concept],
    progress: Progress | None = None,
) -> tuple[KbInfo, set[str]]:
    """Replace the content of ``name``; returns its new info and the ids that disappeared."""
    kid = kb_id(conn, name)
    before = codes(conn, kid)
    clear(conn, kid)
    index.ensure(conn)
    nc, nn = write_concepts(conn, kid, concepts, progress)
    if progress is not None:
        progress(nc, nc, f"indexing {nn} names")
    index.add_rows(conn, kid)
    conn.execute(
        update(K)
        .where(K.c.id == kid)
        .values(
            format=fmt,
            source=source,
            concepts=nc,
            names=nn,
            version=K.c.version + 1,
            updated=datetime.now(UTC),
        )
    )
    _analyze(conn)
    gone = before - codes(conn, kid)
    return info(conn, name), gone


def info(conn: Connection, name: str) -> KbInfo:
    kid = kb_id(conn, name)
    r = conn.execute(select(K).where(K.c.id == kid)).one()
    obsolete = conn.execute(
        text("SELECT count(*) FROM kb_concept WHERE kb_id = :k AND obsolete = 1"), {"k": kid}
    ).scalar_one()
    roots = [
        x[0]
        for x in conn.execute(
            text("SELECT c.code FROM kb_concept c WHERE c.kb_id = :k AND c.obsolete = 0 AND NOT EXISTS "
                 "(SELECT 1 FROM kb_parent p WHERE p.kb_id = :k AND p.child = c.code) ORDER BY c.code LIMIT 6"),
            {"k": kid},
        )
    ]  # fmt: skip
    return KbInfo(r.name, r.format, r.source, r.concepts, r.names, r.version, _aware(r.created),
                  _aware(r.updated), int(obsolete), tuple(roots), index.kind(conn))  # fmt: skip


def _aware(dt: datetime) -> datetime:
    return dt if dt.tzinfo is not None else dt.replace(tzinfo=UTC)


def listing(conn: Connection) -> list[KbInfo]:
    return [
        KbInfo(
            r.name, r.format, r.source, r.concepts, r.names, r.version, _aware(r.created), _aware(r.updated)
        )
        for r in conn.execute(select(K).order_by(K.c.name))
    ]
