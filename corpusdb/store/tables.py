"""The store's tables as SQLAlchemy Core ``Table`` objects: what every query and write uses.

GENERATED from corpusdb/store/models.py by ``python -m corpusdb.store.tablegen``: do not edit; change models.py
and regenerate. Why: building SQLModel's table classes imports pydantic, SQLModel and the ORM, which
cost more than an ordinary command itself (issue #14), while the store only needs the tables (for
queries: the schema itself is the migrations', so dialect-only index options are left out). If
models.py has changed since this file was generated (its hash differs from ``MODELS_SHA256``), the
tables come from the models instead: correct, only slower (``tests/test_tables.py`` then fails until
the file is regenerated).
"""

from __future__ import annotations

import hashlib
from datetime import UTC, datetime
from pathlib import Path

from sqlalchemy import (
    JSON,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKeyConstraint,
    Index,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    UniqueConstraint,
    text,
)
from sqlalchemy.sql.naming import conv

MODELS_SHA256 = "958416ea2671e023cb9edb4dd749713b74aeb02958f8f50f93a8d1f91dcb3e9c"


def utcnow() -> datetime:
    """As ``corpusdb.store.models.utcnow``: the default of every ``created``/``updated`` column."""
    return datetime.now(UTC)


# fmt: off
def _build() -> MetaData:
    """The tables, as models.py defines them."""
    metadata = MetaData(naming_convention={"ix": "ix_%(column_0_label)s", "uq": "uq_%(table_name)s_%(column_0_N_name)s", "ck": "ck_%(table_name)s_%(constraint_name)s", "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s", "pk": "pk_%(table_name)s"})
    Table(
        "kb",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("name", String(), nullable=False),
        Column("format", String(), nullable=False),
        Column("source", Text(), nullable=False),
        Column("concepts", Integer(), nullable=False, default=0),
        Column("names", Integer(), nullable=False, default=0),
        Column("version", Integer(), nullable=False, default=1),
        Column("meta", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        Column("updated", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("name", name=conv("uq_kb_name")),
    )
    Table(
        "project",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("name", String(), nullable=False),
        Column("schema_name", String(), nullable=False),
        Column("settings", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("name", name=conv("uq_project_name")),
    )
    Table(
        "annotator",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("role", String(), nullable=False, default="annotator"),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "name", name=conv("uq_annotator_project_id_name")),
        CheckConstraint(text("role IN ('annotator', 'adjudicator', 'lead', 'system')"), name=conv("ck_annotator_role")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_annotator_project_id_project")),
        Index(conv("ix_annotator_project_id"), "project_id"),
    )
    Table(
        "audit_event",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("actor", String(), nullable=False),
        Column("action", String(), nullable=False),
        Column("target", String(), nullable=False, default=""),
        Column("detail", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_audit_event_project_id_project")),
        Index(conv("ix_audit_event_project_id"), "project_id"),
    )
    Table(
        "document",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("external_id", String(), nullable=False),
        Column("text", Text(), nullable=False),
        Column("sha256", String(), nullable=False),
        Column("source", String(), nullable=False, default=""),
        Column("meta", JSON(), nullable=True),
        Column("group_key", String(), nullable=True),
        Column("split", String(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "external_id", name=conv("uq_document_project_id_external_id")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_document_project_id_project")),
        Index(conv("ix_document_group_key"), "group_key"),
        Index(conv("ix_document_project_id"), "project_id"),
        Index(conv("ix_document_sha256"), "sha256"),
        Index(conv("ix_document_split"), "split"),
    )
    Table(
        "guideline",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("version", Integer(), nullable=False),
        Column("schema_name", String(), nullable=False),
        Column("schema_data", JSON(), nullable=True),
        Column("text", Text(), nullable=False),
        Column("note", Text(), nullable=False),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "version", name=conv("uq_guideline_project_id_version")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_guideline_project_id_project")),
        Index(conv("ix_guideline_project_id"), "project_id"),
    )
    Table(
        "kb_concept",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("kb_id", Integer(), nullable=False),
        Column("code", String(), nullable=False),
        Column("label", Text(), nullable=False),
        Column("obsolete", Integer(), nullable=False, default=0),
        Column("replaced_by", JSON(), nullable=True),
        Column("type", String(), nullable=True),
        UniqueConstraint("kb_id", "code", name=conv("uq_kb_concept_kb_id_code")),
        ForeignKeyConstraint(["kb_id"], ["kb.id"], ondelete="CASCADE", name=conv("fk_kb_concept_kb_id_kb")),
    )
    Table(
        "kb_name",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("kb_id", Integer(), nullable=False),
        Column("code", String(), nullable=False),
        Column("name", Text(), nullable=False),
        Column("norm", Text(), nullable=False),
        Column("kind", String(), nullable=False, default="label"),
        ForeignKeyConstraint(["kb_id"], ["kb.id"], ondelete="CASCADE", name=conv("fk_kb_name_kb_id_kb")),
        Index(conv("ix_kb_name_code"), "kb_id", "code"),
        Index(conv("ix_kb_name_norm"), "kb_id", "norm"),
    )
    Table(
        "kb_parent",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("kb_id", Integer(), nullable=False),
        Column("child", String(), nullable=False),
        Column("parent", String(), nullable=False),
        ForeignKeyConstraint(["kb_id"], ["kb.id"], ondelete="CASCADE", name=conv("fk_kb_parent_kb_id_kb")),
        Index(conv("ix_kb_parent_child"), "kb_id", "child"),
        Index(conv("ix_kb_parent_parent"), "kb_id", "parent"),
    )
    Table(
        "login_state",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("failures", Integer(), nullable=False, default=0),
        Column("locked_until", DateTime(timezone=True), nullable=True),
        Column("last_document", String(), nullable=True),
        Column("updated", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "name", name=conv("uq_login_state_project_id_name")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_login_state_project_id_project")),
    )
    Table(
        "recommender",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("kind", String(), nullable=False),
        Column("layer", String(), nullable=False, default="spans"),
        Column("options", JSON(), nullable=True),
        Column("version", Integer(), nullable=False, default=0),
        Column("model", Text(), nullable=True),
        Column("dictionary", Text(), nullable=True),
        Column("stats", JSON(), nullable=True),
        Column("trained", DateTime(timezone=True), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "name", name=conv("uq_recommender_project_id_name")),
        CheckConstraint(text("kind IN ('string', 'tagger', 'external')"), name=conv("ck_recommender_kind")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_recommender_project_id_project")),
    )
    Table(
        "release",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("version", String(), nullable=False),
        Column("previous_id", Integer(), nullable=True),
        Column("seed", Integer(), nullable=True),
        Column("ratios", JSON(), nullable=True),
        Column("manifest", JSON(), nullable=True),
        Column("changelog", JSON(), nullable=True),
        Column("snapshot", JSON(), nullable=True),
        Column("notes", Text(), nullable=False),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "version", name=conv("uq_release_project_id_version")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_release_project_id_project")),
        ForeignKeyConstraint(["previous_id"], ["release.id"], name=conv("fk_release_previous_id_release")),
        Index(conv("ix_release_project_id"), "project_id"),
    )
    Table(
        "shared_task",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("release", String(), nullable=False),
        Column("split", String(), nullable=False),
        Column("metric", String(), nullable=False),
        Column("phases", JSON(), nullable=True),
        Column("phase", String(), nullable=False, default=""),
        Column("ended", JSON(), nullable=True),
        Column("runs_per_team", Integer(), nullable=False, default=5),
        Column("deadline", DateTime(timezone=True), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "name", name=conv("uq_shared_task_project_id_name")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_shared_task_project_id_project")),
    )
    Table(
        "topic",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("topic_id", String(), nullable=False),
        Column("title", Text(), nullable=False),
        Column("need", Text(), nullable=False),
        Column("context", Text(), nullable=False),
        Column("extra", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "topic_id", name=conv("uq_topic_project_id_topic_id")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_topic_project_id_project")),
    )
    Table(
        "annotation_set",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("document_id", Integer(), nullable=False),
        Column("annotator_id", Integer(), nullable=True),
        Column("kind", String(), nullable=False, default="annotation"),
        Column("status", String(), nullable=False, default="assigned"),
        Column("guideline_version", Integer(), nullable=False, default=1),
        Column("version", Integer(), nullable=False, default=0),
        Column("seeded_from", Integer(), nullable=True),
        Column("extra", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        Column("updated", DateTime(timezone=True), nullable=False, default=utcnow),
        Column("submitted", DateTime(timezone=True), nullable=True),
        UniqueConstraint("document_id", "annotator_id", "kind", name=conv("uq_annotation_set_document_id_annotator_id_kind")),
        CheckConstraint(text("kind IN ('annotation', 'gold', 'prediction')"), name=conv("ck_annotation_set_kind")),
        CheckConstraint(text("status IN ('assigned', 'in_progress', 'submitted')"), name=conv("ck_annotation_set_status")),
        ForeignKeyConstraint(["document_id"], ["document.id"], ondelete="CASCADE", name=conv("fk_annotation_set_document_id_document")),
        ForeignKeyConstraint(["annotator_id"], ["annotator.id"], name=conv("fk_annotation_set_annotator_id_annotator")),
        ForeignKeyConstraint(["seeded_from"], ["annotation_set.id"], ondelete="SET NULL", name=conv("fk_annotation_set_seeded_from_annotation_set")),
        Index(conv("ix_annotation_set_annotator_id"), "annotator_id"),
        Index(conv("ix_annotation_set_document_id"), "document_id"),
        Index(conv("uq_annotation_set_gold_per_document"), "document_id", unique=True),  # DDL only (see tablegen): postgresql_where=text("kind = 'gold'"), sqlite_where=text("kind = 'gold'")
    )
    Table(
        "correction",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("document_id", Integer(), nullable=False),
        Column("after_release_id", Integer(), nullable=True),
        Column("item_kind", String(), nullable=False),
        Column("item_local_id", String(), nullable=False),
        Column("action", String(), nullable=False),
        Column("before", JSON(), nullable=True),
        Column("after", JSON(), nullable=True),
        Column("reason", Text(), nullable=False),
        Column("author_id", Integer(), nullable=False),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        CheckConstraint(text("action IN ('add', 'change', 'delete')"), name=conv("ck_correction_action")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_correction_project_id_project")),
        ForeignKeyConstraint(["document_id"], ["document.id"], ondelete="CASCADE", name=conv("fk_correction_document_id_document")),
        ForeignKeyConstraint(["after_release_id"], ["release.id"], name=conv("fk_correction_after_release_id_release")),
        ForeignKeyConstraint(["author_id"], ["annotator.id"], name=conv("fk_correction_author_id_annotator")),
        Index(conv("ix_correction_after_release_id"), "after_release_id"),
        Index(conv("ix_correction_author_id"), "author_id"),
        Index(conv("ix_correction_document_id"), "document_id"),
        Index(conv("ix_correction_project_id"), "project_id"),
    )
    Table(
        "login_password",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("annotator_id", Integer(), nullable=False),
        Column("password_hash", String(), nullable=False),
        Column("generation", Integer(), nullable=False, default=1),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        Column("revoked", DateTime(timezone=True), nullable=True),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_login_password_project_id_project")),
        UniqueConstraint("annotator_id", name=conv("uq_login_password_annotator_id")),
        ForeignKeyConstraint(["annotator_id"], ["annotator.id"], ondelete="CASCADE", name=conv("fk_login_password_annotator_id_annotator")),
    )
    Table(
        "recommender_model",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("recommender_id", Integer(), nullable=False),
        Column("annotator_id", Integer(), nullable=False),
        Column("version", Integer(), nullable=False, default=0),
        Column("base_version", Integer(), nullable=False, default=0),
        Column("model", Text(), nullable=True),
        Column("stats", JSON(), nullable=True),
        Column("trained", DateTime(timezone=True), nullable=True),
        UniqueConstraint("recommender_id", "annotator_id", name=conv("uq_recommender_model_recommender_id_annotator_id")),
        ForeignKeyConstraint(["recommender_id"], ["recommender.id"], ondelete="CASCADE", name=conv("fk_recommender_model_recommender_id_recommender")),
        ForeignKeyConstraint(["annotator_id"], ["annotator.id"], ondelete="CASCADE", name=conv("fk_recommender_model_annotator_id_annotator")),
        Index(conv("ix_recommender_model_annotator_id"), "annotator_id"),
    )
    Table(
        "run",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("annotator_id", Integer(), nullable=False),
        Column("tag", String(), nullable=False),
        Column("source", String(), nullable=False, default=""),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "tag", name=conv("uq_run_project_id_tag")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_run_project_id_project")),
        ForeignKeyConstraint(["annotator_id"], ["annotator.id"], ondelete="CASCADE", name=conv("fk_run_annotator_id_annotator")),
        Index(conv("ix_run_annotator_id"), "annotator_id"),
    )
    Table(
        "task_team",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("task_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("members", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("task_id", "name", name=conv("uq_task_team_task_id_name")),
        ForeignKeyConstraint(["task_id"], ["shared_task.id"], ondelete="CASCADE", name=conv("fk_task_team_task_id_shared_task")),
    )
    Table(
        "team_login",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("project_id", Integer(), nullable=False),
        Column("annotator_id", Integer(), nullable=False),
        Column("role_name", String(), nullable=False),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("project_id", "role_name", name=conv("uq_team_login_project_id_role_name")),
        ForeignKeyConstraint(["project_id"], ["project.id"], ondelete="CASCADE", name=conv("fk_team_login_project_id_project")),
        UniqueConstraint("annotator_id", name=conv("uq_team_login_annotator_id")),
        ForeignKeyConstraint(["annotator_id"], ["annotator.id"], ondelete="CASCADE", name=conv("fk_team_login_annotator_id_annotator")),
        Index(conv("ix_team_login_role_name"), "role_name"),
    )
    Table(
        "decision",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("gold_set_id", Integer(), nullable=False),
        Column("item_kind", String(), nullable=False),
        Column("item_local_id", String(), nullable=False),
        Column("method", String(), nullable=False),
        Column("decided_by_id", Integer(), nullable=True),
        Column("sources", JSON(), nullable=True),
        Column("reason", String(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        Column("superseded_by_id", Integer(), nullable=True),
        Column("before", JSON(), nullable=True),
        Column("after", JSON(), nullable=True),
        CheckConstraint(text("method IN ('unanimous', 'majority', 'adjudicated', 'edited', 'undone', 'corrected')"), name=conv("ck_decision_method")),
        ForeignKeyConstraint(["gold_set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_decision_gold_set_id_annotation_set")),
        ForeignKeyConstraint(["decided_by_id"], ["annotator.id"], name=conv("fk_decision_decided_by_id_annotator")),
        Index(conv("ix_decision_decided_by_id"), "decided_by_id"),
        Index(conv("ix_decision_item"), "gold_set_id", "item_kind", "item_local_id"),
    )
    Table(
        "document_label",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("value", String(), nullable=False),
        Column("extra", JSON(), nullable=True),
        UniqueConstraint("set_id", "name", name=conv("uq_document_label_set_id_name")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_document_label_set_id_annotation_set")),
    )
    Table(
        "edit_history",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("stack", String(), nullable=False),
        Column("position", Integer(), nullable=False),
        Column("description", Text(), nullable=False),
        Column("changes", JSON(), nullable=True),
        Column("version", Integer(), nullable=False, default=0),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("set_id", "stack", "position", name=conv("uq_edit_history_set_id_stack_position")),
        CheckConstraint(text("stack IN ('undo', 'redo')"), name=conv("ck_edit_history_stack")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_edit_history_set_id_annotation_set")),
    )
    Table(
        "entity",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("local_id", String(), nullable=False),
        Column("type", String(), nullable=False),
        Column("members", JSON(), nullable=True),
        Column("attributes", JSON(), nullable=True),
        Column("groundings", JSON(), nullable=True),
        Column("extra", JSON(), nullable=True),
        UniqueConstraint("set_id", "local_id", name=conv("uq_entity_set_id_local_id")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_entity_set_id_annotation_set")),
    )
    Table(
        "note",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("local_id", String(), nullable=False),
        Column("type", String(), nullable=False),
        Column("target", String(), nullable=False),
        Column("text", Text(), nullable=False),
        Column("extra", JSON(), nullable=True),
        UniqueConstraint("set_id", "local_id", name=conv("uq_note_set_id_local_id")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_note_set_id_annotation_set")),
    )
    Table(
        "queue_position",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("ordering", String(), nullable=False),
        Column("rank", Integer(), nullable=False),
        Column("score", Float(), nullable=False, default=0.0),
        Column("seed", Integer(), nullable=False, default=0),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("set_id", name=conv("uq_queue_position_set_id")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_queue_position_set_id_annotation_set")),
    )
    Table(
        "run_entry",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("run_id", Integer(), nullable=False),
        Column("topic", String(), nullable=False),
        Column("doc", String(), nullable=False),
        Column("rank", Integer(), nullable=False),
        Column("score", Float(), nullable=False),
        UniqueConstraint("run_id", "topic", "doc", name=conv("uq_run_entry_run_id_topic_doc")),
        ForeignKeyConstraint(["run_id"], ["run.id"], ondelete="CASCADE", name=conv("fk_run_entry_run_id_run")),
    )
    Table(
        "set_skip",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("reason", Text(), nullable=False),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("set_id", name=conv("uq_set_skip_set_id")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_set_skip_set_id_annotation_set")),
    )
    Table(
        "span",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("local_id", String(), nullable=False),
        Column("type", String(), nullable=False),
        Column("fragments", JSON(), nullable=True),
        Column("start", Integer(), nullable=False, default=-1),
        Column("stop", Integer(), nullable=False, default=-1),
        Column("text", Text(), nullable=False),
        Column("attributes", JSON(), nullable=True),
        Column("groundings", JSON(), nullable=True),
        Column("extra", JSON(), nullable=True),
        UniqueConstraint("set_id", "local_id", name=conv("uq_span_set_id_local_id")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_span_set_id_annotation_set")),
        Index(conv("ix_span_type_set"), "type", "set_id"),
    )
    Table(
        "suggestion",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("recommender_id", Integer(), nullable=False),
        Column("version", String(), nullable=False, default=""),
        Column("kind", String(), nullable=False, default="span"),
        Column("key", String(), nullable=False),
        Column("type", String(), nullable=False),
        Column("start", Integer(), nullable=False, default=-1),
        Column("stop", Integer(), nullable=False, default=-1),
        Column("fragments", JSON(), nullable=True),
        Column("text", Text(), nullable=False),
        Column("score", Float(), nullable=False, default=0.0),
        Column("payload", JSON(), nullable=True),
        Column("status", String(), nullable=False, default="open"),
        Column("item_local_id", String(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        Column("decided", DateTime(timezone=True), nullable=True),
        UniqueConstraint("set_id", "recommender_id", "key", name=conv("uq_suggestion_set_id_recommender_id_key")),
        CheckConstraint(text("status IN ('open', 'accepted', 'rejected')"), name=conv("ck_suggestion_status")),
        CheckConstraint(text("kind IN ('span', 'relation')"), name=conv("ck_suggestion_kind")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_suggestion_set_id_annotation_set")),
        ForeignKeyConstraint(["recommender_id"], ["recommender.id"], ondelete="CASCADE", name=conv("fk_suggestion_recommender_id_recommender")),
        Index(conv("ix_suggestion_recommender_id"), "recommender_id"),
    )
    Table(
        "task_run",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("task_id", Integer(), nullable=False),
        Column("team_id", Integer(), nullable=False),
        Column("annotator_id", Integer(), nullable=False),
        Column("name", String(), nullable=False),
        Column("phase", String(), nullable=False),
        Column("documents", Integer(), nullable=False, default=0),
        Column("scores", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        UniqueConstraint("task_id", "team_id", "phase", "name", name=conv("uq_task_run_task_id_team_id_phase_name")),
        ForeignKeyConstraint(["task_id"], ["shared_task.id"], ondelete="CASCADE", name=conv("fk_task_run_task_id_shared_task")),
        ForeignKeyConstraint(["team_id"], ["task_team.id"], ondelete="CASCADE", name=conv("fk_task_run_team_id_task_team")),
        ForeignKeyConstraint(["annotator_id"], ["annotator.id"], ondelete="CASCADE", name=conv("fk_task_run_annotator_id_annotator")),
        Index(conv("ix_task_run_annotator_id"), "annotator_id"),
        Index(conv("ix_task_run_team_id"), "team_id"),
    )
    Table(
        "task_submission",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("task_id", Integer(), nullable=False),
        Column("team_id", Integer(), nullable=False),
        Column("run", String(), nullable=True),
        Column("files", JSON(), nullable=True),
        Column("submitted_by", String(), nullable=False),
        Column("status", String(), nullable=False, default="queued"),
        Column("problems", JSON(), nullable=True),
        Column("created", DateTime(timezone=True), nullable=False, default=utcnow),
        ForeignKeyConstraint(["task_id"], ["shared_task.id"], ondelete="CASCADE", name=conv("fk_task_submission_task_id_shared_task")),
        ForeignKeyConstraint(["team_id"], ["task_team.id"], ondelete="CASCADE", name=conv("fk_task_submission_team_id_task_team")),
        Index(conv("ix_task_submission_team_id"), "team_id"),
    )
    Table(
        "link",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("local_id", String(), nullable=False),
        Column("type", String(), nullable=False),
        Column("source_id", Integer(), nullable=False),
        Column("target_id", Integer(), nullable=False),
        Column("group_key", String(), nullable=True),
        Column("extra", JSON(), nullable=True),
        UniqueConstraint("set_id", "local_id", name=conv("uq_link_set_id_local_id")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_link_set_id_annotation_set")),
        ForeignKeyConstraint(["source_id"], ["span.id"], name=conv("fk_link_source_id_span")),
        ForeignKeyConstraint(["target_id"], ["span.id"], name=conv("fk_link_target_id_span")),
        Index(conv("ix_link_source_id"), "source_id"),
        Index(conv("ix_link_target_id"), "target_id"),
    )
    Table(
        "relation",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("set_id", Integer(), nullable=False),
        Column("local_id", String(), nullable=False),
        Column("type", String(), nullable=False),
        Column("kind", String(), nullable=False, default="relation"),
        Column("label", Integer(), nullable=True),
        Column("tags", JSON(), nullable=True),
        Column("attributes", JSON(), nullable=True),
        Column("trigger_id", Integer(), nullable=True),
        Column("extra", JSON(), nullable=True),
        UniqueConstraint("set_id", "local_id", name=conv("uq_relation_set_id_local_id")),
        CheckConstraint(text("kind IN ('relation', 'event')"), name=conv("ck_relation_kind")),
        CheckConstraint(text("label IS NULL OR label IN (-1, 0, 1)"), name=conv("ck_relation_label")),
        ForeignKeyConstraint(["set_id"], ["annotation_set.id"], ondelete="CASCADE", name=conv("fk_relation_set_id_annotation_set")),
        ForeignKeyConstraint(["trigger_id"], ["span.id"], name=conv("fk_relation_trigger_id_span")),
        Index(conv("ix_relation_trigger_id"), "trigger_id"),
    )
    Table(
        "relation_arg",
        metadata,
        Column("id", Integer(), primary_key=True, nullable=False),
        Column("relation_id", Integer(), nullable=False),
        Column("position", Integer(), nullable=False),
        Column("role", String(), nullable=False),
        Column("span_id", Integer(), nullable=True),
        Column("arg_relation_id", Integer(), nullable=True),
        Column("entity_id", Integer(), nullable=True),
        UniqueConstraint("relation_id", "position", name=conv("uq_relation_arg_relation_id_position")),
        CheckConstraint(text("(CASE WHEN span_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN arg_relation_id IS NULL THEN 0 ELSE 1 END) + (CASE WHEN entity_id IS NULL THEN 0 ELSE 1 END) = 1"), name=conv("ck_relation_arg_one_target")),
        ForeignKeyConstraint(["relation_id"], ["relation.id"], ondelete="CASCADE", name=conv("fk_relation_arg_relation_id_relation")),
        ForeignKeyConstraint(["span_id"], ["span.id"], name=conv("fk_relation_arg_span_id_span")),
        ForeignKeyConstraint(["arg_relation_id"], ["relation.id"], name=conv("fk_relation_arg_arg_relation_id_relation")),
        ForeignKeyConstraint(["entity_id"], ["entity.id"], name=conv("fk_relation_arg_entity_id_entity")),
        Index(conv("ix_relation_arg_arg_relation_id"), "arg_relation_id"),
        Index(conv("ix_relation_arg_entity_id"), "entity_id"),
        Index(conv("ix_relation_arg_span_id"), "span_id"),
    )
    return metadata
# fmt: on


def _models_unchanged() -> bool:
    """models.py is the one this file was generated from (always so in a released package)."""
    try:
        source = Path(__file__).with_name("models.py").read_bytes()
    except OSError:
        return False
    return hashlib.sha256(source.replace(b"\r\n", b"\n")).hexdigest() == MODELS_SHA256


if _models_unchanged():
    metadata = _build()
else:  # stale: the models' own tables (SQLModel, slower to import) rather than outdated ones
    from corpusdb.store.models import metadata

annotation_set = metadata.tables["annotation_set"]
annotator = metadata.tables["annotator"]
audit_event = metadata.tables["audit_event"]
correction = metadata.tables["correction"]
decision = metadata.tables["decision"]
document = metadata.tables["document"]
document_label = metadata.tables["document_label"]
edit_history = metadata.tables["edit_history"]
entity = metadata.tables["entity"]
guideline = metadata.tables["guideline"]
kb = metadata.tables["kb"]
kb_concept = metadata.tables["kb_concept"]
kb_name = metadata.tables["kb_name"]
kb_parent = metadata.tables["kb_parent"]
link = metadata.tables["link"]
login_password = metadata.tables["login_password"]
login_state = metadata.tables["login_state"]
note = metadata.tables["note"]
project = metadata.tables["project"]
queue_position = metadata.tables["queue_position"]
recommender = metadata.tables["recommender"]
recommender_model = metadata.tables["recommender_model"]
relation = metadata.tables["relation"]
relation_arg = metadata.tables["relation_arg"]
release = metadata.tables["release"]
run = metadata.tables["run"]
run_entry = metadata.tables["run_entry"]
set_skip = metadata.tables["set_skip"]
shared_task = metadata.tables["shared_task"]
span = metadata.tables["span"]
suggestion = metadata.tables["suggestion"]
task_run = metadata.tables["task_run"]
task_submission = metadata.tables["task_submission"]
task_team = metadata.tables["task_team"]
team_login = metadata.tables["team_login"]
topic = metadata.tables["topic"]
