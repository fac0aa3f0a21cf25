"""Plain records of the recommenders' world: what the API returns to the CLI, the TUI and scripts."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

STATUSES: tuple[str, ...] = ("open", "accepted", "rejected")
PROVENANCE = "suggestion"
"""The key of an accepted item's ``extra`` that says where it came from."""


@dataclass(frozen=True, slots=True)
class RecommenderInfo:
    id: int
    name: str
    kind: str
    layer: str
    types: tuple[str, ...] | None
    options: Mapping[str, Any]
    version: int
    trained: datetime | None
    stats: Mapping[str, Any] = field(default_factory=dict)
    dictionary: int = 0
    """Names read from TSV dictionaries (kept with the recommender)."""

    @property
    def system(self) -> str | None:
        """An external recommender's system annotator."""
        return self.options.get("system")

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "kind": self.kind,
            "layer": self.layer,
            "types": list(self.types) if self.types is not None else None,
            "options": dict(self.options),
            "dictionary_names": self.dictionary,
            "version": self.version,
            "trained": self.trained.isoformat() if self.trained else None,
            "stats": dict(self.stats),
        }


@dataclass(frozen=True, slots=True)
class Suggestion:
    """One proposal on one annotator's set, with its status for her."""

    id: int
    set_id: int
    document: str
    recommender: str
    version: str
    kind: str
    type: str
    fragments: tuple[tuple[int, int], ...]
    text: str
    score: float
    status: str
    item: str | None = None
    payload: Mapping[str, Any] | None = None

    @property
    def start(self) -> int:
        return self.fragments[0][0] if self.fragments else -1

    @property
    def end(self) -> int:
        return self.fragments[-1][1] if self.fragments else -1

    @property
    def source(self) -> str:
        """``string-matcher v3``: who proposed it (what the status line and provenance say)."""
        return f"{self.recommender} v{self.version}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "set": self.set_id,
            "document": self.document,
            "recommender": self.recommender,
            "version": self.version,
            "kind": self.kind,
            "type": self.type,
            "fragments": [list(f) for f in self.fragments],
            "text": self.text,
            "score": self.score,
            "status": self.status,
            "item": self.item,
            **({"payload": dict(self.payload)} if self.payload else {}),
        }


@dataclass(frozen=True, slots=True)
class TrainingResult:
    recommender: str
    part: str
    """``shared`` (gold of adjudicated documents, dictionaries) or an annotator's name (her own part)."""
    version: int
    seconds: float
    examples: int
    detail: Mapping[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {
            "recommender": self.recommender,
            "part": self.part,
            "version": self.version,
            "seconds": round(self.seconds, 3),
            "examples": self.examples,
            **dict(self.detail),
        }
