"""Active annotation time and progress over time, from timestamps the project already keeps.

Pure: events in, figures out (no database). The service (:mod:`corpusdb.reports.progress`) reads the
events: every saved edit (the ``edit_history`` rows, undo and redo stacks) and every submission.

How active time is counted (the rule every output states): one annotator's events, over all their
sets, are put in time order; the gap between two consecutive events counts as active time on the
set (document, day) of the later event when it is no longer than the idle threshold (default 300 s);
a longer gap is idle and not counted (its count and length are reported). The first event of a
session adds nothing: the time before it is unknown. Days are UTC calendar days.

Why by annotator rather than by set: a person works on one thing at a time, and the minutes between
finishing one document and the first edit on the next are spent reading the next.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta
from typing import Any

IDLE_SECONDS = 300.0
"""Default idle threshold: a gap longer than this between two actions is a pause, not work."""

RULE = (
    "active time: gaps between one annotator's consecutive actions (edits, submissions) of at most "
    "{idle:g} s count toward the set of the later action; longer gaps are idle and not counted; the "
    "first action of a session counts 0 s; days are UTC"
)


@dataclass(frozen=True, slots=True)
class Event:
    """One timestamped action by one person on one set."""

    annotator: str
    set_id: int
    document: str
    at: datetime
    items: int = 0
    """Items the action put or removed (an edit's changes); 0 for a submission."""


@dataclass(slots=True)
class Tally:
    seconds: float = 0.0
    actions: int = 0
    items: int = 0
    documents: set[str] = field(default_factory=set)

    def add(self, seconds: float, ev: Event) -> None:
        self.seconds += seconds
        self.actions += 1
        self.items += ev.items
        self.documents.add(ev.document)

    def to_dict(self) -> dict[str, Any]:
        hours = self.seconds / 3600.0
        return {
            "active_seconds": round(self.seconds, 3),
            "actions": self.actions,
            "items": self.items,
            "documents": len(self.documents),
            "items_per_hour": round(self.items / hours, 3) if hours > 0 else None,
            "documents_per_hour": round(len(self.documents) / hours, 3) if hours > 0 else None,
        }


@dataclass(frozen=True, slots=True)
class ActiveTime:
    """Active seconds per annotator, set, document and (annotator, day), with the idle gaps left out."""

    idle_seconds: float
    by_annotator: dict[str, Tally]
    by_set: dict[int, Tally]
    by_document: dict[str, Tally]
    by_day: dict[tuple[str, date], Tally]
    idle_gaps: int
    idle_total_seconds: float

    @property
    def total_seconds(self) -> float:
        return sum(t.seconds for t in self.by_annotator.values())


def active_time(events: Iterable[Event], idle_seconds: float = IDLE_SECONDS) -> ActiveTime:
    """Count active time by the module's rule."""
    if idle_seconds <= 0:
        raise ValueError(f"the idle threshold must be positive seconds, not {idle_seconds}")
    per_person: dict[str, list[Event]] = defaultdict(list)
    for ev in events:
        per_person[ev.annotator].append(ev)
    by_ann: dict[str, Tally] = defaultdict(Tally)
    by_set: dict[int, Tally] = defaultdict(Tally)
    by_doc: dict[str, Tally] = defaultdict(Tally)
    by_day: dict[tuple[str, date], Tally] = defaultdict(Tally)
    gaps, idle_total = 0, 0.0
    for person, evs in per_person.items():
        evs.sort(key=lambda e: (e.at, e.set_id))
        prev: datetime | None = None
        for ev in evs:
            gap = 0.0 if prev is None else (ev.at - prev).total_seconds()
            if gap > idle_seconds:
                gaps += 1
                idle_total += gap
                gap = 0.0
            prev = ev.at
            for tally in (
                by_ann[person],
                by_set[ev.set_id],
                by_doc[ev.document],
                by_day[(person, ev.at.date())],
            ):
                tally.add(gap, ev)
    return ActiveTime(idle_seconds, dict(by_ann), dict(by_set), dict(by_doc), dict(by_day), gaps, idle_total)


@dataclass(frozen=True, slots=True)
class DocumentMilestones:
    """When a document reached each stage (None: not yet)."""

    document: str
    submitted: datetime | None
    """When its last assigned annotation set was submitted (all of them are)."""
    adjudicated: datetime | None
    """When its gold set was first written."""
    finished: datetime | None
    """When its gold was finished (what a release takes)."""


STAGES = ("submitted", "adjudicated", "finished")


def per_day(milestones: Sequence[DocumentMilestones]) -> list[dict[str, Any]]:
    """Documents reaching each stage per UTC day, with running totals; every day from the first to
    the last milestone is listed (days without progress too, so a plot's x axis is time)."""
    counts: dict[date, dict[str, int]] = defaultdict(lambda: dict.fromkeys(STAGES, 0))
    for m in milestones:
        for stage in STAGES:
            at = getattr(m, stage)
            if at is not None:
                counts[at.date()][stage] += 1
    if not counts:
        return []
    rows, running = [], dict.fromkeys(STAGES, 0)
    day, last = min(counts), max(counts)
    while day <= last:
        c = counts.get(day, dict.fromkeys(STAGES, 0))
        for s in STAGES:
            running[s] += c[s]
        rows.append({"day": day.isoformat(), **c, **{f"{s}_total": running[s] for s in STAGES}})
        day += timedelta(days=1)
    return rows


def projection(
    days: Sequence[Mapping[str, Any]], total_documents: int, stage: str = "finished", window: int = 14
) -> dict[str, Any]:
    """When every document reaches ``stage`` at the current pace: the mean documents per day over
    the last ``window`` days of the progress table (days without progress included), extended from
    its last day. None when nothing has reached the stage in that window (no pace to extend)."""
    done = days[-1][f"{stage}_total"] if days else 0
    remaining = max(0, total_documents - done)
    recent = list(days[-window:])
    pace = sum(d[stage] for d in recent) / len(recent) if recent else 0.0
    out: dict[str, Any] = {
        "stage": stage,
        "documents": total_documents,
        "done": done,
        "remaining": remaining,
        "window_days": len(recent),
        "pace_per_day": round(pace, 4),
        "rule": f"mean documents {stage} per day over the last {window} days of activity, extended from the last day",
        "date": None,
        "days_left": None,
    }
    if remaining == 0 and days:
        out["date"], out["days_left"] = days[-1]["day"], 0
    elif pace > 0 and days:
        import math

        left = math.ceil(remaining / pace)
        out["days_left"] = left
        out["date"] = (date.fromisoformat(days[-1]["day"]) + timedelta(days=left)).isoformat()
    return out
