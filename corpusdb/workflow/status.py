"""Where a project stands: documents, annotators, sets by status — what a lead looks at first."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import asdict, dataclass, field
from typing import Any

from sqlalchemy import func, select

from corpusdb.basics.records import SET_STATUSES
from corpusdb.services import access
from corpusdb.services.base import ServiceBase


@dataclass(frozen=True, slots=True)
class AnnotatorProgress:
    name: str
    role: str
    assigned: int = 0
    in_progress: int = 0
    submitted: int = 0

    @property
    def total(self) -> int:
        return self.assigned + self.in_progress + self.submitted


@dataclass(frozen=True, slots=True)
class SkippedDocument:
    document: str
    annotator: str
    status: str
    reason: str


@dataclass(frozen=True, slots=True)
class StatusReport:
    project: str
    schema: str
    guideline_version: int
    documents: int
    annotators: tuple[AnnotatorProgress, ...]
    sets_by_kind_status: dict[str, dict[str, int]] = field(default_factory=dict)
    documents_ready: int = 0
    """Documents whose annotation sets are all submitted (ready for adjudication)."""
    documents_with_gold: int = 0
    documents_gold_finished: int = 0
    """Documents whose gold is finished (frozen; what a release takes)."""
    splits: dict[str, int] = field(default_factory=dict)
    skipped: tuple[SkippedDocument, ...] = ()
    """Documents skipped as irrelevant, with who and why (an annotator sees only their own)."""

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        for a in d["annotators"]:
            a["total"] = a["assigned"] + a["in_progress"] + a["submitted"]
        return d


class StatusMixin(ServiceBase):
    def status(self) -> StatusReport:
        """Counts only (never annotation content), shown per the blindness rules.

        Counted in SQL, grouped (sets by kind, status and annotator; documents by split; ready and
        gold documents), so that a project's size costs rows of groups, not a header per set and a
        record per document (``status`` on 20,000 sets, issue #26; ``bench/bench_startup.py``)."""
        info = self.info()  # type: ignore[attr-defined]
        annotators = {a.name: a for a in self.annotators()}  # type: ignore[attr-defined]
        docs = self._doc_query(False).subquery()  # type: ignore[attr-defined]  # the same blindness
        by_kind: dict[str, Counter[str]] = defaultdict(Counter)
        per_ann: dict[str, Counter[str]] = defaultdict(Counter)
        with self._read() as conn:
            for kind, status, annotator, n in access.set_counts(conn, self.project_id, self.actor):
                by_kind[kind][status] += n
                if annotator is not None:
                    per_ann[annotator][status] += n
            ready, with_gold, finished = access.document_counts(conn, self.project_id, self.actor)
            splits = Counter[str]()
            for split, n in conn.execute(select(docs.c.split, func.count()).group_by(docs.c.split)):
                splits[split or "(none)"] += int(n)
        names = sorted(annotators) if self.actor.role not in ("annotator", "system") else [self.actor.label]
        progress = tuple(
            AnnotatorProgress(
                name=n,
                role=annotators[n].role if n in annotators else self.actor.role,
                **{s: per_ann[n][s] for s in SET_STATUSES},
            )
            for n in names
        )
        return StatusReport(
            project=info.name,
            schema=info.schema_name,
            guideline_version=info.guideline_version,
            documents=sum(splits.values()),
            annotators=progress,
            sets_by_kind_status={k: dict(v) for k, v in sorted(by_kind.items())},
            documents_ready=ready,
            documents_with_gold=with_gold,
            documents_gold_finished=finished,
            splits=dict(sorted(splits.items())),
            skipped=tuple(
                SkippedDocument(k.document, k.annotator, k.status, k.reason)
                for k in self.skips()  # type: ignore[attr-defined]
            ),
        )
