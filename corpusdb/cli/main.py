"""The ``corpusdb`` command: global options, command groups, and errors as exit codes.

Exit codes: 0 success; 1 internal error (a bug); 2 usage error; 3 not found; 4 invalid input;
5 permission refused (blindness, roles, read-only); 6 conflict (stale version, exists already,
wrong state); 7 database error; 130 interrupted (one line says what was kept). Errors are one line on
stderr; data goes to stdout; a closed stdout (``corpusdb agree | head -1``) ends the process by SIGPIPE.
"""

from __future__ import annotations

import copy
import os
import sys
import traceback
from typing import Annotated, Any

import typer

from corpusdb.basics.errors import CorpusError, FormatError
from corpusdb.cli import coercion, interrupted_while_loading, resume_gc
from corpusdb.cli.common import INTERRUPTED, Format, Interrupted, State

EPILOG = (
    "Exit codes: 0 ok, 1 internal error, 2 usage, 3 not found, 4 invalid input, 5 permission refused, "
    "6 conflict, 7 database error, 130 interrupted. The database is --db PATH (or URL), else "
    "$CORPUSDB_URL, else ./corpusdb.sqlite."
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


_registered: set[str] = set()


def _register(only: str | None = None) -> None:
    """Attach each command group; one module per group, each a thin layer over the API.

    ``only="tui"``: just ``corpusdb tui``, whose modules load SQLAlchemy and the whole API, which
    ``tui`` itself loads only once its first screen is painted (issue #25.11). Every other use of
    ``app`` (other commands, ``--help``, the tests) registers them all first, as before."""
    if "*" in _registered or only in _registered:
        return
    if only == "tui":
        from corpusdb.cli import tui

        tui.register(app)
        _registered.add("tui")
        return
    from corpusdb.cli import commands

    registered = [c for c in app.registered_commands if _name_of(c) in _registered]
    for register in commands.REGISTRY:
        register(app)
    for c in registered:  # registered twice (tui alone first): keep the later one
        app.registered_commands.remove(c)
    _registered.add("*")


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


CLOSED_PIPE = 128 + 13
"""Exit status when stdout was closed early (``corpusdb agree | head -1``): what a shell reports for a
tool that SIGPIPE ended (128 + 13); the console script ends by that signal itself (see ``run``)."""


def main(argv: list[str] | None = None) -> int:
    """Run the CLI and return its exit code (tests call this directly)."""
    stop_listening = None
    try:
        allow_interrupts()
        from corpusdb.store import writers

        args = hoist_global_options(list(sys.argv[1:] if argv is None else argv))
        name = command_name(args)
        if name is not None:
            from corpusdb.cli import deprecated

            args = deprecated.rewrite(args, args.index(name))
        _register("tui" if name == "tui" else None)
        if name != "tui":  # the TUI loads Textual and the app first (corpusdb.cli.tui resumes it)
            resume_gc()
        stop_listening = writers.on_wait(lambda message: _say(f"corpusdb: {message}"))
        # Only the command asked for is built (see app_for), its values coerced without pydantic where
        # none is needed (see coercion).
        command = typer.main.get_command(app_for(name))
        coercion.install(command)
        return _invoke(command, args)
    except SystemExit as exc:
        code = exc.code
        return code if isinstance(code, int) else (0 if code is None else 1)
    except FormatError as exc:
        _say_problems(exc)
        return exc.exit_code
    except CorpusError as exc:
        _say(f"corpusdb: error: {exc}")
        return exc.exit_code
    except BrokenPipeError:  # stdout closed early (`corpusdb agree | head -1`): nothing to say
        _quiet_stdout()
        return CLOSED_PIPE
    except OSError as exc:  # a file or folder the user named: one line, exit 7 (README)
        _say(f"corpusdb: error: {_file_error(exc)}")
        return 7
    except KeyboardInterrupt as exc:
        _say(f"corpusdb: interrupted: {exc.note if isinstance(exc, Interrupted) else INTERRUPTED}")
        return 130
    except Exception as exc:
        if _is_driver_error(exc):  # a driver error no layer below expected: still one line, exit 7
            from corpusdb.store.db import explain

            _say(f"corpusdb: error: {explain(exc)}")
            return 7
        # a bug: say so plainly, with the traceback for the report
        traceback.print_exc(file=sys.stderr)
        _say(f"corpusdb: internal error: {type(exc).__name__}: {exc}")
        return 1
    finally:
        if stop_listening is not None:
            stop_listening()


def _is_driver_error(exc: BaseException) -> bool:
    """``exc`` is SQLAlchemy's ``DBAPIError``, told without importing SQLAlchemy: a command that never
    loaded it (``--help``, ``validate``) cannot have raised it, and start-up stays cheap (issue #26)."""
    exc_module = sys.modules.get("sqlalchemy.exc")
    return exc_module is not None and isinstance(exc, exc_module.DBAPIError)


def _invoke(command: Any, args: list[str]) -> int:
    """Parse ``args`` and run the command as Typer's ``main`` does (usage errors shown as click shows
    them, ``--help``, ``typer.Exit``), except for Ctrl-C and a closed pipe: Typer turns the first into
    a silent exit 130 and the second into exit 1 with nothing said (issue #22.15); here they reach
    ``main``, which says what was kept, or ends quietly as other Unix tools do."""
    try:
        from typer._click.exceptions import ClickException
    except ImportError:  # a Typer that uses click itself
        from click.exceptions import ClickException  # type: ignore[no-redef]

    try:
        with command.make_context("corpusdb", list(args)) as ctx:
            command.invoke(ctx)
    except EOFError:  # input ended at a prompt
        sys.stderr.write("\nAborted!\n")
        return 1
    except ClickException as exc:
        if exc.exit_code == 2 and getattr(exc, "ctx", None) is not None:  # a usage error
            _say(usage_line(exc))
            return 2
        exc.show()
        return exc.exit_code
    except typer.Exit as exc:
        return exc.exit_code
    except typer.Abort:
        sys.stderr.write("Aborted!\n")
        return 1
    return 0


def usage_line(exc: Any) -> str:
    """A usage error as one line with the likely intended word, not click's usage block (issue #26):
    ``corpusdb: error: no command 'stauts'; did you mean 'status'? (corpusdb --help)``."""
    import difflib
    import re

    ctx = exc.ctx
    where = ctx.command_path if ctx is not None else "corpusdb"
    message = exc.format_message()
    unknown = re.match(r"No such command '([^']+)'", message)
    if unknown and ctx is not None and hasattr(ctx.command, "commands"):
        word = unknown.group(1)
        close = difflib.get_close_matches(word, sorted(ctx.command.commands), n=1, cutoff=0.6)
        message = f"no command {word!r}" + (f"; did you mean {close[0]!r}?" if close else "")
    option = getattr(exc, "option_name", None)
    if option and message.startswith("No such option"):
        names, c = [], ctx
        while c is not None:  # the command's own options, then its groups' (global) ones
            names += [o for p in c.command.params for o in (*p.opts, *p.secondary_opts)]
            c = c.parent
        close = difflib.get_close_matches(option, names, n=1, cutoff=0.6)
        message = f"no option {option} for {where}" + (f"; did you mean {close[0]}?" if close else "")
    return f"corpusdb: error: {message} ({where} --help)"


def allow_interrupts() -> None:
    """Ctrl-C raises KeyboardInterrupt again, caught by ``main`` (the console script ignored it while
    its modules loaded: see ``corpusdb.cli``)."""
    import signal

    try:
        if signal.getsignal(signal.SIGINT) is interrupted_while_loading:
            signal.signal(signal.SIGINT, signal.default_int_handler)
    except ValueError:  # not the main thread: signals are the main thread's
        pass


def _quiet_stdout() -> None:
    """Point stdout at /dev/null: the interpreter flushes it at exit, which would fail on the closed
    pipe again and print "Exception ignored ... BrokenPipeError" (Python's documented remedy)."""
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError):  # no file descriptor (a test's capture): nothing will flush it
        pass


def _say_problems(exc: FormatError) -> None:
    """A refusal of input files: each problem once, with its file and line and without a second
    ``error:`` (``corpusdb: error: f.run:2: rank ...``, not ``... f.run:2: error: rank ...``)."""
    errors = [p for p in exc.problems if p.severity == "error"]
    if len(exc.problems) <= 1:
        if not exc.problems:
            _say(f"corpusdb: error: {exc}")
            return
        p = exc.problems[0]
        where = f"{p.file}:{p.line}" if p.line is not None else p.file
        _say(f"corpusdb: error: {where}: {p.message}")
        return
    for p in exc.problems:
        _say(str(p))
    files = len({p.file for p in errors})
    _say(
        f"corpusdb: error: {len(errors)} error{'s' * (len(errors) != 1)} in {files} "
        f"file{'s' * (files != 1)} (listed above)"
    )


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
    from corpusdb.basics.terminal import clean

    try:
        sys.stderr.write(clean(" ".join(message.split("\n"))) + "\n")
        sys.stderr.flush()
    except BrokenPipeError:  # stderr's reader has gone too (`corpusdb ... 2>&1 | head -1`): nobody to tell
        pass


def run() -> None:
    """Console-script entry point. Why more than ``sys.exit(main())``: a closed stdout ends the process
    by SIGPIPE, as it ends ``cat`` or ``grep`` (the shell then reports 141), also when the last output
    only reaches the pipe as the interpreter flushes it at exit."""
    code = main()
    if code != CLOSED_PIPE:
        try:
            sys.stdout.flush()
        except BrokenPipeError:
            _quiet_stdout()
            code = CLOSED_PIPE
    if code == CLOSED_PIPE:
        _end_by_sigpipe()
    sys.exit(code)


def _end_by_sigpipe() -> None:
    import os
    import signal

    if hasattr(signal, "SIGPIPE"):
        sys.stderr.flush()
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)
        os.kill(os.getpid(), signal.SIGPIPE)


_ = State  # re-exported for tests

# Every command is registered when the module loads (``app`` is complete for the tests and for any
# program importing it), except in the ``corpusdb tui`` process: ``main`` registers ``tui`` alone.
if not (
    os.path.basename(sys.argv[0] if sys.argv else "") == "corpusdb" and command_name(sys.argv[1:]) == "tui"
):
    _register()
