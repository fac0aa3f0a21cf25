"""Submission: assigned -> in progress -> submitted, checked against the schema; reopening by a lead.

Why check at submit time: once every annotator of a document has submitted, its sets become visible
to adjudicators and feed agreement; a set that breaks the schema there costs an adjudicator's time.
The check is ``guidelines.validate.validate`` against the guideline version the set was made under,
so a later amendment does not invalidate work done under the old rules.
"""

from __future__ import annotations

from sqlalchemy import Connection, select

from corpusdb.basics.errors import Conflict, InvalidInput, PermissionDenied, UsageError
from corpusdb.basics.records import Annotations, SetInfo
from corpusdb.services import access
from corpusdb.services.base import ServiceBase, utcnow_aware
from corpusdb.services.sets import bump_version, read_contents
from corpusdb.store import tables
from corpusdb.workflow.types import SubmissionRefused
from guidelines.derive import derived_line, derived_listing
from guidelines.schema import Schema, schema_from_dict
from guidelines.validate import Violation, errors, validate

D = tables.document
G = tables.guideline


class SubmissionMixin(ServiceBase):
    """Validating, submitting and reopening annotation sets."""

    def validate_set(self, set_id: int) -> list[Violation]:
        """Schema violations of a set the user may read (what the TUI lists before submitting)."""
        with self._read() as conn:
            return self._violations(conn, access.readable_set(conn, self.project_id, self.actor, set_id))

    def derived_in_set(self, set_id: int) -> list[dict[str, object]]:
        """The relations the schema's rules derive from a set the user may read (``submit --check``
        lists them after the violations, marked derived with their rule): never items of the set."""
        with self._read() as conn:
            info = access.readable_set(conn, self.project_id, self.actor, set_id)
            schema, ann = self._schema_and_contents(conn, info)
            return derived_listing(schema, ann)

    def _schema_and_contents(self, conn: Connection, info: SetInfo) -> tuple[Schema, Annotations]:
        """The set's contents and the guideline version it was made under."""
        ann = read_contents(conn, [info])[0].annotations
        data = conn.execute(
            select(G.c.schema_data).where(
                G.c.project_id == self.project_id, G.c.version == info.guideline_version
            )
        ).scalar_one()
        return schema_from_dict(data), ann

    def _violations(self, conn: Connection, info: SetInfo) -> list[Violation]:
        """Checked against the guideline version the set was made under."""
        from corpusdb.kb import check as kb_check  # lazily: start-up (issue #26)

        schema, ann = self._schema_and_contents(conn, info)
        text = conn.execute(select(D.c.text).where(D.c.id == info.document_id)).scalar_one()
        return validate(schema, ann, text) + kb_check.violations(conn, schema, ann)

    def submit(self, set_id: int, *, force: bool = False) -> SetInfo:
        """Submit one's own set; refuses with every violation unless forced.

        After this the set is read-only to its annotator until a lead reopens it.
        """
        with self._write() as conn:
            heads = access.set_headers(conn, self.project_id, self.actor, set_ids=[set_id])
            if not heads:
                access.readable_set(conn, self.project_id, self.actor, set_id)  # the precise refusal
            if heads[0].kind == "gold":
                raise UsageError("gold sets are completed by adjudication, not submitted")
            if heads[0].annotator != self.actor.name:
                raise PermissionDenied(
                    f"only {heads[0].annotator} may submit set {set_id} (submitting needs reading it, and "
                    "annotation is double-blind)"
                )
            info = access.readable_set(conn, self.project_id, self.actor, set_id)
            if info.status == "submitted":
                raise Conflict(f"set {set_id} is already submitted")
            violations = self._violations(conn, info)
            bad = errors(violations)
            if bad and not force:
                raise SubmissionRefused(set_id, violations)
            schema, ann = self._schema_and_contents(conn, info)
            derived = derived_listing(
                schema, ann
            )  # applied at submit: recorded as derived, never stored as items
            bump_version(conn, set_id, None, status="submitted", submitted=utcnow_aware())
            self._audit(conn, "submit", str(set_id), document=info.document_external_id, forced=bool(bad),
                        errors=len(bad), warnings=len(violations) - len(bad),
                        **({"derived": [derived_line(d) for d in derived]} if derived else {}))  # fmt: skip
            return access.set_headers(conn, self.project_id, self.actor, set_ids=[set_id])[0]

    def reopen(self, set_id: int, *, reason: str) -> SetInfo:
        """Make a submitted set editable again by its annotator (leads only; the reason is recorded)."""
        self._require("lead", doing="reopen a submitted set")
        if not reason or not reason.strip():
            raise InvalidInput("reopening a set needs a reason (it is recorded in the audit trail)")
        with self._write() as conn:
            heads = access.set_headers(conn, self.project_id, self.actor, set_ids=[set_id])
            if not heads:
                access.readable_set(conn, self.project_id, self.actor, set_id)  # the precise NotFound
            info = heads[0]
            if info.status != "submitted":
                raise Conflict(f"set {set_id} is {info.status}, not submitted: nothing to reopen")
            bump_version(conn, set_id, None, status="in_progress", submitted=None)
            self._audit(conn, "reopen", str(set_id), document=info.document_external_id,
                        annotator=info.annotator, reason=reason)  # fmt: skip
            return access.set_headers(conn, self.project_id, self.actor, set_ids=[set_id])[0]
