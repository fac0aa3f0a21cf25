"""The ``corpusdb`` command: global options, command groups, and errors as exit codes.

Exit codes: 0 success; 1 internal error (a bug); 2 usage error; 3 not found; 4 invalid input;
5 permission refused (blindness, roles, read-only); 6 conflict (stale version, exists already,
wrong state); 7 database error. Errors are one line on stderr; data goes to stdout.
"""

from __future__ import annotations

import sys
import traceback
from typing import Annotated

import typer

from corpusdb.cli.common import Format, State
from corpusdb.errors import CorpusError

EPILOG = (
    "Exit codes: 0 ok, 1 internal error, 2 usage, 3 not found, 4 invalid input, 5 permission refused, "
    "6 conflict, 7 database error. The database is --db PATH (or URL), else $CORPUSDB_URL, else "
    "./corpusdb.sqlite."
)

app = typer.Typer(
    name="corpusdb",
    help="Annotated biomedical corpora: double-blind annotation, adjudication, agreement, releases.",
    epilog=EPILOG,
    no_args_is_help=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    add_completion=False,
)


@app.callback()
def _main(
    ctx: typer.Context,
    db: Annotated[
        str | None,
        typer.Option("--db", help="Database file or URL (default: $CORPUSDB_URL, else ./corpusdb.sqlite)."),
    ] = None,
    project: Annotated[
        str | None,
        typer.Option("--project", "-p", help="Project name (needed when the database holds several)."),
    ] = None,
    user: Annotated[
        str | None,
        typer.Option(
            "--as", help="Act as this annotator (their role and blindness apply); default: the owner."
        ),
    ] = None,
    fmt: Annotated[Format, typer.Option("--format", "-f", help="Output format for data.")] = Format.text,
) -> None:
    ctx.obj = State(db=db, project=project, user=user, format=fmt)


def _register() -> None:
    """Attach each command group; one module per group, each a thin layer over the API."""
    from corpusdb.cli import commands

    for register in commands.REGISTRY:
        register(app)


_register()


# Global options a user may also write after the command (`corpusdb submit --as alice`); no command
# defines them itself except `tui`, which accepts the same three with the same meaning.
_GLOBAL_WITH_VALUE = ("--as", "--db", "--project", "-p")
_GLOBAL_ALL = (*_GLOBAL_WITH_VALUE, "--format", "-f")


def hoist_global_options(argv: list[str]) -> list[str]:
    """Move ``--as``/``--db``/``--project`` written after the command to the front, where they belong."""
    i = 0
    while i < len(argv):  # skip the global options already in front
        tok = argv[i]
        if tok in _GLOBAL_ALL:
            i += 2
        elif tok.startswith("--") and tok.split("=", 1)[0] in _GLOBAL_ALL:
            i += 1
        else:
            break
    if i >= len(argv) or argv[i].startswith("-") or argv[i] == "tui":
        return argv
    head, rest, moved = argv[:i], [], []
    j = i
    while j < len(argv):
        tok = argv[j]
        if tok == "--":
            rest.extend(argv[j:])
            break
        if tok in _GLOBAL_WITH_VALUE and j + 1 < len(argv):
            moved += [tok, argv[j + 1]]
            j += 2
            continue
        if tok.split("=", 1)[0] in ("--as", "--db", "--project"):
            moved.append(tok)
        else:
            rest.append(tok)
        j += 1
    return head + moved + rest


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (tests call this directly)."""
    args = hoist_global_options(list(sys.argv[1:] if argv is None else argv))
    try:
        app(args=args, prog_name="corpusdb", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except CorpusError as exc:
        _say(f"corpusdb: error: {exc}")
        return exc.exit_code
    except KeyboardInterrupt:
        _say("corpusdb: interrupted")
        return 130
    except Exception as exc:  # a bug: say so plainly, with the traceback for the report
        traceback.print_exc(file=sys.stderr)
        _say(f"corpusdb: internal error: {type(exc).__name__}: {exc}")
        return 1
    return 0


def _say(message: str) -> None:
    """One line on stderr, whatever the terminal width (scripts grep it)."""
    sys.stderr.write(" ".join(message.split("\n")) + "\n")
    sys.stderr.flush()


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


_ = State  # re-exported for tests
