"""The one Python API: the CLI, the TUI and users' scripts all go through ``Corpus``.

    >>> from corpusdb.api import Corpus
    >>> corpus = Corpus.create("demo", schema="bb-2011", url="sqlite:///demo.sqlite")  # doctest: +SKIP
    >>> alice = Corpus.open("demo", url="sqlite:///demo.sqlite", user="alice")  # doctest: +SKIP

``Corpus`` is assembled from one mixin per job (projects, documents, sets, status, ...); each
method opens its own short transaction. Acting as a named user (``user=``) applies that user's
role and the blindness rules; without one you act as the database owner, with a lead's rights.
"""

from __future__ import annotations

from pathlib import Path

from sqlalchemy import Engine, select

from corpusdb.basics.errors import PermissionDenied
from corpusdb.interchange.formats_mixin import FormatsMixin
from corpusdb.kb.service import KnowledgeBaseMixin
from corpusdb.recommend.service import RecommendMixin
from corpusdb.relevance.service import RelevanceMixin
from corpusdb.reports.evaluations import EvaluationMixin
from corpusdb.reports.progress import ProgressMixin
from corpusdb.reports.service import AgreementMixin
from corpusdb.search.service import SearchMixin
from corpusdb.services.base import OWNER, Actor
from corpusdb.services.documents import DocumentsMixin
from corpusdb.services.history import HistoryMixin
from corpusdb.services.hygiene import HygieneMixin
from corpusdb.services.projects import (
    ProjectMixin,
    insert_project,
    project_id_by_name,
    resolve_actor,
    resolve_schema,
)
from corpusdb.services.sets import SetsMixin
from corpusdb.services.skips import SkipsMixin
from corpusdb.services.team import TeamMixin, connection_annotator
from corpusdb.store import db, migrate, tables
from corpusdb.workflow import WorkflowMixin
from corpusdb.workflow.groups import GroupsMixin
from corpusdb.workflow.status import StatusMixin
from corpusdb.workflow.tasks import SharedTasksMixin
from guidelines.schema import Schema


class Corpus(
    RecommendMixin,
    SharedTasksMixin,
    SearchMixin,
    RelevanceMixin,
    AgreementMixin,
    EvaluationMixin,
    ProgressMixin,
    WorkflowMixin,
    FormatsMixin,
    GroupsMixin,
    HygieneMixin,
    HistoryMixin,
    StatusMixin,
    TeamMixin,
    KnowledgeBaseMixin,
    SkipsMixin,
    SetsMixin,
    DocumentsMixin,
    ProjectMixin,
):
    """A project in a corpusdb database, seen by one actor."""

    @classmethod
    def create(
        cls,
        name: str,
        schema: str | Path | Schema,
        *,
        url: str | None = None,
        engine: Engine | None = None,
        guideline_text: str | None = None,
        note: str = "initial version",
    ) -> Corpus:
        """Create a project (upgrading or initialising the database first) and open it as owner."""
        sch = resolve_schema(schema)  # before touching the database: a bad schema leaves no file
        engine = engine or db.make_engine(url)
        new_file = None if db.exists(engine) else db.sqlite_file(engine)
        try:
            migrate.upgrade(engine)
            with db.write(engine) as conn:
                pid = insert_project(conn, name, sch, guideline_text, note)
        except BaseException:
            if new_file is not None:  # a failed init leaves no empty database behind
                engine.dispose()
                for leftover in (new_file, *(Path(f"{new_file}{s}") for s in ("-wal", "-shm"))):
                    leftover.unlink(missing_ok=True)
            raise
        return cls(engine, pid, OWNER)

    @classmethod
    def open(
        cls,
        project: str | None = None,
        *,
        url: str | None = None,
        engine: Engine | None = None,
        user: str | None = None,
    ) -> Corpus:
        """Open a project (the only one when unnamed) as ``user`` (an annotator name) or as owner.

        Connected to PostgreSQL as a team login (``corpusdb team login``), the connection's role is
        the user: ``user`` may only repeat that annotator's name, and the server's row-level security
        applies the same rules as this API."""
        engine = engine or db.make_engine(url)
        migrate.ensure_current(engine)
        with db.read(engine) as conn:
            pid = project_id_by_name(conn, project)
            role, bound = connection_annotator(conn, pid)
            if role is not None:
                if bound is None:
                    raise PermissionDenied(f"the login role {role} is no annotator of this project")
                if user is not None and user != bound:
                    raise PermissionDenied(
                        f"connected as the team login {role} (annotator {bound}): acting as {user} is refused; "
                        "the connection's role is the user"
                    )
                user = bound
            actor = resolve_actor(conn, pid, user)
        corpus = cls(engine, pid, actor)
        corpus.bound_role = role
        return corpus

    def as_user(self, user: str | None) -> Corpus:
        """The same project seen by another user (None: the owner). Only the owner and leads may
        switch: a handle opened as an annotator cannot become someone else (blindness)."""
        if not self.actor.is_lead:
            raise PermissionDenied(f"{self.actor.label} ({self.actor.role}) may not act as another user")
        if self.bound_role is not None and user != self.actor.name:
            raise PermissionDenied(
                f"connected as the team login {self.bound_role}: the connection's role is the user ({self.actor.label})"
            )
        with db.read(self.engine) as conn:
            actor = resolve_actor(conn, self.project_id, user)
        return type(self)(self.engine, self.project_id, actor)

    @property
    def user(self) -> Actor:
        return self.actor


def list_projects(url: str | None = None, *, engine: Engine | None = None) -> list[str]:
    """Names of the projects in a database."""
    engine = engine or db.make_engine(url)
    migrate.ensure_current(engine)
    with db.read(engine) as conn:
        return [r[0] for r in conn.execute(select(tables.project.c.name).order_by(tables.project.c.name))]
