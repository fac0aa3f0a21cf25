"""Filling a DataTable with widths fixed from the content, so every paint lays it out the same.

Why: DataTable measures auto-width columns lazily (on idle, from the rows added since); when a reload
clears and refills the table around the first paint, a column can keep the width of its label and cut
its cells ("· assi" for "· assigned"). Setting each width from the rows we are about to show makes the
layout a function of the data alone, which is also what keeps the SVG snapshots stable.
"""

from __future__ import annotations

from collections.abc import Sequence

from rich.cells import cell_len
from rich.text import Text
from textual.widgets import DataTable

Cell = str | Text


def _width(cell: Cell) -> int:
    return cell.cell_len if isinstance(cell, Text) else cell_len(str(cell))


def fill_table(
    table: DataTable,  # type: ignore[type-arg]
    columns: Sequence[str],
    rows: Sequence[Sequence[Cell]],
    *,
    keys: Sequence[str] | None = None,
) -> None:
    """Replace the table's columns and rows; each column as wide as its widest cell or label."""
    table.clear(columns=True)
    for i, label in enumerate(columns):
        width = max([cell_len(label), *(_width(r[i]) for r in rows)])
        table.add_column(_plain(label), width=width, key=label)
    for n, r in enumerate(rows):
        table.add_row(*(_plain(c) for c in r), key=keys[n] if keys is not None else None)


def _plain(cell: Cell) -> Cell:
    """A str cell as plain text: DataTable reads a str as markup, and cells hold names and
    document ids (an annotator named ``[/]`` or ``[bold red]bob``; issue #10.9)."""
    from corpusdb.terminal import clean

    return Text(clean(cell)) if isinstance(cell, str) else cell
