"""Typer's coercion of option values, without pydantic for the values that need none (issue #14).

Why: Typer (0.29) checks every parameter's value through a pydantic ``TypeAdapter`` built when the
command runs, even a default ``None`` or a plain string for a ``str`` option: importing pydantic
and building the adapters costs about a third of what importing typer, rich and SQLAlchemy does,
for values that are already what the command receives. ``install`` gives each parameter of the
command about to run a coercion that returns such values as Typer would (None, strings, integers
written as digits, a choice spelled as one, a path) and hands anything else, every error included,
to Typer's own coercion, built on first use: what a command receives or reports is unchanged
(``tests/test_cli_coercion.py`` compares both on every parameter of every command).

Typer internals used: ``_TyperParameter._runtime_param`` (the coercion it builds lazily) and
``typer._coercion.build_runtime_param``; with a Typer without them nothing is installed.
"""

from __future__ import annotations

import functools
import re
from enum import Enum
from pathlib import Path
from typing import Any, get_args, get_origin

_DIGITS = re.compile(r"-?[0-9]{1,18}")
_SLOW = object()
"""``fast`` has no answer: Typer's own coercion decides (and reports errors)."""


def fast(value: Any, param: Any, ctx: Any) -> Any:
    """``value`` coerced as Typer would for ``param``, or ``_SLOW`` when only Typer can say."""
    from typer._param_types import coerce_cli_choice, coerce_cli_path

    desc = param.type_descriptor
    info = desc.parameter_info
    multi = param.multiple or param.nargs == -1
    if value is None:  # as RuntimeParam.coerce
        return () if multi else None
    if info.parser is not None or desc.file_annotation is not None:
        return _SLOW
    annotation = desc.annotation
    if multi:
        strings = get_origin(annotation) is list and get_args(annotation) == (str,)
        if strings and isinstance(value, list | tuple) and all(type(v) is str for v in value):
            return list(value)
        return _SLOW
    if annotation is str:
        return value if type(value) is str else _SLOW
    if annotation is int and info.min is None and info.max is None and not info.clamp:
        if type(value) is int:
            return value
        if type(value) is str and _DIGITS.fullmatch(value):
            return int(value)
        return _SLOW
    if annotation is float and type(value) is float and info.min is None and info.max is None:
        return value
    if desc.is_choice and isinstance(annotation, type) and issubclass(annotation, Enum):
        try:
            return coerce_cli_choice(value, choices=desc.choices, case_sensitive=desc.case_sensitive, ctx=ctx)
        except ValueError:  # not one of them: Typer's message
            return _SLOW
    if desc.is_path and annotation is Path and info.path_type is None and type(value) is str and value:
        return coerce_cli_path(Path(value), info, path_type=Path, param=param, ctx=ctx)
    return _SLOW


class _Coercion:
    """Stands in for Typer's ``RuntimeParam`` of one parameter (Typer only calls ``coerce``)."""

    __slots__ = ("_typer",)

    def __init__(self) -> None:
        self._typer: Any = None

    def coerce(self, value: Any, param: Any, ctx: Any) -> Any:
        got = fast(value, param, ctx)
        if got is not _SLOW:
            return got
        if self._typer is None:
            from typer._coercion import build_runtime_param

            self._typer = build_runtime_param(param.type_descriptor)
        return self._typer.coerce(value, param=param, ctx=ctx)


def install(command: Any) -> None:
    """Give every parameter of ``command`` (a click command or group, and its subcommands) the
    cheap coercion, where Typer has not built its own yet."""
    try:
        from typer._coercion import build_runtime_param  # noqa: F401 (only checks it is there)
        from typer.core import _TyperParameter
    except ImportError:  # another Typer: its own coercion, unchanged
        return

    def cheap(p: Any) -> Any:
        if isinstance(p, _TyperParameter) and getattr(p, "_runtime_param", 0) is None:
            p._runtime_param = _Coercion()
        return p

    def help_option(ctx: Any, *, _made: Any) -> Any:  # made when a context is: its value is None
        return cheap(_made(ctx))

    stack = [command]
    while stack:
        cmd = stack.pop()
        for p in cmd.params:
            cheap(p)
        cmd.get_help_option = functools.partial(help_option, _made=cmd.get_help_option)
        stack.extend(getattr(cmd, "commands", {}).values())
