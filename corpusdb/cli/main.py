"""The ``corpusdb`` command: global options, command groups, and errors as exit codes.

Exit codes: 0 success; 1 internal error (a bug); 2 usage error; 3 not found; 4 invalid input;
5 permission refused (blindness, roles, read-only); 6 conflict (stale version, exists already,
wrong state); 7 database error. Errors are one line on stderr; data goes to stdout.
"""

from __future__ import annotations

import copy
import sys
import traceback
from typing import Annotated, Any

import typer
from sqlalchemy.exc import DBAPIError

from corpusdb.cli import coercion, resume_gc
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
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _version(value: bool) -> None:
    if value:
        from importlib.metadata import version

        sys.stdout.write(f"corpusdb {version('corpusdb')}\n")
        raise typer.Exit(0)


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
    _show_version: Annotated[
        bool,
        typer.Option("--version", "-V", is_eager=True, callback=_version, help="Print the version and exit."),
    ] = False,
) -> None:
    ctx.obj = State(db=db, project=project, user=user, format=fmt)


def _register() -> None:
    """Attach each command group; one module per group, each a thin layer over the API."""
    from corpusdb.cli import commands

    for register in commands.REGISTRY:
        register(app)


_register()


# Global options a user may also write after the command (`corpusdb submit --as alice`,
# `corpusdb status --format json`). `tui` accepts the first three itself with the same meaning, and a
# command with a `--format` of its own (`agree`: text, json, markdown, html) keeps it.
_GLOBAL_WITH_VALUE = ("--as", "--db", "--project", "-p")
_GLOBAL_ALL = (*_GLOBAL_WITH_VALUE, "--format", "-f")


def _name_of(info: Any) -> str | None:
    """The name a registered command (``CommandInfo``) or group (``TyperInfo``) is called by."""
    if info.name:
        return str(info.name)
    group = getattr(info, "typer_instance", None)
    if group is not None:
        return group.info.name if isinstance(group.info.name, str) else None
    callback = getattr(info, "callback", None)
    return typer.main.get_command_name(callback.__name__) if callback is not None else None


def app_for(name: str | None) -> typer.Typer:
    """``app`` with only the command or group called ``name`` (``app`` itself when there is none).

    Why: Typer builds the click command of every registered command (~160, each through
    ``inspect.signature`` and the evaluation of its annotations) before running any of them, which
    cost more than a whole ``corpusdb status`` (issue #14). A command sees the same options, help
    and errors either way; an unknown name gets the whole app, so click's "No such command" and its
    suggestions are unchanged.
    """
    if name is None:
        return app
    commands = [c for c in app.registered_commands if _name_of(c) == name]
    groups = [g for g in app.registered_groups if _name_of(g) == name]
    if not commands and not groups:
        return app
    pruned = copy.copy(app)
    pruned.registered_commands, pruned.registered_groups = commands, groups
    return pruned


def command_name(argv: list[str]) -> str | None:
    """The command ``argv`` runs (the first word after the global options), if any."""
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok in _GLOBAL_ALL:
            i += 2
        elif tok.startswith("--") and tok.split("=", 1)[0] in _GLOBAL_ALL:
            i += 1
        else:
            return None if tok.startswith("-") else tok
    return None


def _own_options(path: list[str]) -> set[str]:
    """The option names the command at ``path`` (``["releases", "show"]``) declares itself."""
    cmd: Any = typer.main.get_command(app_for(path[0] if path else None))
    for name in path:
        if not hasattr(cmd, "commands") or name.startswith("-"):  # a group has subcommands
            break
        cmd = cmd.commands.get(name)
    if cmd is None:
        return set()
    return {o for p in cmd.params for o in (*p.opts, *p.secondary_opts)}


def hoist_global_options(argv: list[str]) -> list[str]:
    """Move global options written after the command to the front, where they belong."""
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
    own = _own_options(argv[i : i + 2])
    with_value = tuple(o for o in _GLOBAL_ALL if o not in own)
    head, rest, moved = argv[:i], [], []
    j = i
    while j < len(argv):
        tok = argv[j]
        if tok == "--":
            rest.extend(argv[j:])
            break
        if tok in with_value and j + 1 < len(argv):
            moved += [tok, argv[j + 1]]
            j += 2
            continue
        if tok.split("=", 1)[0] in with_value and tok.startswith("--"):
            moved.append(tok)
        else:
            rest.append(tok)
        j += 1
    return head + moved + rest


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (tests call this directly)."""
    from corpusdb import writers

    args = hoist_global_options(list(sys.argv[1:] if argv is None else argv))
    name = command_name(args)
    if name != "tui":  # the TUI loads Textual and the app first (corpusdb.cli.tui resumes it)
        resume_gc()
    stop_listening = writers.on_wait(lambda message: _say(f"corpusdb: {message}"))
    try:
        # Only the command asked for is built (see app_for), its values coerced without pydantic where
        # none is needed (see coercion); the rest is what ``app(...)`` does.
        command = typer.main.get_command(app_for(name))
        coercion.install(command)
        command(args=args, prog_name="corpusdb", standalone_mode=True)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except CorpusError as exc:
        _say(f"corpusdb: error: {exc}")
        return exc.exit_code
    except DBAPIError as exc:  # a driver error no layer below expected: still one line, exit 7
        from corpusdb.db import explain

        _say(f"corpusdb: error: {explain(exc)}")
        return 7
    except OSError as exc:  # a file or folder the user named: one line, exit 7 (README)
        _say(f"corpusdb: error: {_file_error(exc)}")
        return 7
    except KeyboardInterrupt:
        # Every change is one transaction, and an interrupted one is rolled back.
        _say("corpusdb: interrupted: the change in progress was rolled back, nothing of it was stored")
        return 130
    except Exception as exc:  # a bug: say so plainly, with the traceback for the report
        traceback.print_exc(file=sys.stderr)
        _say(f"corpusdb: internal error: {type(exc).__name__}: {exc}")
        return 1
    finally:
        stop_listening()
    return 0


def _file_error(exc: OSError) -> str:
    """``cannot write x/y.html: no such folder x`` rather than a traceback."""
    from pathlib import Path

    name = exc.filename
    reason = (exc.strerror or str(exc)).lower()
    if name is None:
        return f"file error: {reason}"
    parent = Path(str(name)).parent
    if isinstance(exc, FileNotFoundError) and not parent.exists():
        return f"cannot write {name}: folder {parent} does not exist"
    return f"{name}: {reason}"


def _say(message: str) -> None:
    """One line on stderr, whatever the terminal width (scripts grep it), with no control characters."""
    from corpusdb.terminal import clean

    sys.stderr.write(clean(" ".join(message.split("\n"))) + "\n")
    sys.stderr.flush()


def run() -> None:
    """Console-script entry point."""
    sys.exit(main())


_ = State  # re-exported for tests
