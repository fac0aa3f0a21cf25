"""``corpusdb correct`` and ``review``: fixing gold after a release, and finding what to fix."""

from __future__ import annotations

from typing import Annotated

import typer

from corpusdb.basics.errors import NotFound, UsageError
from corpusdb.cli.common import emit, out, state
from corpusdb.cli.workflow_common import codes, parse_item


def correct(
    ctx: typer.Context,
    document: Annotated[str, typer.Argument(help="The document whose gold changes.")],
    reason: Annotated[str, typer.Option("--reason", "-r", help="Why (required; goes into the change log).")],
    action: Annotated[str | None, typer.Option(help="add, change or delete.")] = None,
    key: Annotated[
        str | None, typer.Option("--key", "-k", help="Gold local id (or label name) to change/delete.")
    ] = None,
    item: Annotated[
        str | None, typer.Option("--item", help="The new item as JSON (or @file) with its kind.")
    ] = None,
    kind: Annotated[
        str | None, typer.Option(help="span, relation, link or label (when the key is ambiguous).")
    ] = None,
    label: Annotated[str | None, typer.Option("--label", help="Relabel the document: NAME=VALUE.")] = None,
    author: Annotated[str | None, typer.Option(help="Who corrects (default: the --as user).")] = None,
) -> None:
    """Add, change or delete a gold item after a release, or relabel the document (recorded)."""
    st = state(ctx)
    c = st.corpus()
    new = parse_item(item, kind) if item is not None else None
    if label is not None:
        name, eq, value = label.partition("=")
        if not eq or not name:
            raise UsageError("--label takes NAME=VALUE")
        from corpusdb.basics.records import DocLabel

        new, kind, key = DocLabel(name, value), "label", name
        if action is None:
            try:
                has = any(lb.name == name for lb in c.gold(document).annotations.labels)
            except NotFound:
                has = False
            action = "change" if has else "add"
    if action is None:
        raise UsageError("give --action add|change|delete (or --label NAME=VALUE)")
    res = c.correct(document, action=action, reason=reason, item=new, key=key, kind=kind, author=author)
    emit(st, res.to_dict(), lambda: out.print(
        f"correction {res.id}: {res.action} {res.item_kind} {res.item_id} on {res.document} by {res.author}",
        markup=False))  # fmt: skip


def review(
    ctx: typer.Context,
    min_sources: Annotated[int, typer.Option(help="How many sources must agree against gold.")] = 2,
    criterion: Annotated[str, typer.Option(help="Span matching criterion.")] = "exact",
    predictions: Annotated[bool, typer.Option(help="Count systems' predictions as sources.")] = True,
    limit: Annotated[int, typer.Option(help="Show at most this many (text output).")] = 50,
) -> None:
    """Gold suspects: items several other sources agree on against gold, most contradicted first."""
    st = state(ctx)
    res = st.corpus().review(min_sources=min_sources, criterion=criterion, predictions=predictions)
    from corpusdb.workflow.units import display

    def render() -> None:
        out.print(f"{len(res)} suspect(s)")
        for s in res[:limit]:
            who = ", ".join(r.annotator or str(r.set_id) for r in s.supporting)
            out.print(f"{s.disagreeing}/{s.n_sources}\t{s.document}\t{s.key}\t{s.problem}\tgold: "
                      f"{display(s.gold_item)}\tothers: {display(s.proposed)} <- {who}", markup=False)  # fmt: skip

    emit(st, [s.to_dict() for s in res], render)


def register(app: typer.Typer) -> None:
    app.command("correct", epilog=codes("4 invalid item or no reason", "5 not a lead or adjudicator",
                                        "6 conflict"))(correct)  # fmt: skip
    app.command("review", epilog=codes("5 not a lead or adjudicator"))(review)
