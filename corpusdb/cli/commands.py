"""The command groups of ``corpusdb``: each module adds its commands with ``register(app)``."""

from __future__ import annotations

from collections.abc import Callable

import typer

from corpusdb.cli import (
    database,
    demo,
    history,
    interchange,
    project,
    workflow_adjudicate,
    workflow_assign,
    workflow_gold,
    workflow_release,
    workflow_sets,
)

REGISTRY: list[Callable[[typer.Typer], None]] = [
    project.register,
    database.register,
    demo.register,
    history.register,
    __import__("corpusdb.cli.agree", fromlist=["register"]).register,  # `corpusdb agree`
    interchange.register,
    workflow_assign.register,
    workflow_adjudicate.register,
    workflow_sets.register,
    workflow_gold.register,
    workflow_release.register,
    __import__("corpusdb.cli.tui", fromlist=["register"]).register,  # `corpusdb tui`; textual loads lazily
]
