"""A query run for one actor: hits (places in texts, or spans) and counts, through the blindness gate.

How a query runs: SQL does what indexes serve (the full-text index narrows documents; types,
annotators, set kinds and statuses, relations and agreement between two annotators are joins and
``EXISTS``), and every span row comes from a set :func:`corpusdb.services.access.visibility_clause` lets the
actor read, so a search shows what a read would and nothing more (on PostgreSQL a team login's
row-level security applies as well). Python then decides what SQL only narrowed: words, phrases and
regexes on the text (exact code-point offsets), attribute values, grounding ids and their
knowledge-base labels. When nothing is left for Python, SQL limits and counts by itself.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from sqlalchemy import (
    ColumnElement,
    Connection,
    Select,
    String,
    Text,
    and_,
    cast,
    exists,
    false,
    func,
    literal,
    not_,
    or_,
    select,
)

from corpusdb.basics.errors import NotFound, PermissionDenied
from corpusdb.basics.records import grounding_key, split_key
from corpusdb.search import index
from corpusdb.search.patterns import Pattern
from corpusdb.search.query import (
    AgreementTerm,
    AttrTerm,
    ListTerm,
    PatternTerm,
    Query,
    RelTerm,
    TextTerm,
    glob_regex,
)
from corpusdb.services import access
from corpusdb.services.base import Actor
from corpusdb.store import db, tables
from guidelines.schema import Schema

D = tables.document
S = tables.annotation_set
A = tables.annotator
Sp = tables.span
R = tables.relation
RA = tables.relation_arg
E = tables.entity
CHUNK = 500


@dataclass(frozen=True, slots=True)
class Hit:
    """One hit: a place in a document's text, or a span (``item`` set) with its set and content."""

    document: str
    start: int
    stop: int
    text: str
    """What was found: the text matched, or the span's text."""
    left: str = ""
    right: str = ""
    """Up to the asked number of characters of the document before and after (KWIC)."""
    fragments: tuple[tuple[int, int], ...] = ()
    set_id: int | None = None
    annotator: str | None = None
    """The set's annotator (``gold`` for the gold set)."""
    set_kind: str | None = None
    status: str | None = None
    item: str | None = None
    """The span's local id (``T3``); None for a place in the text."""
    type: str | None = None
    attributes: Mapping[str, Any] = field(default_factory=dict)
    groundings: tuple[tuple[str, str | None], ...] = ()
    """``(grounding key, knowledge-base label or None)``."""

    @property
    def kind(self) -> str:
        return "text" if self.item is None else "span"

    def to_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {
            "document": self.document, "kind": self.kind, "start": self.start, "stop": self.stop,
            "fragments": [list(f) for f in self.fragments], "text": self.text, "left": self.left,
            "right": self.right,
        }  # fmt: skip
        if self.item is not None:
            d.update(
                set=self.set_id, annotator=self.annotator, set_kind=self.set_kind, status=self.status,
                item=self.item, type=self.type, attributes=dict(self.attributes),
                groundings=[{"id": k, "label": lab} for k, lab in self.groundings],
            )  # fmt: skip
        return d


@dataclass(frozen=True, slots=True)
class SearchResult:
    query: str
    finds: str
    """``text`` (places in the texts) or ``spans``."""
    hits: tuple[Hit, ...]
    more: bool
    """True when there are more hits than the limit let through."""
    index: str
    """The full-text index the database used: ``fts5``, ``pg_trgm`` or ``none`` (a scan)."""
    scope: str
    """What this actor's search covers, in words (the blindness rules as they applied)."""

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "finds": self.finds, "hits": [h.to_dict() for h in self.hits],
                "more": self.more, "index": self.index, "scope": self.scope}  # fmt: skip


class CountRow(NamedTuple):
    """A tuple: a count by type over every document is 10^4 rows, made 3x faster than a frozen dataclass."""

    document: str
    type: str
    """The span type; ``text`` for places in the texts."""
    hits: int


@dataclass(frozen=True, slots=True)
class SearchCounts:
    query: str
    finds: str
    rows: tuple[CountRow, ...]
    index: str
    scope: str

    @property
    def total(self) -> int:
        return sum(r.hits for r in self.rows)

    def by_type(self) -> dict[str, int]:
        out: dict[str, int] = defaultdict(int)
        for r in self.rows:
            out[r.type] += r.hits
        return dict(sorted(out.items()))

    def to_dict(self) -> dict[str, Any]:
        return {"query": self.query, "finds": self.finds, "total": self.total, "by_type": self.by_type(),
                "documents": len({r.document for r in self.rows}), "index": self.index, "scope": self.scope,
                "rows": [{"document": r.document, "type": r.type, "hits": r.hits} for r in self.rows]}  # fmt: skip


def scope_of(actor: Actor) -> str:
    if actor.role in ("annotator", "system"):
        return f"every document's text; {actor.label}'s own sets only (annotation is double-blind)"
    return (
        "every document's text; gold, predictions, your own sets, and every set of a document once all "
        "its annotators have submitted"
    )


def _like_glob(value: str) -> str:
    esc = value.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return esc.replace("*", "%")


def _names_clause(column: ColumnElement[str], values: Sequence[str]) -> ColumnElement[bool]:
    """SQL for "one of these names" (``*`` globs through LIKE, which Python then checks by case)."""
    plain = [v for v in values if "*" not in v]
    conds: list[ColumnElement[bool]] = [column.in_(plain)] if plain else []
    conds += [column.like(_like_glob(v), escape="\\") for v in values if "*" in v]
    return or_(*conds) if conds else false()


def _glob_match(values: Sequence[str]) -> Callable[[str | None], bool]:
    rxs = [glob_regex(v) for v in values]
    return lambda s: s is not None and any(r.match(s) for r in rxs)


class Run:
    """One query for one actor on one connection (a read transaction the caller owns)."""

    def __init__(
        self,
        conn: Connection,
        project_id: int,
        actor: Actor,
        schema: Schema,
        query: Query,
        *,
        document: str | Sequence[str] | None = None,
        set_id: int | None = None,
    ) -> None:
        self.conn, self.project_id, self.actor, self.schema, self.query = (
            conn,
            project_id,
            actor,
            schema,
            query,
        )
        self.document: tuple[str, ...] | None = (
            (document,) if isinstance(document, str) else None if document is None else tuple(document)
        )
        self.set_id = set_id
        self.index = index.kind(conn)
        self.words = index.has_words(conn)
        """PostgreSQL's words index is there (the text's words: ``corpusdb.store.text_index``)."""
        self.definer = self.index == "pg_trgm" and index.like_definer(conn)
        """A team login: ``ILIKE`` literals through ``corpusdb_like_candidates`` (``index.text_filter``)."""
        self._check_names()
        self.checks: list[Callable[[Any], bool]] = []
        """Python checks on span rows (what SQL only narrowed)."""

    # -- names and permissions ---------------------------------------------------------------
    def _check_names(self) -> None:
        """Refuse what this actor may not search (another annotator's sets) and names that do not
        exist, each with a clear message; nothing is searched then."""
        named = self.query.annotators()
        if not named:
            return
        if self.actor.role in ("annotator", "system"):
            others = sorted(n for n in named if n != self.actor.name)
            if others:
                raise PermissionDenied(
                    f"{self.actor.label} can search only their own sets, not {', '.join(others)}'s "
                    "(annotation is double-blind until adjudication)"
                )
            return
        known = {r[0] for r in self.conn.execute(select(A.c.name).where(A.c.project_id == self.project_id))}
        unknown = sorted(n for n in named if n != "gold" and n not in known)
        if unknown:
            raise NotFound(
                f"no annotator named {unknown[0]!r} in this project (annotator:gold is the gold set)"
            )

    # -- text hits ----------------------------------------------------------------------------
    def _doc_clauses(self) -> list[ColumnElement[bool]]:
        out: list[ColumnElement[bool]] = [D.c.project_id == self.project_id]
        if self.document is not None:
            out.append(D.c.external_id.in_(self.document))
        for t in self.query.of(ListTerm):
            if t.field == "doc":  # type: ignore[union-attr]
                c = _names_clause(D.c.external_id, t.values)  # type: ignore[union-attr]
                if not t.negated:  # type: ignore[union-attr]
                    out.append(c)
        return out

    def _doc_checks(self) -> Callable[[str], bool]:
        terms = [t for t in self.query.of(ListTerm) if t.field == "doc"]  # type: ignore[union-attr]
        tests = [(_glob_match(t.values), t.negated) for t in terms]  # type: ignore[union-attr]
        return lambda doc: all(m(doc) != neg for m, neg in tests)

    def _text_patterns(self) -> tuple[list[Pattern], list[Pattern]]:
        pos = [t.pattern for t in self.query.of(TextTerm) if not t.negated]  # type: ignore[union-attr]
        neg = [t.pattern for t in self.query.of(TextTerm) if t.negated]  # type: ignore[union-attr]
        return pos, neg

    def _text_docs(self, *, paged: bool = True) -> Iterator[tuple[int, str, str]]:
        """The candidate documents in order, their texts read a growing page at a time (the first hits
        of a frequent word cost the first pages only; ``paged=False``: all at once, for counts). Where
        the index answers (FTS5 tokens, a trigram literal), its candidates are listed first; otherwise
        the documents are walked in order with the scan's test (a regex's literal through LIKE)."""
        pos, _ = self._text_patterns()
        where = [*self._doc_clauses(), self._text_test(pos)]
        if not paged:  # (unordered: the planner then asks the index, not the id-ordered walk)
            yield from sorted(self._all(select(D.c.id, D.c.external_id, D.c.text).where(*where), named=False),
                              key=lambda r: r[1])  # fmt: skip
            return
        pages: Iterator[list[int]]
        if self.WALK and index.narrows(self.index, pos, words=self.words) and self._trigrams_only(pos):
            yield from self._walk_then_index(where, pos)
            return
        if index.narrows(self.index, pos, words=self.words):
            ids = _in_order(self._all(select(D.c.id, D.c.external_id).where(*where), named=False))
            pages = (ids[a:b] for a, b in _growing(len(ids)))
        else:
            test = self._text_test(pos)
            pages = self._document_pages(select(D.c.id, D.c.external_id).where(*self._doc_clauses()), test)
        for page in pages:
            q = select(D.c.id, D.c.external_id, D.c.text).where(D.c.id.in_(page)).order_by(D.c.external_id)
            yield from self._stream(q, named=False)

    def _trigrams_only(self, pos: Sequence[Pattern]) -> bool:
        """Whether only the trigram index narrows these patterns (no word the words index answers)."""
        return self.index == "pg_trgm" and not (self.words and any(p.tsquery() is not None for p in pos))

    def _walk_then_index(
        self, where: Sequence[ColumnElement[bool]], pos: Sequence[Pattern]
    ) -> Iterator[tuple[int, str, str]]:
        """``(id, external id, text)`` of the candidate documents in order, for a literal only the
        trigram index narrows: the documents walked in order first, a growing page at a time, their
        texts tested here, while at least one in ten matches; then the index for the rest. Why: the
        trigram index lists a frequent literal's every text and reads each again to check it
        (``kinase``: 4,655 of 25,000 texts, about 70 ms), where the first 100 hits lie in the first few
        hundred documents; a rare literal costs one page of ``WALK`` texts before the index answers.
        Why tested in Python: the page's texts are read anyway, and an ``ILIKE`` beside the page's ids
        is planned through the trigram index, every candidate text read again for each page."""
        dq = select(D.c.id, D.c.external_id, D.c.text).where(*self._doc_clauses()).order_by(D.c.external_id)
        size, last = self.WALK, None
        while True:
            docs = self._all(
                (dq if last is None else dq.where(D.c.external_id > last)).limit(size), named=False
            )
            if not docs:
                return
            last = docs[-1][1]
            kept = [d for d in docs if all(p.found_in(d[2]) for p in pos)]
            yield from kept
            if len(docs) < size:
                return  # the walk reached the last document
            if len(kept) * 10 < len(docs):
                break
            size = min(size * 4, 4096)
        rest = _in_order(self._all(select(D.c.id, D.c.external_id).where(*where, D.c.external_id > last),
                                   named=False))  # fmt: skip
        for a, b in _growing(len(rest)):
            q = (
                select(D.c.id, D.c.external_id, D.c.text)
                .where(D.c.id.in_(rest[a:b]))
                .order_by(D.c.external_id)
            )
            yield from self._stream(q, named=False)

    def _text_test(self, pos: Sequence[Pattern]) -> ColumnElement[bool]:
        """What a document's text must satisfy for the places of ``pos`` (a superset)."""
        return index.text_filter(
            self.conn,
            self.index,
            D.c.text,
            pos,
            D.c.id,
            words=self.words,
            project_id=self.project_id,
            definer=self.definer,
        )

    def _stream(self, q: Select, *, named: bool = True) -> Iterator[Any]:  # type: ignore[type-arg]
        """The rows of ``q`` as named tuples, read through the driver's cursor ``CHUNK`` rows at a
        time. Why not SQLAlchemy's result: building its ``Row`` costs more than SQLite's own work for
        the 10^4-10^5 rows a count or a search over a whole corpus reads (JSON columns come as text,
        which :func:`_json` decodes when needed)."""
        compiled = q.compile(dialect=self.conn.dialect, compile_kwargs={"render_postcompile": True})
        params: Any = compiled.params
        if compiled.positiontup is not None:
            params = tuple(params[k] for k in compiled.positiontup)
        make = _row_type(tuple(c.key for c in q.selected_columns))
        # A client-side cursor on PostgreSQL too: a server-side one is planned for its first rows
        # (an index walk in document order, checking ILIKE on every text) and every query here is
        # bounded (pages of documents, at most SELECTIVE spans), so its rows fit in memory.
        cur = self.conn.connection.driver_connection.cursor()  # type: ignore[union-attr]
        try:
            cur.execute(str(compiled), params)
            while rows := cur.fetchmany(CHUNK):
                yield from map(make, rows) if named else rows
        finally:
            cur.close()

    def _all(self, q: Select, *, named: bool = True) -> list[Any]:  # type: ignore[type-arg]
        return list(self._stream(q, named=named))

    def text_places(self, *, paged: bool = True) -> Iterator[tuple[str, str, int, int]]:
        """``(document, its text, start, stop)`` of each place where every positive pattern occurs in
        a document and no negated one does, in document and offset order."""
        pos, neg = self._text_patterns()
        doc_ok = self._doc_checks()
        for _, doc, body in self._text_docs(paged=paged):
            if not doc_ok(doc) or any(p.found_in(body) for p in neg):
                continue
            places: set[tuple[int, int]] = set()
            for p in pos:
                found = set(p.finditer(body))
                if not found:
                    places = set()
                    break
                places |= found
            for start, stop in sorted(places):
                yield doc, body, start, stop

    def text_hits(self, context: int | None) -> Iterator[Hit]:
        for doc, body, start, stop in self.text_places():
            yield _text_hit(doc, body, start, stop, context)

    # -- span hits ----------------------------------------------------------------------------
    def _sets_select(self, doc_ids: Sequence[int] | None = None, *, text: bool = True) -> Select:  # type: ignore[type-arg]
        """``(set id, document external id)`` of the sets the actor may read that meet the query's
        set-level conditions (annotator, kind, status, document, its text), on ``doc_ids`` or all."""
        q = (
            select(S.c.id, D.c.external_id)
            .select_from(S.join(D, D.c.id == S.c.document_id).outerjoin(A, A.c.id == S.c.annotator_id))
            .where(*self._doc_clauses(), access.visibility_clause(self.actor), *self.sql_set)
        )
        if doc_ids is not None:
            q = q.where(S.c.document_id.in_(list(doc_ids)))
        if self.set_id is not None:
            q = q.where(S.c.id == self.set_id)
        if self.doc_patterns and text:
            q = q.where(self._doc_text_filter())
        return q

    def _doc_text_filter(self) -> ColumnElement[bool]:
        return index.text_filter(self.conn, self.index, D.c.text, self.doc_patterns, D.c.id,
                                 like=self.index == "pg_trgm", project_id=self.project_id,
                                 definer=self.definer)  # fmt: skip

    def _span_select(self, sets: Any, ids: Sequence[int] | None = None) -> Select:  # type: ignore[type-arg]
        """The span rows of ``sets`` (ids, or a subquery of them) that meet the span-level conditions,
        with their set and document for the output; ``ids``: only these spans, which met the
        span-level conditions already (so SQLite reads them by id, not the type's index once per set)."""
        return (
            select(
                Sp.c.id, Sp.c.set_id, Sp.c.local_id, Sp.c.type, Sp.c.start, Sp.c.stop, Sp.c.fragments, Sp.c.text,
                Sp.c.attributes, Sp.c.groundings, S.c.kind, S.c.status, A.c.name,
                D.c.id.label("doc_id"), D.c.external_id,
            )
            .select_from(Sp.join(S, S.c.id == Sp.c.set_id).join(D, D.c.id == S.c.document_id)
                         .outerjoin(A, A.c.id == S.c.annotator_id))
            .where(Sp.c.set_id.in_(sets), *(self.sql_span if ids is None else [Sp.c.id.in_(ids)]))
        )  # fmt: skip

    def _build(self) -> None:
        """SQL conditions on sets (``sql_set``: they pick the sets whose spans are read) and on spans
        (``sql_span``), Python checks on rows (``checks``) and per-document work done before a batch
        of rows is checked (``prepare``), for every term of the query."""
        self.sql_set: list[ColumnElement[bool]] = []
        self.sql_span: list[ColumnElement[bool]] = []
        self.prepare: list[Callable[[set[int]], None]] = []
        q = self.query
        text_pos = [t.pattern for t in q.of(TextTerm) if not t.negated]  # type: ignore[union-attr]
        text_pos += [t.pattern for t in q.of(PatternTerm) if t.field == "text" and not t.negated]  # type: ignore[union-attr]
        self.doc_patterns = [_unphrased(p) for p in text_pos]
        """What the documents holding a matching span must hold (the full-text index answers)."""
        if text_pos:
            self.sql_span.append(index.text_filter(self.conn, "none", Sp.c.text, text_pos))
        for t in q.terms:
            if isinstance(t, TextTerm) or (isinstance(t, PatternTerm) and t.field == "text"):
                self._check_text(t.pattern, t.negated)
            elif isinstance(t, ListTerm):
                conds = self._list_clause(t)
                (self.sql_span if t.field in ("type", "grounding") else self.sql_set).extend(conds)
            elif isinstance(t, PatternTerm):  # label:
                self.sql_span += self._label_clause(t)
            elif isinstance(t, AttrTerm):
                if not t.negated:
                    self.sql_span.append(Sp.c.attributes.is_not(None))
                self._check_attr(t)
            elif isinstance(t, RelTerm):
                c = self._rel_clause(t)
                self.sql_span.append(not_(c) if t.negated else c)
            elif isinstance(t, AgreementTerm):
                self._agreement(t)

    def _check_text(self, p: Pattern, negated: bool) -> None:
        self.checks.append(lambda row: p.found_in(row.text) != negated)

    def _list_clause(self, t: ListTerm) -> list[ColumnElement[bool]]:
        if t.field == "doc":
            if t.negated or any("*" in v for v in t.values):
                check = self._doc_checks()
                self.checks.append(lambda row: check(row.external_id))
            return []
        if t.field == "grounding":
            return self._grounding_clause(t)
        if t.field == "annotator":
            names = [v for v in t.values if v != "gold"]
            cond = or_(_names_clause(A.c.name, names) if names else false(),
                       S.c.kind == "gold" if "gold" in t.values else false())  # fmt: skip
            globbed = any("*" in v for v in names)
            attr = "name"
        else:
            column = {"type": Sp.c.type, "kind": S.c.kind, "status": S.c.status}[t.field]
            cond = _names_clause(column, t.values)
            globbed = any("*" in v for v in t.values)
            attr = t.field
        if not globbed:
            return [not_(cond) if t.negated else cond]
        m = _glob_match(t.values)
        gold = t.field == "annotator" and "gold" in t.values
        self.checks.append(lambda row: (m(getattr(row, attr)) or (gold and row.kind == "gold")) != t.negated)
        return [] if t.negated else [cond]  # LIKE ignores case: Python checks the globs exactly

    def _grounding_clause(self, t: ListTerm) -> list[ColumnElement[bool]]:
        if t.values == ("*",):
            return [Sp.c.groundings.is_(None) if t.negated else Sp.c.groundings.is_not(None)]
        m = _glob_match(t.values)

        def matches(row: Any) -> bool:
            return any(m(k) or m(split_key(k)[1]) for k in _keys(row.groundings))

        self.checks.append(lambda row: matches(row) != t.negated)
        if t.negated:
            return []
        out: list[ColumnElement[bool]] = [Sp.c.groundings.is_not(None)]
        accs = [split_key(v)[1] if "*" not in v else None for v in t.values]
        if all(accs):  # the JSON holds the accession (a BioNLP-ST line keeps its database apart)
            out.append(
                or_(*(cast(Sp.c.groundings, Text).like(f"%{_like_glob(a)}%", escape="\\") for a in accs if a))
            )
        return out

    def _label_clause(self, t: PatternTerm) -> list[ColumnElement[bool]]:
        """``label:``: groundings whose concept's label matches; the concepts are found first, in the
        knowledge bases the schema maps, through the label column (LIKE narrows, Python decides)."""
        codes = self._codes_labelled(t.pattern)  # kb name -> codes

        def matches(row: Any) -> bool:
            for k in _keys(row.groundings):
                ref = self.schema.knowledge_base(split_key(k)[0])
                if ref is not None and (
                    k in codes.get(ref.kb, ()) or split_key(k)[1] in codes.get(ref.kb, ())
                ):
                    return True
            return False

        self.checks.append(lambda row: matches(row) != t.negated)
        return [] if t.negated else [Sp.c.groundings.is_not(None)]

    def _codes_labelled(self, p: Pattern) -> dict[str, set[str]]:
        K, C = tables.kb, tables.kb_concept
        out: dict[str, set[str]] = {}
        for kb_name in sorted({r.kb for r in self.schema.knowledge_bases}):
            row = self.conn.execute(select(K.c.id).where(K.c.name == kb_name)).first()
            if row is None:
                continue
            q = select(C.c.code, C.c.label).where(
                C.c.kb_id == row[0], index.text_filter(self.conn, "none", C.c.label, [p])
            )
            out[kb_name] = {code for code, label in self.conn.execute(q) if p.found_in(label)}
        return out

    def _check_attr(self, t: AttrTerm) -> None:
        def matches(row: Any) -> bool:
            attrs = _json(row.attributes) or {}
            if t.name not in attrs:
                return False
            v = attrs[t.name]
            if t.value is None:
                return v not in (False, None, "false", "False", "")
            if isinstance(v, bool):
                return str(v).lower() == t.value.lower()
            return str(v) == t.value

        self.checks.append(lambda row: matches(row) != t.negated)

    def _rel_clause(self, t: RelTerm) -> ColumnElement[bool]:
        """The span is an argument (directly, or as a member of an entity argument) or the trigger of
        a relation of that type, role and label (in its own set: items never cross sets)."""
        rel_conds: list[ColumnElement[bool]] = []
        if t.type != "*":
            rel_conds.append(_names_clause(R.c.type, [t.type]))
        if t.label is not None:
            rel_conds.append(R.c.label == t.label)
        role = [RA.c.role == t.role] if t.role is not None else []
        direct = exists(
            select(1).select_from(RA.join(R, R.c.id == RA.c.relation_id))
            .where(RA.c.span_id == Sp.c.id, *rel_conds, *role)
        )  # fmt: skip
        member = literal('%"', String) + Sp.c.local_id + literal('"%', String)
        via_entity = exists(
            select(1).select_from(RA.join(R, R.c.id == RA.c.relation_id).join(E, E.c.id == RA.c.entity_id))
            .where(E.c.set_id == Sp.c.set_id, cast(E.c.members, Text).like(member), *rel_conds, *role)
        )  # fmt: skip
        conds = [direct, via_entity]
        if t.role is None or t.role.lower() == "trigger":
            conds.append(exists(select(1).select_from(R).where(R.c.trigger_id == Sp.c.id, *rel_conds)))
        return or_(*conds)

    @staticmethod
    def _owned_by(sets: Any, annotators: Any, names: Sequence[str]) -> ColumnElement[bool]:
        people = [n for n in names if n != "gold"]
        return or_(
            and_(annotators.c.name.in_(people), sets.c.kind != "gold") if people else false(),
            sets.c.kind == "gold" if "gold" in names else false(),
        )

    def _agreement(self, t: AgreementTerm) -> None:
        """Spans of either annotator in the asked state against the other's set on the same document,
        decided in Python per batch of documents (see :func:`agreement_states`) from both sets' spans
        (all of them, whatever else the query asks of the hits). Only documents where the actor may
        read both sets are compared; names without a mention are left out."""
        states: dict[int, frozenset[str]] = {}
        pair = (t.first, t.second)

        def prepare(doc_ids: set[int]) -> None:
            sets = self.conn.execute(
                select(S.c.id, S.c.document_id, S.c.kind, A.c.name)
                .select_from(S.outerjoin(A, A.c.id == S.c.annotator_id))
                .where(S.c.document_id.in_(sorted(doc_ids)), self._owned_by(S, A, pair),
                       access.visibility_clause(self.actor))
            ).all()  # fmt: skip
            owner = {sid: ("gold" if kind == "gold" else name) for sid, _, kind, name in sets}
            by_doc: dict[int, dict[str, list[int]]] = defaultdict(lambda: defaultdict(list))
            for sid, doc, _, _ in sets:
                by_doc[doc][owner[sid]].append(sid)
            wanted = [
                sid for doc, who in by_doc.items() if len(who) == 2 for ids in who.values() for sid in ids
            ]
            spans: dict[int, list[tuple[int, int, int, Any, str]]] = defaultdict(list)
            for i in range(0, len(wanted), CHUNK):
                q = select(Sp.c.id, Sp.c.set_id, Sp.c.start, Sp.c.stop, Sp.c.fragments, Sp.c.type).where(
                    Sp.c.set_id.in_(wanted[i : i + CHUNK]), Sp.c.start >= 0
                )
                for sid_, set_id, a, b, frags, typ in self.conn.execute(q):
                    spans[set_id].append((sid_, a, b, _frag_key(frags), typ))
            for who in by_doc.values():
                if len(who) != 2:
                    continue
                mine = [sp for sid in who[t.first] for sp in spans[sid]]
                theirs = [sp for sid in who[t.second] for sp in spans[sid]]
                states.update(agreement_states(mine, theirs))
                states.update(agreement_states(theirs, mine))

        self.prepare.append(prepare)
        self.checks.append(lambda row: (t.state in states.get(row.id, ())) != t.negated)
        if not t.negated:
            self.sql_set.append(self._owned_by(S, A, pair))
            self.sql_span.append(Sp.c.start >= 0)

    def _ordered(self, q: Select) -> Select:  # type: ignore[type-arg]
        return q.order_by(D.c.external_id, Sp.c.start, Sp.c.stop, func.coalesce(A.c.name, ""), Sp.c.id)

    def _checked(self, rows: Iterable[Any], limit: int | None) -> Iterator[Any]:
        """The rows that pass the Python checks (after each batch's preparation), at most ``limit``."""
        n = 0
        batch: list[Any] = []
        it = iter(rows)
        while True:
            # every row passes when nothing is checked: take no more than the limit (no next page read)
            want = CHUNK if self.checks or limit is None else min(CHUNK, limit - n)
            batch = [r for _, r in zip(range(want), it, strict=False)]
            if not batch:
                return
            docs = {r.doc_id for r in batch}
            for prep in self.prepare:
                prep(docs)
            for r in batch:
                if all(c(r) for c in self.checks):
                    yield r
                    n += 1
                    if limit is not None and n >= limit:
                        return

    WALK = 32
    """The first page of documents walked in order for a literal only the trigram index narrows
    (``_walk_then_index``; 0: the index at once)."""

    SELECTIVE = 20_000
    """At most this many spans of the asked types: read them all through the type index and sort;
    more: walk the documents in order, a growing batch at a time, until the limit is reached."""

    def _selective(self) -> bool:
        if self.document is not None or self.set_id is not None:
            return False
        types = [t for t in self.query.of(ListTerm) if t.field == "type" and not t.negated]  # type: ignore[union-attr]
        if not types:
            return False
        # counted up to SELECTIVE + 1 only: a frequent type's 10^5 spans are not all counted to learn
        # that there are more (a team login's row-level security checks every one it counts)
        few = (
            select(Sp.c.id)
            .where(*(_names_clause(Sp.c.type, t.values) for t in types))  # type: ignore[union-attr]
            .limit(self.SELECTIVE + 1)
        )
        q = select(func.count()).select_from(few.subquery())
        return int(self.conn.execute(q).scalar_one()) <= self.SELECTIVE

    def span_rows(self, limit: int | None) -> Iterator[Any]:
        """Span rows that match, in document and offset order (at most ``limit``)."""
        selective = self._selective()
        self._build()
        few = None if selective else self._few_with_text()
        if not selective and few is None:
            yield from self._checked(self._batched(), limit)
            return
        # few spans: their own text test (SQL, then Python) is all the narrowing needed
        sets = self._sets_select(text=False).with_only_columns(S.c.id)
        ids = None
        if few is not None:  # the readable sets among these spans' only (a short list for SQLite)
            ids = [i for i, _ in few]
            sets = sets.where(S.c.id.in_(sorted({s for _, s in few})))
        q = self._ordered(self._span_select(sets, ids))
        if not self.checks and limit is not None:
            yield from self._stream(q.limit(limit))
            return
        yield from self._checked(self._stream(q), limit)

    def _few_with_text(self) -> list[tuple[int, int]] | None:
        """A word inside spans of a frequent type (``type:Protein kinase``): ``(id, set id)`` of the spans
        whose own text passes the SQL text test, read through the type's index, when there are at
        most :data:`SELECTIVE` of them (else None: the documents are walked in order, and the first
        hits of a frequent word come from the first pages). Why not the documents first: listing
        those that hold the word costs the trigram index's recheck of every candidate text on
        PostgreSQL (the words index cannot answer for a span's text: a span may cut a word, ``IL-2``
        of ``IL-2R``), and then every page's sets and spans (147 ms on SQLite, 434-579 ms on
        PostgreSQL at 10^6 spans). Which spans are the actor's to read is decided afterwards, in the
        same query as before (these ids only narrow it)."""
        if self.document is not None or self.set_id is not None or not self.doc_patterns:
            return None
        if not any(t.field == "type" and not t.negated for t in self.query.of(ListTerm)):  # type: ignore[union-attr]
            return None
        q = select(Sp.c.id, Sp.c.set_id).where(*self.sql_span).limit(self.SELECTIVE + 1)
        found = [(r[0], r[1]) for r in self._stream(q, named=False)]
        return found if len(found) <= self.SELECTIVE else None

    def _batched(self) -> Iterator[Any]:
        """Span rows a batch of documents at a time, in document order (32 documents, then 4 times as
        many each time, at most 4,096): the first hits of a frequent type come from the first
        documents, without sorting the whole corpus's."""
        dq = select(D.c.id, D.c.external_id).where(*self._doc_clauses())
        if self.doc_patterns:
            # the candidates at once, through the index, unordered (an ordered query is planned as a
            # walk in id order testing the pattern on every text: the whole corpus, ten times slower)
            found = _in_order(self._all(dq.where(self._doc_text_filter()), named=False))
            pages: Iterator[list[int]] = (found[a:b] for a, b in _growing(len(found)))
        else:
            pages = self._document_pages(dq)
        for docs in pages:  # (the pages hold candidate documents already: no second text test)
            sets = [r[0] for r in self._all(self._sets_select(docs, text=False), named=False)]
            if sets:
                yield from self._stream(self._ordered(self._span_select(sets)))

    def _document_pages(self, dq: Select, test: ColumnElement[bool] | None = None) -> Iterator[list[int]]:  # type: ignore[type-arg]
        """Document ids in order, a growing page at a time (keyset pagination on the document id's
        index: no list of every document), each page then kept to those passing ``test``. Why the test
        apart: with it in the paging query, PostgreSQL guesses how many texts pass and may sort the
        whole corpus for every page."""
        size, last = 32, None
        dq = dq.order_by(D.c.external_id)
        while True:
            page = (dq if last is None else dq.where(D.c.external_id > last)).limit(size)
            docs = self._all(page, named=False)
            if not docs:
                return
            last = docs[-1][1]
            size = min(size * 4, 4096)
            ids = [d[0] for d in docs]
            if test is not None:
                kept = {r[0] for r in self._all(select(D.c.id).where(D.c.id.in_(ids), test), named=False)}
                ids = [i for i in ids if i in kept]
            if ids:
                yield ids

    def span_hits(self, limit: int | None, context: int | None) -> list[Hit]:
        rows = list(self.span_rows(limit))
        texts: dict[int, str] = {}
        if context:
            ids = sorted({r.doc_id for r in rows})
            for i in range(0, len(ids), CHUNK):
                texts.update(
                    self.conn.execute(select(D.c.id, D.c.text).where(D.c.id.in_(ids[i : i + CHUNK]))).all()
                )  # type: ignore[arg-type]
        from corpusdb.kb.check import grounding_labels

        keys = {k for r in rows for k in _keys(r.groundings)}
        labels = grounding_labels(self.conn, self.schema, keys) if keys else {}
        return [_span_hit(r, texts.get(r.doc_id, ""), context, labels) for r in rows]

    def span_counts(self) -> list[CountRow]:
        self._build()
        counts: dict[tuple[str, str], int] = defaultdict(int)
        typed = any(t.field == "type" and not t.negated for t in self.query.of(ListTerm))  # type: ignore[union-attr]
        if not self.checks:
            # Spans counted per set first: with a type, the (type, set_id) index alone answers, in
            # set order (PostgreSQL: an index-only scan once the visibility map is set, as autovacuum
            # does after an import); without one, only the readable sets' spans are read.
            per_set = select(Sp.c.set_id, Sp.c.type, func.count().label("n")).where(*self.sql_span)
            if not typed:
                per_set = per_set.where(Sp.c.set_id.in_(self._sets_select().with_only_columns(S.c.id)))
            per_set = per_set.group_by(Sp.c.set_id, Sp.c.type)
            if db.is_sqlite(self.conn):  # the readable sets' documents joined here
                sets = dict(self._all(self._sets_select(), named=False))  # set id -> document
                for sid, typ, n in self._all(per_set, named=False):
                    if (doc := sets.get(sid)) is not None:
                        counts[(doc, typ)] += int(n)
            else:
                # PostgreSQL joins the 10^4 per-set counts to the readable sets and sums them per
                # document: it sends half as many rows. Why counted per set before the join: the
                # planner has no statistics on content columns (corpusdb.store.rls: a side channel),
                # so it guessed 5,000 spans of a type for 100,000 and joined every span to its set
                # and document through an external sort (133-150 ms at 10^6 spans; 40-60 ms so)
                g = per_set.subquery("per_set")
                v = self._sets_select().subquery("readable")
                q = (
                    select(v.c.external_id, g.c.type, func.sum(g.c.n))
                    .select_from(g.join(v, v.c.id == g.c.set_id))
                    .group_by(v.c.external_id, g.c.type)
                    # in code-point order, as sorted below: Python's sort of sorted rows is one pass
                    .order_by(v.c.external_id.collate("C"), g.c.type.collate("C"))
                )
                for doc, typ, n in self._all(q, named=False):
                    counts[(doc, typ)] += int(n)
        else:
            for row in self._checked(self._batched(), None):
                counts[(row.external_id, row.type)] += 1
        return [CountRow(d, t, n) for (d, t), n in sorted(counts.items())]


def _in_order(rows: Iterable[Any]) -> list[int]:
    """The ids of ``(id, external id)`` rows in external-id order."""
    return [r[0] for r in sorted(rows, key=lambda r: r[1])]


def _growing(n: int) -> Iterator[tuple[int, int]]:
    """``[a, b)`` pages over ``n`` items: 32, then 4 times as many each time, at most 4,096."""
    a, size = 0, 32
    while a < n:
        yield a, min(n, a + size)
        a, size = a + size, min(size * 4, 4096)


def _frag_key(raw: Any) -> str:
    """Fragments as comparable text (None for the one fragment the row's start/stop give)."""
    if raw is None:
        return ""
    return str([list(f) for f in _json(raw)])


def agreement_states(mine: Sequence[tuple[int, int, int, str, str]],
                     theirs: Sequence[tuple[int, int, int, str, str]]) -> dict[int, frozenset[str]]:  # fmt: skip
    """The agreement states of each of ``mine``'s spans (``(id, start, stop, fragments, type)``)
    against ``theirs``: ``agree`` (same fragments and type), else ``disagree`` and one of
    ``disagree-type`` (same fragments, another type), ``disagree-span`` (overlapping, other
    boundaries) or ``only`` (nothing of theirs overlaps)."""
    places: dict[tuple[int, int, str], set[str]] = defaultdict(set)
    for _, a, b, f, typ in theirs:
        places[(a, b, f)].add(typ)
    out: dict[int, frozenset[str]] = {}
    for sid, a, b, f, typ in mine:
        types = places.get((a, b, f))
        if types is not None and typ in types:
            out[sid] = frozenset({"agree"})
        elif types is not None:
            out[sid] = frozenset({"disagree", "disagree-type"})
        elif any(x < b and a < y for _, x, y, _, _ in theirs):
            out[sid] = frozenset({"disagree", "disagree-span"})
        else:
            out[sid] = frozenset({"disagree", "only"})
    return out


_ROW_TYPES: dict[tuple[str, ...], Any] = {}


def _row_type(names: tuple[str, ...]) -> Any:
    """A named-tuple class for rows with these columns (made once per shape)."""
    from collections import namedtuple

    if names not in _ROW_TYPES:
        _ROW_TYPES[names] = namedtuple("SearchRow", names, rename=True)._make  # type: ignore[misc]
    return _ROW_TYPES[names]


def _json(raw: Any) -> Any:
    if isinstance(raw, str | bytes):
        import orjson

        return orjson.loads(raw)
    return raw


def _unphrased(p: Pattern) -> Pattern:
    """A span's text joins its fragments with one space, so its phrase may be cut in the document:
    the document is asked only for the words, not their order (a superset still)."""
    if p.kind != "phrase" or len(p.tokens) < 2:
        return p
    from dataclasses import replace

    return replace(p, kind="words")


def _keys(raw: Any) -> list[str]:
    if not raw:
        return []
    import orjson

    gs = orjson.loads(raw) if isinstance(raw, str | bytes) else raw
    from corpusdb.services.content import grounding_from_json

    return [grounding_key(grounding_from_json(g)) for g in gs]


def _context(body: str, start: int, stop: int, context: int | None) -> tuple[str, str]:
    if not context or start < 0:
        return "", ""
    return body[max(0, start - context) : start], body[stop : stop + context]


def _text_hit(doc: str, body: str, start: int, stop: int, context: int | None) -> Hit:
    left, right = _context(body, start, stop, context)
    return Hit(doc, start, stop, body[start:stop], left, right, ((start, stop),))


def _fragments(row: Any) -> tuple[tuple[int, int], ...]:
    if row.start < 0:
        return ()
    raw = row.fragments
    if raw is None:
        return ((int(row.start), int(row.stop)),)
    if isinstance(raw, str | bytes):
        import orjson

        raw = orjson.loads(raw)
    return tuple((int(a), int(b)) for a, b in raw)


def _span_hit(row: Any, body: str, context: int | None, labels: Mapping[str, str]) -> Hit:
    left, right = _context(body, row.start, row.stop, context)
    attrs = row.attributes or {}
    if isinstance(attrs, str | bytes):
        import orjson

        attrs = orjson.loads(attrs)
    return Hit(
        document=row.external_id, start=int(row.start), stop=int(row.stop), text=row.text, left=left,
        right=right, fragments=_fragments(row), set_id=int(row.set_id),
        annotator="gold" if row.kind == "gold" else row.name, set_kind=row.kind, status=row.status,
        item=row.local_id, type=row.type, attributes=dict(attrs),
        groundings=tuple((k, labels.get(k)) for k in _keys(row.groundings)),
    )  # fmt: skip


def run(conn: Connection, project_id: int, actor: Actor, schema: Schema, query: Query, *,
        limit: int | None, context: int | None, document: str | Sequence[str] | None = None,
        set_id: int | None = None) -> SearchResult:  # fmt: skip
    """The hits of ``query`` for ``actor``: at most ``limit`` (None: all), with ``context`` characters
    each side."""
    r = Run(conn, project_id, actor, schema, query, document=document, set_id=set_id)
    take = None if limit is None else limit + 1
    if query.finds_spans:
        hits = r.span_hits(take, context)
    else:
        hits = []
        for h in r.text_hits(context):
            hits.append(h)
            if take is not None and len(hits) >= take:
                break
    more = limit is not None and len(hits) > limit
    return SearchResult(query.source, "spans" if query.finds_spans else "text",
                        tuple(hits[:limit] if limit is not None else hits), more, r.index, scope_of(actor))  # fmt: skip


def counts(conn: Connection, project_id: int, actor: Actor, schema: Schema, query: Query, *,
           document: str | Sequence[str] | None = None) -> SearchCounts:  # fmt: skip
    """How many hits per document and type (``text`` for places in the texts)."""
    r = Run(conn, project_id, actor, schema, query, document=document)
    if query.finds_spans:
        rows = r.span_counts()
    else:
        per: dict[str, int] = defaultdict(int)
        for doc, _, _, _ in r.text_places(paged=False):
            per[doc] += 1
        rows = [CountRow(d, "text", n) for d, n in per.items()]
    return SearchCounts(query.source, "spans" if query.finds_spans else "text", tuple(rows), r.index,
                        scope_of(actor))  # fmt: skip


def hit_documents(hits: Iterable[Hit]) -> list[str]:
    return sorted({h.document for h in hits})
