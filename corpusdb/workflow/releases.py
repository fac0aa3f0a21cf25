"""Releases: gold and its splits frozen into an immutable, re-exportable, documented release.

A release is one ``release`` row holding a *snapshot* (everything needed to produce its files), the
manifest and the change log. Its files are a pure function of the snapshot and the change log, so
``export_release`` regenerates them byte for byte at any later time; it checks every file's sha256
against the manifest and refuses if a writer changed since.

Release format, version 1 (``corpusdb-release``)
------------------------------------------------
Files (UTF-8; JSON written with sorted keys, ``indent=1``, non-ASCII kept, final newline)::

    manifest.json             format, version, counts, and {"sha256", "bytes"} of every other file
    release.json              the snapshot (below)
    agreement.json            inter-annotator agreement on the released documents: the
                              `corpusdb agree` report (schema corpusdb.agreement/1) for spans
                              and, where the schema has relations, relations
    changelog.json            changes since the previous release (``corpusdb.workflow.changelog``)
    CHANGELOG.md              the same for people
    brat/<split>/<id>.txt     the document text, as stored
    brat/<split>/<id>.ann     gold as brat standoff, as ``corpusdb export brat --gold`` writes it
                              (``.a1``/``.a2`` for BioNLP gold; entities as ``*`` lines)
    biorelex/<split>.json     gold as BioRelEx JSON (projects with a ``biorelex`` schema only); with
                              the relations the schema's rules derive, each ``"implicit": true`` (the
                              rule's tag) and ``"derived": RULE`` (snapshots with ``derived_in_formats``)
    derived.json              schemas with ``[[derive]]`` rules: each document's derived relations
                              (rule, source relations); brat files never hold them

``release.json``::

    {"format": "corpusdb-release", "format_version": 2,
     "project": "...", "version": "v1", "previous": null | "v0", "created": "<ISO 8601 UTC>",
     "notes": "...", "schema": "biorelex-1.0", "guideline_version": 2,
     "schema_definition": {...},                 # guidelines.schema.Schema.to_dict()
     "split": {"seed": 0, "ratios": {"train": 0.7, ...}, "stratify": [...]} | null,
     "formats": ["json", "standoff", "biorelex"?],
     "derived_in_formats": ["biorelex"]?,      # formats that write derived relations marked (absent:
                                                # made before they did; derived.json only)
     "splits": {"train": ["<id>", ...], "dev": [...], "test": [...]},   # "unsplit" if no split
     "documents": [{
        "id": "<external id>", "text": "...", "sha256": "...", "source": "...", "metadata": {...},
        "group_key": "PMID:1" | null, "split": "train",
        "annotations": {"spans": [{"id": "T1", "type": "protein", "fragments": [[0, 4]], "text": "IL-2",
                                   "attributes": {...}?, "groundings": [{"ref": "uniprot:P60568"}]?}],
                        "relations": [{"id": "R1", "type": "bind", "args": [["Arg1", "T1"], ["Arg2", "T2"]],
                                       "label": 1?, "tags": [...]?, "attributes": {...}?, "trigger": "T9"?,
                                       "relation_kind": "event"?}],
                        "links": [{"id": "L1", "type": "part_of", "source": "T1", "target": "T3"}],
                        "entities": [{"id": "C1", "type": "protein", "members": ["T1", "T5"],
                                      "attributes": {...}?, "groundings": [...]?}],
                        "labels": [{"name": "relevance", "value": "DR"}],
                        "notes": [{"id": "#1", "type": "AnnotatorNotes", "target": "T1", "text": "..."}]},
        "standoff": {"files": ["a1", "a2"]?, "items": {"T3": {"file": "a2", "line": 4}, "E1": {"prefix": "E"},
                     "C1": {"link_type": "Equiv", ...}}}?,   # how brat draws gold: its files, lines, * types
        "decisions": [{"kind": "span", "item": "T1" | "" (refused), "method": "unanimous" | "majority" |
                       "adjudicated" | "corrected", "by": "judy" | null, "reason": "..." | null,
                       "created": "...", "sources": [{"annotator": "alice", "set_id": 3,
                                                      "local_id": "T4", "kind": "annotation"}]}]}],
     "agreement": {...},                        # as agreement.json
     "grounding_labels": {"OntoBiotope:OBT:000427": "soil", ...}?}   # each grounding's knowledge-base
                                                # label when the release was made (schemas with KBs)

Offsets are Unicode code points, ends exclusive; gold local ids are stable across releases.
Standoff cannot hold document labels, names without a mention (and what rests on them) nor groundings
or attribute values containing whitespace (BioRelEx's ``NCBI gene:51176``): they are left out of the
brat files (``manifest.counts.standoff_omitted`` says how many, ``standoff_left_out`` of what kind) and
are in ``release.json`` (and the BioRelEx JSON), whole. ``manifest.counts.entities`` counts clusters.

Format version 2 (this one) writes gold's entities (clusters, e.g. merged ``Equiv`` lines) and notes into
the brat files, as ``export brat --gold`` does; a version 1 release (which left them out) is re-exported
as it was made.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter
from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, insert, select

from corpusdb.basics.clusters import drawing_type
from corpusdb.basics.errors import Conflict, InvalidInput, NotFound
from corpusdb.basics.names import check_name
from corpusdb.basics.records import Annotations, Document
from corpusdb.services import access, skips
from corpusdb.services.base import ServiceBase, aware, utcnow_aware
from corpusdb.services.items import annotations_from_json, annotations_to_json
from corpusdb.services.sets import read_contents
from corpusdb.store import tables
from corpusdb.workflow import blind, changelog, store
from corpusdb.workflow.corrections import load_corrections
from corpusdb.workflow.release_folder import Staging, check_target, stage, write_folder
from corpusdb.workflow.types import ReleaseInfo, to_jsonable
from guidelines.schema import schema_from_dict

R = tables.release
D = tables.document
P = tables.project
EV = tables.audit_event
FORMAT = "corpusdb-release"
FORMAT_VERSION = 2
DERIVED_FORMATS = ("biorelex",)
"""Release formats that write derived relations marked as such (BioRelEx: its ``implicit`` flag and a
``derived`` key naming the rule); brat cannot mark an item derived, so brat files hold annotated items
only and ``derived.json`` lists the rest (the CLI says so on stderr)."""
Progress = Callable[[int, int], None]


def dumps(data: Any) -> bytes:
    return (json.dumps(data, sort_keys=True, indent=1, ensure_ascii=False) + "\n").encode("utf-8")


_LAYOUT = ("file", "line", "prefix", "attrs", "link_type")
"""What of a gold item's extras says how brat draws it (its file and line, an ``E`` line, a * type)."""


def _standoff_layout(ann: Annotations) -> dict[str, Any]:
    """``{"standoff": {"files": [...], "items": {id: {"file", "line", "prefix", "attrs", "link_type"}}}}``:
    how brat draws gold — a BioNLP corpus's own files (``.a1``/``.a2``), lines and ``E`` lines, and the
    ``*`` type of each cluster; nothing when there is nothing to say (older snapshots lack it)."""
    files = (ann.extra.get("standoff") or {}).get("files")
    items = {
        x.id: {k: x.extra[k] for k in _LAYOUT if x.extra.get(k)}
        for x in (*ann.spans, *ann.relations, *ann.entities)
        if any(x.extra.get(k) for k in _LAYOUT)
    }
    if not files and not items:
        return {}
    return {"standoff": {**({"files": list(files)} if files else {}), **({"items": items} if items else {})}}


def _with_layout(ann: Annotations, layout: Mapping[str, Any] | None) -> Annotations:
    if not layout:
        return ann
    items = layout.get("items") or {}
    spans = tuple(replace(x, extra=items[x.id]) if x.id in items else x for x in ann.spans)
    rels = tuple(replace(x, extra=items[x.id]) if x.id in items else x for x in ann.relations)
    ents = tuple(replace(x, extra=items[x.id]) if x.id in items else x for x in ann.entities)
    extra = {"standoff": {"files": {e: {} for e in layout["files"]}}} if layout.get("files") else {}
    return replace(ann, spans=spans, relations=rels, entities=ents, extra=extra)


def render(snapshot: Mapping[str, Any], log: Mapping[str, Any]) -> tuple[dict[str, bytes], dict[str, Any]]:
    """Every file of a release (but the manifest) from its snapshot and change log; and counts."""
    from importers.standoff import expressible, format_annotations

    hidden = blind.blind_documents(snapshot)  # a blind split: its gold stays in the stored snapshot
    snapshot, log = blind.public_snapshot(snapshot), blind.public_log(log, hidden)
    files: dict[str, bytes] = {
        "release.json": dumps(snapshot),
        "agreement.json": dumps(snapshot.get("agreement") or {}),
        "changelog.json": dumps(log),
        "CHANGELOG.md": changelog.markdown(snapshot["version"], log).encode("utf-8"),
    }
    counts: dict[str, Any] = {"documents": 0, "spans": 0, "relations": 0, "links": 0, "labels": 0,
                              "standoff_omitted": 0}  # fmt: skip
    v1 = snapshot.get("format_version", 1) < 2  # written as it was: without entities in brat
    if not v1:
        counts["entities"] = 0
    schema = schema_from_dict(snapshot["schema_definition"])
    cluster_type = drawing_type(schema) if not v1 else None
    derived: dict[str, list[dict[str, Any]]] = {}  # document -> the relations the schema's rules derive
    left_out: Counter[str] = Counter()
    by_split: dict[str, list[tuple[Document, Annotations]]] = {}
    for d in snapshot["documents"]:
        ann = _with_layout(annotations_from_json(d["annotations"]), d.get("standoff"))
        split = d.get("split") or "unsplit"
        doc = Document(
            d["id"], d["text"], d.get("source", ""), d.get("metadata") or {}, d.get("group_key"), split
        )
        by_split.setdefault(split, []).append((doc, ann))
        if schema.derive:
            found = _derived(schema, ann)
            if found:
                derived[doc.external_id] = found
        counts["documents"] += 1
        counts[f"documents_{split}"] = counts.get(f"documents_{split}", 0) + 1
        for k in ("spans", "relations", "links", "labels", *(() if v1 else ("entities",))):
            counts[k] += len(getattr(ann, k))
        if "standoff" in snapshot.get("formats", ()):
            if "/" in doc.external_id or "\\" in doc.external_id or doc.external_id in ("", ".", ".."):
                raise InvalidInput(
                    f"document id {doc.external_id!r} cannot be a file name in the brat export"
                )
            safe, lost = expressible(replace(ann, entities=(), notes=()) if v1 else ann, cluster_type)
            left_out.update(lost)
            base = f"brat/{split}/{doc.external_id}"
            bom = "\ufeff" if doc.metadata.get("bom") else ""
            files[f"{base}.txt"] = (bom + doc.text).encode("utf-8")
            for ext, body in format_annotations(safe).items():
                files[f"{base}.{ext}"] = body.encode("utf-8")
            if not safe.count():
                files.setdefault(f"{base}.ann", b"")
    counts["standoff_omitted"] = sum(left_out.values())
    if left_out and not v1:
        counts["standoff_left_out"] = dict(sorted(left_out.items()))
    written = set(snapshot.get("derived_in_formats") or ())  # older snapshots: derived.json only
    if "biorelex" in snapshot.get("formats", ()):
        from importers.biorelex import format_biorelex

        for split, docs in sorted(by_split.items()):
            if "biorelex" in written:  # each derived interaction marked: implicit, and its rule
                docs = [(d, _with_derived(schema, a)) for d, a in docs]
            files[f"biorelex/{split}.json"] = format_biorelex(docs).encode("ascii")
    if schema.derive:  # applied at release, kept apart from the annotated items (never confused)
        counts["derived_relations"] = n_derived = sum(len(v) for v in derived.values())
        if "derived_in_formats" in snapshot and n_derived:  # formats that cannot mark one leave them out
            counts["derived_not_written"] = {
                f: n_derived for f in ("standoff",) if f in snapshot.get("formats", ())
            }
        files["derived.json"] = dumps({
            "note": "relations the schema's rules derive from the annotated ones (guidelines.derive); "
                    "not in the annotation files, which hold annotated items only",
            "rules": [{"name": r.name, "source": r.source} for r in schema.derive],
            "documents": derived,
        })  # fmt: skip
    if snapshot.get("blind"):
        files.update(blind.package_files(snapshot, files))
    return files, counts


def _with_derived(schema: Any, ann: Annotations) -> Annotations:
    """``ann`` with what the schema's rules derive, each marked ``derived`` with its rule."""
    from guidelines.derive import with_derived, without_derived

    return with_derived(schema, without_derived(ann))


def _derived(schema: Any, ann: Annotations) -> list[dict[str, Any]]:
    """The relations ``schema``'s rules derive in ``ann`` (``guidelines.derive.derived_listing``)."""
    from guidelines.derive import derived_listing

    return derived_listing(schema, ann)


def manifest(
    snapshot: Mapping[str, Any], files: Mapping[str, bytes], counts: Mapping[str, int]
) -> dict[str, Any]:
    return {
        "format": FORMAT, "format_version": FORMAT_VERSION, "project": snapshot["project"],
        "version": snapshot["version"], "created": snapshot["created"], "counts": dict(counts),
        "files": {p: {"sha256": hashlib.sha256(b).hexdigest(), "bytes": len(b)} for p, b in sorted(files.items())},
        **({"blind": dict(snapshot["blind"])} if snapshot.get("blind") else {}),
        **({"derived_relations": {"file": "derived.json", "count": counts.get("derived_relations", 0),
                                  "in_annotation_files": list(snapshot.get("derived_in_formats") or ()),
                                  "not_written": dict(counts.get("derived_not_written") or {})}}
           if "derived.json" in files else {}),
    }  # fmt: skip


def _info(row: Any, previous: str | None) -> ReleaseInfo:
    man = row.manifest or {}
    return ReleaseInfo(row.version, aware(row.created), previous, row.notes, man.get("counts", {}),  # type: ignore[arg-type]
                       man.get("files", {}), row.changelog or {})  # fmt: skip


class ReleasesMixin(ServiceBase):
    """Freezing, listing and re-exporting releases (leads create; leads and adjudicators read)."""

    def release(
        self,
        version: str,
        *,
        notes: str = "",
        outdir: str | Path | None = None,
        agreement: bool = True,
        allow_open: bool = False,
        progress: Progress | None = None,
        blind_split: str | None = None,
        give: Sequence[str] = (),
    ) -> ReleaseInfo:
        """Freeze every gold set with its split into release ``version`` (and write it to ``outdir``).

        Refuses while a gold set is not finished (``finish_gold``), unless ``allow_open``: then every
        gold set goes in as it stands, unfinished ones included. ``blind_split``: that split's
        documents are written with their texts and only the ``give`` layers (``corpusdb.workflow.blind``);
        their gold stays in the stored snapshot, and the manifest says what was withheld.
        """
        if blind_split is None and give:
            raise InvalidInput("--give names the layers a blind split shows: give --blind SPLIT too")
        if blind_split is not None:
            blind.check_give(give)
        self._require("lead", doing="make a release")
        check_name(version, "release version")  # as split names: it names the release's folder
        if not version.strip():
            raise InvalidInput(f"release version {version!r} must not be blank")
        if outdir is not None:  # before anything is stored: a release whose folder fails is not made
            check_target(Path(outdir), version)
        schema = self.schema()  # type: ignore[attr-defined]
        info = self.info()  # type: ignore[attr-defined]
        # the folder is written in full before the release commits (and goes if the commit fails)
        with Staging() as staging, self._write() as conn:
            if conn.execute(
                select(R.c.id).where(R.c.project_id == self.project_id, R.c.version == version)
            ).first():
                raise Conflict(
                    f"release {version} already exists (releases are immutable: pick a new version; if its "
                    f"folder is missing or incomplete, `corpusdb releases export {version} FOLDER` rebuilds it)"
                )
            golds = access.visible_sets(conn, self.project_id, self.actor, kind="gold")
            # Documents an annotator skipped as irrelevant stay out, listed in the manifest with why.
            skipped = skips.skipped_document_ids(conn, self.project_id)
            excluded = skips.excluded_list(conn, self.project_id, skipped)
            golds = [g for g in golds if g.document_id not in skipped]
            if not golds:
                raise Conflict(
                    "nothing to release: no document has a gold set yet (run `corpusdb adjudicate`)"
                )
            unfinished = [g.document_external_id for g in golds if g.status != "submitted"]
            if unfinished and not allow_open:
                raise Conflict(
                    f"{len(unfinished)} gold set(s) are not finished ({', '.join(unfinished[:5])}"
                    f"{' ...' if len(unfinished) > 5 else ''}): resolve their conflicts and finish them "
                    "(`corpusdb adjudicate DOC --finish`), or release with --allow-open (unfinished gold as it stands)"
                )
            prev = conn.execute(
                select(R.c.id, R.c.version, R.c.snapshot).where(R.c.project_id == self.project_id)
                .order_by(R.c.id.desc()).limit(1)
            ).first()  # fmt: skip
            snapshot = self._snapshot(conn, version, notes, golds, schema, info, prev[1] if prev else None,
                                      agreement, progress)  # fmt: skip
            if blind_split is not None:
                snapshot["blind"] = blind.blind_spec(blind_split, give, snapshot["splits"])
            corr = [
                {"id": c.id, "document": c.document, "action": c.action, "kind": c.item_kind,
                 "item_id": c.item_id, "before": c.before, "after": c.after, "reason": c.reason,
                 "author": c.author, "created": c.created.isoformat()}
                for c in load_corrections(conn, self.project_id, after_release_id=prev[0] if prev else None)
            ]  # fmt: skip
            log = changelog.diff(prev[2] if prev else None, snapshot, corr)
            files, counts = render(snapshot, log)
            man = manifest(snapshot, files, counts)
            if excluded:
                man["excluded"] = excluded
            if outdir is not None:  # written in full before the release is stored; renamed once committed
                staging.staged = stage(Path(outdir), {**files, "manifest.json": dumps(man)}, version)
            split = snapshot.get("split") or {}
            conn.execute(
                insert(R).values(project_id=self.project_id, version=version, previous_id=prev[0] if prev else None,
                                 seed=split.get("seed"), ratios=split.get("ratios"), manifest=man, changelog=log,
                                 snapshot=snapshot, notes=notes, created=utcnow_aware())
            )  # fmt: skip
            self._audit(conn, "release", version, documents=counts["documents"], files=len(files) + 1)
        if staging.staged is not None:
            try:
                staging.staged.publish()
            except OSError as exc:  # the release is committed: say how to get its folder
                raise OSError(exc.errno, f"release {version} is stored, but writing {outdir} failed "
                              f"({exc.strerror or exc}); `corpusdb releases export {version} FOLDER` writes it",
                              exc.filename) from exc  # fmt: skip
        return self._release_info(version)

    def _snapshot(self, conn: Connection, version: str, notes: str, golds: list[Any], schema: Any, info: Any,
                  previous: str | None, with_agreement: bool, progress: Progress | None) -> dict[str, Any]:  # fmt: skip
        gold_sets = read_contents(conn, golds)
        decisions: dict[str, list[dict[str, Any]]] = {}
        for d in store.load_decisions(conn, [g.id for g in golds]):
            decisions.setdefault(d.document_external_id, []).append(
                {"kind": d.item_kind, "item": d.item_id, "method": d.method, "by": d.decided_by,
                 "reason": d.reason, "created": d.created.isoformat(), "sources": to_jsonable(list(d.sources))}
            )  # fmt: skip
        docs_rows = {
            r.id: r for r in conn.execute(select(D).where(D.c.id.in_([g.document_id for g in golds])))
        }
        documents = []
        for i, s in enumerate(sorted(gold_sets, key=lambda s: s.info.document_external_id)):
            r = docs_rows[s.info.document_id]
            documents.append({
                "id": r.external_id, "text": r.text, "sha256": r.sha256, "source": r.source,
                "metadata": r.meta or {}, "group_key": r.group_key, "split": r.split,
                "annotations": annotations_to_json(replace(s.annotations, extra={})),
                "decisions": decisions.get(r.external_id, []),
                **_standoff_layout(s.annotations),
            })  # fmt: skip
            if progress is not None:
                progress(i + 1, len(gold_sets))
        splits: dict[str, list[str]] = {}
        for d in documents:
            splits.setdefault(d["split"] or "unsplit", []).append(d["id"])
        ev = conn.execute(
            select(EV.c.detail).where(EV.c.project_id == self.project_id, EV.c.action == "split")
            .order_by(EV.c.id.desc()).limit(1)
        ).scalar_one_or_none()  # fmt: skip
        formats = ["json", "standoff"] + (["biorelex"] if schema.name.startswith("biorelex") else [])
        snap: dict[str, Any] = {
            "format": FORMAT, "format_version": FORMAT_VERSION, "project": info.name, "version": version,
            "previous": previous, "created": utcnow_aware().isoformat(), "notes": notes, "schema": schema.name,
            "guideline_version": info.guideline_version, "schema_definition": schema.to_dict(),
            "split": {k: ev.get(k) for k in ("seed", "ratios", "stratify")} if ev else None,
            "formats": formats, "splits": splits, "documents": documents, "agreement": None,
        }  # fmt: skip
        if schema.derive:  # formats that can mark a derived item (BioRelEx: implicit + rule) hold them
            snap["derived_in_formats"] = [f for f in formats if f in DERIVED_FORMATS]
        if schema.knowledge_bases:  # labels as the knowledge bases give them today, frozen with the release
            from corpusdb.kb.check import grounding_keys, grounding_labels

            keys = {k for s in gold_sets for k in grounding_keys(s.annotations)}
            labels = grounding_labels(conn, schema, keys) if keys else {}
            if labels:
                snap["grounding_labels"] = dict(sorted(labels.items()))
        if with_agreement:
            snap["agreement"] = self._agreement(conn, [g.document_id for g in golds])
        return json.loads(json.dumps(snap))  # exactly what the JSON column will give back

    def _agreement(self, conn: Connection, doc_ids: list[int]) -> dict[str, Any]:
        """The agreement report (as ``corpusdb agree`` gives it) on the released documents: spans
        (exact, types required) and, where the schema has relations, relations (strict), read in this
        release's own transaction through the blindness gate."""
        from corpusdb.basics.errors import InvalidInput as NotComparable
        from corpusdb.reports.loading import load_raters
        from corpusdb.reports.options import AgreementOptions
        from corpusdb.reports.report import build_report

        schema = self.schema()  # type: ignore[attr-defined]
        layers = ["spans"] + (["relations"] if schema.relations else [])
        out: dict[str, Any] = {}
        for layer in layers:
            opts = AgreementOptions.build(layer=layer, criterion="exact")
            try:
                raters = load_raters(conn, self.project_id, self.actor, opts, doc_ids)
            except NotComparable as exc:  # fewer than two annotators: nothing to compare
                out[layer] = {"note": str(exc)}
                continue
            report = build_report(project=self.info().name, actor=f"{self.actor.label} ({self.actor.role})",  # type: ignore[attr-defined]
                                  schema=schema, raters=raters, opts=opts, texts=None, progress=None)  # fmt: skip
            out[layer] = report.to_dict()
        return out

    def _release_info(self, version: str) -> ReleaseInfo:
        found = [r for r in self.releases() if r.version == version]
        if not found:
            raise NotFound(f"no release {version!r} in this project")
        return found[0]

    def releases(self) -> list[ReleaseInfo]:
        """Every release, oldest first."""
        self._require("lead", "adjudicator", doing="read releases")
        with self._read() as conn:
            rows = conn.execute(
                select(R.c.id, R.c.version, R.c.previous_id, R.c.manifest, R.c.changelog, R.c.notes, R.c.created)
                .where(R.c.project_id == self.project_id).order_by(R.c.id)
            ).all()  # fmt: skip
        names = {r.id: r.version for r in rows}
        return [_info(r, names.get(r.previous_id)) for r in rows]

    def export_release(self, version: str, outdir: str | Path, *, force: bool = False) -> list[Path]:
        """Write release ``version``'s files as the folder ``outdir``, byte for byte as when it was made.

        Every file is checked against the manifest's sha256 before anything is written; the folder
        appears complete or not at all (``release_folder``). An existing folder holding another
        release or other files is refused unless ``force``.
        """
        self._require("lead", "adjudicator", doing="export releases")
        with self._read() as conn:
            row = conn.execute(
                select(R.c.snapshot, R.c.changelog, R.c.manifest)
                .where(R.c.project_id == self.project_id, R.c.version == version)
            ).first()  # fmt: skip
        if row is None:
            raise NotFound(f"no release {version!r} in this project")
        snapshot, log, man = row
        files, _ = render(snapshot, log)
        files["manifest.json"] = dumps(man)
        listed = man.get("files", {})
        bad = sorted(p for p in set(files) | set(listed) if p != "manifest.json" and (
            p not in files or p not in listed or hashlib.sha256(files[p]).hexdigest() != listed[p]["sha256"]))  # fmt: skip
        if bad:
            raise Conflict(
                f"release {version} cannot be re-exported identically: {len(bad)} file(s) differ from its "
                f"manifest ({', '.join(bad[:3])}); a writer changed since the release was made"
            )
        return write_folder(Path(outdir), files, version, overwrite=force)
