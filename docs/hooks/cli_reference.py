"""MkDocs hook: fill docs/cli/reference.md from the Typer app itself, so the reference cannot drift.

Why a hook and not mkdocs-click: that plugin renders one command group per directive and its
options as click prints them; walking the tree here keeps one page with every command, its
arguments and options in a table, built from the same click objects `--help` prints.
"""

from __future__ import annotations

from typing import Any

MARKER = "<!-- cli-reference -->"


def _walk(command: Any, path: tuple[str, ...]) -> list[tuple[tuple[str, ...], Any]]:
    """Every command under ``command``, depth first. Duck-typed: Typer ships its own click copy."""
    out = [(path, command)]
    if hasattr(command, "commands"):
        for name in sorted(command.commands):
            out.extend(_walk(command.commands[name], (*path, name)))
    return out


def _cell(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def render() -> str:
    """Markdown for every command: usage, help, and a table of its arguments and options."""
    import typer.main

    from corpusdb.cli.main import app

    root = typer.main.get_command(app)
    parts = []
    for path, command in _walk(root, ("corpusdb",)):
        level = "#" * min(2 + len(path) - 1, 4) if len(path) > 1 else "##"
        ctx = command.context_class(command, info_name=" ".join(path))
        parts.append(f"{level} `{' '.join(path)}`\n")
        parts.append(f"```text\n{command.get_usage(ctx)}\n```\n")
        if command.help:
            parts.append(command.help.strip() + "\n")
        rows = []
        for param in command.params:
            if getattr(param, "hidden", False):
                continue
            names = ", ".join(f"`{n}`" for n in (*param.opts, *param.secondary_opts))
            if param.param_type_name == "argument":
                names = f"`{param.name}` (argument)"
            help_text = getattr(param, "help", None) or ""
            default = param.default if getattr(param, "show_default", False) else None
            if default not in (None, False, (), []) and not callable(default):
                help_text += f" (default: `{getattr(default, 'value', default)}`)"
            if param.multiple and "repeat" not in help_text.lower():
                help_text += " Repeatable."
            rows.append(f"| {names} | {_cell(help_text)} |")
        if rows:
            parts.append("| name | what |\n|---|---|\n" + "\n".join(rows) + "\n")
    return "\n".join(parts)


def on_page_markdown(markdown: str, page: Any, **_: Any) -> str:
    """Replace the marker in the CLI reference page with the generated reference."""
    if MARKER in markdown:
        return markdown.replace(MARKER, render())
    return markdown
