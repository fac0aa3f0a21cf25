"""``Corpus.import_file`` / ``export_file`` (BioC, PubTator, CoNLL, spaCy, doccano, Label Studio, Prodigy,
WebAnno TSV), document judgments as TSV, and the interaction network.

Why on top of ``InterchangeMixin``: the same rules hold for every format — an import is one transaction
through ``importing.load`` (all or nothing, every problem listed with file and line, re-import a no-op,
``replace`` to overwrite), and an export reads only the sets the blindness gate lets this user read.
"""

from __future__ import annotations

import os
from collections.abc import Mapping, Sequence
from time import perf_counter
from typing import TYPE_CHECKING, Any

from corpusdb.basics.errors import Conflict, FormatError, InvalidInput, Problem, UsageError, must_exist
from corpusdb.basics.records import Document
from corpusdb.interchange.mixin import InterchangeMixin, PathLike, _checks
from corpusdb.interchange.report import ExportReport, ImportReport

if TYPE_CHECKING:  # readers, writers and the pipeline load with the first import or export (issue #14)
    from corpusdb.interchange.importing import Progress
    from corpusdb.interchange.pipeline import Checks
    from corpusdb.interchange.sources import Source
    from guidelines.schema import Schema
    from importers.standoff import ReadResult


def parsed_source(path: str, result: ReadResult, schema: Schema, checks: Checks | None = None) -> Source:
    """An import source over documents already read (one chunk): what every one-file format gives."""
    from corpusdb.interchange import pipeline
    from corpusdb.interchange.sources import read_source

    checks = pipeline.NO_CHECKS if checks is None else checks
    return read_source(path, result, unit="document", schema=schema, checks=checks)


class FormatsMixin(InterchangeMixin):
    """Every one-file interchange format, in and out, under the rules of brat and BioRelEx imports."""

    def import_file(
        self,
        path: PathLike,
        fmt: str,
        annotator: str | None = None,
        *,
        kind: str = "annotation",
        status: str = "submitted",
        lenient: bool = False,
        replace: bool = False,
        allow_unknown: bool = False,
        force: bool = False,
        options: Mapping[str, Any] | None = None,
        progress: Progress | None = None,
    ) -> ImportReport:
        """Import a file in ``fmt`` (``corpusdb.interchange.formats.READERS``: bioc, bioc-json, pubtator,
        conll, doccano, labelstudio, prodigy, webanno) as ``annotator``'s sets (None with ``kind="gold"``).

        The rules of :meth:`import_brat`: all or nothing unless ``lenient``, every problem listed with
        its file and line, the same file twice changes nothing, a different set needs ``replace``; the
        schema is a contract (unknown names refused unless ``allow_unknown``; sets stored as submitted
        pass the submit check unless ``force``).
        """
        from corpusdb.interchange.formats import reader

        read = reader(fmt)
        target = self._target(annotator, kind, status, lenient, replace)
        t0 = perf_counter()
        spath = os.fspath(path)
        must_exist(spath)
        if not os.path.isfile(spath):
            raise InvalidInput(f"{spath}: no such file")
        schema = self.schema()
        result = read(spath, dict(options or {}))
        source = parsed_source(spath, result, schema, _checks(target, allow_unknown, force))
        return self._import(source, schema, fmt, spath, target, t0, progress, forced=force)

    def export_file(
        self,
        path: PathLike,
        fmt: str,
        annotator: str | None = None,
        *,
        gold: bool = False,
        kind: str | None = None,
        documents: Sequence[str] | None = None,
        overwrite: bool = False,
        options: Mapping[str, Any] | None = None,
    ) -> ExportReport:
        """Write the chosen sets as one file in ``fmt`` (``formats.WRITERS``: bioc, bioc-json, pubtator,
        conll, spacy-jsonl, spacy-docbin); what the format cannot express is counted in the report's
        warnings. The same choice of sets and blindness as :meth:`export_brat`."""
        from corpusdb.interchange.formats import writer

        write = writer(fmt)
        target = os.fspath(path)
        if os.path.exists(target) and not overwrite:
            raise Conflict(f"{target} exists; pass --overwrite to overwrite it")
        from corpusdb.basics.clusters import drawing_type
        from importers.standoff import mention_level

        items, hidden = self._export_items(annotator, gold, kind, documents)
        # clusters reach every writer the one way, as their mentions' links (as brat draws them): an
        # entity, coreference links and Equiv lines are written, or counted as left out, alike
        cluster_type = drawing_type(self.schema())  # type: ignore[attr-defined]
        if fmt != "json":  # JSON keeps entities whole, as release.json does
            items = [(d, mention_level(a, cluster_type)) for d, a in items]
        opts = dict(options or {})
        opts.setdefault("grounding_labels", self._labels_of(items))
        out = write(items, opts)
        _write_bytes(target, out.data)
        return ExportReport(
            fmt, target, len(items), (target,), hidden, (*out.notes, *self._hidden_note(hidden))
        )

    def _labels_of(self, items: Sequence[tuple[Any, Any]]) -> dict[str, str]:
        """Knowledge-base labels of the exported groundings, for the formats that can carry them
        (BioC: ``identifier_label`` beside ``identifier``)."""
        schema = self.schema()  # type: ignore[attr-defined]
        if not schema.knowledge_bases:
            return {}
        from corpusdb.kb.check import grounding_keys, grounding_labels

        keys = {k for _, ann in items for k in grounding_keys(ann)}
        if not keys:
            return {}
        with self._read() as conn:  # type: ignore[attr-defined]
            return grounding_labels(conn, schema, keys)

    # -- document judgments ----------------------------------------------------------------------
    def export_judgments(
        self, path: PathLike, *, documents: Sequence[str] | None = None, overwrite: bool = False
    ) -> ExportReport:
        """Write every document label of the sets this user may read as TSV (``document``, ``label``,
        ``value``, ``annotator``; ``gold`` for the gold set), documents in order. Blindness applies:
        an annotator gets their own judgments, a lead those of complete documents and gold."""
        from corpusdb.interchange import exporting
        from corpusdb.services import access
        from importers.judgments import format_judgments

        target = os.fspath(path)
        if os.path.exists(target) and not overwrite:
            raise Conflict(f"{target} exists; pass --overwrite to overwrite it")
        with self._read() as conn:
            doc_ids = (
                exporting._document_ids(conn, self.project_id, documents) if documents is not None else None
            )
            infos = access.visible_sets(conn, self.project_id, self.actor, document_ids=doc_ids)
            hidden = len(access.set_headers(conn, self.project_id, self.actor, document_ids=doc_ids)) - len(
                infos
            )
            infos.sort(key=lambda i: (i.document_id, i.annotator is not None, i.annotator or "", i.kind))
            loaded = exporting.load_for_export(conn, infos)
        rows = [
            (doc.external_id, lb.name, lb.value, info.annotator or "gold", info.kind)
            for info, (doc, ann) in zip(infos, loaded, strict=True)
            for lb in ann.labels
        ]
        _write_bytes(target, format_judgments(rows).encode("utf-8"))
        n_docs = len({r[0] for r in rows})
        return ExportReport("judgments", target, n_docs, (target,), hidden, self._hidden_note(hidden))

    def import_judgments(
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
    ) -> ImportReport:
        """Import document judgments from TSV (``document``, ``label``, ``value`` and, unless
        ``annotator`` is given, ``annotator``) as label-only sets, one annotator at a time:
        the file's rows for ``annotator`` (or, when the file names one annotator only, that one).
        Documents must exist already (judgments have no text). All or nothing."""
        from importers.judgments import read_judgments

        self._require("lead", doing="import annotations")
        spath = os.fspath(path)
        must_exist(spath)
        rows = read_judgments(spath)
        bad = _bad_annotators(spath, rows, ("", "gold") if kind == "gold" else ("",))
        if bad:
            raise FormatError(bad)
        names = sorted({r.annotator for r in rows if r.annotator})
        if annotator is None and kind != "gold":
            if len(names) != 1:
                raise UsageError(
                    f"{spath} has judgments by {len(names)} annotators ({', '.join(names) or 'none named'}): "
                    "import them one at a time with --annotator NAME"
                )
            annotator = names[0]
        wanted = [
            r
            for r in rows
            if (kind == "gold" and r.annotator in ("", "gold")) or r.annotator in ("", annotator)
        ]
        if not wanted:
            raise InvalidInput(f"{spath}: no judgments for {annotator or 'gold'}")
        texts = self._texts_of(
            sorted({r.document for r in wanted}), spath, {r.document: r.line for r in wanted}
        )
        from importers.judgments import as_documents

        result = as_documents(spath, wanted, texts)
        target = self._target(annotator, kind, status, lenient, replace)
        schema = self.schema()
        source = parsed_source(spath, result, schema, _checks(target, allow_unknown, force))
        return self._import(source, schema, "judgments", spath, target, perf_counter(), None, forced=force)

    def _texts_of(self, external_ids: list[str], path: str, lines: Mapping[str, int]) -> dict[str, Document]:
        """The stored documents these judgments are about; a missing one is a problem at its line."""
        from sqlalchemy import select

        from corpusdb.store import tables

        d = tables.document
        found: dict[str, Document] = {}
        with self._read() as conn:
            for i in range(0, len(external_ids), 500):
                q = select(d.c.external_id, d.c.text, d.c.source, d.c.meta, d.c.group_key, d.c.split).where(
                    d.c.project_id == self.project_id, d.c.external_id.in_(external_ids[i : i + 500])
                )
                for ext, text, source, meta, group, split in conn.execute(q):
                    found[ext] = Document(ext, text, source or "", meta or {}, group, split)
        missing = [e for e in external_ids if e not in found]
        if missing:
            raise FormatError(
                [
                    Problem(path, lines[e], f"no document {e!r} in this project (import its text first)")
                    for e in missing
                ]
            )
        return found

    # -- interaction network ---------------------------------------------------------------------
    def export_network(
        self,
        path: PathLike,
        fmt: str = "graphml",
        annotator: str | None = None,
        *,
        gold: bool = False,
        kind: str | None = None,
        documents: Sequence[str] | None = None,
        overwrite: bool = False,
        ungrounded: bool = False,
    ) -> ExportReport:
        """Write the interaction network of the chosen sets, merged by grounding (BioRelEx appendix
        A.5): nodes are grounded entities labelled by their names, edges relations with counts per
        label; ``fmt`` graphml (networkx) or sif (Cytoscape). ``ungrounded`` keeps entities without a
        grounding as one node per document and name. Blindness as in :meth:`export_brat`."""
        from importers.network import build_network, format_graphml, format_sif

        if fmt not in ("graphml", "sif"):
            raise UsageError(f"network format is graphml or sif, not {fmt!r}")
        target = os.fspath(path)
        if os.path.exists(target) and not overwrite:
            raise Conflict(f"{target} exists; pass --overwrite to overwrite it")
        items, hidden = self._export_items(annotator, gold, kind, documents)
        net = build_network(items, keep_ungrounded=ungrounded)
        data = format_graphml(net) if fmt == "graphml" else format_sif(net)
        _write_bytes(target, data)
        notes = tuple(net.notes) + self._hidden_note(hidden)
        return ExportReport(f"network-{fmt}", target, len(items), (target,), hidden, notes)


def _bad_annotators(path: str, rows: Sequence[Any], skip: tuple[str, ...]) -> list[Problem]:
    """The annotator names of a judgments file that cannot name an annotator, at their first line."""
    from corpusdb.services.projects import check_annotator_name

    out: list[Problem] = []
    for name in dict.fromkeys(r.annotator for r in rows if r.annotator not in skip):
        try:
            check_annotator_name(name)
        except InvalidInput as err:
            out.append(Problem(path, next(r.line for r in rows if r.annotator == name), str(err)))
    return out


def _write_bytes(target: str, data: bytes) -> None:
    folder = os.path.dirname(target)
    if folder:
        os.makedirs(folder, exist_ok=True)
    with open(target, "wb") as fh:
        fh.write(data)


__all__ = ["FormatsMixin", "parsed_source"]
