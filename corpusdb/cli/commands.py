"""The command groups of ``corpusdb``: each module adds its commands with ``register(app)``."""

from __future__ import annotations

from collections.abc import Callable

import typer

from corpusdb.cli import database, demo, project

REGISTRY: list[Callable[[typer.Typer], None]] = [
    project.register,
    database.register,
    demo.register,
]
