"""Suggestions accepted or rejected by an edit (``corpusdb.services.edits.Mark``), written in the
edit's own transaction. It lives with the services, not in ``corpusdb.recommend``, because
``services.sets.edit_set`` writes it and the services sit below the features (layers contract)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from sqlalchemy import Connection, select, update

from corpusdb.basics.errors import Conflict, InvalidInput
from corpusdb.services.base import utcnow_aware
from corpusdb.store import tables

SG = tables.suggestion
RC = tables.recommender
STATUSES = ("open", "accepted", "rejected")


def apply_marks(conn: Connection, set_id: int, marks: Sequence[Any], audit: Any) -> None:
    """Write the status changes of an action (``corpusdb.services.edits.Mark``) on this set's suggestions and
    record each accept, reject or reopening in the audit trail (``audit(action, target, **detail)``).
    Refused when a suggestion is not this set's or is no longer in the status the action saw."""
    now = utcnow_aware()
    for m in marks:
        if m.status not in STATUSES:
            raise InvalidInput(f"suggestion status must be one of {', '.join(STATUSES)}, not {m.status!r}")
        row = conn.execute(
            select(SG.c.status, SG.c.recommender_id, SG.c.version, RC.c.name)
            .join(RC, RC.c.id == SG.c.recommender_id)
            .where(SG.c.id == m.suggestion, SG.c.set_id == set_id)
        ).first()
        if row is None:
            raise InvalidInput(f"set {set_id} has no suggestion {m.suggestion}")
        if row.status != m.previous:
            raise Conflict(
                f"suggestion {m.suggestion} is {row.status} now, not {m.previous}: reload the document"
            )
        conn.execute(
            update(SG)
            .where(SG.c.id == m.suggestion)
            .values(
                status=m.status,
                item_local_id=m.item if m.status == "accepted" else None,
                decided=now if m.status != "open" else None,
            )
        )
        action = {"accepted": "accept_suggestion", "rejected": "reject_suggestion"}.get(
            m.status, "reopen_suggestion"
        )
        # No text or type in the trail: leads read it, and the set is not theirs to read yet.
        audit(
            action,
            f"set {set_id}",
            suggestion=m.suggestion,
            recommender=row.name,
            version=row.version,
            item=m.item,
            was=m.previous,
        )
