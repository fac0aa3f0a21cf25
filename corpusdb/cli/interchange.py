"""``corpusdb import brat|biorelex`` and ``corpusdb export brat|biorelex``: corpora in and out.

A refused import prints every problem of the run on stderr, one per line (``file:line: error: ...``),
then the warnings, and exits 4 (invalid files) or 6 (clashes with what is stored); the database is
unchanged. Warnings of a committed import go to stderr too; the summary (or ``--format json``) to stdout.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from enum import StrEnum
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from corpusdb.basics.errors import Conflict, CorpusError, Problem
from corpusdb.cli.common import Interrupted, emit, out, progress, state

if TYPE_CHECKING:  # the store loads when a command runs, not to parse the arguments (issue #14)
    from corpusdb.interchange import ExportReport, ImportProblems, ImportReport


class Kind(StrEnum):
    annotation = "annotation"
    gold = "gold"
    prediction = "prediction"


class Status(StrEnum):
    assigned = "assigned"
    in_progress = "in_progress"
    submitted = "submitted"


import_app = typer.Typer(
    help="Import corpora: texts, brat/BioNLP, BioRelEx, BioC, PubTator, CoNLL, doccano, Label Studio, Prodigy, "
    "WebAnno TSV, judgments.",
    no_args_is_help=True,
)
export_app = typer.Typer(
    help="Export annotation sets: brat/BioNLP, BioRelEx, BioC, PubTator, CoNLL, spaCy, judgments, networks.",
    no_args_is_help=True,
)

AnnotatorOpt = Annotated[
    str | None,
    typer.Option(
        "--annotator", "-a", help="Whose sets these are (created if missing); omit with --kind gold."
    ),
]
KindOpt = Annotated[
    Kind, typer.Option(help="annotation, gold (no annotator) or prediction (a system's output).")
]
StatusOpt = Annotated[Status, typer.Option(help="Status of the new sets.")]
LenientOpt = Annotated[
    bool,
    typer.Option(
        "--lenient", help="Import the valid documents and list the others (default: all or nothing)."
    ),
]
ReplaceOpt = Annotated[
    bool,
    typer.Option(
        "--replace", help="Replace a set the annotator already has with different content (default: refuse)."
    ),
]
AllowUnknownOpt = Annotated[
    bool,
    typer.Option(
        "--allow-unknown",
        help="Store types, roles, attributes and labels the project's schema does not define (default: refuse).",
    ),
]

SubmitForceOpt = Annotated[
    bool,
    typer.Option(
        "--store-invalid",
        help="Store sets as submitted even when they fail the submit check (as `submit --ignore-schema`).",
    ),
]


def _refused(err: ImportProblems) -> CorpusError:
    """The closing line of a refused import: the problems are listed above it, one per line, so the
    line says how many and that nothing was stored (not the first problem again, ``error: … error:``)."""
    errors = [p for p in err.problems if p.severity == "error"]
    files = len({p.file for p in errors})
    n = len(errors)
    # "3 clashes with what is stored", not "3 clash with what is storedes" (the plural went on the end)
    what = (
        f"clash{'es' * (n != 1)} with what is stored"
        if isinstance(err, Conflict)
        else f"error{'s' * (n != 1)}"
    )
    listed = "listed above" if len(err.unknown) <= UNKNOWN_SHOWN else "summed up above"
    summary = CorpusError(
        f"import rejected, nothing was stored: {n} {what} in {files} file{'s' * (files != 1)} ({listed})"
    )
    summary.exit_code = err.exit_code
    return summary


def _lines(lines: list[str]) -> None:
    """Plain lines on stderr (problems name files; no markup, no wrapping: scripts grep them)."""
    from corpusdb.basics.terminal import clean

    for line in lines:
        sys.stderr.write(clean(" ".join(line.split("\n"))) + "\n")
    sys.stderr.flush()


@contextmanager
def _bar() -> Iterator[Callable[[str, int, int | None], None]]:
    with progress("importing") as bar:
        task = bar.add_task("importing", total=None)

        def tick(phase: str, done: int, total: int | None) -> None:
            bar.update(task, description=phase, completed=done, total=total)

        yield tick


def _run_import(
    ctx: typer.Context, do: Callable[[Any, Callable[[str, int, int | None], None]], ImportReport]
) -> None:
    from corpusdb.interchange import ImportProblems

    st = state(ctx)
    corpus = st.corpus()
    try:
        with _bar() as tick:
            rep = do(corpus, tick)
    except ImportProblems as err:
        _lines(problem_lines(err.problems, err.unknown, err.notes) + list(err.warnings))
        raise _refused(err) from err
    except KeyboardInterrupt:
        _lines(["corpusdb: import interrupted: nothing was stored (an import is all or nothing)"])
        raise SystemExit(130) from None
    _lines([*rep.warnings, *rep.schema_warnings, *problem_lines(rep.problems, (), rep.notes)])
    emit(st, rep.to_dict(), lambda: out.print(rep.summary(), markup=False))


UNKNOWN_SHOWN = 20
"""Lines shown of the names the schema does not define (one per document and name), before a count."""


def problem_lines(problems: Sequence[Problem], unknown: Sequence[Problem], notes: Sequence[str]) -> list[str]:
    """A refused import's lines: what the names the schema does not define amount to, said once, then
    the first ``UNKNOWN_SHOWN`` of them with file and line and a count of the rest; every other
    problem; then the other notes (e.g. what to do about the submit check), once each."""
    ids = {id(p) for p in unknown}
    head = [f"corpusdb: error: {notes[0]}"] if unknown and notes else []
    shown = [str(p) for p in unknown[:UNKNOWN_SHOWN]]
    if len(unknown) > UNKNOWN_SHOWN:
        shown.append(f"... and {len(unknown) - UNKNOWN_SHOWN} more like these (one per document and name)")
    rest = [str(p) for p in problems if id(p) not in ids]
    more = [f"corpusdb: {n}" for n in (notes[1:] if head else notes)]
    return head + shown + rest + more


@import_app.command("brat")
def import_brat(
    ctx: typer.Context,
    path: Annotated[
        Path, typer.Argument(help="A folder of .txt + .ann (or .a1/.a2) files, searched recursively.")
    ],
    annotator: AnnotatorOpt = None,
    kind: KindOpt = Kind.annotation,
    status: StatusOpt = Status.submitted,
    lenient: LenientOpt = False,
    keep_unknown: Annotated[
        bool, typer.Option("--keep-unknown", help="Keep non-brat lines (e.g. BioNLP GI W lines) verbatim.")
    ] = False,
    replace: ReplaceOpt = False,
    allow_unknown: AllowUnknownOpt = False,
    force: SubmitForceOpt = False,
) -> None:
    """Import brat standoff / BioNLP .a1/.a2 files as one annotator's sets (or gold), all or nothing.

    Documents are created as needed; importing the same files again changes nothing; a set that differs
    from the one the annotator already has is refused unless --replace. Names the schema does not
    define are refused unless --allow-unknown; annotation sets imported as submitted (the default)
    pass the submit check first (--store-invalid stores them anyway).
    """
    _run_import(
        ctx,
        lambda c, tick: c.import_brat(
            path, annotator, kind=kind.value, status=status.value, lenient=lenient, keep_unknown=keep_unknown,
            replace=replace, allow_unknown=allow_unknown, force=force, progress=tick,
        ),
    )  # fmt: skip


@import_app.command("texts")
def import_texts(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A folder of .txt files (searched recursively) or one .txt.")],
    lenient: LenientOpt = False,
) -> None:
    """Import plain texts as documents only (no annotation sets): the first step before `assign`.

    Ids are the file stems; importing the same texts again changes nothing; another text under a known
    id is refused. All or nothing, every problem listed, unless --lenient.
    """
    _run_import(ctx, lambda c, _tick: c.import_texts(path, lenient=lenient))


@import_app.command("biorelex")
def import_biorelex(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="A BioRelEx JSON file (a list of sentences).")],
    annotator: AnnotatorOpt = None,
    kind: KindOpt = Kind.annotation,
    status: StatusOpt = Status.submitted,
    lenient: LenientOpt = False,
    replace: ReplaceOpt = False,
    allow_unknown: AllowUnknownOpt = False,
    force: SubmitForceOpt = False,
) -> None:
    """Import a BioRelEx JSON file (one document per sentence) as one annotator's sets (or gold).

    The same checks as `import brat`: unknown names refused unless --allow-unknown; submitted
    annotation sets pass the submit check.
    """
    _run_import(
        ctx,
        lambda c, tick: c.import_biorelex(
            path,
            annotator,
            kind=kind.value,
            status=status.value,
            lenient=lenient,
            replace=replace,
            allow_unknown=allow_unknown,
            force=force,
            progress=tick,
        ),
    )


ExportAnnotatorOpt = Annotated[
    str | None, typer.Option("--annotator", "-a", help="Whose sets (default: your own with --as).")
]
GoldOpt = Annotated[bool, typer.Option("--gold", help="Export the gold sets.")]
ExportKindOpt = Annotated[
    Kind | None, typer.Option("--kind", help="Only sets of this kind (when an annotator has several).")
]
DocsOpt = Annotated[
    list[str] | None, typer.Option("--document", "-d", help="Only these documents (repeatable).")
]
ForceOpt = Annotated[bool, typer.Option("--overwrite", help="Overwrite existing files.")]


def _exported(ctx: typer.Context, rep: ExportReport) -> None:
    _lines(list(rep.warnings))
    emit(state(ctx), rep.to_dict(), lambda: out.print(rep.summary(), markup=False))


@export_app.command("brat")
def export_brat(
    ctx: typer.Context,
    outdir: Annotated[Path, typer.Argument(help="Folder to write into (created if missing).")],
    annotator: ExportAnnotatorOpt = None,
    gold: GoldOpt = False,
    kind: ExportKindOpt = None,
    document: DocsOpt = None,
    flat: Annotated[
        bool,
        typer.Option("--flat", help="All files in OUTDIR (default: the folders they were imported from)."),
    ] = False,
    force: ForceOpt = False,
) -> None:
    """Write sets as brat files; what was imported comes back byte for byte. Blindness applies."""
    try:
        rep = (
            state(ctx)
            .corpus()
            .export_brat(
                outdir,
                annotator,
                gold=gold,
                kind=kind.value if kind else None,
                documents=document,
                flat=flat,
                overwrite=force,
            )
        )
    except KeyboardInterrupt:
        raise Interrupted(
            f"nothing changed in the database; {outdir} may hold some of the files (export again with --overwrite)"
        ) from None
    _exported(ctx, rep)


@export_app.command("biorelex")
def export_biorelex(
    ctx: typer.Context,
    path: Annotated[Path, typer.Argument(help="The JSON file to write.")],
    annotator: ExportAnnotatorOpt = None,
    gold: GoldOpt = False,
    kind: ExportKindOpt = None,
    document: DocsOpt = None,
    force: ForceOpt = False,
    derived: Annotated[
        bool,
        typer.Option(
            "--derived",
            help="Add the relations the schema's rules derive, marked implicit with their rule (as a release).",
        ),
    ] = False,
) -> None:
    """Write sets as one BioRelEx JSON file (sentences in import order). Blindness applies."""
    rep = (
        state(ctx)
        .corpus()
        .export_biorelex(
            path,
            annotator,
            gold=gold,
            kind=kind.value if kind else None,
            documents=document,
            overwrite=force,
            derived=derived,
        )
    )
    _exported(ctx, rep)


def register(app: typer.Typer) -> None:
    app.add_typer(import_app, name="import")
    app.add_typer(export_app, name="export")
