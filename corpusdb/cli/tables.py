"""Plain text tables for the command line: a header line, tab-separated rows and a totals line.

Why tabs and not rich tables: the output is read by people *and* piped into ``cut``/``awk``/``sort``;
tab-separated columns keep both working, and the header names each column.
"""

from __future__ import annotations

from collections.abc import Sequence

import typer


def print_table(headers: Sequence[str], rows: Sequence[Sequence[object]], total: str | None = None) -> None:
    """Print a header line, one tab-separated line per row and, when given, a totals line.

    ``typer.echo``, not the rich console: rich expands tabs to spaces, which breaks ``cut -f``."""
    typer.echo("\t".join(headers))
    for row in rows:
        typer.echo("\t".join("" if c is None else str(c) for c in row))
    if total is not None:
        typer.echo(total)
