"""``corpusdb serve``: annotate and adjudicate in a browser, each person behind their own login."""

from __future__ import annotations

import os
from typing import Annotated

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import err, state


def serve(
    ctx: typer.Context,
    host: Annotated[
        str, typer.Option("--host", help="Address to listen on (loopback by default).")
    ] = "127.0.0.1",
    port: Annotated[int, typer.Option("--port", help="Port to listen on.")] = 8000,
    public_url: Annotated[
        str | None,
        typer.Option("--public-url", help="The URL browsers use, behind a reverse proxy (https://...)."),
    ] = None,
    idle_timeout: Annotated[
        float,
        typer.Option("--idle-timeout", help="Minutes without a key or click that end a session (0: never)."),
    ] = 30.0,
    max_failures: Annotated[
        int, typer.Option("--max-failures", help="Failed logins in a row that lock a name.")
    ] = 5,
    lockout: Annotated[float, typer.Option("--lockout", help="Minutes a locked name stays locked.")] = 15.0,
) -> None:
    """Serve the TUI to browsers: one session per tab, each starting at a login screen (textual-serve).

    On SQLite, people log in with the password `corpusdb team login NAME` gave them; on PostgreSQL
    with their own role, and --db names the gatekeeper role (`corpusdb team gatekeeper`)."""
    st = state(ctx)
    if st.user:
        raise UsageError("serve has no --as: each browser session logs in, and that person is its user")
    from corpusdb.serving import TEMPLATES, exposure_line, session_command
    from corpusdb.serving.gate import LoginGate

    url = st.url
    LoginGate(url, st.project).check()  # the database, the project, and on PostgreSQL the gatekeeper
    line = exposure_line(host, port, public_url)
    if line is not None:
        err.print(f"corpusdb: {line}", soft_wrap=True)
    os.environ["CORPUSDB_URL"] = url  # the sessions' database, out of every command line
    from textual_serve.server import Server

    server = Server(
        session_command(
            st.project, idle_minutes=idle_timeout, max_failures=max(1, max_failures), lockout_minutes=lockout
        ),
        host=host,
        port=port,
        title="corpusdb",
        public_url=public_url.rstrip("/") if public_url else None,
        templates_path=TEMPLATES,
    )
    server.serve()


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
