"""The command groups of ``corpusdb``: each module adds its commands with ``register(app)``."""

from __future__ import annotations

from collections.abc import Callable

import typer

from corpusdb.cli import database, project

REGISTRY: list[Callable[[typer.Typer], None]] = [
    project.register,
    database.register,
]
