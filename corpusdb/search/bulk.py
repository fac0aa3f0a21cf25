"""Acting on every hit of a search: an annotator's bulk annotation, a lead's bulk gold correction.

* **Annotate** (``Corpus.search_annotate``): every hit becomes a span of one type in the acting
  annotator's *own* set of its document, through the same edit as a keystroke in the TUI
  (``SetsMixin._edit_in``, with its checks and locks), all sets in one transaction. Each set's undo
  stack gets one entry for the whole action, tagged ``[bulk ID]``: ``u`` in the TUI undoes that
  document's part, ``Corpus.search_undo(ID)`` (``corpusdb search --undo ID``) the whole action at
  once, as one undo step. Hits already annotated so (same fragments, same type) are left alone;
  documents where she has no set, or a submitted one, are listed as skipped.
* **Correct** (``Corpus.search_correct``): every hit in gold gets the same correction (another type,
  deleted; or, for places in the text, a new gold span), each one recorded as a correction with the
  reason and author (``corpusdb.workflow.corrections``), so the next release's change log lists
  every one. All documents in one transaction: all or nothing.
"""

from __future__ import annotations

import uuid
from collections import defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from sqlalchemy import select

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, UsageError
from corpusdb.basics.records import SetInfo, Span
from corpusdb.search import engine
from corpusdb.search.engine import Hit
from corpusdb.search.query import parse
from corpusdb.services import access
from corpusdb.services.base import ServiceBase
from corpusdb.services.edits import Put, next_id
from corpusdb.services.sets import read_contents
from corpusdb.services.undo import HistoryEntry
from corpusdb.store import tables

S = tables.annotation_set
D = tables.document
H = tables.edit_history


@dataclass(frozen=True, slots=True)
class BulkAnnotation:
    """What a bulk annotation did (or its undo undid)."""

    bulk_id: str
    type: str
    query: str
    added: tuple[tuple[str, int, int], ...]
    """``(document, set id, spans added)`` per set changed."""
    already: int
    """Hits that were annotated so already."""
    skipped: tuple[tuple[str, str], ...]
    """``(document, why)``: hits left alone because of their document."""
    undone: bool = False

    @property
    def total(self) -> int:
        return sum(n for _, _, n in self.added)

    def to_dict(self) -> dict[str, Any]:
        return {"bulk": self.bulk_id, "type": self.type, "query": self.query, "undone": self.undone,
                "total": self.total, "already": self.already,
                "sets": [{"document": d, "set": s, "spans": n} for d, s, n in self.added],
                "skipped": [{"document": d, "why": w} for d, w in self.skipped]}  # fmt: skip


def _tag(bulk_id: str) -> str:
    return f"[bulk {bulk_id}]"


def _span_text(text: str, fragments: tuple[tuple[int, int], ...]) -> str:
    return " ".join(text[a:b] for a, b in fragments)


class BulkMixin(ServiceBase):
    """Bulk actions on the hits of a search (``Corpus`` methods)."""

    def _hits(self, conn: Any, query: str, document: str | Sequence[str] | None) -> list[Hit]:
        schema = self.schema()  # type: ignore[attr-defined]
        return list(engine.run(conn, self.project_id, self.actor, schema, parse(query), limit=None,
                               context=None, document=document).hits)  # fmt: skip

    def search_annotate(
        self, query: str, type: str, *, document: str | Sequence[str] | None = None
    ) -> BulkAnnotation:
        """Annotate every hit of ``query`` as ``type`` in my own sets (one transaction; one undo step:
        ``search_undo`` with the returned ``bulk_id``)."""
        if self.actor.name is None:
            raise UsageError("the database owner has no sets of their own: act as an annotator (--as NAME)")
        schema = self.schema()  # type: ignore[attr-defined]
        if schema.entity(type) is None:
            raise InvalidInput(f"{type!r} is no entity type of schema {schema.name}")
        bulk_id = uuid.uuid4().hex[:8]
        added: list[tuple[str, int, int]] = []
        skipped: list[tuple[str, str]] = []
        already = 0
        with self._write(holder=f"a bulk annotation ({query})") as conn:
            hits = self._hits(conn, query, document)
            if not hits:
                raise NotFound(f"no hit for {query!r}: nothing to annotate")
            by_doc: dict[str, list[Hit]] = defaultdict(list)
            for h in hits:
                if h.fragments:
                    by_doc[h.document].append(h)
            mine = {r.document_external_id: r for r in self._my_sets(conn)}
            for doc, doc_hits in by_doc.items():
                info = mine.get(doc)
                if info is None:
                    skipped.append((doc, f"{len(doc_hits)} hit(s): {self.actor.name} has no set on it"))
                    continue
                if info.status == "submitted":
                    skipped.append(
                        (doc, f"{len(doc_hits)} hit(s): your set {info.id} is submitted (read-only)")
                    )
                    continue
                ann = read_contents(conn, [info])[0].annotations
                have = {(s.type, s.fragments) for s in ann.spans}
                text = conn.execute(select(D.c.text).where(D.c.id == info.document_id)).scalar_one()
                changes: list[Put] = []
                taken: list[str] = []
                for h in doc_hits:
                    if (type, h.fragments) in have:
                        already += 1
                        continue
                    have.add((type, h.fragments))
                    sid = next_id(ann, "span", taken)
                    taken.append(sid)
                    changes.append(Put(Span(sid, type, h.fragments, _span_text(text, h.fragments))))
                if not changes:
                    continue
                desc = f"search: {len(changes)} hit(s) of {query} as {type} {_tag(bulk_id)}"
                self._edit_in(conn, info.id, changes, expected_version=None, history="do", description=desc)  # type: ignore[attr-defined]
                added.append((doc, info.id, len(changes)))
            self._audit(
                conn, "search-annotate", query, type=type, bulk=bulk_id, spans=sum(n for *_, n in added)
            )
        return BulkAnnotation(bulk_id, type, query, tuple(added), already, tuple(skipped))

    def search_undo(self, bulk_id: str) -> BulkAnnotation:
        """Undo a bulk annotation in every set it changed, as one step (each set's top undo entry must
        be that action: an edit made after it in a document is undone first, in the TUI)."""
        if self.actor.name is None:
            raise UsageError("the database owner has no sets of their own: act as an annotator (--as NAME)")
        tag = _tag(bulk_id)
        from corpusdb.services import undo

        done: list[tuple[str, int, int]] = []
        with self._write(holder="undoing a bulk annotation") as conn:
            mine = {r.id: r for r in self._my_sets(conn)}
            rows = conn.execute(
                select(H.c.set_id, H.c.description).where(
                    H.c.stack == "undo",
                    H.c.set_id.in_(list(mine)),
                    H.c.description.contains(tag, autoescape=True),
                )
            ).all()
            if not rows:
                raise NotFound(f"no bulk annotation {bulk_id} in {self.actor.name}'s undo history")
            description = rows[0][1]
            for set_id, _ in rows:
                history = undo.read(conn, set_id)
                top: HistoryEntry | None = history.undo[-1] if history.undo else None
                if top is None or tag not in top.description:
                    raise Conflict(
                        f"{mine[set_id].document_external_id}: a later edit is on top of the bulk annotation "
                        f"{bulk_id} in set {set_id}; undo it there first (nothing was undone)"
                    )
                self._edit_in(conn, set_id, list(top.changes), expected_version=None, history="undo",  # type: ignore[attr-defined]
                              description=top.description)  # fmt: skip
                done.append((mine[set_id].document_external_id, set_id, len(top.changes)))
            self._audit(conn, "search-annotate-undo", bulk_id)
        typ = description.split(" as ", 1)[-1].split(" [bulk", 1)[0]
        query = description.removeprefix("search: ").split(" hit(s) of ", 1)[-1].rsplit(" as ", 1)[0]
        return BulkAnnotation(bulk_id, typ, query, tuple(sorted(done)), 0, (), undone=True)

    def search_correct(
        self,
        query: str,
        *,
        reason: str,
        set_type: str | None = None,
        delete: bool = False,
        add_type: str | None = None,
        author: str | None = None,
    ) -> list[Any]:
        """Correct gold at every hit of ``query``, each hit one correction with ``reason``: give gold
        spans another type (``set_type``), delete them (``delete``), or add a gold span of
        ``add_type`` at each place in the text. Span queries are kept to gold (``kind:gold``)."""
        from corpusdb.workflow.corrections import load_corrections

        self._require("lead", "adjudicator", doing="correct gold")
        if sum((set_type is not None, delete, add_type is not None)) != 1:
            raise UsageError(
                "say one correction: set_type (another type), delete, or add_type (new gold spans)"
            )
        if not reason or not reason.strip():
            raise InvalidInput("a correction needs a reason (it goes into the next release's change log)")
        who = author or self.actor.name
        if who is None:
            raise UsageError(
                "name the author of the corrections (--author NAME): the owner is nobody in particular"
            )
        schema = self.schema()  # type: ignore[attr-defined]
        for t in (set_type, add_type):
            if t is not None and schema.entity(t) is None:
                raise InvalidInput(f"{t!r} is no entity type of schema {schema.name}")
        q = parse(query)
        if add_type is not None and q.finds_spans:
            raise UsageError(
                "adding gold spans takes places in the text: a query of words, phrases or regexes"
            )
        if add_type is None and not q.finds_spans:
            raise UsageError("changing or deleting takes gold spans: a query with fields (type:, text:, ...)")
        if q.finds_spans:
            query = f"{query} kind:gold"
        with self._write(holder=f"a bulk correction ({query})") as conn:
            author_ = self._author(conn, who)  # type: ignore[attr-defined]
            hits = self._hits(conn, query, None)
            if not hits:
                raise NotFound(f"no hit for {query!r}: nothing to correct")
            by_doc: dict[str, list[Hit]] = defaultdict(list)
            for h in hits:
                by_doc[h.document].append(h)
            ids: list[int] = []
            for doc, doc_hits in by_doc.items():
                requests: list[tuple[str, Any, str | None, str | None]] = []
                for h in doc_hits:
                    if add_type is not None:
                        span = Span("new", add_type, h.fragments, h.text)
                        requests.append(("add", span, None, None))
                    elif delete:
                        requests.append(("delete", None, h.item, "span"))
                    else:
                        old = self._gold_span(conn, h)
                        requests.append(("change", replace(old, type=set_type), h.item, "span"))
                ids += [cid for _, cid in self._correct_in(conn, doc, requests, reason, author_, schema)]  # type: ignore[attr-defined]
            wanted = set(ids)
            return [c for c in load_corrections(conn, self.project_id) if c.id in wanted]

    def _my_sets(self, conn: Any) -> list[SetInfo]:
        return access.visible_sets(
            conn, self.project_id, self.actor, annotator=self.actor.name, kind="annotation"
        )

    def _gold_span(self, conn: Any, hit: Hit) -> Span:
        assert hit.set_id is not None
        info = access.readable_set(conn, self.project_id, self.actor, hit.set_id)
        ann = read_contents(conn, [info])[0].annotations
        return next(s for s in ann.spans if s.id == hit.item)
