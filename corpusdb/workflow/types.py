"""Plain frozen records the workflow returns (assignments, conflicts, decisions, splits, releases).

Why here and not in ``corpusdb.basics.records``: they are the workflow's vocabulary, used by the CLI and the
TUI through ``Corpus``; importers and agreement code never see them. Each has ``to_dict()`` giving
JSON-able data with stable keys (the CLI's ``--format json``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields, is_dataclass
from datetime import datetime
from typing import Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.basics.records import DecisionInfo, DocLabel, Entity, Link, Relation, SetInfo, Span
from corpusdb.services.items import item_to_json
from guidelines.validate import Violation

Item = Span | Relation | Link | DocLabel | Entity


def to_jsonable(value: Any) -> Any:
    """Records, items, datetimes and mappings as plain JSON data."""
    if isinstance(value, (Span, Relation, Link, DocLabel, Entity)):
        return item_to_json(value)
    if hasattr(value, "to_dict") and not isinstance(value, type):
        return value.to_dict()
    if is_dataclass(value) and not isinstance(value, type):
        return {f.name: to_jsonable(getattr(value, f.name)) for f in fields(value)}
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, Mapping):
        return {str(k): to_jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [to_jsonable(v) for v in value]
    return value


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        return {f.name: to_jsonable(getattr(self, f.name)) for f in fields(self)}  # type: ignore[arg-type]


class SubmissionRefused(InvalidInput):
    """``submit`` found schema violations (exit code 4); ``violations`` lists every one."""

    def __init__(self, set_id: int, violations: list[Violation]) -> None:
        errs = [v for v in violations if v.severity == "error"]
        head = str(errs[0]) if errs else "violations"
        more = f" (and {len(errs) - 1} more)" if len(errs) > 1 else ""
        super().__init__(
            f"set {set_id} breaks the schema: {head}{more}; fix them or submit with force "
            "(`corpusdb submit --ignore-schema`)"
        )
        self.set_id = set_id
        self.violations = tuple(violations)


@dataclass(frozen=True, slots=True)
class Assignment(_ToDict):
    """What ``assign`` did: the sets it created, what it skipped and why, the load per annotator."""

    created: tuple[SetInfo, ...]
    skipped: tuple[tuple[str, str, str], ...]
    """(document, annotator, why) for pairs not created (already assigned...)."""
    load: Mapping[str, int]
    """Annotation sets per annotator after the assignment (whole project)."""
    suggestions: int = 0
    """``as_suggestions``: how many suggestions the new sets were given."""
    order: str | None = None
    """``order``: the rule, its recommenders and seed, in words."""
    ranks: Mapping[str, tuple[int, float]] = field(default_factory=dict)
    """``order``: document -> (rank, score) of the documents handed out."""


@dataclass(frozen=True, slots=True)
class SourceRef(_ToDict):
    """One item of one source set: where a gold item (or a conflict variant) came from."""

    annotator: str | None
    set_id: int
    local_id: str
    """'' when the source has no item in this unit (it votes for absence)."""
    kind: str = "annotation"

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> SourceRef:
        return cls(
            d.get("annotator"), int(d["set_id"]), str(d.get("local_id", "")), d.get("kind", "annotation")
        )


@dataclass(frozen=True, slots=True)
class Variant(_ToDict):
    """One version of a disputed item and the sources that have it; ``item`` None means absent."""

    item: Item | None
    sources: tuple[SourceRef, ...]
    display: str

    @property
    def absent(self) -> bool:
        return self.item is None

    def to_dict(self) -> dict[str, Any]:
        return {
            "item": to_jsonable(self.item),
            "sources": [s.to_dict() for s in self.sources],
            "display": self.display,
            "absent": self.absent,
        }


@dataclass(frozen=True, slots=True)
class Conflict(_ToDict):
    """An item on which the sources of one document disagree (or, with ``include_resolved``, agree).

    ``key`` is stable for the same sources and options: the TUI navigates and resolves by it.
    ``differs``: what differs (presence, type, boundaries, attributes, groundings, label, tags,
    value, duplicate). ``decision``: the decision already taken on it, if any. ``blocked``: why it
    cannot be resolved yet (a relation whose argument has no gold item).
    """

    document: str
    key: str
    kind: str
    differs: tuple[str, ...]
    variants: tuple[Variant, ...]
    n_sources: int
    decision: DecisionInfo | None = None
    blocked: str | None = None

    @property
    def resolved(self) -> bool:
        return self.decision is not None

    def to_dict(self) -> dict[str, Any]:
        d = {f.name: to_jsonable(getattr(self, f.name)) for f in fields(self)}
        d["resolved"] = self.resolved
        return d


@dataclass(frozen=True, slots=True)
class SourceSet(_ToDict):
    annotator: str | None
    set_id: int
    kind: str


@dataclass(frozen=True, slots=True)
class DocumentConflicts(_ToDict):
    """The disputed items of one document, with counts per item kind."""

    document: str
    sources: tuple[SourceSet, ...]
    conflicts: tuple[Conflict, ...]
    counts: Mapping[str, int]
    """Disputed items per kind (span, relation, link, label), resolved ones included."""
    open: int
    """Disputed items not decided yet."""
    agreed: int
    """Items every source has identically."""
    waiting: Mapping[str, str] = field(default_factory=dict)
    """Undecided items no person needs to decide, kept out of gold until an open conflict is decided
    (an agreed relation on a disputed span): key -> that conflict's key. They too stop gold from
    being finished; ``open_summary`` says both counts as every command does."""
    derived: Mapping[str, tuple[Mapping[str, object], ...]] = field(default_factory=dict)
    """The relations the schema's rules derive, per source (annotator or set id) and for ``gold``,
    marked with their rule: shown, never conflicts of their own (empty when the schema has none)."""


def open_summary(open_: int, waiting: Mapping[str, str]) -> str:
    """One count everywhere (``conflicts``, ``adjudicate --check``, the TUI): "16 open + 4 waiting on a
    span" -- the conflicts a person decides, and the items that follow them into gold."""
    if not waiting:
        return f"{open_} open"
    on = {k.partition(":")[0] for k in waiting.values()}
    kind = on.pop() if len(on) == 1 else "open conflict"
    return f"{open_} open + {len(waiting)} waiting on {'an' if kind[0] in 'aeiou' else 'a'} {kind}"


@dataclass(frozen=True, slots=True)
class QueueEntry(_ToDict):
    """A document ready for adjudication: every annotation set submitted."""

    document: str
    sets: int
    conflicts: int
    open: int
    has_gold: bool
    gold_status: str | None
    waiting: int = 0
    """Items waiting on an open conflict (``DocumentConflicts.waiting``)."""


@dataclass(frozen=True, slots=True)
class MergeResult(_ToDict):
    """What an auto-merge did on one document."""

    document: str
    gold_set_id: int
    added: Mapping[str, int]
    """Gold items added, by decision method (unanimous, majority)."""
    rejected: int
    """Items refused by a majority voting for absence (threshold mode)."""
    kept: int
    """Units already decided before this run (left as they were)."""
    open: int
    """Conflicts left for an adjudicator."""
    existing: int = 0
    """Agreed items gold already held (an imported gold set): decided onto that item, not added again."""


@dataclass(frozen=True, slots=True)
class Resolution(_ToDict):
    document: str
    key: str
    gold_item_id: str | None
    """The gold item made (None when the conflict was resolved by taking none)."""
    decision: DecisionInfo
    open: int
    """Conflicts still open on the document."""
    undone: tuple[str, ...] = ()
    """Gold items removed because they rested on an item this took out (their decisions undone)."""
    revised: int | None = None
    """The decision this one revised (``resolve(..., revise=True)`` on a decided conflict)."""


@dataclass(frozen=True, slots=True)
class CorrectionInfo(_ToDict):
    id: int
    document: str
    action: str
    item_kind: str
    item_id: str
    before: Mapping[str, Any] | None
    after: Mapping[str, Any] | None
    reason: str
    author: str
    after_release: str | None
    created: datetime


@dataclass(frozen=True, slots=True)
class Suspect(_ToDict):
    """A gold item that several other sources contradict (review queue entry)."""

    document: str
    key: str
    kind: str
    problem: str
    """``missing_in_gold`` (sources agree on an item gold lacks), ``only_in_gold`` (sources lack a gold
    item) or ``differs`` (sources agree on another version of it)."""
    gold_item: Item | None
    proposed: Item | None
    """The version the disagreeing sources agree on (None: they agree it should not exist)."""
    supporting: tuple[SourceRef, ...]
    """Sources that agree with each other against gold."""
    disagreeing: int
    """How many sources disagree with gold (the rank)."""
    n_sources: int
    decision_method: str | None = None


@dataclass(frozen=True, slots=True)
class SplitStats(_ToDict):
    name: str
    documents: int
    groups: int
    share: float
    target: float
    distribution: Mapping[str, int]
    distance: float | None
    """Total variation distance between this split's label distribution and the whole's."""


@dataclass(frozen=True, slots=True)
class SplitReport(_ToDict):
    seed: int
    ratios: Mapping[str, float]
    stratify: tuple[str, ...]
    newly_assigned: int
    kept: int
    splits: tuple[SplitStats, ...]
    whole: Mapping[str, int]


@dataclass(frozen=True, slots=True)
class ReleaseInfo(_ToDict):
    version: str
    created: datetime
    previous: str | None
    notes: str
    counts: Mapping[str, Any]
    files: Mapping[str, Any] = field(default_factory=dict)
    """path -> {"sha256", "bytes"} for every file of the release (the manifest's list)."""
    changelog: Mapping[str, Any] = field(default_factory=dict)
