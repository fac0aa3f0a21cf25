"""Plain records of relevance judging (frozen dataclasses with ``to_dict``), shared by every layer."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any


class _ToDict:
    def to_dict(self) -> dict[str, Any]:
        return asdict(self)  # type: ignore[call-overload,no-any-return]


@dataclass(frozen=True, slots=True)
class Topic(_ToDict):
    """A TREC topic: id, a short title, the information need, and its background."""

    id: str
    title: str = ""
    need: str = ""
    context: str = ""


@dataclass(frozen=True, slots=True)
class RunLine(_ToDict):
    """One line of a TREC run file: ``topic Q0 doc rank score tag``."""

    topic: str
    doc: str
    rank: int
    score: float
    tag: str


@dataclass(frozen=True, slots=True)
class QrelLine(_ToDict):
    """One line of a TREC qrels file: ``topic 0 doc grade``."""

    topic: str
    doc: str
    grade: int


@dataclass(frozen=True, slots=True)
class RunInfo(_ToDict):
    tag: str
    topics: int
    documents: int
    source: str = ""


@dataclass(frozen=True, slots=True)
class PoolUnit(_ToDict):
    """A pooled (topic, document) to judge and the judges it went to (never a run or a rank)."""

    topic: str
    doc: str
    unit: str
    judges: tuple[str, ...]


@dataclass(frozen=True, slots=True)
class PoolResult(_ToDict):
    units: tuple[PoolUnit, ...]
    """The new units, in their shuffled order."""
    existing: int
    """(topic, document) pairs already pooled before: kept, not reassigned."""
    doubled: int
    """New units given one judge more than ``-n`` (the agreement subset)."""
    missing: tuple[str, ...]
    """``TOPIC+DOC`` pooled but with no text in the project (skipped with ``skip_missing``)."""
    load: dict[str, int] = field(default_factory=dict)
    """Units per judge after pooling."""
    warnings: tuple[str, ...] = ()
    """Runs whose rank column and scores disagree (pooled by score, as trec_eval scores them)."""


@dataclass(frozen=True, slots=True)
class Judgment(_ToDict):
    """A judge's own judgment of a unit (what ``judgments`` lists to that judge)."""

    topic: str
    doc: str
    unit: str
    set_id: int
    grade: str | None
    status: str
    version: int


@dataclass(frozen=True, slots=True)
class QrelsExport(_ToDict):
    lines: tuple[QrelLine, ...]
    from_gold: int
    from_judgments: int
    skipped: tuple[str, ...]
    """Units not ready (a judge has not submitted) or without a grade."""
