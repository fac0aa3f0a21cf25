"""``corpusdb tui``: the terminal interface for annotators, adjudicators and leads.

Why lazy: Textual is heavy and the rest of corpusdb is headless; ``tui`` is imported inside the
command only (the one import the architecture contract allows).
"""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.cli import resume_gc
from corpusdb.cli.common import state


def tui(
    ctx: typer.Context,
    user: Annotated[
        str | None,
        typer.Option("--as", help="Work as this annotator (default: the global --as, else the owner)."),
    ] = None,
    db: Annotated[
        str | None, typer.Option("--db", help="Database file or URL (default: the global --db).")
    ] = None,
    project: Annotated[
        str | None, typer.Option("--project", "-p", help="Project name (default: the global --project).")
    ] = None,
    open_document: Annotated[
        str | None, typer.Option("--open", help="Open this document of mine straight away.")
    ] = None,
) -> None:
    """Annotate (annotators), adjudicate (adjudicators) or follow progress (leads) in the terminal."""
    st = state(ctx)
    from tui.app import build_app
    from tui.facade import open_facade

    facade = open_facade(db or st.db, project or st.project, user or st.user)
    app = build_app(facade, start=open_document)
    resume_gc()  # paused while Textual and the app loaded (see corpusdb.cli)
    app.run()


def register(app: typer.Typer) -> None:
    app.command("tui")(tui)
