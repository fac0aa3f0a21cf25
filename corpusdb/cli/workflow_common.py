"""What the workflow commands share: exit-code epilogs, reading items from JSON, progress callbacks."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Any

from corpusdb.basics.errors import InvalidInput
from corpusdb.cli.common import progress

if TYPE_CHECKING:  # the workflow loads when a command runs, not to parse the arguments (issue #14)
    from corpusdb.workflow.types import Item


def codes(*extra: str) -> str:
    """The exit codes of a command, for its ``--help`` epilog."""
    base = ["0 ok", "2 usage error", "3 not found"]
    return "Exit codes: " + ", ".join(base + list(extra)) + ", 7 database error."


def parse_item(text: str, kind: str | None = None) -> Item:
    """An item from JSON text (or ``@file.json``), e.g. ``{"type": "Host", "fragments": [[4, 9]]}``."""
    from corpusdb.services.items import item_from_json

    raw = Path(text[1:]).read_text(encoding="utf-8") if text.startswith("@") else text
    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        raise InvalidInput(f"--item is not valid JSON: {exc}") from exc
    if not isinstance(data, dict):
        raise InvalidInput("--item must be a JSON object")
    return item_from_json(data, kind)  # type: ignore[return-value]


def kind_of_key(key: str) -> str:
    """``span:12-19`` -> ``span``: a conflict key starts with its item kind."""
    return key.split(":", 1)[0]


@contextmanager
def bar(description: str) -> Iterator[Callable[[int, int], None]]:
    """A progress callback ``(done, total)`` drawing a bar on stderr (silent when not a terminal)."""
    with progress(description) as p:
        task = p.add_task(description, total=None)

        def update(done: int, total: int) -> None:
            p.update(task, completed=done, total=total)

        yield update


def fmt_float(x: Any) -> str:
    return "-" if x is None else f"{x:.3f}"
