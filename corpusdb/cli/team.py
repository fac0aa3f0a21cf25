"""``corpusdb team``: PostgreSQL login roles for the people of a project (the lead, as owner)."""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.cli.common import emit, out, state

team_app = typer.Typer(
    help="Team mode on PostgreSQL: a login role per person; the server then enforces blindness.",
    no_args_is_help=True,
)


def _row(x: object) -> dict[str, object]:
    return {
        "annotator": x.annotator,  # type: ignore[attr-defined]
        "role": x.role,  # type: ignore[attr-defined]
        "login": x.login,  # type: ignore[attr-defined]
        "can_login": x.can_login,  # type: ignore[attr-defined]
    }


@team_app.command("login")
def team_login(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The annotator who gets a login.")],
    login: Annotated[
        str | None, typer.Option("--login", help="The PostgreSQL role name (default: the annotator's name).")
    ] = None,
    no_password: Annotated[
        bool,
        typer.Option(
            "--no-password",
            help="Set no password: the server authenticates (pg_hba.conf: peer, cert, ldap, gss...).",
        ),
    ] = False,
    password_stdin: Annotated[
        bool,
        typer.Option("--password-stdin", help="Read the password from the first line of standard input."),
    ] = False,
) -> None:
    """Give NAME a login: on PostgreSQL a login role tied to their annotator, on SQLite a password for
    the login screen of `corpusdb serve` and `tui --login` (asks for the password)."""
    st = state(ctx)
    corpus = st.corpus()
    # refuse before prompting for a password
    corpus.require_team_admin("giving team logins", password=not no_password)
    password = None if no_password else _password(password_stdin)
    got = corpus.team_login(name, login=login, password=password)
    if corpus.engine.dialect.name == "sqlite":
        emit(st, _row(got), lambda: out.print(f"{got.annotator} ({got.role}) logs in with a password"))
    else:
        emit(
            st, _row(got), lambda: out.print(f"{got.annotator} ({got.role}) logs in as the role {got.login}")
        )


def _password(from_stdin: bool) -> str:
    if from_stdin:
        import sys

        return sys.stdin.readline().rstrip("\r\n")
    return str(typer.prompt("password", hide_input=True, confirmation_prompt=True))


@team_app.command("gatekeeper")
def team_gatekeeper(
    ctx: typer.Context,
    role: Annotated[str, typer.Argument(help="The PostgreSQL role `corpusdb serve` logs in as.")],
    no_password: Annotated[
        bool, typer.Option("--no-password", help="Set no password: the server authenticates (pg_hba.conf).")
    ] = False,
    password_stdin: Annotated[
        bool,
        typer.Option("--password-stdin", help="Read the password from the first line of standard input."),
    ] = False,
) -> None:
    """Make ROLE the gatekeeper `corpusdb serve` connects as (PostgreSQL): it counts failed logins and
    reads nothing; each person's session connects as their own role."""
    st = state(ctx)
    corpus = st.corpus()
    corpus.require_team_admin("making a gatekeeper")
    password = None if no_password else _password(password_stdin)
    corpus.team_gatekeeper(role, password=password)
    emit(
        st,
        {"gatekeeper": role},
        lambda: out.print(f"{role} is the gatekeeper: use it in `corpusdb serve --db URL`"),
    )


@team_app.command("revoke")
def team_revoke(
    ctx: typer.Context,
    name: Annotated[str, typer.Argument(help="The annotator whose login goes.")],
    keep_role: Annotated[
        bool, typer.Option("--keep-role", help="Keep the role (NOLOGIN) instead of dropping it.")
    ] = False,
) -> None:
    """Take NAME's login away: their role loses its rights here and is dropped (or kept, NOLOGIN)."""
    st = state(ctx)
    got = st.corpus().team_revoke(name, drop_role=not keep_role)
    emit(st, _row(got), lambda: out.print(f"{got.annotator} no longer logs in as {got.login}"))


@team_app.command("list")
def team_list(ctx: typer.Context) -> None:
    """Team logins of this project: annotator, role, PostgreSQL login, whether it may log in."""
    st = state(ctx)
    rows = [_row(x) for x in st.corpus().team_logins()]

    def render() -> None:
        for r in rows:
            flag = "" if r["can_login"] else "  (cannot log in)"
            out.print(f"{r['annotator']:<16} {r['role']:<12} {r['login']}{flag}", markup=False)

    emit(st, rows, render)


def register(app: typer.Typer) -> None:
    app.add_typer(team_app, name="team")
