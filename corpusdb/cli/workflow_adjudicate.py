"""``corpusdb conflicts``, ``adjudicate`` and ``decisions``: from disagreement to gold, with provenance."""

from __future__ import annotations

from collections import Counter
from typing import Annotated, Any

import typer

from corpusdb.basics.errors import UsageError
from corpusdb.cli.common import TYPES, emit, out, progress_callback, state, types_mode
from corpusdb.cli.tables import print_table
from corpusdb.cli.workflow_common import bar, codes, kind_of_key, parse_item

CRITERION = typer.Option(help="Span matching: exact, left, right, left_or_right, approximate, overlap, "
                              "fragment or jaccard (groups disputes; identical versions still needed).")  # fmt: skip
SOURCES = typer.Option("--source", "-s", help="Compare these sets (annotator or set id; repeatable), e.g. a "
                                               "system's predictions; default: the submitted annotation sets.")  # fmt: skip


def conflicts(
    ctx: typer.Context,
    document: Annotated[
        str | None, typer.Argument(help="One document; default: every ready document.")
    ] = None,
    criterion: Annotated[str, CRITERION] = "exact",
    types: Annotated[str | None, TYPES] = None,
    sources: Annotated[list[str] | None, SOURCES] = None,
    all_items: Annotated[
        bool, typer.Option("--all", help="Include resolved conflicts and agreed items.")
    ] = False,
    counts: Annotated[
        bool, typer.Option("--counts", help="Only the counts per document (the queue).")
    ] = False,
) -> None:
    """Items on which the submitted sets of a document disagree, each with a stable key."""
    from rich.text import Text

    from corpusdb.workflow.types import open_summary
    from guidelines.derive import derived_line

    st = state(ctx)
    types = types_mode(types)
    c = st.corpus()
    if counts:
        if document is not None:
            raise UsageError("--counts lists every ready document: give no DOCUMENT")
        q = c.adjudication_queue(criterion=criterion, types=types)
        waiting = sum(e.waiting for e in q)
        emit(st, [e.to_dict() for e in q], lambda: print_table(
            ("document", "sets", "conflicts", "open", "waiting", "gold"),
            [(e.document, e.sets, e.conflicts, e.open, e.waiting, _gold_state(e.gold_status) if e.has_gold else "none")
             for e in q],
            f"total: {len(q)} documents, {sum(e.conflicts for e in q)} conflicts, {sum(e.open for e in q)} open"
            + (f" + {waiting} waiting on them" if waiting else ""),
        ))  # fmt: skip
        return
    res = c.conflicts(document, criterion=criterion, types=types, sources=sources, include_resolved=all_items)

    def render() -> None:
        for dc in res:
            who = ", ".join(f"{s.annotator} (set {s.set_id})" for s in dc.sources)
            counts_s = ", ".join(f"{k} {v}" for k, v in dc.counts.items() if v)
            out.print(Text.assemble((dc.document, "bold"), f": {open_summary(dc.open, dc.waiting)} ({sum(dc.counts.values())} "
                      f"conflicts: {counts_s or 'none'}); {dc.agreed} agreed; sources: {who}"))  # fmt: skip
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
            for who, ds in dc.derived.items():  # derived relations: shown apart, never conflicts
                if ds:
                    out.print(f"  derived by the schema's rules, {who} (not conflicts):", markup=False)
                    for d in ds:
                        out.print(f"      {derived_line(d)}", markup=False)
        if len(res) != 1:
            blocked = sum(1 for dc in res for x in dc.conflicts if x.blocked and not x.decision)
            waiting = {f"{dc.document} {k}": on for dc in res for k, on in dc.waiting.items()}
            out.print(f"total: {len(res)} documents, {open_summary(sum(dc.open for dc in res), waiting)} "
                      f"({blocked} blocked), {sum(dc.agreed for dc in res)} agreed items", markup=False)  # fmt: skip

    emit(st, [dc.to_dict() for dc in res], render)


def _gold_state(status: str | None) -> str:
    """A gold set's status as people say it: ``submitted`` gold is finished."""
    return "finished" if status == "submitted" else str(status)


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
    types: Annotated[str | None, TYPES] = None,
    sources: Annotated[list[str] | None, SOURCES] = None,
    every: Annotated[
        bool, typer.Option("--all", help="With --take: take that source's version of every open conflict.")
    ] = False,
    item_type: Annotated[
        str | None,
        typer.Option("--type", help="With --take: ...of every open conflict whose versions have this type."),
    ] = None,
    undo: Annotated[
        bool, typer.Option("--undo", help="With --key: undo its decision (the conflict is open again).")
    ] = False,
    revise: Annotated[
        bool,
        typer.Option(
            "--revise",
            help="With --key: decide a decided conflict again (without it, a decided conflict is refused, exit 6, "
            "naming who decided it).",
        ),
    ] = False,
    finish: Annotated[
        bool,
        typer.Option(
            "--finish",
            help="Finish the DOCUMENT's gold (refused while a conflict is open); decisions are frozen afterwards. "
            "Without DOCUMENT: every ready document's gold that can be finished; the rest are listed with why.",
        ),
    ] = False,
    check: Annotated[
        bool,
        typer.Option(
            "--check", help="Say whether the DOCUMENT's gold can be finished (writes nothing; exit 6 if not)."
        ),
    ] = False,
    force: Annotated[
        bool,
        typer.Option(
            "--ignore-schema", help="With --finish: finish even if gold breaks the schema (recorded)."
        ),
    ] = False,
) -> None:
    """Build gold: auto-merge agreed items (default), resolve one conflict with --key, or many with
    --take NAME --all / --type TYPE (one transaction per document; blocked items are listed with why).

    A decided conflict may be decided again (--revise; without it the decision someone made is
    kept and the command exits 6), or undone with --undo, until the document's gold is
    finished with --finish (checked like submit: no open conflict, no schema error). Decisions already
    made are kept on every run; each gold item records how it was decided (`corpusdb decisions`).
    --item with --take NAME records the item as edited from NAME's version.
    """
    st = state(ctx)
    types = types_mode(types)
    c = st.corpus()
    if revise and (key is None or undo or finish or check or every or item_type is not None):
        raise UsageError(
            "--revise decides one decided conflict again: give its --key with --take, --none or --item"
        )
    if finish or check:
        if key is not None or take is not None or none or item is not None or undo or every:
            raise UsageError(
                "--finish/--check act on a whole document: give no --key, --take, --none, --item"
            )
        if document is None:
            _finish_all(
                st, c, dry_run=not finish, force=force, criterion=criterion, types=types, sources=sources
            )
            return
        _finish(
            st, c, document, finish=finish, force=force, criterion=criterion, types=types, sources=sources
        )
        return
    if undo:
        if document is None or key is None:
            raise UsageError("--undo needs the DOCUMENT and the --key of the decided conflict")
        if take is not None or none or item is not None:
            raise UsageError("--undo takes no --take, --none or --item")
        u = c.undo_decision(document, key, reason=reason, criterion=criterion, types=types, sources=sources)
        emit(st, u.to_dict(), lambda: out.print(
            f"{u.document} {u.key}: decision undone (record {u.decision.id}); "
            + (f"also out of gold, resting on it: {', '.join(u.undone)}; " if u.undone else "")
            + f"{u.open} open conflict(s)", markup=False))  # fmt: skip
        return
    if every or item_type is not None:
        if key is not None or none or item is not None or threshold is not None:
            raise UsageError("--all/--type take a source's version of many conflicts: give --take, not --key, "
                             "--none, --item or --threshold")  # fmt: skip
        if take is None:
            raise UsageError("--all/--type need --take NAME (whose version to take)")
        with progress_callback("taking") as step:
            bulk = c.resolve_bulk(document, take=take, item_type=item_type, reason=reason, criterion=criterion,
                                  types=types, sources=sources, progress=step)  # fmt: skip
        emit(st, [b.to_dict() for b in bulk], lambda: _print_bulk(bulk))
        breached = [b for b in bulk if b.breaches]
        if breached:  # the decisions are stored; the exit code says gold breaks the schema (exit 4)
            from corpusdb.basics.errors import SchemaError

            n = sum(len(b.breaches) for b in breached)
            first = breached[0]
            raise SchemaError(
                f"the take left {n} schema error(s) in the gold of {len(breached)} document(s) (listed above; the "
                f"decisions are stored): revise {first.breach_keys[0][0] if first.breach_keys[0] else 'them'} on "
                f"{first.document} and the others (--revise) before --finish"
            )
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
                      f"({', '.join(f'{k} {v}' for k, v in r.added.items()) or 'none'}), {r.rejected} voted absent (by majority), "
                      f"{r.kept} kept, {r.existing} already in gold, {r.open} open", markup=False) for r in res])  # fmt: skip
        return
    if document is None:
        raise UsageError("resolving a conflict needs its DOCUMENT")
    if sum((take is not None and item is None, none, item is not None)) != 1:  # said in CLI words
        raise UsageError("resolving a conflict needs exactly one of --take, --none and --item")
    parsed = parse_item(item, kind_of_key(key)) if item is not None else None
    r = c.resolve(document, key, take=take, item=parsed, reject=none, reason=reason, criterion=criterion,
                  types=types, sources=sources, revise=revise)  # fmt: skip
    emit(st, r.to_dict(), lambda: out.print(
        f"{r.document} {r.key}: " + (f"gold {r.gold_item_id}" if r.gold_item_id else "decided absent (not in gold)")
        + f" ({r.decision.method}, decision {r.decision.id}"
        + (f", revised decision {r.revised}" if r.revised else "") + "); "
        + (f"out of gold, resting on the old item: {', '.join(r.undone)}; " if r.undone else "")
        + f"{r.open} open conflict(s) left" + ("; finish with --finish" if r.open == 0 else ""),
        markup=False))  # fmt: skip


def _finish(st: Any, c: Any, document: str, *, finish: bool, force: bool, **kw: Any) -> None:
    from corpusdb.workflow.revise import GoldNotFinished

    try:
        res = c.finish_gold(document, force=force, **kw) if finish else c.check_gold(document, **kw)
        if not finish and not res.ok:
            raise GoldNotFinished(res)  # --check says it as --finish would: exit 6
    except GoldNotFinished as exc:  # what stands in the way on stdout, the refusal once on stderr
        refused = exc.check
        emit(st, refused.to_dict(), lambda: _print_check(refused))
        raise

    def render() -> None:
        if finish:
            out.print(f"{res.document}: gold finished (set {res.gold_set_id}); decisions are frozen "
                      "(change it with `corpusdb correct`, or a lead reopens the set)", markup=False)  # fmt: skip
        else:
            out.print(res.summary(), markup=False)
        _print_check(res)

    emit(st, res.to_dict(), render)


def _finish_all(st: Any, c: Any, *, dry_run: bool, **kw: Any) -> None:
    """Every ready document: finish (or check) each gold that can be; list the rest with why; exit 6
    when a ready document's gold could not be finished (documents not ready are listed, not counted)."""
    with progress_callback("checking gold" if dry_run else "finishing gold") as step:
        rep = c.finish_golds(dry_run=dry_run, progress=step, **kw)
    done = "can be finished" if dry_run else "gold finished"

    def render() -> None:
        for ch in rep.finished:
            out.print(
                f"{ch.document}: {done}" + ("" if dry_run else f" (set {ch.gold_set_id})"), markup=False
            )
        for ch in rep.refused:
            out.print(f"{ch.document}: not finished: {ch.reason()}", markup=False)
        for d, why in rep.not_ready:
            out.print(f"{d}: not ready: {why}", markup=False)
        out.print(f"total: {len(rep.finished)} {'can be finished' if dry_run else 'finished now'}, "
                  f"{len(rep.already)} finished before, {len(rep.refused)} not finished, "
                  f"{len(rep.not_ready)} not ready", markup=False)  # fmt: skip

    emit(st, rep.to_dict(), render)
    if rep.refused:
        from corpusdb.basics.errors import Conflict

        names = ", ".join(ch.document for ch in rep.refused[:3]) + (" ..." if len(rep.refused) > 3 else "")
        raise Conflict(
            f"{len(rep.refused)} ready document(s) cannot be finished yet: {names} (why: listed above)"
        )


def _print_check(check: Any) -> None:
    """One line per thing in the way (the one-line verdict is the caller's: summary or the error)."""
    why = dict(check.blocked)
    for k in check.open:
        out.print(f"  open     {k}" + (f"  (blocked: {why[k]})" if k in why else ""), markup=False)
    for k, on in check.waiting:
        out.print(f"  waiting  {k}  (on {on})", markup=False)
    for i, v in enumerate(check.violations):
        keys = check.decide[i] if i < len(check.decide) else ()
        where = f"{v.item_kind} {v.item_id}" if v.item_id else v.item_kind
        out.print(f"  {v.severity:<8} {where}: {v.message}" + (f"  (decided on {', '.join(keys)})" if keys else ""),
                  markup=False)  # fmt: skip
    if check.derived:  # apart from gold's items: the release writes them marked derived
        from guidelines.derive import derived_line

        out.print(f"  derived by the schema's rules (not gold items; the release writes them marked derived): "
                  f"{len(check.derived)}", markup=False)  # fmt: skip
        for d in check.derived:
            out.print(f"      {derived_line(d)}", markup=False)


def _print_bulk(bulk: list[Any]) -> None:
    for b in bulk:
        out.print(f"{b.document}: took {b.take}'s version of {b.taken}, not taken {b.refused} ({b.take} has nothing there), "
                  f"{b.followed} followed, {len(b.skipped)} skipped, {b.open} open", markup=False)  # fmt: skip
        for s in b.skipped:
            out.print(f"  skipped {s.key}: {s.reason}", markup=False)
        for v, keys in zip(b.breaches, b.breach_keys, strict=True):
            where = f"{v.item_kind} {v.item_id}" if v.item_id else v.item_kind
            out.print(f"  breach  {where}: {v.message}" + (f"  (decided on {', '.join(keys)})" if keys else ""),
                      markup=False)  # fmt: skip
    out.print(f"total: {len(bulk)} documents, {sum(b.taken for b in bulk)} taken, "
              f"{sum(b.refused for b in bulk)} not taken, {sum(len(b.skipped) for b in bulk)} skipped, "
              f"{sum(b.open for b in bulk)} open"
              + (f", {sum(len(b.breaches) for b in bulk)} schema error(s) left" if any(b.breaches for b in bulk) else ""),
              markup=False)  # fmt: skip


def decisions(
    ctx: typer.Context,
    document: Annotated[str | None, typer.Argument(help="One document; default: all.")] = None,
    current: Annotated[
        bool, typer.Option("--current", help="Only the decisions in force (no revised or undone ones).")
    ] = False,
) -> None:
    """The provenance of every gold item: method, sources, who decided, when and why; the whole
    history (revised and undone decisions are marked, edits say from what and what changed)."""
    from corpusdb.workflow.revise import DECISION_COLUMNS, decision_row, describe_decision

    st = state(ctx)
    res = st.corpus().decisions(document)
    if current:
        res = [d for d in res if d.in_force]

    def render() -> None:
        rows = [decision_row(d) for d in res]
        by = Counter(d.method for d in res)
        revised = sum(1 for d in res if d.superseded_by is not None)
        print_table(DECISION_COLUMNS,
                    rows,
                    f"total: {len(res)} decisions on {len({d.document_external_id for d in res})} documents"
                    + (f" ({', '.join(f'{k} {v}' for k, v in sorted(by.items()))})" if by else "")
                    + (f"; {revised} revised or undone" if revised else ""))  # fmt: skip

    emit(st, [{"id": d.id, "document": d.document_external_id, "kind": d.item_kind, "item": d.item_id,
               "method": d.method, "decided_by": d.decided_by, "sources": list(d.sources), "reason": d.reason,
               "created": d.created.isoformat(), "superseded_by": d.superseded_by, "in_force": d.in_force,
               "before": d.before, "after": d.after, "provenance": describe_decision(d)} for d in res], render)  # fmt: skip


def register(app: typer.Typer) -> None:
    app.command("conflicts", epilog=codes("5 not an adjudicator, or the document is not ready"))(conflicts)
    app.command("adjudicate", epilog=codes("4 invalid item", "5 not an adjudicator, or the document is not ready",
                                           "6 decided meanwhile by someone (--revise to decide again), blocked by an "
                                           "undecided argument, gold finished, --finish refused (open conflicts, schema "
                                           "errors), or a stale revision"))(adjudicate)  # fmt: skip
    app.command("decisions", epilog=codes("5 not an adjudicator"))(decisions)
