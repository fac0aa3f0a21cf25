"""Reading and writing the content of annotation sets: records in, rows out, and back.

Why a module of its own: this is the hot path (imports of 10^6 spans, agreement over whole
corpora), so it works on Core connections with pre-allocated ids and driver-level
``executemany``, and loads many sets in a handful of queries. All functions run inside a
transaction the caller owns (``db.write`` / ``db.read``); none commits.
"""

from __future__ import annotations

import marshal
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import orjson
from sqlalchemy import Connection, select

from corpusdb.basics.errors import DatabaseError, InvalidInput
from corpusdb.basics.records import (
    Annotations,
    Argument,
    DocLabel,
    Entity,
    Grounding,
    Link,
    Note,
    Relation,
    Span,
    make_span,
)
from corpusdb.store import db, rls, tables


def _dumps(value: Any) -> str:
    """Compact JSON text. Why orjson: encoding JSON columns is most of the cost of a bulk import
    (10^6 spans), and orjson does it several times faster than the standard library."""
    return orjson.dumps(value).decode()


SPAN_COLS = ("set_id", "local_id", "type", "start", "stop", "text", "fragments", "attributes", "groundings",
             "extra")  # fmt: skip
"""The columns of a span row (``id`` aside); from ``fragments`` on, often NULL for a whole batch."""
REL_COLS = ("set_id", "local_id", "type", "kind", "label", "tags", "attributes", "trigger_id", "extra")
ARG_COLS = ("relation_id", "position", "role", "span_id", "arg_relation_id", "entity_id")
ENTITY_COLS = ("set_id", "local_id", "type", "members", "attributes", "groundings", "extra")
LINK_COLS = ("set_id", "local_id", "type", "source_id", "target_id", "group_key", "extra")
NOTE_COLS = ("set_id", "local_id", "type", "target", "text", "extra")
LABEL_COLS = ("set_id", "name", "value", "extra")
REFS: dict[str, str] = {
    "trigger_id": "span",
    "relation_id": "relation",
    "span_id": "span",
    "arg_relation_id": "relation",
    "entity_id": "entity",
    "source_id": "span",
    "target_id": "span",
}
"""Columns that hold a reference, and the table referred to: in built rows they are positions."""
_SPAN_BASE = 6
"""Span columns always present; the rest (fragments, attributes, groundings, extra) only when used."""
_NO_OPTIONAL = (None, None, None, None)


def _j(value: Any) -> str | None:
    """JSON text for a column, or SQL NULL for an empty mapping/sequence (keeps rows small)."""
    if not value:
        return None
    if isinstance(value, Mapping):
        value = dict(value)
    return _dumps(value)


def grounding_to_json(g: Grounding) -> dict[str, Any]:
    d: dict[str, Any] = {"ref": g.ref}
    if g.text is not None:
        d["text"] = g.text
    if g.source_id is not None:
        d["source_id"] = g.source_id
    if g.kind != "Reference":
        d["kind"] = g.kind
    if g.extra:
        d["extra"] = dict(g.extra)
    return d


def grounding_from_json(d: Mapping[str, Any]) -> Grounding:
    return Grounding(
        ref=d["ref"],
        text=d.get("text"),
        source_id=d.get("source_id"),
        kind=d.get("kind", "Reference"),
        extra=d.get("extra") or {},
    )


def check_references(ann: Annotations, where: str = "annotations") -> None:
    """Every local id unique, every reference resolvable: refuse a set that would not round-trip."""
    problems: list[str] = []
    span_ids = {s.id for s in ann.spans}
    rel_ids = {r.id for r in ann.relations}
    ent_ids = {e.id for e in ann.entities}
    other_ids = [lk.id for lk in ann.links] + [n.id for n in ann.notes] + [e.id for e in ann.entities]
    n_items = len(ann.spans) + len(ann.relations) + len(other_ids)
    if len(span_ids | rel_ids | set(other_ids)) != n_items:  # some id is used twice: say which
        ids: set[str] = set()
        for item_id in [s.id for s in ann.spans] + [r.id for r in ann.relations] + other_ids:
            if item_id in ids:
                problems.append(f"local id {item_id!r} is used twice")
            ids.add(item_id)
    for r in ann.relations:
        if r.trigger is not None and r.trigger not in span_ids:
            problems.append(f"relation {r.id}: trigger {r.trigger!r} is not a span of this set")
        for a in r.args:
            if a.ref not in span_ids and a.ref not in rel_ids and a.ref not in ent_ids:
                problems.append(f"relation {r.id}: argument {a.role}:{a.ref} points at nothing in this set")
        if r.label is not None and r.label not in (-1, 0, 1):
            problems.append(f"relation {r.id}: label {r.label!r} is not 1, 0 or -1")
    for lk in ann.links:
        for end in (lk.source, lk.target):
            if end not in span_ids:
                problems.append(f"link {lk.id}: {end!r} is not a span of this set")
    for e in ann.entities:
        problems += [
            f"entity {e.id}: member {m!r} is not a span of this set" for m in e.members if m not in span_ids
        ]
    bad = [(s.id, f) for s in ann.spans for f in s.fragments if len(f) != 2 or f[0] > f[1] or f[0] < 0]
    problems += [f"span {sid}: bad fragment {frag!r}" for sid, frag in bad]
    names = [lb.name for lb in ann.labels]
    if len(set(names)) != len(names):
        problems.append("a document label name is given twice")
    if problems:
        more = f" (and {len(problems) - 1} more)" if len(problems) > 1 else ""
        raise InvalidInput(f"{where}: {problems[0]}{more}")


def insert_annotations(conn: Connection, set_id: int, ann: Annotations) -> None:
    """Insert a whole set's content (the set must be empty of these local ids)."""
    insert_many(conn, [(set_id, ann)])


def insert_many(conn: Connection, items: Sequence[tuple[int, Annotations]]) -> None:
    """Insert the content of many sets at once: one ``executemany`` per table for the whole batch."""
    insert_rows(conn, build_rows(items))


@dataclass(slots=True)
class Batch:
    """Rows of one table as tuples over ``columns``, without ``id``; reference columns (``REFS``)
    hold *positions* in the batch they point into (a relation's trigger is a span position)."""

    columns: tuple[str, ...]
    rows: list[tuple[Any, ...]] = field(default_factory=list)


def _narrow(columns: tuple[str, ...], rows: list[tuple[Any, ...]], keep: int) -> Batch:
    """Leave out the columns after the first ``keep`` that are NULL in every row.

    Why: the driver binds every parameter of every row, and binding costs about as much per column
    as SQLite's own insert; a column left out of the INSERT takes its default (NULL) for free.
    """
    if not rows:
        return Batch(columns, rows)
    n = len(rows)  # a column is NULL throughout when it holds n Nones (counted in C, per column)
    used = list(range(keep)) + [
        i for i in range(keep, len(columns)) if list(map(itemgetter(i), rows)).count(None) != n
    ]
    if len(used) == len(columns):
        return Batch(columns, rows)
    pick = itemgetter(*used)
    return Batch(tuple(columns[i] for i in used), list(map(pick, rows)))


@dataclass(slots=True)
class ContentRows:
    """The rows of many sets' content, built before their primary keys exist.

    Why apart from inserting: rows can be built away from the database (in a worker process during
    a large import) and inserted later as they are (``insert_rows``).
    """

    spans: Batch = field(default_factory=lambda: Batch(SPAN_COLS))
    relations: Batch = field(default_factory=lambda: Batch(REL_COLS))
    args: Batch = field(default_factory=lambda: Batch(ARG_COLS))
    entities: Batch = field(default_factory=lambda: Batch(ENTITY_COLS))
    links: Batch = field(default_factory=lambda: Batch(LINK_COLS))
    notes: Batch = field(default_factory=lambda: Batch(NOTE_COLS))
    labels: Batch = field(default_factory=lambda: Batch(LABEL_COLS))

    def __reduce__(self) -> tuple[Any, ...]:
        """Pickled (from a reader process to the writer) as one ``marshal`` blob of the batches.

        Why: rows are tuples of str, int and None, which ``marshal`` writes and reads about a third
        faster than ``pickle`` (no memo of each object); both ends of an import pay it per row. A
        value marshal cannot hold (a str subclass...) falls back to pickling the batches."""
        batches = tuple((b.columns, b.rows) for b in (getattr(self, n) for n in _BATCHES))
        try:
            return (_rows_from_marshal, (marshal.dumps(batches),))
        except ValueError:
            return (_rows_from_batches, (batches,))

    def counts(self) -> dict[str, int]:
        """Items per kind, as import reports give them."""
        return {
            "spans": len(self.spans.rows),
            "relations": len(self.relations.rows),
            "links": len(self.links.rows),
            "notes": len(self.notes.rows),
            "labels": len(self.labels.rows),
        } | ({"entities": len(self.entities.rows)} if self.entities.rows else {})


_BATCHES = ("spans", "relations", "args", "entities", "links", "notes", "labels")


def _rows_from_batches(batches: Sequence[tuple[tuple[str, ...], list[tuple[Any, ...]]]]) -> ContentRows:
    return ContentRows(*(Batch(tuple(cols), rows) for cols, rows in batches))


def _rows_from_marshal(blob: bytes) -> ContentRows:
    return _rows_from_batches(marshal.loads(blob))


def build_rows(items: Iterable[tuple[int, Annotations]], *, checked: bool = False) -> ContentRows:
    """``_build_rows``, refusing values JSON cannot hold (lone surrogates, integers beyond 64 bits,
    nesting deeper than 255) as invalid input instead of an encoder error."""
    try:
        return _build_rows(items, checked=checked)
    except orjson.JSONEncodeError as exc:
        raise InvalidInput(f"a value cannot be stored as JSON: {exc}") from None


def _build_rows(items: Iterable[tuple[int, Annotations]], *, checked: bool = False) -> ContentRows:
    """The rows of these sets' content; checks references first (``check_references``) unless the
    caller has (``checked``: a reader that refuses unknown ids and duplicates, as the standoff
    reader does; the database's constraints still refuse what slips through)."""
    span_rows: list[tuple[Any, ...]] = []
    optional: dict[int, tuple[Any, ...]] = {}
    rel_rows: list[tuple[Any, ...]] = []
    arg_rows: list[tuple[Any, ...]] = []
    link_rows: list[tuple[Any, ...]] = []
    note_rows: list[tuple[Any, ...]] = []
    label_rows: list[tuple[Any, ...]] = []
    entity_rows: list[tuple[Any, ...]] = []
    append = span_rows.append
    dumps = orjson.dumps
    for set_id, ann in items:
        if not checked:
            check_references(ann, f"annotation set {set_id}")
        sid: dict[str, int] = {}
        # This loop runs once per span imported (10^6 in a large import): the common case — one
        # fragment, no attributes, groundings or extras — makes a six-column row and nothing else.
        for s in ann.spans:
            pos = len(span_rows)
            sid[s.id] = pos
            frags = s.fragments
            if len(frags) == 1:
                start, stop = frags[0]
                frag_json = None  # NULL: the one fragment [start, stop]
            else:
                start = min((a for a, _ in frags), default=-1)
                stop = max((b for _, b in frags), default=-1)
                frag_json = _dumps(frags)
            append((set_id, s.id, s.type, start, stop, s.text))
            attrs, extra, grounds = s.attributes, s.extra, s.groundings
            if frag_json is not None or attrs or extra or grounds:
                optional[pos] = (
                    frag_json,
                    dumps(attrs if type(attrs) is dict else dict(attrs)).decode() if attrs else None,
                    _dumps([grounding_to_json(g) for g in grounds]) if grounds else None,
                    dumps(extra if type(extra) is dict else dict(extra)).decode() if extra else None,
                )
        eid: dict[str, int] = {}
        for e in ann.entities:
            eid[e.id] = len(entity_rows)
            entity_rows.append((set_id, e.id, e.type, _j(list(e.members)), _j(e.attributes),
                                _j([grounding_to_json(g) for g in e.groundings]), _j(e.extra)))  # fmt: skip
        base = len(rel_rows)
        rid = {r.id: base + k for k, r in enumerate(ann.relations)}
        for r in ann.relations:
            pos = len(rel_rows)
            tags, attrs, extra = r.tags, r.attributes, r.extra
            rel_rows.append(  # (``_j`` inline: most relations have no tags, attributes or extra)
                (
                    set_id,
                    r.id,
                    r.type,
                    r.kind,
                    r.label,
                    _dumps(list(tags)) if tags else None,
                    _j(attrs) if attrs else None,
                    sid[r.trigger] if r.trigger is not None else None,
                    _j(extra) if extra else None,
                )
            )
            for k, a in enumerate(r.args):
                if a.ref in sid:
                    arg_rows.append((pos, k, a.role, sid[a.ref], None, None))
                elif a.ref in rid:
                    arg_rows.append((pos, k, a.role, None, rid[a.ref], None))
                else:
                    arg_rows.append((pos, k, a.role, None, None, eid[a.ref]))
        for lk in ann.links:
            link_rows.append((set_id, lk.id, lk.type, sid[lk.source], sid[lk.target], lk.group, _j(lk.extra)))
        for n in ann.notes:
            note_rows.append((set_id, n.id, n.type, n.target, n.text, _j(n.extra)))
        for lb in ann.labels:
            label_rows.append((set_id, lb.name, lb.value, _j(lb.extra)))
    if optional:  # only the optional columns some span uses (as ``_narrow``), one tuple per span
        used = [j for j in range(len(_NO_OPTIONAL)) if any(v[j] is not None for v in optional.values())]
        if len(used) < len(_NO_OPTIONAL):
            optional = {k: tuple([v[j] for j in used]) for k, v in optional.items()}
        get, none = optional.get, (None,) * len(used)
        span_rows = [r + get(k, none) for k, r in enumerate(span_rows)]
        spans = Batch(SPAN_COLS[:_SPAN_BASE] + tuple(SPAN_COLS[_SPAN_BASE + j] for j in used), span_rows)
    else:
        spans = Batch(SPAN_COLS[:_SPAN_BASE], span_rows)
    return ContentRows(
        spans=spans,
        relations=_narrow(REL_COLS, rel_rows, 4),
        args=_narrow(ARG_COLS, arg_rows, 3),
        entities=_narrow(ENTITY_COLS, entity_rows, 3),
        links=_narrow(LINK_COLS, link_rows, 5),
        notes=_narrow(NOTE_COLS, note_rows, 5),
        labels=_narrow(LABEL_COLS, label_rows, 3),
    )


_ORDER = (("span", "spans"), ("entity", "entities"), ("relation", "relations"), ("relation_arg", "args"), ("link", "links"),
          ("note", "notes"), ("document_label", "labels"))  # fmt: skip
"""Tables in the order their rows are inserted: every reference points at a table already written."""


def insert_rows(conn: Connection, rows: ContentRows) -> None:
    """Insert built rows table by table, giving them primary keys and turning positions into ids."""
    if db.is_sqlite(conn):
        _insert_in_order(conn, rows)
    else:
        _insert_allocated(conn, rows)


def _insert_in_order(conn: Connection, rows: ContentRows) -> None:
    """SQLite: the rows go to the driver exactly as built, with no ``id``.

    Why: inside our write transaction (``BEGIN IMMEDIATE`` holds the lock) SQLite gives a row with no
    ``id`` the table's largest id + 1, so a batch takes the ids ``first .. first+n-1`` in order, and
    a position ``p`` becomes the id ``p + first`` in the SQL itself. The import's main process, its
    bottleneck, then builds no tuple per row. The ids taken are checked after each table.
    """
    first: dict[str, int] = {}
    for table, name in _ORDER:
        batch: Batch = getattr(rows, name)
        if not batch.rows:
            continue
        first[table] = db.next_id(conn, table)
        offsets = {c: first[REFS[c]] for c in batch.columns if c in REFS}
        db.executemany(conn, table, batch.columns, batch.rows, offsets=offsets)
        taken = db.next_id(conn, table) - first[table]
        if taken != len(batch.rows):
            raise DatabaseError(
                f"inserting {len(batch.rows)} rows into {table} took {taken} ids; the write was rolled back"
            )


def _insert_allocated(conn: Connection, rows: ContentRows) -> None:
    """PostgreSQL: ids from the tables' sequences (not contiguous under concurrent writers), so each
    row gets its id and its references' ids in Python."""
    ids: dict[str, list[int]] = {}
    for table, name in _ORDER:
        batch: Batch = getattr(rows, name)
        ids[table] = db.allocate_ids(conn, table, len(batch.rows))
        if not batch.rows:
            continue
        refs = [(i, ids[REFS[c]]) for i, c in enumerate(batch.columns) if c in REFS]
        data: list[tuple[Any, ...]] = []
        for pk, r in zip(ids[table], batch.rows, strict=True):
            if refs:
                row = list(r)
                for i, to in refs:
                    if row[i] is not None:
                        row[i] = to[row[i]]
                r = tuple(row)
            data.append((pk, *r))
        db.executemany(conn, table, ("id", *batch.columns), data)


def delete_annotations(conn: Connection, set_ids: Iterable[int]) -> None:
    """Remove every item of these sets (children first, so foreign keys hold at each step)."""
    ids = list(set_ids)
    if not ids:
        return
    for chunk in _chunks(ids, 500):
        rel_sub = select(tables.relation.c.id).where(tables.relation.c.set_id.in_(chunk))
        rls.delete_rows(conn, tables.relation_arg, tables.relation_arg.c.relation_id.in_(rel_sub))
        rls.delete_rows(conn, tables.link, tables.link.c.set_id.in_(chunk))
        rls.delete_rows(conn, tables.note, tables.note.c.set_id.in_(chunk))
        rls.delete_rows(conn, tables.document_label, tables.document_label.c.set_id.in_(chunk))
        rls.delete_rows(conn, tables.relation, tables.relation.c.set_id.in_(chunk))
        rls.delete_rows(conn, tables.entity, tables.entity.c.set_id.in_(chunk))
        rls.delete_rows(conn, tables.span, tables.span.c.set_id.in_(chunk))


def _chunks(seq: Sequence[int], n: int) -> Iterable[Sequence[int]]:
    for i in range(0, len(seq), n):
        yield seq[i : i + n]


def _loads(v: Any) -> Any:
    """JSON columns come back decoded from SQLAlchemy; raw text from a plain cursor."""
    if v is None:
        return None
    if isinstance(v, (str, bytes)):
        return orjson.loads(v)
    return v


def load_many(conn: Connection, set_ids: Sequence[int]) -> dict[int, Annotations]:
    """The content of many sets, in insertion order, in a few queries per 500 sets."""
    out: dict[int, Annotations] = {}
    for chunk in _chunks(list(set_ids), 500):
        out.update(_load_chunk(conn, chunk))
    return out


def _load_chunk(conn: Connection, set_ids: Sequence[int]) -> dict[int, Annotations]:
    spans: dict[int, list[Span]] = defaultdict(list)
    span_local: dict[int, str] = {}
    # Why driver-level SQL here: this loop runs once per span read (10^5-10^6 for an agreement report
    # or an export); SQLAlchemy's per-column result processing cost more than the query itself.
    mark = "?" if db.is_sqlite(conn) else "%s"
    rows = conn.exec_driver_sql(
        "SELECT id, set_id, local_id, type, start, stop, fragments, text, attributes, groundings, extra FROM span "
        f"WHERE set_id IN ({', '.join(mark for _ in set_ids)}) ORDER BY id",
        tuple(set_ids),
    ).fetchall()
    # SQLite hands JSON columns back as text, psycopg already decoded.
    dec = orjson.loads if db.is_sqlite(conn) else _loads
    for pk, set_id, local_id, typ, start, stop, frags, txt, attrs, grounds, extra in rows:
        span_local[pk] = local_id
        bucket = spans.get(set_id)
        if bucket is None:
            bucket = spans[set_id] = []
        bucket.append(
            make_span(
                local_id,
                typ,
                ((start, stop),) if frags is None else tuple((a, b) for a, b in dec(frags)),
                txt,
                dec(attrs) if attrs else {},
                tuple(grounding_from_json(g) for g in dec(grounds)) if grounds else (),
                dec(extra) if extra else {},
            )
        )

    rt = tables.relation
    rel_rows = conn.execute(
        select(rt.c.id, rt.c.set_id, rt.c.local_id, rt.c.type, rt.c.kind, rt.c.label, rt.c.tags,
               rt.c.attributes, rt.c.trigger_id, rt.c.extra)
        .where(rt.c.set_id.in_(set_ids))
        .order_by(rt.c.id)
    ).all()  # fmt: skip
    rel_local = {row[0]: row[2] for row in rel_rows}
    et = tables.entity
    entities: dict[int, list[Entity]] = defaultdict(list)
    entity_local: dict[int, str] = {}
    for pk, set_id, local_id, typ, members, attrs, grounds, extra in conn.execute(
        select(et.c.id, et.c.set_id, et.c.local_id, et.c.type, et.c.members, et.c.attributes, et.c.groundings,
               et.c.extra).where(et.c.set_id.in_(set_ids)).order_by(et.c.id)
    ):  # fmt: skip
        entity_local[pk] = local_id
        entities[set_id].append(
            Entity(local_id, typ, tuple(_loads(members) or ()), _loads(attrs) or {},
                   tuple(grounding_from_json(g) for g in _loads(grounds) or ()), _loads(extra) or {})
        )  # fmt: skip
    args: dict[int, list[Argument]] = defaultdict(list)
    if rel_rows:
        at = tables.relation_arg
        q = (
            select(at.c.relation_id, at.c.role, at.c.span_id, at.c.arg_relation_id, at.c.entity_id)
            .where(at.c.relation_id.in_(select(rt.c.id).where(rt.c.set_id.in_(set_ids))))
            .order_by(at.c.relation_id, at.c.position)
        )
        for rel_id, role, span_id, arg_rel, ent in conn.execute(q):
            if span_id is not None:
                ref = span_local[span_id]
            else:
                ref = rel_local[arg_rel] if arg_rel is not None else entity_local[ent]
            args[rel_id].append(Argument(role, ref))
    rels: dict[int, list[Relation]] = defaultdict(list)
    for pk, set_id, local_id, typ, kind, label, tags, attrs, trig, extra in rel_rows:
        rels[set_id].append(
            Relation(
                id=local_id,
                type=typ,
                args=tuple(args.get(pk, ())),
                label=label,
                tags=tuple(_loads(tags) or ()),
                attributes=_loads(attrs) or {},
                trigger=span_local[trig] if trig is not None else None,
                kind=kind,
                extra=_loads(extra) or {},
            )
        )

    lt = tables.link
    links: dict[int, list[Link]] = defaultdict(list)
    for set_id, local_id, typ, src, tgt, group, extra in conn.execute(
        select(lt.c.set_id, lt.c.local_id, lt.c.type, lt.c.source_id, lt.c.target_id, lt.c.group_key,
               lt.c.extra).where(lt.c.set_id.in_(set_ids)).order_by(lt.c.id)
    ):  # fmt: skip
        links[set_id].append(
            Link(local_id, typ, span_local[src], span_local[tgt], group, _loads(extra) or {})
        )

    nt = tables.note
    notes: dict[int, list[Note]] = defaultdict(list)
    for set_id, local_id, typ, target, txt, extra in conn.execute(
        select(nt.c.set_id, nt.c.local_id, nt.c.type, nt.c.target, nt.c.text, nt.c.extra)
        .where(nt.c.set_id.in_(set_ids))
        .order_by(nt.c.id)
    ):
        notes[set_id].append(Note(local_id, typ, target, txt, _loads(extra) or {}))

    dt = tables.document_label
    labels: dict[int, list[DocLabel]] = defaultdict(list)
    for set_id, name, value, extra in conn.execute(
        select(dt.c.set_id, dt.c.name, dt.c.value, dt.c.extra)
        .where(dt.c.set_id.in_(set_ids))
        .order_by(dt.c.id)
    ):
        labels[set_id].append(DocLabel(name, value, _loads(extra) or {}))

    return {
        sid: Annotations(
            spans=tuple(spans.get(sid, ())),
            relations=tuple(rels.get(sid, ())),
            links=tuple(links.get(sid, ())),
            notes=tuple(notes.get(sid, ())),
            labels=tuple(labels.get(sid, ())),
            entities=tuple(entities.get(sid, ())),
        )
        for sid in set_ids
    }
