"""Filling a DataTable with widths fixed from the content, so every paint lays it out the same.

Why: DataTable measures auto-width columns lazily (on idle, from the rows added since); when a reload
clears and refills the table around the first paint, a column can keep the width of its label and cut
its cells ("· assi" for "· assigned"). Setting each width from the rows we are about to show makes the
layout a function of the data alone, which is also what keeps the SVG snapshots stable.
"""

from __future__ import annotations

import itertools
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
    from corpusdb.basics.terminal import clean

    return Text(clean(cell)) if isinstance(cell, str) else cell


# Red (0) through yellow (0.5) to green (1): the colours of agreement a lead reads at a glance.
_HEAT = ((0.0, (205, 70, 60)), (0.5, (225, 195, 70)), (1.0, (80, 175, 95)))


def heat_colour(value: float) -> str:
    """The background for an agreement value in [0, 1] (below 0, e.g. a negative kappa, is red)."""
    v = max(0.0, min(1.0, value))
    for (x0, c0), (x1, c1) in itertools.pairwise(_HEAT):
        if v <= x1:
            t = (v - x0) / (x1 - x0)
            r, g, b = (round(a + (b - a) * t) for a, b in zip(c0, c1, strict=True))
            return f"#{r:02x}{g:02x}{b:02x}"
    return "#{:02x}{:02x}{:02x}".format(*_HEAT[-1][1])


def heat(value: float | None, text: str) -> Text:
    """A table cell whose background shows ``value``: the pair matrix and per-document F1 as a
    picture (no colour for an undefined value)."""
    if value is None:
        return Text(text)
    return Text(text, style=f"#000000 on {heat_colour(value)}")
