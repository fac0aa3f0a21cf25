"""``corpusdb history``: the project's trail of recorded actions."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from corpusdb.cli.common import emit, out, state


def history(
    ctx: typer.Context,
    action: Annotated[
        str | None, typer.Option(help="Only this action (e.g. reopen, assign, release).")
    ] = None,
    target: Annotated[str | None, typer.Option(help="Only this target (a set id, a version...).")] = None,
    who: Annotated[str | None, typer.Option("--by", help="Only actions by this user.")] = None,
    limit: Annotated[int, typer.Option("--limit", "-n", help="How many, newest first.")] = 50,
) -> None:
    """Recorded actions, newest first (leads and adjudicators; exit 5 for annotators)."""
    st = state(ctx)
    events = st.corpus().history(action=action, target=target, actor=who, limit=limit)
    rows = [
        {"id": e.id, "created": e.created.isoformat(), "actor": e.actor, "action": e.action,
         "target": e.target, "detail": dict(e.detail)}
        for e in events
    ]  # fmt: skip

    def render() -> None:
        for r in rows:
            detail = json.dumps(r["detail"], ensure_ascii=False) if r["detail"] else ""
            out.print(f"{r['created'][:19]}  {r['actor']:<12} {r['action']:<18} {r['target']:<10} {detail}",
                      markup=False)  # fmt: skip

    emit(st, rows, render)


def register(app: typer.Typer) -> None:
    app.command("history")(history)
