"""``corpusdb conflicts``, ``adjudicate`` and ``decisions``: from disagreement to gold, with provenance."""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

import typer
from rich.text import Text

from corpusdb.cli.common import emit, out, state
from corpusdb.cli.tables import print_table
from corpusdb.cli.workflow_common import bar, codes, kind_of_key, parse_item
from corpusdb.errors import UsageError

CRITERION = typer.Option(help="Span matching: exact, left, right, left_or_right, approximate, partial, "
                              "fragment or jaccard (groups disputes; identical versions still needed).")  # fmt: skip
TYPES = typer.Option(help="Span types when aligning: ignored (a type dispute is one conflict) or required.")
SOURCES = typer.Option("--source", "-s", help="Compare these sets (annotator or set id; repeatable), e.g. a "
                                               "system's predictions; default: the submitted annotation sets.")  # fmt: skip


def conflicts(
    ctx: typer.Context,
    document: Annotated[
        str | None, typer.Argument(help="One document; default: every ready document.")
    ] = None,
    criterion: Annotated[str, CRITERION] = "exact",
    types: Annotated[str, TYPES] = "ignored",
    sources: Annotated[list[str] | None, SOURCES] = None,
    all_items: Annotated[
        bool, typer.Option("--all", help="Include resolved conflicts and agreed items.")
    ] = False,
    counts: Annotated[
        bool, typer.Option("--counts", help="Only the counts per document (the queue).")
    ] = False,
) -> None:
    """Items on which the submitted sets of a document disagree, each with a stable key."""
    st = state(ctx)
    c = st.corpus()
    if counts:
        if document is not None:
            raise UsageError("--counts lists every ready document: give no DOCUMENT")
        q = c.adjudication_queue(criterion=criterion, types=types)
        emit(st, [e.to_dict() for e in q], lambda: print_table(
            ("document", "sets", "conflicts", "open", "gold"),
            [(e.document, e.sets, e.conflicts, e.open, e.gold_status if e.has_gold else "none") for e in q],
            f"total: {len(q)} documents, {sum(e.conflicts for e in q)} conflicts, {sum(e.open for e in q)} open",
        ))  # fmt: skip
        return
    res = c.conflicts(document, criterion=criterion, types=types, sources=sources, include_resolved=all_items)

    def render() -> None:
        for dc in res:
            who = ", ".join(f"{s.annotator} (set {s.set_id})" for s in dc.sources)
            counts_s = ", ".join(f"{k} {v}" for k, v in dc.counts.items() if v)
            out.print(Text.assemble((dc.document, "bold"), f": {dc.open} open of {sum(dc.counts.values())} "
                      f"conflicts ({counts_s or 'none'}); {dc.agreed} agreed; sources: {who}"))  # fmt: skip
            for x in dc.conflicts:
                state_s = (
                    f"decided {x.decision.method}"
                    if x.decision
                    else (f"blocked: {x.blocked}" if x.blocked else "open")
                )
                out.print(f"  {x.key}  [{', '.join(x.differs) or 'agreed'}] {state_s}", markup=False)
                for v in x.variants:
                    names = ", ".join(s.annotator or str(s.set_id) for s in v.sources)
                    out.print(f"      {v.display}  <- {names}", markup=False)
        if len(res) != 1:
            blocked = sum(1 for dc in res for x in dc.conflicts if x.blocked and not x.decision)
            out.print(f"total: {len(res)} documents, {sum(dc.open for dc in res)} open conflicts "
                      f"({blocked} blocked), {sum(dc.agreed for dc in res)} agreed items", markup=False)  # fmt: skip

    emit(st, [dc.to_dict() for dc in res], render)


def adjudicate(
    ctx: typer.Context,
    document: Annotated[
        str | None, typer.Argument(help="One document; default: every ready document.")
    ] = None,
    key: Annotated[
        str | None, typer.Option("--key", "-k", help="Resolve this conflict (see `conflicts`).")
    ] = None,
    take: Annotated[
        str | None,
        typer.Option("--take", help="…with this source's version (annotator, NAME:LOCALID or set id)."),
    ] = None,
    none: Annotated[bool, typer.Option("--none", help="…by refusing every version.")] = False,
    item: Annotated[
        str | None,
        typer.Option(
            "--item", help="…with an edited item as JSON (or @file); relation arguments name gold span ids."
        ),
    ] = None,
    reason: Annotated[
        str | None, typer.Option("--reason", "-r", help="Why (kept with the decision).")
    ] = None,
    threshold: Annotated[
        int | None, typer.Option(help="Auto-merge: accept a version at least K sources agree on (majority).")
    ] = None,
    criterion: Annotated[str, CRITERION] = "exact",
    types: Annotated[str, TYPES] = "ignored",
    sources: Annotated[list[str] | None, SOURCES] = None,
    every: Annotated[
        bool, typer.Option("--all", help="With --take: take that source's version of every open conflict.")
    ] = False,
    item_type: Annotated[
        str | None,
        typer.Option("--type", help="With --take: ...of every open conflict whose versions have this type."),
    ] = None,
) -> None:
    """Build gold: auto-merge agreed items (default), resolve one conflict with --key, or many with
    --take NAME --all / --type TYPE (one transaction per document; blocked items are listed with why).

    Decisions already made are kept on every run; each gold item records how it was decided.
    """
    st = state(ctx)
    c = st.corpus()
    if every or item_type is not None:
        if key is not None or none or item is not None or threshold is not None:
            raise UsageError("--all/--type take a source's version of many conflicts: give --take, not --key, "
                             "--none, --item or --threshold")  # fmt: skip
        if take is None:
            raise UsageError("--all/--type need --take NAME (whose version to take)")
        bulk = c.resolve_bulk(document, take=take, item_type=item_type, reason=reason, criterion=criterion,
                              types=types, sources=sources)  # fmt: skip
        emit(st, [b.to_dict() for b in bulk], lambda: _print_bulk(bulk))
        return
    if key is None:
        if take is not None or none or item is not None:
            raise UsageError("--take, --none and --item resolve one conflict: give its --key and DOCUMENT "
                             "(or --take NAME --all for every conflict)")  # fmt: skip
        with bar("merging") as cb:
            res = c.merge(document, threshold=threshold, criterion=criterion, types=types, sources=sources,
                          progress=cb)  # fmt: skip
        emit(st, [r.to_dict() for r in res], lambda: [
            out.print(f"{r.document}: +{sum(r.added.values())} gold items "
                      f"({', '.join(f'{k} {v}' for k, v in r.added.items()) or 'none'}), {r.rejected} refused, "
                      f"{r.kept} kept, {r.existing} already in gold, {r.open} open", markup=False) for r in res])  # fmt: skip
        return
    if document is None:
        raise UsageError("resolving a conflict needs its DOCUMENT")
    if sum((take is not None, none, item is not None)) != 1:  # said in CLI words, not the API's
        raise UsageError("resolving a conflict needs exactly one of --take, --none and --item")
    parsed = parse_item(item, kind_of_key(key)) if item is not None else None
    r = c.resolve(document, key, take=take, item=parsed, reject=none, reason=reason, criterion=criterion,
                  types=types, sources=sources)  # fmt: skip
    emit(st, r.to_dict(), lambda: out.print(
        f"{r.document} {r.key}: " + (f"gold {r.gold_item_id}" if r.gold_item_id else "refused")
        + f" (decision {r.decision.id}); {r.open} open conflict(s) left", markup=False))  # fmt: skip


def _print_bulk(bulk: list[Any]) -> None:
    for b in bulk:
        out.print(f"{b.document}: took {b.take}'s version of {b.taken}, refused {b.refused} (nothing there), "
                  f"{b.followed} followed, {len(b.skipped)} skipped, {b.open} open", markup=False)  # fmt: skip
        for s in b.skipped:
            out.print(f"  skipped {s.key}: {s.reason}", markup=False)
    out.print(f"total: {len(bulk)} documents, {sum(b.taken for b in bulk)} taken, "
              f"{sum(b.refused for b in bulk)} refused, {sum(len(b.skipped) for b in bulk)} skipped, "
              f"{sum(b.open for b in bulk)} open", markup=False)  # fmt: skip


def decisions(
    ctx: typer.Context,
    document: Annotated[str | None, typer.Argument(help="One document; default: all.")] = None,
) -> None:
    """The provenance of every gold item: method, sources, who decided, when and why."""
    st = state(ctx)
    res = st.corpus().decisions(document)

    def render() -> None:
        rows = []
        for d in res:
            src = ", ".join(
                f"{s.get('annotator')}:{s.get('local_id') or '-'}" if "set_id" in s else f"correction {s.get('correction')}"
                for s in d.sources
            )  # fmt: skip
            rows.append((d.document_external_id, f"{d.item_kind} {d.item_id or '(refused)'}", d.method,
                         d.decided_by or "owner", f"{d.created:%Y-%m-%d %H:%M}", src, d.reason or ""))  # fmt: skip
        by = Counter(d.method for d in res)
        print_table(("document", "item", "method", "decided by", "when", "sources", "reason"), rows,
                    f"total: {len(res)} decisions on {len({d.document_external_id for d in res})} documents"
                    + (f" ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))})" if by else ""))  # fmt: skip

    emit(st, [{"id": d.id, "document": d.document_external_id, "kind": d.item_kind, "item": d.item_id,
               "method": d.method, "decided_by": d.decided_by, "sources": list(d.sources), "reason": d.reason,
               "created": d.created.isoformat()} for d in res], render)  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("conflicts", epilog=codes("5 not an adjudicator, or the document is not ready"))(conflicts)
    app.command("adjudicate", epilog=codes("4 invalid item", "5 not an adjudicator, or the document is not ready",
                                           "6 already decided, or blocked by an undecided argument"))(adjudicate)  # fmt: skip
    app.command("decisions", epilog=codes("5 not an adjudicator"))(decisions)
