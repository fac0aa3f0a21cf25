"""The CLI's cheap coercion of option values gives what Typer's own gives (issue #14).

``corpusdb.cli.coercion`` answers, without pydantic, for the values that need no checking (None, a
string for a ``str`` option, digits for an ``int``, a choice, a path) and leaves the rest to Typer.
Here both run on every parameter of every command with values of every kind, and must agree; and
the pruned app ``main`` runs shows the same help as the whole app.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Any

import pytest
import typer

from corpusdb.cli import coercion
from corpusdb.cli.main import app, app_for, command_name, main

typer_coercion = pytest.importorskip(
    "typer._coercion", reason="a Typer without lazy coercion: nothing installed"
)


def _params() -> list[tuple[Any, Any]]:
    """(command, parameter) for every parameter of every command, the root's included."""
    out: list[tuple[Any, Any]] = []
    stack: list[Any] = [typer.main.get_command(app)]
    while stack:
        cmd = stack.pop()
        out += [(cmd, p) for p in cmd.params if hasattr(p, "type_descriptor")]
        stack.extend(getattr(cmd, "commands", {}).values())
    return out


def _samples(param: Any, tmp: Path) -> list[Any]:
    choices = [c.value if hasattr(c, "value") else c for c in param.type_descriptor.choices or ()]
    values: list[Any] = [None, param.default, "", "abc", "5", "-3", "007", " 5", "5.5", "1e3", "x" * 30]
    values += [*choices, *(str(c).upper() for c in choices), str(tmp), str(tmp / "missing"), "-"]
    values += [5, 5.5, True, ("a", "b"), ["a"], (), ("a", 5)]
    return values


def _typer(value: Any, param: Any, ctx: Any) -> tuple[str, Any]:
    """What Typer's own coercion gives (built anew: nothing cached from another value)."""
    real = typer_coercion.build_runtime_param(param.type_descriptor)
    try:
        return "ok", real.coerce(value, param=param, ctx=ctx)
    except Exception as exc:
        return type(exc).__name__, str(exc)


def test_cheap_coercion_agrees_with_typer(tmp_path: Path) -> None:
    params = _params()
    assert len(params) > 300  # every command's parameters (a broken walk would check nothing)
    answered = 0
    for cmd, param in params:
        ctx = typer.Context(cmd)
        for value in _samples(param, tmp_path):
            got = coercion.fast(value, param, ctx)
            if got is coercion._SLOW:
                continue
            answered += 1
            want = _typer(value, param, ctx)
            assert want == ("ok", got) and type(want[1]) is type(got), (cmd.name, param.name, value)
    assert answered > 1000  # most values of most parameters need no pydantic


def test_installed_coercion_runs_commands_as_typer(tmp_path: Path) -> None:
    """Through ``main``: values reach the command, bad ones are refused with Typer's message."""
    db = ["--db", str(tmp_path / "c.sqlite")]
    assert main([*db, "init", "p", "--schema", "bb-2011"]) == 0
    assert main([*db, "annotator", "add", "alice", "--role", "lead"]) == 0
    err = io.StringIO()
    with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
        code = main([*db, "assign", "-n", "many"])
    assert code == 2 and "'--per-document' / '-n': Input should be a valid integer" in err.getvalue()
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main([*db, "--format", "json", "annotator", "list"]) == 0  # a choice (an Enum)
    assert '"alice"' in out.getvalue()


def _help(argv: list[str], command: Any) -> str:
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.suppress(SystemExit):
        command(args=argv, prog_name="corpusdb", standalone_mode=True)
    return out.getvalue()


def test_the_pruned_app_shows_the_same_help() -> None:
    full = typer.main.get_command(app)
    names = sorted(full.commands)  # type: ignore[attr-defined]
    assert len(names) > 30
    for name in names:
        assert command_name(["--db", "x", "--as", "a", name, "--help"]) == name
        pruned = typer.main.get_command(app_for(name))
        assert list(pruned.commands) == [name]  # type: ignore[attr-defined]
        assert _help([name, "--help"], pruned) == _help([name, "--help"], full), name
    assert app_for("no-such-command") is app and app_for(None) is app
    assert command_name(["--help"]) is None and command_name(["--db=x", "status"]) == "status"
