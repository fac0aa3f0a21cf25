"""``corpusdb tui``: the terminal interface for annotators, adjudicators and leads.

Why lazy: Textual is heavy and the rest of corpusdb is headless; ``tui`` is imported inside the
command only (the one import the architecture contract allows).
"""

from __future__ import annotations

import gc
from typing import Annotated

import typer

from corpusdb.basics.errors import UsageError
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
    login: Annotated[
        bool,
        typer.Option(
            "--login",
            help="Start at a login screen (name and password; a shared SSH account): the person who logs in "
            "is the user until the app ends. No --as.",
        ),
    ] = False,
    idle_timeout: Annotated[
        float,
        typer.Option(
            "--idle-timeout",
            help="With --login: minutes without a key or click that end the session (0: never).",
        ),
    ] = 30.0,
    max_failures: Annotated[
        int, typer.Option("--max-failures", help="With --login: failed logins in a row that lock a name.")
    ] = 5,
    lockout: Annotated[
        float, typer.Option("--lockout", help="With --login: minutes a locked name stays locked.")
    ] = 15.0,
    via: Annotated[str, typer.Option("--via", hidden=True)] = "tui",
) -> None:
    """Annotate (annotators), adjudicate (adjudicators) or follow progress (leads) in the terminal."""
    st = state(ctx)
    if login:
        from datetime import timedelta

        from corpusdb.basics.login_policy import LoginPolicy
        from corpusdb.serving.gate import LoginGate
        from corpusdb.store.db import default_url

        if user or st.user:
            raise UsageError("--login and --as exclude each other: the person who logs in is the user")
        if open_document:
            raise UsageError("--login resumes at the document of the person's last session; no --open")
        policy = LoginPolicy(
            max_failures=max(1, max_failures),
            lockout=timedelta(minutes=lockout),
            idle_timeout=timedelta(minutes=idle_timeout) if idle_timeout > 0 else None,
        )
        gate = LoginGate(default_url(db or st.db), project or st.project, policy, via=via)
        gate.check()  # a wrong database, project or (PostgreSQL) an owner URL: one line, before the screen
        from tui.app import build_login_app

        app = build_login_app(gate)
    else:
        from tui.app import build_app
        from tui.facade import TuiFacade, open_facade

        # The project opens in a worker once the first screen is painted (issue #25.11); what fails
        # there ends the app and is raised below, said and exited with as before.
        def opener() -> TuiFacade:
            # As while the command's modules loaded (see corpusdb.cli): the API's modules load now,
            # without the cyclic collector walking them, then frozen out of its way.
            collecting = gc.isenabled()
            gc.disable()
            try:
                return open_facade(db or st.db, project or st.project, user or st.user)
            finally:
                if collecting:
                    gc.freeze()
                    gc.enable()

        def glance() -> list[tuple[str, str]] | None:
            # The user's documents read with sqlite3 alone, shown while the API loads (issue #25.11).
            from corpusdb.store import glance as light

            return light.my_documents(db or st.db, project or st.project, user or st.user)

        app = build_app(None, start=open_document, opener=opener, glance=None if open_document else glance)
    resume_gc()  # paused while Textual and the app loaded (see corpusdb.cli)
    app.run()
    if app.open_error is not None:
        raise app.open_error


def register(app: typer.Typer) -> None:
    app.command("tui")(tui)
