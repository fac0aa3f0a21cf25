"""``corpusdb import|export`` for BioC, PubTator, CoNLL, spaCy, doccano, Label Studio, Prodigy, WebAnno
TSV, document judgments and interaction networks.

Why a module of its own: ``interchange`` holds brat/BioRelEx; these commands are thin calls of
``Corpus.import_file`` / ``export_file`` / ``import_judgments`` / ``export_judgments`` /
``export_network`` and share that module's options, error listing and summaries.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer

from corpusdb.cli.common import state
from corpusdb.cli.interchange import (
    AllowUnknownOpt,
    AnnotatorOpt,
    DocsOpt,
    ExportAnnotatorOpt,
    ExportKindOpt,
    ForceOpt,
    GoldOpt,
    Kind,
    KindOpt,
    LenientOpt,
    ReplaceOpt,
    Status,
    StatusOpt,
    SubmitForceOpt,
    _exported,
    _run_import,
    export_app,
    import_app,
)

FileArg = Annotated[Path, typer.Argument(help="The file to read.")]
OutArg = Annotated[Path, typer.Argument(help="The file to write.")]
JsonOpt = Annotated[bool, typer.Option("--json", help="BioC JSON instead of BioC XML.")]


def _importer(fmt: str, doc: str, options: dict[str, Any] | None = None) -> Any:
    def command(
        ctx: typer.Context,
        path: FileArg,
        annotator: AnnotatorOpt = None,
        kind: KindOpt = Kind.annotation,
        status: StatusOpt = Status.submitted,
        lenient: LenientOpt = False,
        replace: ReplaceOpt = False,
        allow_unknown: AllowUnknownOpt = False,
        force: SubmitForceOpt = False,
    ) -> None:
        _run_import(
            ctx,
            lambda c, tick: c.import_file(
                path, fmt, annotator, kind=kind.value, status=status.value, lenient=lenient, replace=replace, allow_unknown=allow_unknown, force=force,
                options=options, progress=tick,
            ),
        )  # fmt: skip

    command.__doc__ = doc
    return command


def import_bioc(
    ctx: typer.Context,
    path: FileArg,
    annotator: AnnotatorOpt = None,
    kind: KindOpt = Kind.annotation,
    status: StatusOpt = Status.submitted,
    lenient: LenientOpt = False,
    replace: ReplaceOpt = False,
    allow_unknown: AllowUnknownOpt = False,
    force: SubmitForceOpt = False,
    json: JsonOpt = False,
) -> None:
    """Import a BioC XML (or --json, or a .json file: BioC JSON) collection, all or nothing."""
    fmt = "bioc-json" if json or path.suffix.lower() == ".json" else "bioc"
    _run_import(
        ctx,
        lambda c, tick: c.import_file(
            path, fmt, annotator, kind=kind.value, status=status.value, lenient=lenient, replace=replace, allow_unknown=allow_unknown, force=force,
            progress=tick,
        ),
    )  # fmt: skip


def import_conll(
    ctx: typer.Context,
    path: FileArg,
    annotator: AnnotatorOpt = None,
    kind: KindOpt = Kind.annotation,
    status: StatusOpt = Status.submitted,
    lenient: LenientOpt = False,
    replace: ReplaceOpt = False,
    allow_unknown: AllowUnknownOpt = False,
    force: SubmitForceOpt = False,
    column: Annotated[int, typer.Option(help="The tag column (0-based; -1: the last).")] = -1,
) -> None:
    """Import a CoNLL / IOB2 file (-DOCSTART- lines start documents); the text is rebuilt from tokens."""
    _run_import(
        ctx,
        lambda c, tick: c.import_file(
            path, "conll", annotator, kind=kind.value, status=status.value, lenient=lenient, replace=replace, allow_unknown=allow_unknown, force=force,
            options={"column": column}, progress=tick,
        ),
    )  # fmt: skip


def import_judgments(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="TSV: document, label, value[, annotator].")],
    annotator: AnnotatorOpt = None,
    kind: KindOpt = Kind.annotation,
    status: StatusOpt = Status.submitted,
    lenient: LenientOpt = False,
    replace: ReplaceOpt = False,
    allow_unknown: AllowUnknownOpt = False,
    force: SubmitForceOpt = False,
) -> None:
    """Import document judgments (TSV) as label-only sets of stored documents, one annotator at a time."""
    _run_import(
        ctx,
        lambda c, _tick: c.import_judgments(
            path,
            annotator,
            kind=kind.value,
            status=status.value,
            lenient=lenient,
            replace=replace,
            allow_unknown=allow_unknown,
            force=force,
        ),
    )


def import_labelstudio(
    ctx: typer.Context,
    path: FileArg,
    annotator: AnnotatorOpt = None,
    kind: KindOpt = Kind.annotation,
    status: StatusOpt = Status.submitted,
    lenient: LenientOpt = False,
    replace: ReplaceOpt = False,
    allow_unknown: AllowUnknownOpt = False,
    force: SubmitForceOpt = False,
    completed_by: Annotated[
        str | None,
        typer.Option("--completed-by", help="Read this Label Studio user's annotations (id or e-mail)."),
    ] = None,
) -> None:
    """Import a Label Studio JSON export (labels, relations, choices): the first annotation of each task,
    or those of --completed-by (import each of your annotators in turn, with -a)."""
    _run_import(
        ctx,
        lambda c, tick: c.import_file(
            path, "labelstudio", annotator, kind=kind.value, status=status.value, lenient=lenient,
            replace=replace, allow_unknown=allow_unknown, force=force, options={"completed_by": completed_by},
            progress=tick,
        ),
    )  # fmt: skip


def _export(
    ctx: typer.Context,
    path: Path,
    fmt: str,
    annotator: str | None,
    gold: bool,
    kind: Any,
    document: list[str] | None,
    force: bool,
    options: dict[str, Any] | None = None,
) -> None:
    """The one export call every format's command makes (its own options aside)."""
    extra = {"options": options} if options is not None else {}
    rep = state(ctx).corpus().export_file(
        path, fmt, annotator, gold=gold, kind=kind.value if kind else None, documents=document,
        overwrite=force, **extra,
    )  # fmt: skip
    _exported(ctx, rep)


def _exporter(fmt: str, doc: str) -> Any:
    def command(
        ctx: typer.Context,
        path: OutArg,
        annotator: ExportAnnotatorOpt = None,
        gold: GoldOpt = False,
        kind: ExportKindOpt = None,
        document: DocsOpt = None,
        force: ForceOpt = False,
    ) -> None:
        _export(ctx, path, fmt, annotator, gold, kind, document, force)

    command.__doc__ = doc
    return command


def export_bioc(
    ctx: typer.Context,
    path: OutArg,
    annotator: ExportAnnotatorOpt = None,
    gold: GoldOpt = False,
    kind: ExportKindOpt = None,
    document: DocsOpt = None,
    force: ForceOpt = False,
    json: JsonOpt = False,
) -> None:
    """Write sets as one BioC XML (or --json) collection: every span, relation, link and grounding."""
    _export(ctx, path, "bioc-json" if json else "bioc", annotator, gold, kind, document, force)


def export_conll(
    ctx: typer.Context,
    path: OutArg,
    annotator: ExportAnnotatorOpt = None,
    gold: GoldOpt = False,
    kind: ExportKindOpt = None,
    document: DocsOpt = None,
    force: ForceOpt = False,
    tokenizer: Annotated[
        str, typer.Option(help="words (\\w+|[^\\w\\s]), whitespace, or re:<pattern>.")
    ] = "words",
    offsets: Annotated[bool, typer.Option("--offsets", help="Add start and end columns.")] = False,
    nested: Annotated[str, typer.Option(help="Which of overlapping spans wins: outer or inner.")] = "outer",
    types: Annotated[
        list[str] | None, typer.Option("--type", "-t", help="Only spans of this type (repeatable).")
    ] = None,
) -> None:
    """Write sets as CoNLL / IOB2 for NER training; what IOB2 cannot express is counted on stderr."""
    opts = {"tokenizer": tokenizer, "offsets": offsets, "nested": nested, "types": types}
    _export(ctx, path, "conll", annotator, gold, kind, document, force, opts)


def export_spacy(
    ctx: typer.Context,
    path: OutArg,
    annotator: ExportAnnotatorOpt = None,
    gold: GoldOpt = False,
    kind: ExportKindOpt = None,
    document: DocsOpt = None,
    force: ForceOpt = False,
    docbin: Annotated[
        bool,
        typer.Option("--docbin", help="A spaCy DocBin (.spacy; needs corpusdb[spacy]) instead of JSONL."),
    ] = False,
    lang: Annotated[str, typer.Option(help="spaCy language of the tokenizer (--docbin).")] = "en",
) -> None:
    """Write sets as spaCy training data: JSONL (no spaCy needed) or, with --docbin, a DocBin."""
    fmt = "spacy-docbin" if docbin else "spacy-jsonl"
    _export(ctx, path, fmt, annotator, gold, kind, document, force, {"lang": lang})


def export_judgments(
    ctx: typer.Context, path: OutArg, document: DocsOpt = None, force: ForceOpt = False
) -> None:
    """Write every document judgment you may read as TSV (document, label, value, annotator, kind)."""
    _exported(ctx, state(ctx).corpus().export_judgments(path, documents=document, overwrite=force))


def export_network(
    ctx: typer.Context,
    path: OutArg,
    annotator: ExportAnnotatorOpt = None,
    gold: GoldOpt = False,
    kind: ExportKindOpt = None,
    document: DocsOpt = None,
    force: ForceOpt = False,
    sif: Annotated[bool, typer.Option("--sif", help="Cytoscape SIF instead of GraphML.")] = False,
    ungrounded: Annotated[
        bool, typer.Option("--ungrounded", help="Keep ungrounded entities (one node per document and name).")
    ] = False,
) -> None:
    """Write the interaction network merged by grounding (nodes: entities; edges: relations with counts)."""
    rep = state(ctx).corpus().export_network(
        path, "sif" if sif else "graphml", annotator, gold=gold, kind=kind.value if kind else None,
        documents=document, overwrite=force, ungrounded=ungrounded,
    )  # fmt: skip
    _exported(ctx, rep)


def register(_app: typer.Typer) -> None:
    """Add these commands to the ``import`` and ``export`` groups of ``corpusdb.cli.interchange``."""
    import_app.command("bioc")(import_bioc)
    import_app.command("pubtator")(
        _importer("pubtator", "Import a PubTator file (title|abstract lines, tab annotations, relations).")
    )
    import_app.command("conll")(import_conll)
    import_app.command("doccano")(
        _importer("doccano", "Import a doccano JSONL export (spans, relations, labels).")
    )
    import_app.command("labelstudio")(import_labelstudio)
    import_app.command("prodigy")(
        _importer("prodigy", "Import a Prodigy JSONL export (spans, relations, answers).")
    )
    import_app.command("webanno")(
        _importer("webanno", "Import an INCEpTION / WebAnno TSV 3 file (spans, relations).")
    )
    import_app.command("judgments")(import_judgments)
    export_app.command("json")(
        _exporter(
            "json", "Write sets as JSON: documents and annotations as a release's release.json has them."
        )
    )
    export_app.command("bioc")(export_bioc)
    export_app.command("pubtator")(
        _exporter("pubtator", "Write sets as PubTator; what it cannot express is counted.")
    )
    export_app.command("conll")(export_conll)
    export_app.command("spacy")(export_spacy)
    export_app.command("judgments")(export_judgments)
    export_app.command("network")(export_network)
