"""Adjudication: build each document's gold set from its sources, one recorded decision per item.

Merge semantics (why): a unit (see ``units``) on which every source agrees goes into gold as
``unanimous``; with ``threshold=k``, a version held by at least k of the n sources goes in as
``majority`` (and when at least k sources have *nothing* there, the others' items are refused, also
``majority``). Everything else waits for ``resolve``: take one source's version, take none
(``adjudicated``), or put an edited item (``edited``, with the version it was edited from and the one
put). The merge never touches a decided unit again, so re-running it after more annotators submit
keeps every decision made; a person may revise or undo a decision (``resolve`` again, ``undo``) until
the document's gold is finished (``finish_gold``, see ``revise``): the old decision is kept, marked
superseded. Gold is never finished by the merge or by deciding the last conflict. Relations and links enter gold only once the
spans they point at have gold items; their arguments are rewritten to those gold ids. Gold local ids
are allocated once (``T<n>``, ``R<n>``, ``L<n>``) and never renumbered. An item gold already holds
(an imported gold set) is never added a second time: its unit is decided onto that gold item, whose
decision thereby gains its sources, so re-running the merge changes nothing.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import TypeVar

from sqlalchemy import Connection

from corpusdb.basics import clusters
from corpusdb.basics.errors import (
    Conflict,
    DecidedMeanwhile,
    InvalidInput,
    NotFound,
    StaleVersion,
    UsageError,
)
from corpusdb.basics.records import (
    Annotations,
    AnnotationSet,
    Argument,
    DecisionInfo,
    DocLabel,
    Entity,
    Link,
    Relation,
    Span,
)
from corpusdb.services.base import ServiceBase, utcnow_aware
from corpusdb.services.edits import PREFIX
from corpusdb.services.items import item_to_json
from corpusdb.services.sets import lock_set, read_contents
from corpusdb.workflow import store, units
from corpusdb.workflow.conflicts import Analysis, analyse, analyse_many
from corpusdb.workflow.types import Item, MergeResult, Resolution, SourceRef
from corpusdb.workflow.units import Member, Unit

Progress = Callable[[int, int], None]
T = TypeVar("T")


class _Gold:
    """One document's gold content being built in a transaction: fresh ids, pending decisions."""

    def __init__(self, ann: Annotations, used: set[str], sources: Sequence[Annotations] = ()) -> None:
        self.spans = list(ann.spans)
        self.relations = list(ann.relations)
        self.links = list(ann.links)
        self.labels = list(ann.labels)
        self.notes = list(ann.notes)
        self.entities = list(ann.entities)
        self.extra = ann.extra
        layout = _standoff_layout(sources)
        self.keep_ids = layout is not None  # sources read from a corpus's files: keep their ids
        # ... the ids, lines and order of the first source read from files (the corpus's own): an item
        # kept under its id sorts where that source had it, and no new item takes one of its ids
        self.ref = next((i for i, x in enumerate(sources) if (x.extra.get("standoff") or {}).get("files")), 0)
        first = sources[self.ref] if sources and self.keep_ids else Annotations()
        self.rank = {
            x.id: k for k, x in reversed(list(enumerate((*first.spans, *first.relations, *first.links))))
        }
        self.reserved = {x.id for x in (*first.spans, *first.relations, *first.links, *first.entities)}
        if layout and "standoff" not in ann.extra:
            # gold keeps the corpus's own files (BioNLP .a1/.a2), not brat's .ann
            self.extra = {**ann.extra, "standoff": layout}
        self.changed = False
        self.existing = 0
        # what gold already holds and no decision claims (an imported gold set): an identical item is
        # decided onto it instead of being added a second time; each gold item is claimed once
        self.present: dict[tuple[object, ...], list[str]] = {}
        for x in (*self.spans, *self.relations, *self.links):
            if x.id not in used:
                self.present.setdefault(_content(x), []).append(x.id)
        for c in clusters.clusters(ann):  # every cluster gold holds, an entity or drawn by links: one model
            if c.id not in used:
                self.present.setdefault(_content(c.entity()), []).append(c.id)
        self.decisions: list[tuple[object, ...]] = []
        self.superseded: list[tuple[int, int]] = []  # (old decision id, index of its successor)
        # every id gold ever gave out (decisions keep them): a deleted id is never reused
        self.taken = used | {
            x.id for x in (*self.spans, *self.relations, *self.links, *self.notes, *self.entities)
        }
        self.held = {x.id for x in (*self.spans, *self.relations, *self.links, *self.notes, *self.entities)}
        self.top: dict[str, int] = {}
        for t in self.taken | self.reserved:
            self._count(t)

    def _count(self, local_id: str) -> None:
        m = _NUM.match(local_id)
        if m:
            self.top[m.group(1)] = max(self.top.get(m.group(1), 0), int(m.group(2)))

    def annotations(self) -> Annotations:
        if self.rank:

            def key(x: Span | Relation | Link | Entity) -> int:
                return self.rank.get(x.id, len(self.rank))

            return Annotations(tuple(sorted(self.spans, key=key)), tuple(sorted(self.relations, key=key)),
                               tuple(sorted(self.links, key=key)), tuple(self.notes), tuple(self.labels), self.extra,
                               tuple(sorted(self.entities, key=key)))  # fmt: skip
        return Annotations(tuple(self.spans), tuple(self.relations), tuple(self.links), tuple(self.notes),
                           tuple(self.labels), self.extra, tuple(self.entities))  # fmt: skip

    def fresh(self, kind: str) -> str:
        prefix = PREFIX[kind]
        self.top[prefix] = self.top.get(prefix, 0) + 1
        while f"{prefix}{self.top[prefix]}" in self.taken or f"{prefix}{self.top[prefix]}" in self.reserved:
            self.top[prefix] += 1
        return f"{prefix}{self.top[prefix]}"

    def add(self, item: Item, prefer: str | None = None) -> str:
        """Put a new item into gold (an identical one it holds unclaimed is decided onto instead).
        ``prefer``: the corpus source's id for the item's unit, which it keeps even when a decision
        undone or revised gave it out before (no other item can have had it: see ``reserved``)."""
        if isinstance(item, DocLabel):
            if any(lb.name == item.name and lb.value == item.value for lb in self.labels):
                self.existing += 1
                return item.name  # gold already says so: nothing to write
        else:
            have = self.present.get(_content(item))
            if have:
                self.existing += 1
                return have.pop(0)
        self.changed = True
        if isinstance(item, DocLabel):
            self.labels = [lb for lb in self.labels if lb.name != item.name] + [item]
            return item.name
        kind = _kind(item)
        # sources read from a corpus's files: the source's own id (T12, E3) when gold has not used it
        # yet, so a release of a BioNLP corpus keeps its ids; and an E line stays an E line
        own = getattr(item, "id", "")
        if self.keep_ids and prefer and prefer not in self.held and _NUM.match(prefer):
            keep = prefer  # T2 stays T2, also when its decision was undone and taken again
        elif self.keep_ids and own and own not in self.taken and own not in self.reserved and _NUM.match(own):
            keep = own
        else:
            keep = self.fresh(kind)
        self.taken.add(keep)
        self.held.add(keep)
        self._count(keep)
        if prefer in self.rank and keep not in self.rank:  # renamed (a * line's cluster): its place stays
            self.rank[keep] = self.rank[prefer]
        extra = {
            k: item.extra[k] for k in ("prefix", "file", "line", "attrs", "link_type") if item.extra.get(k)
        }  # type: ignore[union-attr]
        new = replace(item, id=keep, extra=extra)  # type: ignore[type-var]
        getattr(self, "entities" if kind == "entity" else kind + "s").append(new)
        return new.id  # type: ignore[union-attr]

    def find(self, kind: str, local_id: str) -> Item | None:
        """The gold item of that kind and id (a label by name), or None."""
        if kind == "label":
            return next((lb for lb in self.labels if lb.name == local_id), None)
        pool = self.entities if kind == "entity" else getattr(self, kind + "s", [])
        return next((x for x in pool if x.id == local_id), None)

    def remove(self, kind: str, local_id: str) -> Item | None:
        """Take an item out of gold (its id stays taken); None when gold does not hold it."""
        old = self.find(kind, local_id)
        if old is None:
            return None
        self.changed = True
        self.held.discard(local_id)
        if kind == "label":
            self.labels = [lb for lb in self.labels if lb.name != local_id]
        else:
            attr = "entities" if kind == "entity" else kind + "s"
            setattr(self, attr, [x for x in getattr(self, attr) if x.id != local_id])
        return old

    def put(self, item: Item, local_id: str) -> str:
        """Put ``item`` into gold under ``local_id`` (a revision keeps the gold id, so what points at
        the item keeps pointing at it)."""
        kind = _kind(item)
        self.remove(kind, local_id)
        self.changed = True
        if isinstance(item, DocLabel):
            self.labels.append(item)
            return item.name
        extra = {
            k: item.extra[k] for k in ("prefix", "file", "line", "attrs", "link_type") if item.extra.get(k)
        }
        new = replace(item, id=local_id, extra=extra)  # type: ignore[type-var]
        getattr(self, "entities" if kind == "entity" else kind + "s").append(new)
        self.held.add(local_id)
        return local_id

    def dependents(self, local_id: str) -> list[tuple[str, str]]:
        """(kind, id) of the gold items resting on ``local_id``, transitively: relations naming it as
        argument or trigger, links ending on it, entities (and link clusters) it is a member of."""
        doomed = {local_id}
        out: list[tuple[str, str]] = []
        changed = True
        while changed:
            changed = False
            for r in self.relations:
                if r.id not in doomed and (r.trigger in doomed or any(x.ref in doomed for x in r.args)):
                    doomed.add(r.id)
                    out.append(("relation", r.id))
                    changed = True
            for e in self.entities:
                if e.id not in doomed and any(m in doomed for m in e.members):  # decided again with its spans
                    doomed.add(e.id)
                    out.append(("entity", e.id))
                    changed = True
        out += [("link", lk.id) for lk in self.links if lk.source in doomed or lk.target in doomed]
        return out


_ENTITY_EXTRA = ("link_type", "file", "line", "prefix")  # a * line's type and place
_NUM = re.compile(r"^(\D+?)(\d+)$")


def _content(item: Span | Relation | Link | Entity) -> tuple[object, ...]:
    """What makes two gold items the same item, ids and format details aside."""
    if isinstance(item, Entity):  # members in any order: the order of a cluster carries no meaning
        return ("entity", item.type, tuple(sorted(item.members)), units.canon(dict(item.attributes)),
                tuple(sorted(g.ref for g in item.groundings)))  # fmt: skip
    if isinstance(item, Span):
        return ("span", *units.span_sig(item), item.text)
    if isinstance(item, Relation):
        return ("relation", item.type, item.kind, tuple((a.role, a.ref) for a in item.args), item.trigger,
                item.label, tuple(sorted(item.tags)), units.canon(dict(item.attributes)))  # fmt: skip
    return ("link", item.type, item.source, item.target)


def _standoff_layout(sources: Sequence[Annotations]) -> dict[str, object] | None:
    """The annotation files (``a1``/``a2`` or ``ann``) the sources were read from, without their
    verbatim lines: gold written as brat then uses the corpus's own files."""
    for ann in sources:
        files = (ann.extra.get("standoff") or {}).get("files")
        if files:
            return {"files": {ext: {} for ext in files}}
    return None


def _used_ids(a: Analysis) -> set[str]:
    return {d.item_id for d in a.decisions if d.item_id and d.item_kind != "label"}


def _kind(item: Item) -> str:
    return {Span: "span", Relation: "relation", Link: "link", DocLabel: "label", Entity: "entity"}[type(item)]


def _materialise(a: Analysis, m: Member) -> Item | str:
    """The source item with its references rewritten to gold ids, or why that is not possible yet."""
    item = m.item
    if isinstance(item, Relation):
        args = []
        for arg in item.args:
            key = a.member_unit.get((m.source, arg.ref))
            gold = a.unit_gold.get(key) if key else None
            if gold is None:
                why = "was refused" if key in a.unit_decision else "has no gold item yet: resolve it first"
                return f"argument {arg.role} ({key or arg.ref}) {why}"
            args.append(Argument(arg.role, gold))
        trigger = None
        if item.trigger is not None:
            key = a.member_unit.get((m.source, item.trigger))
            trigger = a.unit_gold.get(key) if key else None
            if trigger is None:
                return f"trigger ({key or item.trigger}) has no gold item yet: resolve it first"
        return replace(item, args=tuple(args), trigger=trigger, extra=_layout_extra(item))
    if isinstance(item, Link):
        ends = []
        for ref in (item.source, item.target):
            key = a.member_unit.get((m.source, ref))
            gold = a.unit_gold.get(key) if key else None
            if gold is None:
                return f"link end {key or ref} has no gold item yet: resolve it first"
            ends.append(gold)
        return replace(item, source=ends[0], target=ends[1], group=None, extra=_layout_extra(item))
    if isinstance(item, Entity):
        members = []
        for ref in item.members:
            key = a.member_unit.get((m.source, ref))
            gold = a.unit_gold.get(key) if key else None
            if gold is not None:
                members.append(gold)
            elif key not in a.unit_decision:  # a member refused is left out; one undecided waits
                return f"member {key or ref} has no gold item yet: resolve it first"
        if not members:
            return "every member was refused"
        # a cluster of symmetric links stays one: gold keeps its link type (brat writes one * line)
        return replace(
            item, members=tuple(members), extra={k: v for k, v in item.extra.items() if k in _ENTITY_EXTRA}
        )
    if isinstance(item, Span):
        return replace(item, extra=_layout_extra(item))
    return item


def _placed_as(item: Item, ref: Item | None) -> Item:
    """``item`` at the place the corpus source's version of its unit (``ref``) has in the corpus's
    files: its file, line and ``E`` prefix, and its A/M lines'. A line number is a position in that
    source's files only, so an item the corpus source lacks loses it (it goes after the corpus's lines
    of its file) instead of landing among them by another source's numbering."""
    extra = dict(item.extra)  # type: ignore[union-attr]
    theirs = ref.extra if ref is not None else {}  # type: ignore[union-attr]
    for k in ("file", "line", "prefix"):
        if theirs.get(k) is not None:
            extra[k] = theirs[k]
        elif k == "line":
            extra.pop(k, None)
    if extra.get("attrs"):
        placed = theirs.get("attrs") or {}
        extra["attrs"] = {
            name: placed.get(name) or {k: v for k, v in entry.items() if k != "line"}
            for name, entry in extra["attrs"].items()
        }
    return item if extra == item.extra else replace(item, extra=extra)  # type: ignore[union-attr, type-var]


def _layout_extra(item: Span | Relation | Link) -> dict[str, str]:
    """What of a source item's standoff extras gold keeps: its file (``a1``/``a2``), line and ``E``
    prefix, so gold agreed by everyone is written as the corpus's own lines in their order (an item
    from another source, or made in the TUI, goes after them); spacing and ``*`` groups are the
    source's own and are dropped (an n-member ``*`` line comes back as pairs)."""
    return {k: item.extra[k] for k in ("prefix", "file", "line", "attrs") if item.extra.get(k)}


def _auto(u: Unit, n: int, threshold: int | None) -> tuple[str, list[Member] | None] | None:
    """(method, winning members or None for "refuse") when a unit can be decided without a person."""
    if n == 0:
        return None
    per_source = Counter(m.source for m in u.members)
    if any(c > 1 for c in per_source.values()):
        return None  # a source holds two versions: a person must look
    if units.is_agreed(u, n):
        return "unanimous", list(u.members)
    if threshold is None:
        return None
    grp = units.groups(u)
    top = len({m.source for m in grp[0][1]}) if grp else 0
    second = len({m.source for m in grp[1][1]}) if len(grp) > 1 else 0
    absent = n - len(per_source)
    if top >= threshold and top > second and top > absent:
        return ("unanimous" if top == n else "majority"), grp[0][1]
    if absent >= threshold and absent > top:
        return "majority", None
    return None


def _refs(a: Analysis, ms: Sequence[Member]) -> list[SourceRef]:
    return [units.ref_of(a.sources, m) for m in ms]


def _all_refs(a: Analysis, u: Unit) -> list[SourceRef]:
    return _refs(a, u.members) + [units.absent_ref(a.sources, i) for i in units.missing_sources(u, a.n)]


def _decide(a: Analysis, svc: ServiceBase, gold: _Gold, u: Unit, method: str, item: Item | None,
            sources: Sequence[SourceRef], reason: str | None, *, before: Item | None = None,
            replaces: DecisionInfo | None = None) -> DecisionInfo:  # fmt: skip
    """Put the item into gold (None: refuse it) and queue its decision; written by ``_write``.

    ``replaces``: the decision in force this one revises (its gold item is replaced in place, keeping
    its id, or removed with what rests on it when this one refuses). ``before``: for ``edited``, the
    version it was edited from (stored with the gold version put as before/after).
    """
    old_id = replaces.item_id if replaces is not None and replaces.item_id else None
    ref = next((m.item for m in u.members if m.source == gold.ref), None) if gold.keep_ids else None
    if item is not None and gold.keep_ids and not isinstance(item, DocLabel):
        item = _placed_as(item, ref)
    if old_id and item is not None and u.kind != "label":
        local = gold.put(item, old_id)
    else:
        if old_id:
            _retract(a, svc, gold, u.kind, old_id, f"{u.key} was revised")
        prefer = ref.id if ref is not None and not isinstance(ref, DocLabel) else None
        local = gold.add(item, prefer) if item is not None else ""
    src = [s.to_dict() for s in sources]
    after = gold.find(u.kind, local) if local else None
    if method == "edited":
        extra = (item_to_json(before) if before is not None else None, item_to_json(after) if after else None)
    else:
        extra = ()
    gold.decisions.append((u.kind, local, method, svc.actor.id, src, reason, *extra))
    if replaces is not None and replaces.id:
        gold.superseded.append((replaces.id, len(gold.decisions) - 1))
    info = DecisionInfo(
        0, a.document, u.kind, local, method, svc.actor.name, tuple(src), reason, utcnow_aware(),
        before=extra[0] if extra else None, after=extra[1] if extra else None,
    )  # fmt: skip
    a.note_decision(u.key, info)
    return info


def _retract(a: Analysis, svc: ServiceBase, gold: _Gold, kind: str, local_id: str, why: str) -> list[str]:
    """Take a gold item out with everything resting on it; each dependent's decision is undone
    (an ``undone`` record superseding it), so its conflict is open (or merged again) afterwards.
    Returns the dependents' ids."""
    gone: list[str] = []
    if kind != "label":
        for dkind, did in gold.dependents(local_id):
            item = gold.remove(dkind, did)
            gone.append(did)
            _undo_record(a, svc, gold, dkind, did, item, f"{why}: it rested on {local_id}")
    gold.remove(kind, local_id)
    return gone


def _undo_record(a: Analysis, svc: ServiceBase, gold: _Gold, kind: str, local_id: str, item: Item | None,
                 reason: str | None, which: tuple[str, DecisionInfo] | None = None) -> DecisionInfo | None:  # fmt: skip
    """Queue an ``undone`` record superseding the decision in force that made ``local_id`` and
    reopen its unit in the analysis (None when no decision made it, e.g. an imported item).
    ``which``: the unit and decision when known (a refusal has no gold id to find it by)."""
    kinds = (kind, "link") if kind == "entity" else (kind,)  # gold keeps a link cluster as an entity
    key, old = which or next(
        ((k, d) for k, d in a.unit_decision.items() if d.item_kind in kinds and d.item_id == local_id),
        (None, None),
    )
    if old is None:
        old = next((d for d in reversed(a.decisions) if d.in_force and d.item_kind in kinds and d.item_id == local_id),
                   None)  # fmt: skip
    if old is not None:
        kind = old.item_kind
    src = list(old.sources) if old is not None else []
    before = item_to_json(item) if item is not None else None
    gold.decisions.append((kind, local_id, "undone", svc.actor.id, src, reason, before, None))
    if old is not None and old.id:
        gold.superseded.append((old.id, len(gold.decisions) - 1))
    if key is not None:
        a.unit_decision.pop(key, None)
        a.unit_gold.pop(key, None)
    return DecisionInfo(0, a.document, kind, local_id, "undone", svc.actor.name, tuple(src), reason, utcnow_aware(),
                        before=before)  # fmt: skip


def _write(a: Analysis, gold: _Gold, status: str | None = None) -> store.GoldWrite:
    """The gold set's new state; its status stays as it is (a new gold set is ``in_progress``):
    only ``finish_gold`` finishes gold (status ``submitted``), only a lead's ``reopen`` unfinishes it."""
    status = status or (a.gold.status if a.gold else "in_progress")
    return store.GoldWrite(
        a.doc_id, a.gold.id if a.gold else None, status, a.gold.status if a.gold else None,
        gold.annotations(), gold.changed, gold.decisions, gold.superseded, a.gold.version if a.gold else None,
    )  # fmt: skip


RETRIES = 5
"""How often a write built on a reading another writer's commit overtook is read and built again:
each retry follows someone else's progress, so a few are enough (then ``GoldRaced``, exit 6)."""


def settled(attempt: Callable[[], T]) -> T:
    """Run ``attempt`` (one whole write transaction: read, decide, write) again while another
    writer's commit overtook its reading (``store.GoldRaced``): the new reading sees their decisions,
    so the loser of a race is told what was decided (``DecidedMeanwhile``) instead of overwriting it."""
    for _ in range(RETRIES - 1):
        try:
            return attempt()
        except store.GoldRaced:
            continue
    return attempt()


def refuse_decided(a: Analysis, key: str, done: DecisionInfo, actor: str | None) -> None:
    """Deciding a decided conflict is a revision only when asked for (``revise``): without it, the
    caller did not know of that decision (another adjudicator's, made since they looked), which is kept."""
    what = f"gold {done.item_id}" if done.item_id else "refused"
    when = f"{done.created:%Y-%m-%d %H:%M:%S} UTC" if done.created else ""
    said = (
        "already decided by you"
        if done.decided_by == actor
        else f"decided meanwhile by {done.decided_by or 'the owner'}"
    )
    raise DecidedMeanwhile(
        f"{key} on {a.document} was {said} ({done.method}, {what}; decision {done.id}, {when}): that decision "
        "is kept; to change it, decide again with --revise (revise=True)",
        done.decided_by, done.id, done.method,
    )  # fmt: skip


def is_finished(a: Analysis) -> bool:
    """The document's gold was finished: decisions are frozen, only corrections change it."""
    return a.gold is not None and a.gold.status == "submitted"


def refuse_finished(a: Analysis, doing: str) -> None:
    if is_finished(a):
        raise Conflict(
            f"the gold of {a.document} is finished: cannot {doing}; change it with `corpusdb correct`, "
            f"or a lead reopens it (`corpusdb reopen {a.gold.id if a.gold else ''} --reason ...`)"
        )


def check_expected(conn: Connection, a: Analysis, expected_version: int | None) -> None:
    """A revision made on a stale picture of gold loses the race, as every other write does (the gold
    set's row is locked first, so two writers cannot both pass)."""
    if expected_version is not None and a.gold is not None:
        now = lock_set(conn, a.gold.id)
        if now != expected_version:
            raise StaleVersion(a.gold.id, expected_version, now)


def _origin(a: Analysis, u: Unit, item: Item, chosen: Member | None
            ) -> tuple[str, Item | None, list[Member]]:  # fmt: skip
    """How an adjudicator's item relates to the sources: (``adjudicated``, the version, its holders)
    when it equals a source's version, else (``edited``, the version it was edited from, its holders):
    the one named (``chosen``), or the closest (same boundaries/type/arguments first)."""
    versions: list[tuple[Item, list[Member]]] = []
    for _, ms in units.groups(u):
        m = _materialise(a, ms[0])
        if not isinstance(m, str):
            versions.append((m, ms))
    target = _content(item) if not isinstance(item, DocLabel) else (item.name, item.value)
    for v, ms in versions:
        if (_content(v) if not isinstance(v, DocLabel) else (v.name, v.value)) == target and (
            chosen is None or chosen in ms
        ):
            return "adjudicated", v, ms
    if chosen is not None:
        ms = next(g for _, g in units.groups(u) if chosen in g)
        m = _materialise(a, chosen)
        return "edited", (None if isinstance(m, str) else m), ms
    if not versions:
        return "edited", None, list(u.members)

    def near(v: Item) -> tuple[int, ...]:
        if isinstance(v, Span) and isinstance(item, Span):
            return (v.fragments != item.fragments, v.type != item.type)
        if isinstance(v, Relation) and isinstance(item, Relation):
            return (v.args != item.args, v.type != item.type, v.label != item.label)
        return (getattr(v, "type", None) != getattr(item, "type", None),)

    v, ms = min(versions, key=lambda vm: near(vm[0]))
    return "edited", v, ms


def with_text(item: Item, text: str) -> Item:
    """A span given without its text (``--item '{"type": ..., "fragments": ...}'``) gets the
    document's words, so gold never holds a span whose text is empty."""
    if isinstance(item, Span) and not item.text and item.fragments:
        return replace(item, text=" ".join(text[x:y] for x, y in item.fragments))
    return item


def _open_count(a: Analysis) -> int:
    return sum(1 for u in a.units if a.is_open(u))


class AdjudicationMixin(ServiceBase):
    """Gold sets: auto-merge, resolving conflicts, decisions (adjudicators and leads)."""

    def merge(
        self,
        document: str | int | None = None,
        *,
        threshold: int | None = None,
        criterion: str = "exact",
        types: str = "required",
        sources: Sequence[str | int] | None = None,
        progress: Progress | None = None,
    ) -> list[MergeResult]:
        """Merge agreed items into gold on one document, or on every ready document (all or nothing).

        ``threshold=k`` also accepts a version held by at least k sources (``majority``).
        """
        self._require("lead", "adjudicator", doing="merge annotations into gold")
        if threshold is not None and threshold < 1:
            raise UsageError(f"the threshold must be at least 1, got {threshold}")
        return settled(lambda: self._merge_all(document, threshold, criterion, types, sources, progress))

    def _merge_all(self, document: str | int | None, threshold: int | None, criterion: str, types: str,
                   sources: Sequence[str | int] | None, progress: Progress | None) -> list[MergeResult]:  # fmt: skip
        schema = self.schema()  # type: ignore[attr-defined]
        out: list[MergeResult] = []
        with self._write() as conn:
            found = analyse_many(conn, self.project_id, self.actor, None if document is None else [document],
                                 schema, criterion=criterion, types=types, sources=sources)  # fmt: skip
            writes: list[store.GoldWrite] = []
            for i, a in enumerate(found):
                if a.n:
                    res, w = self._merge_one(a, threshold)
                    out.append(res)
                    if w.set_id is None or w.changed or w.status != w.old_status or w.decisions:
                        writes.append(w)
                if progress is not None:
                    progress(i + 1, len(found))
            store.write_golds(conn, self.project_id, writes)
            gold_ids = {w.doc_id: w.set_id for w in writes}
            out = [replace(r, gold_set_id=gold_ids.get(a.doc_id) or r.gold_set_id)
                   for r, a in zip(out, [a for a in found if a.n], strict=True)]  # fmt: skip
            self._audit(conn, "merge", str(document or "*"), documents=len(out), threshold=threshold,
                        criterion=criterion)  # fmt: skip
        return out

    def _merge_one(self, a: Analysis, threshold: int | None) -> tuple[MergeResult, store.GoldWrite]:
        gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
        added, rejected, kept = self._auto_pass(a, gold, threshold)
        open_ = _open_count(a)
        # a merge never finishes gold; finished gold (an imported one) stays so unless sources added since
        # leave open conflicts: then it is in progress again
        w = _write(a, gold, "in_progress" if open_ else None)
        return MergeResult(a.document, a.gold.id if a.gold else 0, dict(added), rejected, kept, open_,
                           gold.existing), w  # fmt: skip

    def _auto_pass(self, a: Analysis, gold: _Gold, threshold: int | None) -> tuple[Counter[str], int, int]:
        """Decide every undecided unit that needs no person; spans come before what points at them."""
        added: Counter[str] = Counter()
        rejected = kept = 0
        for u in a.units:
            if u.key in a.unit_decision:
                kept += 1
                continue
            auto = _auto(u, a.n, threshold)
            if auto is None:
                continue
            method, winners = auto
            if winners is None:
                _decide(a, self, gold, u, method, None, _all_refs(a, u),
                        f"auto-merge: at least {threshold} of {a.n} sources have no such item")  # fmt: skip
                rejected += 1
                continue
            item = _materialise(a, winners[0])
            if isinstance(item, str):
                continue  # an argument is undecided or refused: wait, or a person decides
            n_agree = len({m.source for m in winners})
            before = gold.existing
            _decide(
                a,
                self,
                gold,
                u,
                method,
                item,
                _refs(a, winners),
                f"auto-merge: {n_agree} of {a.n} sources agree",
            )
            if gold.existing == before:
                added[method] += 1
        return added, rejected, kept

    def resolve(
        self,
        document: str | int,
        key: str,
        *,
        take: str | int | None = None,
        item: Item | None = None,
        reject: bool = False,
        reason: str | None = None,
        criterion: str = "exact",
        types: str = "required",
        sources: Sequence[str | int] | None = None,
        expected_version: int | None = None,
        revise: bool = False,
    ) -> Resolution:
        """Decide one conflict: ``take`` a source's version (annotator name, ``name:localid`` or set
        id), put an edited ``item`` (relation arguments and link ends name *gold* span ids; with
        ``take`` too: the source it was edited from), or ``reject`` them all. Use the same
        criterion/types/sources as the ``conflicts`` call that gave the key.

        A decided conflict is refused (``DecidedMeanwhile``, naming who decided it: that decision is
        kept) unless ``revise``: then it is decided again (a revision: the old decision is kept,
        superseded; the gold item keeps its id) until the gold is finished. Two adjudicators deciding
        it at once: the gold set's version is compared and set in the write, so the later one reads
        again and is refused. An item that differs from every source's version is recorded as
        ``edited`` with before/after; one equal to a version as ``adjudicated``.
        ``expected_version``: the gold set's version the caller saw (StaleVersion when it moved on).
        """
        self._require("lead", "adjudicator", doing="resolve conflicts")
        if (item is None and sum(x is not None and x is not False for x in (take, reject or None)) != 1) or (
            item is not None and reject
        ):
            raise UsageError("resolve needs exactly one of: take=SOURCE, item=ITEM, reject=True")
        return settled(lambda: self._resolve_once(
            document, key, take, item, reject, reason, criterion, types, sources, expected_version, revise
        ))  # fmt: skip

    def _resolve_once(self, document: str | int, key: str, take: str | int | None, item: Item | None,
                      reject: bool, reason: str | None, criterion: str, types: str,
                      sources: Sequence[str | int] | None, expected_version: int | None,
                      revise: bool) -> Resolution:  # fmt: skip
        schema = self.schema()  # type: ignore[attr-defined]
        with self._write() as conn:
            a = analyse(conn, self.project_id, self.actor, document, schema, criterion=criterion, types=types,
                        sources=sources)  # fmt: skip
            u = a.unit(key)
            if u is None:
                raise NotFound(
                    f"no item with key {key!r} on document {a.document} (list them with `corpusdb conflicts`)"
                )
            done = a.unit_decision.get(u.key)
            if done is not None:
                refuse_finished(a, f"revise the decision on {key}")
                if not revise:
                    refuse_decided(a, key, done, self.actor.name)
            check_expected(conn, a, expected_version)
            gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
            if reject:
                dec = _decide(a, self, gold, u, "adjudicated", None, _all_refs(a, u), reason, replaces=done)
            elif item is not None:
                item = with_text(item, a.text)
                if _kind(item) != u.kind:
                    raise InvalidInput(f"{key} is a {u.kind}; the edited item is a {_kind(item)}")
                if isinstance(item, Relation):
                    ids = (
                        {s.id for s in gold.spans}
                        | {r.id for r in gold.relations}
                        | {e.id for e in gold.entities}
                    )
                    bad = [x.ref for x in item.args if x.ref not in ids]
                    if bad:
                        raise InvalidInput(
                            f"the edited relation points at {bad[0]!r}, which is not a gold item"
                        )
                method, origin, same = _origin(a, u, item, None if take is None else self._chosen(a, u, take))
                dec = _decide(a, self, gold, u, method, item, _refs(a, same), reason, before=origin,
                              replaces=done)  # fmt: skip
            else:
                chosen = self._chosen(a, u, take)  # type: ignore[arg-type]
                if chosen is None:  # that source has nothing here: taking its version refuses the item
                    dec = _decide(
                        a, self, gold, u, "adjudicated", None, _all_refs(a, u), reason, replaces=done
                    )
                else:
                    new = _materialise(a, chosen)
                    if isinstance(new, str):
                        raise Conflict(f"cannot take {key} yet: {new}")
                    same = next(g for _, g in units.groups(u) if chosen in g)
                    dec = _decide(a, self, gold, u, "adjudicated", new, _refs(a, same), reason, replaces=done)
            first = len(gold.decisions) - 1  # _decide queues undone dependents first, its decision last
            undone = tuple(str(d[1]) for d in gold.decisions[:first] if d[2] == "undone")
            self._auto_pass(a, gold, None)  # agreed relations whose spans are now in gold follow them
            open_ = _open_count(a)
            [ids] = store.write_golds(conn, self.project_id, [_write(a, gold)])
            dec = replace(dec, id=ids[first])
            self._audit(conn, "resolve", f"{a.document} {key}", decision=dec.id, reason=reason,
                        revised=done.id if done is not None else None)  # fmt: skip
        return Resolution(a.document, key, dec.item_id or None, dec, open_, undone, done.id if done else None)

    def _chosen(self, a: Analysis, u: Unit, take: str | int) -> Member | None:
        spec = str(take)
        name, _, local = spec.partition(":")
        idx = [
            i for i, s in enumerate(a.sources)
            if (name.isdigit() and s.ref.set_id == int(name)) or s.ref.annotator == name
        ]  # fmt: skip
        if not idx:
            names = ", ".join(f"{s.ref.annotator} (set {s.ref.set_id})" for s in a.sources)
            raise NotFound(f"{name!r} is not a source of {a.document} (sources: {names})")
        ms = [
            m
            for m in u.members
            if m.source in idx and (not local or units.ref_of(a.sources, m).local_id == local)
        ]
        if len(ms) > 1:
            ids = ", ".join(units.ref_of(a.sources, m).local_id for m in ms)
            raise UsageError(f"{name} has several versions of {u.key} ({ids}): take NAME:LOCALID")
        return ms[0] if ms else None

    # -- reading ---------------------------------------------------------------------------------
    def decisions(self, document: str | int | None = None) -> list[DecisionInfo]:
        """The provenance of gold: every decision, oldest first (an empty ``item_id`` is a refusal)."""
        self._require("lead", "adjudicator", doing="read adjudication decisions")
        from corpusdb.services import access

        with self._read() as conn:
            docs = None
            if document is not None:
                docs = [store.document_row(conn, self.project_id, document)[0]]
            golds = access.visible_sets(conn, self.project_id, self.actor, document_ids=docs, kind="gold")
            return store.load_decisions(conn, [g.id for g in golds])

    def gold(self, document: str | int) -> AnnotationSet:
        """The gold set of a document (NotFound before any merge)."""
        self._require("lead", "adjudicator", doing="read gold sets")
        with self._read() as conn:
            doc_id, ext, _ = store.document_row(conn, self.project_id, document)
            info = store.gold_info(conn, self.project_id, self.actor, doc_id)
            if info is None:
                raise NotFound(f"document {ext} has no gold set yet (run `corpusdb adjudicate`)")
            return read_contents(conn, [info])[0]
