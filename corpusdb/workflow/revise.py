"""Revisable gold: undo a decision, edit/add/remove gold items directly, finish a document's gold.

Why a module of its own: until an adjudicator says a document's gold is finished, every decision may
be changed (``resolve`` again) or undone, and gold items may be edited by hand; each change is a new
decision and the one it replaces is kept, marked superseded (``decisions`` shows the history). A
finished gold (set status ``submitted``) is frozen: after that only ``correct`` changes it, or a lead
``reopen``s the gold set. Finishing checks like ``submit`` does: no open or blocked conflict, no
schema error (unless forced).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from corpusdb.errors import Conflict, InvalidInput, NotFound, UsageError
from corpusdb.records import DecisionInfo, DocLabel, Relation
from corpusdb.service import utcnow_aware
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
    with_text,
)
from corpusdb.workflow.conflicts import Analysis, analyse
from corpusdb.workflow.items import item_to_json
from corpusdb.workflow.types import Item, Resolution, _ToDict
from guidelines.validate import Violation, errors, validate


@dataclass(frozen=True, slots=True)
class GoldCheck(_ToDict):
    """Whether a document's gold can be finished, and what stands in the way."""

    document: str
    gold_set_id: int | None
    finished: bool
    """The gold is finished (after ``finish_gold``: it has just been)."""
    open: tuple[str, ...]
    """Keys of the conflicts still undecided (agreed items are merged by finishing)."""
    blocked: tuple[tuple[str, str], ...]
    """(key, why) of undecided items waiting for an argument."""
    violations: tuple[Violation, ...]
    """Schema violations of the gold content (errors refuse finishing unless forced)."""

    @property
    def ok(self) -> bool:
        return not self.open and not errors(list(self.violations))

    def summary(self) -> str:
        """One line for a person: ready, or what stands in the way."""
        errs = errors(list(self.violations))
        if self.ok:
            warn = len(self.violations) - len(errs)
            return f"{self.document}: gold can be finished" + (f" ({warn} schema warning(s))" if warn else "")
        parts = []
        if self.open:
            parts.append(f"{len(self.open)} open conflict(s): {', '.join(self.open[:5])}"
                         + (" ..." if len(self.open) > 5 else ""))  # fmt: skip
        if errs:
            parts.append(f"{len(errs)} schema error(s): {errs[0]}" + (" ..." if len(errs) > 1 else ""))
        return f"{self.document}: " + "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {
            "document": self.document, "gold_set_id": self.gold_set_id, "finished": self.finished,
            "ok": self.ok, "open": list(self.open), "blocked": [list(b) for b in self.blocked],
            "violations": [{"severity": v.severity, "code": v.code, "item_kind": v.item_kind,
                            "item_id": v.item_id, "message": v.message} for v in self.violations],
        }  # fmt: skip


class GoldNotFinished(Conflict):
    """``finish_gold`` found open conflicts or schema errors; ``check`` says which."""

    def __init__(self, check: GoldCheck) -> None:
        super().__init__(f"cannot finish the gold of {check.summary()}")
        self.check = check


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
                            criterion: str = "exact", types: str = "ignored",
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
        types: str = "ignored",
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
        self._auto_pass(a, gold, None)  # agreed items not merged yet go in as finishing would put them
        still = [u for u in a.units if u.key not in a.unit_decision]
        schema = self.schema()  # type: ignore[attr-defined]
        return GoldCheck(
            a.document, a.gold.id if a.gold else None, is_finished(a), tuple(u.key for u in still),
            tuple((u.key, why) for u in still if (why := a.blocked(u))),
            tuple(validate(schema, gold.annotations(), a.text)
                  + self.grounding_violations(gold.annotations(), schema)),  # type: ignore[attr-defined]
        )  # fmt: skip

    def check_gold(self, document: str | int, *, criterion: str = "exact", types: str = "ignored",
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
        types: str = "ignored",
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
            if check.open or (errors(list(check.violations)) and not force):
                raise GoldNotFinished(check)
            [ids] = store.write_golds(conn, self.project_id, [_write(a, gold, "submitted")])
            gold_id = a.gold.id if a.gold else None
            if gold_id is None:  # every item agreed and never merged: the set was created just now
                info = store.gold_info(conn, self.project_id, self.actor, a.doc_id)
                gold_id = info.id if info else None
            self._audit(
                conn, "finish_gold", a.document, decisions=len(ids), forced=bool(force and check.violations)
            )
        return GoldCheck(a.document, gold_id, True, (), (), check.violations)


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
