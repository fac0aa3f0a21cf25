"""The command groups of ``corpusdb``: each module adds its commands with ``register(app)``."""

from __future__ import annotations

from collections.abc import Callable

import typer

from corpusdb.cli import (
    database,
    demo,
    formats,
    groups,
    history,
    hygiene,
    interchange,
    project,
    relevance,
    team,
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
    __import__("corpusdb.cli.evaluate", fromlist=["register"]).register,  # `corpusdb evaluate`
    interchange.register,
    formats.register,  # more import/export formats, into interchange's groups
    groups.register,
    hygiene.register,
    workflow_assign.register,
    __import__("corpusdb.cli.skips", fromlist=["register"]).register,  # `corpusdb skip` / `unskip`
    workflow_adjudicate.register,
    workflow_sets.register,
    workflow_gold.register,
    workflow_release.register,
    relevance.register,  # topics, runs, pool, judge, judgments, qrels; `evaluate trec` (after any evaluate group)
    team.register,
    __import__("corpusdb.cli.kb", fromlist=["register"]).register,  # `corpusdb kb`
    __import__("corpusdb.cli.recommend", fromlist=["register"]).register,  # `corpusdb recommend`
    __import__("corpusdb.cli.validate", fromlist=["register"]).register,  # `corpusdb validate` (no database)
    __import__("corpusdb.cli.task", fromlist=["register"]).register,  # `corpusdb task` (shared tasks)
    __import__("corpusdb.cli.search", fromlist=["register"]).register,  # `corpusdb search`
    __import__("corpusdb.cli.tui", fromlist=["register"]).register,  # `corpusdb tui`; textual loads lazily
    __import__("corpusdb.cli.serve", fromlist=["register"]).register,  # `corpusdb serve`, lazily
]
