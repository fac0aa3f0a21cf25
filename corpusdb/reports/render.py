"""Terminal (rich) and Markdown renderings of an agreement report body."""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from rich.console import Console
from rich.table import Table
from rich.text import Text

from corpusdb.reports.tables import describe, sections


def render_text(
    body: Mapping[str, Any],
    console: Console,
    *,
    only: Collection[str] | None = None,
    matrix: str | None = None,
) -> None:
    """The report as rich tables on ``console`` (``only``: just the sections with these titles)."""
    console.print(Text.assemble(("Agreement", "bold"), f" — project {body['project']!r}, as {body['actor']}"))
    console.print(describe(body))
    for sec in sections(body, matrix):
        if only is not None and sec.title not in only:
            continue
        if not sec.headers:
            console.print("\n" + sec.title, style="bold")
            for line in sec.lines:
                console.print(f"  {line}", markup=False)
            continue
        t = Table(*sec.headers, title=sec.title, caption=sec.note or None, title_justify="left")
        for row in sec.rows:
            t.add_row(*row)
        console.print(t)


def _cell(s: str) -> str:
    return s.replace("|", "\\|").replace("\n", " ")


def render_markdown(body: Mapping[str, Any], *, matrix: str | None = None) -> str:
    """The report as GitHub-flavoured Markdown."""
    out = [
        f"# Inter-annotator agreement: {body['project']}",
        "",
        f"{describe(body)}. Run as {body['actor']} at {body['generated']} (`{body['schema']}`).",
        "",
    ]
    for sec in sections(body, matrix):
        out += [f"## {sec.title}", ""]
        if not sec.headers:
            out += [f"- {_cell(line)}" for line in sec.lines] + [""]
            continue
        out.append("| " + " | ".join(_cell(h) or " " for h in sec.headers) + " |")
        out.append("|" + "|".join("---" if i == 0 else "---:" for i in range(len(sec.headers))) + "|")
        out += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in sec.rows]
        out.append("")
        if sec.note:
            out += [f"*{_cell(sec.note)}*", ""]
    return "\n".join(out)
