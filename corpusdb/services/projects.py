"""Projects, their guideline versions (schema + text) and their annotators."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Connection, func, insert, select, update

from corpusdb.basics.errors import Conflict, InvalidInput, NotFound, UsageError
from corpusdb.basics.records import ROLES, AnnotatorInfo, GuidelineInfo, ProjectInfo
from corpusdb.services.base import Actor, ServiceBase, aware, utcnow_aware
from corpusdb.store import tables
from guidelines.schema import Schema, guideline_text, load_schema, schema_from_dict

P = tables.project
G = tables.guideline
A = tables.annotator


RESERVED_NAMES = frozenset({"gold"})
"""Names that mean the adjudicated sets wherever raters are named (``agree -a gold,alice``), so no
annotator may take them (case-insensitively): an annotator named gold was mixed with the gold sets."""


def check_annotator_name(name: str) -> None:
    """Refuse a name that is empty, padded, holds control characters or is reserved, at entry."""
    from corpusdb.basics.controls import has_control

    if not name or not name.strip() or name != name.strip():
        raise InvalidInput(f"annotator name {name!r} must be non-empty without surrounding spaces")
    if has_control(name):
        raise InvalidInput(f"annotator name {name!r} holds control characters (tabs, newlines, escapes)")
    if name.casefold() in RESERVED_NAMES:
        raise InvalidInput(f"annotator name {name!r} is reserved: it names the gold sets (adjudication)")


def resolve_schema(schema: str | Path | Schema) -> Schema:
    return schema if isinstance(schema, Schema) else load_schema(schema)


def insert_project(conn: Connection, name: str, schema: Schema, text: str | None, note: str) -> int:
    """Create a project and its guideline version 1 inside the caller's transaction."""
    from corpusdb.basics.controls import has_control

    if not name or not name.strip():
        raise InvalidInput("a project needs a non-empty name")
    if has_control(name):
        raise InvalidInput(f"project name {name!r} holds control characters (tabs, newlines, escapes)")
    if conn.execute(select(P.c.id).where(P.c.name == name)).first() is not None:
        raise Conflict(f"project {name!r} already exists in this database")
    now = utcnow_aware()
    pid = conn.execute(
        insert(P).values(name=name, schema_name=schema.name, settings=None, created=now).returning(P.c.id)
    ).scalar_one()
    conn.execute(
        insert(G).values(
            project_id=pid,
            version=1,
            schema_name=schema.name,
            schema_data=schema.to_dict(),
            text=text if text is not None else guideline_text(schema),
            note=note,
            created=now,
        )
    )
    return int(pid)


def project_id_by_name(conn: Connection, name: str | None) -> int:
    """The id of the named project, or of the only one when no name is given."""
    if name is not None:
        pid = conn.execute(select(P.c.id).where(P.c.name == name)).scalar_one_or_none()
        if pid is None:
            names = [r[0] for r in conn.execute(select(P.c.name).order_by(P.c.name))]
            raise NotFound(f"no project named {name!r} (projects here: {', '.join(names) or 'none'})")
        return int(pid)
    rows = conn.execute(select(P.c.id, P.c.name).order_by(P.c.name)).all()
    if not rows:
        raise NotFound("this database holds no project yet: run `corpusdb init NAME --schema SCHEMA`")
    if len(rows) > 1:
        raise UsageError(
            f"this database holds {len(rows)} projects ({', '.join(r[1] for r in rows)}): name one with --project"
        )
    return int(rows[0][0])


def resolve_actor(conn: Connection, project_id: int, user: str | None) -> Actor:
    if user is None:
        return Actor(None, "lead")
    row = conn.execute(select(A.c.id, A.c.role).where(A.c.project_id == project_id, A.c.name == user)).first()
    if row is None:
        raise NotFound(
            f"no annotator named {user!r} in this project (a lead adds one with `corpusdb annotator add`)"
        )
    return Actor(user, row[1], row[0])


class ProjectMixin(ServiceBase):
    """Project information, guideline versions and annotators."""

    def info(self) -> ProjectInfo:
        with self._read() as conn:
            row = conn.execute(select(P).where(P.c.id == self.project_id)).one()
            gv = conn.execute(
                select(func.max(G.c.version)).where(G.c.project_id == self.project_id)
            ).scalar_one()
        return ProjectInfo(row.id, row.name, row.schema_name, int(gv), aware(row.created))  # type: ignore[arg-type]

    def guideline(self, version: int | None = None) -> GuidelineInfo:
        """One guideline version (the current one by default)."""
        with self._read() as conn:
            q = select(G).where(G.c.project_id == self.project_id)
            q = q.where(G.c.version == version) if version is not None else q.order_by(G.c.version.desc())
            row = conn.execute(q.limit(1)).first()
        if row is None:
            raise NotFound(f"no guideline version {version} in this project")
        return GuidelineInfo(
            row.version,
            row.schema_name,
            row.schema_data,
            row.text,
            row.note,
            aware(row.created),  # type: ignore[arg-type]
        )

    def guidelines(self) -> list[GuidelineInfo]:
        """Every guideline version, oldest first, with the note on what changed."""
        with self._read() as conn:
            rows = conn.execute(
                select(G).where(G.c.project_id == self.project_id).order_by(G.c.version)
            ).all()
        return [
            GuidelineInfo(r.version, r.schema_name, r.schema_data, r.text, r.note, aware(r.created))  # type: ignore[arg-type]
            for r in rows
        ]

    def schema(self, version: int | None = None) -> Schema:
        """The project's schema (of the current guideline version by default)."""
        return schema_from_dict(self.guideline(version).schema)

    def amend_guidelines(
        self, *, note: str, schema: str | Path | Schema | None = None, text: str | None = None
    ) -> GuidelineInfo:
        """Record a new guideline version; ``note`` says what changed (required)."""
        self._require("lead", doing="amend the guidelines")
        if not note or not note.strip():
            raise InvalidInput("amending the guidelines needs a note that says what changed")
        cur = self.guideline()
        new_schema = resolve_schema(schema) if schema is not None else schema_from_dict(cur.schema)
        with self._write() as conn:
            conn.execute(
                insert(G).values(
                    project_id=self.project_id,
                    version=cur.version + 1,
                    schema_name=new_schema.name,
                    schema_data=new_schema.to_dict(),
                    text=text if text is not None else cur.text,
                    note=note,
                    created=utcnow_aware(),
                )
            )
            conn.execute(update(P).where(P.c.id == self.project_id).values(schema_name=new_schema.name))
            self._audit(conn, "amend_guidelines", f"v{cur.version + 1}", note=note)
        return self.guideline()

    # -- annotators ------------------------------------------------------------------------------
    def add_annotator(self, name: str, role: str = "annotator") -> AnnotatorInfo:
        self._require("lead", doing="add annotators")
        if role not in ROLES:
            raise InvalidInput(f"role {role!r} is not one of {', '.join(ROLES)}")
        check_annotator_name(name)
        with self._write() as conn:
            if conn.execute(
                select(A.c.id).where(A.c.project_id == self.project_id, A.c.name == name)
            ).first():
                raise Conflict(f"annotator {name!r} already exists")
            aid = conn.execute(
                insert(A)
                .values(project_id=self.project_id, name=name, role=role, created=utcnow_aware())
                .returning(A.c.id)
            ).scalar_one()
            self._audit(conn, "add_annotator", name, role=role)
        return AnnotatorInfo(int(aid), name, role)

    def ensure_annotator(self, name: str, role: str = "annotator") -> AnnotatorInfo:
        """The annotator of that name, created with ``role`` if missing."""
        try:
            return self.annotator(name)
        except NotFound:
            return self.add_annotator(name, role)

    def annotators(self) -> list[AnnotatorInfo]:
        with self._read() as conn:
            rows = conn.execute(
                select(A.c.id, A.c.name, A.c.role).where(A.c.project_id == self.project_id).order_by(A.c.name)
            ).all()
        return [AnnotatorInfo(r[0], r[1], r[2]) for r in rows]

    def annotator(self, name: str) -> AnnotatorInfo:
        with self._read() as conn:
            row = conn.execute(
                select(A.c.id, A.c.name, A.c.role).where(A.c.project_id == self.project_id, A.c.name == name)
            ).first()
        if row is None:
            raise NotFound(f"no annotator named {name!r} in this project")
        return AnnotatorInfo(row[0], row[1], row[2])
