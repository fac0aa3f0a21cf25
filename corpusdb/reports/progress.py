"""``Corpus.time_report``: active annotation time, throughput and progress over time (a mixin of
``corpusdb.api.Corpus``).

Why no new table: the timestamps are already kept. Every saved edit writes an ``edit_history`` row in
its own transaction, and a submission stamps its set. What that history cannot give is said in the
report (``limits``): the undo stack keeps the newest ``LIMIT`` entries per set, and an edit made
outside the stacks (a script's ``edit_set`` without history, a lead's ``replace_set``) clears them, so
time on such sets is a lower bound. Reads follow the blindness rules of the set headers: an annotator
sees only their own time; time is a count, never annotation content.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from sqlalchemy import select

from corpusdb.basics.errors import CorpusError, InvalidInput
from corpusdb.services import access
from corpusdb.services.base import ServiceBase, aware
from corpusdb.store import tables

SCHEMA_ID = "corpusdb.time/1"
GOLD_WORKER = "(adjudication)"
"""Who the actions on a gold set are attributed to (the gold set belongs to no person)."""


@dataclass(frozen=True, slots=True)
class TimeReport:
    """The JSON API is ``to_dict()`` (schema ``corpusdb.time/1``, described in the reports README)."""

    data: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.data


def _spearman(xs: Sequence[float], ys: Sequence[float]) -> float | None:
    if len(xs) < 3:
        return None
    from scipy.stats import spearmanr

    rho = spearmanr(xs, ys).statistic
    return None if rho != rho else round(float(rho), 4)  # nan (a constant column): undefined


class ProgressMixin(ServiceBase):
    def time_report(
        self,
        *,
        idle_seconds: float | None = None,
        agreement: bool = True,
        window: int = 14,
        progress: Callable[[int, int, str], None] | None = None,
    ) -> TimeReport:
        """Active time per annotator, set, document and day, throughput, progress per day and the
        projected completion date; with ``agreement`` (leads and adjudicators), each document's
        active time beside its mean pairwise span F1 (exact match) and their Spearman correlation."""
        from corpusdb.reports import timing
        from corpusdb.services.undo import LIMIT

        idle = timing.IDLE_SECONDS if idle_seconds is None else float(idle_seconds)
        if idle <= 0:
            raise InvalidInput(f"--idle must be a positive number of seconds, not {idle_seconds}")
        H, S = tables.edit_history, tables.annotation_set
        with self._read() as conn:
            headers = access.set_headers(conn, self.project_id, self.actor)
            by_id = {h.id: h for h in headers}
            ids = list(by_id)
            hist: list[Any] = []
            subs: list[Any] = []
            for i in range(0, len(ids), 500):  # bounded IN lists (SQLite's variable limit)
                chunk = ids[i : i + 500]
                hist += conn.execute(
                    select(H.c.set_id, H.c.created, H.c.changes).where(H.c.set_id.in_(chunk))
                ).all()
                subs += conn.execute(select(S.c.id, S.c.submitted).where(S.c.id.in_(chunk))).all()
        if progress:
            progress(1, 3, "edit history read")
        events = []
        for set_id, created, changes in hist:
            h = by_id[set_id]
            who = h.annotator or GOLD_WORKER
            events.append(
                timing.Event(who, set_id, h.document_external_id, aware(created), len(changes or ()))
            )  # type: ignore[arg-type]
        submitted_at = {sid: aware(at) for sid, at in subs if at is not None}
        for sid, at in submitted_at.items():
            h = by_id[sid]
            events.append(timing.Event(h.annotator or GOLD_WORKER, sid, h.document_external_id, at))  # type: ignore[arg-type]
        act = timing.active_time(events, idle)

        docs = {d.external_id for d in self.documents(with_text=False)}  # type: ignore[attr-defined]
        ann_sets: dict[str, list[Any]] = defaultdict(list)
        gold: dict[str, Any] = {}
        for h in headers:
            if h.kind == "annotation":
                ann_sets[h.document_external_id].append(h)
            elif h.kind == "gold":
                gold[h.document_external_id] = h
        milestones = []
        for d in sorted(docs):
            sets = ann_sets.get(d, [])
            sub = None
            if sets and all(s.status == "submitted" and s.id in submitted_at for s in sets):
                sub = max(submitted_at[s.id] for s in sets)
            g = gold.get(d)
            fin = submitted_at.get(g.id) if g is not None and g.status == "submitted" else None
            milestones.append(timing.DocumentMilestones(d, sub, aware(g.created) if g else None, fin))
        days = timing.per_day(milestones)
        if progress:
            progress(2, 3, "time counted")

        set_rows = []
        for sid, t in sorted(act.by_set.items()):
            h = by_id[sid]
            set_rows.append({"set": sid, "document": h.document_external_id, "annotator": h.annotator or GOLD_WORKER,
                             "kind": h.kind, "status": h.status, **t.to_dict()})  # fmt: skip
        doc_rows = [{"document": d, **t.to_dict()} for d, t in sorted(act.by_document.items())]
        against = self._time_against_agreement(doc_rows) if agreement and self.actor.can_adjudicate else None
        if progress:
            progress(3, 3, "done")
        data = {
            "schema": SCHEMA_ID,
            "project": self.info().name,  # type: ignore[attr-defined]
            "idle_seconds": idle,
            "rule": timing.RULE.format(idle=idle),
            "limits": [
                f"the undo history keeps the newest {LIMIT} actions per set, and an edit made outside it "
                "(a script without history, a lead's replacement) clears it: time on such sets is a lower bound",
                "time reading a document before its first edit, and after its last action, is not seen",
            ],
            "totals": {
                "active_seconds": round(act.total_seconds, 3),
                "idle_gaps": act.idle_gaps,
                "idle_seconds_not_counted": round(act.idle_total_seconds, 3),
                "actions": sum(t.actions for t in act.by_annotator.values()),
            },
            "by_annotator": [{"annotator": a, **t.to_dict()} for a, t in sorted(act.by_annotator.items())],
            "by_day": [
                {"annotator": a, "day": day.isoformat(), **t.to_dict()}
                for (a, day), t in sorted(act.by_day.items(), key=lambda kv: (kv[0][1], kv[0][0]))
            ],
            "by_document": doc_rows,
            "by_set": set_rows,
            "progress": days,
            "projection": timing.projection(days, len(docs), "finished", window),
            "time_vs_agreement": against,
        }
        return TimeReport(data)

    def _time_against_agreement(self, doc_rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
        """Each document's active time beside its agreement (do hard documents take longer?)."""
        secs = {r["document"]: r["active_seconds"] for r in doc_rows}
        try:
            rep = self.agreement("spans", criterion="exact")  # type: ignore[attr-defined]
        except CorpusError as exc:  # no raters to compare is an answer, not a failure
            return {"measure": "mean_pairwise_f1", "rows": [], "spearman": None, "note": str(exc)}
        rows = []
        for r in rep.to_dict().get("per_document", {}).get("rows", []):
            if r["document"] in secs and r.get("value") is not None:
                rows.append(
                    {
                        "document": r["document"],
                        "active_seconds": secs[r["document"]],
                        "agreement": r["value"],
                    }
                )
        return {
            "measure": "mean_pairwise_f1",
            "criterion": "exact",
            "rows": rows,
            "spearman": _spearman([r["active_seconds"] for r in rows], [r["agreement"] for r in rows]),
            "note": "Spearman's rho between active seconds and agreement; negative: harder documents took longer",
        }
