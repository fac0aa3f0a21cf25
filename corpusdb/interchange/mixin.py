"""``Corpus.import_brat`` / ``import_biorelex`` / ``export_brat`` / ``export_biorelex``.

Why a thin layer: ``sources`` lists the input, ``pipeline`` reads it in chunks (in worker processes
for large imports) into rows, ``importing`` checks and writes everything in one transaction, and
``exporting`` reads through the blindness gate and lays out files. This mixin validates the options,
times the run and assembles the report.

Decisions users see:
* A document is identified by its id (brat: the file stem; BioRelEx: the sentence id) and its text
  hash: the same id and text is reused, the same id with another text is a conflict.
* Importing the same files again changes nothing (identical sets are left alone); a *different* set
  for the same annotator, kind and document is a conflict unless ``replace=True``, which replaces
  its content in the same transaction and bumps its version.
* Names the project's schema does not know are refused (the schema is the project's contract) unless
  ``allow_unknown=True``, which stores them as they are and lists them as schema warnings. Annotation
  sets imported as submitted pass the submit check (``guidelines.validate``) first.
* A brat export writes each document into the subfolder it was imported from (``train/``,
  ``devel/``), so a round trip reproduces the tree; ``flat=True`` writes everything into one folder.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any

from corpusdb.basics.errors import Conflict, InvalidInput, UsageError, must_exist
from corpusdb.basics.gcpause import gc_paused
from corpusdb.basics.records import SET_KINDS, SET_STATUSES, Annotations, Document
from corpusdb.interchange.report import ExportReport, ImportReport
from corpusdb.services.base import ServiceBase
from corpusdb.services.projects import check_annotator_name
from corpusdb.services.sets import current_guideline_version
from corpusdb.store import db

if TYPE_CHECKING:  # readers, writers and the pipeline load with the first import or export (issue #14)
    from corpusdb.interchange.importing import Progress, Target
    from corpusdb.interchange.pipeline import Checks
    from corpusdb.interchange.sources import Source
    from guidelines.schema import Schema

PathLike = str | os.PathLike[str]


def _checks(target: Target, allow_unknown: bool, force: bool) -> Checks:
    from corpusdb.interchange.pipeline import Checks

    submitted = target.kind == "annotation" and target.status == "submitted"
    return Checks(allow_unknown=allow_unknown, submit=submitted and not force)


class InterchangeMixin(ServiceBase):
    """Corpora in and out: brat/BioNLP standoff and BioRelEx JSON, without loss."""

    # -- importing -------------------------------------------------------------------------------
    def import_brat(
        self,
        path: PathLike,
        annotator: str | None = None,
        *,
        kind: str = "annotation",
        status: str = "submitted",
        lenient: bool = False,
        keep_unknown: bool = False,
        replace: bool = False,
        allow_unknown: bool = False,
        force: bool = False,
        progress: Progress | None = None,
        then: Callable[[Any], None] | None = None,
    ) -> ImportReport:
        """Import a brat/BioNLP directory (``.txt`` + ``.ann`` or ``.a1``/``.a2``, subfolders too) or
        one ``.txt`` as ``annotator``'s sets (None with ``kind="gold"``), all or nothing.

        Documents are created as needed (same id and text: reused); the annotator is created if missing
        (role ``system`` for predictions). Raises ``ImportRefused``/``ImportConflict`` listing every
        problem, unless ``lenient``: then the valid documents are imported and the report lists the rest.
        ``keep_unknown`` keeps non-brat lines (BioNLP GI ``W`` lines) verbatim instead of refusing them.
        Documents using names the schema does not define are refused unless ``allow_unknown``;
        annotation sets stored as submitted pass the submit check (``pipeline.Checks``) unless
        ``force`` (as ``submit(force=True)``; the audit trail records it). ``then(conn)`` runs in the
        import's own transaction once the sets are written: whatever it raises undoes the import too
        (a shared-task run and its ``task_run`` row are stored together or not at all).
        """
        t0 = perf_counter()
        with gc_paused():  # from the start: loading the readers and listing the files allocate too
            from corpusdb.interchange.sources import brat_source

            target = self._target(annotator, kind, status, lenient, replace)
            spath = os.fspath(path)
            must_exist(spath)
            schema = self.schema()
            source = brat_source(
                spath, keep_unknown=keep_unknown, schema=schema, checks=_checks(target, allow_unknown, force)
            )
            return self._import(source, schema, "brat", spath, target, t0, progress, forced=force, then=then)

    def import_biorelex(
        self,
        path: PathLike,
        annotator: str | None = None,
        *,
        kind: str = "annotation",
        status: str = "submitted",
        lenient: bool = False,
        replace: bool = False,
        allow_unknown: bool = False,
        force: bool = False,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import a BioRelEx JSON file (one document per sentence) as ``annotator``'s sets; the same
        rules as :meth:`import_brat`."""
        t0 = perf_counter()
        with gc_paused():  # as import_brat
            from corpusdb.interchange.sources import biorelex_source

            target = self._target(annotator, kind, status, lenient, replace)
            spath = os.fspath(path)
            must_exist(spath)
            schema = self.schema()
            source = biorelex_source(spath, schema=schema, checks=_checks(target, allow_unknown, force))
            return self._import(source, schema, "biorelex", spath, target, t0, progress, forced=force)

    def import_texts(self, path: PathLike, *, lenient: bool = False) -> ImportReport:
        """Import plain ``.txt`` files (a folder, searched recursively, or one file) as documents only,
        in one transaction: ids are file stems; the same id and text is reused, another text under a
        known id is a conflict. Raises ``ImportRefused`` listing every problem unless ``lenient``."""
        from corpusdb.interchange.report import refusal
        from corpusdb.interchange.texts import read_texts
        from corpusdb.services.documents import upsert_documents

        self._require("lead", doing="import documents")
        t0 = perf_counter()
        spath = os.fspath(path)
        must_exist(spath)
        docs, problems, rejected = read_texts(spath)
        errors = [p for p in problems if p.severity == "error"]
        if not docs and not errors:
            raise InvalidInput(f"{spath}: no .txt files found")
        if errors and not lenient:
            raise refusal(errors, [], [str(p) for p in problems if p.severity == "warning"])
        with self._write() as conn:
            added = upsert_documents(conn, self.project_id, docs)
            self._audit(conn, "import_texts", spath, documents=len(docs), added=added.added,
                        rejected=len(rejected))  # fmt: skip
        return ImportReport(
            format="texts", path=spath, annotator=None, kind="documents", status="",
            documents=len(docs), documents_added=added.added, documents_existing=added.unchanged,
            sets_created=0, sets_replaced=0, sets_unchanged=0, items={}, annotator_created=False,
            warnings=tuple(str(p) for p in problems if p.severity == "warning"), schema_warnings=(),
            rejected=tuple(rejected), problems=tuple(errors), seconds=perf_counter() - t0,
        )  # fmt: skip

    def _target(self, annotator: str | None, kind: str, status: str, lenient: bool, replace: bool) -> Target:
        from corpusdb.interchange.importing import Target

        self._require("lead", doing="import annotations")
        if kind not in SET_KINDS:
            raise UsageError(f"kind {kind!r} is not one of {', '.join(SET_KINDS)}")
        if status not in SET_STATUSES:
            raise UsageError(f"status {status!r} is not one of {', '.join(SET_STATUSES)}")
        if kind == "gold":
            if annotator is not None:
                raise UsageError("gold belongs to the adjudication, not to an annotator: omit --annotator")
        elif annotator is None or not annotator.strip() or annotator != annotator.strip():
            raise UsageError(f"importing {kind} sets needs an annotator name (--annotator NAME)")
        else:
            check_annotator_name(annotator)
        role = "system" if kind == "prediction" else "annotator"
        return Target(annotator, role, kind, status, replace, lenient)

    def _import(
        self,
        source: Source,
        schema: Schema,
        fmt: str,
        path: str,
        target: Target,
        t0: float,
        progress: Progress | None,
        *,
        forced: bool = False,
        then: Callable[[Any], None] | None = None,
    ) -> ImportReport:

        from corpusdb.interchange.importing import load

        if not source.external_ids and not source.problems:
            raise InvalidInput(f"{path}: no documents found")
        # One write transaction for the whole run: chunks are read (by workers for large imports)
        # while earlier ones are written; a refusal rolls everything back.
        holder = f"an import of {len(source.external_ids):,} documents from {path}"
        with gc_paused(), self._write(holder=holder) as conn, db.bulk_cache(conn):
            out = load(
                conn,
                project_id=self.project_id,
                guideline_version=current_guideline_version(conn, self.project_id),
                schema=schema,
                target=target,
                external_ids=source.external_ids,
                chunks=source.chunks,
                reread=source.reread,
                problems=source.problems,
                progress=progress,
            )
            rejected = [*source.rejected, *out.rejected]
            self._check_groundings(conn, schema, source.external_ids, target, forced, out)
            if then is not None:
                then(conn)
            self._audit(
                conn, f"import_{fmt}", path, annotator=target.annotator, kind=target.kind, status=target.status,
                documents=out.documents, sets_created=out.sets_created, sets_replaced=out.sets_replaced,
                rejected=len(rejected), **({"forced": True} if forced else {}),
            )  # fmt: skip
        return ImportReport(
            format=fmt,
            path=path,
            annotator=target.annotator,
            kind=target.kind,
            status=target.status,
            documents=out.documents,
            documents_added=out.documents_added,
            documents_existing=out.documents_existing,
            sets_created=out.sets_created,
            sets_replaced=out.sets_replaced,
            sets_unchanged=out.sets_unchanged,
            items=out.items,
            annotator_created=out.annotator_created,
            warnings=tuple(out.warnings),
            schema_warnings=tuple(out.schema_warnings),
            rejected=tuple(rejected),
            problems=(*out.problems, *out.conflicts, *out.unknown_problems),
            seconds=perf_counter() - t0,
            notes=tuple(out.notes),
        )

    def _check_groundings(
        self, conn: Any, schema: Schema, external_ids: Any, target: Target, forced: bool, out: Any
    ) -> None:
        """Sets imported as submitted pass ``submit``'s knowledge-base check too (unknown, obsolete,
        off-branch ids): its errors refuse the import (all or nothing), its warnings are listed;
        with ``--lenient`` every such problem is listed as a warning and the sets are kept."""
        from corpusdb.interchange.report import refusal
        from corpusdb.kb.check import stored_problems

        if target.status != "submitted" or forced:
            return
        found = stored_problems(conn, schema, self.project_id, external_ids, target.annotator, target.kind)
        bad = [p for p in found if p.severity == "error"]
        if bad and not target.lenient:
            raise refusal([*out.problems, *bad], out.conflicts, out.warnings)
        out.warnings += [f"{p.file}: {p.message}" for p in found if p.severity == "warning" or target.lenient]

    # -- exporting -------------------------------------------------------------------------------
    def export_brat(
        self,
        outdir: PathLike,
        annotator: str | None = None,
        *,
        gold: bool = False,
        kind: str | None = None,
        documents: Sequence[str] | None = None,
        flat: bool = False,
        overwrite: bool = False,
    ) -> ExportReport:
        """Write ``annotator``'s sets (default: your own) or gold (``gold=True``) as brat files under
        ``outdir``, in the folders they were imported from (``flat``: all in ``outdir``).

        Only sets this user may read are exported (blindness); hidden ones are counted in the report.
        Nothing is written when any document cannot be written or, without ``overwrite``, a file exists.
        """
        from corpusdb.basics.clusters import drawing_type
        from corpusdb.interchange import exporting

        items, hidden = self._export_items(annotator, gold, kind, documents)
        files, left_out = exporting.plan_brat_files(items, flat, drawing_type(self.schema()))  # type: ignore[attr-defined]
        written = exporting.write_files(outdir, files, overwrite=overwrite)
        return ExportReport(
            "brat",
            os.fspath(outdir),
            len(items),
            tuple(written),
            hidden,
            (*left_out, *self._hidden_note(hidden)),
        )

    def export_biorelex(
        self,
        path: PathLike,
        annotator: str | None = None,
        *,
        gold: bool = False,
        kind: str | None = None,
        documents: Sequence[str] | None = None,
        overwrite: bool = False,
        derived: bool = False,
    ) -> ExportReport:
        """Write the chosen sets as one BioRelEx JSON file (sentences in import order), equal as data
        to the file they were imported from; the same choice and blindness as :meth:`export_brat`.

        ``derived``: add the relations the schema's ``[[derive]]`` rules derive, each marked as a
        release marks it (``"implicit": true`` and ``"derived": RULE``). Off by default, because an
        export gives back what was imported, byte for byte (issue 28)."""
        from importers.biorelex import format_biorelex

        items, hidden = self._export_items(annotator, gold, kind, documents)
        notes: tuple[str, ...] = ()
        if derived:
            items, n = self._with_derived_items(items)
            notes = (f"{n} derived relation(s) added, each marked implicit with its rule",)
        text = format_biorelex(items)
        target = os.fspath(path)
        if os.path.exists(target) and not overwrite:
            raise Conflict(f"{target} exists; pass --overwrite to overwrite it")
        with open(target, "wb") as fh:
            fh.write(text.encode("ascii"))
        return ExportReport(
            "biorelex", target, len(items), (target,), hidden, (*notes, *self._hidden_note(hidden))
        )

    def _with_derived_items(
        self, items: list[tuple[Document, Annotations]]
    ) -> tuple[list[tuple[Document, Annotations]], int]:
        """Each document's items with what the schema's rules derive (as a release writes them),
        and how many were derived; a schema without rules derives nothing."""
        from guidelines.derive import with_derived, without_derived

        schema = self.schema()  # type: ignore[attr-defined]
        if not schema.derive:
            return items, 0
        out = [(d, with_derived(schema, without_derived(a))) for d, a in items]
        n = sum(len(a.relations) for _, a in out) - sum(len(without_derived(a).relations) for _, a in items)
        return out, n

    def _export_items(
        self, annotator: str | None, gold: bool, kind: str | None, documents: Sequence[str] | None
    ) -> tuple[list[tuple[Document, Annotations]], int]:

        from corpusdb.interchange import exporting

        with self._read() as conn:
            infos, hidden = exporting.choose_sets(
                conn,
                self.project_id,
                self.actor,
                annotator=annotator,
                gold=gold,
                kind=kind,
                documents=documents,
            )
            return exporting.load_for_export(conn, infos), hidden

    @staticmethod
    def _hidden_note(hidden: int) -> tuple[str, ...]:
        if not hidden:
            return ()
        return (f"{hidden} set(s) left out: hidden until every annotator of their document has submitted",)
