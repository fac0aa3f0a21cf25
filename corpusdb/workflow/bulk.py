"""Bulk adjudication: take one source's version of every open conflict of a document (or of one type).

Why a module of its own: one ``resolve`` call per conflict costs a process start and a transaction
each (339 open conflicts took minutes from the command line). ``resolve_bulk`` makes the same
decisions as ``resolve(take=...)`` would, one per conflict with its provenance and reason, but in one
transaction per document. A conflict that cannot be taken yet (an argument without a gold item) is
reported with the reason, never forced.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from corpusdb.basics.errors import NotFound, UsageError
from corpusdb.workflow import store, units
from corpusdb.workflow.adjudication import (
    AdjudicationMixin,
    _all_refs,
    _decide,
    _Gold,
    _materialise,
    _open_count,
    _refs,
    _used_ids,
    _write,
    is_finished,
    refuse_finished,
    settled,
)
from corpusdb.workflow.conflicts import Analysis, analyse_many
from corpusdb.workflow.revise import decided_keys
from corpusdb.workflow.types import _ToDict
from corpusdb.workflow.units import Unit
from guidelines.schema import Schema
from guidelines.validate import Violation, errors, validate


@dataclass(frozen=True, slots=True)
class Skipped(_ToDict):
    """An open conflict the bulk run left open, and why (blocked argument, several versions...)."""

    key: str
    reason: str


@dataclass(frozen=True, slots=True)
class BulkResolution(_ToDict):
    """What ``resolve_bulk`` did on one document."""

    document: str
    take: str
    item_type: str | None
    taken: int
    """Conflicts decided with the source's item put into gold."""
    refused: int
    """Conflicts decided by refusing every version (the source has nothing there)."""
    followed: int
    """Agreed items put into gold on the way (``unanimous``): not merged yet, or relations and links
    that followed their newly decided spans."""
    skipped: tuple[Skipped, ...]
    open: int
    """Conflicts still open on the document afterwards."""
    decision_ids: tuple[int, ...]
    breaches: tuple[Violation, ...] = ()
    """Schema errors the gold has after this take and did not have before (a ``PartOf`` whose part
    was taken as ``Environment``): the decisions are stored, but gold cannot be finished so."""
    breach_keys: tuple[tuple[str, ...], ...] = ()
    """Per breach, the conflict keys whose decisions caused it (revise them)."""

    def to_dict(self) -> dict[str, Any]:
        d = {
            "document": self.document,
            "take": self.take,
            "type": self.item_type,
            "taken": self.taken,
            "refused": self.refused,
            "followed": self.followed,
            "skipped": [s.to_dict() for s in self.skipped],
            "open": self.open,
            "decision_ids": list(self.decision_ids),
            "breaches": [
                {**v.to_dict(), "decide": list(k)}
                for v, k in zip(self.breaches, self.breach_keys, strict=True)
            ],
        }
        return d


def _types_of(u: Unit) -> set[str]:
    """The types the versions of a unit carry (span/relation/link type, label name)."""
    out = set()
    for m in u.members:
        t = getattr(m.item, "type", None) or getattr(m.item, "name", None)
        if t is not None:
            out.add(str(t))
    return out


class BulkAdjudicationMixin(AdjudicationMixin):
    """``resolve_bulk``: many ``resolve(take=...)`` decisions in one transaction per document."""

    def resolve_bulk(
        self,
        document: str | int | None,
        *,
        take: str | int,
        item_type: str | None = None,
        reason: str | None = None,
        criterion: str = "exact",
        types: str = "required",
        sources: Sequence[str | int] | None = None,
        progress: Callable[[int, int | None, str], None] | None = None,
    ) -> list[BulkResolution]:
        """Take ``take``'s version (annotator name or set id) of every open conflict of a document
        (every ready document when None), or only of those whose versions have type ``item_type``.

        Where the source has nothing, every version is refused (as ``resolve(take=...)`` does). Each
        decision is ``adjudicated`` with the usual provenance and ``reason`` (a default one names
        the bulk run). Conflicts that cannot be taken yet are returned in ``skipped`` with why.
        One transaction per document: a failure leaves that document as it was.
        ``progress(done, total, what)`` is called after each document.
        """
        self._require("lead", "adjudicator", doing="resolve conflicts")
        spec = str(take)
        if not spec or ":" in spec:
            raise UsageError("a bulk take names a whole source (annotator or set id), not NAME:LOCALID")
        schema = self.schema()  # type: ignore[attr-defined]
        why = reason or (
            f"bulk: took {spec}'s version of every open "
            + (f"{item_type} conflict" if item_type else "conflict")
        )
        if document is None:
            with self._read() as conn:
                docs: list[str | int] = [
                    ext for _, ext, _ in store.ready_documents(conn, self.project_id, self.actor)
                ]
        else:
            docs = [document]
        out: list[BulkResolution] = []
        for k, doc in enumerate(docs):
            res = settled(lambda doc=doc: self._bulk_doc(doc, document is None, spec, item_type, why, schema,
                                                         criterion, types, sources))  # fmt: skip
            if res is not None:
                out.append(res)
            if progress is not None:
                progress(k + 1, len(docs), f"taking {spec}'s versions: {doc}")
        if document is None and item_type is not None and not out and docs:
            raise NotFound(f"no item of type {item_type!r} on any ready document {spec} annotated")
        return out

    def _bulk_doc(self, doc: str | int, every: bool, spec: str, item_type: str | None, why: str, schema: Schema,
                  criterion: str, types: str, sources: Sequence[str | int] | None) -> BulkResolution | None:  # fmt: skip
        """One document's bulk take in its own transaction (None: a document ``every`` passes over)."""
        with self._write() as conn:
            [a] = analyse_many(conn, self.project_id, self.actor, [doc], schema, criterion=criterion,
                               types=types, sources=sources)  # fmt: skip
            if not a.n:
                return None
            if is_finished(a):  # frozen gold: bulk decisions never touch it
                if every:
                    return None
                refuse_finished(a, "decide its conflicts")
            if not any(s.ref.annotator == spec or str(s.ref.set_id) == spec for s in a.sources):
                if every:
                    return None  # every ready document: only those this source annotated
                names = ", ".join(f"{s.ref.annotator} (set {s.ref.set_id})" for s in a.sources)
                raise NotFound(f"{spec!r} is not a source of {a.document} (sources: {names})")
            if every and item_type is not None and not any(item_type in _types_of(u) for u in a.units):
                return None  # every ready document: only those with items of that type
            return self._bulk_one(conn, a, spec, item_type, why, schema)

    def _bulk_one(self, conn: Any, a: Analysis, spec: str, item_type: str | None, why: str,
                  schema: Schema) -> BulkResolution:  # fmt: skip
        gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])  # the corpus's ids kept
        before = {_sig(v) for v in errors(validate(schema, a.gold_ann, a.text))}
        self._auto_pass(a, gold, None)  # what every source agrees on first (as a merge would): arguments
        agreed = len(gold.decisions)
        taken = refused = 0
        skipped: dict[str, str] = {}
        todo = [u for u in a.units if a.is_open(u) and (item_type is None or item_type in _types_of(u))]
        if item_type is not None and not todo and not any(item_type in _types_of(u) for u in a.units):
            known = sorted({t for u in a.units for t in _types_of(u)})
            raise NotFound(f"no item of type {item_type!r} on {a.document} (types: {', '.join(known)})")
        progress = True
        while todo and progress:  # nested relations: a later pass may unblock an earlier one
            progress = False
            left: list[Unit] = []
            for u in todo:
                try:
                    chosen = self._chosen(a, u, spec)
                except UsageError as e:
                    skipped[u.key] = str(e)
                    continue
                if chosen is None:
                    _decide(a, self, gold, u, "adjudicated", None, _all_refs(a, u), why)
                    refused += 1
                    progress = True
                    continue
                new = _materialise(a, chosen)
                if isinstance(new, str):
                    skipped[u.key] = new
                    left.append(u)
                    continue
                same = next(g for _, g in units.groups(u) if chosen in g)
                _decide(a, self, gold, u, "adjudicated", new, _refs(a, same), why)
                skipped.pop(u.key, None)
                taken += 1
                progress = True
            todo = left
        mine = len(gold.decisions)
        self._auto_pass(a, gold, None)  # agreed relations whose spans are now in gold follow them
        followed = agreed + len(gold.decisions) - mine
        open_ = _open_count(a)
        ids: list[int] = []
        if gold.decisions:
            [ids] = store.write_golds(conn, self.project_id, [_write(a, gold)])
        breaches = [v for v in errors(validate(schema, gold.annotations(), a.text)) if _sig(v) not in before]
        self._audit(conn, "resolve_bulk", a.document, take=spec, type=item_type, taken=taken, refused=refused,
                    skipped=len(skipped), reason=why, breaches=len(breaches))  # fmt: skip
        return BulkResolution(a.document, spec, item_type, taken, refused, followed,
                              tuple(Skipped(k, v) for k, v in skipped.items()), open_, tuple(ids), tuple(breaches),
                              tuple(decided_keys(a, gold, v) for v in breaches))  # fmt: skip


def _sig(v: Violation) -> tuple[str, str, str, str]:
    return (v.code, v.item_kind, v.item_id, v.message)
