"""The tables (SQLModel). Only the store's service modules touch these; records cross layers.

Design notes (why):
* Items of a set (spans, relations, links, notes, labels) carry a ``local_id`` unique within the
  set (``T3`` from standoff, generated otherwise), so references inside a set and a standoff round
  trip are stable even when rows are rewritten.
* Relations and events share one table (``kind``); their arguments live in ``relation_arg`` with a
  foreign key to a span *or* to another relation, so events whose arguments are events are kept.
* Links are binary with foreign keys to both spans; an n-member brat ``*`` line is a star sharing
  ``group_key``.
* JSON columns hold open-ended data (attributes, groundings, format extras); everything that is
  queried or constrained is a real column.
* The gold set of a document has no annotator (it belongs to the adjudication); a partial unique
  index keeps it to one per document.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from sqlalchemy import JSON, CheckConstraint, Column, DateTime, ForeignKey, Index, Text, UniqueConstraint
from sqlalchemy import text as sql_text
from sqlmodel import Field, SQLModel

# A naming convention so that Alembic (batch mode on SQLite) can name and alter every constraint.
SQLModel.metadata.naming_convention = {
    "ix": "ix_%(column_0_label)s",
    "uq": "uq_%(table_name)s_%(column_0_N_name)s",
    "ck": "ck_%(table_name)s_%(constraint_name)s",
    "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
    "pk": "pk_%(table_name)s",
}


def utcnow() -> datetime:
    return datetime.now(UTC)


def _json(nullable: bool = True) -> Any:
    return Field(default=None, sa_column=Column(JSON, nullable=nullable))


def _ts() -> Any:
    return Field(
        default_factory=utcnow, sa_column=Column(DateTime(timezone=True), nullable=False, default=utcnow)
    )


def _fk(target: str, *, nullable: bool = False, ondelete: str | None = None, index: bool = True) -> Any:
    return Field(
        default=None,
        sa_column=Column(ForeignKey(target, ondelete=ondelete), nullable=nullable, index=index),
    )


class ProjectRow(SQLModel, table=True):
    __tablename__ = "project"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    schema_name: str
    settings: dict[str, Any] | None = _json()
    created: datetime = _ts()


class GuidelineRow(SQLModel, table=True):
    """One version of a project's schema and guideline text; sets record the version they used."""

    __tablename__ = "guideline"
    __table_args__ = (UniqueConstraint("project_id", "version"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE")
    version: int
    schema_name: str
    schema_data: dict[str, Any] | None = _json()
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    note: str = Field(default="", sa_column=Column(Text, nullable=False))
    created: datetime = _ts()


class AnnotatorRow(SQLModel, table=True):
    __tablename__ = "annotator"
    __table_args__ = (
        UniqueConstraint("project_id", "name"),
        CheckConstraint("role IN ('annotator', 'adjudicator', 'lead', 'system')", name="role"),
    )
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE")
    name: str
    role: str = "annotator"
    created: datetime = _ts()


class DocumentRow(SQLModel, table=True):
    __tablename__ = "document"
    __table_args__ = (UniqueConstraint("project_id", "external_id"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE")
    external_id: str
    text: str = Field(sa_column=Column(Text, nullable=False))
    sha256: str = Field(index=True)
    source: str = ""
    meta: dict[str, Any] | None = _json()
    group_key: str | None = Field(default=None, index=True)
    split: str | None = Field(default=None, index=True)
    created: datetime = _ts()


class AnnotationSetRow(SQLModel, table=True):
    """One annotator's copy of one document (or the gold set, or a system's prediction)."""

    __tablename__ = "annotation_set"
    __table_args__ = (
        UniqueConstraint("document_id", "annotator_id", "kind"),
        CheckConstraint("kind IN ('annotation', 'gold', 'prediction')", name="kind"),
        CheckConstraint("status IN ('assigned', 'in_progress', 'submitted')", name="status"),
        Index(
            "uq_annotation_set_gold_per_document",
            "document_id",
            unique=True,
            sqlite_where=sql_text("kind = 'gold'"),
            postgresql_where=sql_text("kind = 'gold'"),
        ),
    )
    id: int | None = Field(default=None, primary_key=True)
    document_id: int = _fk("document.id", ondelete="CASCADE")
    annotator_id: int | None = _fk("annotator.id", nullable=True)
    kind: str = "annotation"
    status: str = "assigned"
    guideline_version: int = 1
    version: int = 0
    seeded_from: int | None = _fk("annotation_set.id", nullable=True, ondelete="SET NULL", index=False)
    extra: dict[str, Any] | None = _json()
    created: datetime = _ts()
    updated: datetime = _ts()
    submitted: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class SpanRow(SQLModel, table=True):
    __tablename__ = "span"
    __table_args__ = (
        UniqueConstraint("set_id", "local_id"),
        # search by type (``corpusdb search type:Habitat``): the spans of a type, and their count per
        # set from the index alone (migration 0017)
        Index("ix_span_type_set", "type", "set_id"),
    )
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    local_id: str
    type: str
    fragments: list[list[int]] | None = _json()
    """``[[start, stop], ...]``; NULL for the one fragment ``[start, stop]`` (most spans: lean rows)."""
    start: int = -1
    stop: int = -1
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    attributes: dict[str, Any] | None = _json()
    groundings: list[dict[str, Any]] | None = _json()
    extra: dict[str, Any] | None = _json()


class RelationRow(SQLModel, table=True):
    """A relation or an event (``kind``); ``label`` 1 asserted / 0 speculative / -1 negated."""

    __tablename__ = "relation"
    __table_args__ = (
        UniqueConstraint("set_id", "local_id"),
        CheckConstraint("kind IN ('relation', 'event')", name="kind"),
        CheckConstraint("label IS NULL OR label IN (-1, 0, 1)", name="label"),
    )
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    local_id: str
    type: str
    kind: str = "relation"
    label: int | None = None
    tags: list[str] | None = _json()
    attributes: dict[str, Any] | None = _json()
    trigger_id: int | None = _fk("span.id", nullable=True)
    extra: dict[str, Any] | None = _json()


class RelationArgRow(SQLModel, table=True):
    __tablename__ = "relation_arg"
    __table_args__ = (
        UniqueConstraint("relation_id", "position"),
        CheckConstraint(
            "(CASE WHEN span_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN arg_relation_id IS NULL THEN 0 ELSE 1 END)"
            " + (CASE WHEN entity_id IS NULL THEN 0 ELSE 1 END) = 1",
            name="one_target",
        ),
    )
    id: int | None = Field(default=None, primary_key=True)
    relation_id: int = _fk("relation.id", ondelete="CASCADE", index=False)
    position: int
    role: str
    span_id: int | None = _fk("span.id", nullable=True)
    arg_relation_id: int | None = _fk("relation.id", nullable=True)
    entity_id: int | None = _fk("entity.id", nullable=True)
    """An argument that is an entity (a cluster), not one of its mentions."""


class EntityRow(SQLModel, table=True):
    """An explicit entity: a cluster of the set's spans (``members``: their local ids, in order)."""

    __tablename__ = "entity"
    __table_args__ = (UniqueConstraint("set_id", "local_id"),)
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    local_id: str
    type: str
    members: list[str] | None = _json()
    attributes: dict[str, Any] | None = _json()
    groundings: list[dict[str, Any]] | None = _json()
    extra: dict[str, Any] | None = _json()


class LinkRow(SQLModel, table=True):
    __tablename__ = "link"
    __table_args__ = (UniqueConstraint("set_id", "local_id"),)
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    local_id: str
    type: str
    source_id: int = _fk("span.id")
    target_id: int = _fk("span.id")
    group_key: str | None = None
    extra: dict[str, Any] | None = _json()


class NoteRow(SQLModel, table=True):
    __tablename__ = "note"
    __table_args__ = (UniqueConstraint("set_id", "local_id"),)
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    local_id: str
    type: str
    target: str
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    extra: dict[str, Any] | None = _json()


class DocumentLabelRow(SQLModel, table=True):
    __tablename__ = "document_label"
    __table_args__ = (UniqueConstraint("set_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    name: str
    value: str
    extra: dict[str, Any] | None = _json()


class DecisionRow(SQLModel, table=True):
    """Provenance of one gold item: how it was decided, by whom, from which annotators' items."""

    __tablename__ = "decision"
    __table_args__ = (
        Index("ix_decision_item", "gold_set_id", "item_kind", "item_local_id"),
        CheckConstraint(
            "method IN ('unanimous', 'majority', 'adjudicated', 'edited', 'undone', 'corrected')",
            name="method",
        ),
    )
    id: int | None = Field(default=None, primary_key=True)
    gold_set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    item_kind: str
    item_local_id: str
    method: str
    decided_by_id: int | None = _fk("annotator.id", nullable=True)
    sources: list[dict[str, Any]] | None = _json()
    reason: str | None = None
    created: datetime = _ts()
    superseded_by_id: int | None = None
    """The decision that revised or undid this one (None: in force). Not a foreign key: see 0008."""
    before: dict[str, Any] | None = _json()
    """``edited``: the source version it was edited from (None: added from nothing)."""
    after: dict[str, Any] | None = _json()
    """``edited``: the gold version put (None: removed)."""


class ReleaseRow(SQLModel, table=True):
    """An immutable release: the frozen gold snapshot it was built from, its manifest and log."""

    __tablename__ = "release"
    __table_args__ = (UniqueConstraint("project_id", "version"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE")
    version: str
    previous_id: int | None = _fk("release.id", nullable=True, index=False)
    seed: int | None = None
    ratios: dict[str, Any] | None = _json()
    manifest: dict[str, Any] | None = _json()
    changelog: dict[str, Any] | None = _json()
    snapshot: dict[str, Any] | None = _json()
    notes: str = Field(default="", sa_column=Column(Text, nullable=False))
    created: datetime = _ts()


class CorrectionRow(SQLModel, table=True):
    """A change to gold after a release, with a mandatory reason and author."""

    __tablename__ = "correction"
    __table_args__ = (CheckConstraint("action IN ('add', 'change', 'delete')", name="action"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE")
    document_id: int = _fk("document.id", ondelete="CASCADE")
    after_release_id: int | None = _fk("release.id", nullable=True)
    item_kind: str
    item_local_id: str
    action: str
    before: dict[str, Any] | None = _json()
    after: dict[str, Any] | None = _json()
    reason: str = Field(sa_column=Column(Text, nullable=False))
    author_id: int = _fk("annotator.id")
    created: datetime = _ts()


class AuditEventRow(SQLModel, table=True):
    """Who did what to which set and when (assign, reopen, submit...): the project's trail."""

    __tablename__ = "audit_event"
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE")
    actor: str
    action: str
    target: str = ""
    detail: dict[str, Any] | None = _json()
    created: datetime = _ts()


class TopicRow(SQLModel, table=True):
    """A retrieval topic (TREC): the information need documents are judged against."""

    __tablename__ = "topic"
    __table_args__ = (UniqueConstraint("project_id", "topic_id"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    topic_id: str
    title: str = Field(default="", sa_column=Column(Text, nullable=False))
    need: str = Field(default="", sa_column=Column(Text, nullable=False))
    context: str = Field(default="", sa_column=Column(Text, nullable=False))
    extra: dict[str, Any] | None = _json()
    created: datetime = _ts()


class RunRow(SQLModel, table=True):
    """A submitted retrieval run (TREC run file), owned by a system annotator named by its tag."""

    __tablename__ = "run"
    __table_args__ = (UniqueConstraint("project_id", "tag"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    annotator_id: int = _fk("annotator.id", ondelete="CASCADE")
    tag: str
    source: str = ""
    created: datetime = _ts()


class SharedTaskRow(SQLModel, table=True):
    """A shared task on a release's split: its official metric, phases, run limit and deadline."""

    __tablename__ = "shared_task"
    __table_args__ = (UniqueConstraint("project_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    name: str
    release: str
    split: str
    metric: str
    phases: list[str] | None = _json()
    phase: str = ""
    """The open phase ('' once every phase has ended)."""
    ended: list[str] | None = _json()
    """Phases that have ended (their leaderboards are visible to teams)."""
    runs_per_team: int = 5
    deadline: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))
    created: datetime = _ts()


class TaskTeamRow(SQLModel, table=True):
    """A participating team; ``members`` are annotator names (logins in team mode)."""

    __tablename__ = "task_team"
    __table_args__ = (UniqueConstraint("task_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    task_id: int = _fk("shared_task.id", ondelete="CASCADE", index=False)
    name: str
    members: list[str] | None = _json()
    created: datetime = _ts()


class TaskRunRow(SQLModel, table=True):
    """A submitted run: its predictions are the prediction sets of ``annotator_id`` (a system)."""

    __tablename__ = "task_run"
    __table_args__ = (UniqueConstraint("task_id", "team_id", "phase", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    task_id: int = _fk("shared_task.id", ondelete="CASCADE", index=False)
    team_id: int = _fk("task_team.id", ondelete="CASCADE")
    annotator_id: int = _fk("annotator.id", ondelete="CASCADE")
    name: str
    phase: str
    documents: int = 0
    scores: dict[str, Any] | None = _json()
    """The run's entry in the task's scoring (``corpusdb.evaluation/1`` system entry), once scored."""
    created: datetime = _ts()


class TaskSubmissionRow(SQLModel, table=True):
    """A run a team member handed in (team mode): its files as sent, queued until an organizer's
    ``task intake`` validates and stores it as a run (``status`` stored or refused, ``problems``
    saying why, each with file and line). Members insert only for their own team, as themselves."""

    __tablename__ = "task_submission"
    id: int | None = Field(default=None, primary_key=True)
    task_id: int = _fk("shared_task.id", ondelete="CASCADE", index=False)
    team_id: int = _fk("task_team.id", ondelete="CASCADE")
    run: str | None = None
    files: dict[str, Any] | None = _json()
    """File name -> its text."""
    submitted_by: str
    status: str = "queued"
    problems: list[str] | None = _json()
    created: datetime = _ts()


class RunEntryRow(SQLModel, table=True):
    """One retrieved document of a run: (topic, document, rank, score)."""

    __tablename__ = "run_entry"
    __table_args__ = (UniqueConstraint("run_id", "topic", "doc"),)
    id: int | None = Field(default=None, primary_key=True)
    run_id: int = _fk("run.id", ondelete="CASCADE", index=False)
    topic: str
    doc: str
    rank: int
    score: float


class TeamLoginRow(SQLModel, table=True):
    """A PostgreSQL login role that *is* an annotator (team mode): the server, not ``--as``, decides
    who is acting, and the row-level security policies (``corpusdb.store.rls``) look the role up here."""

    __tablename__ = "team_login"
    __table_args__ = (UniqueConstraint("project_id", "role_name"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    annotator_id: int = Field(
        default=None,
        sa_column=Column(ForeignKey("annotator.id", ondelete="CASCADE"), nullable=False, unique=True),
    )
    role_name: str = Field(index=True)
    created: datetime = _ts()


class EditHistoryRow(SQLModel, table=True):
    """One entry of an annotator's undo (or redo) stack on one set: the changes that revert (or
    repeat) one action, written by ``edit_set`` in the action's own transaction, so undo survives
    a restart and always matches the set's content (see ``corpusdb.services.undo``)."""

    __tablename__ = "edit_history"
    __table_args__ = (
        UniqueConstraint("set_id", "stack", "position"),
        CheckConstraint("stack IN ('undo', 'redo')", name="stack"),
    )
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    stack: str
    position: int
    description: str = Field(default="", sa_column=Column(Text, nullable=False))
    changes: list[dict[str, Any]] | None = _json()
    version: int = 0
    """The set's version once the action was saved."""
    created: datetime = _ts()


class SetSkipRow(SQLModel, table=True):
    """An annotator's "skip: irrelevant document" on their set, with the reason (BB 2011 removed
    such documents). The set keeps its status (the annotator submits it as usual); a document with
    a skip is left out of agreement and of releases, and listed with the reason (``corpusdb.services.skips``)."""

    __tablename__ = "set_skip"
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = Field(
        default=None,
        sa_column=Column(ForeignKey("annotation_set.id", ondelete="CASCADE"), nullable=False, unique=True),
    )
    reason: str = Field(sa_column=Column(Text, nullable=False))
    created: datetime = _ts()


class KbRow(SQLModel, table=True):
    """A knowledge base (ontology, taxonomy, vocabulary) loaded into the database, shared by its
    projects: a schema maps a grounding database (``OBT``, ``NCBITaxon``) to it by ``name``."""

    __tablename__ = "kb"
    id: int | None = Field(default=None, primary_key=True)
    name: str = Field(unique=True)
    format: str
    source: str = Field(default="", sa_column=Column(Text, nullable=False))
    concepts: int = 0
    names: int = 0
    version: int = 1
    """1 when added; each ``kb update`` adds one."""
    meta: dict[str, Any] | None = _json()
    created: datetime = _ts()
    updated: datetime = _ts()


class KbConceptRow(SQLModel, table=True):
    """One concept of a knowledge base: its id as the source writes it (``code``) and its label."""

    __tablename__ = "kb_concept"
    __table_args__ = (UniqueConstraint("kb_id", "code"),)
    id: int | None = Field(default=None, primary_key=True)
    kb_id: int = _fk("kb.id", ondelete="CASCADE", index=False)
    code: str
    label: str = Field(default="", sa_column=Column(Text, nullable=False))
    obsolete: int = 0
    """1 for an obsolete concept (an integer: the tables' types stay the few tablegen renders)."""
    replaced_by: list[str] | None = _json()
    type: str | None = None


class KbNameRow(SQLModel, table=True):
    """A name of a concept (its label, or a synonym with its kind), with ``norm`` (casefolded,
    spaces collapsed): what lookups compare, through an index (prefix) and the trigram index."""

    __tablename__ = "kb_name"
    __table_args__ = (
        Index("ix_kb_name_norm", "kb_id", "norm"),
        Index("ix_kb_name_code", "kb_id", "code"),
    )
    id: int | None = Field(default=None, primary_key=True)
    kb_id: int = _fk("kb.id", ondelete="CASCADE", index=False)
    code: str
    name: str = Field(sa_column=Column(Text, nullable=False))
    norm: str = Field(sa_column=Column(Text, nullable=False))
    kind: str = "label"


class KbParentRow(SQLModel, table=True):
    """An ``is_a`` edge (NCBI: child taxon -> parent taxon) between two concepts of one KB."""

    __tablename__ = "kb_parent"
    __table_args__ = (
        Index("ix_kb_parent_child", "kb_id", "child"),
        Index("ix_kb_parent_parent", "kb_id", "parent"),
    )
    id: int | None = Field(default=None, primary_key=True)
    kb_id: int = _fk("kb.id", ondelete="CASCADE", index=False)
    child: str
    parent: str


class RecommenderRow(SQLModel, table=True):
    """A recommender of the project (``corpusdb.recommend``): a string matcher, a trainable tagger or
    a system's predictions, proposing items of one layer. ``model`` is its shared part, learned from
    gold of adjudicated documents and dictionaries only (every member may read it: no annotator's
    unadjudicated work is in it); each annotator's own part is a ``recommender_model`` row."""

    __tablename__ = "recommender"
    __table_args__ = (
        UniqueConstraint("project_id", "name"),
        CheckConstraint("kind IN ('string', 'tagger', 'external')", name="kind"),
    )
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    name: str
    kind: str
    layer: str = "spans"
    options: dict[str, Any] | None = _json()
    version: int = 0
    """Trainings of the shared part so far (0: never trained)."""
    model: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    """The shared part, serialised by its recommender (``corpusdb.recommend.models``)."""
    dictionary: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    """A string matcher's names from TSV dictionaries, packed like ``model`` (read only to train:
    a 10^5-name dictionary must not be parsed each time a document opens)."""
    stats: dict[str, Any] | None = _json()
    trained: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))
    created: datetime = _ts()


class RecommenderModelRow(SQLModel, table=True):
    """One annotator's own part of a recommender, learned from gold and that annotator's own sets:
    only that annotator reads or writes it (blindness; ``PERSONAL`` in ``corpusdb.store.rls``)."""

    __tablename__ = "recommender_model"
    __table_args__ = (UniqueConstraint("recommender_id", "annotator_id"),)
    id: int | None = Field(default=None, primary_key=True)
    recommender_id: int = _fk("recommender.id", ondelete="CASCADE", index=False)
    annotator_id: int = _fk("annotator.id", ondelete="CASCADE")
    version: int = 0
    base_version: int = 0
    """The shared part's version it was trained with."""
    model: str | None = Field(default=None, sa_column=Column(Text, nullable=True))
    stats: dict[str, Any] | None = _json()
    trained: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class SuggestionRow(SQLModel, table=True):
    """A recommender's proposal on one annotator's set: never one of the set's items until accepted
    (then ``item_local_id`` names the item made from it). Rejected ones stay, so they are not
    proposed to that annotator again."""

    __tablename__ = "suggestion"
    __table_args__ = (
        UniqueConstraint("set_id", "recommender_id", "key"),
        CheckConstraint("status IN ('open', 'accepted', 'rejected')", name="status"),
        CheckConstraint("kind IN ('span', 'relation')", name="kind"),
    )
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = _fk("annotation_set.id", ondelete="CASCADE", index=False)
    recommender_id: int = _fk("recommender.id", ondelete="CASCADE")
    version: str = ""
    """The model that proposed it: the shared part's version, ``3.2`` with the annotator's own part 2."""
    kind: str = "span"
    key: str
    """``span:TYPE:0-4`` (``;`` between fragments) or ``relation:...``: one proposal per item."""
    type: str
    start: int = -1
    stop: int = -1
    fragments: list[list[int]] | None = _json()
    text: str = Field(default="", sa_column=Column(Text, nullable=False))
    score: float = 0.0
    payload: dict[str, Any] | None = _json()
    """Relations: their arguments (role, fragments, type) and label."""
    status: str = "open"
    item_local_id: str | None = None
    created: datetime = _ts()
    decided: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True)))


class QueuePositionRow(SQLModel, table=True):
    """Where a set stands in its annotator's queue when ``assign --order`` handed it out (active
    learning: the documents a tagger is least sure of first); the TUI lists documents in this order."""

    __tablename__ = "queue_position"
    id: int | None = Field(default=None, primary_key=True)
    set_id: int = Field(
        default=None,
        sa_column=Column(ForeignKey("annotation_set.id", ondelete="CASCADE"), nullable=False, unique=True),
    )
    ordering: str
    """``uncertainty`` or ``disagreement``."""
    rank: int
    score: float = 0.0
    seed: int = 0
    created: datetime = _ts()


class LoginPasswordRow(SQLModel, table=True):
    """An annotator's password for the login screen on SQLite (``corpusdb team login NAME``): a
    salted scrypt hash (``corpusdb.basics.passwords``), never the password. Revoking keeps the row
    (``revoked`` set) so the login screen can say "revoked" to the right password; ``generation``
    moves on with every change, which ends the sessions opened before it (``corpusdb.store.login_session``)."""

    __tablename__ = "login_password"
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    annotator_id: int = Field(
        default=None,
        sa_column=Column(ForeignKey("annotator.id", ondelete="CASCADE"), nullable=False, unique=True),
    )
    password_hash: str
    generation: int = 1
    created: datetime = _ts()
    revoked: datetime | None = Field(default=None, sa_column=Column(DateTime(timezone=True), nullable=True))


class LoginStateRow(SQLModel, table=True):
    """Per name typed on a login screen: failed logins in a row and the lockout they caused, kept in
    the database so every session process (one per browser) counts the same failures; and, for a
    person, the document their last session was on (a new session resumes there). On PostgreSQL no
    team role may touch it: the login functions of ``corpusdb.store.login_pgsql`` do."""

    __tablename__ = "login_state"
    __table_args__ = (UniqueConstraint("project_id", "name"),)
    id: int | None = Field(default=None, primary_key=True)
    project_id: int = _fk("project.id", ondelete="CASCADE", index=False)
    name: str
    failures: int = 0
    locked_until: datetime | None = Field(
        default=None, sa_column=Column(DateTime(timezone=True), nullable=True)
    )
    last_document: str | None = None
    updated: datetime = _ts()


ALL_TABLES = [
    ProjectRow,
    GuidelineRow,
    AnnotatorRow,
    DocumentRow,
    AnnotationSetRow,
    SpanRow,
    RelationRow,
    RelationArgRow,
    LinkRow,
    NoteRow,
    DocumentLabelRow,
    DecisionRow,
    ReleaseRow,
    CorrectionRow,
    AuditEventRow,
    TopicRow,
    RunRow,
    RunEntryRow,
    TeamLoginRow,
    EditHistoryRow,
    SetSkipRow,
    KbRow,
    KbConceptRow,
    KbNameRow,
    KbParentRow,
    RecommenderRow,
    RecommenderModelRow,
    SuggestionRow,
    QueuePositionRow,
    SharedTaskRow,
    TaskTeamRow,
    TaskRunRow,
    LoginPasswordRow,
    LoginStateRow,
]
metadata = SQLModel.metadata
