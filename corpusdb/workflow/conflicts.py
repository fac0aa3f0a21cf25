"""Conflicts: per document, the items on which the submitted sets disagree, with stable keys.

Why an ``Analysis`` object: listing conflicts, merging, resolving one conflict and the adjudication
queue all need the same picture of a document (its sources aligned into units, its gold set, the
decisions already taken and which unit each one settled). It is built inside the caller's
transaction, from sets read through the blindness gate only.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

from sqlalchemy import Connection

from corpusdb.basics.records import Annotations, DecisionInfo, DocLabel, SetInfo
from corpusdb.services.base import Actor, ServiceBase
from corpusdb.workflow import store, units
from corpusdb.workflow.types import Conflict, DocumentConflicts, QueueEntry
from corpusdb.workflow.units import Source, Unit
from guidelines.schema import Schema


@dataclass(slots=True)
class Analysis:
    doc_id: int
    document: str
    text: str
    sources: list[Source]
    units: list[Unit]
    gold: SetInfo | None
    gold_ann: Annotations
    decisions: list[DecisionInfo]
    unit_decision: dict[str, DecisionInfo] = field(default_factory=dict)
    unit_gold: dict[str, str] = field(default_factory=dict)
    """Unit key -> the local id of its gold item (decided units whose item is in gold)."""
    member_unit: dict[tuple[int, str], str] = field(default_factory=dict)
    """(source index, local id) -> unit key, for spans and relations (to map arguments)."""
    labels: dict[str, str] = field(default_factory=dict)
    derived: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    """The relations the schema's rules derive, per source (annotator, or set id) and for ``gold``:
    shown apart, never aligned into units, so never a conflict of their own (a disagreement on one
    is the conflict on the annotated relation or link it comes from)."""
    """Grounding key -> its knowledge-base label, shown beside the id in the variants."""

    @property
    def n(self) -> int:
        return len(self.sources)

    def unit(self, key: str) -> Unit | None:
        return next((u for u in self.units if u.key == key), None)

    def dependencies(self, u: Unit) -> tuple[list[str], list[str]]:
        """The units this one points at that are still undecided, and those refused (no gold item)."""
        waiting: list[str] = []
        refused: list[str] = []
        for dep in u.deps:
            if not dep or dep in self.unit_gold:
                continue
            (refused if dep in self.unit_decision else waiting).append(dep)
        return waiting, refused

    def blocked(self, u: Unit) -> str | None:
        """Why the unit's item cannot enter gold yet (an argument without a gold item), or None."""
        waiting, refused = self.dependencies(u)
        if refused:
            return f"{refused[0]} was refused: refuse this too, or put an edited item"
        if waiting:
            return f"{waiting[0]} has no gold item yet: resolve it (or run the merge) first"
        return None

    def is_open(self, u: Unit) -> bool:
        """Undecided and needing a person: the sources disagree, or an argument was refused."""
        if u.key in self.unit_decision:
            return False
        return not units.is_agreed(u, self.n) or bool(self.dependencies(u)[1])

    def waiting(self) -> dict[str, str]:
        """Undecided units no person needs to decide that wait for one who does: an agreed relation
        on a disputed span, transitively (key -> the open conflict's key). The merge puts every other
        undecided agreed unit into gold as it is; open and waiting units stop gold being finished."""
        by_key = {u.key: u for u in self.units}
        memo: dict[str, str | None] = {}

        def blocker(key: str, seen: frozenset[str]) -> str | None:
            """The open conflict an undecided unit ends up waiting for (itself when open), or None."""
            if key not in memo:
                u = by_key.get(key)
                out = None
                if u is not None and key not in self.unit_decision and key not in seen:
                    if self.is_open(u):
                        out = key
                    else:  # an undecided dependency: what it waits for (a refused one makes u open)
                        deps = (d for d in u.deps if d and d not in self.unit_gold)
                        out = next((b for d in deps if (b := blocker(d, seen | {key}))), None)
                memo[key] = out
            return memo[key]

        out: dict[str, str] = {}
        for u in self.units:
            if u.key not in self.unit_decision and not self.is_open(u):
                b = blocker(u.key, frozenset())
                if b is not None:
                    out[u.key] = b
        return out

    def note_decision(self, key: str, decision: DecisionInfo) -> None:
        self.unit_decision[key] = decision
        if decision.item_id:
            self.unit_gold[key] = decision.item_id
        else:
            self.unit_gold.pop(key, None)


def analyse(conn: Connection, project_id: int, actor: Actor, document: str | int, schema: Schema, *,
            criterion: str = "exact", types: str = "required", sources: store.SourceSpec = None) -> Analysis:  # fmt: skip
    """One document's sources aligned into units, with its gold set and decisions."""
    return analyse_many(conn, project_id, actor, [document], schema, criterion=criterion, types=types,
                        sources=sources)[0]  # fmt: skip


def analyse_many(conn: Connection, project_id: int, actor: Actor, documents: Sequence[str | int] | None,
                 schema: Schema, *, criterion: str = "exact", types: str = "required",
                 sources: store.SourceSpec = None) -> list[Analysis]:  # fmt: skip
    """The named documents (every ready one when None), read in bulk."""
    out = [
        build(x, schema, criterion, types)
        for x in store.load_documents(conn, project_id, actor, documents, sources)
    ]
    if schema.knowledge_bases:  # the labels of the groundings, to show beside their ids
        from corpusdb.kb.check import grounding_keys, grounding_labels

        keys = {k for a in out for src in a.sources for k in grounding_keys(src.annotations)}
        labels = grounding_labels(conn, schema, keys) if keys else {}
        for a in out:
            a.labels = labels
    return out


def build(x: store.Loaded, schema: Schema, criterion: str, types: str) -> Analysis:
    derived: dict[str, list[dict[str, object]]] = {}
    if schema.derive:  # derived relations: applied per source, kept out of the alignment
        from guidelines.derive import derived_listing, without_derived

        x.sources = [replace(s, annotations=without_derived(s.annotations)) for s in x.sources]
        for s in x.sources:
            derived[s.ref.annotator or str(s.ref.set_id)] = derived_listing(schema, s.annotations)
        derived["gold"] = derived_listing(schema, x.gold_ann)
    us = units.align(x.sources, x.text, schema=schema, criterion=criterion, types=types)
    a = Analysis(x.doc_id, x.external_id, x.text, x.sources, us, x.gold, x.gold_ann, x.decisions)
    a.derived = derived
    index = store.decided_index(x.decisions)
    gold_ann = x.gold_ann
    gold_ids = (
        {s.id for s in gold_ann.spans} | {r.id for r in gold_ann.relations} | {lk.id for lk in gold_ann.links}
        | {e.id for e in gold_ann.entities}
    )  # fmt: skip
    gold_labels = {lb.name for lb in gold_ann.labels}
    set_ids = [s.ref.set_id for s in x.sources]
    for u in us:
        for m in u.members:
            local = m.item.name if isinstance(m.item, DocLabel) else m.item.id
            if u.kind in ("span", "relation", "entity"):
                a.member_unit[(m.source, local)] = u.key
            d = index.get((set_ids[m.source], local))
            if d is not None and u.key not in a.unit_decision:
                a.unit_decision[u.key] = d
        d = a.unit_decision.get(u.key)
        if d is not None and d.item_id:
            present = d.item_id in gold_labels if d.item_kind == "label" else d.item_id in gold_ids
            if present:  # a correction may have deleted it since
                a.unit_gold[u.key] = d.item_id
    return a


def document_conflicts(a: Analysis, *, include_resolved: bool = False) -> DocumentConflicts:
    """Open conflicts of a document (every unit with ``include_resolved``), with counts."""
    out: list[Conflict] = []
    counts: Counter[str] = Counter()
    agreed = open_ = 0
    for u in a.units:
        is_agreed = units.is_agreed(u, a.n)
        agreed += is_agreed
        counts[u.kind] += not is_agreed
        is_open = a.is_open(u)
        open_ += is_open
        if not (is_open or include_resolved):
            continue
        decision = a.unit_decision.get(u.key)
        differs = units.differs(u, a.n)
        if is_agreed and is_open:
            differs = (*differs, "argument refused")
        out.append(
            Conflict(
                document=a.document, key=u.key, kind=u.kind, differs=differs,
                variants=units.variants(u, a.sources, a.labels), n_sources=a.n, decision=decision,
                blocked=a.blocked(u) if decision is None else None,
            )
        )  # fmt: skip
    return DocumentConflicts(
        document=a.document, sources=tuple(s.ref for s in a.sources), conflicts=tuple(out),
        counts={k: counts.get(k, 0) for k in units.KIND_ORDER if k != "entity" or k in counts}, open=open_, agreed=agreed,
        waiting=a.waiting(), derived={k: tuple(v) for k, v in a.derived.items()},
    )  # fmt: skip


class ConflictsMixin(ServiceBase):
    """Listing disagreements and the adjudication queue (adjudicators and leads)."""

    def _schema_for(self) -> Schema:
        return self.schema()  # type: ignore[attr-defined, no-any-return]

    def conflicts(
        self,
        document: str | int | None = None,
        *,
        criterion: str = "exact",
        types: str = "required",
        sources: Sequence[str | int] | None = None,
        include_resolved: bool = False,
    ) -> list[DocumentConflicts]:
        """Disputed items per document (all ready documents when ``document`` is None).

        Open conflicts only by default; ``include_resolved`` adds decided ones and agreed items.
        """
        self._require("lead", "adjudicator", doing="see conflicts between annotators")
        schema = self._schema_for()
        with self._read() as conn:
            found = analyse_many(conn, self.project_id, self.actor, None if document is None else [document],
                                 schema, criterion=criterion, types=types, sources=sources)  # fmt: skip
        return [document_conflicts(a, include_resolved=include_resolved) for a in found if a.n]

    def adjudication_queue(self, *, criterion: str = "exact", types: str = "required") -> list[QueueEntry]:
        """Documents ready for adjudication (every annotation set submitted) with conflict counts."""
        self._require("lead", "adjudicator", doing="see the adjudication queue")
        schema = self._schema_for()
        with self._read() as conn:
            found = analyse_many(
                conn, self.project_id, self.actor, None, schema, criterion=criterion, types=types
            )
        out: list[QueueEntry] = []
        for a in found:
            dc = document_conflicts(a)
            gold = a.gold.status if a.gold else None
            out.append(QueueEntry(a.document, a.n, sum(dc.counts.values()), dc.open, a.gold is not None, gold,
                                  len(dc.waiting)))  # fmt: skip
        return out
