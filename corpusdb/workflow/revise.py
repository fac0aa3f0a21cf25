"""Revisable gold: undo a decision, edit/add/remove gold items directly, finish a document's gold.

Why a module of its own: until an adjudicator says a document's gold is finished, every decision may
be changed (``resolve`` again) or undone, and gold items may be edited by hand; each change is a new
decision and the one it replaces is kept, marked superseded (``decisions`` shows the history). A
finished gold (set status ``submitted``) is frozen: after that only ``correct`` changes it, or a lead
``reopen``s the gold set. Finishing checks like ``submit`` does: no open or blocked conflict, no
schema error (unless forced).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, UsageError
from corpusdb.basics.records import DecisionInfo, DocLabel, Entity, Link, Relation
from corpusdb.services import access
from corpusdb.services.base import utcnow_aware
from corpusdb.services.items import item_to_json
from corpusdb.workflow import store
from corpusdb.workflow.adjudication import (
    AdjudicationMixin,
    _Gold,
    _kind,
    _open_count,
    _retract,
    _undo_record,
    _used_ids,
    _write,
    check_expected,
    is_finished,
    refuse_finished,
    settled,
    with_text,
)
from corpusdb.workflow.conflicts import Analysis, analyse, analyse_many
from corpusdb.workflow.types import Item, Resolution, _ToDict, open_summary
from guidelines.derive import derived_line, derived_listing
from guidelines.validate import Violation, errors, validate


@dataclass(frozen=True, slots=True)
class GoldCheck(_ToDict):
    """Whether a document's gold can be finished, and what stands in the way."""

    document: str
    gold_set_id: int | None
    finished: bool
    """The gold is finished (after ``finish_gold``: it has just been)."""
    open: tuple[str, ...]
    """Keys of the conflicts a person must still decide (``conflicts`` counts the same ones)."""
    blocked: tuple[tuple[str, str], ...]
    """(key, why) of undecided items waiting for an argument."""
    violations: tuple[Violation, ...]
    """Schema violations of the gold content (errors refuse finishing unless forced)."""
    waiting: tuple[tuple[str, str], ...] = ()
    """(key, the open conflict it waits on) of agreed items that follow that conflict into gold."""
    decide: tuple[tuple[str, ...], ...] = ()
    """Per violation, the keys of the conflicts whose decisions put its items into gold: revise them."""
    derived: tuple[Mapping[str, object], ...] = ()
    """What the schema's rules derive from this gold (``guidelines.derive.derived_listing``): never
    gold items; a release writes them marked derived with their rule (``derived.json``, BioRelEx)."""

    @property
    def ok(self) -> bool:
        return not self.open and not self.waiting and not errors(list(self.violations))

    def summary(self) -> str:
        """One line for a person: ready, or what stands in the way."""
        if self.ok:
            warn = len(self.violations) - len(errors(list(self.violations)))
            return f"{self.document}: gold can be finished" + (f" ({warn} schema warning(s))" if warn else "")
        return f"{self.document}: {self.reason()}"

    def reason(self) -> str:
        """Why the gold cannot be finished, in one line, naming the conflict key to decide first."""
        parts = []
        if self.open or self.waiting:
            first = self.open[0] if self.open else self.waiting[0][1]
            parts.append(f"{open_summary(len(self.open), dict(self.waiting))}: decide {first} first")
        errs = [i for i, v in enumerate(self.violations) if v.severity == "error"]
        if errs:
            v = self.violations[errs[0]]
            keys = self.decide[errs[0]] if len(self.decide) > errs[0] else ()
            where = f"{v.item_kind} {v.item_id}" if v.item_id else v.item_kind
            parts.append(f"{len(errs)} schema error(s), the first: {where}: {v.message}"
                         + (f"; revise {keys[0]} (--revise) or finish with --ignore-schema" if keys else ""))  # fmt: skip
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "document": self.document, "gold_set_id": self.gold_set_id, "finished": self.finished,
            "ok": self.ok, "open": list(self.open), "waiting": dict(self.waiting),
            "blocked": [list(b) for b in self.blocked],
            "violations": [{"severity": v.severity, "code": v.code, "item_kind": v.item_kind,
                            "item_id": v.item_id, "message": v.message,
                            "decide": list(self.decide[i]) if i < len(self.decide) else []}
                           for i, v in enumerate(self.violations)],
            "derived": [dict(d) for d in self.derived],
        }  # fmt: skip


@dataclass(frozen=True, slots=True)
class FinishReport(_ToDict):
    """What finishing every ready document's gold did (``dry_run``: would do), and why the rest not."""

    finished: tuple[GoldCheck, ...]
    """Finished by this call (``dry_run``: that can be finished)."""
    already: tuple[str, ...]
    """Documents whose gold was finished before."""
    refused: tuple[GoldCheck, ...]
    """Ready documents whose gold cannot be finished: each check says why (``reason()``)."""
    not_ready: tuple[tuple[str, str], ...]
    """(document, why) of documents some of whose annotation sets are not submitted yet."""
    dry_run: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {
            "finished": [c.to_dict() for c in self.finished], "already": list(self.already),
            "refused": [{**c.to_dict(), "reason": c.reason()} for c in self.refused],
            "not_ready": [{"document": d, "reason": r} for d, r in self.not_ready], "dry_run": self.dry_run,
        }  # fmt: skip


class GoldNotFinished(Conflict):
    """``finish_gold`` (or ``check_gold``'s caller) found open conflicts or schema errors; ``check``
    says which. The message is the one line a person reads: what stands in the way, the key to decide."""

    def __init__(self, check: GoldCheck) -> None:
        super().__init__(f"cannot finish the gold of {check.document}: {check.reason()}")
        self.check = check


def decided_keys(a: Analysis, gold: _Gold, v: Violation) -> tuple[str, ...]:
    """The conflict keys behind a schema violation: the unit of the offending gold item and of the
    items it points at, those a person decided first (``PartOf`` breaks because a span was taken as
    ``Environment``: revise that span's conflict)."""
    if not v.item_id:
        return ()
    ids = [v.item_id]
    item = gold.find(v.item_kind, v.item_id) if v.item_kind != "set" else None
    if isinstance(item, Relation):
        ids += [x.ref for x in item.args] + ([item.trigger] if item.trigger else [])
    elif isinstance(item, Link):
        ids += [item.source, item.target]
    elif isinstance(item, Entity):
        ids += list(item.members)
    by_id = {gid: k for k, gid in a.unit_gold.items()}
    keys = [by_id[i] for i in ids if i in by_id]
    by_person = [k for k in keys if a.unit_decision[k].method not in ("unanimous", "majority")]
    return tuple(dict.fromkeys(by_person or keys))


def _unit_of(a: Analysis, kind: str, local_id: str) -> tuple[str | None, DecisionInfo | None]:
    """(unit key, decision in force) of the gold item ``local_id`` (gold keeps a link cluster as an
    entity; its decision says ``link``)."""
    kinds = (kind, "link") if kind == "entity" else (kind,)
    for k, d in a.unit_decision.items():
        if d.item_kind in kinds and d.item_id == local_id:
            return k, d
    d = next(
        (d for d in reversed(a.decisions) if d.in_force and d.item_kind in kinds and d.item_id == local_id),
        None,
    )
    return None, d


class RevisionMixin(AdjudicationMixin):
    """Undoing decisions, editing gold by hand and finishing gold (adjudicators and leads)."""

    def _analyse_for_change(self, conn: Any, document: str | int, doing: str, expected_version: int | None,
                            criterion: str = "exact", types: str = "required",
                            sources: Sequence[str | int] | None = None) -> Analysis:  # fmt: skip
        schema = self.schema()  # type: ignore[attr-defined]
        a = analyse(conn, self.project_id, self.actor, document, schema, criterion=criterion, types=types,
                    sources=sources)  # fmt: skip
        refuse_finished(a, doing)
        check_expected(conn, a, expected_version)
        return a

    def undo_decision(
        self,
        document: str | int,
        key: str,
        *,
        reason: str | None = None,
        criterion: str = "exact",
        types: str = "required",
        sources: Sequence[str | int] | None = None,
        expected_version: int | None = None,
    ) -> Resolution:
        """Undo the decision on conflict ``key``: its gold item leaves gold, the conflict is open again.

        What rests on the item (a relation on an undone span, a link ending on it) leaves gold too and
        its decision is undone (``Resolution.undone`` lists them): such a relation is blocked again
        until the span is decided. The undone decision is kept, superseded by an ``undone`` record.
        An agreed item undone is merged back by the next ``merge``.
        """
        self._require("lead", "adjudicator", doing="undo decisions")
        with self._write() as conn:
            a = self._analyse_for_change(conn, document, f"undo the decision on {key}", expected_version,
                                         criterion, types, sources)  # fmt: skip
            u = a.unit(key)
            if u is None:
                raise NotFound(
                    f"no item with key {key!r} on document {a.document} (list them with `corpusdb conflicts`)"
                )
            done = a.unit_decision.get(u.key)
            if done is None:
                raise Conflict(f"{key} on {a.document} is not decided: nothing to undo")
            gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
            undone: list[str] = []
            item = gold.find(u.kind, done.item_id) if done.item_id else None
            if done.item_id:
                undone = _retract(a, self, gold, u.kind, done.item_id, f"{key} was undone")
            dec = _undo_record(a, self, gold, u.kind, done.item_id, item, reason, (u.key, done))
            open_ = _open_count(a)
            [ids] = store.write_golds(conn, self.project_id, [_write(a, gold)])
            dec = DecisionInfo(ids[-1], a.document, u.kind, done.item_id, "undone", self.actor.name,
                               done.sources, reason, utcnow_aware(), before=dec.before if dec else None)  # fmt: skip
            self._audit(conn, "undo", f"{a.document} {key}", decision=done.id, undone=undone, reason=reason)
        return Resolution(a.document, key, None, dec, open_, tuple(undone))

    def edit_gold(
        self,
        document: str | int,
        item_id: str,
        item: Item,
        *,
        reason: str | None = None,
        expected_version: int | None = None,
    ) -> Resolution:
        """Replace gold item ``item_id`` (a label: its name) by ``item``, keeping the id; recorded as
        ``edited`` with before/after and the sources of the decision it revises."""
        self._require("lead", "adjudicator", doing="edit gold")
        kind = _kind(item)
        with self._write() as conn:
            a = self._analyse_for_change(conn, document, f"edit {item_id}", expected_version)
            gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
            old = gold.find(kind, item_id)
            if old is None:
                raise NotFound(f"the gold of {a.document} has no {kind} {item_id!r}")
            item = with_text(item, a.text)
            if isinstance(item, DocLabel) and item.name != item_id:
                raise InvalidInput(f"a label keeps its name: {item.name!r} is not {item_id!r}")
            self._check_refs(gold, item)
            key, done = _unit_of(a, kind, item_id)
            gold.put(item, item_id)
            self._check_schema(a, gold, kind, item_id)
            src = list(done.sources) if done is not None else []
            before, after = item_to_json(old), item_to_json(gold.find(kind, item_id))  # type: ignore[arg-type]
            kind = done.item_kind if done is not None else kind  # a link cluster's decision says link
            return self._record(
                conn, a, gold, key or item_id, kind, item_id, src, reason, before, after, done, "edit"
            )

    def add_gold(
        self,
        document: str | int,
        item: Item,
        *,
        reason: str | None = None,
        expected_version: int | None = None,
    ) -> Resolution:
        """Put a new item into gold (a fresh gold id; relation arguments name gold ids), recorded as
        ``edited`` from no source (before None)."""
        self._require("lead", "adjudicator", doing="edit gold")
        kind = _kind(item)
        with self._write() as conn:
            a = self._analyse_for_change(conn, document, "add an item", expected_version)
            gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
            item = with_text(item, a.text)
            if isinstance(item, DocLabel):
                if gold.find("label", item.name) is not None:
                    raise Conflict(f"gold already has the label {item.name}: edit it instead")
                local = gold.put(item, item.name)
            else:
                self._check_refs(gold, item)
                local = gold.fresh(kind)
                gold.taken.add(local)
                gold.put(item, local)
            self._check_schema(a, gold, kind, local)
            after = item_to_json(gold.find(kind, local))  # type: ignore[arg-type]
            return self._record(conn, a, gold, local, kind, local, [], reason, None, after, None, "add")

    def remove_gold(
        self,
        document: str | int,
        item_id: str,
        *,
        kind: str | None = None,
        reason: str | None = None,
        expected_version: int | None = None,
    ) -> Resolution:
        """Take gold item ``item_id`` out (``kind`` when ids could be ambiguous, ``label`` for a label
        name), recorded as ``edited`` with before and no after; the conflict it settled stays decided
        (as refused). What rests on it leaves too, its decisions undone (``Resolution.undone``)."""
        self._require("lead", "adjudicator", doing="edit gold")
        with self._write() as conn:
            a = self._analyse_for_change(conn, document, f"remove {item_id}", expected_version)
            gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
            kinds = [kind] if kind else ["span", "relation", "link", "entity", "label"]
            found = [(k, gold.find(k, item_id)) for k in kinds]
            found = [(k, x) for k, x in found if x is not None]
            if not found:
                raise NotFound(f"the gold of {a.document} has no {kind or 'item'} {item_id!r}")
            k, old = found[0]
            key, done = _unit_of(a, k, item_id)
            undone = _retract(a, self, gold, k, item_id, f"{item_id} was removed")
            src = list(done.sources) if done is not None else []
            k = done.item_kind if done is not None else k
            res = self._record(conn, a, gold, key or item_id, k, item_id, src, reason, item_to_json(old), None,
                               done, "remove")  # type: ignore[arg-type]  # fmt: skip
            return Resolution(res.document, res.key, None, res.decision, res.open, tuple(undone))

    def _record(self, conn: Any, a: Analysis, gold: _Gold, key: str, kind: str, local: str, src: list[Any],
                reason: str | None, before: Any, after: Any, done: DecisionInfo | None,
                action: str) -> Resolution:  # fmt: skip
        gold.decisions.append((kind, local, "edited", self.actor.id, src, reason, before, after))
        if done is not None and done.id:
            gold.superseded.append((done.id, len(gold.decisions) - 1))
        [ids] = store.write_golds(conn, self.project_id, [_write(a, gold)])
        dec = DecisionInfo(ids[-1], a.document, kind, local, "edited", self.actor.name, tuple(src), reason,
                           utcnow_aware(), before=before, after=after)  # fmt: skip
        self._audit(conn, f"gold_{action}", f"{a.document} {kind} {local}", decision=dec.id, reason=reason)
        if done is not None and key in a.unit_decision:
            a.unit_decision[key] = dec
        return Resolution(a.document, key, local if after is not None else None, dec, _open_count(a))

    @staticmethod
    def _check_refs(gold: _Gold, item: Item) -> None:
        if isinstance(item, Relation):
            ids = {s.id for s in gold.spans} | {r.id for r in gold.relations} | {e.id for e in gold.entities}
            bad = [x.ref for x in item.args if x.ref not in ids]
            if bad:
                raise InvalidInput(f"the relation points at {bad[0]!r}, which is not a gold item")
        if hasattr(item, "source") and hasattr(item, "target") and not isinstance(item, DocLabel):
            ids = {s.id for s in gold.spans}
            bad = [x for x in (item.source, item.target) if x not in ids]  # type: ignore[union-attr]
            if bad:
                raise InvalidInput(f"the link points at {bad[0]!r}, which is not a gold span")

    def _check_schema(self, a: Analysis, gold: _Gold, kind: str, local: str) -> None:
        schema = self.schema()  # type: ignore[attr-defined]
        ann = gold.annotations()
        found = validate(schema, ann, a.text) + self.grounding_violations(ann, schema)  # type: ignore[attr-defined]
        bad = [v for v in found if v.severity == "error" and (v.item_kind, v.item_id) == (kind, local)]
        if bad:
            raise InvalidInput(f"the {kind} breaks the schema: {bad[0].message}")

    # -- finishing ----------------------------------------------------------------------------------
    def _check(self, a: Analysis, gold: _Gold) -> GoldCheck:
        n = -1
        while n != len(gold.decisions):  # agreed items not merged yet go in as finishing puts them
            n = len(gold.decisions)  # (again: an item may point at one merged after it)
            self._auto_pass(a, gold, None)
        still = [u for u in a.units if u.key not in a.unit_decision]
        waiting = a.waiting()  # what the others wait on; anything else undecided needs a person
        schema = self.schema()  # type: ignore[attr-defined]
        found = validate(schema, gold.annotations(), a.text) + self.grounding_violations(  # type: ignore[attr-defined]
            gold.annotations(), schema
        )
        return GoldCheck(
            a.document, a.gold.id if a.gold else None, is_finished(a),
            tuple(u.key for u in still if u.key not in waiting),
            tuple((u.key, why) for u in still if (why := a.blocked(u))),
            tuple(found), tuple((u.key, waiting[u.key]) for u in still if u.key in waiting),
            tuple(decided_keys(a, gold, v) for v in found), tuple(derived_listing(schema, gold.annotations())),
        )  # fmt: skip

    def finish_golds(self, *, force: bool = False, dry_run: bool = False, criterion: str = "exact",
                     types: str = "required", sources: Sequence[str | int] | None = None,
                     progress: Callable[[int, int | None, str], None] | None = None) -> FinishReport:  # fmt: skip
        """Finish the gold of every ready document that can be finished (as ``finish_gold`` checks it),
        in one transaction; the others are listed with why (open or waiting conflicts, schema errors
        unless ``force``; documents not ready: who has not submitted). ``dry_run`` writes nothing.
        ``progress(done, total, what)`` is called as the documents are read (total None), checked
        and written."""
        self._require("lead", "adjudicator", doing="check gold" if dry_run else "finish gold")
        schema = self.schema()  # type: ignore[attr-defined]
        tick = progress or (lambda done, total, what: None)

        def attempt() -> FinishReport:
            with self._read() if dry_run else self._write() as conn:
                tick(0, None, "reading the ready documents' sets and gold")
                found = analyse_many(conn, self.project_id, self.actor, None, schema, criterion=criterion,
                                     types=types, sources=sources)  # fmt: skip
                waiting: dict[str, list[str]] = {}
                for h in access.set_headers(conn, self.project_id, self.actor, kind="annotation"):
                    if h.status != "submitted":
                        waiting.setdefault(h.document_external_id, []).append(f"{h.annotator} ({h.status})")
                ok: list[tuple[GoldCheck, store.GoldWrite]] = []
                already: list[str] = []
                refused: list[GoldCheck] = []
                for k, a in enumerate(found):
                    tick(k + 1, len(found), f"checking {a.document}")
                    if not a.n:
                        continue
                    if is_finished(a):
                        already.append(a.document)
                        continue
                    gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
                    check = self._check(a, gold)
                    if check.open or check.waiting or (errors(list(check.violations)) and not force):
                        refused.append(check)
                    else:
                        ok.append((check, _write(a, gold, "submitted")))
                if ok and not dry_run:
                    tick(len(found), len(found), f"writing {len(ok)} finished gold set(s)")
                    store.write_golds(conn, self.project_id, [w for _, w in ok])
                    forced = sum(1 for c, _ in ok if errors(list(c.violations)))
                    self._audit(conn, "finish_gold", "*", documents=len(ok), forced=forced)
            done = tuple(replace(c, finished=not dry_run, gold_set_id=w.set_id) for c, w in ok)
            not_ready = tuple((d, "waiting for " + ", ".join(who)) for d, who in sorted(waiting.items()))
            return FinishReport(done, tuple(already), tuple(refused), not_ready, dry_run)

        return settled(attempt)

    def check_gold(self, document: str | int, *, criterion: str = "exact", types: str = "required",
                   sources: Sequence[str | int] | None = None) -> GoldCheck:  # fmt: skip
        """What ``finish_gold`` would find (nothing is written)."""
        self._require("lead", "adjudicator", doing="check gold")
        schema = self.schema()  # type: ignore[attr-defined]
        with self._read() as conn:
            a = analyse(conn, self.project_id, self.actor, document, schema, criterion=criterion, types=types,
                        sources=sources)  # fmt: skip
            return self._check(a, _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources]))

    def finish_gold(
        self,
        document: str | int,
        *,
        force: bool = False,
        criterion: str = "exact",
        types: str = "required",
        sources: Sequence[str | int] | None = None,
        expected_version: int | None = None,
    ) -> GoldCheck:
        """Finish a document's gold: agreed items not merged yet go in, then it is refused
        (``GoldNotFinished``) while a conflict is open or blocked, or (unless ``force``) while gold
        breaks the schema. Finished gold is frozen (status ``submitted``): releases take it; only
        ``correct`` changes it, or a lead's ``reopen`` of the gold set makes it revisable again."""
        self._require("lead", "adjudicator", doing="finish gold")
        schema = self.schema()  # type: ignore[attr-defined]
        with self._write() as conn:
            a = analyse(conn, self.project_id, self.actor, document, schema, criterion=criterion, types=types,
                        sources=sources)  # fmt: skip
            if is_finished(a):
                raise Conflict(f"the gold of {a.document} is already finished")
            if not a.n:
                raise UsageError(f"{a.document} has no source to adjudicate")
            check_expected(conn, a, expected_version)
            gold = _Gold(a.gold_ann, _used_ids(a), [x.annotations for x in a.sources])
            check = self._check(a, gold)
            if check.open or check.waiting or (errors(list(check.violations)) and not force):
                raise GoldNotFinished(check)
            [ids] = store.write_golds(conn, self.project_id, [_write(a, gold, "submitted")])
            gold_id = a.gold.id if a.gold else None
            if gold_id is None:  # every item agreed and never merged: the set was created just now
                info = store.gold_info(conn, self.project_id, self.actor, a.doc_id)
                gold_id = info.id if info else None
            self._audit(conn, "finish_gold", a.document, decisions=len(ids), forced=bool(force and check.violations),
                        **({"derived": [derived_line(d) for d in check.derived]} if check.derived else {}))  # fmt: skip
        return GoldCheck(a.document, gold_id, True, (), (), check.violations, (), check.decide, check.derived)


def _frags(v: Any) -> str:
    return ";".join(f"{a}-{b}" for a, b in v or ()) or "no mention"


_SHOWN = (
    ("type", str),
    ("fragments", _frags),
    ("label", str),
    ("value", str),
    ("args", lambda v: ",".join(f"{r}={x}" for r, x in v or ())),
    ("source", str),
    ("target", str),
    ("members", lambda v: ",".join(v or ())),
    ("attributes", str),
    ("groundings", str),
    ("tags", str),
)


def change_summary(before: Any, after: Any) -> str:
    """What an edit changed, for a person: ``HostPart → Environment``, ``0-22 → 0-30``."""
    if before is None:
        return "added"
    if after is None:
        return "removed"
    parts = [
        f"{show(before.get(k))} → {show(after.get(k))}" for k, show in _SHOWN if before.get(k) != after.get(k)
    ]
    return ", ".join(parts) or "unchanged"


DECISION_COLUMNS = ("document", "item", "method", "state", "decided by", "when", "provenance", "reason", "id")
"""The columns of ``corpusdb decisions`` (the TUI's decision history shows the same)."""


def decision_row(d: DecisionInfo) -> tuple[str, ...]:
    """One decision as a row of ``DECISION_COLUMNS``: what ``corpusdb decisions`` prints."""
    state = (
        "undo"
        if d.method == "undone"
        else ("in force" if d.superseded_by is None else f"→ {d.superseded_by}")
    )
    return (d.document_external_id, f"{d.item_kind} {d.item_id or '(refused)'}", d.method, state,
            d.decided_by or "owner", f"{d.created:%Y-%m-%d %H:%M}", describe_decision(d), d.reason or "",
            str(d.id))  # fmt: skip


def describe_decision(d: DecisionInfo) -> str:
    """One line of provenance: ``edited from alice:T4 (HostPart → Environment)``, ``adjudicated from
    bob:T2``, ``undone``..."""
    src = ", ".join(
        f"{s.get('annotator') or s.get('set_id')}:{s.get('local_id') or '-'}" if "set_id" in s
        else f"correction {s.get('correction')}" for s in d.sources
    )  # fmt: skip
    if d.method == "edited":
        what = change_summary(d.before, d.after)
        if d.before is None:
            return "added by hand" + (f" (was {src})" if src else "")
        if d.after is None:
            return f"removed by hand (was from {src})" if src else "removed by hand"
        return f"edited from {src} ({what})" if src else f"edited ({what})"
    if d.method == "undone":
        return "undone" + (f" (was from {src})" if src else "")
    return f"{d.method} from {src}" if src else d.method
