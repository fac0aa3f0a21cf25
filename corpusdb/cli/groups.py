"""``corpusdb group-keys`` and ``corpusdb keep-splits``: groups and splits from the corpus's own naming."""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.cli.common import emit, out, state

DryRun = Annotated[bool, typer.Option("--dry-run", help="Show what would change without saving it.")]


def group_keys(
    ctx: typer.Context,
    rule: Annotated[str, typer.Argument(help="re:PATTERN (on the document id), meta:FIELD or tsv:FILE.")],
    dry_run: DryRun = False,
) -> None:
    """Set documents' group keys from a rule, so splits keep a paper's parts together
    (GENIA: group-keys 're:^(PMC-\\d+)-')."""
    st = state(ctx)
    rep = st.corpus().set_group_keys(rule, dry_run=dry_run)
    emit(st, rep.to_dict(), lambda: out.print(rep.summary(), markup=False))


def keep_splits(ctx: typer.Context, dry_run: DryRun = False) -> None:
    """Give every document the split of the folder it was imported from (train/, devel/, test/)."""
    st = state(ctx)
    got = st.corpus().keep_source_splits(dry_run=dry_run)
    emit(st, got, lambda: out.print(", ".join(f"{k}: {v}" for k, v in got.items()) or "no document came from a subfolder",
                                    markup=False))  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("group-keys")(group_keys)
    app.command("keep-splits")(keep_splits)
