"""``corpusdb delete document|set|annotator``: removing mistakes, with a reason in the audit trail."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from corpusdb.cli.common import emit, out, state

delete_app = typer.Typer(help="Delete a document, a set, an annotator or a whole project (leads; audited).",
                         no_args_is_help=True)  # fmt: skip
Reason = Annotated[str, typer.Option("--reason", "-r", help="Why (recorded in the audit trail).")]


def _done(ctx: typer.Context, rep: object) -> None:
    emit(state(ctx), rep.to_dict(), lambda: out.print(rep.summary(), markup=False))  # type: ignore[attr-defined]


@delete_app.command("document")
def delete_document(ctx: typer.Context, document: Annotated[str, typer.Argument(help="Document id.")],
                    reason: Reason) -> None:  # fmt: skip
    """Delete a document with all its sets and gold; releases keep their copy."""
    _done(ctx, state(ctx).corpus().delete_document(document, reason=reason))


@delete_app.command("set")
def delete_set(ctx: typer.Context, set_id: Annotated[int, typer.Argument(help="Annotation set id.")],
               reason: Reason) -> None:  # fmt: skip
    """Delete one annotation set."""
    _done(ctx, state(ctx).corpus().delete_set(set_id, reason=reason))


@delete_app.command("annotator")
def delete_annotator(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="Annotator name.")],
    reason: Reason,
    with_sets: Annotated[bool, typer.Option("--with-sets", help="Delete their annotation sets too.")] = False,
) -> None:
    """Delete an annotator (e.g. a typo); refused for anyone whose decisions are gold's provenance."""
    _done(ctx, state(ctx).corpus().delete_annotator(name, reason=reason, with_sets=with_sets))


@delete_app.command("project")
def delete_project(
    ctx: typer.Context,
    reason: Reason,
    confirm: Annotated[str, typer.Option("--confirm", help="The project's name, typed again.")],
    archive: Annotated[Path, typer.Option("--archive", help="New JSON file for the project's audit trail.")],
) -> None:
    """Delete the whole project (owner only; refused when it has releases); its audit trail goes to --archive."""
    _done(ctx, state(ctx).corpus().delete_project(confirm=confirm, reason=reason, archive=archive))


def register(app: typer.Typer) -> None:
    app.add_typer(delete_app, name="delete")
