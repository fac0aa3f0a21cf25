"""``corpusdb skip`` and ``unskip``: flag your set's document as irrelevant, with a reason."""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.cli.common import emit, out, state
from corpusdb.cli.workflow_common import codes


def skip(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="The document (your own set on it, with --as).")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why it is irrelevant (the lead reads it).")],
) -> None:
    """Skip a document as irrelevant: left out of agreement and releases once submitted (submit as usual)."""
    st = state(ctx)
    c = st.corpus()
    k = c.skip(c.my_set(document).info.id, reason)
    emit(st, {"document": k.document, "set": k.set_id, "reason": k.reason},
         lambda: out.print(f"{k.document} skipped: {k.reason} (submit it as usual; `unskip` lifts it until then)",
                           markup=False))  # fmt: skip


def unskip(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="The document (your own set on it, with --as).")],
) -> None:
    """Lift your skip of a document (until your set is submitted)."""
    st = state(ctx)
    c = st.corpus()
    sid = c.my_set(document).info.id
    c.unskip(sid)
    emit(st, {"document": document, "set": sid}, lambda: out.print(f"{document}: skip lifted", markup=False))


def register(app: typer.Typer) -> None:
    app.command("skip", epilog=codes("4 no reason", "5 not your set", "6 submitted already"))(skip)
    app.command("unskip", epilog=codes("5 not your set", "6 not skipped, or submitted already"))(unskip)
